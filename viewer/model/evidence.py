"""Which evidence strings may become clickable links."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

LINK_SCHEMES = frozenset({"http", "https"})
_SPACE_OR_CONTROL = re.compile(r"[\s\x00-\x1f\x7f]")


def is_web_link(evidence: str) -> bool:
    """True only for a well-formed http(s) URL; `javascript:`, `data:`, `repo://` stay plain text."""
    # most evidence is `repo://…` or prose: decide those without parsing
    if evidence[:5].lower() not in ("http:", "https") or _SPACE_OR_CONTROL.search(evidence):
        return False
    try:
        parts = urlsplit(evidence)
    except ValueError:
        return False
    return parts.scheme in LINK_SCHEMES and bool(parts.netloc)
