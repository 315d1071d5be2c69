"""Opening a store file and running one write as one transaction."""
from __future__ import annotations

import getpass
import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from . import ledger
from .errors import StoreUnreadable
from .schema import migrate
from .timefmt import record_time, utc_now


def default_actor() -> str:
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):  # no passwd entry (containers)
        return "cli:unknown"


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """A connection in autocommit mode: transactions are begun explicitly by `write`."""
    try:
        if readonly:
            conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, isolation_level=None, timeout=60)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA busy_timeout = 60000")
        conn.execute("PRAGMA foreign_keys = ON")
        # Forgetting must erase bytes, not just unlink pages: zero what is deleted.
        conn.execute("PRAGMA secure_delete = ON")
        if not readonly:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            migrate(conn)
        return conn
    except sqlite3.DatabaseError as exc:
        raise StoreUnreadable(f"{path} is not a memlens store ({exc})") from None


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
        # Record time never runs backwards, even if the wall clock does.
        at = max(record_time(clock()), ledger.last_at(conn) or "")
        yield Tx(conn, at, actor)
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
