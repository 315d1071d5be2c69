"""A memware review candidate reads as a candidate awaiting review, shown and contested, not as a
retracted fact hidden with the superseded ones."""
from __future__ import annotations

from pathlib import Path

import pytest
from import_fixtures import build_memware
from viewer_fixtures import open_report, parse_page

from memlens.store.importers import read_snapshot
from memlens.store.importers.memware import fact_id_of
from memlens.viewer.model.fact_status import shown_status


@pytest.fixture
def imported(tmp_path: Path) -> tuple[Path, dict, dict]:
    path = tmp_path / "memware.db"
    ids = build_memware(path)
    return path, read_snapshot("memware", path), ids


def test_only_a_retracted_fact_still_in_an_open_contradiction_is_a_candidate(imported):
    _, snapshot, ids = imported
    facts = {f["id"]: f for f in snapshot["facts"]}
    candidate = facts[fact_id_of(ids["db_candidate"])]
    assert candidate["status"] == "retracted" and shown_status(candidate) == "candidate"
    rejected = facts[fact_id_of(ids["lang_bad"])]     # reviewed and rejected: retracted, and says so
    assert rejected["status"] == "retracted" and shown_status(rejected) == "retracted"
    assert shown_status(facts[fact_id_of(ids["db"])]) == "current"


def test_the_cli_lists_it_as_a_candidate_awaiting_review(cli, imported, tmp_path):
    path, _, ids = imported
    assert cli("import", "--from", "memware", str(path), "-d", "ware").exit_code == 0
    lines = cli("facts", "-d", "ware", "--all").output.splitlines()
    short = fact_id_of(ids["db_candidate"])[:8]
    [line] = [line for line in lines if line.startswith(short)]
    assert "[candidate awaiting review]" in line and "[contested]" in line and "[retracted]" not in line
    assert any("[retracted]" in line for line in lines)     # a rejected belief still reads retracted


def test_the_report_shows_the_candidate_by_default_and_the_site_labels_it(cli, browser, imported, tmp_path):
    path, _, ids = imported
    report, site = tmp_path / "r.html", tmp_path / "site"
    assert cli("view", "--from", "memware", str(path), "--out", str(report), "--no-open").exit_code == 0
    candidate = fact_id_of(ids["db_candidate"])
    opened = open_report(browser, report, fragment=f"#fact={candidate}")
    try:
        page = opened.page
        assert not page.locator("#show-superseded").is_checked()
        edge = page.evaluate("(id) => window.memlens.network.body.data.edges.get(id)", candidate)
        assert edge["hidden"] is False and edge["dashes"] is False
        card = page.locator(f'#detail [data-fact-id="{candidate}"]')
        assert card.locator(".status").first.inner_text() == "candidate"
        assert "contested" in card.inner_text().lower() and "retracted" not in card.inner_text()
        assert opened.console_errors == []
    finally:
        opened.close()
    assert cli("export", "--from", "memware", str(path), "--format", "site", "-o", str(site)).exit_code == 0
    cards = [e for page in (site / "entities").glob("*.html")
             for e in parse_page(page.read_text(encoding="utf-8")).find_all("article")
             if e.attrs.get("id") == f"fact-{candidate}"]
    assert cards and all("fact-candidate" in card.attrs["class"] for card in cards)
