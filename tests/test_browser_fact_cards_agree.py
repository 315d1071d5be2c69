"""The fact card is written twice, in Python for the site's pages (which must read without script)
and in JS for the report's detail panel: the two must say the same thing in the same order."""

from __future__ import annotations

import pytest
from viewer_fixtures import SnapshotBuilder, open_report

from memlens.viewer.model.links import deep_link
from memlens.viewer.report.write import write_report
from memlens.viewer.site.build import write_site

pytestmark = pytest.mark.browser


def every_kind_of_card() -> tuple[dict, str]:
    """One entity whose facts cover every status and every way of stating validity, in two
    relations and both directions, recorded in an order that is none of the orders shown."""
    b = SnapshotBuilder("cards")
    api = b.entity("api", "Service")
    alice, bob, carol, dana = (b.entity(name, "Person") for name in ("alice", "bob", "carol", "dana"))
    b.declare_relation("owned_by", functional=True)
    first = b.assert_fact(api, "owned_by", alice, valid_from="2025-01-01", valid_to="2025-06-30")
    second = b.assert_fact(api, "owned_by", bob, valid_from="2025-07-01")
    b.supersede(first, second, "handed over")
    gone = b.assert_fact(api, "depends_on", carol, valid_to="2026-01-01")
    b.retract(gone, "never did")
    b.assert_fact(api, "depends_on", dana)
    b.assert_fact(dana, "maintains", api, valid_from="2024-03-01T09:30:00Z")
    return b.build(), api


def card_words(cards) -> list[tuple[str, str, str]]:
    """(fact id, status badge, validity) of each card, in the order shown."""
    return [(card.get_attribute("data-fact-id") or card.get_attribute("id").removeprefix("fact-"),
             card.locator(".fact-badges .status").first.inner_text(),
             card.locator(".fact-meta > span").first.inner_text())
            for card in cards]


def test_the_sites_fact_cards_and_the_reports_say_the_same_in_the_same_order(browser, tmp_path):
    snapshot, api = every_kind_of_card()
    report = write_report(snapshot, tmp_path / "report.html")
    site = write_site(snapshot, tmp_path / "site")
    page_of_api = next(p for p in (site / "entities").glob("api-*.html"))

    opened = open_report(browser, report, fragment=deep_link("entity", api))
    try:
        opened.show_fact_cards()
        assert opened.page.locator("#detail article.fact").count() == 3  # the retired ones wait for a click
        opened.page.locator("#detail-show-superseded").click()
        opened.page.wait_for_function("() => document.querySelectorAll('#detail article.fact').length === 5")
        in_report = card_words(opened.page.locator("#detail article.fact").all())
        opened.page.goto(page_of_api.as_uri())
        in_site = card_words(opened.page.locator("main article.fact").all())
    finally:
        opened.close()

    assert len(in_report) == 5 and {status for _, status, _ in in_report} == {"current", "superseded", "retracted"}
    assert {validity for _, _, validity in in_report} == {
        "valid 2025-01-01 \u2192 2025-06-30", "valid since 2025-07-01", "valid until 2026-01-01",
        "validity not stated", "valid since 2024-03-01T09:30:00Z"}
    assert in_site == in_report
