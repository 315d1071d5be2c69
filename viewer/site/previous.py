"""The site a build replaces, as a source of files to carry over instead of writing them again.

A file is carried only when the old manifest gives it the sha256 the new file would have (or, for
an entity whose page inputs did not change, the one it had) and the old file's bytes still hash
to it: a page edited or damaged since is written fresh, never carried. Modification times are
never consulted. Carrying is a hard link, so the old site stays whole until the swap.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .delta import Previous


def file_sha256(data: bytes) -> str:
    """A file's bytes as manifest.json lists them: written, carried over and verified by this."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


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
        self._side: dict[str, list[str]] | None = None

    @classmethod
    def read(cls, root: Path) -> PreviousSite | None:
        """The site at `root`; None where there is none or its manifest cannot be read (then
        everything is written fresh)."""
        try:
            manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
            files, inputs = manifest["files"], manifest.get("inputs") or {}
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if not isinstance(files, dict) or not isinstance(inputs, dict):
            return None
        counts = manifest.get("counts") if isinstance(manifest.get("counts"), dict) else {}
        built_from = Previous(*(value if isinstance(value, kind) else None for value, kind in (
            (manifest.get("hash"), str), (counts.get("ledger"), int), (manifest.get("inputs_base"), str))))
        return cls(root, {k: v for k, v in files.items() if isinstance(k, str) and isinstance(v, str)},
                   {k: v for k, v in inputs.items() if isinstance(k, str) and isinstance(v, str)}, built_from)

    def holds(self, path: str, sha: str, data: bytes) -> bool:
        """Whether the old file at `path` is listed with `sha` (that of `data`) and holds `data`."""
        if self.files.get(path) != sha:
            return False
        try:
            return _read(self._prefix + path) == data
        except OSError:
            return False

    def data(self, path: str) -> bytes | None:
        """The old file's bytes if they hash to what its manifest says."""
        listed = self.files.get(path)
        if listed is None:
            return None
        try:
            data = _read(self._prefix + path)
        except OSError:
            return None
        return data if file_sha256(data) == listed else None

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
                stem, sep, _ = path.partition("--")
                if sep:
                    self._side.setdefault(stem, []).append(path)
        return self._side

    def link(self, path: str, data: bytes, into: str) -> None:
        """Put the old file at `path` into the folder `into` (ending in a separator); written from
        `data` where the file system has no hard links."""
        try:
            os.link(self._prefix + path, into + path)
        except OSError:
            with open(into + path, "wb") as copy:
                copy.write(data)


def _read(path: str) -> bytes:
    with open(path, "rb") as file:
        return file.read()
