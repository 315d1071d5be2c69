"""Stable colours for entity types, derived from the type name rather than list order."""

from __future__ import annotations

import colorsys
import hashlib
from functools import lru_cache

# Fixed saturation/lightness keep every hue readable on both the light and the dark background.
SATURATION = 0.58
LIGHTNESS = 0.52


def type_hue(type_name: str) -> int:
    """A hue in degrees from a hash of the name, so adding a type never recolours the others."""
    digest = hashlib.sha256(type_name.encode("utf-8")).digest()
    return int.from_bytes(digest[:2], "big") % 360


@lru_cache(maxsize=1024)
def type_color(type_name: str) -> str:
    """The type's colour as #rrggbb."""
    red, green, blue = colorsys.hls_to_rgb(type_hue(type_name) / 360, LIGHTNESS, SATURATION)
    return "#{:02x}{:02x}{:02x}".format(round(red * 255), round(green * 255), round(blue * 255))
