"""Reading files that arrived from someone else (a committed site, a mailed bundle): regular files
only, inside their folder, never through a link, and never more than a stated size.

A site's manifest names its files; a doctored one can name `../../.ssh/authorized_keys`, and a
doctored checkout can make `entities/x--y` a symlink to anywhere. So a name is checked before any
use (`confined_name`), and a file is opened one folder at a time without following links (relative
to a descriptor of the folder above, where the system can: Linux and macOS), or, where it cannot
(Windows), after checking every part with lstat and that the file opened is the one checked. A FIFO
or a device is refused without waiting on it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from .errors import MemlensError

# Names Windows will not create, whatever the extension (`con.html` is the console there).
_WINDOWS_RESERVED = frozenset(
    ["con", "prn", "aux", "nul"] + [f"{port}{n}" for port in ("com", "lpt") for n in range(1, 10)])
_NOT_IN_A_NAME = frozenset('<>:"|?*\\') | frozenset(chr(code) for code in range(32))
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)    # opening a FIFO without a writer must not wait
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_BINARY = getattr(os, "O_BINARY", 0)        # Windows: no newline translation
# what one file of a bundle may hold at most: a report at 100,000 entities is 25 MB, its site's
# snapshot.json about 200 MB
BUNDLE_FILE_LIMIT = 1 << 30


class UntrustedFileError(MemlensError):
    """A file from a bundle or an old site is not one memlens reads: outside its folder, a link,
    not a regular file, or too large."""


def confined_name(name: object) -> str | None:
    """`name` if it is a relative path of ours (parts joined by `/`, none empty, `.` or `..`, nor
    anything Windows or a case-insensitive system could not hold); otherwise None."""
    if not isinstance(name, str) or not name or len(name) > 1024 or name.startswith("/"):
        return None
    for part in name.split("/"):
        if part in ("", ".", "..") or part[-1] in ". " or _NOT_IN_A_NAME.intersection(part):
            return None
        if part.split(".")[0].lower() in _WINDOWS_RESERVED:
            return None
    return name


def read_inside(root: Path, name: str, limit: int) -> bytes:
    """The bytes of the regular file `name` (a confined name) inside the folder `root`."""
    if confined_name(name) is None:
        raise UntrustedFileError(f"{name!r} is not a file name inside {root}")
    handle = _open_inside(root, name.split("/"))
    try:
        return _read_regular(handle, f"{root}{os.sep}{name}", limit)
    finally:
        os.close(handle)


def read_regular_file(path: Path, limit: int) -> bytes:
    """The bytes of the regular file at `path` (whose own name may be a link the user made, as for
    any file a user names): refused if it is a FIFO, a device or a folder, or larger than `limit`."""
    handle = _open_named(path)
    try:
        return _read_regular(handle, str(path), limit)
    finally:
        os.close(handle)


def read_bundle_file(path: Path, *, follow: bool) -> bytes:
    """A file of a bundle, at most BUNDLE_FILE_LIMIT bytes: one the user named (`follow`: its own
    name may be a link), or one of a site's own files (no link anywhere: memlens writes none)."""
    if follow:
        return read_regular_file(path, BUNDLE_FILE_LIMIT)
    return read_inside(path.parent, path.name, BUNDLE_FILE_LIMIT)


def regular_file_inside(root: Path, name: str) -> os.stat_result | None:
    """The status of the regular file `name` inside `root`, reached without following a link and
    linked nowhere else (one name); None if it is anything else, or gone."""
    if confined_name(name) is None:
        return None
    try:
        handle = _open_inside(root, name.split("/"))
    except (OSError, UntrustedFileError):
        return None
    try:
        status = os.fstat(handle)
    finally:
        os.close(handle)
    return status if stat.S_ISREG(status.st_mode) and status.st_nlink == 1 else None


def _open_inside(root: Path, parts: list[str]) -> int:
    if _DIRECTORY and _NOFOLLOW and os.open in os.supports_dir_fd:
        return _open_by_descriptors(root, parts)
    return _open_after_lstat(root, parts)


def _open_by_descriptors(root: Path, parts: list[str]) -> int:
    """Each folder opened relative to the one above it, refusing links: nothing can be swapped
    in between a check and the open."""
    folder = os.open(root, os.O_RDONLY | _DIRECTORY)
    try:
        for part in parts[:-1]:
            inner = _no_link(lambda: os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=folder), root, parts)
            os.close(folder)
            folder = inner
        return _no_link(lambda: os.open(parts[-1], os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _BINARY, dir_fd=folder),
                        root, parts)
    finally:
        os.close(folder)


def _open_after_lstat(root: Path, parts: list[str]) -> int:
    """The portable path: every part checked with lstat (no link, no junction), then the file opened
    and held to the one checked (same device and inode)."""
    path = root
    for part in parts:
        path = path / part
        status = os.lstat(path)
        reparse = getattr(status, "st_file_attributes", 0) & getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0)
        if stat.S_ISLNK(status.st_mode) or reparse:
            raise UntrustedFileError(f"{path} is a link; memlens does not follow links in a bundle")
    handle = os.open(path, os.O_RDONLY | _NONBLOCK | _BINARY)
    opened = os.fstat(handle)
    if (opened.st_dev, opened.st_ino) != (status.st_dev, status.st_ino):
        os.close(handle)
        raise UntrustedFileError(f"{path} changed while it was read")
    return handle


def _no_link(opening, root: Path, parts: list[str]) -> int:
    try:
        return opening()
    except OSError as error:
        # a link refused by O_NOFOLLOW (ELOOP; EMLINK on the BSDs), or a file where a folder was named
        if error.errno in (errno.ELOOP, errno.EMLINK, errno.ENOTDIR):
            raise UntrustedFileError(f"{root}{os.sep}{'/'.join(parts)} passes through a link or a file; "
                                     "memlens does not follow links in a bundle") from None
        raise


def _read_regular(handle: int, shown: str, limit: int) -> bytes:
    status = _check_regular(handle, shown)
    if status.st_size > limit:
        raise UntrustedFileError(f"{shown} is {status.st_size:,} bytes, more than the {limit:,} memlens reads")
    chunks, total = [], 0
    while chunk := os.read(handle, min(1 << 20, limit + 1 - total)):
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:   # it grew while being read
            raise UntrustedFileError(f"{shown} is more than the {limit:,} bytes memlens reads")
    return b"".join(chunks)


def head_of_regular_file(path: Path, size: int) -> bytes:
    """The first `size` bytes (fewer if it is shorter) of the regular file at `path`, which may be a
    link the user made: a FIFO, a device or a folder is refused without waiting on it (the check a
    reader makes before it hands a path to SQLite, or reads a page's head)."""
    handle = _open_named(path)
    try:
        _check_regular(handle, str(path))
        return os.read(handle, size)
    finally:
        os.close(handle)


def _open_named(path: Path) -> int:
    """A descriptor of the file at `path`, opened without waiting on a FIFO."""
    try:
        return os.open(path, os.O_RDONLY | _NONBLOCK | _BINARY)
    except IsADirectoryError:
        raise UntrustedFileError(f"{path} is a folder, not a file") from None


def _check_regular(handle: int, shown: str) -> os.stat_result:
    status = os.fstat(handle)
    if stat.S_ISDIR(status.st_mode):
        raise UntrustedFileError(f"{shown} is a folder, not a file")
    if not stat.S_ISREG(status.st_mode):
        raise UntrustedFileError(f"{shown} is not a regular file (a FIFO, a device or a folder)")
    return status
