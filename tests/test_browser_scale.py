"""100,000 entities: a bounded overview whose counts add up, drill-down that reaches every entity,
and search that finds what the overview does not draw. Correctness at scale; speed is measured
by benchmarks/bench_scale.py, not here."""

from __future__ import annotations

import re
from collections import deque

import pytest
from viewer_fixtures import large_snapshot, opened_report

from memlens.viewer.report.codec import DRAW_LIMIT

pytestmark = pytest.mark.browser
ENTITIES = 100_000


@pytest.fixture(scope="module")
def snapshot():
    return large_snapshot(entity_count=ENTITIES)


@pytest.fixture(scope="module")
def report(snapshot, browser, tmp_path_factory):
    yield from opened_report(browser, snapshot, tmp_path_factory.mktemp("scale"), graph_timeout_ms=120_000)


def status_counts(report) -> dict[str, int]:
    text = report.page.locator("#graph-status").inner_text()
    found: dict[str, int] = {}
    for label, pattern in (("shown", r"([\d,]+) entit(?:y|ies) shown"), ("not drawn", r"([\d,]+) more not drawn"),
                           ("filtered", r"([\d,]+) hidden by type filter")):
        match = re.search(pattern, text)
        found[label] = int(match.group(1).replace(",", "")) if match else 0
    return found


def expansion_neighbours(snapshot) -> dict[str, set[str]]:
    """Who a node's expansion can reveal: the other end of any of its facts (any status)."""
    neighbours: dict[str, set[str]] = {e["id"]: set() for e in snapshot["entities"]}
    for fact in snapshot["facts"]:
        subject, obj = fact["subject"], fact["object"]
        if subject in neighbours and obj in neighbours and subject != obj:
            neighbours[subject].add(obj)
            neighbours[obj].add(subject)
    return neighbours


def test_the_overview_is_bounded_and_its_counts_add_up_to_the_store(report, snapshot):
    live = [e for e in snapshot["entities"] if e["merged_into"] is None]
    assert len(live) == snapshot["stats"]["entities"] == ENTITIES
    assert len(report.drawn_ids()) == DRAW_LIMIT
    counts = status_counts(report)
    assert counts["shown"] == DRAW_LIMIT and counts["filtered"] == 0
    assert counts["shown"] + counts["not drawn"] == snapshot["stats"]["entities"]
    header = report.page.locator("header.masthead").inner_text()
    assert f"{ENTITIES:,}" in header and f"{snapshot['stats']['facts']:,}" in header
    assert report.console_errors == [] and report.csp_violations() == []


def test_drill_down_reaches_every_entity(report, snapshot):
    page = report.page
    neighbours = expansion_neighbours(snapshot)
    overview = report.drawn_ids()
    # every entity the overview leads to by expanding, with the path that gets there
    parent: dict[str, str | None] = {node: None for node in overview}
    queue = deque(overview)
    while queue:
        node = queue.popleft()
        for other in neighbours[node]:
            if other not in parent:
                parent[other] = node
                queue.append(other)
    unreachable = [e for e in snapshot["entities"] if e["id"] not in parent]
    assert len(parent) + len(unreachable) == ENTITIES and len(parent) > ENTITIES // 2
    # the positive case, in the page: expand along the longest path until its end is drawn
    deepest = max(parent, key=lambda node: (depth(parent, node), node))
    path = [deepest]
    while parent[path[-1]] is not None:
        path.append(parent[path[-1]])
    path.reverse()
    assert len(path) >= 3, "the generated graph should need more than one expansion"
    for step, nxt in zip(path, path[1:]):
        for _ in range(len(neighbours[step]) // 400 + 1):  # an expansion reveals up to 400 neighbours
            if nxt in report.drawn_ids():
                break
            page.evaluate("(id) => window.memlens.selectEntityById(id)", step)
            page.click("#detail-expand")
        assert nxt in report.drawn_ids(), (step, nxt)
    # whatever no expansion reaches (isolated entities, other components) search finds by name
    assert unreachable, "the generated graph has entities without links"
    names = [e["name"] for e in snapshot["entities"]]
    assert len(set(names)) == len(names)
    for entity in (unreachable[0], unreachable[len(unreachable) // 2], unreachable[-1]):
        page.fill("#search-input", entity["name"])
        page.press("#search-input", "Enter")
        assert entity["id"] in report.drawn_ids()
        assert page.evaluate("window.memlens.network.getSelectedNodes()") == [entity["id"]]


def depth(parent: dict[str, str | None], node: str) -> int:
    steps = 0
    while parent[node] is not None:
        node, steps = parent[node], steps + 1
    return steps


def test_search_finds_an_entity_the_overview_does_not_draw(report, snapshot):
    page = report.page
    drawn = report.drawn_ids()
    hidden = next(e for e in reversed(snapshot["entities"]) if e["id"] not in drawn)
    page.fill("#search-input", hidden["name"])
    page.press("#search-input", "Enter")
    assert hidden["id"] in report.drawn_ids()
    assert page.locator("#detail h2").inner_text() == hidden["name"]
