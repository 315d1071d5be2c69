"""The folder a site is built in: files written inside it only, hashed for the manifest, and the
finished folder swapped in where the previous site was."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable

Emit = Callable[[str, str | bytes], None]


class SiteTargetError(ValueError):
    """The target exists and is not a memlens site, so it is not ours to replace."""


# Below this many entities one process is quicker than forking a second one.
PARALLEL_MIN_ENTITIES = 2_000


class SiteFolder:
    """Writes files under `root`, remembering each one's sha256 for the manifest.

    (A writer thread was tried: the GIL handoffs after every system call cost more than the
    overlap with rendering won. A forked second process does win: `split`.)
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.hashes: dict[str, str] = {}
        self._made: set[str] = set()

    def split(self, items: list[Any], work: Callable[[list[Any], Emit], None]) -> None:
        """Run `work` over `items`, half of them in a forked child when there are many.

        The child inherits the whole build (no pickling), writes its files into the same folder
        and sends back their hashes; any failure in it fails the build.
        """
        if len(items) < PARALLEL_MIN_ENTITIES or not hasattr(os, "fork"):
            work(items, self.emit)
            return
        half = len(items) // 2
        reader, writer = os.pipe()
        child = os.fork()
        if child == 0:  # pragma: no cover - runs in the child; its result is checked by the parent
            code = 1
            try:
                os.close(reader)
                self.hashes = {}
                try:
                    work(items[half:], self.emit)
                    result = {"hashes": self.hashes}
                    code = 0
                except Exception as exc:
                    result = {"error": f"{type(exc).__name__}: {exc}"}
                with os.fdopen(writer, "wb") as out:
                    out.write(json.dumps(result).encode())
            finally:
                os._exit(code)
        os.close(writer)
        try:
            work(items[:half], self.emit)
        finally:
            with os.fdopen(reader, "rb") as pipe:
                sent = pipe.read()
            _, status = os.waitpid(child, 0)
        result = json.loads(sent or b"{}")
        if os.waitstatus_to_exitcode(status) != 0 or "hashes" not in result:
            raise RuntimeError(f"the second process writing entity pages failed: {result.get('error', 'no answer')}")
        self.hashes.update(result["hashes"])

    def emit(self, path: str, content: str | bytes) -> None:
        check_inside(path)
        data = content.encode("utf-8") if isinstance(content, str) else content
        folder = os.path.dirname(path)
        if folder and folder not in self._made:
            (self.root / folder).mkdir(parents=True, exist_ok=True)
            self._made.add(folder)
        # os.open/os.write: three system calls a file, where open() adds an fstat and an isatty
        handle = os.open(self.root / path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(handle, view):]
        finally:
            os.close(handle)
        self.hashes[path] = "sha256:" + hashlib.sha256(data).hexdigest()


def check_inside(path: str) -> None:
    """A path the site writes stays inside its folder, whatever text reached it."""
    parts = path.split("/")
    if path.startswith("/") or "\\" in path or "\0" in path or any(p in ("", ".", "..") for p in parts):
        raise SiteTargetError(f"refusing to write {path!r}: a site file must stay inside the site folder")


def check_target(target: Path) -> None:
    if target.exists() and not target.is_dir():
        raise SiteTargetError(f"{target} exists and is not a directory")
    if target.is_dir() and any(target.iterdir()) and not (target / "manifest.json").is_file():
        raise SiteTargetError(f"{target} is a non-empty directory without a memlens manifest.json; "
                              "refusing to replace it (choose an empty or new directory)")


def swap_in(built: Path, target: Path) -> None:
    """Put `built` where `target` is: old one renamed away, new one renamed in, old one deleted."""
    if not target.exists():
        os.rename(built, target)
        return
    # an empty directory of our own to rename the old site onto (rename replaces empty dirs)
    retired = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
    os.rename(target, retired)
    try:
        os.rename(built, target)
    except BaseException:
        os.rename(retired, target)
        raise
    shutil.rmtree(retired, ignore_errors=True)
