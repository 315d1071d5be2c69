"""`memlens import`: a snapshot written into an empty dataset reads back as the same memory."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from conftest import StepClock
from import_fixtures import build_memoose, build_memware, build_mnemo
from memlens.store import demo
from memlens.store.errors import Conflict, InvalidInput
from memlens.store.facts import FactInput
from memlens.store.importers import read_snapshot
from memlens.store.memory import Memory
from memlens.store.snapshot.load import load_into

BUILDERS = {"memoose": build_memoose, "memware": build_memware, "mnemo": build_mnemo}
SAME = ("entities", "facts", "contradictions", "dismissals", "maintenance")


def imported(tmp_path: Path, tool: str) -> tuple[dict, Memory, dict]:
    BUILDERS[tool](tmp_path / "source.db")
    snapshot = read_snapshot(tool, tmp_path / "source.db")
    memory = Memory(tmp_path / "imported.sqlite", actor="cli:tester", clock=StepClock())
    return snapshot, memory, load_into(memory, snapshot, source=tool)


def all_text(path: Path) -> str:
    conn = sqlite3.connect(path)
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    text = "\n".join(str(value) for table in tables for row in conn.execute(f'SELECT * FROM "{table}"') for value in row)
    conn.close()
    return text


@pytest.mark.parametrize("tool", sorted(BUILDERS))
def test_the_imported_dataset_reads_back_as_the_snapshot_it_came_from(tmp_path: Path, tool: str):
    snapshot, memory, counts = imported(tmp_path, tool)
    with memory:
        again = memory.snapshot()
    for part in SAME:
        assert again[part] == snapshot[part], part
    assert again["ontology"]["relations"] == snapshot["ontology"]["relations"]
    assert set(snapshot["ontology"]["types"]) <= set(again["ontology"]["types"])
    assert counts["entities"] == len(snapshot["entities"]) and counts["source_hash"] == snapshot["hash"]
    assert counts["facts"] + counts["forgotten"] == len(snapshot["facts"]) > 0


def test_a_memlens_snapshot_round_trips_too(tmp_path: Path):
    with demo.build(tmp_path / "demo.sqlite") as source:
        snapshot = source.snapshot()
    with Memory(tmp_path / "copy.sqlite", clock=StepClock()) as memory:
        load_into(memory, snapshot, source="memlens")
        again = memory.snapshot()
    for part in SAME:
        assert again[part] == snapshot[part], part
    assert any(f["status"] == "forgotten" for f in snapshot["facts"])
    assert any(e["merged_into"] for e in snapshot["entities"])


@pytest.mark.parametrize("tool", sorted(BUILDERS))
def test_the_ledger_records_the_import_and_keeps_the_sources_history(tmp_path: Path, tool: str):
    snapshot, memory, counts = imported(tmp_path, tool)
    with memory:
        ledger = memory.ledger()
    source_rows, import_rows = ledger[: len(snapshot["ledger"])], ledger[len(snapshot["ledger"]):]
    assert [(r["at"], r["actor"], r["action"]) for r in source_rows] == \
        [(r["at"], r["actor"], r["action"]) for r in snapshot["ledger"]]
    assert all(r["payload"]["imported_from"] == tool for r in source_rows)
    assert {r["actor"] for r in import_rows} == {f"import:{tool}"}
    assert {r["action"] for r in import_rows} == {"import"}
    imported_facts = {r["refs"][0] for r in import_rows if r["kind"] == "fact"}
    assert imported_facts == {f["id"] for f in snapshot["facts"]}
    summary = import_rows[-1]
    assert summary["kind"] == "dataset" and summary["payload"]["facts"] == counts["facts"]
    assert min(r["at"] for r in import_rows) >= max(r["at"] for r in source_rows)


def test_no_fact_text_reaches_the_ledger_and_forgotten_text_reaches_no_table(tmp_path: Path):
    snapshot, memory, _ = imported(tmp_path, "memoose")
    with memory:
        ledger = json.dumps(memory.ledger())
        assert "primary store" not in ledger and "joined in 2024" not in ledger
        assert [f["id"] for f in memory.recall("postgres")["facts"]]  # text is indexed for search
        assert not memory.recall("hunter2")["facts"]
    text = all_text(tmp_path / "imported.sqlite")
    assert "primary store" in text
    for forgotten in ("hunter2", "mallory-gossip-text", "Mallory Secretname"):
        assert forgotten not in text


def test_an_imported_dataset_takes_memlens_writes(tmp_path: Path):
    snapshot, memory, _ = imported(tmp_path, "memware")
    with memory:
        current = next(f for f in snapshot["facts"] if f["status"] == "current" and not f["contested"])
        memory.retract(current["id"], "checked: wrong")
        assert memory.fact(current["id"])["status"] == "retracted"
        memory.remember([FactInput("billing", "hosted_by", "fly.io", None, "Service", evidence=("deploy.toml",))])
        assert memory.snapshot()["stats"]["facts"] == len(snapshot["facts"]) + 1


def test_a_dataset_that_holds_memories_is_refused_and_left_as_it_was(tmp_path: Path):
    BUILDERS["memoose"](tmp_path / "source.db")
    snapshot = read_snapshot("memoose", tmp_path / "source.db")
    with Memory(tmp_path / "used.sqlite", clock=StepClock()) as memory:
        memory.remember([FactInput("api", "uses", "redis", "Service", "Library", evidence=("x",))])
        before = memory.snapshot()
        with pytest.raises(Conflict, match="already holds memories"):
            load_into(memory, snapshot, source="memoose")
        assert memory.snapshot() == before
    with Memory(tmp_path / "fresh.sqlite", clock=StepClock()) as memory:
        assert load_into(memory, snapshot, source="memoose")["entities"] == len(snapshot["entities"])


def test_a_malformed_snapshot_is_refused_before_anything_is_written(tmp_path: Path):
    BUILDERS["memware"](tmp_path / "source.db")
    snapshot = read_snapshot("memware", tmp_path / "source.db")
    broken = json.loads(json.dumps(snapshot))
    next(f for f in broken["facts"] if len(f["history"]) > 1)["history"][0]["to"] = None  # two open versions
    with Memory(tmp_path / "target.sqlite", clock=StepClock()) as memory:
        for bad, message in ((broken, "only its last version"), ({"format": "other"}, "not a memlens-snapshot/1"),
                             (dict(snapshot, facts=None), "'facts'")):
            with pytest.raises(InvalidInput, match=message):
                load_into(memory, bad, source="memware")
        with pytest.raises(InvalidInput, match="must be a word"):
            load_into(memory, snapshot, source="mem ware")
        assert memory.ledger() == []
        assert load_into(memory, snapshot, source="memware")["facts"] > 0


@pytest.mark.parametrize("refs", [[["nested"]], [{"a": 1}], ["\ud800"], "not a list", [""]])
def test_a_ledger_row_naming_something_by_an_unusable_id_is_refused_in_one_line(tmp_path: Path, refs):
    BUILDERS["memware"](tmp_path / "source.db")
    snapshot = read_snapshot("memware", tmp_path / "source.db")
    broken = json.loads(json.dumps(snapshot))
    broken["ledger"][-1]["refs"] = refs
    with Memory(tmp_path / "target.sqlite", clock=StepClock()) as memory:
        with pytest.raises(InvalidInput, match=f"ledger row {len(broken['ledger'])}: its 'refs' is .*, not a list of ids"):
            load_into(memory, broken, source="memware")
        assert memory.ledger() == []
        assert load_into(memory, snapshot, source="memware")["facts"] > 0
