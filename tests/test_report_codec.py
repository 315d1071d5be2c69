"""The page's data blocks carry the whole snapshot: decoding what was encoded gives it back exactly."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from import_fixtures import build_memoose, build_memware, build_mnemo
from viewer_fixtures import (HOSTILE_PAYLOADS, SnapshotBuilder, changed_project, hostile_snapshot, large_snapshot,
                             project_snapshot)

from memlens.store import demo, importers
from memlens.store.maintenance import content_of
from memlens.store.snapshot.seal import sealed
from memlens.store.snapshot.diff import digest
from memlens.viewer.model.layout import compute_layout
from memlens.viewer.model.link_graph import link_graph
from memlens.viewer.reading import BundleUnreadable, read_bundle, read_digest
from memlens.viewer.report.codec import (PAGE_DATA_VERSION, Block, _compressed, decode, decode_digest, page_blocks,
                                         parse_blocks, read_report)
from memlens.viewer.report.page import render_report
from memlens.viewer.report.write import write_report
from memlens.viewer.site.build import write_site

STATIC = Path(__file__).resolve().parent.parent / "static"


def round_trip(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The snapshot as the codec writes it into a page and reads it back (JSON, gzip and base64 included)."""
    blocks = page_blocks(snapshot, compute_layout(link_graph(snapshot)), show_superseded=False)
    page = "\n".join(block.__html__() for block in blocks).encode()
    return decode(parse_blocks(page, "page"))


def assert_exact(decoded: dict[str, Any], snapshot: dict[str, Any]) -> None:
    """Equal, and with the same types: `==` alone takes 1 for True and 1.0 for 1."""
    assert decoded == snapshot
    assert json.dumps(decoded, sort_keys=True) == json.dumps(snapshot, sort_keys=True)
    assert list(decoded) == list(snapshot)


# -- random snapshots ----------------------------------------------------------------------------------

TEXT = st.text(max_size=12) | st.sampled_from(HOSTILE_PAYLOADS)
NAME = st.text(min_size=1, max_size=10).filter(lambda s: s.strip()) | st.sampled_from(HOSTILE_PAYLOADS)
ACTOR = st.sampled_from(["cli:alice", "agent:claude", "hook", HOSTILE_PAYLOADS[0]])
RELATION = st.sampled_from(["uses", "owned_by", "works_at", "calls", HOSTILE_PAYLOADS[1]])
DATE = st.none() | st.dates().map(lambda d: d.isoformat())


def _live_facts(b: SnapshotBuilder) -> list[str]:
    return sorted(fid for fid, f in b.facts.items() if f["status"] != "forgotten")


def _operate(data: st.DataObject, b: SnapshotBuilder) -> None:
    """One write, of any kind the store has, on what exists so far."""
    entities, facts = sorted(b.entities), _live_facts(b)
    live = sorted(eid for eid in entities if b.entities[eid]["merged_into"] is None)
    kinds = ["entity", "relation", "type"] + (["fact"] if live else [])
    if facts:
        kinds += ["retract", "reassert", "forget"]
    if len(facts) > 1:
        kinds += ["supersede", "late", "contest"]
    if len(live) > 1:
        kinds.append("merge")
    kinds += ["dismiss", "worklist"]
    kind = data.draw(st.sampled_from(kinds))
    pick = lambda items: data.draw(st.sampled_from(items))  # noqa: E731
    if kind == "entity":
        b.entity(data.draw(NAME), pick(b.types), data.draw(TEXT), actor=data.draw(ACTOR))
    elif kind == "relation":
        b.declare_relation(data.draw(RELATION), functional=data.draw(st.booleans()), actor=data.draw(ACTOR))
    elif kind == "type":
        b.add_type(data.draw(NAME))
    elif kind == "fact":
        b.assert_fact(pick(live), data.draw(RELATION), pick(live), description=data.draw(TEXT),
                      evidence=data.draw(st.lists(TEXT, max_size=3)), actor=data.draw(ACTOR),
                      valid_from=data.draw(DATE), valid_to=data.draw(DATE))
    elif kind == "retract":
        b.retract(pick(facts), data.draw(TEXT))
    elif kind == "reassert":
        b.reassert(pick(facts))
    elif kind == "forget":
        b.forget(pick(facts))
    elif kind in ("supersede", "late", "contest"):
        old, new = data.draw(st.lists(st.sampled_from(facts), min_size=2, max_size=2, unique=True))
        if kind == "supersede":
            b.supersede(old, new, data.draw(TEXT))
        elif kind == "late":
            b.file_late_value(old, new, data.draw(TEXT))
        else:
            b.contest(old, new, data.draw(TEXT), data.draw(st.floats(0, 1)))
    elif kind == "merge":
        source, target = data.draw(st.lists(st.sampled_from(live), min_size=2, max_size=2, unique=True))
        b.merge(source, target)
    else:
        refs = data.draw(st.lists(st.sampled_from(entities + facts + ["gone-id"]), max_size=3))
        if kind == "dismiss":
            b.dismiss(data.draw(TEXT), data.draw(TEXT), refs, data.draw(TEXT))
        else:
            b.worklist_item(data.draw(TEXT), data.draw(st.sampled_from(["hotspot", "unsupported"])),
                            data.draw(TEXT), refs)


@st.composite
def random_snapshots(draw: st.DrawFn) -> dict[str, Any]:
    b = SnapshotBuilder(dataset=draw(TEXT))
    data = draw(st.data())
    for _ in range(draw(st.integers(0, 40))):
        _operate(data, b)
    return b.build()


def _irregular(data: st.DataObject, snapshot: dict[str, Any]) -> dict[str, Any]:
    """The snapshot with records the columns cannot say: what a hand-made or damaged one may hold."""
    changes = {
        "entities": [lambda r: r.pop("description", None), lambda r: r.update(merged_into="gone-id"),
                     lambda r: r.update(created_at=""), lambda r: r.update(extra=[1, {"x": None}]),
                     lambda r: r.update(id=r["id"].upper()), lambda r: r.update(id="not a uuid")],
        "facts": [lambda r: r.update(subject="gone-id"), lambda r: r.update(superseded_by="gone-id"),
                  lambda r: r.update(contested=1), lambda r: r.update(history=[]),
                  lambda r: r["history"] and r["history"][0].update(note="x"), lambda r: r.update(contradictions=["gone-id"]),
                  lambda r: r.update(evidence=None), lambda r: r.update(reassertions=None),
                  lambda r: r.update(functional=not r["functional"]), lambda r: r.update(recorded_at=""),
                  lambda r: r.pop("reason", None), lambda r: r.update(actor=7),
                  lambda r: r.update(id="fact " + r["id"][:8])],
        "contradictions": [lambda r: r.update(facts=["gone-id", *r["facts"]]), lambda r: r.pop("actor", None)],
        "ledger": [lambda r: r.update(refs=None), lambda r: r.update(refs=[3, "x"]), lambda r: r.update(seq="7"),
                   lambda r: r.update(at=""), lambda r: r.update(payload={"nested": [1, {"a": True}]}),
                   lambda r: r.update(kind=None), lambda r: r.pop("payload", None)],
        "dismissals": [lambda r: r.pop("content", None), lambda r: r.update(at=None)],
        "maintenance": [lambda r: r.update(refs=None), lambda r: r.pop("summary", None),
                        lambda r: r.update(content=None), lambda r: r.update(content=7),
                        lambda r: r.update(content="sha256:" + "0" * 64)],
    }
    snapshot = copy.deepcopy(snapshot)
    for part, edits in changes.items():
        records = snapshot[part]
        for _ in range(data.draw(st.integers(0, 3)) if records else 0):
            data.draw(st.sampled_from(edits))(records[data.draw(st.integers(0, len(records) - 1))])
    if data.draw(st.booleans()):
        snapshot["extra"] = {"note": data.draw(TEXT)}
    if data.draw(st.booleans()):
        del snapshot["maintenance"]
    return snapshot


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(random_snapshots())
def test_any_snapshot_a_builder_makes_is_decoded_exactly(snapshot):
    assert_exact(round_trip(snapshot), snapshot)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(random_snapshots(), st.data())
def test_records_the_columns_cannot_say_are_kept_whole(snapshot, data):
    irregular = _irregular(data, snapshot)
    assert_exact(round_trip(irregular), irregular)


def test_the_irregular_records_are_kept_whole_and_the_regular_ones_are_not():
    snapshot = project_snapshot()
    blocks = page_blocks(snapshot, compute_layout(link_graph(snapshot)), show_superseded=False)
    regular = parse_blocks("".join(b.__html__() for b in blocks).encode(), "page")
    assert regular["memlens-facts"]["raw"] == [] and regular["memlens-ledger"]["raw"] == []
    assert all(raw == [] for raw in regular["memlens-data"]["raw"].values())
    snapshot["facts"][3]["subject"] = "gone-id"
    snapshot["ledger"][5]["refs"] = None
    blocks = page_blocks(snapshot, compute_layout(link_graph(snapshot)), show_superseded=False)
    irregular = parse_blocks("".join(b.__html__() for b in blocks).encode(), "page")
    assert irregular["memlens-facts"]["raw"] == [[3, snapshot["facts"][3]]]
    assert irregular["memlens-ledger"]["raw"] == [[5, snapshot["ledger"][5]]]
    assert_exact(decode(irregular), snapshot)


def test_a_worklist_rows_content_is_left_out_where_it_is_derived_and_read_back_in_either_version():
    snapshot = project_snapshot()
    rows = snapshot["maintenance"]
    assert rows and all(row["content"] == content_of(row["refs"]) for row in rows)
    rows[0]["content"] = "sha256:" + "0" * 64           # not what maintenance would make: kept as it is
    blocks = page_blocks(snapshot, compute_layout(link_graph(snapshot)), show_superseded=False)
    parsed = parse_blocks("".join(b.__html__() for b in blocks).encode(), "page")
    contents = parsed["memlens-maintenance"]["worklist"]["content"]
    assert contents == [rows[0]["content"]] + [None] * (len(rows) - 1)
    assert not set(parsed["memlens-data"]) & {"worklist", "dismissals", "maintenance"}
    assert_exact(decode(parsed), snapshot)
    # a memlens-page/1 report kept the lists in its main block and spelled every content out
    older = copy.deepcopy(parsed)
    older["memlens-data"].update((name, older["memlens-maintenance"][name])
                                 for name in ("worklist", "dismissals", "maintenance"))
    del older["memlens-maintenance"]
    for block in older.values():
        block["version"] = "memlens-page/1"
    older["memlens-data"]["worklist"]["content"] = [row["content"] for row in rows]
    assert_exact(decode(older), snapshot)
    older["memlens-data"]["worklist"]["content"][1] = None           # and a None meant None
    assert decode(older)["maintenance"][1]["content"] is None
    page = "".join(Block(name, _compressed(json.dumps(block).encode())).__html__() for name, block in older.items())
    assert_exact(decode(parse_blocks(page.encode(), "old.html")), snapshot | {"maintenance": decode(older)["maintenance"]})


def test_a_seal_has_a_block_of_its_own_which_the_page_never_parses_and_reading_puts_back(demo_snapshot, tmp_path):
    snapshot = sealed(demo_snapshot)
    report = write_report(snapshot, tmp_path / "report.html")
    blocks = parse_blocks(report.read_bytes(), "report.html")
    assert "seal" not in blocks["memlens-data"]["meta"] and blocks["memlens-seal"]["seal"] == snapshot["seal"]
    assert_exact(read_report(report), snapshot)
    assert b'id="memlens-seal"' not in write_report(demo_snapshot, tmp_path / "unsealed.html").read_bytes()
    # a memlens-page/1 page kept the seal in its main block's meta
    older = {name: dict(block, version="memlens-page/1") for name, block in blocks.items() if name != "memlens-seal"}
    older["memlens-data"]["meta"] = {**older["memlens-data"]["meta"], "seal": snapshot["seal"]}
    page = "".join(Block(name, _compressed(json.dumps(block).encode())).__html__() for name, block in older.items())
    assert decode(parse_blocks(page.encode(), "old.html"))["seal"] == snapshot["seal"]


# -- real snapshots --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def demo_snapshot(tmp_path_factory):
    with demo.build(tmp_path_factory.mktemp("demo") / "demo.sqlite") as memory:
        return memory.snapshot()


def test_a_store_snapshot_is_read_back_from_its_report_and_its_site(demo_snapshot, tmp_path):
    report = write_report(demo_snapshot, tmp_path / "report.html")
    assert_exact(read_report(report), demo_snapshot)
    assert_exact(read_bundle(report), demo_snapshot)
    site = write_site(demo_snapshot, tmp_path / "site")
    assert read_bundle(site) == demo_snapshot
    assert read_digest(report, "html") == digest(demo_snapshot)


def test_a_store_snapshot_with_every_kind_of_write_is_decoded_exactly(memory):
    from memlens.store.facts import FactInput

    def said(subject: str, relation: str, obj: str, **details: Any) -> str:
        [outcome] = memory.remember([FactInput(subject, relation, obj, "Person", "Library", **details)])
        return outcome.fact_id

    memory.declare_functional("works_at")
    first = said("alice", "works_at", "acme", valid_from="2024-01-01", evidence=("user said",),
                 description=HOSTILE_PAYLOADS[0])
    said("alice", "works_at", "globex", valid_from="2025-01-01")  # supersedes the first
    uses, also = said("alice", "uses", "vim"), said("bob", "uses", "vim")
    memory.contest(uses, also, "who really uses vim", 0.5)
    memory.retract(also, "bob never did")
    said("alice", "uses", "vim")  # a reassertion
    said("alice", "uses", "emacs")
    said("alice", "uses", "nano")  # a hotspot for the worklist
    memory.dismiss(memory.worklist()[0].key, "fine as it is")
    memory.merge("bob", "carol") if False else memory.merge("vim", "emacs")
    memory.forget_fact(first)
    snapshot = memory.snapshot()
    assert {f["status"] for f in snapshot["facts"]} >= {"current", "superseded", "retracted", "forgotten"}
    assert snapshot["dismissals"] and snapshot["contradictions"] and any(e["merged_into"] for e in snapshot["entities"])
    assert_exact(round_trip(snapshot), snapshot)


@pytest.mark.parametrize("tool, build", [("memoose", build_memoose), ("memware", build_memware), ("mnemo", build_mnemo)])
def test_an_importers_snapshot_is_decoded_exactly(tool, build, tmp_path):
    path = tmp_path / f"{tool}.db"
    build(path)
    snapshot = importers.read_snapshot(tool, path)
    assert snapshot["facts"] and snapshot["ledger"]
    assert_exact(round_trip(snapshot), snapshot)


def test_fixture_snapshots_are_decoded_exactly():
    for snapshot in (project_snapshot(), hostile_snapshot(), changed_project().old, large_snapshot(800)):
        assert_exact(round_trip(snapshot), snapshot)


def test_the_digest_read_from_the_blocks_is_the_snapshots(demo_snapshot):
    blocks = page_blocks(demo_snapshot, compute_layout(link_graph(demo_snapshot)), show_superseded=False)
    read = parse_blocks("".join(b.__html__() for b in blocks).encode(), "page")
    assert decode_digest(read["memlens-data"], read["memlens-facts"]) == digest(demo_snapshot)


# -- bytes ---------------------------------------------------------------------------------------------

def test_the_same_snapshot_gives_the_same_bytes_in_any_process(tmp_path):
    """Sets of strings iterate in another order in every process (hash randomisation): nothing the
    page holds may depend on it."""
    script = ("import sys; sys.path.insert(0, sys.argv[1]); from viewer_fixtures import hostile_snapshot;"
              "from memlens.viewer.report.page import render_report;"
              "sys.stdout.buffer.write(render_report(hostile_snapshot()).encode())")
    pages = [subprocess.run([sys.executable, "-c", script, str(Path(__file__).parent)], capture_output=True, check=True,
                            env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")]
    assert pages[0] == pages[1] == render_report(hostile_snapshot()).encode()


def test_the_page_decoder_checks_the_version_the_python_encoder_writes():
    script = (STATIC / "memory.js").read_text(encoding="utf-8")
    assert f'const PAGE_DATA_VERSION = "{PAGE_DATA_VERSION}";' in script
    assert "block.version !== PAGE_DATA_VERSION" in script


# -- what cannot be read is said in one line --------------------------------------------------------------

def test_a_bundle_that_cannot_be_read_is_named_with_what_is_wrong(tmp_path):
    report = write_report(project_snapshot(), tmp_path / "report.html")
    assert read_bundle(report) == project_snapshot()  # the positive case
    page = report.read_text(encoding="utf-8")
    facts_at = page.index('id="memlens-facts" data-encoding="base64">') + 60
    cases = {
        "no such report, site or snapshot": tmp_path / "missing.html",
        "is not a memlens report, site or snapshot": tmp_path / "other.html",
        "its memlens-facts block is damaged": tmp_path / "damaged.html",
        "has no snapshot.json": tmp_path / "folder",
        "snapshot.json: not JSON": tmp_path / "broken-site",
    }
    (tmp_path / "other.html").write_text("<!DOCTYPE html><p>hello</p>", encoding="utf-8")
    flipped = "A" if page[facts_at] != "A" else "B"
    (tmp_path / "damaged.html").write_text(page[:facts_at] + flipped + page[facts_at + 1:], encoding="utf-8")
    (tmp_path / "folder").mkdir()
    (tmp_path / "broken-site").mkdir()
    (tmp_path / "broken-site" / "snapshot.json").write_text("{", encoding="utf-8")
    for why, path in cases.items():
        with pytest.raises(BundleUnreadable, match=why) as failure:
            read_bundle(path)
        message = str(failure.value)
        assert str(path) in message and "\n" not in message, message


def test_regeneration_over_an_unreadable_report_says_so_and_still_writes_it(cli, tmp_path, home):
    """A report in memlens's own home, which a regeneration may write over whatever it holds (one in
    the working tree that is not as memlens wrote it is refused: tests/test_untrusted_paths.py)."""
    store, report = tmp_path / "m.sqlite", home / "reports" / "memory.html"
    cli("remember", "--db", str(store), "a:Person --knows--> b:Person", "-e", "x")
    cli("bundles", "add", str(report), "--db", str(store))
    assert cli("maintain", "--db", str(store)).exit_code == 0
    page = report.read_text(encoding="utf-8")
    facts_at = page.index('id="memlens-facts" data-encoding="base64">') + 50
    report.write_text(page[:facts_at] + page[facts_at + 8:], encoding="utf-8")  # the facts block damaged
    cli("remember", "--db", str(store), "a --knows--> c:Person", "-e", "y")

    result = json.loads(cli("maintain", "--db", str(store), "--json").stdout)
    [hook] = [h for h in result["hooks"] if h["name"] == "regenerate-bundles"]
    assert hook["ok"] and hook["message"].startswith(f"wrote: {report}")
    assert f"changes since unavailable: {report}: its memlens-facts block is damaged" in hook["message"]
    assert "layout" not in hook["message"] and "colours" not in hook["message"]  # the main block was whole, and was used
    assert read_bundle(report)["stats"]["facts"] == 2  # the new report was written, and reads back

    cli("remember", "--db", str(store), "a --knows--> d:Person", "-e", "z")
    result = json.loads(cli("maintain", "--db", str(store), "--json").stdout)
    [hook] = [h for h in result["hooks"] if h["name"] == "regenerate-bundles"]
    assert hook["message"] == f"wrote: {report} (html)"  # nothing left unsaid once it reads again
    assert "Changes since" in report.read_text(encoding="utf-8")


def test_a_site_whose_graph_page_is_damaged_takes_its_changes_from_snapshot_json(cli, tmp_path, home):
    """A site's digest is read from its graph page's blocks; snapshot.json stands in when they are
    damaged (in memlens's own home, where a regeneration may write over a damaged page)."""
    store, site = tmp_path / "m.sqlite", home / "sites" / "site"
    cli("remember", "--db", str(store), "a:Person --knows--> b:Person", "-e", "x")
    cli("bundles", "add", str(site), "--format", "site", "--db", str(store))
    assert cli("maintain", "--db", str(store)).exit_code == 0
    cli("remember", "--db", str(store), "a --knows--> whole:Person", "-e", "y")
    assert cli("maintain", "--db", str(store)).exit_code == 0
    assert "whole" in (site / "changes.html").read_text(encoding="utf-8")   # read from the whole graph page

    page = (site / "index.html").read_text(encoding="utf-8")
    facts_at = page.index('id="memlens-facts" data-encoding="base64">') + 50
    (site / "index.html").write_text(page[:facts_at] + page[facts_at + 8:], encoding="utf-8")
    cli("remember", "--db", str(store), "a --knows--> newcomer:Person", "-e", "z")
    result = json.loads(cli("maintain", "--db", str(store), "--json").stdout)
    [hook] = [h for h in result["hooks"] if h["name"] == "regenerate-bundles"]
    assert hook["ok"] and hook["message"] == f"wrote: {site} (site)"   # nothing was lost, nothing to say
    changes = (site / "changes.html").read_text(encoding="utf-8")
    assert "newcomer" in changes and "whole" not in changes   # since the last site, from its snapshot.json


def test_a_report_from_an_older_memlens_is_replaced_with_one_note(cli, tmp_path, home):
    """In memlens's own home (`memlens view`'s report); elsewhere a report memlens has no record of
    writing is not replaced by a regeneration (tests/test_untrusted_paths.py)."""
    store = tmp_path / "m.sqlite"
    cli("remember", "--db", str(store), "a:Person --knows--> b:Person", "-e", "x")
    report = Path(cli("view", "--db", str(store), "--no-open").output.strip().splitlines()[-1])
    assert report.is_relative_to(home)
    report.write_text('<!DOCTYPE html><meta name="memlens-snapshot-hash" content="sha256:old">'
                      '<script type="application/json" id="memlens-data">{"meta": {}}</script>', encoding="utf-8")
    result = cli("view", "--db", str(store), "--no-open", "--if-changed")
    assert result.exit_code == 0
    assert (f"changes since, layout and type colours unavailable: {report} was written by an older memlens"
            in result.stderr)
    assert read_bundle(report)["stats"]["facts"] == 1
