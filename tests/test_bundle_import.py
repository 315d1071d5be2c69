"""`memlens import --from memlens`: a teammate's bundle becomes a new dataset holding the same memory."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from memlens.store import datasets, demo
from memlens.store.memory import Memory

SAME = ("entities", "facts", "contradictions", "dismissals")


@pytest.fixture
def demo_site(cli, tmp_path) -> Path:
    demo.build(tmp_path / "demo.sqlite").close()
    assert cli("export", "--db", str(tmp_path / "demo.sqlite"), "--format", "site", "-o", str(tmp_path / "site")).exit_code == 0
    return tmp_path / "site"


def fingerprint(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("fmt", ["site", "json", "html"])
def test_export_import_export_gives_the_same_entities_and_facts(cli, tmp_path, demo_site, fmt):
    bundle = demo_site if fmt == "site" else tmp_path / f"s.{fmt}"
    if fmt != "site":
        assert cli("export", "--db", str(tmp_path / "demo.sqlite"), "--format", fmt, "-o", str(bundle)).exit_code == 0
    before = fingerprint(demo_site)
    result = cli("import", "--from", "memlens", str(bundle), "-d", "teammate")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("imported memlens into teammate: 51 entities (1 more merged into them), 92 facts and 1 forgotten")
    assert cli("export", "-d", "teammate", "--format", "json", "-o", str(tmp_path / "again.json")).exit_code == 0
    original = json.loads((demo_site / "snapshot.json").read_text())
    again = json.loads((tmp_path / "again.json").read_text())
    for part in SAME:
        assert again[part] == original[part], part
    # what sessions were told travels with the memory
    assert again["briefs"] == original["briefs"] and len(original["briefs"]) == 2
    forgotten = [f["id"] for f in original["facts"] if f["status"] == "forgotten"]
    assert forgotten and [f["id"] for f in again["facts"] if f["status"] == "forgotten"] == forgotten
    assert fingerprint(demo_site) == before
    assert cli("verify", str(tmp_path / "again.json")).exit_code == 0


def test_a_forgotten_fact_stays_forgotten_in_the_copy(cli, demo_site):
    assert cli("import", "--from", "memlens", str(demo_site), "-d", "teammate").exit_code == 0
    snapshot = json.loads((demo_site / "snapshot.json").read_text())
    tombstone = next(f for f in snapshot["facts"] if f["status"] == "forgotten")
    with Memory(datasets.path_for("teammate"), readonly=True) as memory:
        facts = {f["id"]: f for f in memory.facts(include_all=True)}
    assert tombstone["id"] not in facts or facts[tombstone["id"]]["status"] == "forgotten"
    assert len([f for f in facts.values() if f["status"] != "forgotten"]) == 92


def test_an_altered_bundle_is_refused_and_no_dataset_is_made(cli, demo_site):
    snapshot_file = demo_site / "snapshot.json"
    snapshot = json.loads(snapshot_file.read_text())
    fact = next(f for f in snapshot["facts"] if f["description"])
    fact["description"] += "!"
    snapshot_file.write_text(json.dumps(snapshot))
    result = cli("import", "--from", "memlens", str(demo_site), "-d", "teammate")
    assert result.exit_code == 1 and f"fact {fact['id']!r}" in result.output
    assert not datasets.path_for("teammate").exists()
    del snapshot["seal"]  # a bundle without a seal: taken only when asked, unchecked (see below)
    snapshot_file.write_text(json.dumps(snapshot))
    assert cli("import", "--from", "memlens", str(demo_site), "-d", "teammate", "--unsealed").exit_code == 0


def test_a_bundle_without_a_seal_is_refused_unless_unsealed_is_given(cli, demo_site):
    snapshot_file = demo_site / "snapshot.json"
    assert cli("import", "--from", "memlens", str(demo_site), "-d", "sealed").exit_code == 0
    snapshot = json.loads(snapshot_file.read_text())
    del snapshot["seal"]
    snapshot_file.write_text(json.dumps(snapshot))
    refused = cli("import", "--from", "memlens", str(demo_site), "-d", "teammate")
    assert refused.exit_code == 1 and len(refused.output.splitlines()) == 1
    assert refused.output.startswith(f"Error: {demo_site} carries no seal") and "--unsealed" in refused.output
    assert not datasets.path_for("teammate").exists()
    taken = cli("import", "--from", "memlens", str(demo_site), "-d", "teammate", "--unsealed")
    assert taken.exit_code == 0, taken.output
    assert "carries no seal: its data is imported as it is, unchecked" in taken.stderr
    with Memory(datasets.path_for("teammate"), readonly=True) as unsealed, \
            Memory(datasets.path_for("sealed"), readonly=True) as sealed:
        assert unsealed.stats() == sealed.stats()
    assert cli("import", "--from", "memoose", "--unsealed", "-d", "other").exit_code == 2


def test_what_is_not_a_bundle_is_refused_in_one_line(cli, tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    for args, expected in (
        ((str(tmp_path / "notes.txt"),), "is not a memlens report, site or snapshot"),
        ((str(tmp_path / "missing"),), "no such report, site or snapshot"),
    ):
        result = cli("import", "--from", "memlens", *args, "-d", "teammate")
        assert result.exit_code == 1 and expected in result.output, result.output
        assert len(result.output.splitlines()) == 1
    assert cli("import", "--from", "memlens", "-d", "teammate").exit_code == 2
    assert not datasets.path_for("teammate").exists()
