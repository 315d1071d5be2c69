"""The space a node takes on the page: its dot and the label drawn under it, in canvas px.

The page (static/node_labels.js, canvas_labels.js) draws every node label at LABEL_FONT_PX times
the zoom, cut to LABEL_CHARS characters, LABEL_GAP_PX under a dot whose radius grows with the
node's degree, in a box 1.2 times the font tall. The layout keeps these boxes apart, so the numbers
here must follow the page's: the font, the cut, the radius, the gap and the box. Names are never
drawn under 11 px, so at zooms below 11 / LABEL_FONT_PX they take more room than this and the
lesser ones give way: the first view of a small memory is fitted at that zoom or closer.
"""

from __future__ import annotations

from dataclasses import dataclass

from .text_width import text_width

LABEL_FONT_PX = 14
LABEL_CHARS = 28
DOT_MIN, DOT_MAX = 8.0, 24.0
STROKE_PX = 4        # the label's outline, drawn around every glyph
LABEL_GAP = 4.0      # the page's 3 px between dot and name, at the smallest zoom that keeps this room
LABEL_HEIGHT = 1.2 * LABEL_FONT_PX


@dataclass(frozen=True)
class NodeBox:
    """Extents from the node's centre: left and right of it, above and below it."""

    half_width: float
    above: float
    below: float


def label_text(name: str) -> str:
    """The label as the page draws it: long names are cut, with an ellipsis."""
    return name if len(name) <= LABEL_CHARS else name[:LABEL_CHARS - 1] + "\u2026"


def label_width(name: str) -> float:
    return text_width(label_text(name), LABEL_FONT_PX) + STROKE_PX


def dot_radius(degree: int, highest_degree: int) -> float:
    """As the page sizes dots: by degree, the best connected entity of the memory the largest."""
    high = max(1, highest_degree)
    share = 0.5 if high == 1 else (max(1, degree) - 1) / (high - 1)
    return DOT_MIN + share * (DOT_MAX - DOT_MIN)


def node_box(name: str, degree: int, highest_degree: int) -> NodeBox:
    radius = dot_radius(degree, highest_degree)
    return NodeBox(half_width=max(radius, label_width(name) / 2), above=radius,
                   below=radius + LABEL_GAP + LABEL_HEIGHT)
