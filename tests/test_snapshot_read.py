"""The snapshot reads the ledger on a second connection only when it sees the very same store."""
from __future__ import annotations

import json
import sqlite3

from memlens.store import ledger, snapshot
from memlens.store.facts import FactInput


def remember(memory, subject: str, obj: str) -> None:
    memory.remember([FactInput(subject, "knows", obj, "Person", "Person", evidence=("said so",))])


def test_the_second_connection_reads_the_ledger_of_the_same_store(memory):
    remember(memory, "alice", "bob")
    head = ledger.head(memory.conn)
    aside = snapshot._read_aside(snapshot._file_of(memory.conn), head, ledger.rows_json)
    assert aside is not None
    assert json.loads(aside) == ledger.rows(memory.conn) and len(json.loads(aside)) >= 1


def test_a_write_between_the_two_reads_sends_the_read_back_to_the_snapshot_connection(memory):
    remember(memory, "alice", "bob")
    head = ledger.head(memory.conn)
    path = snapshot._file_of(memory.conn)
    assert snapshot._read_aside(path, head, ledger.rows_json) is not None  # the positive case
    remember(memory, "alice", "carol")  # the store moves on
    assert snapshot._read_aside(path, head, ledger.rows_json) is None
    assert snapshot._read_aside("", head, ledger.rows_json) is None  # an in-memory store has no file


def test_a_snapshot_of_a_store_without_a_file_still_carries_its_ledger(memory):
    remember(memory, "alice", "bob")
    expected = memory.snapshot()
    copy = sqlite3.connect(":memory:", isolation_level=None)
    copy.row_factory = sqlite3.Row
    memory.conn.backup(copy)
    taken = snapshot.build(copy, expected["dataset"])
    assert taken["ledger"] and taken["ledger"] == expected["ledger"]
    assert taken == expected
