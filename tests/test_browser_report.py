"""The report in a real browser: offline, drawn, searchable, clickable, time-travelling."""

from __future__ import annotations

import pytest
from viewer_fixtures import project_ids, project_snapshot

pytestmark = pytest.mark.browser


@pytest.fixture
def report(project_report):
    return project_report


IDS = project_ids()


def edge(report, fact_id):
    return report.page.evaluate("(id) => window.memlens.network.body.data.edges.get(id)", fact_id)


def edge_hidden(report, fact_id) -> bool:
    """Not drawn: a current fact's edge is hidden, a retired fact's is not handed to vis at all."""
    drawn = edge(report, fact_id)
    return drawn is None or drawn["hidden"] is True


def panel_text(report):
    return report.page.locator("#detail").inner_text()


def test_graph_draws_offline_without_requests_errors_or_csp_violations(report):
    page = report.page
    assert page.evaluate("window.memlens.ready") is True
    nodes = page.evaluate("window.memlens.network.body.data.nodes.getIds()")
    assert IDS.alice in nodes and IDS.payments_api in nodes
    assert page.evaluate("window.memlens.network.physics.options.enabled") is False
    assert report.requests == [report.url]
    assert report.console_errors == []
    assert report.csp_violations() == []


def test_search_focuses_and_selects_the_entity(report):
    page = report.page
    page.fill("#search-input", "payments-a")
    options = page.locator("#search-results [role=option]")
    assert options.first.inner_text().startswith("payments-api")
    page.press("#search-input", "Enter")
    assert page.evaluate("window.memlens.network.getSelectedNodes()") == [IDS.payments_api]
    assert page.locator("#detail h2").inner_text() == "payments-api"
    assert page.locator("#search-results").is_hidden()


def test_clicking_a_node_on_the_canvas_lists_its_facts(report):
    page = report.page
    report.show_fact_cards()
    assert panel_text(report) == ""            # the panel waits beside the graph until it is asked for
    page.click("#detail-open")
    assert "Nothing selected" in panel_text(report)
    point = page.evaluate("""(id) => {
        const network = window.memlens.network;
        return network.canvasToDOM(network.getPositions([id])[id]);
    }""", IDS.alice)
    box = page.locator("#graph").bounding_box()
    page.mouse.click(box["x"] + point["x"], box["y"] + point["y"])
    assert page.locator("#detail h2").inner_text() == "alice"
    card = page.locator(f'#detail [data-fact-id="{IDS.alice_at_acme}"]')
    assert "works_at" in card.inner_text() and "Acme Corp" in card.inner_text()
    assert "https://acme.example/team/alice" in card.inner_text()
    link = card.locator("a")
    assert link.get_attribute("href") == "https://acme.example/team/alice"
    assert link.get_attribute("rel") == "noopener noreferrer"
    assert card.locator(".evidence-text").first.inner_text() == "user said 2026-03-05"
    assert "agent:claude" in card.inner_text() and "valid since 2025-06-01" in card.inner_text()


def test_contested_tag_shows_on_both_contested_facts(report):
    page = report.page
    report.show_fact_cards()
    page.evaluate("(id) => window.memlens.selectEntityById(id)", IDS.payments_api)
    for mine, other in ((IDS.payments_needs_ledger, IDS.ledger_needs_payments),
                        (IDS.ledger_needs_payments, IDS.payments_needs_ledger)):
        card = page.locator(f'#detail [data-fact-id="{mine}"]')
        assert card.locator(".tag-contested").first.is_visible()
        text = card.inner_text()
        assert "a dependency cycle between payments-api and ledger-service" in text
        assert "confidence 0.70" in text
        assert card.locator(f'.contested-other [data-ref-id="{other}"]').count() == 1
    uncontested = page.locator('#detail .fact:not(.is-contested)')
    assert uncontested.count() > 0 and uncontested.locator(".tag-contested").count() == 0


def test_superseded_facts_are_hidden_until_toggled_then_drawn_dashed(report):
    page = report.page
    report.show_fact_cards()
    assert edge(report, IDS.alice_at_acme)["hidden"] is False
    assert edge(report, IDS.alice_at_globex) is None  # retired and not shown: not in vis's data at all
    page.evaluate("(id) => window.memlens.selectEntityById(id)", IDS.alice)
    assert page.locator(f'#detail [data-fact-id="{IDS.alice_at_globex}"]').count() == 0
    page.check("#show-superseded")
    shown = edge(report, IDS.alice_at_globex)
    assert shown["hidden"] is False and shown["dashes"]
    assert not edge(report, IDS.alice_at_acme)["dashes"]
    card = page.locator(f'#detail [data-fact-id="{IDS.alice_at_globex}"]')
    assert "alice moved to Acme in June 2025" in card.inner_text()
    assert card.locator(f'.retired-box [data-ref-id="{IDS.alice_at_acme}"]').count() == 1
    page.uncheck("#show-superseded")
    assert edge(report, IDS.alice_at_globex) is None
    assert edge(report, IDS.alice_at_acme)["hidden"] is False


def travel(page, slider: str, view_key: str, value) -> None:
    """Move a time slider with the keyboard, stop by stop from the far left, until the view is at `value`."""
    page.focus(slider)
    page.keyboard.press("Home")
    for _ in range(500):
        if page.evaluate("(key) => window.memlens.view[key]", view_key) == value:
            return
        page.keyboard.press("ArrowRight")
    raise AssertionError(f"{slider} has no stop at {value!r}")


def test_record_time_as_of_hides_a_fact_until_it_was_recorded(report):
    page = report.page
    report.show_fact_cards()
    times = page.evaluate("() => window.memlens.times")
    recorded = next(f["recorded_at"] for f in project_snapshot()["facts"] if f["id"] == IDS.alice_at_acme)
    before = times.index(recorded) - 1
    page.evaluate("(id) => window.memlens.selectEntityById(id)", IDS.alice)
    assert edge(report, IDS.alice_at_acme)["hidden"] is False
    travel(page, "#asof-record", "asOfRecord", before)
    assert page.locator("#asof-record-value").inner_text() == times[before][:16].replace("T", " ")
    assert edge(report, IDS.alice_at_acme)["hidden"] is True
    assert page.locator(f'#detail [data-fact-id="{IDS.alice_at_acme}"]').count() == 0
    assert edge(report, IDS.alice_at_globex)["hidden"] is False  # still believed then
    page.keyboard.press("ArrowRight")
    assert edge(report, IDS.alice_at_acme)["hidden"] is False
    assert page.locator(f'#detail [data-fact-id="{IDS.alice_at_acme}"]').count() == 1
    page.click("#reset-view")
    assert page.locator("#asof-record-value").inner_text() == "now"


def test_valid_time_control_shows_what_was_true_then(report):
    page = report.page
    travel(page, "#asof-valid", "asOfValid", "2024-03-01")
    assert page.locator("#asof-valid-value").inner_text() == "2024-03-01"
    assert not page.locator("#asof-valid-any").is_checked()
    assert edge(report, IDS.alice_at_acme)["hidden"] is True     # valid from 2025-06-01
    assert not page.locator("#show-superseded").is_checked()
    assert edge(report, IDS.alice_at_globex)["hidden"] is False  # 2024-03-01 .. 2025-06-01, superseded since
    assert edge_hidden(report, IDS.alice_at_initech)            # ended 2024-03-01
    page.check("#asof-valid-any")
    assert page.locator("#asof-valid-value").inner_text() == "any time"
    assert edge(report, IDS.alice_at_acme)["hidden"] is False
    assert edge_hidden(report, IDS.alice_at_globex)              # superseded: hidden until asked for


def test_keyboard_slash_searches_enter_picks_escape_closes(report):
    page = report.page
    page.locator("body").press("/")
    assert page.evaluate("document.activeElement.id") == "search-input"
    page.keyboard.type("ledger-serv")
    page.keyboard.press("Enter")
    assert page.locator("#detail h2").inner_text() == "ledger-service"
    page.locator("#graph").focus()
    page.keyboard.press("Escape")
    assert "Nothing selected" in panel_text(report)


def test_type_filter_hides_nodes_of_that_type(report):
    page = report.page
    chip = page.locator('.type-chip[data-type="Person"]')
    chip.click()
    assert chip.get_attribute("aria-pressed") == "false"
    hidden = page.evaluate("(id) => window.memlens.network.body.data.nodes.get(id).hidden", IDS.alice)
    assert hidden is True
    assert page.evaluate("(id) => window.memlens.network.body.data.nodes.get(id).hidden", IDS.payments_api) is False
    chip.click()
    assert page.evaluate("(id) => window.memlens.network.body.data.nodes.get(id).hidden", IDS.alice) is False


def test_ledger_is_filterable_and_its_targets_focus_what_they_touched(report):
    page = report.page
    page.click("#tab-provenance")
    assert page.locator("#panel-graph").is_hidden()
    rows = page.locator("#ledger-rows tr")
    assert rows.count() == 62
    page.select_option("#ledger-action", "merge")
    assert rows.count() == 1
    page.select_option("#ledger-action", "")
    page.select_option("#ledger-actor", "cli:bob")
    assert 0 < rows.count() < 62
    assert all(t == "cli:bob" for t in rows.locator("td:nth-child(3)").all_inner_texts())
    page.select_option("#ledger-actor", "")
    page.select_option("#ledger-action", "supersede")
    page.locator(f'#ledger-rows [data-ref-id="{IDS.alice_at_globex}"]').first.click()
    assert page.locator("#panel-graph").is_visible()
    assert page.locator("#detail h2").inner_text() == "alice"
    assert page.locator(f'#detail [data-fact-id="{IDS.alice_at_globex}"]').is_visible()  # toggled on


def test_maintenance_refs_focus_the_entity(report):
    page = report.page
    page.click("#tab-maintenance")
    page.locator(".worklist [data-ref-kind=entity]").first.click()
    assert page.locator("#panel-graph").is_visible()
    assert page.locator("#detail h2").inner_text() in ("idempotency keys", "idempotency key")
    assert report.console_errors == [] and report.csp_violations() == []


def test_timeline_caption_button_focuses_the_entity(report):
    page = report.page
    page.click("#tab-timelines")
    button = page.locator(f"#timeline-key-{IDS.alice}-works_at .tl-show")
    button.focus()
    page.keyboard.press("Enter")
    assert page.locator("#panel-graph").is_visible()
    assert page.locator("#detail h2").inner_text() == "alice"


def test_the_page_folds_names_as_the_store_does(report):
    from memlens.store.ids import normalize_name

    names = ["Émile", "  ÉMILE\t", "Straße", "STRASSE", "ΣΊΣΥΦΟΣ", "billing   service", "İstanbul", "ǅemal", "ﬁle"]
    assert report.page.evaluate("(names) => names.map(window.memlens.foldName)", names) == [normalize_name(n) for n in names]
    page = report.page
    page.fill("#search-input", "  PAYMENTS-a")
    assert page.locator("#search-results [role=option]").first.inner_text().startswith("payments-api")
