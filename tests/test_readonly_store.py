"""A store that cannot be written (a 0444 file, or any file in a 0555 folder: a teammate's store on a
read-only mount) is read by every read command, and nothing appears beside it."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlens.store import opening
from memlens.store.facts import FactInput
from memlens.store.memory import Memory

NOBODY = 65534
READS = {
    "stats": ["stats", "--json"], "facts": ["facts", "--all"], "recall": ["recall", "alice"],
    "history": ["history", "alice"], "export": ["export", "--format", "json", "-o", "-"],
}


def build(path: Path) -> None:
    with Memory(path, actor="test:readonly") as memory:
        memory.remember([FactInput("alice", "works_at", "acme", "Person", "Organization", evidence=("said so",)),
                         FactInput("alice", "knows", "bob", None, "Person")])


def can_drop_privileges() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder every user may enter (pytest's own tmp folders are private to their owner)."""
    folder = Path(tempfile.mkdtemp(prefix="memlens-readonly-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        for path in [folder, *folder.rglob("*")]:
            if path.is_dir():
                path.chmod(0o755)
        shutil.rmtree(folder)


# As root the child drops to `nobody` itself, once a first run of the commands (on a scratch store)
# has imported everything they load: the interpreter and its library may live where `nobody`
# cannot read.
READER = """
import contextlib, io, os, sys, tempfile
from memlens.viewer.cli.app import main, run
if len(sys.argv) > 1 and sys.argv[1] == "--drop":
    quiet = io.StringIO()
    with tempfile.TemporaryDirectory() as scratch, contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        db = ["--db", os.path.join(scratch, "w.sqlite")]
        for args in (["remember", "a:Person --knows--> b:Person"], ["view", "--no-open", "--out",
                     os.path.join(scratch, "w.html")], ["export", "-o", os.path.join(scratch, "w.json")],
                     ["history", "a"], ["recall", "a"], ["facts"], ["stats"]):
            main.main([*args, *db], standalone_mode=False)
    os.setgroups([]); os.setgid(%d); os.setuid(%d)
    del sys.argv[1]
run()
""" % (NOBODY, NOBODY)


def run_as_reader(args: list[str], home: Path) -> subprocess.CompletedProcess:
    """`memlens ARGS` as a process that has no write permission on the store.

    As root (which ignores file modes), the process runs as the unprivileged user `nobody`, so the
    modes really apply; as any other user, the modes apply to that user already.
    """
    drop = ["--drop"] if can_drop_privileges() else []
    env = dict(os.environ, MEMLENS_HOME=str(home), HOME=str(home))
    return subprocess.run([sys.executable, "-c", READER, *drop, *args], env=env, capture_output=True, text=True,
                          timeout=120, cwd=home)


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["0444 file", "0555 folder"])
def test_every_read_command_reads_a_store_it_cannot_write(shared, layout):
    store_folder = shared / "store"
    store_folder.mkdir()
    store = store_folder / "team.sqlite"
    build(store)
    reports = shared / "reports"
    reports.mkdir()
    reports.chmod(0o777)
    store.chmod(0o444 if layout == "0444 file" else 0o666)  # in the folder case only the folder stops writes
    store_folder.chmod(0o555 if layout == "0555 folder" else 0o777)
    before = sorted(p.name for p in store_folder.iterdir())
    why = {"0444 file": "the file is read-only",  # the modes really apply to the reader
           "0555 folder": "its folder is read-only (the store's log is kept beside it)"}

    denied = run_as_reader(["remember", "carol:Person --knows--> bob", "--db", str(store)], shared)
    assert denied.returncode == 1 and denied.stderr == f"Error: {store} cannot be written: {why[layout]}\n"
    for name, args in READS.items():
        result = run_as_reader([*args, "--db", str(store)], shared)
        assert result.returncode == 0, (name, result.stderr)
        assert "alice" in result.stdout or name == "stats", name
    assert json.loads(run_as_reader(["stats", "--json", "--db", str(store)], shared).stdout)["facts"] == 2
    view = run_as_reader(["view", "--no-open", "--db", str(store), "--out", str(reports / "team.html")], shared)
    assert view.returncode == 0, view.stderr
    assert (reports / "team.html").stat().st_size > 10_000
    assert sorted(p.name for p in store_folder.iterdir()) == before  # no -wal, no -shm


def test_a_store_that_cannot_be_written_is_opened_immutable_and_leaves_no_companion_files(tmp_path, monkeypatch):
    """Without root's help, the same decision: where `os.access` says the store cannot be written,
    the reader opens it immutable, which works without creating -wal/-shm (checked in a folder where
    SQLite could have created them)."""
    store = tmp_path / "s.sqlite"
    build(store)
    assert opening.read_only_uri(store).endswith("?mode=ro")  # the writable case: a writer may be at work
    monkeypatch.setattr(opening.os, "access", lambda path, mode: Path(path) != store)
    assert opening.read_only_uri(store).endswith("?immutable=1")
    with Memory(store, readonly=True) as memory:
        assert memory.stats()["facts"] == 2 and memory.snapshot()["stats"]["facts"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite"]
