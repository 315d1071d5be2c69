"""A fact's state over record time: one row per version, the open one has retired_at NULL."""
from __future__ import annotations

import re
import sqlite3

from .db import Tx
from .errors import Ambiguous, NotFound

STATE_COLUMNS = ("status", "superseded_by", "reason", "automatic", "valid_from", "valid_to")

FACT_WITH_STATE = """
    SELECT f.*, v.status, v.superseded_by, v.reason, v.automatic, v.valid_from, v.valid_to, v.version,
           v.recorded_at AS state_since
    FROM facts f JOIN fact_versions v ON v.fact_id = f.id AND v.retired_at IS NULL
"""


def open_version(conn: sqlite3.Connection, fid: str) -> sqlite3.Row | None:
    return conn.execute(
        "SELECT * FROM fact_versions WHERE fact_id = ? AND retired_at IS NULL", (fid,)
    ).fetchone()


def get_fact(conn: sqlite3.Connection, ref: str) -> sqlite3.Row:
    """A live fact by id or unique id prefix (at least 4 characters), with its open state."""
    ref = ref.strip().lower()
    is_prefix = re.fullmatch(r"[0-9a-f]{4}[0-9a-f-]{0,32}", ref) is not None
    row = conn.execute(FACT_WITH_STATE + " WHERE f.id = ?", (ref,)).fetchone()
    if row is None and is_prefix:
        # GLOB, not LIKE: a case-sensitive prefix is looked up in the id's index (LIKE read all 30,000
        # facts of a 10,000-entity store: a fact's history by its short id took 47 ms, now 2)
        rows = conn.execute(FACT_WITH_STATE + " WHERE f.id GLOB ? LIMIT 2", (ref + "*",)).fetchall()
        if len(rows) > 1:
            raise Ambiguous(f"{ref!r} matches more than one fact id; give more of it")
        row = rows[0] if rows else None
    if row is None:
        forgotten = conn.execute(
            "SELECT 1 FROM tombstones WHERE kind = 'fact' AND id GLOB ?", (ref + "*",)
        ).fetchone() if is_prefix else None
        if forgotten:
            raise NotFound(f"fact {ref} was forgotten")
        raise NotFound(f"no fact with id {ref!r}")
    return row


def open_state(conn: sqlite3.Connection, fid: str) -> dict:
    version = open_version(conn, fid)
    return {column: version[column] for column in STATE_COLUMNS}


def change_state(tx: Tx, fid: str, **changes: object) -> None:
    """Close the fact's open version and open one with `changes`; within one write, amend it."""
    version = open_version(tx.conn, fid)
    state = {column: version[column] for column in STATE_COLUMNS}
    state.update(changes)
    if "reason" in changes and "automatic" not in changes:
        state["automatic"] = 0  # a judgement's reason replaces the functional ordering's
    if version["recorded_at"] == tx.at:
        # amended here, the state is this write's judgement, not one a merge brought (schema 9)
        assignments = ", ".join(f"{column} = ?" for column in STATE_COLUMNS) + ", judged_at = NULL, bundle = NULL"
        tx.conn.execute(
            f"UPDATE fact_versions SET {assignments} WHERE fact_id = ? AND version = ?",
            (*[state[c] for c in STATE_COLUMNS], fid, version["version"]),
        )
        return
    tx.conn.execute(
        "UPDATE fact_versions SET retired_at = ? WHERE fact_id = ? AND version = ?",
        (tx.at, fid, version["version"]),
    )
    insert_version(tx, fid, version["version"] + 1, state)


def insert_version(tx: Tx, fid: str, version: int, state: dict) -> None:
    tx.conn.execute(
        """INSERT INTO fact_versions (fact_id, version, status, superseded_by, reason, automatic, valid_from, valid_to,
                                         recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (fid, version, *[state[c] for c in STATE_COLUMNS], tx.at),
    )


