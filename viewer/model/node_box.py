"""The space a node takes on the page: its dot and the label drawn under it, in canvas px.

The page (static/graph_view.js) draws every node label at LABEL_FONT_PX, cut to LABEL_CHARS
characters, under a dot whose radius grows with the node's degree. The layout keeps these boxes
apart, so the numbers here must follow the page's: the font, the cut, the radius and where
vis-network puts an external label (its top at radius + font / 2 + 4 below the centre).
"""

from __future__ import annotations

from dataclasses import dataclass

LABEL_FONT_PX = 14
LABEL_CHARS = 28
DOT_MIN, DOT_MAX = 8.0, 24.0
STROKE_PX = 4        # the label's outline, drawn around every glyph
LABEL_GAP = LABEL_FONT_PX / 2 + 4
# Advance widths in em of DejaVu Sans, Chromium's system-ui on Debian and wider than the
# system fonts of macOS and Windows, so a box measured with them holds the label anywhere.
_WIDTHS = dict(zip(
    " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~",
    (0.32, 0.40, 0.46, 0.84, 0.64, 0.95, 0.78, 0.28, 0.39, 0.39, 0.50, 0.84, 0.32, 0.36, 0.32, 0.34,
     *[0.64] * 10, 0.34, 0.34, 0.84, 0.84, 0.84, 0.54, 1.00,
     0.69, 0.69, 0.70, 0.77, 0.64, 0.58, 0.78, 0.76, 0.30, 0.30, 0.66, 0.56, 0.87, 0.75, 0.79, 0.61,
     0.79, 0.70, 0.64, 0.62, 0.74, 0.69, 0.99, 0.69, 0.62, 0.69, 0.39, 0.34, 0.39, 0.84, 0.50, 0.50,
     0.62, 0.64, 0.55, 0.64, 0.62, 0.36, 0.64, 0.64, 0.28, 0.28, 0.58, 0.28, 0.98, 0.64, 0.62, 0.64,
     0.64, 0.42, 0.53, 0.40, 0.64, 0.60, 0.82, 0.60, 0.60, 0.53, 0.64, 0.34, 0.64, 0.84)))
_WIDE = 1.0   # anything else (accents, CJK, emoji): a full em, never less than it takes


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
    return LABEL_FONT_PX * sum(_WIDTHS.get(ch, _WIDE) for ch in label_text(name)) + STROKE_PX


def dot_radius(degree: int, highest_degree: int) -> float:
    """As the page sizes dots: by degree, the best connected entity of the memory the largest."""
    high = max(1, highest_degree)
    share = 0.5 if high == 1 else (max(1, degree) - 1) / (high - 1)
    return DOT_MIN + share * (DOT_MAX - DOT_MIN)


def node_box(name: str, degree: int, highest_degree: int) -> NodeBox:
    radius = dot_radius(degree, highest_degree)
    return NodeBox(half_width=max(radius, label_width(name) / 2), above=radius,
                   below=radius + LABEL_GAP + LABEL_FONT_PX + STROKE_PX / 2)
