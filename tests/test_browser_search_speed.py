"""Search and selection after the fast path: the neighbourhood highlight is a veil over the canvas
with the neighbourhood drawn again on top, not a restyle of every drawn item. These tests check the
behaviour (what is highlighted, what the page shows, which item styles survive); the timings belong
to benchmarks/bench_scale.py, not here."""

from __future__ import annotations

import pytest
from viewer_fixtures import large_snapshot, open_report, project_ids

from memlens.viewer.report.write import write_report

pytestmark = pytest.mark.browser
IDS = project_ids()

ALL_ITEMS = """() => {
  const data = window.memlens.network.body.data;
  return { nodes: data.nodes.get(), edges: data.edges.get() };
}"""

# The pixel at each node's centre, in canvas pixels, and the page's graph background.
PIXELS = """(ids) => {
  const network = window.memlens.network;
  const canvas = document.querySelector("#graph canvas");
  const ratio = canvas.width / canvas.clientWidth;
  const context = canvas.getContext("2d");
  const out = {};
  for (const id of ids) {
    const at = network.canvasToDOM(network.getPosition(id));
    out[id] = [...context.getImageData(Math.round(at.x * ratio), Math.round(at.y * ratio), 1, 1).data];
  }
  return out;
}"""

# Non-highlighted nodes whose centre is inside the canvas, clear of other nodes and of the
# highlighted edges (which are drawn above the veil), so their centre pixel is their own.
CLEAR_OF_HIGHLIGHT = """() => {
  const network = window.memlens.network, lit = window.memlens.highlighted();
  const canvas = document.querySelector("#graph canvas");
  const dom = (id) => network.canvasToDOM(network.getPosition(id));
  const ids = network.body.data.nodes.getIds({ filter: (n) => !n.hidden });
  const spots = new Map(ids.map((id) => [id, dom(id)]));
  const segments = lit.edges.map((id) => network.body.data.edges.get(id)).map((e) => [spots.get(e.from), spots.get(e.to)])
    .filter(([a, b]) => a && b);
  const away = (p, [a, b]) => {
    const dx = b.x - a.x, dy = b.y - a.y, len = dx * dx + dy * dy || 1;
    const t = Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / len));
    return Math.hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy));
  };
  return ids.filter((id) => {
    const p = spots.get(id);
    if (p.x < 20 || p.y < 20 || p.x > canvas.clientWidth - 20 || p.y > canvas.clientHeight - 20) return false;
    for (const [other, q] of spots) if (other !== id && Math.hypot(p.x - q.x, p.y - q.y) < 30) return false;
    return segments.every((s) => away(p, s) > 15);
  });
}"""


def distance(a, b):
    return sum((x - y) ** 2 for x, y in zip(a[:3], b[:3])) ** 0.5


@pytest.fixture
def report(project_report):
    return project_report


@pytest.fixture(scope="module")
def large(browser, tmp_path_factory):
    snapshot = large_snapshot(entity_count=2_000)
    path = write_report(snapshot, tmp_path_factory.mktemp("speed-large") / "large.html")
    opened = open_report(browser, path)
    yield snapshot, opened
    opened.close()


def search(page, name):
    page.fill("#search-input", name)
    page.press("#search-input", "Enter")


def test_search_selects_an_undrawn_entity_and_highlights_exactly_its_neighbourhood(large):
    snapshot, opened = large
    page = opened.page
    drawn = set(page.evaluate("window.memlens.network.body.data.nodes.getIds()"))
    target = next(e for e in snapshot["entities"] if e["id"] not in drawn
                  and any(f["subject"] == e["id"] and f["object"] in drawn and f["status"] == "current"
                          for f in snapshot["facts"]))
    search(page, target["name"])
    assert page.evaluate("window.memlens.network.getSelectedNodes()") == [target["id"]]
    assert page.locator("#detail h2").inner_text() == target["name"]
    lit = page.evaluate("window.memlens.highlighted()")
    edges = page.evaluate("(ids) => window.memlens.network.body.data.edges.get(ids)", lit["edges"])
    # every drawn edge at the target is lit, and only those
    at_target = page.evaluate("""(id) => window.memlens.network.body.data.edges
        .get({ filter: (e) => e.from === id || e.to === id }).map((e) => e.id)""", target["id"])
    assert sorted(lit["edges"]) == sorted(at_target) and at_target
    shown_ends = {end for e in edges if not e["hidden"] for end in (e["from"], e["to"])}
    assert target["id"] in lit["nodes"] and shown_ends <= set(lit["nodes"])
    assert set(lit["nodes"]) <= drawn | {target["id"]}
    node = page.evaluate("(id) => window.memlens.network.body.data.nodes.get(id)", target["id"])
    assert node["hidden"] is False and node["borderWidth"] == 4
    assert opened.console_errors == []


def test_a_selection_dims_what_is_outside_its_neighbourhood_on_the_canvas(report):
    page = report.page
    search(page, "payments-api")
    page.wait_for_timeout(700)  # the 350 ms focus animation
    lit = page.evaluate("window.memlens.highlighted()")
    assert IDS.payments_api in lit["nodes"] and len(lit["nodes"]) > 1
    outside = [i for i in page.evaluate(CLEAR_OF_HIGHLIGHT) if i not in lit["nodes"]]
    inside = [i for i in page.evaluate(CLEAR_OF_HIGHLIGHT) if i in lit["nodes"] and i != IDS.payments_api]
    assert outside, "no node outside the neighbourhood is clear on the canvas"
    background = page.evaluate("""() => { const c = document.createElement("canvas").getContext("2d");
        c.fillStyle = getComputedStyle(document.documentElement).getPropertyValue("--graph-bg").trim();
        c.fillRect(0, 0, 1, 1); return [...c.getImageData(0, 0, 1, 1).data]; }""")
    selected = page.evaluate(PIXELS, outside + inside)
    page.click("#detail-close")
    page.wait_for_timeout(150)
    assert page.evaluate("window.memlens.highlighted()") is None
    cleared = page.evaluate(PIXELS, outside + inside)
    for node in outside:
        assert distance(selected[node], background) < 0.4 * distance(cleared[node], background), node
    for node in inside:
        assert distance(selected[node], cleared[node]) < 12, node


def test_unselecting_restores_every_item_style(report):
    page = report.page
    before = page.evaluate(ALL_ITEMS)
    for name in ("payments-api", "alice"):
        search(page, name)
    assert page.evaluate("window.memlens.highlighted()") is not None
    during = page.evaluate(ALL_ITEMS)
    changed = [n["id"] for n, m in zip(before["nodes"], during["nodes"]) if n != m]
    assert changed == [IDS.alice]  # only the selected node's border; the rest is the veil's work
    page.click("#detail-close")
    assert page.evaluate("window.memlens.network.getSelectedNodes()") == []
    assert page.evaluate("window.memlens.highlighted()") is None
    assert page.evaluate(ALL_ITEMS) == before
    assert report.console_errors == []


def test_contested_edge_style_survives_selections_which_leave_every_edge_style_alone(report):
    page = report.page

    def contested():
        return page.evaluate("(id) => window.memlens.network.body.data.edges.get(id)", IDS.payments_needs_ledger)

    before = contested()
    assert before["width"] == 2.6 and before["color"]["color"] != page.evaluate(
        "() => getComputedStyle(document.documentElement).getPropertyValue('--edge').trim()")
    search(page, "payments-api")
    assert IDS.payments_needs_ledger in page.evaluate("window.memlens.highlighted()")["edges"]
    assert contested() == before   # its name is drawn over the veil, not restyled (canvas_labels.js)
    search(page, "alice")
    assert IDS.payments_needs_ledger not in page.evaluate("window.memlens.highlighted()")["edges"]
    assert contested() == before
    page.click("#detail-close")
    assert contested() == before


def test_selecting_a_hub_where_links_go_unnamed_restyles_its_node_alone_and_lights_every_drawn_link(large):
    snapshot, opened = large
    page = opened.page
    page.evaluate("window.memlens.selectEntityById(null)")
    before = page.evaluate(ALL_ITEMS)
    assert before["edges"] and all("label" not in edge for edge in before["edges"])  # vis names no link
    degree = {}
    for edge in before["edges"]:
        for end in (edge["from"], edge["to"]):
            degree[end] = degree.get(end, 0) + 1
    hub = max(degree, key=lambda end: (degree[end], end))
    page.evaluate("(id) => window.memlens.selectEntityById(id)", hub)
    lit = page.evaluate("window.memlens.highlighted()")
    at_hub = [e["id"] for e in before["edges"] if hub in (e["from"], e["to"])]
    assert sorted(lit["edges"]) == sorted(at_hub) and len(at_hub) == degree[hub]
    during = page.evaluate(ALL_ITEMS)
    assert [n["id"] for n, m in zip(before["nodes"], during["nodes"]) if n != m] == [hub]
    assert during["edges"] == before["edges"]
    page.evaluate("window.memlens.selectEntityById(null)")
    assert page.evaluate("window.memlens.highlighted()") is None
    assert page.evaluate(ALL_ITEMS) == before


# How many arrow heads vis draws in one frame at `scale`, and how many edges it draws.
ARROWS_AT = """(scale) => {
  const network = window.memlens.network, body = network.body;
  const kept = { scale: network.getScale(), position: network.getViewPosition() };
  network.moveTo({ scale, animation: false });
  const proto = Object.getPrototypeOf(body.edges[body.edgeIndices[0]]), draw = proto.drawArrows;
  let heads = 0;
  proto.drawArrows = function (ctx) { heads++; return draw.call(this, ctx); };
  try { network.redraw(); } finally { proto.drawArrows = draw; }
  network.moveTo({ ...kept, animation: false });
  return { heads, edges: body.edgeIndices.filter((id) => body.edges[id].connected).length };
}"""


def test_arrow_heads_are_drawn_once_two_pixels_long_and_skipped_below(large):
    _, opened = large
    page = opened.page
    page.evaluate("window.memlens.selectEntityById(null)")
    # a head is 15 * 0.45 + 3 * width canvas units: 10.95 for a 1.4 line, 14.55 for a contested one
    legible = page.evaluate(ARROWS_AT, 0.5)
    assert legible["edges"] > 100 and legible["heads"] == legible["edges"]
    assert page.evaluate(ARROWS_AT, 0.1)["heads"] == 0



# Counts vis's draws from here on; the centre of the node on the page, to click at.
FIND = """(id) => {
  const at = window.memlens.network.canvasToDOM(window.memlens.network.getPosition(id));
  const box = document.querySelector("#graph canvas").getBoundingClientRect();
  return { x: box.left + at.x, y: box.top + at.y };
}"""

# Counting starts once the pointer rests on the node: the hover's own draw, which a loaded machine
# may put in a frame of its own, is not the click's.
COUNT_DRAWS = """async () => {
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  window.__draws = 0;
  window.memlens.network.on("afterDrawing", () => { window.__draws++; });
}"""

DRAWS_TWO_FRAMES_LATER = """async () => {
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  return window.__draws;
}"""


def test_a_click_on_a_node_selects_it_and_draws_the_graph_once(large):
    _, opened = large
    page = opened.page
    page.evaluate("window.memlens.selectEntityById(null)")
    shown = page.evaluate("window.memlens.network.body.data.nodes.getIds({ filter: (n) => !n.hidden })")
    links = page.evaluate("(ids) => ids.map((id) => window.memlens.network.getConnectedEdges(id).length)", shown)
    target = max(zip(links, shown))[1]
    page.evaluate("""(id) => window.memlens.network.moveTo({ position: window.memlens.network.getPosition(id),
                                                              scale: 1, animation: false })""", target)
    page.wait_for_timeout(300)
    spot = page.evaluate(FIND, target)
    page.mouse.move(spot["x"], spot["y"])
    page.evaluate(COUNT_DRAWS)
    page.mouse.click(spot["x"], spot["y"])
    draws = page.evaluate(DRAWS_TWO_FRAMES_LATER)
    assert page.evaluate("window.memlens.view.selected.id") == target
    assert target in page.evaluate("window.memlens.highlighted()")["nodes"]
    assert draws == 1  # vis's own frame for the selection, with the page's changes in it


# How many times one frame draws each edge and each node, by id.
ITEM_DRAWS = """() => {
  const network = window.memlens.network, body = network.body;
  const counted = (items, ids) => Object.getPrototypeOf(items[ids[0]]);
  const protos = [counted(body.edges, body.edgeIndices), counted(body.nodes, body.nodeIndices)];
  const times = { edges: {}, nodes: {} }, draws = protos.map((proto) => proto.draw);
  protos.forEach((proto, i) => {
    const into = i ? times.nodes : times.edges;
    proto.draw = function (ctx) { into[this.id] = (into[this.id] || 0) + 1; return draws[i].call(this, ctx); };
  });
  try { network.redraw(); } finally { protos.forEach((proto, i) => { proto.draw = draws[i]; }); }
  return times;
}"""


def test_a_selections_neighbourhood_is_drawn_once_a_frame_over_the_veil(large):
    _, opened = large
    page = opened.page
    page.evaluate("window.memlens.selectEntityById(null)")
    page.evaluate("window.memlens.network.fit({ animation: false })")
    unselected = page.evaluate(ITEM_DRAWS)
    assert len(unselected["edges"]) > 100 and set(unselected["edges"].values()) == {1}
    assert len(unselected["nodes"]) > 100 and set(unselected["nodes"].values()) == {1}
    hub = page.evaluate("""() => { const data = window.memlens.network.body.data.edges.get(), degree = {};
        for (const e of data) for (const end of [e.from, e.to]) degree[end] = (degree[end] || 0) + 1;
        return Object.keys(degree).sort((a, b) => degree[b] - degree[a])[0]; }""")
    page.evaluate("(id) => window.memlens.selectEntityById(id)", hub)
    page.wait_for_timeout(500)  # the focus animation
    page.evaluate("window.memlens.network.fit({ animation: false })")
    lit = page.evaluate("window.memlens.highlighted()")
    selected = page.evaluate(ITEM_DRAWS)
    assert len(lit["edges"]) > 20 and set(lit["edges"]) <= set(selected["edges"])
    assert len(lit["nodes"]) > 20 and set(lit["nodes"]) <= set(selected["nodes"])
    for kind in ("edges", "nodes"):  # each once: the neighbourhood over the veil, the rest under it
        assert set(selected[kind].values()) == {1} and set(selected[kind]) == set(unselected[kind]), kind
