"""Forget: erase the text of a fact or an entity and leave a tombstone that refuses it back."""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from . import contradictions, entities, functional, search
from .db import Tx
from .versions import change_state, get_fact, open_version


@dataclass(frozen=True)
class FactForgotten:
    """A forgotten fact, the other holdings of its triple forgotten with it (a value that held
    again is one statement: its text goes whole), and the entities that no fact names any more
    since (id, name): forgotten with it if asked, else still holding their names."""

    fact_id: str
    orphans: list[tuple[str, str]]
    orphans_forgotten: bool
    holdings: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        """Names only of the orphans that stay: a forgotten name is not said again."""
        orphans = [{"id": entity_id} if self.orphans_forgotten else {"id": entity_id, "name": name}
                   for entity_id, name in self.orphans]
        return {"forgotten": self.fact_id, "holdings": list(self.holdings), "orphans": orphans,
                "orphans_forgotten": self.orphans_forgotten}


def forget_fact(tx: Tx, ref: str, *, with_orphans: bool = False) -> FactForgotten:
    """Forget one fact and every other holding of its triple; `with_orphans` also forgets its
    subject and object if no other fact names them."""
    fact = get_fact(tx.conn, ref)
    others = tx.all(
        """SELECT f.* FROM facts f WHERE f.subject_id = ? AND f.relation = ? AND f.object_id = ? AND f.id != ?
           ORDER BY f.arrival, f.id""", (fact["subject_id"], fact["relation"], fact["object_id"], fact["id"]))
    for holding in (fact, *others):
        _erase_fact(tx, holding, keep_subject=True)
    orphans = tx.all(
        """SELECT * FROM entities e WHERE e.id IN (?, ?)
           AND NOT EXISTS (SELECT 1 FROM facts WHERE subject_id = e.id)
           AND NOT EXISTS (SELECT 1 FROM facts WHERE object_id = e.id) ORDER BY e.name, e.id""",
        (fact["subject_id"], fact["object_id"]),
    )
    if with_orphans:
        for orphan in orphans:
            _forget_entity(tx, orphan)
    return FactForgotten(fact["id"], [(row["id"], row["name"]) for row in orphans], with_orphans,
                         tuple(row["id"] for row in others))


def forget_entity(tx: Tx, name_or_id: str) -> tuple[str, list[str]]:
    """Forget an entity, the names merged into it and every fact that mentions any of them."""
    return _forget_entity(tx, entities.get(tx.conn, name_or_id))


def _forget_entity(tx: Tx, entity: sqlite3.Row) -> tuple[str, list[str]]:
    ids = _with_aliases(tx.conn, entity["id"])
    marks = ",".join("?" * len(ids))
    facts = tx.all(
        f"""SELECT f.*, v.status FROM facts f JOIN fact_versions v ON v.fact_id = f.id AND v.retired_at IS NULL
            WHERE f.subject_id IN ({marks}) OR f.object_id IN ({marks}) ORDER BY f.arrival""",
        (*ids, *ids),
    )
    for fact in facts:
        _erase_fact(tx, fact, keep_subject=fact["subject_id"] not in ids)
    tx.conn.execute(f"UPDATE tombstones SET subject_id = NULL WHERE subject_id IN ({marks})", ids)
    # Aliases point at the entity they were merged into: delete them before it.
    for entity_id in reversed(ids):
        row = tx.one("SELECT n FROM entities WHERE id = ?", (entity_id,))
        search.unindex_entity(tx.conn, row["n"])
        tx.conn.execute("DELETE FROM entities WHERE id = ?", (entity_id,))
        tx.conn.execute(
            "INSERT INTO tombstones (id, kind, subject_id, forgotten_at, actor) VALUES (?, 'entity', NULL, ?, ?)",
            (entity_id, tx.at, tx.actor),
        )
    tx.log("forget", "entity", ids, facts=len(facts))
    return entity["id"], [f["id"] for f in facts]


def _with_aliases(conn: sqlite3.Connection, entity_id: str) -> list[str]:
    """The entity first, then every entity merged into it, directly or through others."""
    ids, frontier = [entity_id], [entity_id]
    while frontier:
        marks = ",".join("?" * len(frontier))
        frontier = [r[0] for r in conn.execute(
            f"SELECT id FROM entities WHERE merged_into IN ({marks}) ORDER BY id", frontier)]
        ids += frontier
    return ids


def _erase_fact(tx: Tx, fact: sqlite3.Row, *, keep_subject: bool) -> None:
    fid = fact["id"]
    contradictions.resolve_all_of(tx, fid, "forgotten")
    # Reasons are free text and may quote the fact: they go with it.
    tx.conn.execute(
        "UPDATE contradictions SET reason = '', resolution_reason = NULL WHERE fact_a = ? OR fact_b = ?", (fid, fid)
    )
    tx.conn.execute("UPDATE fact_versions SET reason = NULL WHERE fact_id = ?", (fid,))
    began = open_version(tx.conn, fid)["valid_from"]
    change_state(tx, fid, status="forgotten", superseded_by=None, reason=None)
    search.unindex_fact(tx.conn, fact["n"])
    tx.conn.execute("DELETE FROM facts WHERE id = ?", (fid,))
    tx.conn.execute(
        "INSERT INTO tombstones (id, kind, subject_id, forgotten_at, actor) VALUES (?, 'fact', ?, ?, ?)",
        (fid, fact["subject_id"] if keep_subject else None, tx.at, tx.actor),
    )
    tx.log("forget", "fact", [fid])
    if keep_subject:   # as if never said: the values of a one-value relation it replaced hold again
        functional.reopen_closed_by(tx, fid, fact["subject_id"], fact["relation"], began,
                                    "the value that replaced it was forgotten")
