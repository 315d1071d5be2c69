"""Reading a memware store: beliefs as facts between subject and value nodes, supersession by
valid time, reviews as contradictions, rejection and retraction never current."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from import_fixtures import HOSTILE, build_memware
from memlens.store.ids import entity_id
from memlens.store.importers import read_snapshot
from memlens.store.importers.memware import fact_id_of


@pytest.fixture
def store(tmp_path: Path) -> tuple[dict, dict[str, int]]:
    ids = build_memware(tmp_path / "memware.db")
    return read_snapshot("memware", tmp_path / "memware.db"), ids


def fact(snapshot: dict, belief_id: int) -> dict:
    return next(f for f in snapshot["facts"] if f["id"] == fact_id_of(belief_id))


def name_of(snapshot: dict, entity: str) -> str:
    return next(e["name"] for e in snapshot["entities"] if e["id"] == entity)


def test_subjects_and_values_become_entities_one_per_name(store):
    snapshot, ids = store
    types = {e["name"]: e["type"] for e in snapshot["entities"]}
    assert types["api"] == "Concept" and types["8443"] == "Value" and types["billing"] == "Concept"
    assert "API" not in types  # "API" and "api" are one subject to memware, so one entity here
    late = fact(snapshot, ids["port_late"])
    assert late["subject"] == fact(snapshot, ids["port_new"])["subject"] == entity_id("api")
    assert set(snapshot["ontology"]["types"]) == {"Concept", "Value"}
    assert snapshot["dataset"] == "memware:memware.db"


def test_a_new_value_supersedes_the_old_one_with_both_time_axes(store):
    snapshot, ids = store
    old, new = fact(snapshot, ids["port_old"]), fact(snapshot, ids["port_new"])
    assert (name_of(snapshot, old["object"]), old["relation"]) == ("8080", "listens on port")
    assert (old["status"], old["superseded_by"]) == ("superseded", new["id"])
    assert (old["valid_from"], old["valid_to"]) == ("2025-01-01", "2026-02-01T10:00:00Z")
    assert old["retired_at"] == new["recorded_at"]  # memware has no time of its own for this
    assert [v["status"] for v in old["history"]] == ["current", "superseded"]
    assert old["history"][0]["valid_to"] is None  # memware closed the interval only when superseding
    assert (new["status"], new["valid_from"], new["functional"]) == ("current", "2026-02-01T10:00:00Z", True)
    assert new["evidence"] == ["memware:session/s1/turn/7"] and new["actor"] == "memware:derive"
    assert old["evidence"] == ["session 3f2a, turn 41"] and old["actor"] == "memware:assert"


def test_an_older_value_filed_late_was_never_current(store):
    snapshot, ids = store
    late = fact(snapshot, ids["port_late"])
    assert [v["status"] for v in late["history"]] == ["superseded"]
    assert late["superseded_by"] == fact(snapshot, ids["port_old"])["id"]
    assert (late["valid_from"], late["valid_to"]) == ("2024-01-01", "2025-01-01")


def test_a_candidate_under_open_review_is_contested_and_not_current(store):
    snapshot, ids = store
    candidate, incumbent = fact(snapshot, ids["db_candidate"]), fact(snapshot, ids["db"])
    assert candidate["status"] != "current" and candidate["contested"]
    assert candidate["reason"] == "candidate awaiting review: challenges committed belief with lower reliability"
    assert incumbent["status"] == "current" and incumbent["contested"]
    review = next(c for c in snapshot["contradictions"] if candidate["id"] in c["facts"])
    assert review["resolved_at"] is None and review["facts"] == [candidate["id"], incumbent["id"]]
    assert review["reason"] == "challenges committed belief with lower reliability"
    assert any(m["kind"] == "contradiction" and candidate["id"] in m["refs"] for m in snapshot["maintenance"])
    current_values = [f for f in snapshot["facts"] if f["relation"] == "stores data in" and f["status"] == "current"]
    assert [f["id"] for f in current_values] == [incumbent["id"]]


def test_an_approved_candidate_becomes_current_when_approved(store):
    snapshot, ids = store
    new, old = fact(snapshot, ids["owner_new"]), fact(snapshot, ids["owner"])
    assert [v["status"] for v in new["history"]] == ["retracted", "current"]
    assert new["status"] == "current" and not new["contested"]
    assert old["status"] == "superseded" and old["retired_at"] == new["history"][1]["from"]
    review = next(c for c in snapshot["contradictions"] if new["id"] in c["facts"])
    assert (review["resolution"], review["resolved_at"]) == ("superseded", new["history"][1]["from"])


def test_rejected_and_retracted_beliefs_are_shown_as_such_never_as_current(store):
    snapshot, ids = store
    rejected, retracted = fact(snapshot, ids["lang_bad"]), fact(snapshot, ids["wrong"])
    assert rejected["status"] == "retracted" and rejected["reason"].startswith("rejected in review")
    assert "current" not in [v["status"] for v in rejected["history"]]
    assert retracted["status"] == "retracted" and retracted["reason"] == "session s9 is no longer indexed"
    assert [v["status"] for v in retracted["history"]] == ["current", "retracted"]
    assert fact(snapshot, ids["lang"])["status"] == "current"
    review = next(c for c in snapshot["contradictions"] if rejected["id"] in c["facts"])
    assert review["resolution"] == "retracted" and review["resolution_reason"] == "rejected in review"


def test_a_confirmation_counts_as_a_reassertion(store):
    snapshot, ids = store
    assert fact(snapshot, ids["db"])["reassertions"] == 1
    assert fact(snapshot, ids["lang"])["reassertions"] == 0
    row = next(r for r in snapshot["ledger"] if r["action"] == "reassert")
    assert row["refs"] == [fact_id_of(ids["db"])] and row["actor"] == "memware:confirm"


def test_the_rebuilt_ledger_is_in_record_time_order_with_ids_only(store):
    snapshot, ids = store
    ledger = snapshot["ledger"]
    assert [r["at"] for r in ledger] == sorted(r["at"] for r in ledger)
    asserted = {r["refs"][0] for r in ledger if r["action"] == "assert"}
    assert asserted == {f["id"] for f in snapshot["facts"]}
    first_assert = next(i for i, r in enumerate(ledger) if r["action"] == "assert")
    first_supersede = next(i for i, r in enumerate(ledger) if r["action"] == "supersede")
    assert first_assert < first_supersede
    assert "8443" not in json.dumps([r["payload"] for r in ledger])
    assert {"memware:derive", "memware:assert", "memware:review", "memware:retract"} <= {r["actor"] for r in ledger}


def test_hostile_text_arrives_verbatim(store):
    snapshot, ids = store
    hostile = fact(snapshot, ids["hostile"])
    assert (name_of(snapshot, hostile["subject"]), name_of(snapshot, hostile["object"])) == (HOSTILE[0], HOSTILE[1])
    assert hostile["evidence"] == [f"{HOSTILE[2]} {HOSTILE[3]}"]


def test_an_older_file_without_retraction_and_confirmation_tables_reads(tmp_path: Path):
    ids = build_memware(tmp_path / "old.db", older=True)
    snapshot = read_snapshot("memware", tmp_path / "old.db")
    assert "wrong" not in ids
    assert fact(snapshot, ids["port_new"])["status"] == "current"
    assert fact(snapshot, ids["db"])["reassertions"] == 0
    assert fact(snapshot, ids["db_candidate"])["contested"]
    assert len(snapshot["facts"]) == 10
