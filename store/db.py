"""Running one write as one transaction, with its ledger rows."""
from __future__ import annotations

import getpass
import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from . import ledger
from .timefmt import record_time, utc_now


def default_actor() -> str:
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError, ImportError):  # no passwd entry (containers); no USERNAME on Windows (no pwd)
        return "cli:unknown"


# Ids bound in one `IN (...)` at a time. SQLite's bound on one statement's parameters is 32,766;
# a few hundred per IN list is plenty.
IN_CHUNK = 500


def rows_in(conn: sqlite3.Connection, sql: str, ids: list[str]) -> list[sqlite3.Row]:
    """`sql` (with one `IN ({})` and no other parameters) for the ids, a chunk at a time."""
    ordered = sorted(set(ids))
    rows: list[sqlite3.Row] = []
    for start in range(0, len(ordered), IN_CHUNK):
        chunk = ordered[start:start + IN_CHUNK]
        rows += conn.execute(sql.format(",".join("?" * len(chunk))), chunk).fetchall()
    return rows


@dataclass
class Tx:
    """One write in progress: its connection, its record time and who is writing."""

    conn: sqlite3.Connection
    at: str
    actor: str

    def log(self, action: str, kind: str, refs: list[str], **payload: object) -> int:
        metadata = {key: value for key, value in payload.items() if value is not None}
        return ledger.append(self.conn, self.at, self.actor, action, kind, refs, metadata)

    def one(self, sql: str, params: tuple = ()) -> sqlite3.Row | None:
        return self.conn.execute(sql, params).fetchone()

    def all(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        return self.conn.execute(sql, params).fetchall()


@contextmanager
def write(conn: sqlite3.Connection, actor: str, clock: Callable[[], datetime] = utc_now) -> Iterator[Tx]:
    """Everything inside happens in one IMMEDIATE transaction, or not at all."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        ledger.index_refs(conn)
        # Record time never runs backwards, even if the wall clock does.
        at = max(record_time(clock()), ledger.last_at(conn) or "")
        yield Tx(conn, at, actor)
        ledger.mark_indexed(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


@contextmanager
def read(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Everything inside reads one state of the store, whatever other writers commit meanwhile."""
    if conn.in_transaction:  # already inside a write or a read: that one holds the state
        yield conn
        return
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        conn.execute("COMMIT")


def dumps(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
