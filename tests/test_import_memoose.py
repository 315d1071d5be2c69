"""Reading a memoose store: entities, relations and their supersession, contradictions,
dismissals, merges, forgetting and provenance, as the memlens snapshot."""
from __future__ import annotations

import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from import_fixtures import HOSTILE, MemooseFile, build_memoose
from memlens.store.importers import read_snapshot
from memlens.store.ids import short
from memlens.store.maintenance import worklist_of_snapshot

RECORD_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")


@pytest.fixture
def store(tmp_path: Path) -> tuple[dict, dict[str, str]]:
    ids = build_memoose(tmp_path / "proj-1a2b3c4d.sqlite")
    return read_snapshot("memoose", tmp_path / "proj-1a2b3c4d.sqlite"), ids


def facts_by_id(snapshot: dict) -> dict[str, dict]:
    return {f["id"]: f for f in snapshot["facts"]}


def entity_named(snapshot: dict, name: str) -> dict:
    return next(e for e in snapshot["entities"] if e["name"] == name)


def test_entities_keep_memooses_ids_names_types_and_record_times(store):
    snapshot, _ = store
    alice = entity_named(snapshot, "alice")
    assert alice["id"] == MemooseFile.entity_id("alice")
    assert (alice["type"], alice["description"]) == ("Person", "backend lead")
    assert RECORD_TIME.fullmatch(alice["created_at"]) and alice["created_at"] <= alice["updated_at"]
    assert {"Person", "Organization", "Technology"} <= set(snapshot["ontology"]["types"])
    assert snapshot["dataset"] == "memoose:proj-1a2b3c4d.sqlite"


def test_a_superseded_relation_keeps_its_successor_reason_and_valid_time(store):
    snapshot, ids = store
    facts = facts_by_id(snapshot)
    old, new = facts[ids["acme"]], facts[ids["globex"]]
    assert (old["status"], old["superseded_by"], old["valid_from"]) == ("superseded", ids["globex"], "2024-01-01")
    assert old["reason"] == "functional relation 'works_at': newer"
    assert old["evidence"] == ["user said 2026-03-01"] and old["description"] == "joined in 2024"
    assert (new["status"], new["retired_at"], new["functional"]) == ("current", None, True)
    assert old["retired_at"] == old["history"][-1]["from"] > old["recorded_at"]


def test_a_reason_or_evidence_held_as_a_blob_reads_as_its_text(tmp_path):
    path = tmp_path / "blobs.sqlite"
    ids = build_memoose(path)
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE relations SET supersession_reason = ?, evidence = ? WHERE id = ?",
                     ("moved to globex".encode(), b"user said \xff", ids["acme"]))
    old = facts_by_id(read_snapshot("memoose", path))[ids["acme"]]
    assert old["status"] == "superseded" and old["reason"] == "moved to globex"
    assert old["evidence"] == ["user said \ufffd"]          # not UTF-8: the byte is replaced, not b'...'


def test_an_older_value_that_arrived_late_is_history_not_the_present(store):
    snapshot, ids = store
    late = facts_by_id(snapshot)[ids["initech"]]
    assert late["status"] == "superseded" and late["superseded_by"] == ids["globex"]
    assert [v["status"] for v in late["history"]] == ["current", "superseded"]
    current = [f for f in snapshot["facts"] if f["relation"] == "works_at" and f["status"] == "current"]
    assert [f["id"] for f in current] == [ids["globex"]]


def test_memoose_reviving_a_superseded_fact_shows_in_its_history(store):
    snapshot, ids = store
    fact = facts_by_id(snapshot)[ids["reassert"]]
    assert ids["reassert"] == ids["acme"]  # the same triple: memoose keys facts on it
    assert [v["status"] for v in fact["history"]] == ["current", "superseded", "current", "superseded"]
    assert fact["reassertions"] == 1 and fact["status"] == "superseded"


def test_an_open_contradiction_contests_both_facts_and_a_resolved_one_does_not(store):
    snapshot, ids = store
    facts = facts_by_id(snapshot)
    contradictions = {c["id"]: c for c in snapshot["contradictions"]}
    open_ = contradictions[ids["contradiction"]]
    assert open_["resolved_at"] is None and open_["reason"] == "both claimed as primary"
    assert open_["confidence"] == 0.8 and open_["actor"] == "host-model"
    assert facts[ids["pg"]]["contested"] and facts[ids["my"]]["contested"]
    assert facts[ids["pg"]]["contradictions"] == [ids["contradiction"]]
    resolved = contradictions[ids["resolved"]]
    assert (resolved["resolution"], resolved["resolution_reason"]) == ("superseded", "billing's postgres is the one")
    assert resolved["resolved_at"] == facts[ids["auth_pg"]]["retired_at"]
    assert not facts[ids["auth_pg"]]["contested"] and facts[ids["auth_pg"]]["contradictions"] == [ids["resolved"]]
    assert snapshot["stats"]["open_contradictions"] == 1 and snapshot["stats"]["contested"] == 2


def test_dismissals_keep_their_reasons_and_a_hotspot_stays_dismissed_for_what_it_covered(store):
    snapshot, _ = store
    reasons = {d["kind"]: d["reason"] for d in snapshot["dismissals"]}
    assert reasons == {"hotspot": "billing really uses both", "consolidate": "different databases"}
    hotspot = next(d for d in snapshot["dismissals"] if d["kind"] == "hotspot")
    billing = entity_named(snapshot, "billing")["id"]
    assert hotspot["key"] == f"hotspot:{short(billing)}:uses"
    # Without the dismissal memlens would ask about it, with the same key and contents.
    undismissed = worklist_of_snapshot(dict(snapshot, dismissals=[]))
    candidate = next(c for c in undismissed if c.kind == "hotspot")
    assert (candidate.key, candidate.content) == (hotspot["key"], hotspot["content"])
    assert all(c["kind"] != "hotspot" for c in snapshot["maintenance"])
    assert any(c["kind"] == "contradiction" for c in snapshot["maintenance"])


def test_a_merged_entity_points_at_the_one_it_went_into(store):
    snapshot, ids = store
    alice = entity_named(snapshot, "alice")
    smith = entity_named(snapshot, "Alice Smith")
    assert (smith["merged_into"], smith["type"]) == (alice["id"], "Person")
    assert smith["merged_at"] and smith["created_at"] <= smith["merged_at"]
    owns = facts_by_id(snapshot)[ids["owns"]]
    assert owns["subject"] == alice["id"] and owns["status"] == "current"
    assert snapshot["stats"]["entities"] == len(snapshot["entities"]) - 1


def test_what_memoose_forgot_is_a_tombstone_and_its_text_is_nowhere(store):
    snapshot, ids = store
    text = json.dumps(snapshot)
    for forgotten in ("hunter2-staging", "has_password", "mallory-gossip-text", "Mallory Secretname", "rumour",
                      "pasted", "dislikes"):
        assert forgotten not in text
    assert "primary store" in text and "joined in 2024" in text  # the rest is all there
    facts = facts_by_id(snapshot)
    for fid in (ids["secret"], ids["gossip"]):
        tomb = facts[fid]
        assert tomb["status"] == "forgotten"
        assert (tomb["relation"], tomb["object"], tomb["description"], tomb["evidence"]) == (None, None, None, [])
        assert [v["status"] for v in tomb["history"]] == ["current", "forgotten"]
    assert facts[ids["secret"]]["retired_at"] > facts[ids["secret"]]["recorded_at"]
    assert MemooseFile.entity_id("Mallory Secretname") not in {e["id"] for e in snapshot["entities"]}


def test_provenance_is_the_ledger_with_its_actors_and_no_payload_text(store):
    snapshot, ids = store
    ledger = snapshot["ledger"]
    assert [row["seq"] for row in ledger] == list(range(1, len(ledger) + 1))
    actions = {row["action"] for row in ledger}
    assert {"entity", "assert", "reassert", "supersede", "contest", "dismiss", "merge", "forget",
            "declare_functional"} <= actions
    assert {row["actor"] for row in ledger} == {"host-model"}
    supersede = next(row for row in ledger if row["action"] == "supersede")
    assert supersede["refs"] == [ids["acme"], ids["globex"]] and supersede["payload"]["automatic"] is True
    payloads = json.dumps([row["payload"] for row in ledger])
    # memoose's payloads quote facts, descriptions and reasons: none of it is carried over.
    for quoted in ("joined in 2024", "alice --works_at--> acme", "both claimed as primary", "billing really uses both"):
        assert quoted not in payloads
    assert "works_at" in payloads  # relation names are metadata, and they are kept


def test_hostile_text_arrives_verbatim(store):
    snapshot, ids = store
    entity = entity_named(snapshot, HOSTILE[0])
    assert entity["description"] == HOSTILE[1]
    fact = facts_by_id(snapshot)[ids["hostile"]]
    assert (fact["description"], fact["evidence"]) == (HOSTILE[3], [HOSTILE[2]])


def test_an_older_file_without_the_procedural_columns_reads_the_same(tmp_path: Path):
    build_memoose(tmp_path / "new.sqlite")
    build_memoose(tmp_path / "old.sqlite", older=True)
    old, new = read_snapshot("memoose", tmp_path / "old.sqlite"), read_snapshot("memoose", tmp_path / "new.sqlite")
    with closing(sqlite3.connect(tmp_path / "old.sqlite")) as conn:
        assert "condition" not in {r[1] for r in conn.execute("PRAGMA table_info(relations)")}
    assert old["facts"] == new["facts"] and old["entities"] == new["entities"]
    assert len(old["facts"]) == 11


def test_a_contradiction_about_a_forgotten_fact_is_settled_and_loses_its_reason(tmp_path: Path):
    m = MemooseFile(tmp_path / "m.sqlite")
    for name in ("api", "web", "port 80", "port 81"):
        m.entity(name, "Concept")
    a = m.relation("api", "listens_on", "port 80")
    b = m.relation("web", "listens_on", "port 81")
    kept = m.relation("web", "listens_on", "port 80")
    gone = m.contradiction(a, b, "api-secret-reason", 0.9)
    stays = m.contradiction(kept, b, "web cannot listen on both", 0.5)
    m.forget_relation(a)
    m.close()
    snapshot = read_snapshot("memoose", tmp_path / "m.sqlite")
    contradictions = {c["id"]: c for c in snapshot["contradictions"]}
    assert contradictions[gone]["resolution"] == "forgotten" and contradictions[gone]["reason"] == ""
    assert contradictions[stays]["resolved_at"] is None and contradictions[stays]["reason"] == "web cannot listen on both"
    assert "api-secret-reason" not in json.dumps(snapshot)  # nor on memoose's `contradicts` edge
    assert any(f["relation"] == "contradicts" for f in snapshot["facts"])


def test_the_same_file_gives_the_same_snapshot_and_the_newest_time_as_its_time(store, tmp_path: Path):
    snapshot, _ = store
    again = read_snapshot("memoose", tmp_path / "proj-1a2b3c4d.sqlite")
    assert again == snapshot
    assert snapshot["hash"].startswith("sha256:") and len(snapshot["hash"]) == 71
    assert snapshot["generated_at"] == max(row["at"] for row in snapshot["ledger"])


def test_valid_times_are_read_as_iso_where_they_are_and_kept_as_written_where_not(tmp_path: Path):
    m = MemooseFile(tmp_path / "m.sqlite")
    for name in ("api", "v1", "v2"):
        m.entity(name, "Concept")
    zoned = m.relation("api", "runs", "v1", valid_from="2025-06-01T10:00:00+02:00", valid_to="2025-07-01")
    vague = m.relation("api", "runs", "v2", valid_from="Q3 2024")
    m.close()
    facts = facts_by_id(read_snapshot("memoose", tmp_path / "m.sqlite"))
    assert (facts[zoned]["valid_from"], facts[zoned]["valid_to"]) == ("2025-06-01T08:00:00Z", "2025-07-01")
    assert facts[vague]["valid_from"] == "Q3 2024"


def test_a_forgotten_fact_said_again_is_current_with_its_forgotten_past_as_dates(tmp_path: Path):
    m = MemooseFile(tmp_path / "m.sqlite")
    for name in ("api", "redis"):
        m.entity(name, "Concept")
    first = m.relation("api", "caches_in", "redis", "first-life-text", "old evidence")
    m.forget_relation(first)
    again = m.relation("api", "caches_in", "redis", "second life", "new evidence")
    m.close()
    snapshot = read_snapshot("memoose", tmp_path / "m.sqlite")
    fact = facts_by_id(snapshot)[again]
    assert again == first and fact["status"] == "current" and fact["description"] == "second life"
    assert [v["status"] for v in fact["history"]] == ["current", "forgotten", "current"]
    assert fact["history"][0]["reason"] is None and fact["recorded_at"] == fact["history"][0]["from"]
    assert "first-life-text" not in json.dumps(snapshot) and "old evidence" not in json.dumps(snapshot)


def test_a_relation_memoose_extracted_from_a_chunk_carries_the_chunk_as_evidence(tmp_path: Path):
    path = tmp_path / "proj-1a2b3c4d.sqlite"
    ids = build_memoose(path)
    before = worklist_of_snapshot(read_snapshot("memoose", path))
    assert f"unsupported:{short(ids['my'])}" in {c.key for c in before}   # no evidence, no chunk
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE relations SET chunk_id = 'chunk-17' WHERE id = ?", (ids["my"],))
    snapshot = read_snapshot("memoose", path)
    facts = facts_by_id(snapshot)
    assert facts[ids["my"]]["evidence"] == ["memoose chunk chunk-17"]
    assert facts[ids["pg"]]["evidence"] == ["repo://db.py#L1-L9"]          # no chunk: its own evidence only
    assert f"unsupported:{short(ids['my'])}" not in {c.key for c in worklist_of_snapshot(snapshot)}


def test_a_superseded_relation_holds_until_its_successor_begins(store):
    snapshot, ids = store
    facts = facts_by_id(snapshot)
    assert (facts[ids["acme"]]["valid_from"], facts[ids["acme"]]["valid_to"]) == ("2024-01-01", "2025-06-01")
    assert facts[ids["acme"]]["history"][-1]["valid_to"] == "2025-06-01"
    assert (facts[ids["globex"]]["status"], facts[ids["globex"]]["valid_to"]) == ("current", None)
