"""Keeping boxes apart and packing groups of them together: what makes a small graph readable.

`place` puts boxes down one at a time, each on the free spot nearest to where a force layout
wanted it, so no node's dot or label covers another's; `pack` places the bounding boxes of
connected components side by side in rows of about a screen's proportions, instead of leaving
them wherever a force layout threw them.
"""

from __future__ import annotations

import numpy as np

MARGIN = 4.0           # px of air between two boxes
STEP = 6.0             # px between the spots tried around where a box wants to be


def overlapping_pairs(x: np.ndarray, y: np.ndarray, half: np.ndarray, above: np.ndarray,
                      below: np.ndarray) -> int:
    """How many pairs of boxes overlap (touching is not overlapping)."""
    overlap_x = half[:, None] + half[None, :] - np.abs(x[:, None] - x[None, :])
    overlap_y = (np.minimum((y + below)[:, None], (y + below)[None, :])
                 - np.maximum((y - above)[:, None], (y - above)[None, :]))
    return int(np.triu((overlap_x > 1e-6) & (overlap_y > 1e-6), 1).sum())


def pack(sizes: list[tuple[float, float]], gap: float, aspect: float) -> list[tuple[float, float]]:
    """Top-left corners for rectangles of `sizes` (width, height), in the order given (tallest
    first works best), packed in rows: of the row widths tried, the one whose packing would show
    largest in a box `aspect` times as wide as tall."""
    if not sizes:
        return []
    widest = max(w for w, _ in sizes)
    tried = {widest}
    running = -gap
    for width, _ in sizes:
        running += width + gap
        if running > widest:
            tried.add(running)
    best = min(sorted(tried), key=lambda row: _fit_cost(_rows(sizes, gap, row), sizes, aspect))
    return _rows(sizes, gap, best)


def _fit_cost(corners: list[tuple[float, float]], sizes: list[tuple[float, float]], aspect: float) -> float:
    """How large the packing must be scaled down to fit the box: its width over `aspect`, or its height."""
    width = max(left + w for (left, _), (w, _) in zip(corners, sizes))
    height = max(top + h for (_, top), (_, h) in zip(corners, sizes))
    return max(width / aspect, height)


def _rows(sizes: list[tuple[float, float]], gap: float, row_width: float) -> list[tuple[float, float]]:
    """Rows no wider than `row_width`. A row is as tall as its tallest rectangle; a rectangle that
    fits under the last one placed stacks below it, so small components fill the room beside a
    big one instead of starting a row of their own."""
    corners: list[tuple[float, float]] = []
    row_top, row_height = 0.0, 0.0
    column_left, column_width, column_bottom = 0.0, 0.0, 0.0
    for width, height in sizes:
        if corners and column_bottom + gap + height <= row_top + row_height + 1e-9 \
                and column_left + width <= row_width + 1e-9:
            corners.append((column_left, column_bottom + gap))      # below the last, same column
            column_bottom += gap + height
            column_width = max(column_width, width)
            continue
        left = column_left + column_width + gap if corners else 0.0
        if corners and left + width > row_width + 1e-9:             # a new row
            row_top, row_height, left = row_top + row_height + gap, 0.0, 0.0
        row_height = max(row_height, height)
        corners.append((left, row_top))
        column_left, column_width, column_bottom = left, width, row_top + height
    return corners


def place(x: np.ndarray, y: np.ndarray, half: np.ndarray, above: np.ndarray, below: np.ndarray,
          follow: list[list[int]], margin: float = MARGIN, aspect: float = 1.6) -> tuple[np.ndarray, np.ndarray]:
    """Boxes placed one at a time, in index order, each at the free spot nearest to where it
    wants to be: its (x, y) moved by how far its already placed `follow` nodes (its neighbours)
    were moved from theirs. Nearest weighs a step down `aspect` times a step across, so the
    whole grows wide rather than tall."""
    count = len(x)
    out_x, out_y = np.empty(count), np.empty(count)
    step = STEP
    for i in range(count):
        moved = [j for j in follow[i] if j < i]
        want_x = x[i] + (np.mean([out_x[j] - x[j] for j in moved]) if moved else 0.0)
        want_y = y[i] + (np.mean([out_y[j] - y[j] for j in moved]) if moved else 0.0)
        if i == 0:
            out_x[i], out_y[i] = want_x, want_y
            continue
        px, py = out_x[:i], out_y[:i]
        ph, pa, pb = half[:i], above[:i], below[:i]
        radius, spacing = step * 8, step
        while True:
            offsets = _offsets(radius, spacing, aspect)
            cx, cy = want_x + offsets[:, 0], want_y + offsets[:, 1]
            near = (np.abs(px - want_x) < radius + ph + half[i] + margin) & \
                   (np.abs(py - want_y) < radius + pa + pb + above[i] + below[i] + margin)
            if not near.any():
                out_x[i], out_y[i] = want_x, want_y
                break
            qx, qh, qy, qa, qb = px[near], ph[near], py[near], pa[near], pb[near]
            clash_x = np.abs(cx[:, None] - qx[None, :]) < half[i] + qh[None, :] + margin
            clash_y = (np.minimum(cy[:, None] + below[i], (qy + qb)[None, :])
                       - np.maximum(cy[:, None] - above[i], (qy - qa)[None, :]) + margin) > 0
            free = ~(clash_x & clash_y).any(axis=1)
            if free.any():
                k = int(np.argmax(free))          # offsets are sorted nearest first
                out_x[i], out_y[i] = cx[k], cy[k]
                break
            # farther out, coarser: every ring of the search tries about as many spots
            radius, spacing = radius * 2, spacing * (2 if radius > step * 8 else 1)
    return out_x, out_y


_OFFSETS: dict[tuple[float, float, float], np.ndarray] = {}


def _offsets(radius: float, step: float, aspect: float) -> np.ndarray:
    """Grid offsets within `radius`, nearest first (ties in a fixed order)."""
    key = (radius, step, aspect)
    if key not in _OFFSETS:
        steps = np.arange(-radius, radius + step / 2, step)
        gx, gy = np.meshgrid(steps, steps / aspect * 1.0)
        grid = np.column_stack([gx.ravel(), gy.ravel()])
        cost = np.hypot(grid[:, 0], grid[:, 1] * aspect)
        order = np.lexsort((grid[:, 0], grid[:, 1], cost))
        _OFFSETS[key] = grid[order]
    return _OFFSETS[key]
