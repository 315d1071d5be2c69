"""The provenance ledger: one insert-only row per write, chained by hash."""
from __future__ import annotations

import hashlib
import json
import sqlite3

GENESIS = "0" * 64


def append(
    conn: sqlite3.Connection, at: str, actor: str, action: str, kind: str, refs: list[str], payload: dict
) -> int:
    """Add one row in the caller's transaction; returns its seq."""
    last = conn.execute("SELECT chain FROM ledger ORDER BY seq DESC LIMIT 1").fetchone()
    refs_json = json.dumps(refs, separators=(",", ":"))
    payload_json = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    chain = hashlib.sha256(
        "\x1f".join([last[0] if last else GENESIS, at, actor, action, kind, refs_json, payload_json]).encode()
    ).hexdigest()
    cursor = conn.execute(
        "INSERT INTO ledger (at, actor, action, kind, refs, payload, chain) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (at, actor, action, kind, refs_json, payload_json, chain),
    )
    return int(cursor.lastrowid)


def head(conn: sqlite3.Connection) -> str:
    """The chain hash of the newest row: it changes exactly when the store is written."""
    row = conn.execute("SELECT chain FROM ledger ORDER BY seq DESC LIMIT 1").fetchone()
    return row[0] if row else GENESIS


def rows(conn: sqlite3.Connection, *, until: str | None = None) -> list[dict]:
    sql = "SELECT seq, at, actor, action, kind, refs, payload FROM ledger"
    params: tuple = ()
    if until is not None:
        sql += " WHERE at <= ?"
        params = (until,)
    return [
        {
            "seq": r[0], "at": r[1], "actor": r[2], "action": r[3], "kind": r[4],
            "refs": json.loads(r[5]), "payload": json.loads(r[6]),
        }
        for r in conn.execute(sql + " ORDER BY seq", params)
    ]
