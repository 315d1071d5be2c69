"""Reads never write: a read opens the store read-only, refuses what is not a memlens store, creates
nothing and migrates nothing; a failed import leaves no dataset behind."""
from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from conftest import as_schema_version, store_at_schema_version
from import_fixtures import build_memoose, build_memware, build_mnemo
from memlens.store import opening, schema
from memlens.store.memory import Memory
from memlens.store.triples import parse_triple
from memlens.viewer.reading import read_bundle

FACT = "alice:Person --works_at--> acme:Organization"


def read_commands(store: Path, out: Path) -> list[list[str]]:
    """Every command that only reads a dataset, aimed at `store`."""
    db = ["--db", str(store)]
    return [
        ["stats", *db], ["facts", *db], ["recall", "alice", *db], ["history", "alice", *db],
        ["view", "--no-open", "--out", str(out / "report.html"), *db],
        ["view", "--if-changed", "--no-open", "--out", str(out / "report.html"), *db],
        ["export", "--format", "json", "-o", str(out / "snapshot.json"), *db],
    ]


def fingerprint(folder: Path) -> dict[str, str]:
    """Every file in the folder and its bytes' hash."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def test_reads_refuse_a_sqlite_file_with_other_tables_and_leave_it_as_it_was(cli, tmp_path):
    other = tmp_path / "data" / "o.db"
    other.parent.mkdir()
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE users (x)")
    conn.commit()
    conn.close()
    before = fingerprint(other.parent)
    for args in read_commands(other, tmp_path):
        result = cli(*args)
        assert result.exit_code == 1, (args, result.output)
        assert result.output == f"Error: {other} is not a memlens store: it is a SQLite database with other tables (users)\n"
    assert fingerprint(other.parent) == before
    writes = cli("remember", FACT, "--db", str(other))
    assert writes.exit_code == 1 and "not a memlens store" in writes.output
    assert fingerprint(other.parent) == before

    store = tmp_path / "data" / "real.sqlite"  # the positive case: a memlens store is read
    assert cli("remember", FACT, "--db", str(store)).exit_code == 0
    for args in read_commands(store, tmp_path):
        assert cli(*args).exit_code == 0, args


def test_an_empty_file_is_refused_by_reads_and_becomes_a_store_only_by_a_write(cli, tmp_path):
    empty = tmp_path / "e.db"
    empty.touch()
    for args in read_commands(empty, tmp_path):
        result = cli(*args)
        assert result.exit_code == 1 and result.output == f"Error: {empty} is an empty file, not a memlens store\n"
    assert empty.stat().st_size == 0
    assert cli("remember", FACT, "--db", str(empty)).exit_code == 0
    assert json.loads(cli("stats", "--db", str(empty), "--json").stdout)["facts"] == 1


def test_an_empty_sqlite_database_and_a_file_that_is_not_sqlite_are_named(cli, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("just notes\n" * 100)
    result = cli("stats", "--db", str(text))
    assert result.output == f"Error: {text} is not a memlens store: it is not a SQLite database\n"
    page = tmp_path / "page.db"  # a SQLite file with a header but no tables
    conn = sqlite3.connect(page)
    conn.execute("CREATE TABLE t (x)")
    conn.execute("DROP TABLE t")
    conn.commit()
    conn.close()
    assert page.stat().st_size > 0
    result = cli("stats", "--db", str(page))
    assert result.output == f"Error: {page} is an empty SQLite database, not a memlens store\n"


@pytest.mark.parametrize("tool, build", [("memoose", build_memoose), ("memware", build_memware), ("mnemo", build_mnemo)])
def test_another_tools_store_is_refused_with_the_from_that_reads_it(cli, tmp_path, tool, build):
    path = tmp_path / "src" / f"{tool}.db"
    path.parent.mkdir()
    build(path)
    before = fingerprint(path.parent)
    result = cli("stats", "--db", str(path))
    assert result.exit_code == 1
    assert result.output == f"Error: {path} is not a memlens store: it is a {tool} store; read it with `--from {tool} {path}`\n"
    assert cli("remember", FACT, "--db", str(path)).exit_code == 1
    assert fingerprint(path.parent) == before
    view = cli("view", "--from", tool, str(path), "--no-open", "--out", str(tmp_path / "r.html"))
    assert view.exit_code == 0, view.output
    assert fingerprint(path.parent) == before  # not even a -wal or -shm beside it


def test_a_read_of_a_dataset_that_does_not_exist_is_an_error_and_creates_nothing(cli, home, tmp_path):
    missing = tmp_path / "nowhere" / "m.sqlite"
    for args in read_commands(missing, tmp_path) + [["stats", "-d", "nothing"], ["facts"], ["maintain"],
                                                    ["diff", str(missing), str(missing)]]:
        result = cli(*args)
        assert result.exit_code == 1, (args, result.output)
        assert result.output.startswith("Error: ") and "no " in result.output, args
    assert not missing.parent.exists()
    assert not home.exists() or not list(home.glob("*.sqlite"))
    types = cli("types", "list", "--db", str(missing))  # still answers, from the defaults
    assert types.exit_code == 0 and "Person" in types.stdout.split() and not missing.parent.exists()
    assert cli("remember", FACT, "--db", str(missing)).exit_code == 0  # a write makes the store
    assert cli("stats", "--db", str(missing)).exit_code == 0


def test_a_read_does_not_migrate_a_store_it_can_read_and_migrate_does(cli, tmp_path):
    store = tmp_path / "old.sqlite"
    with Memory(store) as memory:
        memory.remember([parse_triple(FACT)])
    as_schema_version(store, schema.OLDEST_READABLE)

    def version() -> int:
        with sqlite3.connect(store) as check:
            return check.execute("PRAGMA user_version").fetchone()[0]

    assert schema.OLDEST_READABLE < schema.SCHEMA_VERSION  # else there is no older store a read can read
    assert json.loads(cli("stats", "--db", str(store), "--json").stdout)["facts"] == 1
    assert cli("history", "alice", "--db", str(store)).exit_code == 0
    assert cli("view", "--no-open", "--db", str(store), "--out", str(tmp_path / "r.html")).exit_code == 0
    assert version() == schema.OLDEST_READABLE
    migrated = cli("migrate", "--db", str(store))
    assert migrated.exit_code == 0
    assert migrated.output.strip() == f"{store}: schema version {schema.OLDEST_READABLE} -> {schema.SCHEMA_VERSION}"
    assert version() == schema.SCHEMA_VERSION
    again = json.loads(cli("migrate", "--db", str(store), "--json").stdout)
    assert again == {"path": str(store), "from": schema.SCHEMA_VERSION, "to": schema.SCHEMA_VERSION}
    assert cli("migrate", "--db", str(tmp_path / "absent.sqlite")).exit_code == 1


def test_a_store_older_than_the_reads_understand_is_read_through_a_migrated_copy_and_left_as_it_is(cli, tmp_path):
    store = tmp_path / "older.sqlite"
    store_at_schema_version(store, schema.OLDEST_READABLE - 1)
    with sqlite3.connect(store) as old:
        old.execute("INSERT INTO entities (id, name, type, created_at, updated_at) VALUES ('e1', 'Émile', 'Person', "
                    "'2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z')")
    before = store.read_bytes()
    assert json.loads(cli("stats", "--db", str(store), "--json").stdout)["entities"] == 1
    assert cli("recall", "émile", "--db", str(store)).exit_code == 0
    report = tmp_path / "r.html"
    assert cli("view", "--no-open", "--out", str(report), "--db", str(store)).exit_code == 0
    assert [e["name"] for e in read_bundle(report)["entities"]] == ["Émile"]  # the page's data, read back
    assert store.read_bytes() == before  # read, not migrated
    with sqlite3.connect(store) as check:
        assert check.execute("PRAGMA user_version").fetchone()[0] == schema.OLDEST_READABLE - 1
    assert cli("migrate", "--db", str(store)).exit_code == 0
    with sqlite3.connect(store) as check:
        assert check.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
    assert json.loads(cli("stats", "--db", str(store), "--json").stdout)["entities"] == 1


def test_a_failed_import_removes_the_dataset_file_it_created(cli, tmp_path, monkeypatch):
    junk = tmp_path / "notadb.txt"
    junk.write_text("not a database")
    new = tmp_path / "out" / "new.sqlite"
    result = cli("import", "--from", "memoose", str(junk), "--db", str(new))
    assert result.exit_code == 1 and result.output.startswith("Error: ")
    assert not new.exists()

    source = tmp_path / "memoose.db"
    build_memoose(source)
    from memlens.store.snapshot import load as snapshot_load

    def fail(*args, **kwargs):
        raise snapshot_load.InvalidInput("refused halfway")

    with monkeypatch.context() as patch:
        patch.setattr(snapshot_load, "_write", fail)
        failed = cli("import", "--from", "memoose", str(source), "--db", str(new))
    assert failed.exit_code == 1 and "refused halfway" in failed.output
    assert not list(new.parent.iterdir())  # no store, no -wal, no -shm

    assert cli("import", "--from", "memoose", str(source), "--db", str(new)).exit_code == 0
    again = cli("import", "--from", "memoose", str(source), "--db", str(new))
    assert again.exit_code == 1 and "already holds" in again.output
    assert new.exists()  # a dataset it did not create is left alone


def test_view_from_a_tool_that_is_writing_sees_the_writes_in_its_wal(cli, tmp_path):
    path = tmp_path / "memoose.db"
    build_memoose(path)
    live = sqlite3.connect(path, isolation_level=None)
    live.execute("PRAGMA wal_autocheckpoint = 0")  # the tool's latest writes stay in its -wal
    live.execute("INSERT INTO entities (id, name, type, description, created_at, updated_at) "
                 "VALUES ('e-late', 'latecomer', 'Person', '', 1, 1)")
    assert Path(f"{path}-wal").stat().st_size > 0
    assert opening.read_only_uri(path, leave_no_trace=True).endswith("?mode=ro")
    out = tmp_path / "s.json"
    assert cli("export", "--from", "memoose", str(path), "-o", str(out)).exit_code == 0
    assert "latecomer" in {e["name"] for e in json.loads(out.read_text())["entities"]}
    live.close()
    assert opening.read_only_uri(path, leave_no_trace=True).endswith("?immutable=1")


def test_datasets_lists_an_unreadable_file_with_its_reason_beside_the_others(cli, home):
    assert cli("remember", FACT, "-d", "good").exit_code == 0
    (home / "junk.sqlite").write_text("junk")
    rows = {row["name"]: row for row in json.loads(cli("datasets", "--json").stdout)}
    assert rows["good"]["facts"] == 1
    assert "not a SQLite database" in rows["junk"]["error"]
