"""The demo's report shows what each session was told (the Briefs tab), what became of it, and the
memory at the moment it was given; a fact kept out of briefs says so on its card, with the reason."""
from __future__ import annotations

import pytest
from viewer_fixtures import open_report

from memlens.store import demo
from memlens.store.memory import Memory
from memlens.viewer.reading import read_bundle

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("briefs")
    demo.build(folder / "demo.sqlite").close()
    from click.testing import CliRunner

    from memlens.viewer.cli import main

    result = CliRunner().invoke(main, ["view", "--db", str(folder / "demo.sqlite"), "--out", str(folder / "demo.html"),
                                       "--no-open"], env={"MEMLENS_HOME": str(folder / "home")})
    assert result.exit_code == 0, result.output
    return folder


@pytest.fixture
def report(browser, demo_report):
    opened = open_report(browser, demo_report / "demo.html")
    opened.show_fact_cards()   # these tests read the facts' cards, not their one-line rows
    yield opened
    opened.close()


def test_the_record_of_briefs_survives_export(demo_report):
    with Memory(demo_report / "demo.sqlite", readonly=True) as memory:
        given = memory.snapshot()["briefs"]
    assert [b["session"] for b in given] == ["demo-session-040", "demo-session-080"]
    assert read_bundle(demo_report / "demo.html")["briefs"] == given


def test_the_briefs_tab_lists_each_brief_newest_first_and_what_became_of_its_facts(report):
    page = report.page
    page.click("#tab-briefs")
    rows = page.locator("#briefs-rows tr")
    assert page.locator("#tab-briefs .tab-count").inner_text() == "2"
    assert rows.count() == 2 and page.locator("#briefs-count").inner_text() == "2 briefs given"
    assert [rows.nth(i).locator("td").nth(2).inner_text() for i in range(2)] == ["demo-session-080", "demo-session-040"]
    assert rows.nth(1).locator("td").nth(1).inner_text() == "claude-code (startup)"
    # the first session was told Dana owned billing-service; she no longer does
    rows.nth(1).locator("summary").click()
    told = rows.nth(1).locator(".brief-facts li")
    told.first.wait_for()
    owner = told.filter(has_text="billing-service owned_by Dana Okafor")
    assert owner.count() == 1 and owner.locator(".status").inner_text() == "superseded since"
    assert told.filter(has_text="still current").count() > 10
    assert report.console_errors == []


def test_memory_then_shows_the_graph_as_it_was_when_the_brief_was_given(report):
    page = report.page
    page.click("#tab-briefs")
    page.locator("#briefs-rows tr").nth(1).locator(".brief-travel").click()
    assert page.evaluate("() => document.body.classList.contains('on-graph')")
    at = page.evaluate("() => window.memlens.times[window.memlens.view.asOfRecord]")
    given = page.locator("#briefs-rows tr").nth(1).get_attribute("data-brief-at")
    later = page.evaluate("(at) => window.memlens.times.filter((t) => t > at)", at)
    assert at <= given and all(t > given for t in later)       # the newest record time at or before it
    page.evaluate("() => window.memlens.selectEntityById(window.memlens.network.body.data.nodes.get()"
                  ".find((n) => n.label === 'billing-service').id)")
    page.click("#detail-cards")   # the facts as cards, not lines
    owners = page.locator("#detail article.fact", has_text="owned_by").all_inner_texts()
    # then, Dana owned it: Priya's value arrived in that very session
    assert any("Dana Okafor" in text for text in owners) and not any("Priya" in text for text in owners)
    assert report.console_errors == []


def test_a_fact_withheld_from_briefs_says_so_and_why_on_its_card(report):
    page = report.page
    page.evaluate("() => window.memlens.selectEntityById(window.memlens.network.body.data.nodes.get()"
                  ".find((n) => n.label === 'DATABASE_URL').id)")
    # the fact's line carries the mark, its card the reason
    line = page.locator("#detail .fact-row", has_text="staging")
    assert line.locator(".mark-withheld").get_attribute("title") == \
        "withheld from briefs: looks like a secret (credentials in a URL)"
    assert page.locator("#detail .fact-row", has_text="production").locator(".mark-withheld").count() == 0
    page.click("#detail-cards")
    leaked = page.locator("#detail article.fact", has_text="s3cret")
    assert leaked.locator(".fact-withheld").inner_text() == "withheld from briefs looks like a secret (credentials in a URL)"
    # its honest twin, among the same entity's facts, carries no such mark
    twin = page.locator("#detail article.fact", has_text="read from the environment at start")
    assert twin.count() == 1 and twin.locator(".fact-withheld").count() == 0
    assert report.console_errors == []
