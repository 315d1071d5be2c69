"""A report and a site of the MCP memory server's file: its hostile names and observations read as
text, and its observations listed under their entity in the file's order, never as entities."""
from __future__ import annotations

import hashlib

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
        assert "{{ 7*7 }}" in lines and "links_script_to" in lines and "relationType as written" not in lines
        report.show_fact_cards()                              # each card: the descriptions too
        panel = page.locator("#detail").inner_text()
        for shown in ("{{ 7*7 }}", "javascript:alert(3)", "<b>bold</b>", 'links_script_to',
                      'relationType as written: "links </script> to"', '<img src=x onerror="alert(2)">'):
            assert shown in panel, shown
        page.screenshot(path=str(tmp_path / "mcp.png"))
        assert report.dialogs == [] and report.console_errors == [] and report.csp_violations() == []
        assert report.requests == [report.url]
        assert page.locator("#detail b, #detail img, #detail script").count() == 0
    finally:
        report.close()


# -- observations: listed under their entity, never counted, ranked, drawn or in the legend ---------

BILLING = "billing-service"
OBSERVED_FIRST = ["Invoices merchants monthly", "Written in Go", "Retries failed charges 3 times"]   # state-1's order
ENTITIES = {"billing-service", "Priya Natarajan", "payments-db", HOSTILE, "Stripe"}


def header_counts(page) -> dict[str, int]:
    cells = page.locator("#header-counts > div")
    return {cells.nth(i).get_attribute("data-count"): int(cells.nth(i).locator("dd").inner_text().replace(",", ""))
            for i in range(cells.count())}


def observation_panel(page) -> dict:
    """The selected entity's observations as its panel lists them, and its other facts."""
    return page.evaluate("""() => {
        const section = document.querySelector('#detail section.observations');
        const rows = section ? [...section.querySelectorAll('.observation-row')] : [];
        return {
          numbers: rows.map((r) => r.querySelector('.observation-number').textContent),
          texts: rows.map((r) => r.querySelector('.observation-text').textContent),
          retired: rows.map((r) => r.classList.contains('is-retired')),
          sources: section ? [...section.querySelectorAll('.observation-source')].map((p) => p.textContent) : [],
          repeated: section ? (section.textContent.match(/validity not stated/g) || []).length : 0,
          cards: [...document.querySelectorAll('#detail article.fact')].map((a) => a.textContent),
        }; }""")


def test_observations_are_listed_under_their_entity_and_are_no_entities(browser, tmp_path):
    snapshot = read_snapshot("mcp-memory", FIXTURES / "state-1.jsonl")
    report = open_report(browser, write_report(snapshot, tmp_path / "mcp.html"))
    try:
        page = report.page
        counts = header_counts(page)
        assert (counts["entities"], counts["observations"]) == (5, 8)     # a file of 5 entities, 8 observations
        assert counts["facts"] == 12                                        # each observation is also a fact
        chips = page.locator(".type-chip").evaluate_all("(chips) => chips.map((c) => c.dataset.type)")
        assert "Service" in chips and "Person" in chips and "Observation" not in chips
        assert page.locator("#about").inner_text().count("Observation") == 0
        drawn = {page.evaluate("(id) => window.memlens.memory.entityById.get(id).name", i) for i in report.drawn_ids()}
        assert drawn == ENTITIES                                            # every entity drawn, no observation
        assert page.locator("#graph-status").inner_text().startswith("5 entities shown")

        page.click("#detail-open")                                          # nothing selected: the ways in
        hubs = page.locator(".overview-list li").all_inner_texts()
        assert hubs[0].startswith(BILLING) and hubs[0].endswith("4 links")  # its links, not its notes
        assert {hub.rsplit("\n", 1)[0].strip() for hub in hubs} == ENTITIES

        billing = next(e["id"] for e in snapshot["entities"] if e["name"] == BILLING)
        page.evaluate("(id) => window.memlens.selectEntityById(id)", billing)
        report.show_fact_cards()
        listed = observation_panel(page)
        assert listed["texts"] == OBSERVED_FIRST and listed["numbers"] == ["1.", "2.", "3."]
        [source] = listed["sources"]                                        # said once, not on every card
        digest = "sha256:" + hashlib.sha256((FIXTURES / "state-1.jsonl").read_bytes()).hexdigest()
        assert source.startswith(f"state-1.jsonl {digest[:23]}") and "validity not stated" in source
        assert "by mcp-memory" in source and listed["repeated"] == 1
        # its other facts are cards, each with its own validity and evidence; no card of an observation
        assert len(listed["cards"]) == 4 and all("validity not stated" in card for card in listed["cards"])
        assert not any(text in card for card in listed["cards"] for text in OBSERVED_FIRST)
        assert page.locator("#detail .facts-head h3").text_content() == "Facts 4"

        # an observation reached by search is shown where it is listed: under its entity
        page.fill("#search-input", "Written in Go")
        page.locator("#search-results [role=option]").first.wait_for()
        options = page.locator("#search-results [role=option]").all_inner_texts()
        assert options and all(BILLING in option for option in options)   # the fact that notes it, no entity of its own
        page.locator("#search-results [role=option]").first.click()
        assert page.locator("#detail h2").inner_text() == BILLING
        assert report.dialogs == [] and report.console_errors == [] and report.csp_violations() == []
    finally:
        report.close()


def test_observations_keep_the_files_order_across_imports_and_unstated_validity_draws_no_bar(browser, cli, tmp_path):
    server = tmp_path / "server" / "memory.jsonl"
    server.parent.mkdir()
    for state in ("state-1", "state-2", "state-3"):
        server.write_bytes((FIXTURES / f"{state}.jsonl").read_bytes())
        assert cli("import", "--from", "mcp-memory", str(server), "-d", "mcp").exit_code == 0
    written = cli("remember", "-d", "mcp", f"{BILLING} --runs_on--> k8s:Environment", "--valid-from", "2025-01-01")
    assert written.exit_code == 0, written.output
    path = tmp_path / "mcp.html"
    assert cli("view", "-d", "mcp", "--out", str(path), "--no-open").exit_code == 0
    report = open_report(browser, path)
    try:
        page = report.page
        billing = page.evaluate(f"() => window.memlens.memory.entities.find((e) => e.name === {BILLING!r}).id")
        page.evaluate("(id) => window.memlens.selectEntityById(id)", billing)
        listed = observation_panel(page)
        # the file's order now ("Written in Go" deleted, then added again: last), numbered 1 to 4
        assert listed["texts"] == ["Invoices merchants monthly", "Retries failed charges 3 times", "Rewritten in Rust",
                                   "Written in Go"]
        assert listed["numbers"] == ["1.", "2.", "3.", "4."]
        # three sources (each import cites the file's digest then), each said once
        assert len(listed["sources"]) == 3 and listed["repeated"] == 3
        assert len(set(listed["sources"])) == 3

        # as believed after the second import, with what was deleted shown: in its place, no number
        second = page.evaluate("""() => { const m = window.memlens.memory;
            return Math.max(...m.facts.filter((f) => f.status === 'retracted').map((f) => f.retiredAt)); }""")
        page.evaluate("(at) => window.memlens.update({ asOfRecord: at, showSuperseded: true })", second)
        then = observation_panel(page)
        assert then["texts"] == ["Invoices merchants monthly", "Retries failed charges 3 times", "Rewritten in Rust",
                                 "Written in Go"]
        assert then["retired"] == [False, False, False, True] and then["numbers"] == ["1.", "2.", "3.", ""]
        page.evaluate("() => window.memlens.update({ asOfRecord: null, showSuperseded: false })")

        page.click("#tab-timelines")
        figure = page.locator(f"[id='timeline-entity-{billing}']")
        if figure.locator(".tl-unfold").count():
            figure.locator(".tl-unfold").click()
        figure.locator("svg.timeline-svg").wait_for()
        rows = figure.locator(".tl-row").evaluate_all("""(rows) => rows.map((row) => {
            const svg = row.ownerSVGElement, bar = row.querySelector('.tl-bar');
            return { label: row.querySelector('title').textContent, bar: bar ? Number(bar.getAttribute('width')) : null,
                     plot: Number(svg.dataset.plotRight) - Number(svg.dataset.plotLeft),
                     unstated: row.querySelector('.tl-unstated') ? row.querySelector('.tl-unstated').textContent : null,
                     markers: row.querySelectorAll('.tl-m').length }; })""")
        unstated = [row for row in rows if "validity not stated" in row["label"]]
        stated = [row for row in rows if "runs_on" in row["label"]]
        assert len(unstated) >= 4 and all(row["bar"] is None for row in unstated)     # no bar across all of time
        assert all(row["unstated"] == "validity not stated" and row["markers"] for row in unstated)
        [runs_on] = stated                                                          # a stated validity: its bar
        assert runs_on["bar"] is not None and 0 < runs_on["bar"] < runs_on["plot"] and runs_on["unstated"] is None
        page.screenshot(path=str(tmp_path / "timeline.png"), full_page=True)
        assert report.console_errors == [] and report.csp_violations() == []
    finally:
        report.close()


def test_the_sites_entity_page_lists_observations_and_gives_them_no_page(browser, cli, tmp_path):
    from memlens.viewer.site.build import write_site

    snapshot = read_snapshot("mcp-memory", FIXTURES / "state-1.jsonl")
    site = write_site(snapshot, tmp_path / "site")
    pages = sorted(p.name for p in (site / "entities").glob("*.html"))
    assert len(pages) == len(ENTITIES) + 1 and "index.html" in pages     # one page per entity, and the list
    assert not any(text.lower().replace(" ", "-")[:12] in page for page in pages for text in OBSERVED_FIRST)
    [billing] = [p for p in pages if p.startswith("billing-service-")]
    opened = open_report(browser, site / "entities" / "index.html", wait_for_graph=False)
    try:
        names = opened.page.locator("table tbody tr td:first-child").all_inner_texts()
        assert set(names) == ENTITIES
        billing_row = opened.page.locator("table tbody tr", has_text=BILLING).locator("td").all_inner_texts()
        assert billing_row[2:4] == ["4", "4"]           # its facts, as its page counts them: no observation among them
    finally:
        opened.close()
    opened = open_report(browser, site / "entities" / billing, wait_for_graph=False)
    try:
        page = opened.page
        section = page.locator("#observations")
        assert section.locator(".observation-text").all_inner_texts() == OBSERVED_FIRST
        assert section.locator(".observation-number").all_inner_texts() == ["1.", "2.", "3."]
        [source] = section.locator(".observation-source").all_inner_texts()
        assert "state-1.jsonl sha256:" in source and "validity not stated" in source and "by mcp-memory" in source
        assert section.locator(".fact-evidence").count() == 0
        assert page.locator("#facts article.fact").count() == 4     # the other facts keep their cards
        assert page.locator("#facts .fact-evidence").count() == 4
        assert "4 facts: 4 current; 3 observations" in page.locator(".entity-head .fact-meta").inner_text()
        svg = page.locator("#timeline svg.timeline-svg")
        assert svg.locator(".tl-unstated").count() == 7 and svg.locator(".tl-bar").count() == 0
        page.screenshot(path=str(tmp_path / "site-entity.png"), full_page=True)
        assert opened.console_errors == [] and opened.csp_violations() == []
    finally:
        opened.close()
    graph = open_report(browser, site / "index.html")   # the site's graph page: the report's panel, the same words
    try:
        billing_id = next(e["id"] for e in snapshot["entities"] if e["name"] == BILLING)
        graph.page.evaluate("(id) => window.memlens.selectEntityById(id)", billing_id)
        panel = observation_panel(graph.page)
        assert panel["sources"] == [source] and panel["texts"] == OBSERVED_FIRST
    finally:
        graph.close()
