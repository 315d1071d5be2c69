"""What memlens wrote where: for each bundle, every file it wrote and how to know that file again.

A bundle lives in the working tree, where anyone's commit can change it; memlens replaces or
removes only what it can prove it wrote. The proof is kept in `$MEMLENS_HOME/written/`, one
record per bundle, no part of the bundle (so no one who can edit the bundle can edit it): for each
file, the sha256 of the bytes memlens wrote and the file's status then (size, inode, modification
and change times). A file whose status is still that one holds those bytes; one whose status
changed (a checkout, an edit, a copy) is read and hashed, and is ours only if it still holds them.

A site's record also keeps what its next regeneration needs of it (each page's input digest, the
snapshot it was built from), trusted as the manifest in the folder cannot be.

While a site's new files are renamed into place, the record names both the old and the new file at
each path (`pending`), so a regeneration killed halfway leaves nothing memlens cannot recognise.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from memlens.store import datasets
from memlens.store.checked_folder import Way
from memlens.store.confined import UntrustedFileError, read_regular_file

from .atomic import atomic_write, replace_file

_LIMIT = 256 << 20   # a record lists a file per line: a 100,000-entity site's is about 20 MB
VERSION = 1

# a file's mark: [sha256 hex, size, inode, mtime_ns, ctime_ns or None (any: renamed since it was made)]
Mark = list


def mark_of(sha: str, status: os.stat_result, *, renamed: bool = False) -> Mark:
    """The mark of a file memlens wrote with the sha256 `sha` (hex) and now has `status`; `renamed`:
    it is yet to be renamed into place, which changes its change time."""
    return [sha, status.st_size, status.st_ino, status.st_mtime_ns, None if renamed else status.st_ctime_ns]


def same_file(mark: Mark, status: os.stat_result) -> bool:
    """Whether `status` is the file `mark` was taken of, unchanged since (nothing wrote to it, it
    was not replaced)."""
    return (mark[1] == status.st_size and mark[2] == status.st_ino and mark[3] == status.st_mtime_ns
            and (mark[4] is None or mark[4] == status.st_ctime_ns))


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Written:
    """The record of one bundle (see the module's doc): `files` maps each file's path inside the
    bundle (a report: its own name) to its marks (one; two while a write is being committed)."""

    def __init__(self, bundle: str, fmt: str, content: dict[str, Any] | None = None) -> None:
        content = content or {}
        self.bundle = bundle
        self.format = fmt
        self.hash: str | None = content.get("hash") if isinstance(content.get("hash"), str) else None
        files = content.get("files")
        self.files: dict[str, list[Mark]] = files if isinstance(files, dict) else {}
        extra = content.get("site")
        self.site: dict[str, Any] = extra if isinstance(extra, dict) else {}

    @classmethod
    def of(cls, bundle: Path, fmt: str) -> Written:
        """What memlens recorded writing at `bundle` (empty if nothing, or the record is unreadable:
        then nothing there is known as ours)."""
        key = str(bundle)
        try:
            content = orjson.loads(read_regular_file(_record_path(key), _LIMIT))
        except (OSError, UntrustedFileError, ValueError):
            return cls(key, fmt)
        if not (isinstance(content, dict) and content.get("version") == VERSION and content.get("bundle") == key
                and content.get("format") == fmt):
            return cls(key, fmt)
        return cls(key, fmt, content)

    def sha(self, path: str, status: os.stat_result) -> str | None:
        """The sha256 (hex) memlens wrote at `path` if `status` shows that very file, unchanged."""
        for mark in self.files.get(path, ()):
            if isinstance(mark, list) and len(mark) == 5 and same_file(mark, status):
                return mark[0]
        return None

    def shas(self, path: str) -> set[str]:
        """Every sha256 (hex) the file memlens wrote at `path` may hold."""
        return {mark[0] for mark in self.files.get(path, ()) if isinstance(mark, list) and len(mark) == 5}

    def save(self) -> None:
        """Keep the record; in a home that cannot be written (a reader of a shared store), nothing is
        kept, and the next regeneration takes nothing there for memlens's."""
        content = {"version": VERSION, "bundle": self.bundle, "format": self.format, "hash": self.hash,
                   "files": self.files, "site": self.site}
        try:
            atomic_write(_record_path(self.bundle), orjson.dumps(content, option=orjson.OPT_SORT_KEYS) + b"\n")
        except OSError:
            pass

    def forget(self) -> None:
        """No record of this bundle any more (what it held is no longer known as memlens's)."""
        _record_path(self.bundle).unlink(missing_ok=True)


def _record_path(bundle: str) -> Path:
    return datasets.home() / "written" / f"{hashlib.sha256(bundle.encode('utf-8', 'surrogateescape')).hexdigest()[:32]}.json"


def write_recorded(way: Way, fmt: str, content: str | bytes | Iterable[str], snapshot_hash: str | None) -> Path:
    """Write the one-file bundle at `way` (a report, a brief) as atomic.replace_file does, and record
    it as memlens's, made from the snapshot `snapshot_hash`; returns its path."""
    digest = hashlib.sha256()
    with way.folder(create=True) as folder:
        status = replace_file(folder, way.name, content, digest=digest)
    written = Written(str(way.path), fmt)
    written.files, written.hash = {way.name: [mark_of(digest.hexdigest(), status)]}, snapshot_hash
    written.save()
    return way.path
