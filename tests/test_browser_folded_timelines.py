"""Timelines past the first few of each kind are folded: their drawings wait, compressed, in the
page's memlens-timelines block, and a click draws one, its hostile names shown as text."""
from __future__ import annotations

import re
from typing import Any

import pytest

from memlens.viewer.report.codec import TIMELINES_BLOCK, parse_blocks
from memlens.viewer.report.page import TIMELINES_DRAWN
from memlens.viewer.report.write import write_report
from viewer_fixtures import SnapshotBuilder, hostile, open_report

KEYS = TIMELINES_DRAWN + 6   # functional keys: six of them folded


def many_keys_snapshot() -> dict[str, Any]:
    """KEYS subjects, each with an owner over time; every name hostile."""
    b = SnapshotBuilder(dataset="folded", types=["Service", "Person"])
    b.declare_relation("owned_by", functional=True)
    for n in range(KEYS):
        service = b.entity(hostile(f"service-{n:02d}", n), "Service")
        first = b.entity(hostile(f"owner-{n:02d}-a", n + 1), "Person")
        second = b.entity(hostile(f"owner-{n:02d}-b", n + 2), "Person")
        old = b.assert_fact(service, "owned_by", first, valid_from="2024-01-01")
        new = b.assert_fact(service, "owned_by", second, valid_from="2024-06-01")
        b.supersede(old, new, "handed over")
    return b.build()


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return write_report(many_keys_snapshot(), tmp_path_factory.mktemp("folded") / "report.html")


def test_folded_drawings_live_in_the_block_not_in_the_markup(report: Any) -> None:
    page = report.read_bytes()
    keys = re.findall(rb'<figure class="timeline( is-folded)?" id="timeline-key-', page)
    assert len(keys) == KEYS
    assert sum(1 for folded in keys if folded) == KEYS - TIMELINES_DRAWN
    assert b"<template" not in page
    # the drawn ones (keys and entities) are markup in the page; the folded ones only in the block
    figures = re.findall(rb'<figure class="timeline( is-folded)?" id="([^"]+)"', page)
    folded_ids = sorted(name.decode() for folded, name in figures if folded)
    assert page.count(b'<svg class="timeline-svg"') == len(figures) - len(folded_ids) == 2 * TIMELINES_DRAWN
    drawings = parse_blocks(page, str(report), (TIMELINES_BLOCK,))[TIMELINES_BLOCK]["drawings"]
    assert sorted(drawings) == folded_ids
    assert all(markup.startswith('<svg class="timeline-svg"') for markup in drawings.values())


def test_a_folded_timeline_is_drawn_on_request_with_its_names_as_text(browser: Any, report: Any) -> None:
    opened = open_report(browser, report)
    try:
        page = opened.page
        page.click("#tab-timelines")
        folded = page.locator("figure.timeline.is-folded[id^='timeline-key-']")
        assert folded.count() == KEYS - TIMELINES_DRAWN
        assert page.locator("figure.timeline:not(.is-folded)[id^='timeline-key-'] svg.timeline-svg").count() == TIMELINES_DRAWN
        before = page.locator("figure.timeline.is-folded").count()
        figure = folded.last
        figure_id = figure.get_attribute("id")
        assert figure.locator("svg").count() == 0
        figure.locator("button.tl-unfold").click()
        drawn = page.locator(f"[id='{figure_id}']")
        drawn.locator("svg.timeline-svg .tl-row").first.wait_for()
        assert "is-folded" not in (drawn.get_attribute("class") or "")
        assert drawn.locator(".tl-folded").count() == 0
        assert drawn.locator("svg.timeline-svg .tl-row").count() == 2        # both owners, one after the other
        titles = drawn.locator(".tl-row > title").all_text_contents()    # a row's whole label
        assert any("<img src=x onerror=alert(1)>" in title for title in titles), titles
        assert all("</script><script>alert(1)</script>" in title for title in titles), titles
        # drawn in the SVG namespace, so it has a size; the valid-time cursor is placed by the page
        assert drawn.locator("svg.timeline-svg").bounding_box()["height"] > 20
        assert page.locator("figure.timeline.is-folded").count() == before - 1
        # a row of the drawn timeline selects its fact, like a row drawn at load
        drawn.locator(".tl-row .tl-bar").first.click()
        assert page.locator("#detail").is_visible()
        assert opened.dialogs == [] and opened.console_errors == [] and opened.csp_violations() == []
        assert opened.requests == [opened.url]
    finally:
        opened.close()
