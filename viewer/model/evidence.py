"""Which evidence strings may become clickable links, and which facts' evidence changed since."""

from __future__ import annotations

import re
from typing import Any
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
        parts.port   # a port out of range is no URL a browser opens (static/dom.js isWebLink refuses it too)
    except ValueError:
        return False
    return parts.scheme in LINK_SCHEMES and bool(parts.netloc)


def evidence_changed(snapshot: dict[str, Any]) -> list[str]:
    """The facts a snapshot says cite files gone or lines changed since (store/evidence.py), for
    the mark on their cards; none from a snapshot made where no repository was checked."""
    check = snapshot.get("evidence_check")
    found = check.get("changed") if isinstance(check, dict) else None
    return [fid for fid in found if isinstance(fid, str)] if isinstance(found, list) else []
