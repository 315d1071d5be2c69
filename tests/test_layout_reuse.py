"""Regenerated bundles keep the map: old entities stay where they were, only new ones are placed."""
from __future__ import annotations

import base64
import copy
import gzip
import json
import math
import re

import pytest
from viewer_fixtures import build_project, entity_id

from memlens.viewer.reading import BundleUnreadable, bundle_exists, read_layout
from memlens.viewer.model import layout as layout_module
from memlens.viewer.model.layout import SATELLITE_OFFSET, SATELLITE_SPACING, compute_layout
from memlens.viewer.model.link_graph import link_graph
from memlens.viewer.report.page import render_report
from memlens.viewer.report.write import write_report
from memlens.viewer.site.build import write_site


def _grown_project() -> tuple[dict, dict, str, str]:
    """The project snapshot, and the same with one more fact linking a new entity to an old one."""
    builder, _ = build_project()
    old = copy.deepcopy(builder.build())
    neighbour = entity_id("ledger-service")
    kafka = builder.entity("Kafka", "Library", "Event log the ledger publishes to.")
    builder.assert_fact(neighbour, "uses", kafka, evidence=["repo://ledger/publish.py#L12"])
    return old, builder.build(), kafka, neighbour


@pytest.fixture(scope="module")
def grown():
    return _grown_project()


def _near(new: tuple[float, float], neighbour: tuple[float, float], degree: int) -> bool:
    # as far as the neighbour's last possible satellite, and no farther
    return math.dist(new, neighbour) <= SATELLITE_OFFSET + SATELLITE_SPACING * math.sqrt(degree) + 0.2


def _live_ids(snapshot: dict) -> set[str]:
    return {e["id"] for e in snapshot["entities"] if e.get("merged_into") is None}


def test_a_regenerated_report_keeps_every_old_position_and_places_the_new_entity_beside_its_neighbour(
        grown, tmp_path):
    old, new, added, neighbour = grown
    report = tmp_path / "memory.html"
    write_report(old, report)
    before = read_layout(report, "html")
    assert before is not None and set(before) == _live_ids(old)

    write_report(new, report, previous_layout=before)
    after = read_layout(report, "html")
    assert after is not None and set(after) == _live_ids(new) == set(before) | {added}
    assert {node: after[node] for node in before} == before
    degree = len(link_graph(new).neighbours[neighbour])
    assert _near(after[added], after[neighbour], degree)
    assert after[added] not in [after[n] for n in before]

    # a fresh layout of the new snapshot (no previous) moves old entities: reuse is what kept them
    fresh = compute_layout(link_graph(new)).positions
    assert any(fresh[node] != before[node] for node in before)


def test_a_regenerated_site_writes_layout_json_lists_it_and_keeps_every_old_position(grown, tmp_path):
    old, new, added, neighbour = grown
    site = tmp_path / "site"
    write_site(old, site)
    manifest = json.loads((site / "manifest.json").read_text(encoding="utf-8"))
    assert "layout.json" in manifest["files"]
    text = (site / "layout.json").read_text(encoding="utf-8")
    raw = json.loads(text)
    assert list(raw) == sorted(raw) and set(raw) == _live_ids(old)
    assert all(round(x, 1) == x and round(y, 1) == y for x, y in raw.values())
    before = read_layout(site, "site")
    assert before == {node: tuple(point) for node, point in raw.items()}

    # the graph page's data block carries the same positions as layout.json
    page_positions = read_layout(site / "index.html", "html")
    assert page_positions == before

    write_site(new, site, previous_layout=before)
    after = read_layout(site, "site")
    assert after is not None and set(after) == set(before) | {added}
    assert {node: after[node] for node in before} == before
    assert _near(after[added], after[neighbour], len(link_graph(new).neighbours[neighbour]))
    assert "layout.json" in json.loads((site / "manifest.json").read_text(encoding="utf-8"))["files"]


def test_regenerate_reuses_the_bundles_own_positions(cli, tmp_path):
    store, report, site = tmp_path / "m.sqlite", tmp_path / "r.html", tmp_path / "site"
    cli("remember", "--db", str(store), "a:Person --knows--> b:Person", "-e", "x")
    cli("remember", "--db", str(store), "b --knows--> c:Person", "-e", "x")
    cli("bundles", "add", str(report), "--db", str(store))
    cli("bundles", "add", str(site), "--format", "site", "--db", str(store))
    assert cli("maintain", "--db", str(store)).exit_code == 0
    first = {fmt: read_layout(path, fmt) for fmt, path in (("html", report), ("site", site))}
    assert all(first.values()) and len(first["html"]) == 3 and first["html"] == first["site"]

    cli("remember", "--db", str(store), "c --knows--> newcomer:Person", "-e", "y")
    assert cli("maintain", "--db", str(store)).exit_code == 0
    for fmt, path in (("html", report), ("site", site)):
        after = read_layout(path, fmt)
        assert after is not None and len(after) == 4
        assert {node: after[node] for node in first[fmt]} == first[fmt], fmt


def test_no_force_layout_runs_when_every_node_has_a_previous_position(grown, monkeypatch):
    old, new, added, _ = grown
    graph = link_graph(new)
    full = compute_layout(graph)  # the force layout runs here, unpatched
    assert len(full.positions) == len(graph.names)

    def refuse(*args, **kwargs):
        raise AssertionError("force layout ran although every node had a position")

    monkeypatch.setattr(layout_module, "force_layout", refuse)
    with pytest.raises(AssertionError, match="force layout ran"):
        compute_layout(graph)  # the patch is live: a fresh layout does call it
    reused = compute_layout(graph, previous=dict(full.positions))
    assert reused == full
    # one new entity, everything else known: still no force layout
    partial = {node: point for node, point in full.positions.items() if node != added}
    assert compute_layout(graph, previous=partial).positions.keys() == full.positions.keys()


def test_without_previous_positions_the_layout_and_the_page_are_unchanged(grown):
    _, new, _, _ = grown
    graph = link_graph(new)
    assert compute_layout(graph, previous=None) == compute_layout(graph)
    assert compute_layout(graph, previous={}) == compute_layout(graph)
    assert render_report(new, previous_layout=None) == render_report(new)
    # and previous positions do change the page: the parameter is not ignored
    shifted = {node: (x + 500.0, y) for node, (x, y) in compute_layout(graph).positions.items()}
    assert render_report(new, previous_layout=shifted) != render_report(new)
    assert compute_layout(graph, previous=shifted).positions == shifted


def _with_main_block(page: str, change) -> str:
    """The page with its main data block decoded, changed by `change` and packed again."""
    opening = '<script type="application/gzip" id="memlens-data" data-encoding="base64">'
    start = page.index(opening) + len(opening)
    end = page.index("</script>", start)
    main = json.loads(gzip.decompress(base64.b64decode(page[start:end])))
    change(main)
    return page[:start] + base64.b64encode(gzip.compress(json.dumps(main).encode())).decode() + page[end:]


def test_a_missing_bundle_has_no_layout_and_an_unreadable_one_says_why(grown, tmp_path):
    old, new, _, _ = grown
    report, site = tmp_path / "r.html", tmp_path / "site"
    assert not bundle_exists(report, "html") and not bundle_exists(site, "site")  # a first write: nothing to read
    write_report(old, report)
    write_site(old, site)
    assert read_layout(report, "html") and read_layout(site, "site")  # the positive case

    text = report.read_text(encoding="utf-8")
    rows = text.index("base64", text.index('id="memlens-data"')) + 40
    broken_pages = {
        "its memlens-data block is damaged": text[:rows] + text[rows + 10:],          # ten characters gone
        "has no memlens-data block": text.replace('id="memlens-data"', 'id="something-else"'),
        "has no position": _with_main_block(text, lambda main: main["entities"][0].__setitem__(8, "x")),
        "its memlens-data block is 'memlens-page/0'": _with_main_block(
            text, lambda main: main.__setitem__("version", "memlens-page/0")),
        # memlens 0.1's pages held plain JSON blocks
        "was written by an older memlens": text.replace(
            'type="application/gzip" id="memlens-data" data-encoding="base64"',
            'type="application/json" id="memlens-data"'),
    }
    for why, page in broken_pages.items():
        report.write_text(page, encoding="utf-8")
        with pytest.raises(BundleUnreadable, match=re.escape(why)) as failure:
            read_layout(report, "html")
        assert str(report) in str(failure.value) and "\n" not in str(failure.value)

    for broken, why in (("{not json", "layout.json: not JSON ("), ("[1, 2]", "is not an object"),
                        ('{"x": "here"}', "has no position"), ('{"x": [1]}', "has no position"),
                        ('{"x": [true, 2]}', "has no position")):
        (site / "layout.json").write_text(broken, encoding="utf-8")
        with pytest.raises(BundleUnreadable, match=re.escape(why)):
            read_layout(site, "site")
    (site / "layout.json").unlink()
    with pytest.raises(BundleUnreadable, match="has no layout.json"):
        read_layout(site, "site")


def test_unusable_previous_positions_give_the_fresh_layout(grown):
    _, new, _, _ = grown
    # unusable entries handed to compute_layout directly are skipped, not trusted
    graph = link_graph(new)
    junk = {node: (float("nan"), 0.0) for node in graph.names}
    junk.update({"not-a-node": (1.0, 2.0)})
    assert compute_layout(graph, previous=junk) == compute_layout(graph)
