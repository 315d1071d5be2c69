"""The snapshot's ledger is the ledger's rows as the store keeps them, read in the snapshot's transaction."""
from __future__ import annotations

import sqlite3

from memlens.store import ledger, snapshot
from memlens.store.facts import FactInput


def remember(memory, subject: str, obj: str) -> None:
    memory.remember([FactInput(subject, "knows", obj, "Person", "Person", evidence=("said so",))])


def test_the_snapshot_ledger_and_its_chains_are_the_rows_the_store_keeps(memory):
    remember(memory, "alice", "bob")
    remember(memory, "alice", "carol")
    built, chains = snapshot.build_with_chains(memory.conn, memory.name)
    assert len(built["ledger"]) >= 2 and built["ledger"] == ledger.rows(memory.conn)
    assert chains == [row[0] for row in memory.conn.execute("SELECT chain FROM ledger ORDER BY seq")]
    assert chains == ledger.chain_of(built["ledger"])


def test_a_payload_the_fast_parser_refuses_reads_as_the_standard_parser_reads_it(memory):
    texts = ['{"note":"\\ud800"}', '{"n":123456789012345678901234567890}', '{"plain":"yes"}']
    assert snapshot._json_list(texts) == [{"note": "\ud800"}, {"n": 123456789012345678901234567890},
                                          {"plain": "yes"}]
    assert snapshot._json_list(texts[2:]) == [{"plain": "yes"}]  # the fast parser's case


def test_a_snapshot_of_a_store_without_a_file_still_carries_its_ledger(memory):
    remember(memory, "alice", "bob")
    expected = memory.snapshot()
    copy = sqlite3.connect(":memory:", isolation_level=None)
    copy.row_factory = sqlite3.Row
    memory.conn.backup(copy)
    flag = expected["dataset_flag"]
    taken = snapshot.build(copy, expected["dataset"], [flag["option"], flag["value"]])
    assert taken["ledger"] and taken["ledger"] == expected["ledger"]
    assert taken == expected
