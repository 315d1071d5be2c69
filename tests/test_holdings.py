"""A value may hold, end and hold again: each holding is a fact of its own, in the functional order."""
from __future__ import annotations

import json

import pytest

from memlens.store.errors import Forgotten
from memlens.store.facts import FactInput


def owner(memory, name: str, valid_from: str | None = None, **extra) -> tuple[str, str]:
    [outcome] = memory.remember([FactInput("svc", "owned_by", name, "Service", "Person", valid_from=valid_from,
                                           **extra)])
    return outcome.fact_id, outcome.outcome


def owners_on(memory, day: str) -> list[str]:
    return [f["object_name"] for f in memory.facts(as_of_valid=day) if f["relation"] == "owned_by"]


def test_a_value_that_returns_is_a_new_holding_and_the_present(memory):
    memory.declare_functional("owned_by")
    alice, _ = owner(memory, "alice", "2025-01-01")
    bob, _ = owner(memory, "bob", "2025-06-01")
    again, outcome = owner(memory, "alice", "2026-01-01", evidence=("CODEOWNERS, 2026-01",))

    assert outcome == "asserted" and again not in (alice, bob)
    assert [f["id"] for f in memory.facts() if f["relation"] == "owned_by"] == [again]
    assert owners_on(memory, "2025-03-01") == ["alice"]
    assert owners_on(memory, "2025-09-01") == ["bob"]
    assert owners_on(memory, "2026-03-01") == ["alice"]
    first, second = memory.fact(alice), memory.fact(again)
    assert (first["valid_from"], first["valid_to"], first["superseded_by"]) == ("2025-01-01", "2025-06-01", bob)
    assert (second["valid_from"], second["valid_to"]) == ("2026-01-01", None)
    assert memory.fact(bob)["valid_to"] == "2026-01-01"
    # the new evidence is the new holding's; the old one keeps its own
    assert first["evidence"] == [] and second["evidence"] == ["CODEOWNERS, 2026-01"]


def test_a_same_value_statement_inside_its_old_interval_is_a_reassertion(memory):
    memory.declare_functional("owned_by")
    alice, _ = owner(memory, "alice", "2025-01-01")
    owner(memory, "bob", "2025-06-01")

    again, outcome = owner(memory, "alice", "2025-03-01", evidence=("old wiki page",))
    undated, undated_outcome = owner(memory, "alice")

    assert (again, outcome) == (alice, "kept superseded")
    assert (undated, undated_outcome) == (alice, "kept superseded")     # supersession holds
    assert memory.fact(alice)["evidence"] == ["old wiki page"]
    assert [f["object_name"] for f in memory.facts() if f["relation"] == "owned_by"] == ["bob"]


def test_the_order_holds_across_any_number_of_returns(memory):
    memory.declare_functional("owned_by")
    said = [("alice", "2025-01-01"), ("bob", "2025-03-01"), ("alice", "2025-05-01"), ("bob", "2025-07-01"),
            ("alice", "2025-09-01"), ("bob", "2025-11-01")]
    ids = [owner(memory, name, day)[0] for name, day in said]

    assert len(set(ids)) == 6
    for (name, day), later in zip(said, [*said[1:], (None, None)]):
        assert owners_on(memory, day) == [name]
        fact = memory.fact(ids[said.index((name, day))])
        assert fact["valid_to"] == later[1]


def test_a_return_that_arrives_late_is_slotted_between_its_neighbours(memory):
    memory.declare_functional("owned_by")
    alice, _ = owner(memory, "alice", "2025-01-01")
    bob, _ = owner(memory, "bob", "2025-06-01")
    carol, _ = owner(memory, "carol", "2026-06-01")

    again, outcome = owner(memory, "alice", "2026-01-01")

    assert outcome == "filed as history" and again != alice
    assert [owners_on(memory, day) for day in ("2025-03-01", "2025-09-01", "2026-03-01", "2026-09-01")] == [
        ["alice"], ["bob"], ["alice"], ["carol"]]
    assert memory.fact(bob)["superseded_by"] == again and memory.fact(again)["superseded_by"] == carol


def test_a_present_value_said_to_start_over_other_values_time_is_a_holding_of_its_own(memory):
    """Carol holds now, from 2026; "carol since 2025-03" cannot stretch her holding back over
    alice's and bob's time (two owners at once): it is a holding of its own, slotted in the order
    as a late value, and what was said of alice and bob holds where it does not clash."""
    memory.declare_functional("owned_by")
    alice, _ = owner(memory, "alice", "2025-01-01")
    bob, _ = owner(memory, "bob", "2025-06-01")
    carol, _ = owner(memory, "carol", "2026-01-01")

    earlier, outcome = owner(memory, "carol", "2025-03-01")

    assert earlier not in (alice, bob, carol) and outcome == "filed as history"
    days = ("2025-02-01", "2025-04-01", "2025-07-01", "2026-02-01")
    assert [owners_on(memory, day) for day in days] == [["alice"], ["carol"], ["bob"], ["carol"]]
    assert memory.fact(alice)["valid_to"] == "2025-03-01" and memory.fact(earlier)["valid_to"] == "2025-06-01"
    assert [f["id"] for f in memory.facts() if f["relation"] == "owned_by"] == [carol]


def test_a_present_value_said_to_start_earlier_where_nothing_else_held_moves(memory):
    memory.declare_functional("owned_by")
    alice, _ = owner(memory, "alice", "2025-01-01", valid_to="2025-04-01")
    carol, _ = owner(memory, "carol", "2026-01-01")

    moved, outcome = owner(memory, "carol", "2025-06-01")

    assert (moved, outcome) == (carol, "reasserted")
    assert memory.fact(carol)["valid_from"] == "2025-06-01"
    assert [owners_on(memory, day) for day in ("2025-02-01", "2025-05-01", "2025-07-01")] == [["alice"], [], ["carol"]]


def test_a_batch_may_hold_a_value_twice(memory):
    memory.declare_functional("owned_by")
    outcomes = memory.remember([FactInput("svc", "owned_by", "alice", "Service", "Person", valid_from="2025-01-01"),
                                FactInput("svc", "owned_by", "bob", None, "Person", valid_from="2025-06-01"),
                                FactInput("svc", "owned_by", "alice", valid_from="2026-01-01")])
    assert [o.outcome for o in outcomes] == ["asserted", "asserted", "asserted"]
    assert len({o.fact_id for o in outcomes}) == 3
    assert owners_on(memory, "2026-02-01") == ["alice"] and owners_on(memory, "2025-07-01") == ["bob"]


def test_forgetting_a_value_forgets_each_of_its_holdings(memory):
    memory.declare_functional("owned_by")
    alice, _ = owner(memory, "alice", "2025-01-01")
    bob, _ = owner(memory, "bob", "2025-06-01")
    again, _ = owner(memory, "alice", "2026-01-01")

    done = memory.forget_fact(again)

    assert (done.fact_id, done.holdings) == (again, (alice,))
    # as if alice was never said: bob, whom the order closed when alice came back, holds again
    assert {f["id"]: f["status"] for f in memory.facts(include_all=True)} == {
        alice: "forgotten", again: "forgotten", bob: "current"}
    assert memory.fact(bob)["valid_to"] is None and owners_on(memory, "2026-02-01") == ["bob"]
    with pytest.raises(Forgotten):
        owner(memory, "alice", "2027-01-01")
    assert owner(memory, "carol", "2027-01-01")[1] == "asserted"


def test_merging_keeps_the_holdings_of_a_value_apart(memory):
    memory.declare_functional("owned_by")
    alice, _ = owner(memory, "alice", "2025-01-01")
    owner(memory, "bob", "2025-06-01")
    memory.remember([FactInput("svc", "owned_by", "Alice Smith", None, "Person", valid_from="2026-01-01")])

    moved = memory.merge("alice", "Alice Smith")

    [new_id] = moved.values()
    assert new_id != alice
    assert (memory.fact(new_id)["object_name"], memory.fact(new_id)["valid_from"]) == ("alice", "2026-01-01")
    assert (memory.fact(alice)["valid_from"], memory.fact(alice)["valid_to"]) == ("2025-01-01", "2025-06-01")
    assert [f["id"] for f in memory.facts() if f["relation"] == "owned_by"] == [new_id]


def test_a_merged_typo_leaves_one_owner_at_every_time_and_the_order_runs_through_the_copy(memory):
    memory.declare_functional("owned_by")
    dana, _ = owner(memory, "dana", "2025-01-01")
    typo, _ = owner(memory, "Priya S", "2025-06-01")
    [priya] = memory.remember([FactInput("svc", "owned_by", "Priya", None, "Person", valid_from="2025-09-01")],
                              new={"Priya"})
    assert owners_on(memory, "2025-07-01") == ["Priya S"]

    [copy] = memory.merge("Priya", "Priya S").values()

    assert owners_on(memory, "2025-07-01") == ["Priya"]          # the copy, not the typo beside it
    assert [f["id"] for f in memory.facts(as_of_valid="2025-07-01")] == [copy]
    assert owners_on(memory, "2025-03-01") == ["dana"] and owners_on(memory, "2025-10-01") == ["Priya"]
    assert memory.fact(dana)["superseded_by"] == copy and memory.fact(typo)["superseded_by"] == copy
    # as recorded before the merge, the typo was the owner then
    before = memory.fact(priya.fact_id)["recorded_at"]
    assert [f["object_name"] for f in memory.facts(as_of_record=before, as_of_valid="2025-07-01")] == ["Priya S"]
    # a value said inside dana's time: dana gives way to it, the chain runs through the copy
    owner(memory, "sam", "2025-03-01")
    assert owners_on(memory, "2025-02-01") == ["dana"] and owners_on(memory, "2025-04-01") == ["sam"]
    assert owners_on(memory, "2025-07-01") == ["Priya"]


def test_the_demo_owner_coming_back_is_a_new_holding(cli):
    assert cli("demo").exit_code == 0
    said = cli("remember", "billing-service --owned_by--> Sam Lee", "--valid-from", "2026-06-01", "-d", "demo",
               "-e", "user said 2026-06-02")
    assert said.exit_code == 0 and said.output.startswith("asserted: ")

    def owner_on(day: str) -> list[str]:
        facts = json.loads(cli("facts", "--as-of-valid", day, "-d", "demo", "--json").output)
        return [f["object_name"] for f in facts if f["subject_name"] == "billing-service" and f["relation"] == "owned_by"]

    assert owner_on("2025-10-01") == ["Sam Lee"]
    assert owner_on("2026-03-01") == ["Priya Natarajan"]
    assert owner_on("2026-07-01") == ["Sam Lee"]
