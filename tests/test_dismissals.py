"""Dismissals are keyed on the candidate and what it covers: news re-opens the question."""
from __future__ import annotations

from datetime import datetime, timezone

from memlens.store.facts import FactInput


def hotspots(memory) -> list:
    return [c for c in memory.worklist() if c.kind == "hotspot"]


def two_versions_days_apart(memory) -> None:
    """A hotspot for the demo, which has none: two current values of `version` (a name the ontology
    marks as one value per subject), without evidence, stated a day apart."""
    days = iter(datetime(2026, 4, day, 9, 0, tzinfo=timezone.utc) for day in range(1, 29))
    memory.clock = lambda: next(days)
    memory.remember([FactInput("billing-service", "version", "billing 2.3", None, "Concept")])
    memory.remember([FactInput("billing-service", "version", "billing 2.4", None, "Concept")])


def test_a_dismissal_reopens_when_a_new_value_arrives(memory):
    memory.remember([FactInput("alice", "works_at", "acme", "Person", "Organization")])
    memory.clock.now = memory.clock.now.replace(day=2)  # the second value comes a day later
    memory.remember([FactInput("alice", "works_at", "globex", None, "Organization")])
    [candidate] = hotspots(memory)
    assert "acme | globex" in candidate.summary

    memory.dismiss(candidate.key, "she works at both, part time")
    assert hotspots(memory) == []

    memory.clock.now = memory.clock.now.replace(day=3)
    memory.remember([FactInput("alice", "works_at", "initech", None, "Organization")])
    [reopened] = hotspots(memory)
    assert reopened.key == candidate.key and reopened.content != candidate.content
    assert "initech" in reopened.summary


def test_dismissals_have_no_cap(memory):
    for day in range(1, 251):
        memory.clock.now = memory.clock.now.replace(month=1 + day // 28 % 12, day=1 + day % 28)
        memory.remember([FactInput(f"person {day}", "about", f"topic {day}", "Person", "Concept")])
    unsupported = [c for c in memory.worklist() if c.kind == "unsupported"]
    assert len(unsupported) == 250
    for candidate in unsupported:
        memory.dismiss(candidate.key, "said by the user")
    assert [c for c in memory.worklist() if c.kind == "unsupported"] == []
    assert len(memory.snapshot()["dismissals"]) == 250


def test_near_duplicate_names_are_a_candidate_and_merge_resolves_them(memory):
    memory.remember([
        FactInput("Redis cluster", "used_by", "billing", "Library", "Service", evidence=("a",)),
        FactInput("redis cluster ", "used_by", "tracking", None, "Service", evidence=("b",)),  # same entity
        FactInput("redis-cluster", "used_by", "web", None, "Service", evidence=("c",)),        # same entity too
        FactInput("Redis", "used_by", "api", "Library", "Service", evidence=("d",)),
        FactInput("redis-clusters", "used_by", "cron", "Library", "Service", evidence=("e",)),  # insisted on
    ], new=True)
    [duplicate] = [c for c in memory.worklist() if c.kind == "duplicate"]
    assert "Redis cluster" in duplicate.summary and "redis-clusters" in duplicate.summary
    memory.merge("Redis cluster", "redis-clusters")
    assert [c for c in memory.worklist() if c.kind == "duplicate"] == []
    assert sorted(f["object_name"] for f in memory.facts() if f["subject_name"] == "Redis cluster") == [
        "billing", "cron", "tracking", "web"]
    # The old fact stays as history of the merge.
    old = [f for f in memory.facts(include_all=True) if f["subject_name"] == "redis-clusters"]
    assert [f["status"] for f in old] == ["superseded"]


def test_the_snapshot_carries_the_same_worklist_the_store_gives(tmp_path):
    from memlens.store import demo

    with demo.build(tmp_path / "demo.sqlite") as memory:
        two_versions_days_apart(memory)
        candidates = memory.worklist()
        from_snapshot = memory.snapshot()["maintenance"]
    from_store = [c.as_dict() for c in candidates]
    assert len(from_store) >= 4
    assert {c["kind"] for c in from_store} == {"hotspot", "contradiction", "unsupported"}
    assert from_snapshot == from_store
    # every field of a candidate, in field order, with its refs as a list
    for candidate, written in zip(candidates, from_store):
        assert list(written.items()) == list(dict(candidate._asdict(), refs=list(candidate.refs)).items())


def test_dismiss_sees_the_candidates_the_worklist_has_for_every_prefix_of_every_key(tmp_path):
    """dismiss reads only the rows a key can name; what it finds is what filtering the worklist finds."""
    from memlens.store import demo, maintenance

    with demo.build(tmp_path / "demo.sqlite") as memory:
        two_versions_days_apart(memory)
        memory.remember([FactInput("billing-services", "calls", "tracking-service", "Service", None, evidence=("x",))],
                        new=True)
        worklist = maintenance.worklist(memory.conn)
        assert {c.kind for c in worklist} == {"hotspot", "contradiction", "unsupported", "duplicate"}
        assert memory.snapshot()["dismissals"]  # a dismissed candidate stays out of both
        keys = {c.key[:end] for c in worklist for end in range(len(c.key) + 1)}
        keys |= {c.key + "0" for c in worklist} | {"hotspot:", "nothing", "unsupported:zz", "contradiction:?*["}
        for key in sorted(keys):
            expected = [c for c in worklist if c.key.startswith(key)]
            assert maintenance._open_candidates_keyed(memory.conn, key) == expected, key


def test_the_worklist_reads_one_state_while_a_writer_commits_between_its_scans(tmp_path, monkeypatch):
    """A value for a functional key written between the worklist's scans of the entities and of
    the facts: the worklist is the one before the write, not a mix of both."""
    from memlens.store import maintenance
    from memlens.store.memory import Memory

    path = tmp_path / "store.sqlite"
    with Memory(path) as memory:
        memory.declare_functional("runs_on")
        memory.remember([FactInput("svc", "runs_on", "oldhost", "Service", "Environment")])
        memory.remember([FactInput("a", "uses", "b", "Service", "Library", evidence=("x",))])
    reader = Memory(path, readonly=True)
    try:
        def unsupported() -> list[str]:
            return sorted(c.summary for c in maintenance.worklist(reader.conn) if c.kind == "unsupported")

        before = unsupported()
        real = maintenance._all_current_facts

        def writer_commits_first(conn):
            with Memory(path) as writer:
                writer.remember([FactInput("svc", "runs_on", "newhost", "Service", "Environment")])
            return real(conn)

        monkeypatch.setattr(maintenance, "_all_current_facts", writer_commits_first)
        assert unsupported() == before == ["svc --runs_on--> oldhost has no evidence"]
        monkeypatch.undo()
        assert unsupported() == ["svc --runs_on--> newhost has no evidence"]
    finally:
        reader.close()
