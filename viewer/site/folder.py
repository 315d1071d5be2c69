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
a first build). A regeneration killed among them
leaves a site of old and new pages, each whole, which the next one completes: the record names
both the old and the new file at each place while they are renamed.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from typing import Any, Callable

from memlens.store import json_input
from memlens.store.checked_folder import CheckedFolder, is_link
from memlens.store.confined import confined_name
from memlens.store.errors import BundleError
from memlens.store.temporaries import left_behind, temporary_name

from ..atomic import rename_when_free
from ..written import Mark, Written, mark_of, sha256_hex

Emit = Callable[[str, str | bytes], None]


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


_FILE_MODE = 0o644
_READ_LIMIT = 1 << 30


@dataclass(frozen=True)
class Staged:
    """A file written under a temporary name, to be renamed to its place when the site is whole."""

    temporary: str
    mark: Mark


class SiteFolder:
    """Writes a site's files into the folder `root`, remembering each one's sha256 for the manifest;
    a file memlens wrote there before and that already holds the bytes stays as it is, and so does
    a page whose model did not change (`page`).

    `written`: what memlens recorded writing there (None: a new record); `take_over`: a file at a
    place the site writes that memlens did not write may be replaced (the user's own `memlens
    export` into the folder); otherwise it is refused.
    """

    def __init__(self, root: CheckedFolder, written: Written | None = None, *, take_over: bool = False) -> None:
        self.root = root
        self.written = written if written is not None else Written(str(root.path), "site")
        self.take_over = take_over
        pages = self.written.site.get("pages")
        self.previous_pages: dict[str, list[Any]] = pages if isinstance(pages, dict) else {}
        self.hashes: dict[str, str] = {}   # every file of the new site -> "sha256:<hex>", for the manifest
        self.pages: dict[str, list[Any]] = {}   # each page -> [its model's digest, its files]
        self.staged: dict[str, Staged] = {}
        self._folders: dict[str, CheckedFolder] = {"": root}
        self._made: list[str] = []          # folders this write made (removed again if it fails)
        self._present: dict[str, os.stat_result] = {}
        self._looked: set[str] = set()
        self._ours: dict[str, str | None] = {}
        self.debris: list[str] = []
        for folder in sorted({"", *(os.path.dirname(path) for path in self.written.files)}):
            self._look_into(folder)

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

    def page(self, path: str, digest: str, draw: Callable[[], dict[str, str]]) -> None:
        """The page at `path` (with its pages of its own) is made from a model whose digest is
        `digest` (site/models.py): if memlens recorded writing it from that very model, and its files
        are still the ones it wrote, they stay as they are; otherwise `draw()` gives its files
        (path -> content), which are written."""
        recorded = self.previous_pages.get(path)
        if recorded is not None and recorded[0] == digest:
            shas = [self.sha_held(name) for name in recorded[1]]
            if None not in shas:
                for name, sha in zip(recorded[1], shas):
                    self.hashes[name] = "sha256:" + str(sha)
                self.pages[path] = recorded
                return
        files = draw()
        for name, content in files.items():
            self.emit(name, content)
        self.pages[path] = [digest, list(files)]

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
    def commit(self, snapshot_hash: str | None) -> list[str]:
        """Put every file written in its place, remove what memlens wrote before and no longer
        writes, and record it all (with each page's model digest, for the next regeneration);
        returns what the folder holds that memlens did not write (outermost names)."""
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
        # both files at each place, and no page's model: a regeneration killed halfway leaves nothing
        # unknown, and the next one draws every page (leaving alone each file that comes out the same)
        record.files, record.hash, record.site = pending, None, {}
        record.save()
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
        record.site = {"pages": self.pages, "kept": kept, "listed": listed}
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
