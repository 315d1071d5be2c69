"""Functional relations: one current value per subject, ordered by valid time, then arrival."""
from __future__ import annotations

import sqlite3

from . import contradictions
from .db import Tx
from .schema import AUTO_REASON
from .versions import change_state


def is_functional(conn: sqlite3.Connection, relation: str) -> bool:
    row = conn.execute("SELECT functional FROM relations WHERE name = ?", (relation,)).fetchone()
    return bool(row and row[0])


def declare(tx: Tx, relation: str) -> list[str]:
    """Make `relation` functional and settle every subject that now holds several values."""
    relation = relation.strip()
    tx.conn.execute(
        """INSERT INTO relations (name, functional, declared_at) VALUES (?, 1, ?)
           ON CONFLICT (name) DO UPDATE SET functional = 1, declared_at = excluded.declared_at""",
        (relation, tx.at),
    )
    tx.log("declare_functional", "relation", [], relation=relation)
    superseded: list[str] = []
    subjects = tx.all("SELECT DISTINCT subject_id FROM facts WHERE relation = ? ORDER BY subject_id", (relation,))
    for row in subjects:
        superseded += settle(tx, row[0], relation)
    return superseded


def _values(conn: sqlite3.Connection, subject_id: str, relation: str) -> list[sqlite3.Row]:
    """The subject's current and superseded values, in the order the world saw them."""
    return conn.execute(
        """SELECT f.id, f.arrival, v.status, v.superseded_by, v.automatic, v.valid_from, v.valid_to,
                  coalesce(v.valid_from, (SELECT recorded_at FROM fact_versions
                                          WHERE fact_id = f.id ORDER BY version LIMIT 1)) AS starts
           FROM facts f JOIN fact_versions v ON v.fact_id = f.id AND v.retired_at IS NULL
           WHERE f.subject_id = ? AND f.relation = ? AND v.status IN ('current', 'superseded')
           ORDER BY starts, f.arrival""",
        (subject_id, relation),
    ).fetchall()


def settle(tx: Tx, subject_id: str, relation: str) -> list[str]:
    """Supersede all but the latest current value; returns the ids it superseded.

    An undated value counts as valid from when it was first recorded. A value that arrives late
    with an older valid_from is filed as history: superseded by the next later value, slotted
    between its neighbours, and the present stays.
    """
    if not is_functional(tx.conn, relation):
        return []
    values = _values(tx.conn, subject_id, relation)
    current = [v for v in values if v["status"] == "current"]
    superseded = []
    for loser in current[:-1]:
        successor = _next_in_chain(values, loser)
        _slot_in(tx, values, loser, successor)
        change_state(
            tx, loser["id"], status="superseded", superseded_by=successor["id"], reason=AUTO_REASON, automatic=1,
            valid_to=loser["valid_to"] or successor["valid_from"],
        )
        tx.log("supersede", "fact", [loser["id"], successor["id"]], automatic=True)
        contradictions.resolve_all_of(tx, loser["id"], "superseded", AUTO_REASON)
        superseded.append(loser["id"])
    return superseded


def _next_in_chain(values: list[sqlite3.Row], value: sqlite3.Row) -> sqlite3.Row:
    """The next later value that is current or was replaced by this ordering (not by a judgement)."""
    later = values[values.index(value) + 1:]
    return next(v for v in later if v["status"] == "current" or v["automatic"])


def _slot_in(tx: Tx, values: list[sqlite3.Row], late: sqlite3.Row, successor: sqlite3.Row) -> None:
    """An earlier value that was automatically closed by `successor` now ends where `late` begins."""
    for earlier in values:
        if (earlier["status"] == "superseded" and earlier["superseded_by"] == successor["id"]
                and earlier["automatic"] and earlier["starts"] < late["starts"]):
            closed_by_successor = earlier["valid_to"] == successor["valid_from"]
            change_state(
                tx, earlier["id"], superseded_by=late["id"],
                valid_to=late["valid_from"] if closed_by_successor and late["valid_from"] else earlier["valid_to"],
            )
            tx.log("supersede", "fact", [earlier["id"], late["id"]], automatic=True)
