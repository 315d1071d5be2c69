"""A functional relation holds one current value per subject, ordered by valid time, then arrival."""
from __future__ import annotations

from memlens.store.facts import FactInput


def owner(memory, name: str, valid_from: str | None = None) -> str:
    [outcome] = memory.remember([FactInput("billing", "owned_by", name, "Service", "Person", valid_from=valid_from)])
    return outcome.fact_id


def states(memory) -> dict[str, tuple[str, str | None, str | None]]:
    return {
        f["object_name"]: (f["status"], f["valid_to"], f["superseded_by"])
        for f in memory.facts(include_all=True)
        if f["relation"] == "owned_by"
    }


def test_a_newer_value_supersedes_the_current_one_and_closes_its_validity(memory):
    memory.declare_functional("owned_by")
    dana = owner(memory, "dana", "2025-03-01")
    priya = owner(memory, "priya", "2026-02-01")
    assert states(memory) == {
        "dana": ("superseded", "2026-02-01", priya),
        "priya": ("current", None, None),
    }
    assert [f["id"] for f in memory.facts() if f["relation"] == "owned_by"] == [priya]
    assert dana != priya


def test_a_late_arriving_older_value_becomes_history_and_the_present_stays(memory):
    memory.declare_functional("owned_by")
    dana = owner(memory, "dana", "2025-03-01")
    priya = owner(memory, "priya", "2026-02-01")
    [late] = memory.remember([FactInput("billing", "owned_by", "sam", None, "Person", valid_from="2025-09-15")])

    assert late.outcome == "filed as history"
    assert [f["object_name"] for f in memory.facts() if f["relation"] == "owned_by"] == ["priya"]
    # The late value is slotted between its neighbours in valid time.
    assert states(memory) == {
        "dana": ("superseded", "2025-09-15", late.fact_id),
        "sam": ("superseded", "2026-02-01", priya),
        "priya": ("current", None, None),
    }
    assert dana not in {priya, late.fact_id}


def test_valid_time_travel_sees_each_value_in_its_own_interval(memory):
    memory.declare_functional("owned_by")
    owner(memory, "dana", "2025-03-01")
    owner(memory, "priya", "2026-02-01")
    owner(memory, "sam", "2025-09-15")

    def owner_on(day: str) -> list[str]:
        return [f["object_name"] for f in memory.facts(as_of_valid=day) if f["relation"] == "owned_by"]

    assert owner_on("2025-01-01") == []
    assert owner_on("2025-06-01") == ["dana"]
    assert owner_on("2025-12-01") == ["sam"]
    assert owner_on("2026-06-01") == ["priya"]


def test_declaring_a_relation_functional_settles_subjects_that_hold_several_values(memory):
    memory.remember([
        FactInput("alice", "works_at", "acme", "Person", "Organization", valid_from="2024-01-01"),
        FactInput("alice", "works_at", "globex", None, "Organization", valid_from="2025-01-01"),
    ])
    assert len(memory.facts()) == 2
    superseded = memory.declare_functional("works_at")
    assert [f["object_name"] for f in memory.facts()] == ["globex"]
    assert len(superseded) == 1


def test_a_non_functional_relation_keeps_every_value_current(memory):
    memory.remember([
        FactInput("billing", "depends_on", "postgres", "Service", "Library"),
        FactInput("billing", "depends_on", "redis", None, "Library"),
    ])
    assert sorted(f["object_name"] for f in memory.facts()) == ["postgres", "redis"]
