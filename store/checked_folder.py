"""A path that arrives with the working tree is untrusted: memlens writes there only inside a
`CheckedFolder`.

A configured bundle (`memlens bundles add docs/memory.html`, a site folder) lives in the working tree,
and a `git pull` can change anything there: a teammate's commit may have made the bundle, or any
folder above it, a symbolic link to anywhere (the user's ~/.ssh, the repository's root). So a
bundle is reached from its *anchor*, the folder the user named it from (the working directory when
it was configured, or the folder an absolute path names; trusted as named), one folder at a time
without following a link, and written only by creating new names inside the folder reached and
renaming them there. A link anywhere on that way is refused (`LinkOnTheWay`), never followed.

Where the system opens files relative to a folder's descriptor (Linux, macOS), the folder is held
open and every call is made relative to it with O_NOFOLLOW: a folder above it swapped for a link
after the check changes nothing about where a write lands. Where it cannot (Windows), the way is
checked again with lstat before every call that writes, each folder still the one (device, inode)
found when it was reached, none of them a link or a junction: git's checkout checks the way to
every file it writes so (`has_symlink_leading_path`).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .confined import read_at, read_inside
from .errors import BundleError

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_BINARY = getattr(os, "O_BINARY", 0)     # Windows: no newline translation
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY   # a new name only, never an existing one
_REPARSE = getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0)


class LinkOnTheWay(BundleError):
    """A bundle's path, or a folder on the way to it, is a link (or not a folder where one is needed)."""


def is_link(status: os.stat_result) -> bool:
    """A symbolic link, or (Windows) a junction or any other reparse point."""
    return stat.S_ISLNK(status.st_mode) or bool(getattr(status, "st_file_attributes", 0) & _REPARSE)


@dataclass(frozen=True)
class Way:
    """The way to a bundle: its `anchor` (a folder the user named, trusted as named) and the names
    from there (`parts`, the last one the bundle's own), each checked without following a link."""

    anchor: Path
    parts: tuple[str, ...]

    @property
    def path(self) -> Path:
        return self.anchor.joinpath(*self.parts)

    @property
    def name(self) -> str:
        return self.parts[-1]

    @classmethod
    def named(cls, path: str | os.PathLike[str], base: Path | None = None) -> Way:
        """The way to `path` as a user names it from the folder `base` (the working directory): from
        `base` when `path` lies under it (`..` taken as written, from `base`'s real place), else from
        the folder `path` names as its parent. Only the anchor is resolved (followed): everything
        below it is checked."""
        base = (base or Path.cwd()).resolve()
        given = Path(os.path.normpath(base / Path(path).expanduser()))
        for anchor in (base, *base.parents):
            try:
                parts = given.relative_to(anchor).parts
            except ValueError:
                continue
            if parts and anchor == base:
                return cls(anchor, parts)
            break
        return cls.from_its_folder(given)

    @classmethod
    def from_its_folder(cls, path: Path) -> Way:
        """The way to `path` from the folder it names as its parent (resolved: trusted as named), or
        from the nearest folder above that exists (the folders to make are checked as they are made)."""
        if not path.name:
            return cls(path, ())
        anchor, parts = path.parent, (path.name,)
        while not anchor.is_dir() and anchor.parent != anchor:
            anchor, parts = anchor.parent, (anchor.name, *parts)
        return cls(anchor.resolve(), parts)

    def folder(self, *, create: bool) -> CheckedFolder:
        """The folder the bundle goes in (its parts but the last), reached without following a link."""
        return reach(self.anchor, self.parts[:-1], create=create)


def reach(anchor: Path, parts: Iterable[str], *, create: bool) -> CheckedFolder:
    """The folder `anchor`/`parts`: `anchor` opened as named, then each part without following a
    link (made where missing, if `create`); LinkOnTheWay if one of them is a link or no folder."""
    folder = CheckedFolder.open_anchor(anchor)
    try:
        for part in parts:
            inner = folder.folder(part, create=create)
            folder.close()
            folder = inner
    except BaseException:
        folder.close()
        raise
    return folder


def _by_descriptors() -> bool:
    """Whether this system opens, lists and renames relative to a folder's descriptor without
    following links (asked each time: tests take the calls away from a running process)."""
    return bool(_NOFOLLOW and _DIRECTORY and {os.open, os.stat, os.rename, os.unlink, os.mkdir, os.rmdir}
                <= os.supports_dir_fd and os.scandir in os.supports_fd)


class CheckedFolder:
    """A folder reached without following a link, and the writes memlens makes inside it: new files
    (never through an existing name), renames within it, removals. `path` is for messages and, where
    the system has no descriptors for folders, for the calls themselves (the way checked before each)."""

    def __init__(self, path: Path, descriptor: int | None, way: tuple[tuple[str, int, int], ...]) -> None:
        self.path = path
        self._fd = descriptor
        self._way = way     # the portable path: (path, device, inode) of the anchor and every folder below it

    # -- reaching -----------------------------------------------------------------------------------
    @classmethod
    def open_anchor(cls, anchor: Path) -> CheckedFolder:
        try:
            if _by_descriptors():
                return cls(anchor, os.open(anchor, os.O_RDONLY | _DIRECTORY), ())
            status = os.stat(anchor)
        except FileNotFoundError:
            raise BundleError(f"{anchor} is gone: it is the folder the bundle was configured from") from None
        except NotADirectoryError:
            raise LinkOnTheWay(f"{anchor} is not a folder") from None
        if not stat.S_ISDIR(status.st_mode):
            raise LinkOnTheWay(f"{anchor} is not a folder")
        return cls(anchor, None, ((str(anchor), status.st_dev, status.st_ino),))

    def folder(self, name: str, *, create: bool) -> CheckedFolder:
        """The folder `name` inside this one, reached without following a link (made if missing and
        `create`); LinkOnTheWay if it is a link or no folder."""
        _check_name(name, self.path)
        shown = self.path / name
        if create and self.status(name) is None:
            try:
                self._call(os.mkdir, name, 0o777)
            except FileExistsError:
                pass   # made meanwhile: checked below as any folder found
        if self._fd is not None:
            try:
                return CheckedFolder(shown, os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=self._fd), ())
            except OSError as error:
                if error.errno in (errno.ELOOP, errno.EMLINK, errno.ENOTDIR):
                    raise _link_on_the_way(shown) from None
                raise
        status = self.status(name)
        if status is None:
            raise FileNotFoundError(errno.ENOENT, "no such folder", str(shown))
        if is_link(status) or not stat.S_ISDIR(status.st_mode):
            raise _link_on_the_way(shown)
        return CheckedFolder(shown, None, (*self._way, (str(shown), status.st_dev, status.st_ino)))

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> CheckedFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what it holds ------------------------------------------------------------------------------
    def status(self, name: str) -> os.stat_result | None:
        """lstat of `name` (a link's own status, never its target's); None if there is nothing."""
        try:
            return self._call(os.stat, name, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def entries(self) -> Iterator[os.DirEntry[str]]:
        """What the folder holds (a DirEntry's `stat(follow_symlinks=False)` is the lstat)."""
        with os.scandir(self._fd if self._fd is not None else self._checked()) as found:
            yield from found

    def read(self, name: str, limit: int) -> bytes:
        """The bytes of the regular file `name`, reached without following a link."""
        _check_name(name, self.path)
        if self._fd is not None:
            return read_at(self._fd, name, limit, self.path)
        self._checked()
        return read_inside(self.path, name, limit)

    # -- writes -------------------------------------------------------------------------------------
    def write_new(self, name: str, content: bytes | Iterable[bytes], mode: int = 0o666, *,
                  sync: bool = False) -> os.stat_result:
        """Make the file `name`, which must not exist (nor be a link), holding `content`; its status."""
        handle = self._call(os.open, name, _CREATE, mode)
        try:
            for chunk in (content,) if isinstance(content, bytes) else content:
                view = memoryview(chunk)
                while view:
                    view = view[os.write(handle, view):]
            if sync:
                os.fsync(handle)
            return os.fstat(handle)
        finally:
            os.close(handle)

    def chmod(self, name: str, mode: int) -> None:
        """Set the mode of the file `name` (one this process made: never a link)."""
        if self._fd is not None and os.chmod in os.supports_dir_fd:
            os.chmod(name, mode, dir_fd=self._fd)
        else:
            os.chmod(self._checked(name), mode)

    def rename(self, source: str, target: str) -> None:
        """Rename `source` to `target` inside this folder, replacing the name `target` (a link there is
        replaced, never followed)."""
        if self._fd is not None:
            os.rename(source, target, src_dir_fd=self._fd, dst_dir_fd=self._fd)
        else:
            os.replace(self._checked(source), os.path.join(self.path, target))

    def unlink(self, name: str) -> None:
        self._call(os.unlink, name)

    def rmdir(self, name: str) -> None:
        self._call(os.rmdir, name)

    # -- how calls are made -------------------------------------------------------------------------
    def _call(self, function, name: str, *args, **kwargs):
        _check_name(name, self.path)
        if self._fd is not None:
            return function(name, *args, dir_fd=self._fd, **kwargs)
        return function(self._checked(name), *args, **kwargs)

    def _checked(self, name: str | None = None) -> str:
        """The portable path: every folder on the way checked again (still a folder, no link, the
        same one); the path of `name` inside this folder (or of the folder)."""
        for path, device, inode in self._way:
            try:
                status = os.lstat(path)
            except FileNotFoundError:
                raise BundleError(f"{path} is gone") from None
            if (is_link(status) and path != self._way[0][0]) or (status.st_dev, status.st_ino) != (device, inode):
                raise _link_on_the_way(Path(path), changed=True)
        return str(self.path) if name is None else os.path.join(self.path, name)


def _check_name(name: str, folder: Path) -> None:
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise BundleError(f"refusing {name!r} in {folder}: not a name inside the folder")


def _link_on_the_way(path: Path, changed: bool = False) -> LinkOnTheWay:
    how = "changed while memlens wrote there (now a link, or another folder)" if changed else \
        "is a link (or a file where a folder should be)"
    return LinkOnTheWay(f"{path} {how}; memlens never writes through a link on the way to a bundle, since "
                        "a path in the working tree may come from anyone's commit: remove the link, or the "
                        "bundle (memlens bundles remove)")
