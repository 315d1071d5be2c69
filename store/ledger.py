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
    refs_json = json.dumps(refs, separators=(",", ":"))
    payload_json = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    chain = link(head(conn), at, actor, action, kind, refs_json, payload_json)
    cursor = conn.execute(
        "INSERT INTO ledger (at, actor, action, kind, refs, payload, chain) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (at, actor, action, kind, refs_json, payload_json, chain),
    )
    return int(cursor.lastrowid)


def link(previous: str, at: str, actor: str, action: str, kind: str, refs_json: str, payload_json: str) -> str:
    """The chain hash of a row: the previous row's chain and this row's fields, so changing any row
    changes every chain hash after it, and the newest one (the store's content hash)."""
    return hashlib.sha256("\x1f".join([previous, at, actor, action, kind, refs_json, payload_json]).encode()).hexdigest()


def chain_of(rows: list[dict]) -> list[str]:
    """The chain hash of every row of a ledger read back (as `rows` returns them), oldest first."""
    chains, previous = [], GENESIS
    for row in rows:
        previous = link(previous, row["at"], row["actor"], row["action"], row["kind"],
                        json.dumps(row["refs"], separators=(",", ":")),
                        json.dumps(row["payload"], sort_keys=True, separators=(",", ":")))
        chains.append(previous)
    return chains


def last_at(conn: sqlite3.Connection) -> str | None:
    """The record time of the newest row; by seq, since a scan for max(at) reads the whole ledger."""
    row = conn.execute("SELECT at FROM ledger ORDER BY seq DESC LIMIT 1").fetchone()
    return row[0] if row else None


def head(conn: sqlite3.Connection) -> str:
    """The chain hash of the newest row: it changes exactly when the store is written."""
    row = conn.execute("SELECT chain FROM ledger ORDER BY seq DESC LIMIT 1").fetchone()
    return row[0] if row else GENESIS


def rows(conn: sqlite3.Connection, *, until: str | None = None) -> list[dict]:
    """Ledger rows as dicts, oldest first; built as one JSON text inside SQLite, parsed once."""
    return json.loads(rows_json(conn, until=until))


def rows_json(conn: sqlite3.Connection, *, until: str | None = None) -> str:
    """`rows` as the JSON text SQLite builds (SQLite does that without holding Python's GIL)."""
    where = "WHERE at <= ?" if until is not None else ""
    sql = f"""SELECT json_group_array(json_object('seq', seq, 'at', at, 'actor', actor, 'action', action,
                                                   'kind', kind, 'refs', json(refs), 'payload', json(payload)))
              FROM (SELECT * FROM ledger {where} ORDER BY seq)"""
    return conn.execute(sql, (until,) if until is not None else ()).fetchone()[0]
