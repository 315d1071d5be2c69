"""Any date the store accepts renders: a fact valid from 0001-01-01 or until 9999-12-31 is drawn on
a clamped axis (the data keeps its dates), in the report, the site and the timeline's ticks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from viewer_fixtures import open_report

from memlens.store.memory import Memory
from memlens.store.triples import FactInput
from memlens.viewer.model.timeline import _tick_marks
from memlens.viewer.model.time_axis import to_day_number


@pytest.fixture
def extreme_store(tmp_path) -> Path:
    store = tmp_path / "extreme.sqlite"
    with Memory(store, actor="test:pytest") as memory:
        memory.remember([
            FactInput("ancient", "works_at", "acme", "Person", "Organization", evidence=("x",), valid_from="0001-01-01"),
            FactInput("future", "works_at", "acme", "Person", "Organization", evidence=("x",), valid_from="9999-12-31"),
            FactInput("ordinary", "works_at", "acme", "Person", "Organization", evidence=("x",), valid_from="2025-01-01"),
        ])
    return store


def test_the_axis_of_any_span_has_a_dozen_ticks_or_so():
    first, last = to_day_number("0001-01-01"), to_day_number("9999-12-31")
    whole = _tick_marks(int(first) - 400, int(last) + 400)   # padded past what a date can name
    assert 5 <= len(whole) <= 13 and whole[0][1] and whole[-1][0] <= last
    ordinary = _tick_marks(int(to_day_number("2025-01-01")), int(to_day_number("2025-04-10")))
    assert [label for _, label in ordinary] == ["2025-02", "2025-03", "2025-04"]   # months, as before


def test_extreme_dates_export_as_report_and_site(cli, extreme_store, tmp_path):
    for fmt, out in (("html", tmp_path / "r.html"), ("site", tmp_path / "site")):
        result = cli("export", "--db", str(extreme_store), "--format", fmt, "-o", str(out))
        assert result.exit_code == 0, result.output
    future = next((tmp_path / "site" / "entities").glob("future-*.html")).read_text(encoding="utf-8")
    assert "9999-12-31" in future and re.search(r"<svg", future)


@pytest.mark.browser
def test_the_report_with_extreme_dates_opens_and_shows_them(browser, extreme_store, tmp_path, cli):
    assert cli("export", "--db", str(extreme_store), "--format", "html", "-o", str(tmp_path / "r.html")).exit_code == 0
    report = open_report(browser, tmp_path / "r.html")
    try:
        page = report.page
        assert page.evaluate("window.memlens.ready") is True
        page.fill("#search-input", "future")
        page.press("#search-input", "Enter")
        page.locator("#detail h2").wait_for()
        assert "9999-12-31" in page.locator("#detail").inner_text()
        page.click("#tab-timelines")
        assert report.console_errors == []
    finally:
        report.close()
