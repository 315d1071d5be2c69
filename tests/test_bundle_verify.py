"""`memlens verify`: a bundle as memlens wrote it passes; one changed character is found and named."""
from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from import_fixtures import build_memoose
from memlens.store import demo
from memlens.store.errors import SnapshotAltered
from memlens.store.importers import read_snapshot
from memlens.store.memory import Memory
from memlens.store.snapshot.seal import check_seal, sealed


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    demo.build(path).close()
    return path


def export(cli, store: Path, fmt: str, out: Path) -> Path:
    result = cli("export", "--db", str(store), "--format", fmt, "-o", str(out))
    assert result.exit_code == 0, result.output
    return out


def flip(text: str, needle: str) -> str:
    """`text` with the last character of the first `needle` in it changed."""
    assert needle in text
    changed = needle[:-1] + ("X" if needle[-1] != "X" else "Y")
    return text.replace(needle, changed, 1)


def described_fact(snapshot: dict) -> dict:
    return next(f for f in snapshot["facts"] if f["description"] and len(f["description"]) > 20)


def test_an_untouched_snapshot_site_and_report_pass(cli, demo_store, tmp_path):
    for bundle in (export(cli, demo_store, "json", tmp_path / "s.json"), export(cli, demo_store, "site", tmp_path / "site"),
                   export(cli, demo_store, "html", tmp_path / "r.html")):
        result = cli("verify", str(bundle))
        assert result.exit_code == 0, result.output
        assert result.output.startswith(f"ok: {bundle}: 51 entities (1 more merged into them), 93 facts, 167 ledger rows")
    checked = json.loads(cli("verify", str(tmp_path / "site"), "--json").output)
    assert checked["ok"] and checked["hash_of"] == "ledger" and checked["files"] > 60


def test_one_character_of_a_fact_in_a_snapshot_json_is_named_by_the_facts_id(cli, demo_store, tmp_path):
    path = export(cli, demo_store, "json", tmp_path / "s.json")
    fact = described_fact(json.loads(path.read_text()))
    path.write_text(flip(path.read_text(), json.dumps(fact["description"])[1:-1]))
    result = cli("verify", str(path))
    assert result.exit_code == 1
    assert result.output == f"Error: {path}: fact {fact['id']!r} ({fact['relation']}) differs from its seal\n"


def test_one_character_of_a_fact_in_a_sites_snapshot_json_is_named(cli, demo_store, tmp_path):
    site = export(cli, demo_store, "site", tmp_path / "site")
    assert cli("verify", str(site)).exit_code == 0
    snapshot_file = site / "snapshot.json"
    fact = described_fact(json.loads(snapshot_file.read_text()))
    snapshot_file.write_text(flip(snapshot_file.read_text(), json.dumps(fact["description"], ensure_ascii=False)[1:-1]))
    result = cli("verify", str(site))
    assert result.exit_code == 1
    assert f"{snapshot_file}: fact {fact['id']!r}" in result.output and len(result.output.splitlines()) == 1


def test_one_character_of_a_fact_in_a_site_page_is_named_by_the_page(cli, demo_store, tmp_path):
    site = export(cli, demo_store, "site", tmp_path / "site")
    assert cli("verify", str(site)).exit_code == 0
    fact = described_fact(json.loads((site / "snapshot.json").read_text()))
    page = next(p for p in sorted((site / "entities").glob("*.html")) if fact["description"] in p.read_text())
    page.write_text(flip(page.read_text(), fact["description"]))
    manifest = json.loads((site / "manifest.json").read_text())   # and the manifest updated to match
    manifest["files"][page.relative_to(site).as_posix()] = "sha256:" + hashlib.sha256(page.read_bytes()).hexdigest()
    (site / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    result = cli("verify", str(site))
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: {page} differs from what memlens writes from the site's own data at line ")
    assert f"article#fact-{fact['id']}" in result.output and len(result.output.splitlines()) == 1


def test_a_page_added_to_a_site_or_taken_from_it_is_named(cli, demo_store, tmp_path):
    site = export(cli, demo_store, "site", tmp_path / "site")
    (site / "entities" / "extra.html").write_text("<p>hello</p>")
    assert cli("verify", str(site)).output == (f"Error: {site / 'entities' / 'extra.html'} is no file memlens writes "
                                               "from the site's data, in a folder of memlens's own pages\n")
    (site / "entities" / "extra.html").unlink()
    (site / "CNAME").write_text("memory.example.org\n")   # beside the site, not in its folders: named, not checked
    verified = cli("verify", str(site))
    assert verified.exit_code == 0 and "note: the folder also holds what is not the site's, not checked: CNAME" \
        in verified.output
    (site / "contested.html").unlink()
    assert cli("verify", str(site)).output == f"Error: {site}: contested.html is missing\n"


def test_a_changed_ledger_row_is_named_by_its_seq(cli, demo_store, tmp_path):
    path = export(cli, demo_store, "json", tmp_path / "s.json")
    snapshot = json.loads(path.read_text())
    snapshot["ledger"][41]["actor"] = "cli:mallory"
    path.write_text(json.dumps(snapshot))
    result = cli("verify", str(path))
    assert result.exit_code == 1
    seq, row = snapshot["ledger"][41]["seq"], snapshot["ledger"][41]
    assert result.output == f"Error: {path}: ledger row seq {seq} ({row['action']} {row['kind']}) breaks the hash chain\n"


def test_a_hash_or_a_dropped_fact_is_caught_too(demo_store):
    with Memory(demo_store, readonly=True) as memory:
        snapshot = sealed(memory.snapshot())
    assert check_seal(snapshot, "s")["facts"] == 93
    with pytest.raises(SnapshotAltered, match="the snapshot's field 'hash' differs"):
        check_seal(dict(snapshot, hash="sha256:" + "0" * 64), "s")
    with pytest.raises(SnapshotAltered, match="92 facts, its seal has 93"):
        check_seal(dict(snapshot, facts=snapshot["facts"][:-1]), "s")
    resealed = sealed(dict(snapshot, hash="sha256:" + "0" * 64))  # a seal made over a false hash
    with pytest.raises(SnapshotAltered, match="hash is not the hash of its content"):
        check_seal(resealed, "s")


def test_a_record_the_fast_encoder_refuses_is_sealed_and_checked_all_the_same(demo_store):
    with Memory(demo_store, readonly=True) as memory:
        snapshot = memory.snapshot()
    odd = dict(snapshot["entities"][0], description="lone \ud800 surrogate", size=2**70)
    snapshot = sealed(dict(snapshot, entities=[odd, *snapshot["entities"][1:]]))
    checked = check_seal(snapshot, "s")
    assert checked["entities"] + checked["merged"] == len(snapshot["entities"])
    changed = dict(odd, size=2**70 + 1)
    with pytest.raises(SnapshotAltered, match="differs from its seal"):
        check_seal(dict(snapshot, entities=[changed, *snapshot["entities"][1:]]), "s")


def test_another_tools_snapshot_is_sealed_by_its_content_hash(tmp_path):
    build_memoose(tmp_path / "memoose.db")
    snapshot = sealed(read_snapshot("memoose", tmp_path / "memoose.db"))
    assert snapshot["seal"]["hash_of"] == "content"
    assert check_seal(snapshot, "m")["facts"] == len(snapshot["facts"]) > 0
    snapshot["ledger"][0]["payload"]["note"] = "added"
    with pytest.raises(SnapshotAltered, match="ledger row seq 1 .* breaks the hash chain"):
        check_seal(snapshot, "m")


def test_what_cannot_be_verified_says_why_in_one_line(cli, demo_store, tmp_path):
    path = export(cli, demo_store, "json", tmp_path / "s.json")
    assert cli("verify", str(path)).exit_code == 0
    snapshot = json.loads(path.read_text())
    del snapshot["seal"]
    (tmp_path / "old.json").write_text(json.dumps(snapshot))
    (tmp_path / "notes.txt").write_text("hello")
    for target, expected in (
        (tmp_path / "old.json", "carries no seal"),
        (tmp_path / "notes.txt", "is not a memlens report, site or snapshot"),
        (tmp_path / "missing.html", "no such report, site or snapshot"),
        (tmp_path, "is not a memlens site: it has no snapshot.json"),
        (demo_store, "is a store, not a bundle"),
    ):
        result = cli("verify", str(target))
        assert result.exit_code == 1 and expected in result.output, result.output
        assert result.output.startswith("Error: ") and len(result.output.splitlines()) == 1


def test_a_store_seals_with_the_chain_it_keeps_which_is_the_chain_its_rows_make(demo_store, tmp_path):
    with Memory(demo_store, readonly=True) as memory:
        kept = memory.sealed_snapshot()
        recomputed = sealed(memory.snapshot())
    assert kept == recomputed and kept["seal"]["hash_of"] == "ledger"
    assert check_seal(kept, "s")["ledger"] == len(kept["ledger"]) > 100
    # a store whose chain column was edited behind memlens's back: its bundle fails verify, at that row
    edited = tmp_path / "edited.sqlite"
    edited.write_bytes(demo_store.read_bytes())
    with sqlite3.connect(edited) as conn:
        for (trigger,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'ledger'").fetchall():
            conn.execute(f"DROP TRIGGER {trigger}")       # what keeps the ledger insert-only, for memlens
        seq = conn.execute("SELECT seq FROM ledger ORDER BY seq LIMIT 1 OFFSET 40").fetchone()[0]
        conn.execute("UPDATE ledger SET chain = ? WHERE seq = ?", ("0" * 64, seq))
    with Memory(edited, readonly=True) as memory:
        wrong = memory.sealed_snapshot()
    with pytest.raises(SnapshotAltered, match=f"ledger row seq {seq} .* breaks the hash chain"):
        check_seal(wrong, "s")
