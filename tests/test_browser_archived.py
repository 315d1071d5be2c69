"""A mnemo store's report: an archived memory is marked on its card and its timeline, and the
filter hides it as mnemo's own reads do; a superseded memory's link names what differs."""
from __future__ import annotations

import json

import pytest
from import_fixtures import build_mnemo
from viewer_fixtures import open_report

from memlens.viewer.model.links import deep_link

pytestmark = pytest.mark.browser


@pytest.fixture
def mnemo_report(cli, tmp_path):
    source = tmp_path / "memories.db"
    build_mnemo(source)
    report = tmp_path / "mnemo.html"
    assert cli("view", "--from", "mnemo", str(source), "--out", str(report), "--no-open").exit_code == 0
    snapshot = json.loads(cli("export", "--from", "mnemo", str(source), "--format", "json", "-o", "-").output)
    return report, snapshot


def memory_of(snapshot: dict, words: str) -> tuple[dict, dict]:
    """The memory (entity) whose version says `words`, and that version (fact)."""
    fact = next(f for f in snapshot["facts"] if f["description"] == words)
    return next(e for e in snapshot["entities"] if e["id"] == fact["subject"]), fact


def test_an_archived_memory_is_marked_on_its_card_and_timeline_and_the_filter_hides_it(browser, mnemo_report):
    report, snapshot = mnemo_report
    archived, fact = memory_of(snapshot, "we used to deploy on fridays")
    live, live_fact = memory_of(snapshot, "the api listens on 9443")
    opened = open_report(browser, report, fragment=deep_link("entity", archived["id"]))
    try:
        page = opened.page
        opened.show_fact_cards()
        card = page.locator(f'#detail article.fact[data-fact-id="{fact["id"]}"]')
        assert card.locator(".status-archived").inner_text() == "archived"
        assert card.locator(".fact-state-reason").inner_text() == "archived by mnemo"
        page.locator("#hide-archived").check()
        page.wait_for_function(f'() => !document.querySelector(\'#detail [data-fact-id="{fact["id"]}"]\')')
        assert "1 archived fact hidden." in page.locator("#detail").inner_text()
        page.evaluate(f"() => location.hash = {json.dumps(deep_link('entity', live['id']))}")
        live_card = page.locator(f'#detail article.fact[data-fact-id="{live_fact["id"]}"]')
        live_card.wait_for()
        assert live_card.locator(".status-archived").count() == 0      # a live memory: shown, unmarked
        page.locator("#hide-archived").uncheck()
        page.locator("#tab-timelines").click()
        legend = page.locator(".tl-legend").inner_text()
        assert "archived" in legend
        archived_rows = page.locator(f'g.tl-row.tl-archived[data-fact="{fact["id"]}"]')
        live_rows = page.locator(f'g.tl-row.tl-current[data-fact="{live_fact["id"]}"]')
        assert archived_rows.count() >= 1 and live_rows.count() >= 1
        page.screenshot(path=str(report.with_suffix(".png")))
        assert not opened.console_errors
    finally:
        opened.close()


def test_a_superseded_memorys_link_names_what_differs_from_its_own_title(browser, mnemo_report):
    report, snapshot = mnemo_report
    memory, first = memory_of(snapshot, "the api listens on 8080")
    opened = open_report(browser, report, fragment=deep_link("entity", memory["id"]))
    try:
        page = opened.page
        opened.show_fact_cards()
        page.locator("#detail-show-superseded").click()
        card = page.locator(f'#detail article.fact[data-fact-id="{first["id"]}"]')
        card.wait_for()
        title = " ".join(card.locator(".fact-line").inner_text().split())
        link = card.locator(".retired-box .ref-fact").inner_text()
        assert title == f"{memory['name']} filed_under infra"
        assert link == "\u201cthe api listens on 8443\u201d" and link != title
        page.screenshot(path=str(report.with_name("superseded.png")))
        assert not opened.console_errors
    finally:
        opened.close()


def test_a_memory_without_archived_facts_is_not_offered_the_filter(browser, cli, mnemo_report, tmp_path):
    assert cli("demo").exit_code == 0
    demo = tmp_path / "demo.html"
    assert cli("view", "-d", "demo", "--out", str(demo), "--no-open").exit_code == 0
    for report, offered in ((demo, False), (mnemo_report[0], True)):
        opened = open_report(browser, report)
        try:
            assert opened.page.locator("#hide-archived").is_visible() == offered
        finally:
            opened.close()


def test_the_sites_card_marks_an_archived_memory_as_the_report_does(cli, tmp_path):
    from lxml import html as lxml_html

    source = tmp_path / "memories.db"
    build_mnemo(source)
    site = tmp_path / "site"
    assert cli("export", "--from", "mnemo", str(source), "--format", "site", "-o", str(site)).exit_code == 0
    cards = {}
    for page in (site / "entities").glob("*.html"):
        for card in lxml_html.fromstring(page.read_bytes()).xpath("//article[contains(@class, 'fact')]"):
            description = card.xpath(".//*[@class='fact-description']")
            if description:
                cards[description[0].text_content()] = card
    archived, live = cards["we used to deploy on fridays"], cards["the api listens on 9443"]
    marks = ".//*[contains(@class, 'status-archived')]"
    assert [b.text_content() for b in archived.xpath(marks)] == ["archived"]
    assert archived.xpath(".//*[@class='fact-state-reason']")[0].text_content() == "archived by mnemo"
    assert "fact-archived" in archived.get("class")
    assert not live.xpath(marks) and "fact-archived" not in live.get("class")
