"""Rules that live twice, in Python (the site's pages, the CLI) and in the report's JS, held to each
other on inputs made to reach their edges: which evidence is a web link, which fact is archived,
the status a fact is shown with, the order of statuses on a card, and the ledger actions named by
their payload. (Names fold alike: test_browser_report; words stem alike: test_porter_stems; fact
cards read alike: test_browser_fact_cards_agree; maintenance tasks: test_bounded_hub.)"""
from __future__ import annotations

from importlib import resources

import pytest

from memlens.store.reads import is_archived
from memlens.viewer.model.evidence import is_web_link
from memlens.viewer.model.fact_status import shown_status
from memlens.viewer.model.ledger_targets import NAMED_IN_PAYLOAD
from memlens.viewer.site.items import STATUS_ORDER

pytestmark = pytest.mark.browser


def static_text(name: str) -> str:
    return resources.files("memlens.static").joinpath(name).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def page(browser):
    context = browser.new_context()
    opened = context.new_page()
    # each rule as the report's scripts define it, taken out of its file (the files need the page)
    rules = {"dom.js": "function isWebLink", "timetravel.js": "function shownStatus",
             "detail_panel.js": "const STATUS_ORDER", "refs.js": "const NAMING_ACTIONS"}
    for name, start in rules.items():
        text = static_text(name)
        at = text.index(start)
        opened.add_script_tag(content=text[at:text.index("\n}\n", at) + 3 if start.startswith("function")
                              else text.index(";\n", at) + 2])
    opened.add_script_tag(content=_function(static_text("timetravel.js"), "function isArchived"))
    opened.add_script_tag(content="window.twins = { isWebLink, shownStatus, isArchived, STATUS_ORDER, NAMING_ACTIONS };")
    yield opened
    context.close()


def _function(text: str, start: str) -> str:
    at = text.index(start)
    return text[at:text.index("\n}\n", at) + 3]


LINKS = ["https://example.com/a", "http://example.com", "HTTPS://EXAMPLE.COM/x?y=1#z", "https://", "http://a b",
         "https://a\tb", "https://a\u0000b", "javascript:alert(1)", "data:text/html,x", "repo://x/y.py#L1",
         "ftp://example.com", "https:example.com", "http//example.com", " https://example.com", "https://[::1]/",
         "https://exa mple.com", "https://example.com/\u00e9", "user said https://example.com", "", "h", "https:/x",
         "https://a@b.example/", "https://example.com:99999/", "https://example.com:abc/", "https://xn--e1afmkfd.xn--p1ai/",
         "https://ex%41mple.com/"]


def test_evidence_is_a_web_link_by_the_same_rule(page):
    assert page.evaluate("(texts) => texts.map(window.twins.isWebLink)", LINKS) == [is_web_link(t) for t in LINKS]
    assert any(is_web_link(t) for t in LINKS) and not all(is_web_link(t) for t in LINKS)


STATES = [(status, reason) for status in ("current", "superseded", "retracted", "forgotten", None)
          for reason in (None, "", "archived", "Archived by mnemo", "ARCHIVED", "not archived", "archive", 5)]


def test_a_fact_is_archived_by_the_same_rule(page):
    found = page.evaluate("(states) => states.map(([status, reason]) => window.twins.isArchived({status, reason}))",
                          STATES)
    assert found == [is_archived(status, reason if isinstance(reason, str) else None) for status, reason in STATES]
    assert any(found) and not all(found)


def test_a_fact_is_shown_with_the_same_status_and_in_the_same_order(page):
    cases = [(status, contested) for status in ("current", "superseded", "retracted", "forgotten")
             for contested in (False, True)]
    shown = page.evaluate("(cases) => cases.map(([s, c]) => window.twins.shownStatus(s, c))", cases)
    assert shown == [shown_status({"status": s, "contested": c}) for s, c in cases] and "candidate" in shown
    assert page.evaluate("() => window.twins.STATUS_ORDER") == STATUS_ORDER


def test_the_ledger_actions_named_by_their_payload_are_the_same(page):
    assert page.evaluate("() => window.twins.NAMING_ACTIONS") == NAMED_IN_PAYLOAD
