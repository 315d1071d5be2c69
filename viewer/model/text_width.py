"""How wide a text is drawn, estimated without a browser: for labels that must fit a space."""

from __future__ import annotations

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


class _Widths(dict):
    """The widths, a full em for any other character: looked up by map() in C for a whole text,
    the same widths added in the same order as a loop would (a site's timeline labels, whose
    arrows are not ASCII: 1.4 -> 0.3 s of profile at 10,000 entities)."""

    def __missing__(self, ch: str) -> float:
        return _WIDE


_WIDTH_OF = _Widths(_WIDTHS)


def text_width(text: str, font_px: float) -> float:
    """The width in px of `text` set at `font_px`; never less than a browser draws it."""
    return font_px * sum(map(_WIDTH_OF.__getitem__, text))


def clip_to_width(text: str, font_px: float, width: float) -> str:
    """`text`, cut with an ellipsis where it would run past `width`."""
    if text_width(text, font_px) <= width:
        return text
    room = width - text_width("\u2026", font_px)
    used, cut = 0.0, 0
    for cut, ch in enumerate(text):
        used += font_px * _WIDTH_OF[ch]
        if used > room:
            break
    return text[:cut].rstrip() + "\u2026"
