"""Which evidence strings may become clickable links."""

from __future__ import annotations

from urllib.parse import urlsplit

LINK_SCHEMES = frozenset({"http", "https"})


def is_web_link(evidence: str) -> bool:
    """True only for a well-formed http(s) URL; `javascript:`, `data:`, `repo://` stay plain text."""
    if not evidence or evidence != evidence.strip() or any(c.isspace() or ord(c) < 32 for c in evidence):
        return False
    try:
        parts = urlsplit(evidence)
    except ValueError:
        return False
    return parts.scheme in LINK_SCHEMES and bool(parts.netloc)
