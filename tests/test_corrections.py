"""Judgements hold: supersede, restore, retract and contradictions."""
from __future__ import annotations

import pytest

from memlens.store.errors import Conflict, InvalidInput
from memlens.store.facts import FactInput


def uses(memory, library: str, **extra) -> str:
    [outcome] = memory.remember([FactInput("eta.py", "uses", library, "Module", "Library", **extra)])
    return outcome.fact_id


def status(memory, fact_id: str) -> str:
    return memory.fact(fact_id)["status"]


def test_reasserting_a_superseded_fact_keeps_it_superseded(memory):
    pytz, zoneinfo = uses(memory, "pytz"), uses(memory, "zoneinfo")
    memory.supersede(pytz, zoneinfo, "PR 433 replaced pytz")

    [again] = memory.remember([FactInput("eta.py", "uses", "pytz", evidence=("docs/architecture.md",))])

    assert again.fact_id == pytz and again.outcome == "kept superseded"
    assert status(memory, pytz) == "superseded"
    assert memory.fact(pytz)["superseded_by"] == zoneinfo
    assert status(memory, zoneinfo) == "current"
    assert [f["object_name"] for f in memory.facts()] == ["zoneinfo"]
    # The reassertion is on record, and its evidence is kept.
    assert [r["action"] for r in memory.history(pytz)["ledger"]].count("reassert") == 1
    assert "docs/architecture.md" in memory.fact(pytz)["evidence"]


def test_restore_revives_a_superseded_fact(memory):
    pytz, zoneinfo = uses(memory, "pytz"), uses(memory, "zoneinfo")
    memory.supersede(pytz, zoneinfo, "PR 433 replaced pytz")
    assert status(memory, pytz) == "superseded"

    memory.restore(pytz, "PR 433 was reverted")

    assert status(memory, pytz) == "current"
    assert memory.fact(pytz)["superseded_by"] is None
    assert sorted(f["object_name"] for f in memory.facts()) == ["pytz", "zoneinfo"]


def test_restoring_a_value_the_order_replaced_is_refused_while_its_successor_holds(memory):
    memory.declare_functional("owned_by")
    [dana] = memory.remember([FactInput("billing", "owned_by", "dana", "Service", "Person", valid_from="2025-01-01")])
    [priya] = memory.remember([FactInput("billing", "owned_by", "priya", None, "Person", valid_from="2026-01-01")])
    assert status(memory, dana.fact_id) == "superseded"

    with pytest.raises(Conflict, match="stretch"):
        memory.restore(dana.fact_id, "the reorg was undone")   # dana's time would run over priya's
    assert [f["object_name"] for f in memory.facts()] == ["priya"]

    # priya was wrong: retracted, dana's end (set by priya) is lifted and she is the present again
    memory.retract(priya.fact_id, "the reorg never happened")
    assert [f["object_name"] for f in memory.facts()] == ["dana"]
    assert memory.fact(dana.fact_id)["valid_to"] is None
    assert [r["action"] for r in memory.history(dana.fact_id)["ledger"]][-1] == "restore"
    with pytest.raises(Conflict, match="already current"):
        memory.restore(dana.fact_id, "the reorg never happened")


def test_retracting_a_value_reopens_what_the_order_closed_with_it_and_keeps_said_ends(memory):
    memory.declare_functional("owned_by")
    said = [("dana", "2025-01-01", "2025-04-01"), ("sam", "2025-04-01", None), ("lee", "2025-02-01", None),
            ("priya", "2025-09-01", None)]
    ids = {name: memory.remember([FactInput("billing", "owned_by", name, "Service", "Person",
                                            valid_from=start, valid_to=end)])[0].fact_id for name, start, end in said}
    # lee arrived late: history between dana and sam; priya is the present
    assert [f["object_name"] for f in memory.facts()] == ["priya"]
    assert memory.fact(ids["dana"])["valid_to"] == "2025-02-01"

    memory.retract(ids["sam"], "sam never owned it")

    # lee, closed by sam, holds again up to priya; dana stays closed by lee; a judged value is untouched
    assert [f["object_name"] for f in memory.facts()] == ["priya"]
    assert (memory.fact(ids["lee"])["status"], memory.fact(ids["lee"])["valid_to"]) == ("superseded", "2025-09-01")
    assert memory.fact(ids["lee"])["superseded_by"] == ids["priya"]
    assert [f["object_name"] for f in memory.facts(as_of_valid="2025-06-01")] == ["lee"]
    assert [f["object_name"] for f in memory.facts(as_of_valid="2025-01-15")] == ["dana"]

    memory.retract(ids["priya"], "a typo in the CODEOWNERS diff")
    assert [f["object_name"] for f in memory.facts()] == ["lee"]
    assert memory.fact(ids["lee"])["valid_to"] is None

    # an end said of a value itself stays when its successor goes
    [kim] = memory.remember([FactInput("ledger", "owned_by", "kim", "Service", "Person",
                                       valid_from="2025-01-01", valid_to="2025-03-01")])
    [ola] = memory.remember([FactInput("ledger", "owned_by", "ola", None, "Person", valid_from="2025-03-01")])
    assert memory.fact(kim.fact_id)["superseded_by"] == ola.fact_id
    memory.retract(ola.fact_id, "wrong service")
    assert (memory.fact(kim.fact_id)["status"], memory.fact(kim.fact_id)["valid_to"]) == ("current", "2025-03-01")

    # said in one write (the order closed kim's successor's predecessor before it ever held): the
    # end it was said with stays too, and one said without an end is lifted
    handover = memory.remember([
        FactInput("payments", "owned_by", "kim", "Service", "Person", valid_from="2025-01-01", valid_to="2025-03-01"),
        FactInput("payments", "owned_by", "ola", None, "Person", valid_from="2025-03-01"),
        FactInput("refunds", "owned_by", "kim", "Service", "Person", valid_from="2025-01-01"),
        FactInput("refunds", "owned_by", "ola", None, "Person", valid_from="2025-03-01")])
    for outcome in handover[1::2]:
        memory.retract(outcome.fact_id, "wrong service")
    assert [memory.fact(o.fact_id)["valid_to"] for o in handover[::2]] == ["2025-03-01", None]
    assert {memory.fact(o.fact_id)["status"] for o in handover[::2]} == {"current"}


def test_a_restored_value_takes_its_own_place_in_valid_time(memory):
    memory.declare_functional("owned_by")
    [dana] = memory.remember([FactInput("billing", "owned_by", "dana", "Service", "Person", valid_from="2025-01-01")])
    memory.retract(dana.fact_id, "misread the CODEOWNERS file")
    [priya] = memory.remember([FactInput("billing", "owned_by", "priya", None, "Person", valid_from="2026-01-01")])

    assert memory.restore(dana.fact_id, "dana did own it in 2025") == []

    assert [f["object_name"] for f in memory.facts()] == ["priya"]      # the later value stays the present
    assert (memory.fact(dana.fact_id)["status"], memory.fact(dana.fact_id)["valid_to"]) == ("superseded", "2026-01-01")
    assert [f["object_name"] for f in memory.facts(as_of_valid="2025-06-01")] == ["dana"]
    assert [f["object_name"] for f in memory.facts(as_of_valid="2026-06-01")] == ["priya"]


def test_a_retracted_fact_stays_retracted_when_asserted_again(memory):
    kafka = uses(memory, "kafka")
    memory.retract(kafka, "never used")
    [again] = memory.remember([FactInput("eta.py", "uses", "kafka")])
    assert again.outcome == "kept retracted"
    assert status(memory, kafka) == "retracted"
    redis = uses(memory, "redis")
    assert status(memory, redis) == "current"


def test_contest_marks_both_facts_until_a_supersession_resolves_it(memory):
    a, b = uses(memory, "pytz"), uses(memory, "zoneinfo")
    memory.contest(a, b, "one of them is stale", 0.7)
    assert memory.fact(a)["contested"] and memory.fact(b)["contested"]
    assert [c.kind for c in memory.worklist()].count("contradiction") == 1

    memory.supersede(a, b, "zoneinfo is in main")

    assert not memory.fact(a)["contested"] and not memory.fact(b)["contested"]
    assert [c.kind for c in memory.worklist()].count("contradiction") == 0
    [record] = memory.snapshot()["contradictions"]
    assert record["resolution"] == "superseded" and record["reason"] == "one of them is stale"


def test_dismissing_a_contradiction_resolves_it_and_keeps_the_record(memory):
    a, b = uses(memory, "pytz"), uses(memory, "zoneinfo")
    memory.contest(a, b, "maybe both", 0.4)
    [candidate] = [c for c in memory.worklist() if c.kind == "contradiction"]
    memory.dismiss(candidate.key, "both are used, in different modules")
    assert not memory.fact(a)["contested"]
    snapshot = memory.snapshot()
    assert snapshot["contradictions"][0]["resolution"] == "dismissed"
    assert snapshot["dismissals"][0]["reason"] == "both are used, in different modules"


def test_judgements_refuse_nonsense(memory):
    a, b = uses(memory, "pytz"), uses(memory, "zoneinfo")
    with pytest.raises(InvalidInput):
        memory.supersede(a, a, "itself")
    with pytest.raises(InvalidInput):
        memory.supersede(a, b, "  ")
    with pytest.raises(Conflict):
        memory.restore(a, "it is current")
    with pytest.raises(InvalidInput):
        memory.contest(a, b, "why", 1.5)
    assert {status(memory, a), status(memory, b)} == {"current"}


def test_a_reopened_value_names_the_retraction_without_quoting_it_so_forgetting_erases_it(memory):
    memory.declare_functional("owned_by")
    [alice] = memory.remember([FactInput("svc", "owned_by", "alice", "Service", "Person", valid_from="2025-01-01")])
    [bob] = memory.remember([FactInput("svc", "owned_by", "bob", None, "Person", valid_from="2025-06-01")])
    memory.retract(bob.fact_id, "pasted by mistake with secret-token-123")
    assert memory.fact(alice.fact_id)["status"] == "current"
    assert memory.fact(alice.fact_id)["reason"] == f"{bob.fact_id[:8]}, which replaced it, was retracted"

    memory.forget_fact(bob.fact_id)

    quoting = memory.conn.execute("SELECT count(*) FROM fact_versions WHERE reason LIKE '%secret-token%'").fetchone()[0]
    assert quoting == 0 and memory.fact(alice.fact_id)["status"] == "current"


def test_a_value_forgotten_and_said_again_reopens_with_the_end_said_the_second_time(memory):
    memory.declare_functional("owned_by")
    [first] = memory.remember([FactInput("svc", "owned_by", "alice", "Service", "Person", valid_from="2025-01-01",
                                         valid_to="2025-09-01")])
    memory.forget_fact(first.fact_id)
    again, bob = memory.remember([FactInput("svc", "owned_by", "alice", "Service", "Person", valid_from="2025-01-01"),
                                  FactInput("svc", "owned_by", "bob", None, "Person", valid_from="2025-06-01")],
                                 override_forgotten=True)
    assert again.fact_id == first.fact_id and memory.fact(again.fact_id)["valid_to"] == "2025-06-01"

    memory.retract(bob.fact_id, "wrong")

    assert (memory.fact(again.fact_id)["status"], memory.fact(again.fact_id)["valid_to"]) == ("current", None)

