"""Deterministic node positions computed at build time, so the browser runs no physics.

A small graph (up to READABLE_LIMIT entities) is laid out for reading: each connected component gets
a seeded force layout (Fruchterman-Reingold, as networkx's spring_layout, written out over flat
coordinate arrays because that is five times faster), its nodes are then pushed apart until no
dot or label covers another (node_box.py says how much room each takes), and the components are
packed side by side in rows of a screen's proportions.

A force layout is only affordable for a few hundred nodes, so in a larger graph only the most
connected entities (the core) get one, and everything else is placed around an already placed
neighbour on a sunflower spiral. That is linear in the graph size and keeps 10,000 entities well
inside the render budget; the page then shows the labels that fit, most connected first.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from .box_packing import pack, place
from .link_graph import LinkGraph
from .node_box import node_box

CORE_LIMIT = 400          # the dense O(n^2) force solver stays fast below ~500 nodes
READABLE_LIMIT = 200      # every label of a graph this small fits apart: 0.8 s at 200 entities, 2.6 s at 400
SEED = 20260302
FORCE_ITERATIONS = 60
GOLDEN_ANGLE = math.pi * (3 - math.sqrt(5))
NEIGHBOUR_DISTANCE = 75.0  # px between a core node and its nearest neighbour, so labels fit
SATELLITE_OFFSET = 46.0   # px from a parent to its first satellite
SATELLITE_SPACING = 15.0  # px; radius grows with sqrt(k) so a disc of satellites stays evenly filled
DENSITY = 0.7             # share of a component's force layout its boxes would cover, before placing
STRETCH = 1.6             # the force layout is widened by this much: screens are wider than tall
COMPONENT_GAP = 36.0      # px between two packed components
# width / height the packed components aim for: the graph box's shape, 2.1 at 1280x800 and 2.0 at
# 1440x900 (1.1 on an 800 px wide screen). With 1.6 and a stretch of 1.3, memories of 100 entities
# were fitted at 0.70-0.79 at 1280x800, too small to name them all (node_box.py); now at 0.82 or more.
ASPECT = 2.1


@dataclass(frozen=True)
class Layout:
    positions: dict[str, tuple[float, float]]
    ranking: list[str]    # node ids, most connected first (ties by name, then id)
    degree: dict[str, int]


def rank_nodes(graph: LinkGraph) -> list[str]:
    return sorted(graph.names, key=lambda n: (-graph.degree(n), graph.names[n], n))


def _core_positions(graph: LinkGraph, core: list[str]) -> dict[str, tuple[float, float]]:
    if not core:
        return {}
    if len(core) == 1:
        return {core[0]: (0.0, 0.0)}
    index = {node: i for i, node in enumerate(core)}
    edges = sorted((index[u], index[v]) for u in core for v in graph.neighbours[u] if u < v and v in index)
    coords = force_layout(len(core), edges)
    coords = _widest_along_x(coords)
    coords *= NEIGHBOUR_DISTANCE / _median_nearest_distance(coords)
    return {node: (float(x), float(y)) for node, (x, y) in zip(core, coords)}


def force_layout(count: int, edges: list[tuple[int, int]], iterations: int = FORCE_ITERATIONS,
                 seed: int = SEED) -> np.ndarray:
    """Fruchterman-Reingold on `count` nodes from seeded random starts, in the unit square's scale.

    The same algorithm, constants and cooling as networkx's dense spring_layout; x and y are kept
    as separate arrays so each step is a handful of (n, n) operations instead of (n, n, 2) ones.
    """
    start = np.random.RandomState(seed).rand(count, 2)
    x, y = start[:, 0].copy(), start[:, 1].copy()
    # both directions of each edge: only there does attraction act, so only there is it worked out
    rows, cols = (np.array(edges).T if edges else (np.array([], dtype=int),) * 2)
    rows, cols = np.concatenate([rows, cols]), np.concatenate([cols, rows])
    k = np.sqrt(1.0 / count)          # the ideal distance between nodes
    temperature = max(np.ptp(x), np.ptp(y)) * 0.1
    cooling = temperature / (iterations + 1)
    # Every (n, n) step writes into arrays made once, and attraction is taken off the edges'
    # entries alone (elsewhere it was a product with zero): the same numbers, 400 nodes in
    # 0.08 s of CPU instead of 0.14 (each fresh 1.3 MB array was its own mapping and page faults).
    dx, dy, squared, force = (np.empty((count, count)) for _ in range(4))
    for _ in range(iterations):
        np.subtract(x[:, None], x[None, :], out=dx)
        np.subtract(y[:, None], y[None, :], out=dy)
        np.multiply(dx, dx, out=squared)
        squared += np.multiply(dy, dy, out=force)
        np.maximum(squared, 1e-4, out=squared)
        np.divide(k * k, squared, out=force)  # repulsion ...
        force[rows, cols] -= np.sqrt(squared[rows, cols]) / k  # ... minus attraction
        step_x = np.multiply(dx, force, out=squared).sum(axis=1)   # squared is spent by now
        step_y = np.multiply(dy, force, out=dx).sum(axis=1)
        length = np.sqrt(step_x * step_x + step_y * step_y)
        np.maximum(length, 0.01, out=length)
        step_x *= temperature / length
        step_y *= temperature / length
        x += step_x
        y += step_y
        temperature -= cooling
        if np.sqrt((step_x * step_x + step_y * step_y).sum()) / count < 1e-4:
            break
    return np.column_stack([x, y])


def components(graph: LinkGraph, ranking: list[str]) -> list[list[str]]:
    """The connected components, each in rank order; the one holding the best ranked node first."""
    seen: set[str] = set()
    found = []
    for start in ranking:
        if start in seen:
            continue
        seen.add(start)
        members, queue = [start], deque([start])
        while queue:
            for neighbour in graph.neighbours[queue.popleft()]:
                if neighbour not in seen:
                    seen.add(neighbour)
                    members.append(neighbour)
                    queue.append(neighbour)
        found.append(members)
    rank = {node: i for i, node in enumerate(ranking)}
    for members in found:
        members.sort(key=rank.__getitem__)
    return found


def _readable_positions(graph: LinkGraph, ranking: list[str]) -> dict[str, tuple[float, float]]:
    """Every node placed so that no two boxes overlap, components packed together."""
    if not ranking:   # an empty memory: nothing to place (and no component to size the packing by)
        return {}
    highest = max((graph.degree(n) for n in ranking), default=0)
    boxes = {n: node_box(graph.names[n], graph.degree(n), highest) for n in ranking}
    blocks = []
    for members in components(graph, ranking):
        half = np.array([boxes[n].half_width for n in members])
        above = np.array([boxes[n].above for n in members])
        below = np.array([boxes[n].below for n in members])
        index = {node: i for i, node in enumerate(members)}
        coords = _component_coords(graph, members, index, float((2 * half * (above + below)).sum()))
        follow = [[index[n] for n in graph.neighbours[node]] for node in members]
        x, y = place(coords[:, 0], coords[:, 1], half, above, below, follow, aspect=ASPECT)
        left, top = float((x - half).min()), float((y - above).min())
        size = (float((x + half).max()) - left, float((y + below).max()) - top)
        blocks.append((size, members, x - left, y - top))
    blocks.sort(key=lambda block: (-block[0][1], -block[0][0]))   # tallest first: rows fill best
    corners = pack([size for size, *_ in blocks], COMPONENT_GAP, ASPECT)
    positions = {}
    for (_, members, x, y), (left, top) in zip(blocks, corners):
        positions.update({node: (float(px + left), float(py + top)) for node, px, py in zip(members, x, y)})
    width = max(left + size[0] for (size, *_), (left, _) in zip(blocks, corners))
    height = max(top + size[1] for (size, *_), (_, top) in zip(blocks, corners))
    return {node: (x - width / 2, y - height / 2) for node, (x, y) in positions.items()}


def _component_coords(graph: LinkGraph, members: list[str], index: dict[str, int], box_area: float) -> np.ndarray:
    """Where a component's nodes would like to be: a force layout, widest across and stretched
    by STRETCH, scaled so their boxes would cover DENSITY of it."""
    if len(members) == 1:
        return np.zeros((1, 2))
    edges = sorted((index[u], index[v]) for u in members for v in graph.neighbours[u] if u < v)
    coords = _widest_along_x(force_layout(len(members), edges))
    coords[:, 0] *= STRETCH
    width, height = float(np.ptp(coords[:, 0])), float(np.ptp(coords[:, 1]))
    floor = max(width, height, 1e-9) / 4      # a chain is a line: give it some height to scale by
    span = max(width, floor) * max(height, floor)
    return coords * math.sqrt(box_area / DENSITY / span)


def _widest_along_x(coords: np.ndarray) -> np.ndarray:
    """Rotate so the longest extent runs left to right, as screens are wider than tall."""
    centred = coords - coords.mean(axis=0)
    _, vectors = np.linalg.eigh(np.cov(centred.T))
    rotated = centred @ vectors[:, ::-1]  # eigh sorts ascending: main axis first after reversing
    # eigenvectors have no canonical sign; pin it so the best-connected node sits right of centre
    if rotated[0, 0] < 0:
        rotated[:, 0] *= -1
    if rotated[0, 1] < 0:
        rotated[:, 1] *= -1
    return rotated


def _median_nearest_distance(coords: np.ndarray) -> float:
    """Typical gap between a node and its closest neighbour: what decides whether labels collide."""
    deltas = coords[:, None, :] - coords[None, :, :]
    distances = np.sqrt((deltas ** 2).sum(axis=-1))
    np.fill_diagonal(distances, np.inf)
    nearest = _median(distances.min(axis=1))
    return nearest if nearest > 1e-9 else 1.0


def _median(values: np.ndarray) -> float:
    """np.median of finite values (or inf), to the bit: the middle value, or the mean of the middle
    two. np.median imports numpy.ma to check for NaN, 8 ms of every export."""
    ordered = np.sort(values)
    middle = len(ordered) // 2
    return float(ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2)


def _kept_positions(graph: LinkGraph, previous: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """The usable previous positions of nodes still in `graph` (finite x and y), as floats."""
    kept = {}
    for node, point in previous.items():
        if node not in graph.names:
            continue
        try:
            x, y = point
            x, y = float(x), float(y)
        except (TypeError, ValueError):
            continue
        if math.isfinite(x) and math.isfinite(y):
            kept[node] = (x, y)
    return kept


def _place_around(center: tuple[float, float], index: int, start_angle: float) -> tuple[float, float]:
    radius = SATELLITE_OFFSET + SATELLITE_SPACING * math.sqrt(index)
    angle = start_angle + index * GOLDEN_ANGLE
    return (center[0] + radius * math.cos(angle), center[1] + radius * math.sin(angle))


def compute_layout(graph: LinkGraph, core_limit: int = CORE_LIMIT,
                   previous: dict[str, tuple[float, float]] | None = None) -> Layout:
    """Positions in px for every node of `graph`; the same graph always gives the same numbers.

    `previous` (entity id -> position, from the bundle being regenerated) keeps the map stable:
    every node it names keeps its position exactly, and only the new nodes are placed, beside an
    already placed neighbour or on the outer spiral. No force layout runs then, so a regeneration
    after a small change costs a pass over the graph instead of a full layout.
    """
    ranking = rank_nodes(graph)
    rank = {node: i for i, node in enumerate(ranking)}
    kept = _kept_positions(graph, previous) if previous else {}
    if kept:
        positions = dict(kept)
        roots = [node for node in ranking if node in kept
                 and any(n not in kept for n in graph.neighbours[node])]
        # an old node's first satellites are already on the map: new ones continue its spiral
        offsets = {node: sum(1 for n in graph.neighbours[node] if n in kept) for node in roots}
    elif len(ranking) <= min(core_limit, READABLE_LIMIT):
        positions = _readable_positions(graph, ranking)
        offsets, roots = {}, []
    else:
        # isolated entities would stretch the force layout; they join the outer spiral instead
        core = [node for node in ranking[:core_limit] if graph.degree(node) > 0]
        positions = _core_positions(graph, core)
        offsets = {}
        roots = core

    def spread_from(roots: list[str]) -> None:
        queue = deque(roots)
        while queue:
            parent = queue.popleft()
            px, py = positions[parent]
            # satellites start pointing away from the centre so they fan outwards
            start = math.atan2(py, px) if (px or py) else 0.0
            unplaced = graph.neighbours[parent].difference(positions)  # a set and a dict: read in C
            if not unplaced:
                continue
            fresh = sorted(unplaced, key=rank.__getitem__) if len(unplaced) > 1 else list(unplaced)
            # every node is a parent once (breadth first), so its k-th satellite is its k-th fresh neighbour
            first = offsets.get(parent, 0)
            for k, neighbour in enumerate(fresh, first):
                positions[neighbour] = _place_around((px, py), k, start)
            queue.extend(fresh)

    spread_from(roots)
    # Whatever the core does not reach (other components, isolated entities) goes on an outer spiral.
    outer_radius = max((math.hypot(x, y) for x, y in positions.values()), default=0.0) + 120.0
    ring_index = 0
    for node in ranking:
        if node in positions:
            continue
        radius = outer_radius + 28.0 * math.sqrt(ring_index)
        angle = ring_index * GOLDEN_ANGLE
        positions[node] = (radius * math.cos(angle), radius * math.sin(angle))
        ring_index += 1
        spread_from([node])
    # kept positions are returned as given (they were rounded when first placed)
    rounded = {node: kept.get(node) or (round(x, 1), round(y, 1)) for node, (x, y) in positions.items()}
    return Layout(positions=rounded, ranking=ranking, degree={n: graph.degree(n) for n in ranking})
