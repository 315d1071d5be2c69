"""Reading the graph as a new user does, measured on what the canvas draws (tests/canvas_text.py):
every name of a small memory at the first view, the selection's relation names first and over the
veil, the graph's keys, the fact a link shows under the pointer or the keyboard, and a header that
says what the memory is about. Each beside the case that shows the rule is not met by chance."""
from __future__ import annotations

import math

import pytest
from canvas_text import drawn_nodes, record_frame, settled_scale as scale
from named_memory import named_memory
from viewer_fixtures import open_report

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    from click.testing import CliRunner

    from memlens.viewer.cli import main
    from memlens.viewer.report.write import write_report

    root = tmp_path_factory.mktemp("graph-reading")
    runner = CliRunner(env={"MEMLENS_HOME": str(root / "home")})
    for args in (["demo"], ["export", "-d", "demo", "--format", "html", "-o", str(root / "demo.html")]):
        result = runner.invoke(main, args, catch_exceptions=False)
        assert result.exit_code == 0, result.output
    write_report(named_memory(100), root / "hundred.html")
    return {"demo": root / "demo.html", "hundred": root / "hundred.html"}


def names_drawn(page) -> tuple[set[str], list[dict]]:
    """The node names the canvas draws, and the drawn nodes."""
    nodes = drawn_nodes(page)
    labels = {node["label"] for node in nodes}
    return {text["text"] for text in record_frame(page) if text["text"] in labels}, nodes


def ranked_labels(page) -> list[str]:
    """The drawn nodes' labels, most connected first (as the page ranks them)."""
    return page.evaluate("""() => { const body = window.memlens.network.body;
        return body.nodeIndices.map((id) => window.memlens.memory.entityById.get(id))
          .sort((a, b) => b.degree - a.degree || (a.name < b.name ? -1 : 1)).map((e) => body.nodes[e.id].options.label); }""")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_first_view_of_the_demo_draws_every_name_at_1280x800(browser, reports, scheme):
    opened = open_report(browser, reports["demo"], color_scheme=scheme)
    try:
        names, nodes = names_drawn(opened.page)
        assert len(nodes) == 51
        assert names == {node["label"] for node in nodes}
        assert {"Dana Okafor", "Redis", "Stripe", "Amazon SES"} <= names    # the six missing before among them
        graph = opened.page.locator("#graph").bounding_box()
        assert graph["width"] >= 1200 and graph["height"] >= 560          # the graph gets the room
    finally:
        opened.close()


def test_a_memory_of_100_entities_is_named_in_full_at_1280x800_and_best_connected_first_where_smaller(browser, reports):
    opened = open_report(browser, reports["hundred"])
    try:
        names, nodes = names_drawn(opened.page)
        assert len(nodes) == 100 and names == {node["label"] for node in nodes}
    finally:
        opened.close()
    narrow = open_report(browser, reports["hundred"], width=800, height=900)
    try:   # the negative case: 800 px wide holds fewer, and the best connected keep their names
        names, nodes = names_drawn(narrow.page)
        assert 0.4 * len(nodes) <= len(names) < len(nodes)
        ranked = ranked_labels(narrow.page)
        share = lambda labels: sum(label in names for label in labels) / len(labels)   # noqa: E731
        assert ranked[0] in names and share(ranked[:20]) > share(ranked[20:])
    finally:
        narrow.close()


def click_node(page, label: str) -> dict:
    node = next(n for n in drawn_nodes(page) if n["label"] == label)
    page.mouse.click(node["x"], node["y"])
    page.wait_for_function("(label) => window.memlens.view.selected && window.memlens.view.selected.name === label", arg=label)
    page.wait_for_timeout(300)   # the panel slides in
    return node


def on_own_link(text: dict, centre: dict, links: list[tuple[str, dict]]) -> bool:
    """Whether a drawn text names one of `links` (relation, other end) and lies on it."""
    for relation, end in links:
        if not text["text"].startswith(relation):
            continue
        dx, dy = end["x"] - centre["x"], end["y"] - centre["y"]
        t = ((text["cx"] - centre["x"]) * dx + (text["cy"] - centre["y"]) * dy) / (dx * dx + dy * dy)
        if 0 < t < 1 and math.hypot(centre["x"] + t * dx - text["cx"], centre["y"] + t * dy - text["cy"]) < 1.5:
            return True
    return False


def test_the_selections_relation_names_are_drawn_first_and_over_the_veil_and_no_other(browser, reports):
    opened = open_report(browser, reports["demo"])
    try:
        page = opened.page
        before, nodes = names_drawn(page)
        labels = {node["label"] for node in nodes}
        unselected = [t for t in record_frame(page) if t["text"] not in labels]
        assert len(unselected) >= 5 and not any(t["over"] for t in unselected)   # no selection: other links named, no veil
        centre = click_node(page, "billing-service")
        by_id = {node["id"]: node for node in drawn_nodes(page)}
        links = [(relation, by_id[other]) for relation, other in page.evaluate("""() => {
            const s = window.memlens.view.selected;
            return s.facts.filter((f) => f.status === "current" && f.subjectEntity && f.objectEntity)
              .map((f) => [f.relationName, f.subjectEntity === s ? f.objectEntity.id : f.subjectEntity.id]); }""")]
        assert len(links) == 17
        texts = record_frame(page)
        relations = [t for t in texts if t["text"] not in labels]
        own = [t for t in relations if on_own_link(t, by_id[centre["id"]], links)]
        assert len(own) >= 8, [t["text"] for t in own]
        assert own == relations                       # no relation name of another link, dimmed or not
        assert all(t["over"] and t["alpha"] == 1 and t["px"] >= 12 - 0.01 for t in own)
        first_name = next(i for i, t in enumerate(texts) if t["over"] and t["text"] in labels and t["text"] != "billing-service")
        assert max(texts.index(t) for t in own) < first_name    # before the neighbours' names
    finally:
        opened.close()


def test_the_graphs_keys_zoom_move_between_neighbours_open_and_clear_keeping_the_focus(browser, reports):
    opened = open_report(browser, reports["demo"])
    try:
        page = opened.page
        page.focus("#search-input")
        tabs = 0
        while page.evaluate("() => document.activeElement.id") != "graph":
            page.keyboard.press("Tab")
            tabs += 1
            assert tabs <= 4, "the legend's 18 chips are one stop"
        assert page.evaluate("() => document.activeElement.className") != "type-chip"
        first = page.inner_text("#graph-announce")
        assert first.startswith("api-gateway, Service, 17 links")          # the best connected, to start from
        fitted = scale(page)
        page.keyboard.press("+")
        assert scale(page) == pytest.approx(fitted * 1.4, rel=0.01)
        page.keyboard.press("-")
        assert scale(page) == pytest.approx(fitted, rel=0.01)
        page.keyboard.press("+")
        page.keyboard.press("0")
        assert scale(page) == pytest.approx(fitted, rel=0.01)
        page.keyboard.press("Enter")
        assert page.evaluate("() => window.memlens.view.selected.name") == "api-gateway"
        neighbours = set(page.evaluate("() => window.memlens.highlighted().nodes"))
        seen = set()
        for key in ("ArrowLeft", "ArrowDown", "ArrowRight", "ArrowUp", "ArrowLeft"):
            page.keyboard.press(key)
            cursor = page.evaluate("() => window.memlens.keys.cursor().id")
            assert cursor in neighbours
            seen.add(cursor)
        assert len(seen) >= 3
        name = page.evaluate("() => window.memlens.keys.cursor().name")
        assert page.inner_text("#graph-announce").startswith(name + ", ")
        page.keyboard.press("Enter")
        assert page.evaluate("() => window.memlens.view.selected.name") == name
        page.keyboard.press("Escape")
        assert page.evaluate("() => [window.memlens.view.selected, document.activeElement.id]") == [None, "graph"]
        page.keyboard.press("+")                          # the keys still work after Escape
        assert scale(page) == pytest.approx(fitted * 1.4, rel=0.01)
        # typed in the search box, the same keys are text: no zoom, no cursor
        page.focus("#search-input")
        page.keyboard.type("+0")
        page.keyboard.press("ArrowDown")
        assert page.input_value("#search-input") == "+0" and scale(page) == pytest.approx(fitted * 1.4, rel=0.01)
        assert page.evaluate("() => window.memlens.keys.cursor().name") == name
        assert opened.console_errors == []
    finally:
        opened.close()


def test_the_legends_arrow_keys_walk_its_chips_and_open_it_for_those_cut_off(browser, reports):
    opened = open_report(browser, reports["demo"])
    try:
        page = opened.page
        page.focus(".type-chip")
        chips = page.locator(".type-chip")
        assert [chips.nth(i).get_attribute("tabindex") for i in range(3)] == ["0", "-1", "-1"]
        page.keyboard.press("ArrowRight")
        assert page.evaluate("() => document.activeElement.dataset.type") == chips.nth(1).get_attribute("data-type")
        assert page.locator("#legend-more").get_attribute("aria-expanded") == "false"
        page.keyboard.press("End")                         # the last chip is cut off: the legend opens
        assert page.evaluate("() => document.activeElement.dataset.type") == chips.nth(17).get_attribute("data-type")
        assert page.locator("#legend-more").get_attribute("aria-expanded") == "true"
        assert chips.nth(17).is_visible() and chips.nth(17).get_attribute("tabindex") == "0"
        page.keyboard.press("Enter")                        # a chip still filters
        assert chips.nth(17).get_attribute("aria-pressed") == "false"
    finally:
        opened.close()


def a_told_link(page) -> dict:
    """The middle of the first straight link drawn whose fact has a description, evidence and a
    validity, on the page, and the fact."""
    return page.evaluate("""() => {
        const network = window.memlens.network, body = network.body, frame = body.container.getBoundingClientRect();
        const told = (f) => f.description && f.evidence.length && f.validFrom;
        const id = body.edgeIndices.find((id) => told(window.memlens.memory.factById.get(id)) && !body.edges[id].options.smooth.enabled);
        const edge = body.edges[id];
        const at = network.canvasToDOM({ x: (edge.from.x + edge.to.x) / 2, y: (edge.from.y + edge.to.y) / 2 });
        const fact = window.memlens.memory.factById.get(id);
        return { x: at.x + frame.left, y: at.y + frame.top, line: fact.subjectEntity.name + " " + fact.relationName + " " +
                 fact.objectEntity.name, description: fact.description, evidence: fact.evidence, validFrom: fact.validFrom }; }""")


def test_a_link_under_the_pointer_or_the_keyboard_shows_its_fact(browser, reports):
    opened = open_report(browser, reports["demo"])
    try:
        page = opened.page
        tip = page.locator("#fact-tip")
        frame = page.locator("#graph").bounding_box()
        page.mouse.move(frame["x"] + 8, frame["y"] + 8)             # empty canvas: no tip
        assert tip.is_hidden()
        link = a_told_link(page)
        page.mouse.move(link["x"] - 20, link["y"] - 20)
        page.mouse.move(link["x"], link["y"])
        tip.wait_for(state="visible")
        text = " ".join(tip.inner_text().split())
        assert text.startswith(link["line"] + " current")                          # relation, then status
        assert " ".join(link["description"].split()) in text and all(e in text for e in link["evidence"])
        assert "valid since " + link["validFrom"] in text
        page.mouse.move(frame["x"] + 8, frame["y"] + 8)
        tip.wait_for(state="hidden")
        # the keyboard: on a neighbour of the selection, the tip shows the fact between them
        click_node(page, "billing-service")
        page.focus("#graph")
        page.keyboard.press("ArrowRight")
        cursor = page.evaluate("() => window.memlens.keys.cursor().name")
        tip.wait_for(state="visible")
        assert "billing-service" in tip.inner_text() and cursor in tip.inner_text()
    finally:
        opened.close()


def test_the_panel_gives_each_fact_one_line_that_opens_into_its_card_and_cards_are_one_click_away(browser, reports):
    opened = open_report(browser, reports["demo"])
    try:
        page = opened.page
        click_node(page, "billing-service")
        lines = page.locator("#detail .fact-row")
        assert lines.count() == 17 and page.locator("#detail article.fact").count() == 0
        texts = [" ".join(t.split()) for t in lines.all_inner_texts()]
        assert "\u25b8 depends_on \u2192 Celery \u25cf current since 2026-01-22" in texts       # relation, other end, mark, dates
        heights = [lines.nth(i).bounding_box()["height"] for i in range(lines.count())]
        assert max(heights) < 30                                                           # one line each
        assert page.evaluate("() => document.getElementById('detail').scrollHeight") < 900   # was 3,400 px of cards
        toggle = page.locator('#detail .fact-toggle:has-text("depends_on") >> nth=0')
        fact_id = toggle.get_attribute("data-fact")
        toggle.click()
        card = page.locator(f'#detail article.fact[data-fact-id="{fact_id}"]')
        assert card.is_visible() and "monthly invoice run" in card.inner_text() and "repo://" in card.inner_text()
        assert page.locator(f'#detail .fact-toggle[data-fact="{fact_id}"]').get_attribute("aria-expanded") == "true"
        page.locator(f'#detail .fact-toggle[data-fact="{fact_id}"]').click()
        assert card.count() == 0
        page.click("#detail-cards")
        assert page.locator("#detail article.fact").count() == 17 and lines.count() == 0
        assert page.locator("#detail-cards").get_attribute("aria-pressed") == "true"
        page.evaluate("() => window.memlens.selectEntityById([...window.memlens.memory.entityById.values()]"
                      ".find((e) => e.name === 'api-gateway').id)")
        assert page.locator("#detail article.fact").count() == 17          # kept across selections
        page.click("#detail-cards")
        assert page.locator("#detail article.fact").count() == 0 and lines.count() == 17
    finally:
        opened.close()


def test_a_link_to_a_fact_opens_that_facts_line_alone(browser, reports):
    opened = open_report(browser, reports["demo"])
    try:
        page = opened.page
        fact = page.evaluate("""() => [...window.memlens.memory.factById.values()]
            .find((f) => f.relationName === "owned_by" && f.status === "current").id""")
        page.evaluate("(id) => { location.hash = 'fact=' + id; }", fact)
        card = page.locator(f'#detail article.fact[data-fact-id="{fact}"]')
        card.wait_for()
        assert page.locator("#detail article.fact").count() == 1 and page.locator("#detail .fact-row").count() > 1
    finally:
        opened.close()


def visible_text(page, selector: str) -> str:
    return " ".join(page.locator(selector).inner_text().split()) if page.locator(selector).is_visible() else ""


def test_without_javascript_every_tab_says_what_it_needs_and_shows_what_it_can(browser, reports):
    off = open_report(browser, reports["demo"], javascript=False, wait_for_graph=False)
    try:
        page = off.page
        assert "The graph needs JavaScript, which is off." in visible_text(page, "#panel-graph")
        assert page.locator(".legend").is_hidden() and page.locator("#graph").is_hidden()
        provenance = visible_text(page, "#panel-provenance")
        assert "The ledger's 167 rows are read from this page's data by its script, which is off" in provenance
        assert page.locator("#ledger-table").is_hidden() and page.locator("#ledger-filters").is_hidden()
        assert page.locator("#panel-timelines svg.timeline-svg").count() >= 12          # drawn at build time
        assert page.locator("#panel-maintenance table.worklist tbody tr").count() >= 1
        assert "(this needs JavaScript" in visible_text(page, "#panel-timelines")
    finally:
        off.close()
    on = open_report(browser, reports["demo"])   # with script: no notes, and the ledger read
    try:
        page = on.page
        page.click("#tab-provenance")
        assert "which is off" not in page.locator("main").inner_text()
        assert page.locator("#ledger-rows tr").count() > 10 and page.locator("#ledger-filters").is_visible()
    finally:
        on.close()


NODE_ON_SCREEN = """(name) => { const network = window.memlens.network;
    const entity = window.memlens.memory.entities.find((e) => e.name === name);
    const at = network.canvasToDOM(network.getPositions([entity.id])[entity.id]);
    return { x: at.x, y: at.y, id: entity.id }; }"""


def test_a_name_clicked_where_the_panel_opens_moves_into_the_graphs_free_part(browser, reports):
    """At 1280 px the panel slides over the graph's right side: an entity clicked there is moved left
    of it (the panel's width is read before the panel is drawn); one clicked in the free part stays."""
    opened = open_report(browser, reports["demo"])
    try:
        page = opened.page
        graph = page.locator("#graph").bounding_box()
        for name, x in (("Stripe", graph["width"] - 60), ("Redis", graph["width"] / 3)):
            page.evaluate("() => window.memlens.selectEntityById(null)")
            at = page.evaluate(NODE_ON_SCREEN, name)
            page.evaluate("""([id, x, y]) => { const network = window.memlens.network, scale = network.getScale();
                const position = network.getPositions([id])[id], centre = network.DOMtoCanvas({ x: x, y: y });
                const view = network.getViewPosition();
                network.moveTo({ position: { x: view.x + position.x - centre.x, y: view.y + position.y - centre.y }, scale });
            }""", [at["id"], x, graph["height"] / 2])
            page.wait_for_timeout(100)
            before = page.evaluate(NODE_ON_SCREEN, name)
            assert before["x"] == pytest.approx(x, abs=2)
            page.mouse.click(graph["x"] + before["x"], graph["y"] + before["y"])     # the real mouse
            page.wait_for_timeout(600)                                           # the 250 ms move, the slide
            assert page.evaluate("() => window.memlens.view.selected.name") == name
            panel = page.locator("#detail").bounding_box()
            after = page.evaluate(NODE_ON_SCREEN, name)
            assert panel["x"] < graph["x"] + graph["width"] - 300                # the panel is over the graph
            if x > graph["width"] / 2:
                assert graph["x"] + after["x"] < panel["x"] - 20                 # moved clear of it
            else:
                assert after["x"] == pytest.approx(before["x"], abs=2)           # left where it was
        assert opened.console_errors == []
    finally:
        opened.close()
