"""The folder a site is built in: files written inside it only, hashed for the manifest, and the
finished folder swapped in where the previous site was.

The build folder and the retired one are named like every memlens temporary (store/temporaries.py), so a
later build of the same site removes what a killed one left, and puts back a previous site that a
crash took away between the two renames of a swap (where the file system cannot exchange them).
"""

from __future__ import annotations

import ctypes
import os
import shutil
import stat
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from memlens.store import json_input
from memlens.store.confined import BUNDLE_FILE_LIMIT, UntrustedFileError, read_inside
from memlens.store.errors import BundleError

from memlens.store.temporaries import remove, sweep, temporary_beside

from ..atomic import rename_when_free
from ..workers import can_fork, with_workers
from .previous import NOT_FOLLOWING, PreviousSite, file_sha256, write_new

Emit = Callable[[str, str | bytes], None]
Carry = Callable[[str], bool]
Work = Callable[[list[Any], Emit], None]


class SiteTargetError(BundleError):
    """The target exists and is not a memlens site, so it is not ours to replace."""


# Below this many entities (records to digest) one process is quicker than forking a second one.
PARALLEL_MIN_ENTITIES = 2_000
PARALLEL_MIN_ITEMS = 20_000


class SiteFolder:
    """Writes files under `root`, remembering each one's sha256 for the manifest, and carries
    over from `previous` (the site being replaced) every file that would come out the same.

    (A writer thread was tried: the GIL handoffs after every system call cost more than the
    overlap with rendering won. A forked second process does win: `split`.)
    """

    def __init__(self, root: Path, previous: PreviousSite | None = None) -> None:
        self.root = root
        self._prefix = str(root) + os.sep   # paths joined as text, as in PreviousSite
        self.previous = previous
        self.hashes: dict[str, str] = {}
        self.inputs: dict[str, str] = {}   # entity or ledger page -> digest of what it is made from
        self._made: set[str] = set()

    def split(self, items: list[Any], work: Work, beside: Sequence[tuple[Callable[[Emit], None], str]] = ()) -> None:
        """Run `work` over `items`, and each of `beside` (the rest of the site, in parts named by
        what they write); when there are many items, the second half of them goes to a forked
        worker process and each part of `beside` to another. Three or four processes on two cores,
        rather than a split weighed by us: the other pages are about a tenth of a full build's
        work, but more than the entity pages' when those are carried over.

        A worker inherits the whole build at its birth (nothing is pickled: that would cost more
        than the second core wins), writes its files into the same folder and returns their
        hashes; any failure in it fails the build. It forks only while this process has no other
        thread, since a fork copies none of them and no lock they hold; otherwise all is done here.
        """
        if len(items) < PARALLEL_MIN_ENTITIES or not can_fork():
            work(items, self.emit)
            for part, _ in beside:
                part(self.emit)
            return
        half = len(items) // 2
        jobs = [(self._writing(lambda: work(items[half:], self.emit)), "writing entity pages")]
        jobs += [(self._writing(self._emitting(part)), f"writing {what}") for part, what in beside]
        _, written = with_workers(lambda: work(items[:half], self.emit), jobs)
        self._take(written)

    def alongside(self, part: Callable[[Emit], None], what: str, here: Callable[[], None], items: int) -> None:
        """Run `here()` while `part` writes its files (`what` they are) in a forked worker, when
        the site has many `items` (entities) and this process no other thread; else one after
        the other."""
        if items < PARALLEL_MIN_ENTITIES or not can_fork():
            part(self.emit)
            here()
            return
        _, written = with_workers(here, [(self._writing(self._emitting(part)), f"writing {what}")])
        self._take(written)

    def _emitting(self, part: Callable[[Emit], None]) -> Callable[[], None]:
        return lambda: part(self.emit)

    def _writing(self, job: Callable[[], None]) -> Callable[[], tuple[dict[str, str], dict[str, str]]]:
        """`job` as a worker runs it: the files it writes and the digests it records are its own,
        returned to the parent (`_take`)."""
        def in_the_worker() -> tuple[dict[str, str], dict[str, str]]:
            self.hashes, self.inputs = {}, {}
            job()
            return self.hashes, self.inputs
        return in_the_worker

    def _take(self, written: list[tuple[dict[str, str], dict[str, str]]]) -> None:
        for hashes, inputs in written:
            self.hashes.update(hashes)
            self.inputs.update(inputs)

    @staticmethod
    def in_halves(items: Sequence[Any], compute: Callable[[Sequence[Any]], list[Any]], what: str) -> list[Any]:
        """`compute(items)`, its second half computed in a forked worker when there are many (its
        results come back pickled, so they should be small); `what` names the work in a failure."""
        if len(items) < PARALLEL_MIN_ITEMS or not can_fork():
            return compute(items)
        half = len(items) // 2
        first, [rest] = with_workers(lambda: compute(items[:half]), [(lambda: compute(items[half:]), what)])
        return first + rest

    def reuse(self, page: str, digest: str) -> bool:
        """Record that the page `page` (with an entity's, its pages of its own) is made from inputs
        whose digest is `digest`; True when the previous site's were the same and its files are
        whole, which are then carried over and need not be rendered."""
        self.inputs[page] = digest
        previous = self.previous
        if previous is None or previous.inputs.get(page) != digest:
            return False
        paths = previous.entity_files(page)
        if not all(map(previous.intact, paths)):
            return False
        for number, path in enumerate(paths):
            self._folder_of(path)
            if not previous.link(path, self._prefix):   # gone since it was checked: render the page
                for carried in paths[:number]:
                    os.unlink(self._prefix + carried)
                    del self.hashes[carried]
                return False
            self.hashes[path] = previous.files[path]
        return True

    def carry(self, page: str) -> bool:
        """Carry over a page (an entity's with its pages of its own) known to be made from the same
        inputs as in the previous site, under the digest it had there; False when it cannot be
        (no digest, a file gone or changed), and then it is to be digested and rendered."""
        digest = self.previous.inputs.get(page) if self.previous is not None else None
        return digest is not None and self.reuse(page, digest)

    def _folder_of(self, path: str) -> None:
        folder = os.path.dirname(path)
        if folder and folder not in self._made:
            (self.root / folder).mkdir(parents=True, exist_ok=True)
            self._made.add(folder)

    def emit(self, path: str, content: str | bytes) -> None:
        check_inside(path)
        data = content.encode("utf-8") if isinstance(content, str) else content
        self._folder_of(path)
        sha = file_sha256(data)
        self.hashes[path] = sha
        if self.previous is not None and self.previous.holds(path, sha, data) \
                and self.previous.link(path, self._prefix, data):
            return
        write_new(self._prefix + path, data)


def check_inside(path: str) -> None:
    """A path the site writes stays inside its folder, whatever text reached it."""
    parts = path.split("/")
    if path.startswith("/") or "\\" in path or "\0" in path or any(p in ("", ".", "..") for p in parts):
        raise SiteTargetError(f"refusing to write {path!r}: a site file must stay inside the site folder")


def check_target(target: Path) -> None:
    """`target` is new, an empty folder or a memlens site: nothing else is ours to replace."""
    if target.exists() and not target.is_dir():
        raise SiteTargetError(f"{target} exists and is not a directory")
    if not target.is_dir() or not any(target.iterdir()):
        return
    if not (target / "manifest.json").exists():
        raise SiteTargetError(f"{target} is a non-empty directory without a memlens manifest.json; "
                              "refusing to replace it (choose an empty or new directory)")
    if site_manifest(target) is None:
        raise SiteTargetError(f"{target} holds a manifest.json that is not a memlens site's (a web app's?); "
                              "refusing to replace it (choose an empty or new directory)")


def site_manifest(root: Path) -> dict[str, Any] | None:
    """The manifest of the memlens site at `root` (its format, version and files named), or None."""
    try:
        manifest = json_input.parsed(read_inside(root, "manifest.json", BUNDLE_FILE_LIMIT))
    except (OSError, UntrustedFileError, ValueError):
        return None
    if not (isinstance(manifest, dict) and isinstance(manifest.get("memlens_version"), str)
            and str(manifest.get("format")).startswith("memlens-snapshot/")
            and isinstance(manifest.get("files"), dict)):
        return None
    return manifest


def not_ours(root: Path) -> list[str]:
    """What the site at `root` holds that memlens did not write (a CNAME, a gh-pages worktree's
    .git), outermost names only: a regeneration keeps all of it."""
    manifest = site_manifest(root)
    if manifest is None:
        return []
    found = _entries_not_ours(root, set(manifest["files"]) | {"manifest.json"})
    held = set(found)
    return [path for path in found if os.path.dirname(path) not in held]


def keep_not_ours(old: Path, new: Path, written: set[str]) -> None:
    """Carry into the new site `new` everything in the old one `old` that memlens did not write
    and does not write now: files as hard links (copies where there are none), links as links
    (never followed), folders made anew. A FIFO or a device is left behind."""
    manifest = site_manifest(old)
    if manifest is None:
        return
    ours = set(manifest["files"]) | written | {"manifest.json"}
    for path in _entries_not_ours(old, ours):
        source, into = old / path, new / path
        status = os.lstat(source)
        if os.path.lexists(into) or not _folder_ready(new, path):
            continue
        if stat.S_ISDIR(status.st_mode):
            os.mkdir(into, stat.S_IMODE(status.st_mode))
        elif stat.S_ISLNK(status.st_mode):
            try:
                os.symlink(os.readlink(source), into)
            except OSError:   # Windows makes links only with a privilege: this one stays behind
                continue
        elif stat.S_ISREG(status.st_mode):
            try:
                os.link(source, into, **NOT_FOLLOWING)
            except OSError:
                shutil.copy2(source, into, follow_symlinks=False)


def _entries_not_ours(root: Path, ours: set[str]) -> list[str]:
    """Every file, link and folder under `root` (folders before what they hold) that is not one of
    `ours` nor a folder holding one; found without following a link."""
    folders = _folders_of(ours)
    found: list[str] = []

    def walk(folder: Path, prefix: str) -> None:
        with os.scandir(folder) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                path = prefix + entry.name
                if path in ours:
                    continue
                if path in folders and entry.is_dir(follow_symlinks=False):
                    walk(Path(entry.path), path + "/")
                    continue
                found.append(path)
                if entry.is_dir(follow_symlinks=False):
                    walk(Path(entry.path), path + "/")

    walk(root, "")
    return found


def _folders_of(paths: set[str]) -> set[str]:
    folders = set()
    for path in paths:
        parts = path.split("/")
        folders.update("/".join(parts[:n]) for n in range(1, len(parts)))
    return folders


def _folder_ready(root: Path, path: str) -> bool:
    """Whether the folder `path` goes in is a real folder of the new site (not a link, not a file)."""
    parent = os.path.dirname(path)
    return not parent or (not os.path.islink(root / parent) and os.path.isdir(root / parent))


def building_folder(target: Path) -> Path:
    """A new, empty folder beside `target` to build the site in; first, what killed builds left
    there is cleared away (and a previous site a crash left retired is put back)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    sweep(target)
    building = temporary_beside(target)
    os.mkdir(building, 0o755)
    os.chmod(building, 0o755)  # whatever the umask: a web server serves the site
    return building


def swap_in(built: Path, target: Path) -> None:
    """Put `built` where `target` is, so that `target` always holds a whole site: in one exchange
    where the file system can (Linux), else old one renamed away, new one renamed in."""
    if not target.exists():
        os.rename(built, target)
        return
    if _exchange(built, target):
        remove(built)  # the previous site, now under the build's name
        return
    retired = temporary_beside(target, ".old")
    rename_when_free(os.rename, target, retired)
    try:
        rename_when_free(os.rename, built, target)
    except BaseException:
        rename_when_free(os.rename, retired, target)
        raise
    remove(retired)


_AT_FDCWD, _RENAME_EXCHANGE = -100, 2   # linux/fcntl.h, linux/fs.h
_RENAME_SWAP = 2                        # macOS's stdio.h


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically where the system can: renameat2 with RENAME_EXCHANGE (Linux),
    renamex_np with RENAME_SWAP (macOS, on APFS); False where it cannot (Windows, a C library
    without the call, a file system that refuses it): then two renames."""
    try:
        if sys.platform.startswith("linux"):
            renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
            return renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0
        if sys.platform == "darwin":
            renamex_np = ctypes.CDLL(None, use_errno=True).renamex_np
            return renamex_np(os.fsencode(a), os.fsencode(b), _RENAME_SWAP) == 0
    except AttributeError:  # glibc before 2.28, macOS before 10.12
        pass
    return False
