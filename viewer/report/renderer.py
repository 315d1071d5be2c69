"""Which code drew a report: what `memlens verify` needs to know before it draws the page again
from the report's own data and compares every byte.

A report's page depends on its data and on the code that draws it (templates, our scripts and
styles, vis-network, the page and model code) and on nothing else; `renderer_id` digests that
code. A report drawn by other code (another memlens version) cannot be drawn again here byte for
byte, so verify then checks its data only, and says so.
"""
from __future__ import annotations

import hashlib
import zlib
from functools import lru_cache
from importlib import resources
from typing import Any

from memlens.store.snapshot import memlens_version

from ..model.changes import shown_changes
from . import assets

# what draws a report: the page's code, the models it draws, its templates and its own assets
_PACKAGES = ("memlens.viewer.report", "memlens.viewer.model", "memlens.templates", "memlens.static")
_SOURCES = (".py", ".html", ".js", ".css")


@lru_cache(maxsize=1)
def renderer_id() -> str:
    """sha256 of the memlens version, the zlib that compresses the data blocks (another zlib, such
    as zlib-ng, compresses the same data into other bytes), the code and assets above and
    vis-network, as hex."""
    digest = hashlib.sha256(memlens_version().encode() + b"\0" + zlib.ZLIB_RUNTIME_VERSION.encode() + b"\0")
    for package in _PACKAGES:
        for source in sorted(resources.files(package).iterdir(), key=lambda s: s.name):
            if source.name.endswith(_SOURCES):
                digest.update(f"{package}/{source.name}\0".encode() + source.read_bytes())
    digest.update(assets.vis_network_script().encode() + assets.vis_network_style().encode())
    return digest.hexdigest()


def page_record(changes: dict[str, Any] | None) -> dict[str, Any]:
    """What a report carries (codec.PAGE_BLOCK) so that its page can be drawn again: the code that
    drew it, and the changes its panel shows (no part of the snapshot, so no part of its seal)."""
    return {"memlens": memlens_version(), "renderer": renderer_id(),
            "changes": shown_changes(changes) if changes is not None else None}
