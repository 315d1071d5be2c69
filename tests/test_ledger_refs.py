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
from memlens.store.snapshot.load import load_into

from conftest import StepClock, as_schema_version

BEFORE_LEDGER_REFS = 4   # the schema version before the table


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


def plan(path: Path) -> list[str]:
    with Memory(path, readonly=True) as memory:
        query = f"SELECT l.seq FROM ledger l WHERE {reads.naming_any(memory.conn)} ORDER BY l.seq"
        return [row[-1] for row in memory.conn.execute("EXPLAIN QUERY PLAN " + query, {"ids": '["x"]'})]


def test_history_looks_the_rows_up_and_reads_every_row_only_in_an_unmigrated_store(store):
    steps = plan(store)
    assert "SEARCH ledger_refs USING PRIMARY KEY (ref=?)" in steps and "SCAN l" not in steps
    assert "SEARCH t USING INTEGER PRIMARY KEY (rowid>?)" in steps   # the rows past the mark, by seq
    as_schema_version(store, BEFORE_LEDGER_REFS)
    steps = plan(store)
    assert "SCAN l" in steps and not any("ledger_refs" in step for step in steps)


def test_a_store_read_before_its_migration_gives_the_same_history_and_migrating_fills_the_table(store):
    wanted = histories(store)
    as_schema_version(store, BEFORE_LEDGER_REFS)
    with sqlite3.connect(store) as conn:
        assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'ledger_refs'").fetchone()
    assert histories(store) == wanted   # read from each row's refs
    assert migrate_file(store) == (BEFORE_LEDGER_REFS, schema.SCHEMA_VERSION)
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


def append_as_an_older_memlens(path: Path, refs: list[str]) -> int:
    """A ledger row as a memlens from before the table appends it, to a store migrated since it
    opened: chained like any other, its refs in the row only."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        row = ledger._row(ledger.head(conn), "2027-01-01T00:00:00.000000Z", "agent:old", "reassert", "fact", refs, {})
        seq = conn.execute("INSERT INTO ledger (at, actor, action, kind, refs, payload, chain) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?)", row).lastrowid
        conn.execute("COMMIT")
        return seq
    finally:
        conn.close()


def test_rows_an_older_memlens_appends_are_in_histories_at_once_and_in_the_table_after_our_next_write(store):
    with Memory(store, readonly=True) as memory:
        fact = memory.conn.execute("SELECT id FROM facts ORDER BY id LIMIT 1").fetchone()[0]
        before = [row["seq"] for row in memory.history(fact)["ledger"]]
    seq = append_as_an_older_memlens(store, [fact])
    assert (fact, seq) not in indexed(store)
    with Memory(store, readonly=True) as memory:
        assert [row["seq"] for row in memory.history(fact)["ledger"]] == before + [seq]   # read past the mark
        assert pages.history(memory.conn, fact, pages.Page(limit=50, offset=0))["ledger"]["total"] == len(before) + 1
    with Memory(store, clock=StepClock()) as memory:
        memory.remember([FactInput("svc-5", "calls", "svc-6", None, None)])
        assert memory.conn.execute("SELECT seq FROM ledger_refs_upto").fetchone()[0] == \
            memory.conn.execute("SELECT max(seq) FROM ledger").fetchone()[0]
    assert indexed(store) == refs_of_rows(store) and (fact, seq) in indexed(store)


def test_migrating_a_store_an_older_memlens_wrote_after_schema_5_adds_what_it_left_out(store):
    as_schema_version(store, 5)
    with Memory(store, readonly=True) as memory:
        fact = memory.conn.execute("SELECT id FROM facts ORDER BY id LIMIT 1").fetchone()[0]
    seq = append_as_an_older_memlens(store, [fact, "svc-0"])
    assert indexed(store) != refs_of_rows(store)
    assert migrate_file(store) == (5, schema.SCHEMA_VERSION)
    assert indexed(store) == refs_of_rows(store) and (fact, seq) in indexed(store)
