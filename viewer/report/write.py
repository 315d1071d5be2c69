"""Writing a report to disk atomically: a crash never leaves half a report where the old one was."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from .page import report_chunks


def write_report(snapshot: dict[str, Any], path: str | os.PathLike[str], *,
                 show_superseded: bool = False, changes: dict[str, Any] | None = None,
                 previous_layout: dict[str, tuple[float, float]] | None = None) -> Path:
    """Render `snapshot` and atomically replace `path` with it; returns the resolved path.

    `changes` (from `memlens.store.snapshot_diff.diff`) adds the "Changes since ..." panel;
    `previous_layout` (entity id -> position) keeps those entities where they were.
    """
    target = Path(path).resolve()
    # fails before any file is touched
    chunks = report_chunks(snapshot, show_superseded=show_superseded, changes=changes,
                           previous_layout=previous_layout)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.writelines(chunks)
            stream.flush()
            os.fsync(stream.fileno())
        # mkstemp makes 0600 files; a report is meant to be shared, so keep the old mode or use 0644
        os.chmod(temp_name, target.stat().st_mode & 0o777 if target.exists() else 0o644)
        os.replace(temp_name, target)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    return target
