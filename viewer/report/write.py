"""Writing a report to disk atomically: a crash never leaves half a report where the old one was."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memlens.store.checked_folder import Way

from ..model.palette import TypeLook
from ..written import write_recorded
from .page import report_chunks


def write_report(snapshot: dict[str, Any], path: str | os.PathLike[str] | Way, *,
                 show_superseded: bool = False, changes: dict[str, Any] | None = None,
                 previous_layout: dict[str, tuple[float, float]] | None = None,
                 previous_looks: dict[str, TypeLook] | None = None) -> Path:
    """Render `snapshot` and atomically replace the report at `path` (as the user names it, or the
    way to a configured one) with it, never through a link on the way; returns its path. What was
    written is recorded (viewer/written.py), so that a regeneration may replace it.

    `changes` (from `memlens.store.snapshot.diff.diff`) adds the "Changes since ..." panel;
    `previous_layout` (entity id -> position) keeps those entities where they were, and
    `previous_looks` (type -> look) those types' colours and shapes.
    """
    way = path if isinstance(path, Way) else Way.named(path)
    # fails before any file is touched
    chunks = report_chunks(snapshot, show_superseded=show_superseded, changes=changes,
                           previous_layout=previous_layout, previous_looks=previous_looks)
    return write_recorded(way, "html", chunks, snapshot.get("hash"))
