"""A 10,000-entity memory with hubs and no evidence on any fact: what the page renders at load or on
one click, and what one site page holds, stays bounded, while every count is exact and every fact
is one more click (or link) away. Speed is measured by benchmarks/bench_shapes.py, not here."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from shape_snapshots import shape_snapshot
from viewer_fixtures import opened_report, parse_page

from memlens.viewer.model.links import entity_page_names
from memlens.viewer.model.snapshot_index import SnapshotIndex
from memlens.viewer.model.printed_commands import dataset_flag
from memlens.viewer.model.worklist import task_of
from memlens.viewer.report.page import MAINTENANCE_PREVIEW, fact_words_in
from memlens.viewer.site.build import write_site
from memlens.viewer.site.entity_plan import PREVIEW_CARDS

pytestmark = pytest.mark.browser
ENTITIES = 10_000
DOM_LIMIT = 20_000
GROUP_CARDS, GROUP_PAGE = 10, 100     # static/detail_panel.js
SITE_PAGE_LIMIT = 1_000_000


@pytest.fixture(scope="module")
def snapshot():
    return shape_snapshot("hubs-no-evidence", ENTITIES)


@pytest.fixture(scope="module")
def hub(snapshot):
    """The entity with the most facts, and its facts."""
    facts_of: dict[str, list[dict]] = {}
    for fact in snapshot["facts"]:
        for end in {fact["subject"], fact["object"]} - {None}:
            facts_of.setdefault(end, []).append(fact)
    hub_id = max(facts_of, key=lambda e: len(facts_of[e]))
    return hub_id, facts_of[hub_id]


@pytest.fixture(scope="module")
def report(snapshot, browser, tmp_path_factory):
    yield from opened_report(browser, snapshot, tmp_path_factory.mktemp("hub-report"), graph_timeout_ms=60_000)


@pytest.fixture(scope="module")
def site(snapshot, tmp_path_factory) -> Path:
    return write_site(snapshot, tmp_path_factory.mktemp("hub-site") / "site")


def current_groups(hub_id: str, facts: list[dict]) -> Counter:
    """What the panel shows by default, per group: current facts by direction and relation."""
    return Counter(("out:" if f["subject"] == hub_id else "in:") + f["relation"]
                   for f in facts if f["status"] == "current")


def test_the_worklist_is_grouped_with_the_stores_counts_and_pages_in_the_rest(report, snapshot):
    page = report.page
    kinds = Counter(item["kind"] for item in snapshot["maintenance"])
    assert kinds["unsupported"] == snapshot["stats"]["current"] > 20_000  # every current fact lacks evidence
    page.click("#tab-maintenance")
    groups = page.locator('.maint-group[data-list="worklist"]')
    shown = {groups.nth(i).get_attribute("data-kind"): int(groups.nth(i).get_attribute("data-count"))
             for i in range(groups.count())}
    assert shown == dict(kinds)
    unsupported = page.locator('.maint-group[data-kind="unsupported"]')
    assert f"{kinds['unsupported']:,} facts have no evidence" in unsupported.locator("h4").inner_text()
    rows = unsupported.locator("tbody tr")
    assert rows.count() == MAINTENANCE_PREVIEW < kinds["unsupported"]
    unsupported.locator(".maint-show-more").click()
    rows.nth(MAINTENANCE_PREVIEW + 99).wait_for()     # the rest is read from its block on this first click
    assert rows.count() == MAINTENANCE_PREVIEW + 100
    # the rows the build rendered and those the page paged in read alike, as the build words them
    index = SnapshotIndex(snapshot)
    tasks = [task_of(i, index.name, fact_words_in(index), dataset_flag(snapshot))
             for i in snapshot["maintenance"] if i["kind"] == "unsupported"][:MAINTENANCE_PREVIEW + 100]
    assert rows.locator(".task-sentence").all_inner_texts() == [t.sentence for t in tasks]
    assert rows.locator(".task-command").all_inner_texts() == [c for t in tasks for _, c in t.commands]
    assert rows.nth(MAINTENANCE_PREVIEW + 99).locator("[data-ref-kind=fact]").count() == 1
    # ... and are drawn alike (report/maintenance_rows.py on the build's side, maintenance.js on the page's)
    def shape(row: int) -> str:
        return re.sub(r">[^<]*<", "><", rows.nth(row).locator("td").first.evaluate("cell => cell.outerHTML"))
    assert shape(0) == shape(MAINTENANCE_PREVIEW) and shape(0).startswith('<td><p class="task-sentence">')
    assert report.console_errors == [] and report.csp_violations() == []


def test_the_page_at_load_holds_a_bounded_number_of_elements(report, snapshot):
    elements = report.page.evaluate("() => document.getElementsByTagName('*').length")
    drawn = report.page.evaluate("() => window.memlens.network.body.data.nodes.length")
    assert 0 < drawn < ENTITIES and elements <= DOM_LIMIT
    assert len(snapshot["maintenance"]) > DOM_LIMIT  # one element per worklist row would not have fit


def test_selecting_the_hub_shows_exact_counts_and_a_bounded_number_of_lines(report, hub):
    hub_id, facts = hub
    page = report.page
    page.click("#tab-graph")
    page.evaluate("(id) => window.memlens.selectEntityById(id)", hub_id)
    expected = current_groups(hub_id, facts)
    assert sum(expected.values()) > 5_000
    groups = page.locator("#detail .fact-group")
    counted = {groups.nth(i).get_attribute("data-group"): int(groups.nth(i).locator(".fact-group-count").inner_text()
                                                                  .replace(",", ""))
               for i in range(groups.count())}
    assert counted == dict(expected)
    total = page.locator("#detail .detail-section .muted").first.inner_text()
    assert int(total.replace(",", "")) == sum(expected.values())
    lines = page.locator("#detail .fact-row").count()       # a fact is one line until opened
    assert lines == sum(min(count, GROUP_CARDS) for count in expected.values()) < sum(expected.values())
    assert page.locator("#detail article.fact").count() == 0


def test_show_all_pages_through_every_fact_of_the_hubs_largest_group(report, hub):
    hub_id, facts = hub
    page = report.page
    page.evaluate("(id) => window.memlens.selectEntityById(id)", hub_id)
    key, count = current_groups(hub_id, facts).most_common(1)[0]
    assert count > GROUP_PAGE
    group = page.locator(f'#detail .fact-group[data-group="{key}"]')
    group.locator(".group-show-all").click()
    seen: list[str] = []
    while True:
        lines = group.locator(".fact-toggle")
        assert 0 < lines.count() <= GROUP_PAGE
        seen += [lines.nth(i).get_attribute("data-fact") for i in range(lines.count())]
        following = group.locator('.group-page:has-text("Next")').first
        if following.is_disabled():
            break
        following.click()
    direction, relation = key.split(":", 1)
    wanted = {f["id"] for f in facts if f["status"] == "current" and f["relation"] == relation
              and (f["subject"] == hub_id) == (direction == "out")}
    assert len(seen) == len(set(seen)) == count and set(seen) == wanted


def test_the_sites_hub_page_and_its_pages_hold_a_card_for_every_fact(site, snapshot, hub):
    hub_id, facts = hub
    main = site / "entities" / entity_page_names(snapshot["entities"])[hub_id]
    own = parse_page(main.read_text(encoding="utf-8"))
    own_cards = {e.attrs["id"] for e in own.find_all("article") if e.attrs.get("id", "").startswith("fact-")}
    linked = sorted({a.attrs["href"] for a in own.find_all("a")
                     if a.attrs.get("href", "").startswith(main.stem + "--")})
    groups = {(f["subject"] == hub_id, f["relation"]) for f in facts}
    assert linked and len(own_cards) <= PREVIEW_CARDS * len(groups) < len(facts)
    cards = set(own_cards)
    for name in linked:
        path = site / "entities" / name
        assert path.stat().st_size <= SITE_PAGE_LIMIT
        cards |= {e.attrs["id"] for e in parse_page(path.read_text(encoding="utf-8")).find_all("article")
                  if e.attrs.get("id", "").startswith("fact-")}
    assert main.stat().st_size <= SITE_PAGE_LIMIT
    assert cards == {"fact-" + f["id"] for f in facts}


def test_every_link_to_a_hub_fact_leads_to_a_page_with_its_card(site, hub):
    hub_id, facts = hub
    wanted = {f["id"] for f in facts}
    parsed: dict[str, object] = {}
    checked = 0
    for path in sorted((site / "entities").glob("*.html"))[:400]:
        for a in parse_page(path.read_text(encoding="utf-8")).find_all("a"):
            target, _, fragment = a.attrs.get("href", "").partition("#fact-")
            if fragment in wanted and target:
                if target not in parsed:
                    parsed[target] = parse_page((path.parent / target).read_text(encoding="utf-8"))
                assert parsed[target].by_id("fact-" + fragment).tag == "article"
                checked += 1
    assert checked > 100 and len(parsed) > 1  # links into the hub's own pages, not only its first
