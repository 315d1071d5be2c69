"""The ledger: one row per write, insert-only, in the same transaction as the write."""
from __future__ import annotations

import sqlite3

import pytest

from memlens.store import ledger
from memlens.store.errors import UnknownType
from memlens.store.facts import FactInput

BATCH = [
    FactInput("alice", "works_at", "acme", "Person", "Organization"),
    FactInput("bob", "works_at", "acme", "Person", None),
]


def counts(memory) -> tuple[int, int, int]:
    one = lambda sql: memory.conn.execute(sql).fetchone()[0]  # noqa: E731
    return one("SELECT count(*) FROM facts"), one("SELECT count(*) FROM entities"), one("SELECT count(*) FROM ledger")


def test_update_and_delete_on_the_ledger_fail(memory):
    memory.remember(BATCH)
    rows = counts(memory)[2]
    assert rows >= 5  # 3 entities + 2 facts
    with pytest.raises(sqlite3.DatabaseError, match="insert-only"):
        memory.conn.execute("UPDATE ledger SET actor = 'someone else'")
    with pytest.raises(sqlite3.DatabaseError, match="insert-only"):
        memory.conn.execute("DELETE FROM ledger")
    assert counts(memory)[2] == rows
    assert {r["actor"] for r in memory.ledger()} == {"test:pytest"}


def test_a_failure_injected_mid_write_leaves_nothing_behind(memory, monkeypatch):
    """The batch's entities, facts, versions and index rows are written when the ledger's insert fails."""
    def fail(pending):
        written = counts(memory)
        raise RuntimeError(f"disk on fire after {written}")

    monkeypatch.setattr(ledger.Pending, "write", fail)
    with pytest.raises(RuntimeError, match=r"after \(2, 3, 0\)"):
        memory.remember(BATCH)
    assert counts(memory) == (0, 0, 0)

    monkeypatch.undo()
    memory.remember(BATCH)
    assert counts(memory) == (2, 3, 5)


def test_a_bad_fact_in_a_batch_writes_none_of_the_batch(memory):
    with pytest.raises(UnknownType):
        memory.remember([*BATCH, FactInput("carol", "works_at", "acme", "Wizard", None)])
    assert counts(memory) == (0, 0, 0)
    memory.remember(BATCH)
    assert counts(memory)[0] == 2


def test_the_content_hash_changes_exactly_when_the_store_is_written(memory):
    memory.remember(BATCH[:1])
    before = memory.content_hash()
    assert memory.content_hash() == before
    memory.facts(include_all=True)
    assert memory.content_hash() == before
    memory.remember(BATCH[1:])
    assert memory.content_hash() != before


def test_every_ledger_row_names_its_actor(memory):
    memory.remember(BATCH[:1])
    memory.actor = "agent:keeper"
    memory.remember(BATCH[1:])
    actors = [r["actor"] for r in memory.ledger()]
    assert actors[0] == "test:pytest" and actors[-1] == "agent:keeper"


def test_the_chain_recomputed_from_the_rows_is_the_one_the_store_holds(memory):
    memory.remember(BATCH)
    [contested] = memory.remember([FactInput("alice", "works_at", "globex", None, "Organization")])
    memory.contest(contested.fact_id, memory.facts()[0]["id"], "two employers", 0.6)
    memory.forget_fact(contested.fact_id)
    rows = memory.ledger()
    stored = [r[0] for r in memory.conn.execute("SELECT chain FROM ledger ORDER BY seq")]
    assert len(rows) >= 8 and ledger.chain_of(rows) == stored
    assert memory.content_hash() == "sha256:" + stored[-1]  # the store's hash is the chain's head
    # a row told differently (its actor, its payload) breaks the chain from that row on
    for field, value in (("actor", "cli:mallory"), ("payload", {**rows[2]["payload"], "status": "x"})):
        told = [dict(r) for r in rows]
        told[2][field] = value
        recomputed = ledger.chain_of(told)
        assert recomputed[:2] == stored[:2]
        assert all(a != b for a, b in zip(recomputed[2:], stored[2:]))
