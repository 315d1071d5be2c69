"""Bundles a dataset keeps up to date, and regenerating them only when the store changed.

The configuration lives in `$MEMLENS_HOME/bundles.json`, keyed by the store's resolved path, so
it is no part of the memory (writing it changes no content hash). A bundle is current when it
claims the store's hash (the report's `memlens-snapshot-hash` meta tag, the site's graph page's)
and its bytes are what this memlens recorded writing there (`$MEMLENS_HOME/written.json`): a claim
alone, which anyone can copy into a forged bundle, never leaves a bundle in place. Nothing heavy (jinja2, networkx) is imported until a bundle really has to be written, so a no-op
regeneration costs little more than starting Python.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlens.store import datasets
from memlens.store.errors import BundleError, InvalidInput, NotFound
from memlens.store.confined import (BUNDLE_FILE_LIMIT, UntrustedFileError, head_of_regular_file, read_inside,
                                    read_regular_file, regular_file_inside)
from memlens.store.snapshot_seal import sealed_once
from memlens.store.temporaries import sweep

from .atomic import atomic_write

if TYPE_CHECKING:
    from memlens.store.memory import Memory
    from memlens.viewer.model.palette import TypeLook
    from memlens.viewer.reading import CarriedOver
    from memlens.viewer.site.previous import CheckedFiles

FORMATS = ("html", "site")
_RECORD_LIMIT = 64 << 20   # bundles.json and written.json: a line or two per bundle
_HASH_META = re.compile(rb'<meta name="memlens-snapshot-hash" content="([^"]+)"')


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
    notes: tuple[str, ...] = ()  # what could not be carried over from the bundle it replaced

    def message(self) -> str:
        done = f"{'wrote' if self.written else 'unchanged'}: {self.bundle.path} ({self.bundle.format})"
        return "; ".join((done, *self.notes))


def _config_path() -> Path:
    return datasets.home() / "bundles.json"


def _read_config() -> dict[str, list[dict[str, str]]]:
    path = _config_path()
    if not path.exists():
        return {}
    try:
        config = json.loads(read_regular_file(path, _RECORD_LIMIT))
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{path} is not valid JSON ({exc.msg}); fix or delete it") from None
    except (OSError, UnicodeDecodeError, UntrustedFileError) as exc:
        raise InvalidInput(f"cannot read {path}: {exc}; fix or delete it") from None
    if not isinstance(config, dict):
        raise InvalidInput(f"{path} is not a JSON object of the bundles each dataset keeps; fix or delete it")
    return config


def _write_config(config: dict[str, list[dict[str, str]]]) -> None:
    atomic_write(_config_path(), json.dumps(config, indent=2, sort_keys=True) + "\n")


def _key(store: Path) -> str:
    return str(store.resolve())


def configured(store: Path) -> list[Bundle]:
    """The bundles configured for the store at `store`; InvalidInput, naming the file, for an entry
    that is not one (bundles.json is a file a person may edit)."""
    entries = _read_config().get(_key(store), [])
    if not isinstance(entries, list):
        raise InvalidInput(f"{_config_path()}: the bundles of {_key(store)} are not a list; fix or delete it")
    for number, entry in enumerate(entries, start=1):
        if not (isinstance(entry, dict) and set(entry) == {"path", "format"} and isinstance(entry["path"], str)
                and entry["path"] and entry["format"] in FORMATS):
            shown = json.dumps(entry, ensure_ascii=True)
            raise InvalidInput(f"{_config_path()}: bundle {number} of {_key(store)} is not a path and a format "
                               f"({', '.join(FORMATS)}): {shown[:80]}; fix or delete it")
    return [Bundle(**entry) for entry in entries]


def add(store: Path, path: Path, fmt: str) -> Bundle:
    if fmt not in FORMATS:
        raise InvalidInput(f"unknown bundle format {fmt!r}; use one of {', '.join(FORMATS)}")
    bundle = Bundle(str(path.resolve()), fmt)
    config = _read_config()
    entries = [e.as_dict() for e in configured(store) if e.path != bundle.path]
    config[_key(store)] = sorted([*entries, bundle.as_dict()], key=lambda e: e["path"])
    _write_config(config)
    return bundle


def remove(store: Path, path: Path) -> Bundle:
    config = _read_config()
    entries = [e.as_dict() for e in configured(store)]
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
    """The snapshot hash the bundle at `path` claims to be built from; None if there is none (yet).
    Read from the head of its page (a site's graph page): a site's manifest says it too, but parsing
    the whole manifest took 0.16 s at 100,000 entities, half a no-op `view --if-changed`'s budget.
    A claim only: `holds` decides whether the bundle really is that snapshot's."""
    try:
        match = _HASH_META.search(head_of_regular_file(path / "index.html" if fmt == "site" else path, 16_384))
        return match.group(1).decode() if match else None
    except (OSError, UntrustedFileError):   # none there, or a FIFO or device where the page should be
        return None


def holds(path: Path, fmt: str, snapshot_hash: str) -> bool:
    """Whether the bundle at `path` is what this memlens wrote there from the snapshot
    `snapshot_hash`: its claimed hash is that one and its fingerprint (`_fingerprint`) is the one
    recorded when it was written (`record_written`). A bundle that only claims the hash (edited, or
    forged around the store's own hash) or that this memlens never wrote is written again.

    Checking the bundle's seal against its data would take its whole reading and the seal's
    digests (1.2 s at 10,000 entities, four times a no-op's 0.3 s budget) and would still pass a
    report whose page around the data was edited; the fingerprint takes 5 ms there."""
    if bundle_hash(path, fmt) != snapshot_hash:
        return False
    fingerprint = _fingerprint(path, fmt)
    return fingerprint is not None and _read_written().get(_key(path)) == {"hash": snapshot_hash,
                                                                           "fingerprint": fingerprint}


# a site's fingerprint: the bytes of its manifest (which lists every file's sha256) and of its graph
# page, and the status of its snapshot.json (inode, size, modification and change times): hashing
# that one's 33 MB took 165 ms of a 10,000-entity site's no-op, its status takes nothing, and a
# snapshot.json that arrives otherwise (a checkout, a copy, an edit) is a new file or has new times.
# A page edited behind an intact manifest is found by `memlens verify`, and rewritten by the next
# regeneration, which checks every file's bytes before carrying it.
_SITE_HASHED = ("manifest.json", "index.html")
_SITE_STATUS = "snapshot.json"


def _fingerprint(path: Path, fmt: str) -> str | None:
    """sha256 over what says the bundle was not touched since (see above); None if a file of it is
    unreadable, or no regular file."""
    folder, names = (path, _SITE_HASHED) if fmt == "site" else (path.parent, (path.name,))
    digest = hashlib.sha256()
    try:
        for name in names:
            digest.update(read_inside(folder, name, BUNDLE_FILE_LIMIT) + b"\0")
        if fmt == "site":
            status = regular_file_inside(path, _SITE_STATUS)
            if status is None:
                return None
            digest.update(f"{status.st_ino} {status.st_size} {status.st_mtime_ns} {status.st_ctime_ns}".encode())
    except (OSError, UntrustedFileError):
        return None
    return digest.hexdigest()


def _written_path() -> Path:
    return datasets.home() / "written.json"


def _read_written() -> dict[str, Any]:
    """Bundle path -> what this memlens last wrote there; a record it cannot read is no record (every
    bundle is then written again, which is always safe)."""
    try:
        written = json.loads(read_regular_file(_written_path(), _RECORD_LIMIT))
    except (OSError, UntrustedFileError, ValueError):
        return {}
    return written if isinstance(written, dict) else {}


def record_written(path: Path, fmt: str, snapshot_hash: str) -> None:
    """Remember that the bundle at `path` was just written from `snapshot_hash`, by its fingerprint:
    kept in $MEMLENS_HOME, no part of the bundle, so no one who can edit the bundle can edit it."""
    written = _read_written()
    written[_key(path)] = {"hash": snapshot_hash, "fingerprint": _fingerprint(path, fmt)}
    try:
        atomic_write(_written_path(), json.dumps(written, indent=1, sort_keys=True) + "\n")
    except OSError:   # a home that cannot be written: the bundle is only written again next time
        pass


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
    if holds(path, bundle.format, current):
        sweep(path)   # what a killed regeneration left (a write sweeps it as it starts: site/folder.py, atomic.py)
        return Regeneration(bundle, False, current)
    from memlens.store.snapshot_diff import diff

    load_writer(bundle.format)
    snapshot, kept = _snapshot_and_previous(memory, path, bundle.format)
    previous = kept.digest
    changes = diff(previous, snapshot, newer_from_the_store=True) \
        if previous and previous.get("hash") != snapshot["hash"] else None
    write_bundle(snapshot, path, bundle.format, changes=changes, previous_layout=kept.layout,
                 previous_looks=kept.looks, previous_files=kept.files)
    record_written(path, bundle.format, snapshot["hash"])
    return Regeneration(bundle, True, snapshot["hash"], kept.notes() + kept_note(path, bundle.format))


def kept_note(path: Path, fmt: str) -> tuple[str, ...]:
    """What a site holds that memlens did not write (and so kept), said in one note."""
    if fmt != "site":
        return ()
    from .site.folder import not_ours

    kept = not_ours(path)
    if not kept:
        return ()
    shown = ", ".join(kept[:5]) + (f" and {len(kept) - 5} more" if len(kept) > 5 else "")
    return (f"kept what memlens did not write: {shown}",)


def _snapshot_and_previous(memory: "Memory", path: Path, fmt: str) -> tuple[dict[str, Any], "CarriedOver"]:
    """The store's sealed snapshot, and what the bundle at `path` carries over to the next one, read
    at the same time: the bundle in a worker forked before the snapshot exists, so that it copies
    little. At 100,000 entities reading a site's graph page takes 1.2 s and checking its files
    (previous.checked_files) 5 s, beside the snapshot's 7."""
    from .reading import bundle_exists, carried_over
    from .workers import can_fork, with_workers

    if not (can_fork() and bundle_exists(path, fmt)):
        return memory.sealed_snapshot(), carried_over(path, fmt)

    def read_previous() -> "CarriedOver":
        kept = carried_over(path, fmt)
        if fmt == "site":
            from .site.previous import checked_files
            kept.files = checked_files(path)
        return kept

    snapshot, [kept] = with_workers(memory.sealed_snapshot, [(read_previous, "reading the bundle it replaces")])
    return snapshot, kept


def write_bundle(snapshot: dict[str, Any], path: Path, fmt: str, *, changes: dict | None = None,
                 show_superseded: bool = False,
                 previous_layout: dict[str, tuple[float, float]] | None = None,
                 previous_looks: dict[str, "TypeLook"] | None = None,
                 previous_files: "CheckedFiles | None" = None) -> None:
    """`previous_layout` and `previous_looks` (see `reading.carried_over`) keep those entities where
    they were and those types' colours and shapes; `previous_files`, a site's files as checked
    before (site/previous.py). The bundle carries the snapshot's seal, for `memlens verify` (made
    here unless the snapshot came sealed)."""
    snapshot = sealed_once(snapshot)
    if fmt == "site":
        from memlens.viewer.site.build import write_site

        write_site(snapshot, path, changes=changes, previous_layout=previous_layout, previous_looks=previous_looks,
                   previous_files=previous_files)
    else:
        from memlens.viewer.report.write import write_report

        write_report(snapshot, path, show_superseded=show_superseded, changes=changes,
                     previous_layout=previous_layout, previous_looks=previous_looks)


def after_maintenance(memory: "Memory") -> str:
    """The built-in after-maintenance hook: bring every configured bundle up to date."""
    bundles = configured(memory.path)
    if not bundles:
        return ""   # nothing to do, nothing to say: `memlens maintain` prints no line for it
    messages, failures = [], []
    for bundle in bundles:
        try:
            messages.append(regenerate(memory, bundle).message())
        except Exception as exc:  # one broken bundle must not stop the others
            failures.append(f"{bundle.path}: {type(exc).__name__}: {exc}")
    if failures:
        raise BundleError("; ".join(failures + messages))
    return "; ".join(messages)
