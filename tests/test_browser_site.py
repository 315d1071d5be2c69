"""The site and the deep links in a real browser: from file:// and from a static server, with
scripts on and off, hostile text included."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import pytest
from viewer_fixtures import (HOSTILE_PAYLOADS, changed_project, entity_id,
                             hostile_snapshot, inflated, open_report, project_ids)

from memlens.viewer.report.write import write_report
from memlens.viewer.site.build import write_site

pytestmark = pytest.mark.browser
IDS = project_ids()


@pytest.fixture(scope="module")
def changed():
    return changed_project()


@pytest.fixture(scope="module")
def site(tmp_path_factory, changed):
    return write_site(changed.new, tmp_path_factory.mktemp("site") / "memory", changes=changed.changes)


@pytest.fixture(scope="module")
def report_path(tmp_path_factory, changed):
    return write_report(changed.new, tmp_path_factory.mktemp("report") / "report.html", changes=changed.changes)


@pytest.fixture(scope="module")
def server(site):
    """python -m http.server on 127.0.0.1 serving the site; stopped when the module is done."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                                "--directory", str(site)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("http.server did not start")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.terminate()
        process.wait(timeout=10)


def entity_page(site, name: str) -> str:
    return next((site / "entities").glob(f"{name}-{entity_id(name)[:8]}.html")).name


def assert_clean(opened, origin: str) -> None:
    assert opened.requests, "the page made no request at all?"
    assert all(url.startswith(origin) for url in opened.requests), opened.requests
    assert opened.console_errors == []
    assert opened.csp_violations() == []


def test_the_site_graph_draws_from_file_with_the_network_blocked(browser, site):
    opened = open_report(browser, site / "index.html")
    try:
        page = opened.page
        assert page.evaluate("window.memlens.ready") is True
        assert IDS.alice in page.evaluate("window.memlens.network.body.data.nodes.getIds()")
        loaded = {url.rsplit("/", 2)[-2] + "/" + url.rsplit("/", 1)[-1] for url in opened.requests}
        assert {"assets/vis-network.min.js", "assets/memlens.js", "assets/memlens.css"} <= loaded
        assert_clean(opened, site.as_uri() + "/")
        page.evaluate("(id) => window.memlens.selectEntityById(id)", IDS.alice)
        link = page.locator("#detail-page")
        assert link.get_attribute("href") == f"entities/{entity_page(site, 'alice')}"
        link.click()
        page.wait_for_url("**/entities/alice-*.html")
        assert page.locator("h1").inner_text() == "alice"
    finally:
        opened.close()


def test_an_entity_page_reads_from_file_and_its_links_work(browser, site, changed):
    opened = open_report(browser, site / "entities" / entity_page(site, "ledger-service"), wait_for_graph=False)
    try:
        page = opened.page
        assert page.locator("h1").inner_text() == "ledger-service"
        card = page.locator(f"#fact-{changed.superseded_fact}")
        assert "superseded" in card.inner_text() and "the ledger moved to the platform team" in card.inner_text()
        assert page.locator("#timeline svg.timeline-svg").is_visible()
        assert page.locator("#history tbody tr").count() >= 10
        assert page.locator("#provenance tbody tr").count() >= 10
        page.locator(f'#timeline .tl-row[data-fact="{changed.added_fact}"]').click()  # a row jumps to its card
        assert page.evaluate("location.hash") == f"#fact-{changed.added_fact}"
        assert_clean(opened, site.as_uri() + "/")
        page.get_by_role("link", name="Show in the graph").click()
        page.wait_for_function("() => Boolean(window.memlens && window.memlens.ready)")
        assert page.locator("#detail h2").inner_text() == "ledger-service"
        assert page.evaluate("window.memlens.network.getSelectedNodes()") == [entity_id("ledger-service")]
    finally:
        opened.close()


def test_the_site_works_from_a_plain_static_server(browser, server, site):
    opened = open_report(browser, None, url=server + "index.html")
    try:
        page = opened.page
        assert page.evaluate("window.memlens.ready") is True
        assert_clean(opened, server)
        page.goto(server + "entities/" + entity_page(site, "alice"))
        assert page.locator("h1").inner_text() == "alice"
        assert page.locator(f"#fact-{IDS.alice_at_acme}").is_visible()
        page.goto(server + "ledger/index.html")
        assert page.locator("table.ledger tbody tr").count() > 50
        page.goto(server + "contested.html")
        assert page.locator(".contradiction .tag-contested").count() >= 1
        assert_clean(opened, server)
    finally:
        opened.close()


def test_with_scripts_off_an_entity_page_lists_its_facts(browser, site):
    opened = open_report(browser, site / "entities" / entity_page(site, "alice"), wait_for_graph=False,
                         javascript=False)
    try:
        page = opened.page
        text = page.locator("main").inner_text()
        assert "works_at" in text and "Acme Corp" in text and "Globex" in text and "Initech" in text
        assert "https://acme.example/team/alice" in text and "valid since 2025-06-01" in text
        assert "superseded" in text and "alice moved to Acme in June 2025" in text
        assert page.locator("#entity-filter").count() == 0  # that is the entity list's, not here
        page.goto((site / "entities" / "index.html").as_uri())
        assert page.locator("#entity-filter").is_hidden()  # a filter that needs script is not offered
        assert page.locator("#entity-rows tr").count() == len(changed_project().new["entities"])
        page.goto((site / "index.html").as_uri())
        notice = page.locator(".no-script")
        assert "The graph needs JavaScript" in notice.inner_text() and notice.is_visible()
        assert notice.bounding_box()["y"] < 400                      # where the graph would be, not below it
        assert page.locator("#graph").is_hidden()                    # no empty box to wonder at
        # the site index has one menu: the graph's tabs, then the site's own pages
        assert page.locator("nav.site-nav").count() == 0
        assert [" ".join(t.split()) for t in page.locator("nav.tabs a.tab-page").all_inner_texts()] == [
            "Entities 22", "Ledger 67", "Contradictions 1", "Maintenance 2"]
        page.goto((site / "maintenance.html").as_uri())
        assert "auth-service really uses both Redis and SQLAlchemy" in page.locator("body").inner_text()
    finally:
        opened.close()


@pytest.mark.parametrize("key", ["alice", "ALICE", IDS.alice, IDS.alice[:8]])
def test_a_deep_link_selects_and_focuses_the_entity(browser, report_path, key):
    opened = open_report(browser, report_path, fragment=f"#entity={key}")
    try:
        page = opened.page
        assert page.locator("#detail h2").inner_text() == "alice"
        assert page.evaluate("window.memlens.network.getSelectedNodes()") == [IDS.alice]
        assert page.evaluate("location.hash") == f"#entity={IDS.alice}"  # the address names it exactly
        assert opened.console_errors == [] and opened.csp_violations() == []
    finally:
        opened.close()


def test_a_fact_deep_link_selects_its_subject_and_highlights_the_fact(browser, site):
    opened = open_report(browser, site / "index.html", fragment=f"#fact={IDS.alice_at_globex}")
    try:
        page = opened.page
        assert page.locator("#detail h2").inner_text() == "alice"
        card = page.locator(f'#detail [data-fact-id="{IDS.alice_at_globex}"]')
        assert card.is_visible() and "flash" in card.get_attribute("class")  # superseded, so shown on purpose
        page.evaluate("(id) => { location.hash = 'entity=' + id; }", IDS.payments_api)
        page.wait_for_function("() => document.querySelector('#detail h2').textContent === 'payments-api'")
        page.evaluate("() => { location.hash = 'entity=nobody-by-that-name'; }")
        page.wait_for_function("() => document.getElementById('graph-status').textContent.includes('Nothing in this memory')")
        assert page.locator("#detail h2").inner_text() == "payments-api"  # a bad link changes nothing
        assert opened.console_errors == [] and opened.csp_violations() == []
    finally:
        opened.close()


def test_the_changes_panel_shows_counts_and_links_into_the_graph(browser, report_path, changed):
    opened = open_report(browser, report_path)
    try:
        page = opened.page
        page.locator(".changes-banner a").click()
        panel = page.locator("#panel-changes")
        panel.wait_for(state="visible")               # the page follows the link's hashchange, an event later
        assert panel.is_visible() and page.locator("#panel-graph").is_hidden()
        text = panel.inner_text()
        assert "added\n2" in text and "superseded\n1" in text and "forgotten\n1" in text
        assert f"forgotten fact {changed.forgotten_fact[:8]}" in text
        everything = inflated(page.content())
        assert "repo://ledger/publish.py#L12" in everything
        assert all(said not in everything for said in changed.forgotten_texts)
        panel.locator(f'[data-ref-id="{changed.added_fact}"]').click()
        assert page.locator("#panel-graph").is_visible()
        assert page.locator("#detail h2").inner_text() == "ledger-service"
        assert page.locator(f'#detail [data-fact-id="{changed.added_fact}"]').is_visible()
        assert opened.console_errors == [] and opened.csp_violations() == []
    finally:
        opened.close()


def test_a_hostile_site_runs_no_script_and_shows_the_text(browser, tmp_path):
    snapshot = hostile_snapshot()
    root = write_site(snapshot, tmp_path / "hostile")
    first = snapshot["entities"][0]
    page_name = next(p.name for p in (root / "entities").glob(f"*-{first['id'][:8]}.html"))
    opened = open_report(browser, root / "entities" / page_name, wait_for_graph=False)
    try:
        page = opened.page
        text = page.locator("body").inner_text()
        for payload in HOSTILE_PAYLOADS:
            if "\u2028" not in payload:
                assert payload in text, payload
        assert page.locator("img").count() == 0 and opened.dialogs == []
        links = page.locator(".fact-evidence a")
        assert links.count() >= 1
        assert all(links.nth(i).get_attribute("href").startswith("https://example.com/") for i in range(links.count()))
        for other in ("index.html", "contested.html", "maintenance.html", "ledger/index.html", "entities/index.html"):
            page.goto((root / other).as_uri())
            assert page.locator("img").count() == 0
        page.wait_for_function("() => !window.memlens || window.memlens.ready")
        assert opened.dialogs == [] and opened.console_errors == [] and opened.csp_violations() == []
        assert all(url.startswith(root.as_uri() + "/") for url in opened.requests)
    finally:
        opened.close()
