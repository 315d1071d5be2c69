"""Reading a mnemo store: memories as versioned facts, soft deletes as tombstones, archive marks,
and the entity graph (current layout and the one before mnemo's mem_003 migration)."""
from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path

import pytest

from import_fixtures import HOSTILE, build_mnemo
from memlens.store.importers import read_snapshot
from memlens.store.importers.mnemo import FILED_UNDER, MENTIONS


@pytest.fixture
def built(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    return tmp_path / "memories.db", build_mnemo(tmp_path / "memories.db")


@pytest.fixture
def store(built) -> tuple[dict, dict[str, str]]:
    path, ids = built
    return read_snapshot("mnemo", path), ids


def fact(snapshot: dict, mnemo_id: str) -> dict:
    dashed = str(uuid.UUID(hex=mnemo_id)) if len(mnemo_id) == 32 else mnemo_id
    return next(f for f in snapshot["facts"] if f["id"] == dashed)


def names(snapshot: dict) -> dict[str, str]:
    return {e["id"]: e["name"] for e in snapshot["entities"]}


def test_an_updated_memory_is_one_memory_with_three_versions(store):
    snapshot, ids = store
    v1, v2, v3 = (fact(snapshot, ids[k]) for k in ("port", "port_v2", "port_v3"))
    assert v1["subject"] == v2["subject"] == v3["subject"]
    assert names(snapshot)[v1["subject"]] == f"memory {ids['port'][:8]}"
    assert [f["description"] for f in (v1, v2, v3)] == [
        "the api listens on 8080", "the api listens on 8443", "the api listens on 9443"]
    assert (v1["status"], v1["superseded_by"]) == ("superseded", v2["id"])
    assert (v2["status"], v2["superseded_by"]) == ("superseded", v3["id"])
    assert v3["status"] == "current" and v3["functional"] and v3["relation"] == FILED_UNDER
    assert names(snapshot)[v3["object"]] == "infra" and v3["evidence"] == ["session 12"]
    # mnemo closes the old row at the moment it writes the new one: both axes say so.
    assert v1["retired_at"] == v2["recorded_at"] and v1["valid_to"] == v2["valid_from"]


def test_a_deleted_memory_is_a_tombstone_with_every_earlier_version(store):
    snapshot, ids = store
    text = json.dumps(snapshot)
    assert "hunter2-mnemo" not in text and "hunter3-mnemo" not in text
    assert "the api listens on 9443" in text
    for key in ("secret", "secret_v2"):
        tomb = fact(snapshot, ids[key])
        assert tomb["status"] == "forgotten" and tomb["description"] is None and tomb["relation"] is None
        assert tomb["history"][-1]["status"] == "forgotten"
    thread = fact(snapshot, ids["secret"])["subject"]
    assert thread in names(snapshot)
    assert next(e for e in snapshot["entities"] if e["id"] == thread)["description"] == ""
    # Which entities the deleted memory named would tell what it was about.
    acme = next(e["id"] for e in snapshot["entities"] if e["name"] == "acme")
    assert not [f for f in snapshot["facts"] if f["relation"] == MENTIONS and f["object"] == acme]
    assert [f for f in snapshot["facts"] if f["relation"] == MENTIONS]


def test_deleted_text_is_shown_only_when_asked(built):
    path, ids = built
    snapshot = read_snapshot("mnemo", path, include_deleted_text=True)
    deleted, earlier = fact(snapshot, ids["secret_v2"]), fact(snapshot, ids["secret"])
    assert (deleted["status"], deleted["reason"]) == ("retracted", "deleted in mnemo")
    assert deleted["description"] == "staging password is hunter3-mnemo"
    assert earlier["status"] == "superseded" and earlier["superseded_by"] == deleted["id"]
    assert "hunter2-mnemo" not in json.dumps(read_snapshot("mnemo", path))


def test_an_archived_memory_stays_current_and_says_it_was_archived(store):
    snapshot, ids = store
    old = fact(snapshot, ids["old"])
    assert old["status"] == "current" and old["reason"] == "archived by mnemo"
    assert [v["reason"] for v in old["history"]] == [None, "archived by mnemo"]
    legacy = next(f for f in snapshot["facts"] if f["description"] == "legacy archived note")
    assert legacy["status"] == "current" and legacy["reason"] == "archived by mnemo"


def test_the_entity_graph_keeps_its_ids_types_and_edges(store):
    snapshot, ids = store
    entities = {e["id"]: e for e in snapshot["entities"]}
    assert (entities[ids["alice"]]["type"], entities[ids["acme"]]["type"]) == ("Person", "Organization")
    edge = next(f for f in snapshot["facts"] if f["id"] == ids["edge"])
    assert (edge["subject"], edge["relation"], edge["object"]) == (ids["alice"], "works_on", ids["billing"])
    assert edge["evidence"] == [f"mnemo memory {uuid.UUID(hex=ids['port'])}"]
    mention = next(f for f in snapshot["facts"] if f["relation"] == MENTIONS)
    assert (mention["subject"], mention["object"]) == (fact(snapshot, ids["port"])["subject"], ids["billing"])
    assert mention["recorded_at"] >= entities[ids["billing"]]["created_at"]


def test_hostile_text_arrives_verbatim(store):
    snapshot, ids = store
    hostile = fact(snapshot, ids["hostile"])
    assert hostile["description"] == " ".join(HOSTILE) and hostile["evidence"] == [HOSTILE[2]]
    assert names(snapshot)[hostile["object"]] == HOSTILE[3]
    thread = next(e for e in snapshot["entities"] if e["id"] == hostile["subject"])
    assert HOSTILE[1] in thread["description"]


def test_the_sqlite_vec_table_is_skipped_not_loaded(built):
    path, _ = built
    conn = sqlite3.connect(path)
    with pytest.raises(sqlite3.OperationalError, match="vec0"):
        conn.execute("SELECT * FROM memories_vec").fetchall()
    conn.close()
    assert read_snapshot("mnemo", path)["stats"]["facts"] == 10


def test_the_layout_before_mem_003_reads_graph_and_memories(tmp_path: Path):
    ids = build_mnemo(tmp_path / "old.db", legacy=True)
    snapshot = read_snapshot("mnemo", tmp_path / "old.db")
    assert fact(snapshot, ids["port"])["status"] == "current"
    assert {e["name"] for e in snapshot["entities"]} >= {"alice", "billing", "acme"}
    assert any(f["id"] == ids["edge"] for f in snapshot["facts"])
    assert any(f["relation"] == MENTIONS for f in snapshot["facts"])
    assert all(f["status"] == "current" for f in snapshot["facts"])
