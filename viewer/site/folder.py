"""The folder a site is written in: memlens's own files written in place, everything else kept.

A site folder may hold what is not memlens's: a CNAME, a README, a gh-pages worktree's `.git`,
notes in folders of their own; and, since it lives in the working tree, whatever a teammate's
commit put there. So the folder itself is never replaced (an older memlens built a new folder
beside it and swapped the two, carrying the rest over as hard links: a `.git` written to while
that ran lost those writes, a copy stood in where a hard link could not be made, and a site folder
committed as a link to `..` had the repository's root swapped away). Instead:

- the folder, and every folder on the way to it, is reached without following a link
  (store/checked_folder.py), and so is every folder inside it that memlens writes in;
- a file is written beside its place under a temporary name, and renamed over it only once every
  file of the site is written: a failure before then leaves the previous site as it was;
- a file is replaced, left in place (it already holds the bytes) or removed only when memlens's
  records prove it wrote it (viewer/written.py); one it did not write at a place it writes is
  refused (`NotOurs`): the site is left as it was, and says which file. What the manifest says
  decides nothing: anyone can write a manifest;
- everything else is left as it is, and named in a note.

What the single swap gave, a site that is old or new as a whole at every moment, is given up for
the moment the renames take (the files that changed: about ten after one new fact; every file of
a first build, 10,000 renames in about 0.1 s at 10,000 entities). A regeneration killed among them
leaves a site of old and new pages, each whole, which the next one completes: the record names
both the old and the new file at each place while they are renamed.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from memlens.store import json_input
from memlens.store.checked_folder import CheckedFolder, is_link
from memlens.store.confined import confined_name
from memlens.store.errors import BundleError
from memlens.store.temporaries import left_behind, temporary_name

from ..atomic import rename_when_free
from ..workers import can_fork, with_workers
from ..written import Mark, Written, mark_of, sha256_hex

Emit = Callable[[str, str | bytes], None]
Carry = Callable[[str], bool]
Work = Callable[[list[Any], Emit], None]


class SiteTargetError(BundleError):
    """The target exists and is not a memlens site, so it is not ours to write in."""


class NotOurs(SiteTargetError):
    """A file at a place the site writes is not one memlens wrote there."""


# the folders a site writes its pages and files in, and what would pass for one of them there: a
# site whose folders hold such a file memlens did not write is refused (and fails `memlens verify`)
OWN_FOLDERS = ("entities", "ledger", "maintenance", "assets")
OWN_KINDS = (".html", ".htm", ".js", ".css", ".json", ".svg")


def passes_for_ours(path: str) -> bool:
    """Whether the file `path` of a site's folder would pass for one of memlens's pages or files."""
    return path.split("/")[0] in OWN_FOLDERS and path.lower().endswith(OWN_KINDS)


# Below this many entities (records to digest) one process is quicker than forking a second one.
PARALLEL_MIN_ENTITIES = 2_000
PARALLEL_MIN_ITEMS = 20_000
_FILE_MODE = 0o644
_READ_LIMIT = 1 << 30


@dataclass(frozen=True)
class Staged:
    """A file written under a temporary name, to be renamed to its place when the site is whole."""

    temporary: str
    mark: Mark


class SiteFolder:
    """Writes a site's files into the folder `root`, remembering each one's sha256 for the manifest;
    a file memlens wrote there before and that already holds the bytes stays as it is, and so do
    an entity's pages that `reuse` or `carry` find made from the same inputs.

    `written`: what memlens recorded writing there (None: a new record); `take_over`: a file at a
    place the site writes that memlens did not write may be replaced (the user's own `memlens
    export` into the folder); otherwise it is refused.

    (A writer thread was tried: the GIL handoffs after every system call cost more than the
    overlap with rendering won. A forked second process does win: `split`.)
    """

    def __init__(self, root: CheckedFolder, written: Written | None = None, *, take_over: bool = False) -> None:
        self.root = root
        self.written = written if written is not None else Written(str(root.path), "site")
        self.take_over = take_over
        self.previous_inputs: dict[str, str] = self.written.site.get("inputs") or {}
        self.hashes: dict[str, str] = {}   # every file of the new site -> "sha256:<hex>", for the manifest
        self.inputs: dict[str, str] = {}   # entity or ledger page -> digest of what it is made from
        self.staged: dict[str, Staged] = {}
        self._folders: dict[str, CheckedFolder] = {"": root}
        self._made: list[str] = []          # folders this write made (removed again if it fails)
        self._present: dict[str, os.stat_result] = {}
        self._looked: set[str] = set()
        self._ours: dict[str, str | None] = {}
        self._side: dict[str, list[str]] | None = None
        self.debris: list[str] = []
        for folder in sorted({"", *(os.path.dirname(path) for path in self.written.files)}):
            self._look_into(folder)

    # -- sharing the work among processes ----------------------------------------------------------
    def split(self, items: list[Any], work: Work, beside: Sequence[tuple[Callable[[Emit], None], str]] = ()) -> None:
        """Run `work` over `items`, and each of `beside` (the rest of the site, in parts named by
        what they write); when there are many items, the second half of them goes to a forked
        worker process and each part of `beside` to another. Three or four processes on two cores,
        rather than a split weighed by us: the other pages are about a tenth of a full build's
        work, but more than the entity pages' when those are carried over.

        A worker inherits the whole build at its birth (nothing is pickled: that would cost more
        than the second core wins), writes its files into the same folder and returns what it
        wrote; any failure in it fails the build. It forks only while this process has no other
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
        self._with_workers(lambda: work(items[:half], self.emit), jobs)

    def alongside(self, part: Callable[[Emit], None], what: str, here: Callable[[], None], items: int) -> None:
        """Run `here()` while `part` writes its files (`what` they are) in a forked worker, when
        the site has many `items` (entities) and this process no other thread; else one after
        the other."""
        if items < PARALLEL_MIN_ENTITIES or not can_fork():
            part(self.emit)
            here()
            return
        self._with_workers(here, [(self._writing(self._emitting(part)), f"writing {what}")])

    def _with_workers(self, here: Callable[[], None], jobs: list[tuple[Callable[[], Any], str]]) -> None:
        try:
            _, written = with_workers(here, jobs)
        except BaseException:
            self.sweep_debris()   # a worker's temporaries, which it could not say it made
            raise
        for hashes, inputs, staged in written:
            self.hashes.update(hashes)
            self.inputs.update(inputs)
            self.staged.update(staged)

    def _emitting(self, part: Callable[[Emit], None]) -> Callable[[], None]:
        return lambda: part(self.emit)

    def _writing(self, job: Callable[[], None]) -> Callable[[], tuple[dict, dict, dict]]:
        """`job` as a worker runs it: the files it writes and the digests it records are its own,
        returned to the parent (`_with_workers`)."""
        def in_the_worker() -> tuple[dict, dict, dict]:
            self.hashes, self.inputs, self.staged = {}, {}, {}
            try:
                job()
            except BaseException:
                self.abandon()
                raise
            return self.hashes, self.inputs, self.staged
        return in_the_worker

    @staticmethod
    def in_halves(items: Sequence[Any], compute: Callable[[Sequence[Any]], list[Any]], what: str) -> list[Any]:
        """`compute(items)`, its second half computed in a forked worker when there are many (its
        results come back pickled, so they should be small); `what` names the work in a failure."""
        if len(items) < PARALLEL_MIN_ITEMS or not can_fork():
            return compute(items)
        half = len(items) // 2
        first, [rest] = with_workers(lambda: compute(items[:half]), [(lambda: compute(items[half:]), what)])
        return first + rest

    # -- writing a file -----------------------------------------------------------------------------
    def emit(self, path: str, content: str | bytes) -> None:
        """The site's file `path` holds `content`: left as it is if it already does (and memlens
        wrote it), else written beside its place, to be renamed there by `commit`."""
        check_inside(path)
        data = content.encode("utf-8") if isinstance(content, str) else content
        sha = sha256_hex(data)
        self.hashes[path] = "sha256:" + sha
        if self.sha_held(path) == sha:
            return
        folder, name = self._place(path, writing=True)
        temporary = temporary_name(name)
        try:
            status = folder.write_new(temporary, data, _FILE_MODE)
        except PermissionError as exc:
            raise BundleError(f"{folder.path} cannot be written ({exc.strerror}): is the site read-only? "
                              "Nothing of it was changed") from None
        self.staged[path] = Staged(temporary, mark_of(sha, status, renamed=True))

    def reuse(self, page: str, digest: str) -> bool:
        """Record that the page `page` (with an entity's, its pages of its own) is made from inputs
        whose digest is `digest`; True when the previous site's were the same and memlens wrote
        its files and they still hold what it wrote: they stay, and need not be rendered."""
        self.inputs[page] = digest
        if self.previous_inputs.get(page) != digest:
            return False
        shas = [self.sha_held(path) for path in self.entity_files(page)]
        if None in shas:
            return False
        for path, sha in zip(self.entity_files(page), shas):
            self.hashes[path] = "sha256:" + str(sha)
        return True

    def carry(self, page: str) -> bool:
        """Keep a page (an entity's with its pages of its own) known to be made from the same
        inputs as in the previous site, under the digest it had there; False when it cannot be
        (no digest, a file gone or changed), and then it is to be digested and rendered."""
        digest = self.previous_inputs.get(page)
        return digest is not None and self.reuse(page, digest)

    def entity_files(self, page: str) -> list[str]:
        """An entity page and the pages of its own memlens wrote beside it (`<stem>--*.html`)."""
        if self._side is None:
            self._side = {}
            for path in self.written.files:
                stem, sep, rest = path.partition("--")
                if sep and "/" not in rest and rest.endswith(".html"):   # beside its page, as entity_plan names them
                    self._side.setdefault(stem, []).append(path)
        return [page, *self._side.get(page.removesuffix(".html"), ())]

    def had_files_starting(self, prefix: str) -> bool:
        """Whether memlens wrote a page of an entity's own whose path begins with `prefix` (`<stem>--...`)."""
        return any(path.startswith(prefix) for path in self.entity_files(prefix.partition("--")[0] + ".html")[1:])

    def sha_held(self, path: str) -> str | None:
        """The sha256 (hex) of the file at `path` if memlens wrote it and it still holds those bytes;
        None if nothing is there, or what is there is not memlens's (a link, a folder, anything
        else, or a file changed since: then it may be replaced only by `take_over`, see `_place`)."""
        if path in self._ours:
            return self._ours[path]
        folder_path = os.path.dirname(path)
        self._look_into(folder_path)
        status = self._present.get(path)
        sha = None
        if status is not None:
            sha = self.written.sha(path, status)
            if sha is None and stat.S_ISREG(status.st_mode) and self.written.shas(path):
                # changed status, same bytes? (a checkout that wrote them again, a copy)
                folder, name = self._place(path, writing=False)
                try:
                    held = sha256_hex(folder.read(name, _READ_LIMIT))
                except OSError:
                    held = None
                if held in self.written.shas(path):
                    sha = held
                    self._present[path] = folder.status(name) or status
        self._ours[path] = sha
        return sha

    # -- the folders --------------------------------------------------------------------------------
    def _place(self, path: str, *, writing: bool) -> tuple[CheckedFolder, str]:
        """The folder `path` goes in (reached without a link, made if missing and `writing`) and its
        name there; refused if something not memlens's is at `path` and it is to be written."""
        folder_path, _, name = path.rpartition("/")
        folder = self._folder(folder_path, create=writing)
        if writing:
            status = self._present.get(path)
            if status is not None and self.sha_held(path) is None:
                self._refuse_or_take_over(path, status)
        return folder, name

    def _folder(self, folder_path: str, *, create: bool) -> CheckedFolder:
        """The folder `folder_path` of the site, reached without following a link (made if missing
        and `create`)."""
        folder = self._folders.get(folder_path)
        if folder is None:
            above, _, own = folder_path.rpartition("/")
            parent = self._folder(above, create=create)
            existed = parent.status(own) is not None
            folder = parent.folder(own, create=create)
            if not existed:
                self._made.append(folder_path)
            self._folders[folder_path] = folder
            self._look_into(folder_path)
        return folder

    def _refuse_or_take_over(self, path: str, status: os.stat_result) -> None:
        shown = self.root.path / path
        if is_link(status) or not stat.S_ISREG(status.st_mode):
            raise NotOurs(f"{shown} is {'a link' if is_link(status) else 'not a file'}, where the site writes a "
                          "file of its own; memlens never writes through a link nor replaces what it did not write: "
                          "remove it, or write the site elsewhere")
        if not self.take_over:
            raise NotOurs(f"{shown} is not the file memlens wrote there (by its records in $MEMLENS_HOME: edited, "
                          "replaced by a checkout, or written by someone else); memlens replaces only what it wrote, "
                          "so the site was left as it was: check the file, then remove it, or write the site "
                          "yourself once (memlens export --format site -o FOLDER)")

    def _look_into(self, folder_path: str) -> None:
        """What the folder `folder_path` holds (lstat of each, never followed), once; what killed
        writers left there is noted, to be removed."""
        if folder_path in self._looked:
            return
        self._looked.add(folder_path)
        if folder_path not in self._folders:
            self._look_into(os.path.dirname(folder_path))
            status = self._present.get(folder_path)
            if status is None or is_link(status) or not stat.S_ISDIR(status.st_mode):
                return   # nothing there (made when written), or refused when written
        folder = self._folder(folder_path, create=False)
        prefix = folder_path + "/" if folder_path else ""
        for entry in folder.entries():
            if left_behind(entry.name) is not None:
                self.debris.append(prefix + entry.name)
                continue
            self._present[prefix + entry.name] = entry.stat(follow_symlinks=False)

    # -- the end ------------------------------------------------------------------------------------
    def commit(self, snapshot_hash: str | None, site: dict[str, Any]) -> list[str]:
        """Put every file written in its place, remove what memlens wrote before and no longer
        writes, and record it all (`site`: what the next regeneration needs); returns what the
        folder holds that memlens did not write (outermost names)."""
        record = self.written
        kept = self.not_ours()
        posing = [path for path in kept if passes_for_ours(path)]
        if posing:
            raise NotOurs(f"{self.root.path / posing[0]} is in a folder of the site's own pages but memlens did not "
                          "write it: it would pass for one of them; remove it, and write the site again")
        listed = self._listed_not_ours()
        kept_files = {path: self._marks_held(path) for path in self.hashes if path not in self.staged}
        stale = [path for path in record.files if path not in self.hashes and self.sha_held(path) is not None]
        pending = dict(kept_files)
        for path, staged in self.staged.items():
            pending[path] = [staged.mark, *record.files.get(path, ())]
        for path in stale:
            pending[path] = record.files[path]
        record.files, record.hash = pending, None
        record.save()   # both at each place: a regeneration killed halfway leaves nothing unknown
        for path, staged in sorted(self.staged.items()):
            folder, name = self._place(path, writing=False)
            rename_when_free(lambda: folder.rename(staged.temporary, name), folder.path / name)
        emptied = set()
        for path in stale:
            folder, name = self._place(path, writing=False)
            try:
                folder.unlink(name)
            except FileNotFoundError:
                pass
            emptied.add(os.path.dirname(path))
        self._remove_emptied(emptied - {os.path.dirname(p) for p in self.hashes})
        final = dict(kept_files)
        for path, staged in self.staged.items():
            folder, name = self._place(path, writing=False)
            status = folder.status(name)
            final[path] = [mark_of(staged.mark[0], status)] if status is not None else [staged.mark]
        record.files, record.hash = final, snapshot_hash
        record.site = {**site, "inputs": dict(sorted(self.inputs.items())), "kept": kept, "listed": listed}
        record.save()
        self.sweep_debris()
        self.staged = {}
        return kept

    def _listed_not_ours(self) -> list[str]:
        """What a manifest.json memlens did not write (edited, or someone else's) lists that memlens
        did not write either and that is there: named in a note, neither carried nor removed."""
        if self._present.get("manifest.json") is None or self.sha_held("manifest.json") is not None:
            return []
        try:
            files = json_input.parsed(self.root.read("manifest.json", _READ_LIMIT))["files"]
            names = [name for name in files if isinstance(name, str)]
        except (OSError, BundleError, ValueError, TypeError, KeyError, RecursionError):
            return []
        return sorted(name for name in names if confined_name(name) and name not in self.hashes
                      and name not in self.written.files and os.path.lexists(self.root.path / name))

    def _marks_held(self, path: str) -> list[Mark]:
        """The mark of the file memlens wrote at `path` and that holds its bytes, as it is now."""
        sha = self.sha_held(path)
        return [mark_of(sha or "", self._present[path])]

    def _remove_emptied(self, folders: set[str]) -> None:
        """Remove the folders that removing memlens's old files left empty, innermost first; one
        still holding anything (the user's) stays."""
        for folder_path in sorted(folders, key=lambda f: -f.count("/")):
            if not folder_path:
                continue
            parent = self._folder(os.path.dirname(folder_path), create=False)
            try:
                parent.rmdir(os.path.basename(folder_path))
            except OSError as exc:
                if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOENT):
                    raise

    def not_ours(self) -> list[str]:
        """What the folder holds that memlens did not write (nor writes now), outermost names only
        (a folder of the user's once, not each file in it): a file memlens wrote and someone changed
        since is no longer memlens's."""
        found = []
        for path, status in sorted(self._present.items()):
            if path in self.hashes or (path in self.written.files and self.sha_held(path) is not None):
                continue
            if stat.S_ISDIR(status.st_mode) and not is_link(status) and path in self._looked:
                continue   # a folder memlens writes in: what it holds is listed on its own
            found.append(path)
        return found

    def abandon(self) -> None:
        """Remove what this write made (its temporaries, the folders it made): the site stays as it was."""
        for path, staged in self.staged.items():
            folder, _ = self._place(path, writing=False)
            try:
                folder.unlink(staged.temporary)
            except OSError:
                pass
        self.staged = {}
        for folder_path in reversed(self._made):
            parent = os.path.dirname(folder_path)
            try:
                self._folders[parent].rmdir(os.path.basename(folder_path))
            except (OSError, KeyError):
                pass

    def sweep_debris(self) -> None:
        """Remove what killed writers left (temporaries of processes that are gone)."""
        for path in self.debris:
            folder, name = self._place(path, writing=False)
            try:
                status = folder.status(name)
                if status is not None and stat.S_ISREG(status.st_mode):
                    folder.unlink(name)
            except OSError:
                pass
        self.debris = []

    def close(self) -> None:
        for folder in self._folders.values():
            if folder is not self.root:
                folder.close()


def check_inside(path: str) -> None:
    """A path the site writes stays inside its folder, whatever text reached it."""
    parts = path.split("/")
    if path.startswith("/") or "\\" in path or "\0" in path or any(p in ("", ".", "..") for p in parts):
        raise SiteTargetError(f"refusing to write {path!r}: a site file must stay inside the site folder")


def site_folder(parent: CheckedFolder, name: str, written: Written) -> CheckedFolder:
    """The folder `name` in `parent` to write a site in (made if missing): new, empty, one memlens
    wrote a site in, or one holding a memlens manifest (a site to take over); nothing else is a
    site's to write in."""
    status = parent.status(name)
    shown = parent.path / name
    if status is not None and not is_link(status) and not stat.S_ISDIR(status.st_mode):
        raise SiteTargetError(f"{shown} exists and is not a directory")
    folder = parent.folder(name, create=True)
    try:
        if not written.files and _holds_anything(folder):
            manifest = folder.status("manifest.json")
            if manifest is None:
                raise SiteTargetError(f"{shown} is a non-empty directory without a memlens manifest.json; "
                                      "refusing to write a site in it (choose an empty or new directory)")
            if not _is_site_manifest(folder):
                raise SiteTargetError(f"{shown} holds a manifest.json that is not a memlens site's (a web app's?); "
                                      "refusing to write a site in it (choose an empty or new directory)")
    except BaseException:
        folder.close()
        raise
    return folder


def _holds_anything(folder: CheckedFolder) -> bool:
    """Whether `folder` holds anything but what killed memlens writers left (a first build killed
    halfway leaves its temporaries, and the folders it made for them)."""
    for entry in folder.entries():
        if left_behind(entry.name) is not None:
            continue
        if not entry.is_dir(follow_symlinks=False):
            return True
        with folder.folder(entry.name, create=False) as inner:
            if _holds_anything(inner):
                return True
    return False


def _is_site_manifest(folder: CheckedFolder) -> bool:
    try:
        manifest = json_input.parsed(folder.read("manifest.json", _READ_LIMIT))
    except (OSError, BundleError, ValueError):
        return False
    return (isinstance(manifest, dict) and isinstance(manifest.get("memlens_version"), str)
            and str(manifest.get("format")).startswith("memlens-snapshot/") and isinstance(manifest.get("files"), dict))
