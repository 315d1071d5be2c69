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


# One child process runs the commands in turn. As root it first runs them once on a scratch store,
# which imports everything they load (the interpreter and its library may live where `nobody`
# cannot read), then becomes `nobody`.
READER = """
import json, os, sys, tempfile
from click.testing import CliRunner
from memlens.viewer.cli import main
runner = CliRunner()
if sys.argv[1] == "--drop":
    with tempfile.TemporaryDirectory() as scratch:
        db = ["--db", os.path.join(scratch, "w.sqlite")]
        for args in (["remember", "a:Person --knows--> b:Person"], ["view", "--no-open", "--out",
                     os.path.join(scratch, "w.html")], ["export", "-o", os.path.join(scratch, "w.json")],
                     ["history", "a"], ["recall", "a"], ["facts"], ["stats"]):
            assert runner.invoke(main, [*args, *db]).exit_code == 0, args
    os.setgroups([]); os.setgid(%d); os.setuid(%d)
results = [runner.invoke(main, args) for args in json.loads(sys.argv[2])]
print(json.dumps([[r.exit_code, r.stdout, r.stderr] for r in results]))
""" % (NOBODY, NOBODY)


def run_as_reader(commands: list[list[str]], home: Path) -> list[tuple[int, str, str]]:
    """Each `memlens ARGS` run, as a user with no write permission on the store: (exit code, stdout,
    stderr).

    As root (which ignores file modes) the commands run as the unprivileged user `nobody`, so the
    modes really apply; as any other user, the modes apply to that user already.
    """
    drop = "--drop" if can_drop_privileges() else "--as-is"
    env = dict(os.environ, MEMLENS_HOME=str(home), HOME=str(home))
    done = subprocess.run([sys.executable, "-c", READER, drop, json.dumps(commands)], env=env, capture_output=True,
                          text=True, timeout=300, cwd=home, check=True)
    return [tuple(result) for result in json.loads(done.stdout)]


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

    db = ["--db", str(store)]
    commands = [["remember", "carol:Person --knows--> bob", *db], *([*args, *db] for args in READS.values()),
                ["view", "--no-open", "--out", str(reports / "team.html"), *db]]
    denied, *reads, view = run_as_reader(commands, shared)
    assert denied[0] == 1 and denied[2] == f"Error: {store} cannot be written: {why[layout]}\n"
    for name, (code, out, err) in zip(READS, reads):
        assert code == 0, (name, err)
        assert "alice" in out or name == "stats", name
    assert json.loads(reads[0][1])["facts"] == 2
    assert view[0] == 0, view[2]
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
