"""The search box finds facts by the words of their descriptions, evidence, relations and ends'
names, as recall reads words (stop words, stems), and follows the time-travel sliders; the same
on a site's graph page, opened from file://."""

from __future__ import annotations

import pytest
from viewer_fixtures import hostile_snapshot, open_report, project_ids, project_snapshot

from memlens.viewer.report.write import write_report
from memlens.viewer.site.build import write_site

pytestmark = pytest.mark.browser
IDS = project_ids()

OPTIONS = """() => [...document.querySelectorAll("#search-results .search-option")]
    .map((o) => ({ kind: o.dataset.kind, id: o.dataset.id, text: o.textContent }))"""


def search(page, text):
    """The options listed for `text` once the words are indexed."""
    page.fill("#search-input", "")
    page.focus("#search-input")
    page.evaluate("() => window.memlens.search.indexed()")
    page.fill("#search-input", text)
    return page.evaluate(OPTIONS)


def facts_listed(options):
    return [o["id"] for o in options if o["kind"] == "fact"]


@pytest.fixture
def report(project_report):
    return project_report


def test_words_of_a_description_list_its_fact_and_other_word_forms_find_it_too(report):
    page = report.page
    assert IDS.payments_needs_ledger in facts_listed(search(page, "ledger entries"))
    # other forms of its words ("post" -> "posting", "charges" -> "charged"), stop words around them
    options = search(page, "what was posting the charged entries")
    assert facts_listed(options)[0] == IDS.payments_needs_ledger
    assert "charges post ledger entries" in options[0]["text"]
    # words that are in no fact list none
    assert facts_listed(search(page, "kubernetes helm")) == []
    assert report.console_errors == []


def test_relations_names_and_evidence_are_searched_as_words(report):
    page = report.page
    snapshot = project_snapshot()
    fact = {f["id"]: f for f in snapshot["facts"]}
    names = {e["id"]: e["name"] for e in snapshot["entities"]}
    # "maintains" is a relation; "ledger" names ledger-service: bob's fact covers both words
    listed = facts_listed(search(page, "who maintains the ledger"))
    first = fact[listed[0]]
    assert (names[first["subject"]], first["relation"], names[first["object"]]) == ("bob", "maintains", "ledger-service")
    # evidence: a file named only in it
    listed = facts_listed(search(page, "ratelimit"))
    assert [(names[fact[i]["subject"]], names[fact[i]["object"]]) for i in listed] == [("payments-api", "Redis")]


def test_an_owner_is_found_by_the_owned_by_relation_as_recall_finds_it(report):
    page = report.page
    snapshot = project_snapshot()
    fact = {f["id"]: f for f in snapshot["facts"]}
    names = {e["id"]: e["name"] for e in snapshot["entities"]}
    for question in ("who owns payments-api", "payments-api owner"):
        first = fact[facts_listed(search(page, question))[0]]
        assert (names[first["subject"]], first["relation"], names[first["object"]], first["status"]) == \
            ("payments-api", "owned_by", "Payments Team", "current"), question
    # a word that is in no relation, name or text finds no fact
    assert facts_listed(search(page, "landlord")) == []


def test_a_name_typed_whole_comes_first_as_an_entity(report):
    page = report.page
    options = search(page, "ledger-service")
    assert options[0] == {"kind": "entity", "id": next(e["id"] for e in project_snapshot()["entities"]
                                                       if e["name"] == "ledger-service"),
                          "text": options[0]["text"]}
    assert facts_listed(options)  # its facts follow: the name's words are theirs


def test_picking_a_fact_selects_its_entity_and_shows_its_card_highlighted(report):
    page = report.page
    search(page, "charges post ledger entries")
    page.click(f'#search-results [data-id="{IDS.payments_needs_ledger}"]')
    assert page.evaluate("window.memlens.view.selected.id") == IDS.payments_api
    card = page.locator(f'#detail [data-fact-id="{IDS.payments_needs_ledger}"]')
    assert "flash" in card.get_attribute("class").split()
    box, panel = card.bounding_box(), page.locator("#detail").bounding_box()
    assert box and panel["y"] <= box["y"] and box["y"] + 10 <= panel["y"] + panel["height"]
    assert page.evaluate("location.hash") == f"#fact={IDS.payments_needs_ledger}"
    assert report.console_errors == []


def record_time(page):
    return page.evaluate("window.memlens.view.asOfRecord")


def test_a_fact_not_yet_recorded_at_the_chosen_record_time_is_not_listed(report):
    page = report.page
    recorded = page.evaluate("(id) => window.memlens.memory.factById.get(id).recordedAt", IDS.payments_needs_ledger)
    page.focus("#asof-record")
    page.keyboard.press("Home")
    while record_time(page) is not None and record_time(page) < recorded:  # to the first stop that has it
        page.keyboard.press("ArrowRight")
    assert record_time(page) is not None
    assert IDS.payments_needs_ledger in facts_listed(search(page, "charges post ledger entries"))
    page.focus("#asof-record")
    page.keyboard.press("ArrowLeft")                                      # the stop before it was recorded
    assert record_time(page) < recorded
    options = search(page, "charges post ledger entries")
    assert IDS.payments_needs_ledger not in facts_listed(options)
    assert IDS.payments_api in [o["id"] for o in options if o["kind"] == "entity"]  # it existed then


def test_a_superseded_fact_is_listed_only_when_superseded_facts_are_shown(report):
    page = report.page
    options = search(page, "alice works at globex")
    assert IDS.alice_at_globex not in facts_listed(options)
    assert IDS.alice_at_acme in facts_listed(options)  # the value that replaced it is
    page.check("#show-superseded")
    assert IDS.alice_at_globex in facts_listed(search(page, "alice works at globex"))


def test_a_forgotten_facts_words_find_nothing(report):
    page = report.page
    options = search(page, "carol private note")
    assert IDS.forgotten_fact not in facts_listed(options)
    assert search(page, "private note") == []
    assert page.locator("#search-results .search-empty").inner_text() == "Nothing matches"
    # beside it, a kept fact's words do
    assert facts_listed(search(page, "revocation list")) != []


@pytest.fixture(scope="module")
def site_page(browser, tmp_path_factory):
    folder = tmp_path_factory.mktemp("fact-search-site") / "site"
    write_site(project_snapshot(), folder)
    opened = open_report(browser, folder / "index.html")
    yield opened
    opened.close()


def test_a_sites_graph_page_finds_facts_from_file_urls(site_page):
    page = site_page.page
    assert page.url.startswith("file://")
    assert IDS.payments_needs_ledger in facts_listed(search(page, "ledger entries"))
    assert facts_listed(search(page, "private note")) == []
    search(page, "charges post ledger entries")
    page.click(f'#search-results [data-id="{IDS.payments_needs_ledger}"]')
    assert page.evaluate("window.memlens.view.selected.id") == IDS.payments_api
    card = page.locator(f'#detail [data-fact-id="{IDS.payments_needs_ledger}"]')
    assert "flash" in card.get_attribute("class").split()
    assert [r for r in site_page.requests if not r.startswith("file://")] == []
    assert site_page.console_errors == []


def test_a_site_pages_search_box_hands_its_words_to_the_graph_page(browser, tmp_path):
    folder = tmp_path / "site"
    write_site(project_snapshot(), folder)
    opened = open_report(browser, folder / "entities" / "index.html", wait_for_graph=False)
    try:
        page = opened.page
        page.fill("#site-search", "charges post ledger entries")
        page.press("#site-search", "Enter")
        page.wait_for_function("() => Boolean(window.memlens && window.memlens.ready)")
        assert page.url.startswith("file://") and page.url.endswith("/site/index.html#search=charges%20post%20ledger%20entries")
        page.evaluate("() => window.memlens.search.indexed()")
        page.wait_for_selector(f'#search-results [data-id="{IDS.payments_needs_ledger}"]')
        assert facts_listed(page.evaluate(OPTIONS))[0] == IDS.payments_needs_ledger
        assert page.input_value("#search-input") == "charges post ledger entries"
        assert [r for r in opened.requests if not r.startswith("file://")] == []
        assert opened.console_errors == []
    finally:
        opened.close()


def test_hostile_text_in_a_facts_words_is_listed_as_text(browser, tmp_path):
    opened = open_report(browser, write_report(hostile_snapshot(), tmp_path / "hostile.html"))
    try:
        page = opened.page
        options = search(page, "fact onerror alert")
        assert facts_listed(options)
        snippet = page.locator("#search-results .search-fact .option-snippet").first
        text = snippet.inner_text()
        assert "</script><script>alert(1)</script>" in text and "<img src=x onerror" in text
        assert page.locator("#search-results img, #search-results script").count() == 0
        assert page.locator("#search-results mark").count() > 0  # the words found, marked as text
        assert opened.dialogs == [] and opened.csp_violations() == []
    finally:
        opened.close()
