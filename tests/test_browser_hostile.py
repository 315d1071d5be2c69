"""Hostile text in every field: no script runs, nothing loads, and the text reads as text."""

from __future__ import annotations

import re

import pytest
from viewer_fixtures import (HOSTILE_PAYLOADS, hostile_snapshot, open_report)

from memlens.viewer.report.write import write_report

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def hostile_report(browser, tmp_path_factory):
    snapshot = hostile_snapshot()
    path = write_report(snapshot, tmp_path_factory.mktemp("hostile") / "hostile.html", show_superseded=True)
    opened = open_report(browser, path)
    yield opened, snapshot
    opened.close()


def visit_everything(page, snapshot):
    """Opens every entity's panel, searches, and shows every tab, so every string gets drawn."""
    for entity in snapshot["entities"]:
        page.evaluate("(id) => window.memlens.selectEntityById(id)", entity["id"])
        page.locator("#detail h2").wait_for()
    page.fill("#search-input", "entity")
    page.press("#search-input", "ArrowDown")
    texts = [page.locator("body").inner_text()]
    for tab in ("timelines", "provenance", "maintenance"):
        page.click(f"#tab-{tab}")
        texts.append(page.locator("body").inner_text())
    page.click("#tab-graph")
    return "\n".join(texts)


def test_hostile_snapshot_runs_no_script_and_loads_nothing(hostile_report):
    report, snapshot = hostile_report
    page = report.page
    assert page.evaluate("window.memlens.ready") is True
    text = visit_everything(page, snapshot)
    assert "entity-a" in text
    assert report.dialogs == []
    assert report.requests == [report.url]
    assert report.console_errors == []
    assert report.csp_violations() == []
    assert page.locator("img").count() == 0


def test_hostile_text_is_visible_literally(hostile_report):
    report, snapshot = hostile_report
    page = report.page
    text = visit_everything(page, snapshot)
    for payload in HOSTILE_PAYLOADS:
        if "\u2028" in payload:
            assert "line" in text and "para" in text
        else:
            assert payload in text, payload
    assert snapshot["dismissals"][0]["reason"].split("\u2028")[0] in text
    # `{{ 7*7 }}` stayed literal everywhere: no bare 49 (times such as 09:49 are not bare)
    assert text.count("{{ 7*7 }}") >= 5
    assert not re.search(r"(?<![\d:.-])49(?!\d)", text.replace(snapshot["hash"], ""))


def test_only_web_evidence_becomes_a_link(hostile_report):
    report, snapshot = hostile_report
    page = report.page
    first = snapshot["entities"][0]
    report.show_fact_cards()
    page.evaluate("(id) => window.memlens.selectEntityById(id)", first["id"])
    evidence = page.locator("#detail .fact-evidence li")
    assert evidence.count() >= 6
    links = page.locator("#detail .fact-evidence a")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert hrefs and all(h.startswith("https://example.com/") for h in hrefs)
    assert all(links.nth(i).get_attribute("rel") == "noopener noreferrer" for i in range(links.count()))
    plain = page.locator("#detail .fact-evidence .evidence-text").all_inner_texts()
    assert "javascript:alert(1)" in plain and "JaVaScRiPt:alert(1)" in plain
    assert page.locator('a[href^="javascript" i], a[href^="data" i], a[href^=" " i]').count() == 0
