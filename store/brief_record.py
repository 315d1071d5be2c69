"""The record of briefs given: what each session was told, kept in the store's `briefs` table.

A record holds when, to which host (and session, and why the session started, where the host says),
the ids of the facts the brief showed, the snapshot hash it was made from and the sha256 of its
text; never the text, so a fact forgotten later leaves nothing here to erase. Giving a brief is not
a write to the memory: it adds no ledger row and leaves the content hash alone, so bundles do not
go stale at every session start. Snapshots carry the records (docs/snapshot-format.md), which is
how a report answers "what was my agent told on Tuesday, and was it true?".
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime

from . import ledger
from .timefmt import record_time, utc_now

# What a host may give to be recorded, at most: a session id or a start reason is an identifier, not text.
FIELD_LIMIT = 200
FIELDS = ("at", "host", "session", "source", "hash", "digest", "facts", "chars")


@dataclass(frozen=True)
class BriefRecord:
    """One brief given, as the snapshot carries it."""

    at: str
    host: str
    session: str | None
    source: str | None
    hash: str
    digest: str
    facts: tuple[str, ...]
    chars: int

    def as_dict(self) -> dict:
        return {"at": self.at, "host": self.host, "session": self.session, "source": self.source,
                "hash": self.hash, "digest": self.digest, "facts": list(self.facts), "chars": self.chars}


def has_table(conn: sqlite3.Connection) -> bool:
    """Whether the store keeps briefs (schema 8 on): an older one, read before a write migrates it, has given none."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'briefs'").fetchone() is not None


def record(conn: sqlite3.Connection, *, host: str, session: str | None, source: str | None, snapshot_hash: str,
           digest: str, facts: list[str], chars: int, now: datetime | None = None) -> BriefRecord:
    """Add one record in its own transaction, at `now` (the clock's); its time never runs before
    the newest record time of the memory it describes, so time travel to it shows what the brief
    was made from."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        newest = conn.execute("SELECT max(at) FROM briefs").fetchone()[0]
        at = max(record_time(now or utc_now()), ledger.last_at(conn) or "", newest or "")
        made = BriefRecord(at, _bounded(host) or "unknown", _bounded(session), _bounded(source), snapshot_hash, digest,
                           tuple(facts), chars)
        conn.execute("INSERT INTO briefs (at, host, session, source, snapshot_hash, digest, facts, chars) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     (made.at, made.host, made.session, made.source, made.hash, made.digest, json.dumps(facts),
                      made.chars))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return made


def _bounded(value: str | None) -> str | None:
    """An identifier a host gave, one line and bounded; None for nothing."""
    if value is None:
        return None
    value = " ".join(str(value).split())[:FIELD_LIMIT]
    return value or None


def last(conn: sqlite3.Connection) -> BriefRecord | None:
    """The newest record, or None (none given yet, or a store from before briefs)."""
    if not has_table(conn):
        return None
    row = conn.execute(f"SELECT {_COLUMNS} FROM briefs ORDER BY at DESC, n DESC LIMIT 1").fetchone()
    return None if row is None else _record(row)


def records(conn: sqlite3.Connection) -> list[dict]:
    """Every record, oldest first, as the snapshot carries them."""
    if not has_table(conn):
        return []
    return [_record(row).as_dict() for row in conn.execute(f"SELECT {_COLUMNS} FROM briefs ORDER BY at, n")]


_COLUMNS = "at, host, session, source, snapshot_hash, digest, facts, chars"


def _record(row: sqlite3.Row | tuple) -> BriefRecord:
    at, host, session, source, snapshot_hash, digest, facts, chars = tuple(row)
    return BriefRecord(at, host, session, source, snapshot_hash, digest, tuple(json.loads(facts)), chars)
