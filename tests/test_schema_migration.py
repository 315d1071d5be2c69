"""Schema 3: the automatic column and the name key, on new stores, imported ones and migrated old ones."""
from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from pathlib import Path

from memlens.store import entities, snapshot
from memlens.store.facts import FactInput
from memlens.store.memory import Memory
from memlens.store.errors import StoreUnreadable
from memlens.store.schema import AUTO_REASON, SCHEMA_VERSION, migrate
from memlens.store.snapshot.load import load_into

from conftest import StepClock, as_schema_version


def owned(memory: Memory) -> None:
    memory.declare_functional("owned_by")
    memory.remember([FactInput("Émile", "owned_by", "dana", "Person", "Person", valid_from="2025-01-01")])
    memory.remember([FactInput("émile", "owned_by", "priya", None, "Person", valid_from="2026-01-01")])


def as_schema_2(path: Path) -> None:
    """What memlens wrote before schema 3: no automatic column, no name key, a NOCASE index (and
    none of schema 4's judged-facts index nor of schema 5's ledger_refs, nor of schema 6's mark, nor
    of schema 8's record of briefs, nor of schema 9's origin columns, nor of schema 10's observation
    places)."""
    conn = sqlite3.connect(path)
    conn.executescript("""
        ALTER TABLE entities DROP COLUMN observation_position;
        ALTER TABLE fact_versions DROP COLUMN judged_at;
        ALTER TABLE fact_versions DROP COLUMN bundle;
        ALTER TABLE facts DROP COLUMN origin;
        DROP TABLE briefs;
        DROP INDEX entities_type;
        DROP TABLE ledger_refs_upto;
        DROP TABLE ledger_refs;
        DROP INDEX fact_versions_judged;
        DROP INDEX entities_name_key;
        DROP INDEX fact_versions_closed_by;
        ALTER TABLE entities DROP COLUMN name_key;
        ALTER TABLE fact_versions DROP COLUMN automatic;
        CREATE INDEX entities_name ON entities (name COLLATE NOCASE);
        PRAGMA user_version = 2;
    """)
    conn.close()


def test_an_old_store_migrates_on_its_first_write_and_reads_as_before(tmp_path: Path):
    path = tmp_path / "old.sqlite"
    with Memory(path, clock=StepClock()) as memory:
        owned(memory)
    as_schema_2(path)
    # Memory's reads refuse a store older than schema.OLDEST_READABLE (they would look entities up by
    # a key it lacks); the snapshot's own queries read it, on a plain read-only connection.
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, isolation_level=None)
    conn.row_factory = sqlite3.Row
    before = snapshot.build(conn, "old")
    conn.close()
    assert before["facts"] and sum(f["reason"] == AUTO_REASON for f in before["facts"]) == 1

    with Memory(path, clock=StepClock()) as memory:
        memory.add_type("Runbook")
        after = memory.snapshot()
        assert memory.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        flags = memory.conn.execute("SELECT reason, automatic FROM fact_versions WHERE status = 'superseded'").fetchall()
        keys = [r[0] for r in memory.conn.execute("SELECT name_key FROM entities ORDER BY name_key")]
        # The migrated flag drives the ordering as the reason text did: retracting the successor
        # reopens the value it closed, its end lifted.
        dana = next(f for f in after["facts"] if f["status"] == "superseded")
        assert memory.retract(dana["superseded_by"], "the move never happened")[1] == [dana["id"]]
        assert (memory.fact(dana["id"])["status"], memory.fact(dana["id"])["valid_to"]) == ("current", None)
    assert [tuple(row) for row in flags] == [(AUTO_REASON, 1)]
    assert keys == ["dana", "priya", "émile"]
    for part in ("entities", "facts", "contradictions", "dismissals"):
        assert after[part] == before[part], part


def test_an_imported_entity_is_found_by_a_unicode_casefold_of_its_name(tmp_path: Path):
    with Memory(tmp_path / "native.sqlite", clock=StepClock()) as native:
        owned(native)
        emile = entities.get(native.conn, "ÉMILE")["id"]
        snapshot = json.loads(json.dumps(native.snapshot()).replace(emile, "memoose-entity-17"))
    with Memory(tmp_path / "imported.sqlite", clock=StepClock()) as imported:
        load_into(imported, snapshot, source="memoose")
        assert entities.find(imported.conn, "émile")["id"] == "memoose-entity-17"
        assert entities.find(imported.conn, "  ÉMILE ")["id"] == "memoose-entity-17"
        assert entities.find(imported.conn, "emile") is None  # folding case is not dropping accents
        [outcome] = imported.remember([FactInput("émile", "owned_by", "sam", None, "Person", valid_from="2027-01-01")])
        assert imported.fact(outcome.fact_id)["subject"] == "memoose-entity-17"
        assert imported.stats()["entities"] == 4


class _ReadBeforeAnotherMigrates:
    """A connection whose first look at the schema version comes just before another process
    migrates the file (`meanwhile`): what two writers opening an old store at the same moment do."""

    def __init__(self, conn: sqlite3.Connection, meanwhile: Callable[[], object]) -> None:
        self.conn, self.meanwhile, self.looked = conn, meanwhile, False

    def execute(self, sql: str, *args):
        cursor = self.conn.execute(sql, *args)
        if sql == "PRAGMA user_version" and not self.looked:
            self.looked = True
            seen = cursor.fetchone()
            self.meanwhile()
            return _Seen(seen)
        return cursor


class _Seen:
    def __init__(self, row) -> None:
        self.row = row

    def fetchone(self):
        return self.row


@contextmanager
def two_writers_of_an_old_store(tmp_path: Path) -> Iterator[tuple[Path, sqlite3.Connection, sqlite3.Connection]]:
    path = tmp_path / "old.sqlite"
    with Memory(path, clock=StepClock()) as memory:
        owned(memory)
    as_schema_version(path, SCHEMA_VERSION - 2)
    first = sqlite3.connect(path, isolation_level=None, timeout=5)
    other = sqlite3.connect(path, isolation_level=None, timeout=5)
    try:
        yield path, first, other
    finally:
        first.close()
        other.close()


def test_two_writers_migrating_one_old_store_at_once_both_succeed(tmp_path: Path):
    with two_writers_of_an_old_store(tmp_path) as (path, first, other):
        migrate(_ReadBeforeAnotherMigrates(first, lambda: migrate(other)))   # failed: "table ... already exists"
        assert first.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert first.execute("SELECT count(*) FROM sqlite_master WHERE name = 'ledger_refs'").fetchone()[0] == 1
        assert first.execute("SELECT count(*) FROM ledger_refs").fetchone()[0] > 0
    with Memory(path, clock=StepClock()) as memory:   # and the store is whole
        assert memory.stats()["facts"] == 2


def test_a_writer_that_finds_a_newer_memlens_migrated_the_store_meanwhile_changes_nothing(tmp_path: Path):
    with two_writers_of_an_old_store(tmp_path) as (_, first, other):
        tables = first.execute("SELECT name FROM sqlite_master ORDER BY name").fetchall()
        newer = _ReadBeforeAnotherMigrates(first, lambda: other.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}"))
        with pytest.raises(StoreUnreadable, match="Upgrade memlens"):
            migrate(newer)
        assert first.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
        assert first.execute("SELECT name FROM sqlite_master ORDER BY name").fetchall() == tables
        assert not first.in_transaction
