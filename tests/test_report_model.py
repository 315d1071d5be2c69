"""The pieces the page is built from: colours, evidence links, layout, timelines, page data."""

from __future__ import annotations


from viewer_fixtures import large_snapshot, project_ids, project_snapshot

from memlens.viewer.model.evidence import is_web_link
from memlens.viewer.model.layout import compute_layout
from memlens.viewer.model.link_graph import link_graph
from memlens.viewer.model.snapshot_index import SnapshotIndex
from memlens.viewer.model.timeline import TimelineBuilder, entity_timelines, functional_timelines
from memlens.viewer.report.codec import (DRAW_LIMIT, FACT_COLUMNS, FACTS_BLOCK, LEDGER_BLOCK, LEDGER_COLUMNS, MAIN_BLOCK,
                                         TEXT_COLUMNS, TEXTS_BLOCK, page_data)


def test_only_http_and_https_evidence_is_a_link():
    assert is_web_link("https://github.com/acme/payments/pull/42")
    assert is_web_link("http://wiki.acme.internal/auth")
    for text in ("javascript:alert(1)", "JaVaScRiPt:alert(1)", " https://x.test", "data:text/html,x",
                 "repo://src/auth.py#L10", "user said 2026-09-18", "https://", "https://a b.test",
                 "https:/x.test", "vbscript:x", ""):
        assert not is_web_link(text), text


def test_layout_is_deterministic_and_places_every_live_entity():
    snapshot = project_snapshot()
    first = compute_layout(link_graph(snapshot))
    second = compute_layout(link_graph(snapshot))
    assert first.positions == second.positions
    live = {e["id"] for e in snapshot["entities"] if e["merged_into"] is None}
    assert set(first.positions) == live
    assert len({first.positions[n] for n in live}) == len(live)  # nobody sits on anybody


def test_a_large_layout_places_every_entity_and_the_overview_is_bounded():
    # its speed is measured by benchmarks/bench_view.py, not timed here (a loaded machine flakes)
    snapshot = large_snapshot(entity_count=3000)
    layout = compute_layout(link_graph(snapshot))
    assert len(layout.positions) == 3000
    data = page_data(snapshot, layout, show_superseded=False)[MAIN_BLOCK]
    assert len(data["overview"]) == DRAW_LIMIT
    degrees = [data["entities"][i][data["columns"]["entities"].index("degree")] for i in data["overview"]]
    assert degrees == sorted(degrees, reverse=True)


def test_late_arriving_value_is_drawn_in_the_past_but_marked_when_it_arrived():
    ids = project_ids()
    timelines, omitted = functional_timelines(TimelineBuilder(SnapshotIndex(project_snapshot())))
    assert omitted == 0
    [works_at] = [t for t in timelines if t.anchor == f"timeline-key-{ids.alice}-works_at"]
    rows = {row.fact_id: row for row in works_at.rows}
    initech, globex, acme = rows[ids.alice_at_initech], rows[ids.alice_at_globex], rows[ids.alice_at_acme]
    assert [r.fact_id for r in works_at.rows] == [ids.alice_at_initech, ids.alice_at_globex, ids.alice_at_acme]
    assert initech.bar.x < globex.bar.x < acme.bar.x
    assert acme.bar.open_end and not initech.bar.open_end
    assert initech.status == "superseded" and acme.status == "current"
    asserted_at = {r.fact_id: [m.x for m in r.markers if m.kind == "asserted"][0] for r in works_at.rows}
    assert asserted_at[ids.alice_at_initech] >= asserted_at[ids.alice_at_acme]  # arrived last (minutes apart)
    assert initech.bar.x + initech.bar.width < asserted_at[ids.alice_at_initech]
    assert {m.kind for m in globex.markers} >= {"asserted", "contested", "superseded", "reasserted"}


def test_forgotten_fact_keeps_its_markers_but_has_no_bar_or_text():
    ids = project_ids()
    snapshot = project_snapshot()
    timelines, _ = entity_timelines(TimelineBuilder(SnapshotIndex(snapshot)), compute_layout(link_graph(snapshot)).ranking)
    rows = {row.fact_id: row for t in timelines for row in t.rows}
    assert rows[ids.alice_at_acme].bar is not None
    tombstone = rows[ids.forgotten_fact]
    assert tombstone.bar is None and tombstone.label == "forgotten fact"
    assert [m.kind for m in tombstone.markers] == ["asserted", "forgotten"]


def test_page_data_handles_tombstones_and_links_by_index():
    ids = project_ids()
    snapshot = project_snapshot()
    blocks = page_data(snapshot, compute_layout(link_graph(snapshot)), show_superseded=False)
    data = blocks[MAIN_BLOCK]
    columns = {name: blocks[FACTS_BLOCK][name] for name in FACT_COLUMNS}
    columns.update({name: blocks[TEXTS_BLOCK][name] for name in TEXT_COLUMNS})
    assert set(FACT_COLUMNS) < set(blocks[FACTS_BLOCK]) and set(LEDGER_COLUMNS) < set(blocks[LEDGER_BLOCK])
    assert not set(TEXT_COLUMNS) & set(blocks[FACTS_BLOCK])  # the texts are read after the first draw
    assert {len(values) for values in columns.values()} == {len(snapshot["facts"])}  # one entry per fact
    fact_ids = [f["id"] for f in snapshot["facts"]]  # the order of the snapshot's facts (the ids are packed)
    facts = {fact_id: {name: values[i] for name, values in columns.items()} for i, fact_id in enumerate(fact_ids)}
    tombstone = facts[ids.forgotten_fact]
    assert tombstone["relation"] == -1 and tombstone["object"] == -1 and tombstone["description"] is None
    assert tombstone["status"] == "forgotten"
    acme = facts[ids.alice_at_acme]
    assert "https://acme.example/team/alice" in acme["evidence"]
    globex = facts[ids.alice_at_globex]
    assert fact_ids[globex["supersededBy"]] == ids.alice_at_acme
    assert [h[2] for h in globex["history"]] == ["current", "superseded"]
    assert all(0 <= t < len(data["times"]) for h in globex["history"] for t in h[:2] if t != -1)
    assert data["times"] == sorted(data["times"])
    current = facts[ids.payments_needs_ledger]
    assert current["history"] is None  # one open version equal to the fact: left for the page to rebuild
