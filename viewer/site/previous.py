"""The site a build replaces, as a source of files to carry over instead of writing them again.

A file is carried only when the old manifest gives it the sha256 the new file would have (or, for
an entity whose page inputs did not change, the one it had) and the old file's bytes still hash
to it: a page edited or damaged since is written fresh, never carried. Modification times are
never consulted. Carrying is a hard link, so the old site stays whole until the swap.

A regeneration checks the old files' bytes (`checked_files`) in a worker forked before the store's
snapshot exists, while the parent makes it: at 100,000 entities that is 1.8 GB of pages, about 5 s
of CPU that the page-writing processes spent later, beside the graph page. A page edited in the
seconds between that check and the swap is carried as checked; `memlens verify` names it.

The old site is untrusted: it may have come in a teammate's commit. Its manifest's names are used
only when they are names of ours inside the folder (store/confined.py), its files are read only if
regular and reached without a link, a file is carried only while it has no other name (a hard link
out of the site is never linked back in), and nothing is ever written through an existing path.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from memlens.store import json_input
from memlens.store.confined import BUNDLE_FILE_LIMIT, UntrustedFileError, confined_name, read_inside, regular_file_inside

from .delta import Previous

# link the name itself, never what a link there points at (where the system can say so)
NOT_FOLLOWING = {"follow_symlinks": False} if os.link in os.supports_follow_symlinks else {}
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)


def file_sha256(data: bytes) -> str:
    """A file's bytes as manifest.json lists them: written, carried over and verified by this."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class CheckedFiles:
    """The files a site's manifest lists whose bytes do not hash to what it says (or are gone),
    and which manifest that was (its sha256): small to hand back from a worker."""

    manifest: str
    damaged: frozenset[str]


def checked_files(root: Path) -> CheckedFiles | None:
    """Every file the site at `root` lists, read and hashed; None where it has no readable manifest."""
    try:
        manifest = read_inside(root, "manifest.json", BUNDLE_FILE_LIMIT)
        site = PreviousSite.of(root, manifest)
    except (OSError, UntrustedFileError):
        return None
    if site is None:
        return None
    return CheckedFiles(file_sha256(manifest), frozenset(path for path in site.files if not site.intact(path)))


class PreviousSite:
    """The old site's manifest (`files`: path -> sha256, `inputs`: entity or ledger page -> input digest)."""

    def __init__(self, root: Path, files: dict[str, str], inputs: dict[str, str],
                 built_from: Previous = Previous(None, None, None)) -> None:
        self.root = root
        self.built_from = built_from
        # paths joined as text: pathlib's `/` costs 1.8 us a join against 0.06, and a carried page
        # takes three (about 0.5 s of a regeneration at 100,000 entities)
        self._prefix = str(root) + os.sep
        self.files = files
        self.inputs = inputs
        # the listed files known not to hold what the manifest says; None: not checked yet, each
        # file is read when it is to be carried
        self._damaged: frozenset[str] | None = None
        self._side: dict[str, list[str]] | None = None

    @classmethod
    def read(cls, root: Path, checked: CheckedFiles | None = None) -> PreviousSite | None:
        """The site at `root`; None where there is none or its manifest cannot be read (then
        everything is written fresh). `checked`: its files as `checked_files` found them, used
        when it checked this manifest."""
        try:
            manifest = read_inside(root, "manifest.json", BUNDLE_FILE_LIMIT)
        except (OSError, UntrustedFileError):
            return None
        site = cls.of(root, manifest)
        if site is not None and checked is not None and checked.manifest == file_sha256(manifest):
            site._damaged = checked.damaged
        return site

    @classmethod
    def of(cls, root: Path, manifest_bytes: bytes) -> PreviousSite | None:
        """The site at `root` whose manifest.json holds `manifest_bytes`; None if they are no manifest."""
        try:
            manifest = json_input.parsed(manifest_bytes)
            files, inputs = manifest["files"], manifest.get("inputs") or {}
        except (ValueError, KeyError, TypeError):
            return None
        if not isinstance(files, dict) or not isinstance(inputs, dict):
            return None
        counts = manifest.get("counts") if isinstance(manifest.get("counts"), dict) else {}
        built_from = Previous(*(value if isinstance(value, kind) else None for value, kind in (
            (manifest.get("hash"), str), (counts.get("ledger"), int), (manifest.get("inputs_base"), str))))
        return cls(root, {k: v for k, v in files.items() if confined_name(k) and isinstance(v, str)},
                   {k: v for k, v in inputs.items() if confined_name(k) and isinstance(v, str)}, built_from)

    def holds(self, path: str, sha: str, data: bytes) -> bool:
        """Whether the old file at `path` is listed with `sha` (that of `data`) and holds `data`."""
        if self.files.get(path) != sha:
            return False
        if self._damaged is not None:
            return path not in self._damaged
        return self._bytes(path) == data

    def intact(self, path: str) -> bool:
        """Whether the old file is listed and its bytes hash to what the manifest says."""
        listed = self.files.get(path)
        if listed is None:
            return False
        if self._damaged is not None:
            return path not in self._damaged
        held = self._bytes(path)
        return held is not None and file_sha256(held) == listed

    def _bytes(self, path: str) -> bytes | None:
        try:
            return read_inside(self.root, path, BUNDLE_FILE_LIMIT)
        except (OSError, UntrustedFileError):
            return None

    def entity_files(self, page: str) -> list[str]:
        """An entity page and the pages of its own beside it (`<stem>--*.html`, see entity_plan.py)."""
        return [page, *self._side_pages().get(page.removesuffix(".html"), ())]

    def has_files_starting(self, prefix: str) -> bool:
        """Whether the site had a page of an entity's own whose path begins with `prefix`
        (`<stem>--...`)."""
        stem = prefix.partition("--")[0]
        return any(path.startswith(prefix) for path in self._side_pages().get(stem, ()))

    def _side_pages(self) -> dict[str, list[str]]:
        if self._side is None:
            self._side = {}
            for path in self.files:
                stem, sep, rest = path.partition("--")
                if sep and "/" not in rest and rest.endswith(".html"):   # beside its page, as entity_plan names them
                    self._side.setdefault(stem, []).append(path)
        return self._side

    def link(self, path: str, into: str, data: bytes | None = None) -> bool:
        """Put the old file at `path` into the new folder `into` (ending in a separator), as a new
        name: a hard link while the old file is a regular file of the site's own (reached without a
        link, with no other name), else a copy (of `data` if given). False if the old file is gone."""
        if regular_file_inside(self.root, path) is not None:
            try:
                os.link(self._prefix + path, into + path, **NOT_FOLLOWING)
                return True
            except OSError:   # no hard links on this file system
                pass
        if data is None:
            data = self._bytes(path)
            if data is None:
                return False
        write_new(into + path, data)
        return True


def write_new(path: str, data: bytes) -> None:
    """Write `data` to a new file at `path`; never through an existing name (nor a link there)."""
    handle = os.open(path, _CREATE, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(handle, view):]
    finally:
        os.close(handle)
