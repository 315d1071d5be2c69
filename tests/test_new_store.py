"""A new store appears at its path only when its first write has committed: a first write that fails
leaves nothing behind, and two processes making the same store never lose a write silently."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from memlens.store.errors import Conflict
from memlens.store.facts import FactInput
from memlens.store.memory import Memory
from memlens.store.temporaries import MARK


def fact(subject: str = "alice", obj: str = "acme") -> FactInput:
    return FactInput(subject, "works_at", obj, "Person", "Organization")


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("args", [
    ["alice --works_at--> acme"],                                     # new entities without a type
    ["alice:Person --works_at--> acme:Organization", "--valid-from", "soon"],
])
def test_a_first_remember_that_fails_leaves_no_file(cli, tmp_path, args):
    store = tmp_path / "new.sqlite"
    result = cli("remember", "--db", str(store), *args)
    assert result.exit_code == 1 and result.output.startswith("Error: ")
    assert listing(tmp_path) == []
    # the same fact, written right, makes the store
    result = cli("remember", "--db", str(store), "alice:Person --works_at--> acme:Organization")
    assert result.exit_code == 0, result.output
    assert store.is_file() and not [n for n in listing(tmp_path) if MARK in n]
    with Memory(store, readonly=True) as memory:
        assert memory.stats()["facts"] == 1


def test_a_store_opened_for_writing_and_never_written_is_not_made(tmp_path):
    store = tmp_path / "deep" / "new.sqlite"
    with Memory(store) as memory:
        assert memory.stats()["facts"] == 0                  # readable meanwhile, as an empty store
    assert not store.exists() and listing(store.parent) == []
    with Memory(store) as memory:
        memory.remember([fact()])
        assert store.is_file()                               # there as soon as the write committed
        memory.remember([fact("bob")])                       # and written in place from then on
    with Memory(store, readonly=True) as memory:
        assert memory.stats()["facts"] == 2


def test_two_makers_of_one_store_take_turns_and_both_writes_land(tmp_path):
    store = tmp_path / "new.sqlite"
    first, second = Memory(store), Memory(store)          # both opened before either wrote
    try:
        first.remember([fact("alice")])
        second.remember([fact("bob")])                    # finds the store made meanwhile, writes there
    finally:
        first.close()
        second.close()
    with Memory(store, readonly=True) as memory:
        assert [e["name"] for e in memory.snapshot()["entities"]] == ["acme", "alice", "bob"]
    assert "new.sqlite" in listing(tmp_path) and not [n for n in listing(tmp_path) if MARK in n]


def test_without_folder_locks_a_store_made_meanwhile_refuses_the_write_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr("memlens.store.memory.fcntl", None)
    store = tmp_path / "new.sqlite"
    first, second = Memory(store), Memory(store)
    try:
        with pytest.raises(Conflict, match="was made by another process at the same moment"):
            with second.writing():                            # second writes its own new store ...
                first.remember([fact("alice")])               # ... while first makes and moves in its
        second.remember([fact("carol")])                      # run again, it lands in the store there
    finally:
        first.close()
        second.close()
    with Memory(store, readonly=True) as memory:
        assert [e["name"] for e in memory.snapshot()["entities"]] == ["acme", "alice", "carol"]
    assert not [n for n in listing(tmp_path) if MARK in n]


def test_what_a_killed_maker_left_is_cleared_by_the_next(tmp_path):
    store = tmp_path / "new.sqlite"
    dead = 2 ** 22 + 7                                        # no such process
    left = [tmp_path / f".new.sqlite.{MARK}-{dead}-0123abcd.tmp{end}" for end in ("", "-wal", "-shm")]
    for path in left:
        path.write_bytes(b"half")
    alive = tmp_path / f".new.sqlite.{MARK}-1-0123abcd.tmp"   # pid 1 runs: not ours to clear
    alive.write_bytes(b"busy")
    with Memory(store) as memory:
        memory.remember([fact()])
    assert listing(tmp_path) == sorted([alive.name, "new.sqlite"])


def test_where_the_file_system_has_no_hard_links_the_store_is_renamed_into_place(tmp_path, monkeypatch):
    def no_links(source, target):
        raise PermissionError(1, "Operation not permitted")      # what a FAT or some FUSE mounts say

    monkeypatch.setattr("memlens.store.memory.os.link", no_links)
    store = tmp_path / "new.sqlite"
    with Memory(store) as memory:
        memory.remember([fact()])
        memory.remember([fact("bob")])
    with Memory(store, readonly=True) as memory:
        assert memory.stats()["facts"] == 2
    assert not [n for n in listing(tmp_path) if MARK in n]


def test_without_hard_links_a_store_made_just_before_the_rename_is_kept_where_rename_never_replaces(
        tmp_path, monkeypatch):
    store, theirs = tmp_path / "new.sqlite", tmp_path / "theirs.sqlite"
    with Memory(theirs) as memory:
        memory.remember([fact("carol")])
    real_rename = os.rename

    def windows_rename(source, target):
        real_rename(theirs, target)       # another process's store lands after the check ...
        if os.path.exists(target):        # ... and Windows' rename refuses to replace it
            raise FileExistsError(17, "Cannot create a file when that file already exists")
        real_rename(source, target)

    monkeypatch.setattr("memlens.store.memory.fcntl", None)
    def no_links(source, target):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr("memlens.store.memory.os.link", no_links)
    monkeypatch.setattr("memlens.store.memory.os.rename", windows_rename)
    first = Memory(store)
    try:
        with pytest.raises(Conflict, match="was made by another process at the same moment"):
            first.remember([fact("alice")])
        monkeypatch.undo()
        first.remember([fact("dave")])    # run again, it lands in the store there
    finally:
        first.close()
    with Memory(store, readonly=True) as memory:
        assert [e["name"] for e in memory.snapshot()["entities"]] == ["acme", "carol", "dave"]
    assert "new.sqlite" in listing(tmp_path) and not [n for n in listing(tmp_path) if MARK in n or "theirs" in n]


def test_a_store_that_cannot_be_made_is_refused_by_its_own_name(tmp_path, monkeypatch):
    from memlens.store import opening
    from memlens.store.errors import StoreUnreadable

    folder = tmp_path / "shared"
    folder.mkdir()
    store = folder / "new.sqlite"
    monkeypatch.setattr(opening.os, "access", lambda path, mode: Path(path) != folder)   # as a 0555 folder is
    with pytest.raises(StoreUnreadable) as refused:
        Memory(store)
    assert str(refused.value) == f"{store} cannot be written: its folder is read-only (the store's log is kept beside it)"
    assert listing(folder) == []
    monkeypatch.undo()
    with Memory(store) as memory:                                  # writable again: made as usual
        memory.remember([fact()])
    assert store.is_file()
