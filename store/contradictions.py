"""Contradictions: two facts marked contested until someone resolves the pair."""
from __future__ import annotations

import sqlite3

from .db import Tx
from .errors import Conflict, InvalidInput
from .ids import derived_id, short
from .versions import get_fact


def contest(tx: Tx, ref_a: str, ref_b: str, reason: str, confidence: float) -> str:
    a, b = get_fact(tx.conn, ref_a), get_fact(tx.conn, ref_b)
    if a["id"] == b["id"]:
        raise InvalidInput("a fact cannot contradict itself")
    if not reason.strip():
        raise InvalidInput("say why the facts contradict each other (--reason)")
    if not 0.0 <= confidence <= 1.0:
        raise InvalidInput(f"confidence {confidence} is not between 0 and 1")
    for fact in (a, b):
        if fact["status"] != "current":
            raise Conflict(f"fact {short(fact['id'])} is {fact['status']}; only current facts can be contested")
    pair = sorted([a["id"], b["id"]])
    if open_between(tx.conn, *pair):
        raise Conflict(f"facts {short(pair[0])} and {short(pair[1])} are already contested")
    return _record(tx, pair, reason.strip(), confidence, tx.actor)


def _record(tx: Tx, pair: list[str], reason: str, confidence: float, actor: str,
            carried_from: str | None = None) -> str:
    cid = derived_id("contradiction", *pair, tx.at)
    tx.conn.execute(
        """INSERT INTO contradictions (id, fact_a, fact_b, reason, confidence, actor, recorded_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)""",
        (cid, pair[0], pair[1], reason, confidence, actor, tx.at),
    )
    tx.log("contest", "contradiction", [cid, *pair], confidence=confidence, carried_from=carried_from)
    return cid


def open_between(conn: sqlite3.Connection, a: str, b: str) -> sqlite3.Row | None:
    return conn.execute(
        """SELECT * FROM contradictions WHERE resolved_at IS NULL
           AND ((fact_a = ? AND fact_b = ?) OR (fact_a = ? AND fact_b = ?))""",
        (a, b, b, a),
    ).fetchone()


def open_ids_of(conn: sqlite3.Connection, fid: str) -> list[str]:
    return [
        r[0]
        for r in conn.execute(
            "SELECT id FROM contradictions WHERE resolved_at IS NULL AND (fact_a = ? OR fact_b = ?) ORDER BY id",
            (fid, fid),
        )
    ]


def resolve(tx: Tx, cid: str, resolution: str, reason: str | None = None) -> None:
    tx.conn.execute(
        "UPDATE contradictions SET resolved_at = ?, resolution = ?, resolution_reason = ? WHERE id = ?",
        (tx.at, resolution, reason, cid),
    )
    tx.log("resolve", "contradiction", [cid], resolution=resolution)


def resolve_all_of(tx: Tx, fid: str, resolution: str, reason: str | None = None) -> None:
    """A fact that stops being current settles every open contradiction it was part of."""
    for cid in open_ids_of(tx.conn, fid):
        resolve(tx, cid, resolution, reason)


def carry_over(tx: Tx, old: str, new: str) -> None:
    """An open question follows a fact that moved (merge): closed on the old id, asked on the new."""
    for row in tx.all(
        "SELECT * FROM contradictions WHERE resolved_at IS NULL AND (fact_a = ? OR fact_b = ?) ORDER BY id", (old, old)
    ):
        resolve(tx, row["id"], "merged")
        pair = sorted(new if fid == old else fid for fid in (row["fact_a"], row["fact_b"]))
        if pair[0] == pair[1] or open_between(tx.conn, *pair):
            continue
        _record(tx, pair, row["reason"], row["confidence"], row["actor"], carried_from=row["id"])
