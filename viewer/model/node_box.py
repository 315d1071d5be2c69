"""The space a node takes on the page: its dot and the label drawn under it, in canvas px.

The page (static/graph_view.js) draws every node label at LABEL_FONT_PX, cut to LABEL_CHARS
characters, under a dot whose radius grows with the node's degree. The layout keeps these boxes
apart, so the numbers here must follow the page's: the font, the cut, the radius and where
vis-network puts an external label (its top at radius + font / 2 + 4 below the centre).
"""

from __future__ import annotations

from dataclasses import dataclass

from .text_width import text_width

LABEL_FONT_PX = 14
LABEL_CHARS = 28
DOT_MIN, DOT_MAX = 8.0, 24.0
STROKE_PX = 4        # the label's outline, drawn around every glyph
LABEL_GAP = LABEL_FONT_PX / 2 + 4


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
                   below=radius + LABEL_GAP + LABEL_FONT_PX + STROKE_PX / 2)
