"""How wide a text is drawn, estimated without a browser: for labels that must fit a space."""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate, repeat
from operator import mul

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


def char_widths(text: str) -> list[float]:
    """Each character's advance in em, looked up in C."""
    return list(map(_WIDTHS.get, text, repeat(_WIDE)))


def text_width(text: str, font_px: float) -> float:
    """The width in px of `text` set at `font_px`; never less than a browser draws it."""
    return font_px * sum(map(_WIDTHS.get, text, repeat(_WIDE)))


def clip_to_width(text: str, font_px: float, width: float, widths: list[float] | None = None) -> str:
    """`text`, cut with an ellipsis where it would run past `width`. `widths`: its `char_widths`,
    where the caller has them."""
    widths = char_widths(text) if widths is None else widths
    if font_px * sum(widths) <= width:
        return text
    room = width - text_width("\u2026", font_px)
    # the width drawn up to each character, added in the order a loop adds it; the cut is the
    # first character that runs past the room
    used = list(accumulate(map(mul, repeat(font_px), widths)))
    cut = min(bisect_right(used, room), len(text) - 1) if text else 0
    return text[:cut].rstrip() + "\u2026"
