"""Reading a file that may have come from someone else (a bundle, a site's page, a store given by
path): regular files only, of a size checked before a byte is read.

A FIFO blocks the first read (or the open) until someone writes to it, and a device such as
/dev/zero never ends: both are refused from their status, and the file is opened without blocking
and checked again through its descriptor, so one swapped in between is refused too.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import InvalidInput

# what a bundle's file may hold at most: a report at 100,000 entities is 25 MB, its site's
# snapshot.json about 200 MB
FILE_LIMIT = 1 << 30
_NONBLOCKING = getattr(os, "O_NONBLOCK", 0)   # POSIX only; Windows has no FIFOs to open by path
_BINARY = getattr(os, "O_BINARY", 0)           # Windows only
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class NotARegularFile(InvalidInput):
    """A FIFO, a device, a socket or a folder where a file was expected."""


class FileTooLarge(InvalidInput):
    """A file larger than memlens reads of its kind."""


def kind_of(mode: int) -> str:
    """What a file's mode says it is, in words."""
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a folder"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def check_regular(path: str | os.PathLike[str], *, follow: bool = True) -> os.stat_result:
    """The file's status; NotARegularFile unless it is a regular file (with `follow=False`, a
    symbolic link is refused too). FileNotFoundError (an OSError) if there is none."""
    status = os.stat(path) if follow else os.lstat(path)
    if not stat.S_ISREG(status.st_mode):
        raise NotARegularFile(f"{path} is {kind_of(status.st_mode)}, not a regular file; memlens does not read it")
    return status


def read_regular(path: str | os.PathLike[str], *, limit: int = FILE_LIMIT, follow: bool = True) -> bytes:
    """The bytes of the regular file at `path`, if it holds at most `limit` of them. OSError for
    a file that cannot be opened or read (FileNotFoundError when there is none)."""
    descriptor = open_regular(path, follow=follow)
    with os.fdopen(descriptor, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise FileTooLarge(f"{path} is {size:,} bytes; memlens reads at most {limit:,} of such a file")
        data = handle.read(limit + 1)   # a file that grew since: still never more than the limit
    if len(data) > limit:
        raise FileTooLarge(f"{path} grew past {limit:,} bytes while it was read; memlens reads at most that")
    return data


def open_regular(path: str | os.PathLike[str], *, follow: bool = True) -> int:
    """A descriptor open for reading on the regular file at `path`, opened without blocking (a FIFO
    swapped in after the check cannot hang the open) and checked through the descriptor."""
    check_regular(path, follow=follow)
    descriptor = os.open(path, os.O_RDONLY | _NONBLOCKING | _BINARY | (0 if follow else _NOFOLLOW))
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise NotARegularFile(f"{path} is {kind_of(mode)}, not a regular file; memlens does not read it")
        if _NONBLOCKING:
            os.set_blocking(descriptor, True)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def head_of(path: Path, size: int) -> bytes:
    """The first `size` bytes of the regular file at `path` (fewer if it is shorter)."""
    with os.fdopen(open_regular(path), "rb") as handle:
        return handle.read(size)
