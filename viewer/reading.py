"""Reading a bundle back: the snapshot a report, a site or a snapshot JSON file was made from.

`read_bundle(path) -> snapshot` is what `memlens diff`, `verify` and `import --from memlens` build on:

- `path` is a site folder (its snapshot.json), a snapshot JSON file (`memlens export --format json`)
  or a report file; anything else is refused.
- It checks that the bundle can be read, not that it is what it claims: `memlens verify` does that.
- Every failure is a `BundleUnreadable` whose one-line message names the file and what is wrong.

Reading a report back needs the page codec, which makes the report's data blocks lossless; this
memlens has none yet, so a report is refused saying so.
"""
from __future__ import annotations

from os import PathLike
from pathlib import Path
from typing import Any

from memlens.store import json_input
from memlens.store.errors import BundleError, InvalidInput
from memlens.store.snapshot import FORMAT

__all__ = ["BundleUnreadable", "read_bundle"]

_SQLITE = b"SQLite format 3\x00"
_REPORT_MARK = b'<meta name="memlens-snapshot-hash"'


class BundleUnreadable(BundleError):
    """A report, site or snapshot file that memlens cannot read back: missing, damaged, or not a bundle."""


def read_bundle(path: str | PathLike[str]) -> dict[str, Any]:
    """The snapshot the site folder, snapshot JSON file or report at `path` was made from."""
    bundle = Path(path)
    if bundle.is_dir():
        return _snapshot_file(bundle / "snapshot.json", f"{bundle} is not a memlens site: it has no snapshot.json")
    return _snapshot_file(bundle, f"{bundle}: no such report, site or snapshot")


def _snapshot_file(path: Path, missing: str) -> dict[str, Any]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise BundleUnreadable(missing) from None
    except OSError as exc:
        raise BundleUnreadable(f"cannot read {path}: {exc.strerror or exc}") from None
    start = data.lstrip()[:1]
    if data.startswith(_SQLITE):
        raise BundleUnreadable(f"{path} is a store, not a bundle: export it (memlens export --db {path} ...)")
    if start != b"{":
        if _REPORT_MARK in data[:16_384]:
            raise BundleUnreadable(f"{path} is a memlens report, which this memlens cannot read back "
                                   "(that needs the page codec); use the site or the JSON export instead")
        raise BundleUnreadable(f"{path} is not a memlens report, site or snapshot")
    try:
        snapshot = json_input.loads(data, str(path))
    except InvalidInput as exc:
        raise BundleUnreadable(str(exc)) from None
    if not isinstance(snapshot, dict) or snapshot.get("format") != FORMAT:
        found = snapshot.get("format") if isinstance(snapshot, dict) else type(snapshot).__name__
        raise BundleUnreadable(f"{path} is not a {FORMAT} snapshot (found {str(found)[:40]!r})")
    return snapshot
