"""Forget erases: no table, no index, no export and no byte of the file keeps the text."""
from __future__ import annotations

import json
import sqlite3

import pytest

from memlens.store import datasets
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


def test_forgetting_a_fact_names_the_entities_it_leaves_without_facts(with_secret):
    memory = with_secret
    fact_id = next(f["id"] for f in memory.facts() if f["relation"] == "has_password")
    done = memory.forget_fact(fact_id)
    secret_id = next(e["id"] for e in memory.snapshot()["entities"] if e["name"] == SECRET)
    assert done.orphans == [(secret_id, SECRET)] and not done.orphans_forgotten  # staging still hosts billing
    assert SECRET in all_text(memory.path)  # the name stays, as the output says


def test_with_orphans_the_entities_only_that_fact_named_are_forgotten_in_the_same_write(with_secret):
    memory = with_secret
    fact_id = next(f["id"] for f in memory.facts() if f["relation"] == "has_password")
    ledger_before = len(memory.ledger())
    done = memory.forget_fact(fact_id, with_orphans=True)
    assert [name for _, name in done.orphans] == [SECRET] and done.orphans_forgotten
    assert done.as_dict()["orphans"] == [{"id": done.orphans[0][0]}]  # a forgotten name is not said again
    assert SECRET not in all_text(memory.path) and SECRET.encode() not in file_bytes(memory)
    assert sorted(e["name"] for e in memory.snapshot()["entities"]) == ["billing", "staging"]
    assert {row["at"] for row in memory.ledger()[ledger_before:]} == {memory.ledger()[-1]["at"]}  # one write
    with pytest.raises(Forgotten):
        memory.remember([FactInput("staging", "mentions", SECRET, None, "Config")])


def test_forget_fact_says_which_entity_names_stay_and_forgets_them_on_request(cli):
    cli("remember", "staging:Environment --has_password--> hunter2:Config", "staging --hosts--> billing:Service")
    facts = {f["relation"]: f["id"] for f in json.loads(cli("facts", "--json").stdout)}
    kept = cli("forget", "fact", facts["has_password"])
    assert kept.exit_code == 0
    project = datasets.project_name()     # the command it offers names the dataset, to run from any folder
    assert kept.output.strip() == (f"forgot fact {facts['has_password'][:8]}; no fact names these entities any more, "
                                   "and their names stay: 'hunter2' (forget them with --with-orphans, or "
                                   f"`memlens forget entity NAME -d {project}`)")
    gone = json.loads(cli("forget", "fact", facts["hosts"], "--with-orphans", "--json").stdout)
    assert gone["orphans_forgotten"] and [o.keys() for o in gone["orphans"]] == [{"id"}, {"id"}]
    assert sorted(e["name"] for e in json.loads(cli("export", "-o", "-").stdout)["entities"]) == ["hunter2"]
