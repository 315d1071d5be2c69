"""Reading a bundle back: the snapshot a report, a site or a snapshot JSON file was made from, and
the parts of a bundle a regeneration reuses (the digest behind "changes since", the layout, the
types' looks).

`read_bundle(path) -> snapshot` is what `memlens diff`, `verify` and `import --from memlens` build on:

- `path` is a report file (the single HTML page), a site folder (its snapshot.json) or a snapshot
  JSON file (`memlens export --format json`); anything else is refused.
- It returns the `memlens-snapshot/1` dict the bundle was made from, equal (`==`) to the one handed
  to the writer: a report's from its data blocks (viewer/report/codec.py).
- It checks that the bundle can be read (gzip's checksum over each of a report's blocks, the
  blocks' version, the snapshot's format), not that it is what it claims: `memlens verify` does that.
- Every failure is a `BundleUnreadable` (a MemlensError) whose one-line message names the file and
  what is wrong with it: missing, not a bundle, damaged, or written by another version.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any, Callable

from memlens.store import json_input
from memlens.store.errors import InvalidInput
from memlens.store.confined import UntrustedFileError, read_bundle_file
from memlens.store.snapshot import FORMAT
from memlens.store.snapshot.shape import check_shape
from memlens.store.snapshot.diff import digest

from .model.palette import TypeLook
from .report.codec import (FACTS_BLOCK, MAIN_BLOCK, PAGE_BLOCK, SNAPSHOT_BLOCKS, BundleUnreadable, decode,
                           decode_digest, decode_layout, decode_looks, decoded, parse_blocks, read_blocks, read_page)

__all__ = ["BundleUnreadable", "CarriedOver", "ReportParts", "read_bundle", "read_report_parts", "read_digest",
           "read_layout", "read_looks", "carried_over", "bundle_exists"]


_SQLITE = b"SQLite format 3\x00"


def read_bundle(path: str | PathLike[str]) -> dict[str, Any]:
    """The snapshot the report, site folder or snapshot JSON file at `path` was made from (see the
    module's contract)."""
    bundle = Path(path)
    if bundle.is_dir():
        return _shaped(_site_snapshot(bundle), bundle / "snapshot.json")
    return read_report_parts(bundle).snapshot


@dataclass(frozen=True)
class ReportParts:
    """A bundle file read back: its snapshot and, for a report, the page and its parsed blocks
    (codec.PAGE_BLOCK's too, where it has one), which `memlens verify` draws the page again from."""

    snapshot: dict[str, Any]
    page: bytes | None = None
    blocks: dict[str, dict[str, Any]] = field(default_factory=dict)


def read_report_parts(bundle: Path) -> ReportParts:
    """A report or snapshot JSON file, read back (see the module's contract)."""
    data = _read(bundle, f"{bundle}: no such report, site or snapshot")
    if data.startswith(_SQLITE):
        raise BundleUnreadable(f"{bundle} is a store, not a bundle: export it (memlens export --db {bundle} ...)")
    if data.lstrip()[:1] == b"{":
        return ReportParts(_shaped(_snapshot_json(data, bundle), bundle))
    if b'id="memlens-data"' not in data:   # no report's data block, of any memlens version
        raise BundleUnreadable(f"{bundle} is not a memlens report, site or snapshot")
    blocks = parse_blocks(data, str(bundle), (*SNAPSHOT_BLOCKS, PAGE_BLOCK))
    return ReportParts(_shaped(decoded(bundle, "data", lambda: decode(blocks)), bundle), data, blocks)


def _shaped(snapshot: dict[str, Any], path: Path) -> dict[str, Any]:
    """`snapshot`, once every record and field of it has the format's shape (snapshot/shape.py): a
    bundle's data, sealed or not, is untrusted, and what reads it (diff, verify, the viewer, an
    import) takes the shape for granted."""
    try:
        check_shape(snapshot)
    except InvalidInput as exc:
        raise BundleUnreadable(f"{path}: {exc}") from None
    return snapshot


def bundle_exists(path: Path, fmt: str) -> bool:
    """Whether there is a bundle of that format at `path` to read (a first write has none)."""
    return (path / "manifest.json").exists() if fmt == "site" else path.exists()


def read_digest(path: Path, fmt: str) -> dict[str, Any]:
    """The digest (snapshot.diff.digest) of the snapshot the bundle was made from: what the next
    "changes since" is computed against."""
    if fmt == "site":
        return digest(_site_snapshot(path))
    blocks = read_blocks(path, (MAIN_BLOCK, FACTS_BLOCK))
    return decoded(path, "data", lambda: decode_digest(blocks[MAIN_BLOCK], blocks[FACTS_BLOCK]))


def read_layout(path: Path, fmt: str) -> dict[str, tuple[float, float]]:
    """Entity id -> (x, y): where the bundle drew each live entity (a site keeps it in layout.json)."""
    if fmt == "site":
        return _site_layout(path)
    main = read_blocks(path, (MAIN_BLOCK,))[MAIN_BLOCK]
    return decoded(path, "layout", lambda: decode_layout(main))


def read_looks(path: Path, fmt: str) -> dict[str, TypeLook]:
    """Type -> the look (colour and shape) the bundle's graph page drew it with, as its legend shows."""
    page = path / "index.html" if fmt == "site" else path
    main = read_blocks(page, (MAIN_BLOCK,))[MAIN_BLOCK]
    return decoded(page, "types", lambda: decode_looks(main))


@dataclass
class CarriedOver:
    """What a regeneration keeps of the bundle it replaces (None where it has none, or could not
    read it) and, for each part it could not read, why."""

    digest: dict[str, Any] | None = None
    layout: dict[str, tuple[float, float]] | None = None
    looks: dict[str, TypeLook] | None = None
    failures: dict[str, str] = field(default_factory=dict)   # "layout" -> one line

    def notes(self) -> tuple[str, ...]:
        """One line per cause: "changes since, layout and type colours unavailable: <why>"."""
        parts_of: dict[str, list[str]] = {}
        for part, why in self.failures.items():
            parts_of.setdefault(why, []).append(part)
        return tuple(f"{_listed(parts)} unavailable: {why}" for why, parts in parts_of.items())


def carried_over(path: Path, fmt: str) -> CarriedOver:
    """The digest behind the next "changes since", the layout and the types' looks of the bundle at
    `path`, each read on its own so one that fails costs only itself (a report file is read once
    for all three). A bundle not written yet carries nothing over and fails nothing."""
    kept = CarriedOver()
    if not bundle_exists(path, fmt):
        return kept
    # a site's graph page holds the blocks a report does: a site's digest is read from them in a
    # third of the time its snapshot.json takes (100,000 entities: 1.1 s against 2.9), which stays
    # the fallback
    page_path = path / "index.html" if fmt == "site" else path
    unreadable = ""
    try:
        page = read_page(page_path, follow=fmt != "site")
        main = parse_blocks(page, str(page_path), (MAIN_BLOCK,))[MAIN_BLOCK]
    except BundleUnreadable as exc:
        page, main, unreadable = b"", None, str(exc)

    def from_main(what: str, decode: Callable[[dict[str, Any]], Any]) -> Any:
        if main is None:
            raise BundleUnreadable(unreadable)
        return decoded(page_path, what, lambda: decode(main))

    def digest() -> dict[str, Any]:
        if main is not None:
            try:
                facts = parse_blocks(page, str(page_path), (FACTS_BLOCK,))[FACTS_BLOCK]
                return decoded(page_path, "data", lambda: decode_digest(main, facts))
            except BundleUnreadable:
                if fmt != "site":
                    raise
        elif fmt != "site":
            raise BundleUnreadable(unreadable)
        return read_digest(path, fmt)   # a site's snapshot.json, where its graph page cannot give it

    readers = {"changes since": digest,
               "layout": (lambda: _site_layout(path)) if fmt == "site" else lambda: from_main("layout", decode_layout),
               "type colours": lambda: from_main("types", decode_looks)}
    read: dict[str, Any] = {}
    for part, reader in readers.items():
        try:
            read[part] = reader()
        except BundleUnreadable as exc:
            kept.failures[part] = str(exc)
    kept.digest, kept.layout, kept.looks = read.get("changes since"), read.get("layout"), read.get("type colours")
    return kept


def _listed(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _site_layout(path: Path) -> dict[str, tuple[float, float]]:
    raw = _json_file(path / "layout.json")
    if not isinstance(raw, dict):
        raise BundleUnreadable(f"{path / 'layout.json'} is not an object of entity positions")
    positions = {}
    for node, point in raw.items():
        if not (isinstance(point, list) and len(point) == 2
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in point)):
            raise BundleUnreadable(f"{path / 'layout.json'}: entity {node[:40]!r} has no position [x, y]")
        positions[node] = (float(point[0]), float(point[1]))
    return positions


def _site_snapshot(folder: Path) -> dict[str, Any]:
    path = folder / "snapshot.json"
    return _snapshot_json(_read(path, f"{folder} is not a memlens site: it has no snapshot.json", follow=False), path)


def _snapshot_json(data: bytes, path: Path) -> dict[str, Any]:
    try:
        snapshot = json_input.loads(data, str(path))
    except InvalidInput as exc:
        raise BundleUnreadable(str(exc)) from None
    if not isinstance(snapshot, dict) or snapshot.get("format") != FORMAT:
        found = snapshot.get("format") if isinstance(snapshot, dict) else type(snapshot).__name__
        raise BundleUnreadable(f"{path} is not a {FORMAT} snapshot (found {str(found)[:40]!r})")
    return snapshot


def _json_file(path: Path) -> Any:
    data = _read(path, f"{path.parent} has no {path.name}; it is not a memlens site", follow=False)
    try:
        return json_input.loads(data, str(path))
    except InvalidInput as exc:
        raise BundleUnreadable(str(exc)) from None


def _read(path: Path, missing: str, *, follow: bool = True) -> bytes:
    """The file's bytes; BundleUnreadable saying `missing` when there is no such file. A site's own
    files are read with `follow=False`: memlens writes no links into a site, so one is refused."""
    try:
        return read_bundle_file(path, follow=follow)
    except FileNotFoundError:
        raise BundleUnreadable(missing) from None
    except UntrustedFileError as exc:   # a FIFO, a device, a link, a file too large (store/confined.py)
        raise BundleUnreadable(str(exc)) from None
    except OSError as exc:
        raise BundleUnreadable(f"cannot read {path}: {exc.strerror or exc}") from None
