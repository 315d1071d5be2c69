"""Rebuild the belief state at a record time from the ledger alone, and read it from the versions.

The two must agree: the ledger is the proof that the versions tell the truth.
"""
from __future__ import annotations

import sqlite3

from memlens.store import ledger, reads

# fact id -> (status, superseded_by); plus the pairs contested at that time
State = tuple[dict[str, tuple[str, str | None]], frozenset[frozenset[str]]]


def from_ledger(conn: sqlite3.Connection, at: str) -> State:
    facts: dict[str, tuple[str, str | None]] = {}
    open_pairs: dict[str, frozenset[str]] = {}
    for row in ledger.rows(conn, until=at):
        action, refs, payload = row["action"], row["refs"], row["payload"]
        if row["kind"] == "fact":
            if action == "assert":
                facts[refs[0]] = ("current", None)
            elif action == "supersede":
                facts[refs[0]] = ("superseded", refs[1])
            elif action == "restore":
                facts[refs[0]] = ("current", None)
            elif action == "retract":
                facts[refs[0]] = ("retracted", None)
            elif action == "forget":
                facts[refs[0]] = ("forgotten", None)
            elif action == "import":   # a fact copied by an import or brought by a merge, in the state it came in
                facts[refs[0]] = (payload["status"], payload.get("superseded_by"))
            elif action == "move":
                facts[refs[1]] = (payload["status"], payload.get("superseded_by"))
                facts[refs[0]] = ("superseded", refs[1])
        elif row["kind"] == "contradiction":
            if action == "contest":
                open_pairs[refs[0]] = frozenset(refs[1:3])
            elif action == "resolve":
                open_pairs.pop(refs[0], None)
    return facts, frozenset(open_pairs.values())


def from_versions(conn: sqlite3.Connection, at: str) -> State:
    facts = {
        f["id"]: (f["status"], f["superseded_by"])
        for f in reads.fact_rows(conn, statuses=None, as_of_record=at)
    }
    pairs = frozenset(
        frozenset(row)
        for row in conn.execute(
            "SELECT fact_a, fact_b FROM contradictions WHERE recorded_at <= ? AND (resolved_at IS NULL OR resolved_at > ?)",
            (at, at),
        )
    )
    return facts, pairs
