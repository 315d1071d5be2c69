"""Forget erases: no table, no index, no export and no byte of the file keeps the text."""
from __future__ import annotations

import json
import sqlite3

import pytest

from memlens.store.errors import Forgotten
from memlens.store.facts import FactInput

SECRET = "hunter2-staging-password"
KEPT = "kept-visible-evidence"


def all_text(path) -> str:
    """Every value of every column of every table, as one string."""
    conn = sqlite3.connect(path)
    chunks = []
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table')")]
    for table in tables:
        for row in conn.execute(f'SELECT * FROM "{table}"'):
            chunks.extend(str(value) for value in row)
    conn.close()
    return "\n".join(chunks)


def file_bytes(memory) -> bytes:
    data = memory.path.read_bytes()
    wal = memory.path.with_name(memory.path.name + "-wal")
    return data + (wal.read_bytes() if wal.exists() else b"")


@pytest.fixture
def with_secret(memory):
    memory.remember([
        FactInput("staging", "has_password", SECRET, "Environment", "Config", evidence=(f"user pasted {SECRET}",),
                  description=f"the password is {SECRET}"),
        FactInput("staging", "hosts", "billing", None, "Service", evidence=(KEPT,)),
    ])
    return memory


def test_a_forgotten_fact_is_in_no_table_no_export_and_no_byte_of_the_file(with_secret):
    memory = with_secret
    fact_id = next(f["id"] for f in memory.facts() if f["relation"] == "has_password")
    memory.contest(fact_id, next(f["id"] for f in memory.facts() if f["relation"] == "hosts"), f"about {SECRET}", 0.5)
    assert SECRET in all_text(memory.path)  # the check can see it before

    memory.forget_fact(fact_id)
    memory.forget_entity(SECRET)  # the value was an entity of its own: its name is text too

    assert SECRET not in all_text(memory.path)
    assert KEPT in all_text(memory.path)
    snapshot = json.dumps(memory.snapshot())
    assert SECRET not in snapshot and KEPT in snapshot
    assert SECRET.encode() not in file_bytes(memory)
    assert KEPT.encode() in file_bytes(memory)
    assert memory.recall("hunter2")["facts"] == [] and memory.recall("kept")["facts"]
    tombstone = next(f for f in memory.snapshot()["facts"] if f["id"] == fact_id)
    assert tombstone["status"] == "forgotten" and tombstone["relation"] is None


def test_reasserting_a_forgotten_fact_is_refused_unless_overridden(with_secret):
    memory = with_secret
    fact_id = next(f["id"] for f in memory.facts() if f["relation"] == "has_password")
    memory.forget_fact(fact_id)

    with pytest.raises(Forgotten, match="forgotten"):
        memory.remember([FactInput("staging", "has_password", SECRET)])
    assert [f["relation"] for f in memory.facts()] == ["hosts"]

    [again] = memory.remember([FactInput("staging", "has_password", SECRET)], override_forgotten=True)
    assert again.fact_id == fact_id and memory.fact(fact_id)["status"] == "current"


def test_forgetting_an_entity_forgets_its_facts_and_refuses_its_name(with_secret):
    memory = with_secret
    _, facts = memory.forget_entity("staging")
    assert len(facts) == 2
    assert memory.facts() == []
    assert sorted(e["name"] for e in memory.snapshot()["entities"]) == ["billing", SECRET]
    with pytest.raises(Forgotten):
        memory.remember([FactInput("staging", "hosts", "api", "Environment", "Service")])
    memory.remember([FactInput("production", "hosts", "api", "Environment", "Service")])
    assert [f["subject_name"] for f in memory.facts()] == ["production"]
