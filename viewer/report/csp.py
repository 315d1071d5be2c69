"""The Content-Security-Policy that lets only our own inline scripts and styles run."""

from __future__ import annotations

import base64
import hashlib


def source_hash(text: str) -> str:
    """A CSP hash source for the exact text between the tags, as the browser hashes it (UTF-8)."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def content_security_policy(scripts: list[str], styles: list[str]) -> str:
    """`default-src 'none'`: nothing loads; only the hashed inline code runs; images only as data:."""
    return "; ".join([
        "default-src 'none'",
        "script-src " + " ".join(source_hash(s) for s in scripts),
        "style-src " + " ".join(source_hash(s) for s in styles),
        "img-src data:",
        "base-uri 'none'",
        "form-action 'none'",
    ])
