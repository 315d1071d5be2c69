"""Finding another tool's store, reading it without writing it, and refusing what is not one."""
from __future__ import annotations

import hashlib
import os
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from import_fixtures import MemooseFile, build_memoose, build_memware, build_mnemo
from memlens.store.errors import InvalidInput, MemlensError
from memlens.store.importers import SourceNotFound, SourceUnreadable, locate, read_snapshot
from memlens.store.memory import Memory

BUILDERS = {"memoose": build_memoose, "memware": build_memware, "mnemo": build_mnemo}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private home with none of the tools' variables set."""
    for variable in ("MEMOOSE_DATA_DIR", "MEMOOSE_PROJECT_DIR", "MEMWARE_DB", "MEMWARE_HOME", "XDG_DATA_HOME",
                     "DB_PATH", "MNEMO_DB_PATH"):
        monkeypatch.delenv(variable, raising=False)
    directory = tmp_path / "home"
    directory.mkdir()
    monkeypatch.setenv("HOME", str(directory))
    return directory


def snapshot_files(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


# -- where each tool keeps its store -------------------------------------------------------------

def test_memoose_store_is_found_by_memooses_own_naming_rule(home: Path, tmp_path: Path, monkeypatch):
    project = tmp_path / "My Project!"
    project.mkdir()
    monkeypatch.chdir(project)
    digest = hashlib.sha1(str(project.resolve()).encode()).hexdigest()[:8]
    expected = home / ".memoose" / f"my-project-{digest}.sqlite"
    with pytest.raises(SourceNotFound, match=str(expected)):
        locate("memoose")
    expected.parent.mkdir()
    build_memoose(expected)
    assert locate("memoose") == expected
    assert read_snapshot("memoose")["dataset"] == f"memoose:my-project-{digest}.sqlite"


def test_memoose_data_dir_variable_moves_the_store(home: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("MEMOOSE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    digest = hashlib.sha1(str(tmp_path.resolve()).encode()).hexdigest()[:8]
    found = tmp_path / "data" / f"{tmp_path.name.casefold()}-{digest}.sqlite"  # pytest's names are already safe
    with pytest.raises(SourceNotFound, match=r"MEMOOSE_DATA_DIR"):
        locate("memoose")
    found.parent.mkdir()
    found.touch()
    assert locate("memoose") == found


def test_memware_store_is_memware_db_unless_the_variable_says_otherwise(home: Path, tmp_path: Path, monkeypatch):
    with pytest.raises(SourceNotFound, match=str(home / ".memware" / "memware.db")):
        locate("memware")
    (home / ".memware").mkdir()
    build_memware(home / ".memware" / "memware.db")
    assert locate("memware") == home / ".memware" / "memware.db"
    monkeypatch.setenv("MEMWARE_DB", str(tmp_path / "elsewhere.db"))
    with pytest.raises(SourceNotFound, match="MEMWARE_DB"):
        locate("memware")


def test_mnemo_store_follows_db_path_then_its_data_directories(home: Path, tmp_path: Path, monkeypatch):
    with pytest.raises(SourceNotFound) as missing:
        locate("mnemo")
    assert str(home / ".mnemo-mcp" / "memories.db") in str(missing.value)
    assert str(home / ".mnemo" / "memories.db") in str(missing.value)
    (home / ".mnemo").mkdir()
    (home / ".mnemo" / "memories.db").touch()
    assert locate("mnemo") == home / ".mnemo" / "memories.db"
    (home / ".mnemo-mcp").mkdir()
    (home / ".mnemo-mcp" / "memories.db").touch()
    assert locate("mnemo") == home / ".mnemo-mcp" / "memories.db"
    monkeypatch.setenv("MNEMO_DB_PATH", str(tmp_path / "b.db"))
    monkeypatch.setenv("DB_PATH", str(tmp_path / "a.db"))
    (tmp_path / "a.db").touch()
    assert locate("mnemo") == tmp_path / "a.db"


def test_a_path_given_wins_and_a_missing_one_is_named(home: Path, tmp_path: Path):
    with pytest.raises(SourceNotFound, match="no memware store at .*nowhere.db"):
        locate("memware", tmp_path / "nowhere.db")
    build_memware(tmp_path / "here.db")
    assert locate("memware", str(tmp_path / "here.db")) == tmp_path / "here.db"


def test_an_unknown_tool_is_refused_by_name(tmp_path: Path):
    build_memware(tmp_path / "memware.db")
    assert read_snapshot("MemWare", tmp_path / "memware.db")["facts"]
    with pytest.raises(InvalidInput, match="memoose, memware, mnemo"):
        read_snapshot("mem0", tmp_path / "memware.db")


# -- read-only -----------------------------------------------------------------------------------

@pytest.mark.parametrize("tool", sorted(BUILDERS))
def test_reading_leaves_the_store_files_bytes_and_mtime_as_they_were(tmp_path: Path, tool: str):
    path = tmp_path / "store.db"
    BUILDERS[tool](path)
    before = snapshot_files(path)
    snapshot = read_snapshot(tool, path)
    assert snapshot["facts"]
    assert snapshot_files(path) == before


@pytest.mark.parametrize("tool", sorted(BUILDERS))
def test_reading_works_while_the_tool_holds_an_uncommitted_write(tmp_path: Path, tool: str):
    path = tmp_path / "store.db"
    BUILDERS[tool](path)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode = WAL")
    table = {"memoose": "entities", "memware": "belief", "mnemo": "memories"}[tool]
    count = writer.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    # A committed change that still lives only in the WAL, then an open write transaction.
    _committed_row(writer, tool)
    writer.execute("BEGIN IMMEDIATE")
    _uncommitted_row(writer, tool)
    before = snapshot_files(path)
    snapshot = read_snapshot(tool, path)
    text = repr(snapshot)
    assert "committed-in-wal" in text and "not-yet-committed" not in text
    assert snapshot_files(path) == before
    writer.execute("COMMIT")  # the tool's write is not disturbed by the reader
    assert writer.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == count + 2
    writer.close()


def _committed_row(conn: sqlite3.Connection, tool: str) -> None:
    _row(conn, tool, "committed-in-wal", 1)


def _uncommitted_row(conn: sqlite3.Connection, tool: str) -> None:
    _row(conn, tool, "not-yet-committed", 2)


def _row(conn: sqlite3.Connection, tool: str, name: str, n: int) -> None:
    if tool == "memoose":
        conn.execute("INSERT INTO entities VALUES (?, ?, 'Concept', '', 1, 1772500000, 1772500000)",
                     (MemooseFile.entity_id(name), name))
    elif tool == "memware":
        conn.execute("INSERT INTO belief (key, subject, relation, value, valid_from, recorded_at) "
                     "VALUES (?, ?, 'is', 'x', '2026-01-01', '2026-03-03T00:00:00Z')", (f"{name}|is", name))
    else:
        conn.execute("INSERT INTO memories (id, content, created_at, updated_at, last_accessed) VALUES (?, ?, ?, ?, ?)",
                     (f"{n:032x}", name, "2026-03-03T00:00:00+00:00", "2026-03-03T00:00:00+00:00",
                      "2026-03-03T00:00:00+00:00"))


# -- what is not a store of that tool ------------------------------------------------------------

def _one_line_error(tool: str, path: Path) -> str:
    with pytest.raises(MemlensError) as raised:
        read_snapshot(tool, path)
    message = str(raised.value)
    assert "\n" not in message and str(path) in message
    return message


def test_a_damaged_file_is_a_clear_error(tmp_path: Path):
    good, bad, cut = tmp_path / "good.sqlite", tmp_path / "bad.sqlite", tmp_path / "cut.sqlite"
    build_memoose(good)
    assert read_snapshot("memoose", good)["facts"]
    bad.write_bytes(b"not a database at all " * 200)
    assert "could not be read" in _one_line_error("memoose", bad)
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    assert isinstance(pytest.raises(SourceUnreadable, read_snapshot, "memoose", cut).value, MemlensError)


def test_an_empty_file_and_a_directory_are_clear_errors(tmp_path: Path):
    (tmp_path / "empty.db").touch()
    assert "holds no tables" in _one_line_error("memware", tmp_path / "empty.db")
    (tmp_path / "dir.db").mkdir()
    assert "is a folder, not a file" in _one_line_error("mnemo", tmp_path / "dir.db")


@pytest.mark.parametrize("tool, other", [("memoose", "memware"), ("memware", "mnemo"), ("mnemo", "memoose")])
def test_another_tools_store_is_refused_and_named(tmp_path: Path, tool: str, other: str):
    path = tmp_path / "store.db"
    BUILDERS[other](path)
    assert read_snapshot(other, path)["facts"]
    message = _one_line_error(tool, path)
    assert f"is not a {tool} store" in message and f"looks like a {other} store" in message


def test_a_memlens_dataset_is_not_a_memoose_store(tmp_path: Path):
    with Memory(tmp_path / "mine.sqlite") as memory:
        memory.add_type("Concept")
    message = _one_line_error("memoose", tmp_path / "mine.sqlite")
    assert "looks like a memlens store" in message


def test_an_older_mnemo_legacy_entities_table_is_not_taken_for_memoose(tmp_path: Path):
    build_mnemo(tmp_path / "old.db", legacy=True)
    assert "looks like a mnemo store" in _one_line_error("memoose", tmp_path / "old.db")
    assert read_snapshot("mnemo", tmp_path / "old.db")["entities"]
    assert os.path.exists(tmp_path / "old.db")


@pytest.mark.parametrize("tool", sorted(BUILDERS))
def test_the_hash_changes_exactly_when_the_store_does(tmp_path: Path, tool: str):
    path = tmp_path / "store.db"
    BUILDERS[tool](path)
    first, second = read_snapshot(tool, path), read_snapshot(tool, path)
    assert first["hash"] == second["hash"] and first["generated_at"] == second["generated_at"]
    with closing(sqlite3.connect(path)) as conn, conn:
        _row(conn, tool, "one-more", 3)
    assert read_snapshot(tool, path)["hash"] != first["hash"]
