"""A small graph's layout is made for reading: no dot or label covers another, components packed."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from memlens.viewer.model.box_packing import overlapping_pairs, pack
from memlens.viewer.model.layout import COMPONENT_GAP, _median, components, compute_layout, rank_nodes
from memlens.viewer.model.link_graph import LinkGraph
from memlens.viewer.model.node_box import LABEL_CHARS, label_text, node_box

NAMES = st.text(alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_/.:éü中"),
                min_size=1, max_size=45)


def graph_of(names: list[str], edges: list[tuple[int, int]]) -> LinkGraph:
    ids = [f"n{i:03d}" for i in range(len(names))]
    neighbours: dict[str, set[str]] = {node: set() for node in ids}
    for a, b in edges:
        if a != b:
            neighbours[ids[a]].add(ids[b])
            neighbours[ids[b]].add(ids[a])
    return LinkGraph(names=dict(zip(ids, names)), neighbours=neighbours)


def boxes_of(graph: LinkGraph, positions: dict[str, tuple[float, float]]) -> dict[str, np.ndarray]:
    nodes = list(graph.names)
    highest = max(graph.degree(n) for n in nodes)
    boxes = [node_box(graph.names[n], graph.degree(n), highest) for n in nodes]
    return {"x": np.array([positions[n][0] for n in nodes]), "y": np.array([positions[n][1] for n in nodes]),
            "half": np.array([b.half_width for b in boxes]), "above": np.array([b.above for b in boxes]),
            "below": np.array([b.below for b in boxes])}


@st.composite
def small_graphs(draw):
    names = draw(st.lists(NAMES, min_size=1, max_size=40))
    pairs = st.tuples(st.integers(0, len(names) - 1), st.integers(0, len(names) - 1))
    return graph_of(names, draw(st.lists(pairs, max_size=3 * len(names))))


@settings(max_examples=40, deadline=None)
@given(small_graphs())
def test_no_two_nodes_of_a_small_graph_cover_each_other(graph):
    layout = compute_layout(graph)
    assert set(layout.positions) == set(graph.names)
    assert overlapping_pairs(**boxes_of(graph, layout.positions)) == 0


def test_overlapping_pairs_counts_boxes_that_cover_each_other():
    one = {"half": np.array([10.0, 10.0]), "above": np.array([5.0, 5.0]), "below": np.array([5.0, 5.0])}
    assert overlapping_pairs(x=np.array([0.0, 15.0]), y=np.array([0.0, 3.0]), **one) == 1
    assert overlapping_pairs(x=np.array([0.0, 20.0]), y=np.array([0.0, 3.0]), **one) == 0    # side by side
    assert overlapping_pairs(x=np.array([0.0, 5.0]), y=np.array([0.0, 10.0]), **one) == 0    # one above the other


def _component_boxes(graph: LinkGraph, positions) -> list[tuple[float, float, float, float]]:
    boxes = boxes_of(graph, positions)
    index = {node: i for i, node in enumerate(graph.names)}
    found = []
    for members in components(graph, rank_nodes(graph)):
        rows = [index[m] for m in members]
        x, y = boxes["x"][rows], boxes["y"][rows]
        found.append((float((x - boxes["half"][rows]).min()), float((y - boxes["above"][rows]).min()),
                      float((x + boxes["half"][rows]).max()), float((y + boxes["below"][rows]).max())))
    return found


def _gap(a, b) -> float:
    return max(b[0] - a[2], a[0] - b[2], b[1] - a[3], a[1] - b[3], 0.0)


def test_components_are_packed_side_by_side_not_thrown_to_the_corners():
    # a star of 9, a chain of 5, three pairs and four loners: nine components
    edges = [(0, i) for i in range(1, 9)] + [(9, 10), (10, 11), (11, 12), (12, 13)] + [(14, 15), (16, 17), (18, 19)]
    graph = graph_of([f"entity number {i}" for i in range(24)], edges)
    layout = compute_layout(graph)
    boxes = _component_boxes(graph, layout.positions)
    assert len(boxes) == 9
    for i, box in enumerate(boxes):
        nearest = min(_gap(box, other) for j, other in enumerate(boxes) if j != i)
        assert nearest <= COMPONENT_GAP + 0.1 + 1e-6, (i, nearest)   # positions are rounded to 0.1 px
    left, top = min(b[0] for b in boxes), min(b[1] for b in boxes)
    right, bottom = max(b[2] for b in boxes), max(b[3] for b in boxes)
    covered = sum((b[2] - b[0]) * (b[3] - b[1]) for b in boxes)
    assert covered / ((right - left) * (bottom - top)) > 0.5       # the whole is mostly components
    assert 1.0 <= (right - left) / (bottom - top) <= 3.5            # wider than tall, like the graph's box (twice)
    assert abs((left + right) / 2) < 1 and abs((top + bottom) / 2) < 1   # centred where the view opens


def test_pack_puts_small_rectangles_beside_a_big_one_before_starting_a_row():
    corners = pack([(300.0, 200.0), (80.0, 50.0), (80.0, 50.0), (80.0, 50.0)], gap=10.0, aspect=1.6)
    assert corners[0] == (0.0, 0.0)
    assert all(left >= 310.0 and top < 200.0 for left, top in corners[1:])   # in the big one's row
    assert len(set(corners)) == 4


def test_a_label_is_cut_as_the_page_cuts_it():
    assert label_text("x" * LABEL_CHARS) == "x" * LABEL_CHARS
    assert label_text("x" * (LABEL_CHARS + 5)) == "x" * (LABEL_CHARS - 1) + "\u2026"


def test_a_memory_without_entities_is_laid_out_and_rendered():
    from viewer_fixtures import SnapshotBuilder, entity_id

    from memlens.viewer.model.link_graph import link_graph as graph_of
    from memlens.viewer.report.page import render_report

    builder = SnapshotBuilder(dataset="empty")
    assert compute_layout(graph_of(builder.build())).positions == {}
    assert "memlens-data" in render_report(builder.build())
    builder.entity("alone", "Person")
    assert set(compute_layout(graph_of(builder.build())).positions) == {entity_id("alone")}


@given(st.lists(st.floats(min_value=0, max_value=1e6, allow_nan=False) | st.just(float("inf")), min_size=1,
                max_size=60))
def test_the_median_nearest_distance_is_numpys_median_to_the_bit(values):
    array = np.array(values, dtype=float)
    assert _median(array) == float(np.median(array))
    assert _median(np.array([1.0, 2.0, 10.0, 11.0])) == 6.0 and _median(np.array([3.0, 1.0, 2.0])) == 2.0
