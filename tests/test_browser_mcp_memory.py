"""A report of the MCP memory server's file: its hostile names and observations read as text."""
from __future__ import annotations

import pytest
from viewer_fixtures import open_report

from memlens.store.importers import read_snapshot
from memlens.viewer.report.write import write_report
from mcp_memory_server import FIXTURES, HOSTILE

pytestmark = pytest.mark.browser


def test_the_servers_hostile_text_is_shown_literally_and_runs_nothing(browser, tmp_path):
    snapshot = read_snapshot("mcp-memory", FIXTURES / "state-1.jsonl")
    report = open_report(browser, write_report(snapshot, tmp_path / "mcp.html"))
    try:
        page = report.page
        hostile = next(e for e in snapshot["entities"] if e["name"] == HOSTILE)
        page.evaluate("(id) => window.memlens.selectEntityById(id)", hostile["id"])
        page.locator("#detail h2").wait_for()
        assert page.locator("#detail h2").inner_text() == HOSTILE
        lines = page.locator("#detail").inner_text()         # one line a fact: names and relations as written
        assert "001. {{ 7*7 }}" in lines and "links_script_to" in lines and "relationType as written" not in lines
        report.show_fact_cards()                              # each card: the descriptions too
        panel = page.locator("#detail").inner_text()
        for shown in ("001. {{ 7*7 }}", "002. javascript:alert(3)", "<b>bold</b>", 'links_script_to',
                      'relationType as written: "links </script> to"', '<img src=x onerror="alert(2)">'):
            assert shown in panel, shown
        page.screenshot(path=str(tmp_path / "mcp.png"))
        assert report.dialogs == [] and report.console_errors == [] and report.csp_violations() == []
        assert report.requests == [report.url]
        assert page.locator("#detail b, #detail img, #detail script").count() == 0
    finally:
        report.close()
