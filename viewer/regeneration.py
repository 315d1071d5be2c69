"""Bundles a dataset keeps up to date, and regenerating them only when the store changed.

The configuration lives in `$MEMLENS_HOME/bundles.json`, keyed by the store's resolved path, so
it is no part of the memory (writing it changes no content hash). Each bundle is kept with the
folder it was configured from (its anchor: the way from there is checked for links before every
write, store/checked_folder.py). A bundle is current when memlens recorded writing it from the
store's current state and every file of it is still the one it wrote (viewer/written.py): a claim
inside the bundle, which anyone can copy into a forged one, decides nothing. A regeneration
replaces only what memlens wrote: a file it did not write at the bundle's place is refused. Nothing
heavy (jinja2, networkx) is imported until a bundle really has to be written, so a no-op
regeneration costs little more than starting Python.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlens.store import datasets
from memlens.store.checked_folder import CheckedFolder, Way
from memlens.store.confined import UntrustedFileError, read_regular_file
from memlens.store.errors import BundleError, InvalidInput, NotFound
from memlens.store.snapshot.seal import sealed_once

from .atomic import atomic_write, check_replaceable, sweep_in
from .written import Written, sha256_hex

if TYPE_CHECKING:
    from memlens.store.memory import Memory
    from memlens.viewer.model.palette import TypeLook

# brief: the brief as a file of its own (brief_file.py); rules: in a host's rules file (rules_block.py)
FORMATS = ("html", "site", "brief", "rules")
_RECORD_LIMIT = 64 << 20   # bundles.json: a line or two per bundle


@dataclass(frozen=True)
class Bundle:
    path: str
    format: str
    anchor: str | None = None   # the folder it was configured from; None: by a memlens before anchors

    @classmethod
    def named(cls, path: str | os.PathLike[str], fmt: str, base: Path | None = None) -> Bundle:
        """The bundle at `path` as a user names it from `base` (the working directory): see Way.named."""
        way = Way.named(path, base)
        return cls(str(way.path), fmt, str(way.anchor))

    @property
    def way(self) -> Way:
        """The way to it from its anchor (a bundle configured before anchors: from its own folder)."""
        if self.anchor is None:
            return Way.from_its_folder(Path(self.path))
        return Way(Path(self.anchor), Path(self.path).relative_to(self.anchor).parts)

    def as_dict(self) -> dict[str, str]:
        shown = {"path": self.path, "format": self.format}
        return shown if self.anchor is None else {**shown, "anchor": self.anchor}


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


def _is_entry(entry: Any) -> bool:
    if not (isinstance(entry, dict) and {"path", "format"} <= set(entry) <= {"path", "format", "anchor"}
            and isinstance(entry["path"], str) and entry["path"] and entry["format"] in FORMATS):
        return False
    anchor = entry.get("anchor")
    return anchor is None or (isinstance(anchor, str) and Path(entry["path"]).is_relative_to(anchor)
                              and Path(entry["path"]) != Path(anchor))


def configured(store: Path) -> list[Bundle]:
    """The bundles configured for the store at `store`; InvalidInput, naming the file, for an entry
    that is not one (bundles.json is a file a person may edit)."""
    entries = _read_config().get(_key(store), [])
    if not isinstance(entries, list):
        raise InvalidInput(f"{_config_path()}: the bundles of {_key(store)} are not a list; fix or delete it")
    for number, entry in enumerate(entries, start=1):
        if not _is_entry(entry):
            shown = json.dumps(entry, ensure_ascii=True)
            raise InvalidInput(f"{_config_path()}: bundle {number} of {_key(store)} is not a path and a format "
                               f"({', '.join(FORMATS)}): {shown[:80]}; fix or delete it")
    return [Bundle(**entry) for entry in entries]


def add(store: Path, path: Path, fmt: str) -> Bundle:
    """Configure the bundle at `path`, as named from the working directory (its anchor)."""
    if fmt not in FORMATS:
        raise InvalidInput(f"unknown bundle format {fmt!r}; use one of {', '.join(FORMATS)}")
    bundle = Bundle.named(path, fmt)
    config = _read_config()
    entries = [e.as_dict() for e in configured(store) if e.path != bundle.path]
    config[_key(store)] = sorted([*entries, bundle.as_dict()], key=lambda e: e["path"])
    _write_config(config)
    return bundle


def remove(store: Path, path: Path) -> Bundle:
    config = _read_config()
    bundles = configured(store)
    named = {str(Way.named(path).path), str(path.resolve())}
    kept = [b for b in bundles if b.path not in named]
    if len(kept) == len(bundles):
        raise NotFound(f"no bundle at {Way.named(path).path} is configured for this dataset")
    if kept:
        config[_key(store)] = [b.as_dict() for b in kept]
    else:
        del config[_key(store)]
    _write_config(config)
    return next(b for b in bundles if b.path in named)


def holds(way: Way, fmt: str, snapshot_hash: str) -> bool:
    """Whether the bundle at `way` is what this memlens wrote there from the snapshot
    `snapshot_hash`: it recorded doing so (viewer/written.py), and every file it wrote is still the
    very file it wrote (size, inode, times: 20 ms for a 10,000-entity site's files). A bundle that
    only claims the hash (edited, or forged around the store's own hash), or that this memlens never
    wrote, is written again. A link on the way to it is refused (LinkOnTheWay), even here."""
    written = Written.of(way.path, fmt)
    if written.hash != snapshot_hash or not written.files:
        return False
    try:
        with way.folder(create=False) as folder:
            if fmt != "site":
                status = folder.status(way.name)
                return status is not None and written.sha(way.name, status) is not None
            with folder.folder(way.name, create=False) as site:
                return _all_held(site, written)
    except FileNotFoundError:
        return False


def _all_held(site: CheckedFolder, written: Written) -> bool:
    """Whether every file `written` records in the site folder `site` is still the one memlens wrote."""
    by_folder: dict[str, list[str]] = {}
    for path in written.files:
        folder, _, name = path.rpartition("/")
        by_folder.setdefault(folder, []).append(name)
    for folder_path, names in by_folder.items():
        folder = site
        try:
            for part in folder_path.split("/") if folder_path else ():
                folder = folder.folder(part, create=False)
            found = {entry.name: entry for entry in folder.entries()}
            for name in names:
                entry = found.get(name)
                path = f"{folder_path}/{name}" if folder_path else name
                if entry is None or written.sha(path, entry.stat(follow_symlinks=False)) is None:
                    return False
        finally:
            if folder is not site:
                folder.close()
    return True


def load_writer(fmt: str) -> None:
    """Import the writer before the snapshot exists: importing jinja2, networkx and numpy while
    millions of snapshot objects are alive makes every garbage collection pass walk them all
    (seconds at 100,000 entities)."""
    if fmt in ("html", "site"):
        import memlens.viewer.report.write  # noqa: F401
        import memlens.viewer.site.build  # noqa: F401
    elif fmt in ("graphml", "gexf"):
        import memlens.viewer.interchange  # noqa: F401


def regenerate(memory: "Memory", bundle: Bundle) -> Regeneration:
    """Bring `bundle` up to date with the store: refused (BundleError, nothing written) if a link is
    on its way, or a file at its place is not one memlens wrote there."""
    way = bundle.way
    current = memory.content_hash()
    if bundle.format == "rules":   # a marked block in a file of the user's, made from the store itself
        from .rules_block import write_rules_block

        return Regeneration(bundle, write_rules_block(memory.conn, memory.path, way.path), current)
    if holds(way, bundle.format, current):
        _sweep(way, bundle.format)   # what a killed regeneration left (a write sweeps it as it starts)
        return Regeneration(bundle, False, current)
    from memlens.store.snapshot.diff import diff

    # the bundles memlens keeps in its home (`memlens view`'s report) are no one else's to write
    take_over = way.path.is_relative_to(datasets.home().resolve())
    check_way(way, bundle.format, take_over=take_over)   # before anything of the old bundle is read
    if bundle.format == "brief":   # made from the store itself, not from a snapshot
        from .brief_file import write_brief_file

        return Regeneration(bundle, True, write_brief_file(memory.conn, memory.path, way))
    load_writer(bundle.format)
    from .reading import carried_over

    kept = carried_over(way.path, bundle.format)
    snapshot = memory.sealed_snapshot()
    previous = kept.digest
    changes = diff(previous, snapshot, newer_from_the_store=True) \
        if previous and previous.get("hash") != snapshot["hash"] else None
    write_bundle(snapshot, way, bundle.format, changes=changes, previous_layout=kept.layout,
                 previous_looks=kept.looks, take_over=take_over)
    return Regeneration(bundle, True, snapshot["hash"], kept.notes() + kept_note(way.path, bundle.format))


def check_way(way: Way, fmt: str, *, take_over: bool = False) -> None:
    """The way to the bundle at `way` passes through no link, nor is the bundle one (LinkOnTheWay);
    a report there is a file memlens wrote, by its records (else BundleError), unless `take_over`.
    Nothing is read or written. (A site's files are checked one by one as it is written.)"""
    try:
        with way.folder(create=False) as folder:
            status = folder.status(way.name)
            if status is None:
                return
            if fmt == "site":
                folder.folder(way.name, create=False).close()   # refused if a link, or a file
                return
            check_replaceable(folder, way.name)
            written = Written.of(way.path, fmt)
            if take_over or written.sha(way.name, status) is not None or (
                    written.shas(way.name) and sha256_hex(folder.read(way.name, 1 << 30)) in written.shas(way.name)):
                return
    except FileNotFoundError:
        return   # folders still to be made: checked as they are made
    what = {"html": "report", "brief": "brief file"}.get(fmt, fmt)
    raise BundleError(f"{way.path} is not the {what} memlens wrote there (by its records in $MEMLENS_HOME: edited, "
                      "replaced by a checkout, or written by someone else); memlens replaces only what it wrote, so "
                      f"it was left as it was: check it, then remove it, or write it yourself once (memlens export "
                      f"--format {fmt} -o PATH)")


def _sweep(way: Way, fmt: str) -> None:
    """Remove what killed writers of the bundle left beside it (or, in a site, among its files)."""
    try:
        with way.folder(create=False) as folder:
            sweep_in(folder, way.name)
            if fmt == "site":
                from .site.folder import SiteFolder

                with folder.folder(way.name, create=False) as root:
                    site = SiteFolder(root, Written.of(way.path, fmt))
                    site.sweep_debris()
                    site.close()
    except (FileNotFoundError, BundleError):
        pass


def kept_note(path: Path, fmt: str) -> tuple[str, ...]:
    """What a site holds that memlens did not write (and so kept), said in one note."""
    if fmt != "site":
        return ()
    site = Written.of(path, fmt).site
    kept, listed = site.get("kept") or [], site.get("listed") or []
    notes = []
    if kept:
        notes.append(f"kept what memlens did not write: {_some(kept)}")
    if listed:
        notes.append(f"its old manifest listed what memlens did not write, neither carried nor removed: {_some(listed)}")
    return tuple(notes)


def _some(names: list[str]) -> str:
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def write_bundle(snapshot: dict[str, Any], where: Path | Way, fmt: str, *, changes: dict | None = None,
                 show_superseded: bool = False,
                 previous_layout: dict[str, tuple[float, float]] | None = None,
                 previous_looks: dict[str, "TypeLook"] | None = None,
                 take_over: bool = True) -> None:
    """`previous_layout` and `previous_looks` (see `reading.carried_over`) keep those entities where
    they were and those types' colours and shapes. `where`: a path as the user names it, or the way
    to a configured bundle. `take_over`: a file memlens did not write at the bundle's place may be
    replaced (the user's own export or view), else it is refused (a regeneration). The bundle
    carries the snapshot's seal, for `memlens verify` (made here unless the snapshot came sealed)."""
    snapshot = sealed_once(snapshot)
    if fmt == "site":
        from memlens.viewer.site.build import write_site

        write_site(snapshot, where, changes=changes, previous_layout=previous_layout, previous_looks=previous_looks,
                   take_over=take_over)
    else:
        from memlens.viewer.report.write import write_report

        write_report(snapshot, where, show_superseded=show_superseded, changes=changes,
                     previous_layout=previous_layout, previous_looks=previous_looks)


def after_maintenance(memory: "Memory") -> str:
    """The built-in after-maintenance hook: bring every configured bundle up to date."""
    bundles = configured(memory.path)
    if not bundles:
        return ""   # nothing to do, nothing to say: `memlens maintain` prints no line for it
    from .cli.app import error_line   # the one line every error becomes

    messages, failures = [], []
    for bundle in bundles:
        try:
            messages.append(regenerate(memory, bundle).message())
        except Exception as exc:  # one broken bundle must not stop the others
            why = error_line(exc)
            failures.append(why if bundle.path in why else f"{bundle.path}: {why}")
    if failures:
        raise BundleError("; ".join(failures + messages))
    return "; ".join(messages)
