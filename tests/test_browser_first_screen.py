"""The first screen, measured in the browser at 1280x800, 1440x900 and 800x900: every node label
readable and clear of the others on load, nothing that scrolls, and a real mouse click that selects
the node under the pointer the first time; on the demo and on small imported stores, as a report
and as a site's graph page."""
from __future__ import annotations

import itertools

import pytest
from import_fixtures import build_memoose, build_memware
from canvas_text import drawn_nodes, record_frame
from viewer_fixtures import open_report

from memlens.viewer.model.node_box import LABEL_FONT_PX, label_text, label_width

pytestmark = pytest.mark.browser
SIZES = [(1280, 800), (1440, 900), (800, 900)]

# Each drawn node, its name as the canvas draws it (None where it gives way to a better connected
# one), and its centre on the page.
def labels_of(page) -> list[dict]:
    texts = {text["text"]: text for text in record_frame(page)}
    labels = []
    for node in drawn_nodes(page):
        text = texts.get(node["label"])
        box = None if text is None else [text["cx"] - text["width"] / 2, text["cy"] - text["px"] / 2,
                                        text["cx"] + text["width"] / 2, text["cy"] + text["px"] / 2]
        labels.append({"id": node["id"], "text": node["label"], "drawn": text is not None,
                       "px": text["px"] if text else 0, "box": box, "centre": [node["x"], node["y"]]})
    return labels


def overlapping(labels: list[dict]) -> list[tuple[str, str]]:
    drawn = [label for label in labels if label["drawn"]]
    return [(a["text"], b["text"]) for a, b in itertools.combinations(drawn, 2)
            if a["box"][0] < b["box"][2] and b["box"][0] < a["box"][2]
            and a["box"][1] < b["box"][3] and b["box"][1] < a["box"][3]]


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The demo's report, and reports and a site of small memoose and memware stores."""
    from click.testing import CliRunner

    from memlens.viewer.cli import main

    root = tmp_path_factory.mktemp("first-screen")
    runner = CliRunner(env={"MEMLENS_HOME": str(root / "home")})

    def run(*args: str) -> None:
        result = runner.invoke(main, list(args), catch_exceptions=False)
        assert result.exit_code == 0, result.output

    build_memoose(root / "memoose.sqlite")
    build_memware(root / "memware.db")
    run("demo")
    run("view", "-d", "demo", "--out", str(root / "demo.html"), "--no-open")
    run("view", "--from", "memoose", str(root / "memoose.sqlite"), "--out", str(root / "memoose.html"), "--no-open")
    run("view", "--from", "memware", str(root / "memware.db"), "--out", str(root / "memware.html"), "--no-open")
    run("export", "--from", "memoose", str(root / "memoose.sqlite"), "--format", "site", "-o", str(root / "site"))
    return {"demo": root / "demo.html", "memoose": root / "memoose.html", "memware": root / "memware.html",
            "site": root / "site" / "index.html"}


@pytest.mark.parametrize("which", ["demo", "memoose", "memware", "site"])
@pytest.mark.parametrize("width,height", SIZES)
def test_on_load_every_label_is_readable_apart_and_the_first_click_lands(browser, pages, which, width, height):
    opened = open_report(browser, pages[which], width=width, height=height)
    try:
        page = opened.page
        labels = labels_of(page)
        assert 0 < len(labels) <= 200
        # most names at once; where two would overlap the lesser gives way (all drawn before: they
        # were 10.1-14 px, none past 14 even zoomed in, and every one vanished past a zoom of 1.75)
        drawn = [label for label in labels if label["drawn"]]
        assert len(drawn) >= 0.75 * len(labels)
        assert min(label["px"] for label in drawn) >= 11
        assert overlapping(labels) == []
        # graph, legend and panel fit: nothing scrolls, and moving over the graph scrolls nothing
        assert page.evaluate("() => [document.scrollingElement.scrollHeight, document.scrollingElement.scrollWidth]") \
            == [height, width]
        for box in ("#graph", ".legend", "#graph-status"):
            bottom = page.locator(box).bounding_box()
            assert bottom["y"] + bottom["height"] <= height, box
        frame = page.locator("#graph").bounding_box()
        for step in range(12):
            page.mouse.move(frame["x"] + frame["width"] * (step + 0.5) / 12, frame["y"] + frame["height"] / 2)
        assert page.evaluate("() => [scrollX, scrollY]") == [0, 0]
        # a real click on the best connected node selects it, the first time
        hub = page.evaluate("() => window.memlens.view && window.memlens.network.body.data.nodes.get()"
                            ".sort((a, b) => b.size - a.size || (a.id < b.id ? -1 : 1))[0].id")
        x, y = next(label["centre"] for label in labels if label["id"] == hub)
        assert frame["x"] < x < frame["x"] + frame["width"] and frame["y"] < y < frame["y"] + frame["height"]
        page.mouse.click(x, y)
        assert page.evaluate("() => window.memlens.view.selected && window.memlens.view.selected.id") == hub
        page.wait_for_timeout(400)  # the panel slides in on a narrow screen
        panel = page.locator("#detail").bounding_box()
        assert panel["x"] >= 0 and panel["x"] + panel["width"] <= width + 0.5
        assert panel["y"] >= 0 and panel["y"] + panel["height"] <= height + 0.5
        assert page.locator("#detail h2").is_visible()
        assert page.evaluate("() => [scrollX, scrollY]") == [0, 0]
        if width < 1600:   # the panel lies over the graph: the selection was moved clear of it
            x = labels_of(page)
            centre = next(label["centre"] for label in x if label["id"] == hub)
            assert centre[0] < panel["x"]
        assert opened.console_errors == []
    finally:
        opened.close()


def test_the_layout_reserves_at_least_the_room_the_browser_draws_a_label_in(browser, pages):
    names = ["api-gateway", "ADR-007 Celery for background jobs", "WWWWWWWWWWWWWWW", "iiiiiiiiiiiiiiiiiii",
             "Ünïcödé façade", "数据库服务", "emoji 🚀 launch", "</script><b>x</b>", "GET /v1/shipments/{id}/eta"]
    opened = open_report(browser, pages["memoose"])
    try:
        drawn = opened.page.evaluate("""([names, size]) => {
            const ctx = document.createElement("canvas").getContext("2d");
            ctx.font = size + "px system-ui, -apple-system, Segoe UI, sans-serif";
            return names.map((n) => ctx.measureText(n).width); }""", [[label_text(n) for n in names], LABEL_FONT_PX])
    finally:
        opened.close()
    for name, width in zip(names, drawn):
        assert width <= label_width(name) <= width * 1.6 + 8, name


def test_open_timeline_lands_below_the_sticky_bar_and_a_new_selection_starts_at_its_name(browser, pages):
    opened = open_report(browser, pages["demo"], fragment="#entity=api-gateway")
    try:
        page = opened.page
        opened.show_fact_cards()                                        # the long way: every fact a card
        panel = page.locator("#detail")
        panel.evaluate("(node) => { node.scrollTop = node.scrollHeight; }")
        assert panel.evaluate("(node) => node.scrollTop") > 200        # api-gateway has a long list
        page.evaluate("() => window.memlens.selectEntityById(window.memlens.network.body.data.nodes.get()"
                      ".find((n) => n.label === 'billing-service').id)")
        assert page.locator("#detail h2").inner_text() == "billing-service"
        assert panel.evaluate("(node) => node.scrollTop") == 0
        page.click("#detail-timeline")
        title = page.locator("#panel-timelines figure[id^='timeline-entity-'] .tl-title", has_text="billing-service")
        bar = page.locator(".command-bar").bounding_box()
        assert title.bounding_box()["y"] >= bar["y"] + bar["height"]      # not under the sticky bar
        assert title.bounding_box()["y"] < 400
        # no label of a timeline runs past its left edge
        lefts = page.evaluate("""() => [...document.querySelectorAll('#panel-timelines svg.timeline-svg')]
            .filter((svg) => svg.getBoundingClientRect().height > 0)
            .map((svg) => Math.min(...[...svg.querySelectorAll('.tl-label')].map((t) => t.getBBox().x)))""")
        assert lefts and min(lefts) >= 0
    finally:
        opened.close()


def test_provenance_counts_what_it_shows_and_offers_more_only_while_there_is_more(browser, pages):
    opened = open_report(browser, pages["demo"])
    try:
        page = opened.page
        page.click("#tab-provenance")
        rows, count, more = page.locator("#ledger-rows tr"), page.locator("#ledger-count"), page.locator("#ledger-more")
        assert rows.count() == 100      # of the demo's 167
        assert count.inner_text() == "Showing the newest 100 of 167 entries" and more.is_visible()
        more.click()
        shown = rows.count()
        assert shown == 167 and not more.is_visible() and count.inner_text() == "167 entries"
        page.select_option("#ledger-action", "supersede")
        assert 0 < rows.count() < 100 and not more.is_visible()
        assert "matching" in count.inner_text()
    finally:
        opened.close()


def test_header_counts_add_up_and_follow_record_time_as_the_cli_counts(browser, pages, cli, tmp_path):
    import json

    opened = open_report(browser, pages["demo"])
    try:
        page = opened.page

        def header() -> dict[str, int]:
            cells = page.locator("#header-counts > div")
            return {cells.nth(i).get_attribute("data-count"): int(cells.nth(i).locator("dd").inner_text().replace(",", ""))
                    for i in range(cells.count())}

        now = header()
        assert now["current"] + now["superseded"] + now["retracted"] + now["forgotten"] == now["facts"]
        assert page.locator("#counts-when").is_hidden()
        page.focus("#asof-record")
        page.keyboard.press("Home")
        for _ in range(2):
            page.keyboard.press("ArrowRight")
        at = page.evaluate("() => window.memlens.times[window.memlens.view.asOfRecord]")
        then = header()
        assert then["facts"] < now["facts"] and page.locator("#counts-when").inner_text().startswith("as believed at")
    finally:
        opened.close()
    assert cli("demo").exit_code == 0
    listed = json.loads(cli("facts", "-d", "demo", "--all", "--as-of-record", at, "--json").output)
    by_status = {s: sum(1 for f in listed if f["status"] == s) for s in ("current", "superseded", "retracted", "forgotten")}
    assert {k: then[k] for k in by_status} == by_status and then["facts"] == len(listed)
    page_reset = open_report(browser, pages["demo"])
    try:   # Reset brings every count back, and clears "Show superseded" too
        page = page_reset.page
        page.check("#show-superseded")
        page.focus("#asof-record")
        page.keyboard.press("Home")
        page.click("#reset-view")
        assert not page.locator("#show-superseded").is_checked() and page.locator("#counts-when").is_hidden()
        assert page.locator('#header-counts [data-count="facts"] dd').inner_text() == f"{now['facts']:,}"
    finally:
        page_reset.close()


def test_a_row_declaring_a_relation_functional_names_the_relation(browser, pages):
    site_ledger = pages["site"].parent / "ledger" / "index.html"
    assert '<code class="ref-name">relation works_at</code>' in site_ledger.read_text(encoding="utf-8")
    for which, relation in (("memoose", "works_at"), ("demo", "owned_by")):   # imported, and our own
        opened = open_report(browser, pages[which])
        try:
            page = opened.page
            page.click("#tab-provenance")
            page.select_option("#ledger-action", "declare_functional")
            targets = page.locator("#ledger-rows td.refs").all_inner_texts()
            assert targets and all(t == f"relation {relation}" for t in targets), which
        finally:
            opened.close()
