"""A store larger than the drawing budget: a bounded overview, and the rest revealed on demand."""

from __future__ import annotations

import pytest
from viewer_fixtures import large_snapshot, opened_report

from memlens.viewer.report.codec import DRAW_LIMIT

pytestmark = pytest.mark.browser
ENTITIES = 2_000


@pytest.fixture(scope="module")
def snapshot():
    return large_snapshot(entity_count=ENTITIES)


@pytest.fixture(scope="module")
def report(snapshot, browser, tmp_path_factory):
    yield from opened_report(browser, snapshot, tmp_path_factory.mktemp("large"))


def test_only_the_most_connected_entities_are_drawn_at_first(report, snapshot):
    drawn = report.drawn_ids()
    assert len(drawn) == DRAW_LIMIT < ENTITIES
    status = report.page.locator("#graph-status").inner_text()
    assert f"{ENTITIES - DRAW_LIMIT:,} more not drawn" in status
    assert report.console_errors == [] and report.csp_violations() == []


def test_search_reveals_an_entity_that_was_not_drawn(report, snapshot):
    page = report.page
    hidden = next(e for e in reversed(snapshot["entities"]) if e["id"] not in report.drawn_ids())
    page.fill("#search-input", hidden["name"])
    page.press("#search-input", "Enter")
    assert hidden["id"] in report.drawn_ids()
    assert page.evaluate("window.memlens.network.getSelectedNodes()") == [hidden["id"]]
    node = page.evaluate("(id) => window.memlens.network.body.data.nodes.get(id)", hidden["id"])
    assert node["hidden"] is False


def test_expanding_a_node_adds_its_hidden_neighbours(report, snapshot):
    page = report.page
    before = report.drawn_ids()
    live = {e["id"] for e in snapshot["entities"] if e["merged_into"] is None}
    neighbours: dict[str, set[str]] = {}
    for fact in snapshot["facts"]:
        if fact["status"] != "forgotten" and fact["subject"] in live and fact["object"] in live:
            neighbours.setdefault(fact["subject"], set()).add(fact["object"])
            neighbours.setdefault(fact["object"], set()).add(fact["subject"])
    entity = next(e for e in sorted(before) if 0 < len(neighbours.get(e, set()) - before) <= 50)
    page.evaluate("(id) => window.memlens.selectEntityById(id)", entity)
    page.click("#detail-expand")
    after = report.drawn_ids()
    assert neighbours[entity] <= after
    assert len(after) > len(before)
