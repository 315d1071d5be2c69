"""A hotspot is a subject holding several current values of a relation that holds one value per
subject: declared functional, or behaving like it (a value of it replaced before, or a name the
ontology marks, like owned_by or version). A subject with several values of any other relation is
no question: a service with three dependencies is not a hotspot."""
from __future__ import annotations

from datetime import timedelta

from viewer_fixtures import SnapshotBuilder

from memlens.store.facts import FactInput
from memlens.store.maintenance import worklist_of_snapshot
from memlens.store.ontology import sounds_single_valued


def hotspots(memory) -> list:
    return [c for c in memory.worklist() if c.kind == "hotspot"]


def said_a_day_apart(memory, subject: str, relation: str, objects: list[str]) -> None:
    for obj in objects:
        memory.clock.now += timedelta(days=1)
        memory.remember([FactInput(subject, relation, obj, "Service", "Library", evidence=("repo://x",))])


def test_a_service_with_three_dependencies_is_not_a_hotspot_but_one_with_two_owners_is(memory):
    said_a_day_apart(memory, "billing-service", "depends_on", ["PostgreSQL", "Redis", "stripe-python"])
    assert hotspots(memory) == []                    # before: "billing-service --depends_on--> ..." was one
    said_a_day_apart(memory, "billing-service", "owned_by", ["Dana", "Priya"])
    [owners] = hotspots(memory)
    assert owners.key.endswith(":owned_by") and "Dana | Priya" in owners.summary


def test_a_declared_functional_relation_with_two_current_values_is_a_hotspot():
    b = SnapshotBuilder(dataset="functional")
    ids = {name: b.entity(name, "Service") for name in ("gateway", "v1", "v2", "lib-a", "lib-b")}
    b.declare_relation("runs_version", functional=True)
    for value in ("v1", "v2"):       # an import can hold both as current; recorded minutes apart
        b.assert_fact(ids["gateway"], "runs_version", ids[value], evidence=["repo://x"])
    for value in ("lib-a", "lib-b"):
        b.assert_fact(ids["gateway"], "links", ids[value], evidence=["repo://x"])
    found = [c for c in worklist_of_snapshot(b.build()) if c.kind == "hotspot"]
    assert [c.key.split(":")[-1] for c in found] == ["runs_version"]     # and not "links"
    assert "v1 | v2" in found[0].summary


def test_a_relation_whose_value_was_replaced_before_behaves_single_valued_but_a_merge_says_nothing(memory):
    said_a_day_apart(memory, "worker", "deployed_on", ["host-a"])
    said_a_day_apart(memory, "worker", "deployed_on", ["host-b"])
    old, new = (next(f["id"] for f in memory.facts() if f["object_name"] == h) for h in ("host-a", "host-b"))
    said_a_day_apart(memory, "web", "deployed_on", ["host-c", "host-d"])
    said_a_day_apart(memory, "web", "calls", ["api", "auth"])
    assert hotspots(memory) == []                    # nothing replaced yet: several hosts may be fine
    memory.merge("api", "auth")                      # supersedes auth's facts, replaces no value
    assert hotspots(memory) == []
    memory.supersede(old, new, "moved to host-b")
    [hosts] = hotspots(memory)
    assert hosts.key.endswith(":deployed_on") and "host-c | host-d" in hosts.summary


def test_the_ontology_marks_single_valued_names_whatever_their_case_or_spelling():
    assert all(sounds_single_valued(name) for name in ("owned_by", "Owned By", "owned-by", "version", "STATUS"))
    assert not any(sounds_single_valued(name) for name in ("depends_on", "uses", "owns", "contains", "versions_seen"))


def test_values_of_a_marked_relation_stated_together_are_a_hotspot_but_of_a_once_replaced_one_are_not(memory):
    memory.remember([FactInput("billing-service", "owned_by", owner, "Service", "Person", evidence=("repo://x",))
                     for owner in ("Dana", "Priya")])          # one session, a minute apart
    memory.remember([FactInput("parcelhub", "uses", tool, "Project", "Library", evidence=("repo://x",))
                     for tool in ("pytest", "ruff")])
    said_a_day_apart(memory, "eta.py", "uses", ["pytz"])
    said_a_day_apart(memory, "eta.py", "uses", ["zoneinfo"])
    pytz, zoneinfo = (next(f["id"] for f in memory.facts() if f["object_name"] == n) for n in ("pytz", "zoneinfo"))
    memory.supersede(pytz, zoneinfo, "PR #433")
    assert [c.key.split(":")[-1] for c in hotspots(memory)] == ["owned_by"]   # parcelhub's tools are a set
