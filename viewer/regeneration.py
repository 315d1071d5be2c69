"""Bundles a dataset keeps up to date, and regenerating them only when the store changed.

The configuration lives in `$MEMLENS_HOME/bundles.json`, keyed by the store's resolved path, so
it is no part of the memory (writing it changes no content hash). Whether a bundle is current is
read from the bundle itself: the report's `memlens-snapshot-hash` meta tag, the site's manifest.
Nothing heavy (jinja2, networkx) is imported until a bundle really has to be written, so a no-op
regeneration costs little more than starting Python.
"""
from __future__ import annotations

import html
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlens.store import datasets
from memlens.store.errors import BundleError, InvalidInput, NotFound
from memlens.store.snapshot_diff import DIGEST_FORMAT
from memlens.store.snapshot_seal import sealed

from .atomic import atomic_write

if TYPE_CHECKING:
    from memlens.store.memory import Memory
    from memlens.viewer.model.palette import TypeLook

FORMATS = ("html", "site")
_HASH_META = re.compile(rb'<meta name="memlens-snapshot-hash" content="([^"]+)"')
# a legend chip of the graph page (templates/_graph.html): the look each type was drawn with
_TYPE_CHIP = re.compile(r'<button type="button" class="type-chip"[^>]*? data-type="([^"]*)" '
                        r'data-color="(#[0-9a-fA-F]{6})" data-shape="([A-Za-z]+)"')
_DATA_BLOCK = '<script type="application/json"'


@dataclass(frozen=True)
class Bundle:
    path: str
    format: str

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True)
class Regeneration:
    bundle: Bundle
    written: bool  # False: the bundle already held the current snapshot
    hash: str

    def message(self) -> str:
        return f"{'wrote' if self.written else 'unchanged'}: {self.bundle.path} ({self.bundle.format})"


def _config_path() -> Path:
    return datasets.home() / "bundles.json"


def _read_config() -> dict[str, list[dict[str, str]]]:
    path = _config_path()
    if not path.exists():
        return {}
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{path} is not valid JSON ({exc.msg}); fix or delete it") from None
    return config if isinstance(config, dict) else {}


def _write_config(config: dict[str, list[dict[str, str]]]) -> None:
    atomic_write(_config_path(), json.dumps(config, indent=2, sort_keys=True) + "\n")


def _key(store: Path) -> str:
    return str(store.resolve())


def configured(store: Path) -> list[Bundle]:
    return [Bundle(**entry) for entry in _read_config().get(_key(store), [])]


def add(store: Path, path: Path, fmt: str) -> Bundle:
    if fmt not in FORMATS:
        raise InvalidInput(f"unknown bundle format {fmt!r}; use one of {', '.join(FORMATS)}")
    bundle = Bundle(str(path.resolve()), fmt)
    config = _read_config()
    entries = [e for e in config.get(_key(store), []) if e["path"] != bundle.path]
    config[_key(store)] = sorted([*entries, bundle.as_dict()], key=lambda e: e["path"])
    _write_config(config)
    return bundle


def remove(store: Path, path: Path) -> Bundle:
    config = _read_config()
    entries = config.get(_key(store), [])
    target = str(path.resolve())
    kept = [e for e in entries if e["path"] != target]
    if len(kept) == len(entries):
        raise NotFound(f"no bundle at {target} is configured for this dataset")
    if kept:
        config[_key(store)] = kept
    else:
        del config[_key(store)]
    _write_config(config)
    return Bundle(target, next(e["format"] for e in entries if e["path"] == target))


def bundle_hash(path: Path, fmt: str) -> str | None:
    """The snapshot hash the bundle at `path` was built from; None if there is none (yet)."""
    try:
        if fmt == "site":
            return json.loads((path / "manifest.json").read_text(encoding="utf-8")).get("hash")
        with path.open("rb") as page:
            match = _HASH_META.search(page.read(16_384))
        return match.group(1).decode() if match else None
    except (OSError, ValueError):
        return None


def previous_state(path: Path, fmt: str) -> dict[str, Any] | None:
    """What the existing bundle knew, for "changes since the last snapshot": the site's snapshot,
    or the digest of the report's data (ids, statuses, merges: no text); None if there is none."""
    try:
        if fmt == "site":
            return json.loads((path / "snapshot.json").read_text(encoding="utf-8"))
        from .report.payload import FACTS_BLOCK, MAIN_BLOCK  # only when a bundle is written: payload imports numpy

        page = path.read_text(encoding="utf-8")
        main, facts = _report_block(page, MAIN_BLOCK), _report_block(page, FACTS_BLOCK)
        if main is None or facts is None:
            return None
        return _report_digest(main, facts)
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None


def _report_block(page: str, element_id: str) -> Any:
    """The decoded JSON of one of the report's data blocks, None if the page has no such block."""
    opening = f'<script type="application/json" id="{element_id}">'
    start = page.find(opening)
    if start < 0:
        return None
    start += len(opening)
    end = page.find("</script>", start)  # the JSON escapes every "<", so this is the block's end
    return json.loads(page[start:end]) if end >= 0 else None


def _report_digest(main: dict[str, Any], facts: dict[str, list[Any]]) -> dict[str, Any]:
    """The snapshot digest (see snapshot_diff.digest) of the snapshot a report was built from."""
    columns = main["columns"]["entities"]
    eid, merged = columns.index("id"), columns.index("mergedInto")
    entities = main["entities"]
    return {
        "format": DIGEST_FORMAT,
        "hash": main["meta"]["hash"],
        "generated_at": main["meta"]["generatedAt"],
        "facts": {fact_id: [status, bool(contested)]
                  for fact_id, status, contested in zip(facts["id"], facts["status"], facts["contested"], strict=True)},
        "entities": {row[eid]: entities[row[merged]][eid] if row[merged] >= 0 else None for row in entities},
    }


def previous_layout(path: Path, fmt: str) -> dict[str, tuple[float, float]] | None:
    """The entity positions of the existing bundle (entity id -> (x, y)), for a regeneration that
    keeps the map where it was; None if there is no bundle or it cannot be read.

    A site has them in layout.json; a report in its data block's entity rows (merged entities,
    drawn beside what absorbed them, are left out).
    """
    try:
        if fmt == "site":
            raw = json.loads((path / "layout.json").read_text(encoding="utf-8"))
            if not isinstance(raw, dict):
                return None
            points = raw.items()
        else:
            from .report.payload import MAIN_BLOCK

            main = _report_block(path.read_text(encoding="utf-8"), MAIN_BLOCK)
            if main is None:
                return None
            columns, rows = main["columns"]["entities"], main["entities"]
            eid, x, y, merged = (columns.index(name) for name in ("id", "x", "y", "mergedInto"))
            points = ((row[eid], (row[x], row[y])) for row in rows if row[merged] == -1)
        positions = {}
        for node, (px, py) in points:
            if not isinstance(node, str) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                    for v in (px, py)):
                return None
            positions[node] = (float(px), float(py))
        return positions or None
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None


def previous_looks(path: Path, fmt: str) -> dict[str, "TypeLook"] | None:
    """The look (colour and shape) the existing bundle drew each type with, read from its graph
    page's legend, so a regeneration keeps them; None if there is no bundle or no legend in it."""
    from memlens.viewer.model.palette import TypeLook

    page = path / "index.html" if fmt == "site" else path
    try:
        with page.open(encoding="utf-8") as stream:
            head = ""
            while _DATA_BLOCK not in head:   # the legend comes before the data: stop reading there
                chunk = stream.read(65_536)
                if not chunk:
                    break
                head += chunk
    except (OSError, ValueError):
        return None
    looks = {html.unescape(name): TypeLook(color.lower(), shape)
             for name, color, shape in _TYPE_CHIP.findall(head.split(_DATA_BLOCK, 1)[0])}
    return looks or None


def load_writer(fmt: str) -> None:
    """Import the writer before the snapshot exists: importing jinja2, networkx and numpy while
    millions of snapshot objects are alive makes every garbage collection pass walk them all
    (seconds at 100,000 entities)."""
    if fmt in FORMATS:
        import memlens.viewer.report.write  # noqa: F401
        import memlens.viewer.site.build  # noqa: F401
    elif fmt in ("graphml", "gexf"):
        import memlens.viewer.interchange  # noqa: F401


def regenerate(memory: "Memory", bundle: Bundle) -> Regeneration:
    path = Path(bundle.path)
    current = memory.content_hash()
    if bundle_hash(path, bundle.format) == current:
        return Regeneration(bundle, False, current)
    from memlens.store.snapshot_diff import diff

    load_writer(bundle.format)
    snapshot = memory.snapshot()
    previous = previous_state(path, bundle.format)
    changes = diff(previous, snapshot) if previous and previous.get("hash") != snapshot["hash"] else None
    write_bundle(snapshot, path, bundle.format, changes=changes,
                 previous_layout=previous_layout(path, bundle.format),
                 previous_looks=previous_looks(path, bundle.format))
    return Regeneration(bundle, True, snapshot["hash"])


def write_bundle(snapshot: dict[str, Any], path: Path, fmt: str, *, changes: dict | None = None,
                 show_superseded: bool = False,
                 previous_layout: dict[str, tuple[float, float]] | None = None,
                 previous_looks: dict[str, "TypeLook"] | None = None) -> None:
    """`previous_layout` and `previous_looks` (see `previous_layout()`, `previous_looks()`) keep
    those entities where they were and those types' colours. The bundle carries the snapshot's
    seal, for `memlens verify`."""
    snapshot = sealed(snapshot)
    if fmt == "site":
        from memlens.viewer.site.build import write_site

        write_site(snapshot, path, changes=changes, previous_layout=previous_layout, previous_looks=previous_looks)
    else:
        from memlens.viewer.report.write import write_report

        write_report(snapshot, path, show_superseded=show_superseded, changes=changes,
                     previous_layout=previous_layout, previous_looks=previous_looks)


def after_maintenance(memory: "Memory") -> str:
    """The built-in after-maintenance hook: bring every configured bundle up to date."""
    bundles = configured(memory.path)
    if not bundles:
        return "no bundles configured (memlens bundles add PATH)"
    messages, failures = [], []
    for bundle in bundles:
        try:
            messages.append(regenerate(memory, bundle).message())
        except Exception as exc:  # one broken bundle must not stop the others
            failures.append(f"{bundle.path}: {type(exc).__name__}: {exc}")
    if failures:
        raise BundleError("; ".join(failures + messages))
    return "; ".join(messages)
