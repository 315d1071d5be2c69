"""Schema 5's ledger_refs: which ledger rows name an id, kept with every row, filled by the migration,
and read by history (CLI and MCP) as the rows' own refs say; a store read before its migration gives
the same history."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from memlens.store import demo, ledger, pages, reads, schema
from memlens.store.facts import FactInput
from memlens.store.memory import Memory
from memlens.store.opening import migrate_file
from memlens.store.snapshot_load import load_into

from conftest import StepClock, as_schema_version


def refs_of_rows(path: Path) -> set[tuple[str, int]]:
    """(ref, seq) for every ref of every ledger row, read from the rows themselves."""
    with sqlite3.connect(path) as conn:
        return {(ref, seq) for seq, refs in conn.execute("SELECT seq, refs FROM ledger") for ref in json.loads(refs)}


def indexed(path: Path) -> set[tuple[str, int]]:
    with sqlite3.connect(path) as conn:
        return set(conn.execute("SELECT ref, seq FROM ledger_refs"))


def naming(path: Path, ids: set[str]) -> list[int]:
    """The seqs of the rows whose refs name any of `ids`, in order: what a history should list."""
    return sorted({seq for ref, seq in refs_of_rows(path) if ref in ids})


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """The demo memory, then writes of other kinds: a batch, a merge, a forgetting."""
    path = tmp_path / "demo.sqlite"
    demo.build(path).close()
    with Memory(path, clock=StepClock()) as memory:
        memory.remember([FactInput(f"svc-{n}", "depends_on", "libfoo", "Service", "Library", evidence=("ci",))
                         for n in range(30)])
        memory.remember([FactInput("svc-dup", "depends_on", "libfoo", "Service", None)])
        memory.merge("svc-0", "svc-dup")
        fact = memory.remember([FactInput("svc-1", "calls", "svc-2", None, None)])[0].fact_id
        memory.forget_fact(fact)
    return path


def histories(path: Path, readonly: bool = True) -> dict[str, tuple[list[int], list[int], int]]:
    """For some entities (one of them merged into another) and facts: the seqs CLI history lists,
    the first MCP page's seqs and the MCP total."""
    found = {}
    with Memory(path, readonly=readonly) as memory:
        names = [r[0] for r in memory.conn.execute("SELECT name FROM entities WHERE merged_into IS NULL ORDER BY name")]
        facts = [r[0] for r in memory.conn.execute("SELECT id FROM facts ORDER BY id LIMIT 5")]
        for ref in ["svc-0", "libfoo", *names[:8], *facts]:
            cli = [row["seq"] for row in memory.history(ref)["ledger"]]
            mcp = pages.history(memory.conn, ref, pages.Page(limit=5, offset=2))["ledger"]
            found[ref] = (cli, [row["seq"] for row in mcp["items"]], mcp["total"])
    return found


def expected(path: Path) -> dict[str, tuple[list[int], list[int], int]]:
    """The same, worked out from the rows' own refs."""
    found = {}
    with Memory(path, readonly=True) as memory:
        for ref in histories(path):
            view = memory.history(ref)
            ids = {view["fact"]["id"]} if "fact" in view else {
                view["entity"]["id"], *view["merged"], *(f["id"] for f in view["facts"])}
            seqs = naming(path, ids)
            found[ref] = (seqs, seqs[2:7], len(seqs))
    return found


def test_every_kind_of_write_keeps_the_ledger_refs_of_its_rows(store, tmp_path):
    rows = refs_of_rows(store)
    assert indexed(store) == rows
    assert len(rows) > 300   # the demo and the writes above: batches, a merge, a forgetting
    with Memory(store, readonly=True) as memory:
        snapshot = memory.snapshot()
    imported = tmp_path / "imported.sqlite"
    with Memory(imported, clock=StepClock()) as memory:
        load_into(memory, snapshot, source="memoose")
    assert indexed(imported) == refs_of_rows(imported) and len(indexed(imported)) > 300


def test_history_lists_the_rows_that_name_what_it_shows(store):
    found, wanted = histories(store), expected(store)
    assert found == wanted
    assert sum(total for _, _, total in found.values()) > 50 and all(total for _, _, total in found.values())
    # what was merged into an entity is part of its history: the rows that name only the alias too
    with Memory(store, readonly=True) as memory:
        alias = memory.conn.execute("SELECT id FROM entities WHERE name = 'svc-dup'").fetchone()[0]
    assert set(naming(store, {alias})) <= set(found["svc-0"][0]) and naming(store, {alias})


def plan(path: Path) -> str:
    with Memory(path, readonly=True) as memory:
        query = f"SELECT l.seq FROM ledger l WHERE {reads.naming_any(memory.conn)} ORDER BY l.seq"
        return " / ".join(row[-1] for row in memory.conn.execute("EXPLAIN QUERY PLAN " + query, {"ids": '["x"]'}))


def test_history_looks_the_rows_up_and_reads_every_row_only_in_an_unmigrated_store(store):
    assert "SEARCH ledger_refs USING PRIMARY KEY (ref=?)" in plan(store) and "SCAN l" not in plan(store)
    as_schema_version(store, schema.SCHEMA_VERSION - 1)
    assert "SCAN l" in plan(store) and "ledger_refs" not in plan(store)


def test_a_store_read_before_its_migration_gives_the_same_history_and_migrating_fills_the_table(store):
    wanted = histories(store)
    as_schema_version(store, schema.SCHEMA_VERSION - 1)
    with sqlite3.connect(store) as conn:
        assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'ledger_refs'").fetchone()
    assert histories(store) == wanted   # read from each row's refs
    assert migrate_file(store) == (schema.SCHEMA_VERSION - 1, schema.SCHEMA_VERSION)
    assert indexed(store) == refs_of_rows(store)
    assert histories(store) == wanted


def test_a_rows_refs_are_kept_in_its_own_transaction(store):
    before = indexed(store)
    with Memory(store, clock=StepClock()) as memory:
        memory.remember([FactInput("svc-3", "calls", "svc-4", None, None)])
        added = indexed(store) - before
        assert added and added == refs_of_rows(store) - before
        conn = memory.conn
        conn.execute("BEGIN IMMEDIATE")
        ledger.append(conn, "2026-06-01T00:00:00Z", "agent:test", "assert", "fact", ["ghost", "ghost", "ghoul"], {})
        ghosts = "SELECT count(*) FROM ledger_refs WHERE ref IN ('ghost', 'ghoul')"
        assert conn.execute(ghosts).fetchone()[0] == 2   # kept by the write that adds the row, once each
        conn.execute("ROLLBACK")
        assert conn.execute(ghosts).fetchone()[0] == 0   # and gone with it
    assert indexed(store) == refs_of_rows(store)
