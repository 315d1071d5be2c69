"""Writing a file the one way memlens writes files: under a temporary name beside the target,
flushed to disk, then renamed over it, so a crash never leaves half a file where the old one was.

The write is made inside a CheckedFolder (store/checked_folder.py): a link at the target is
refused, never written through (a renamed-over link would be gone; a followed one would put the
bytes wherever it points), and so is a folder, a FIFO or a device.

Temporaries are named as store/temporaries.py names them: a killed process cannot clean up after
itself, so the next write of the same target removes what a process that is gone left behind.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from memlens.store.checked_folder import CheckedFolder, LinkOnTheWay, Way, is_link
from memlens.store.errors import BundleError
from memlens.store.temporaries import left_behind, remove, temporary_name

# Windows refuses to replace or rename a file (or a folder holding one) that another program has
# open without sharing its deletion: a virus scanner or a search indexer for a moment after a
# write, a viewer for longer. The rename is tried again after each pause, about a second in all.
HELD_PAUSES = (0.02, 0.05, 0.1, 0.2, 0.3, 0.4)
REFUSES_WHILE_HELD = os.name == "nt"
_CHUNK = 1 << 20   # text in chunks is written a megabyte at a time


def atomic_write(path: str | os.PathLike[str], content: str | bytes | Iterable[str], *,
                 mode: int | None = None) -> Path:
    """Replace the file `path`, in a folder trusted as named ($MEMLENS_HOME, the user's settings),
    with `content` (text, bytes, or text in chunks) in one rename; returns the path. A bundle in
    the working tree is written through its checked way instead (`replace_file`)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with CheckedFolder.open_anchor(target.parent) as folder:
        replace_file(folder, target.name, content, mode=mode)
    return target


def write_named(path: str | os.PathLike[str], content: str | bytes | Iterable[str]) -> Path:
    """Replace the file `path`, as a user names it (`export -o`): reached from the working directory
    without following a link (store/checked_folder.py's Way), then written as `replace_file` does."""
    way = Way.named(path)
    with way.folder(create=True) as folder:
        replace_file(folder, way.name, content)
    return way.path


def replace_file(folder: CheckedFolder, name: str, content: str | bytes | Iterable[str], *,
                 mode: int | None = None, digest: Any = None) -> os.stat_result:
    """Replace the file `name` in `folder` with `content` in one rename; the new file's status.

    The file keeps the mode of the one it replaces, or gets `mode`, or is made as any new file is
    (0666 less the umask: 0644 by default): what memlens writes is meant to be read by others
    (mkstemp's 0600 would hide a report from a web server), unless the user's umask says otherwise.
    `digest` (a hashlib object) is fed the bytes written.
    """
    sweep_in(folder, name)
    existing = check_replaceable(folder, name)
    keep = stat.S_IMODE(existing.st_mode) if existing is not None else mode
    temporary = temporary_name(name)
    try:
        # private while written when it will get a mode of its own (never more exposed than the
        # file it replaces); else the kernel applies the umask, which no call reads without changing it
        folder.write_new(temporary, _bytes_of(content, digest), 0o600 if keep is not None else 0o666, sync=True)
        if keep is not None:
            folder.chmod(temporary, keep)
        rename_when_free(lambda: folder.rename(temporary, name), folder.path / name)
    except BaseException:
        try:
            folder.unlink(temporary)
        except OSError:
            pass
        raise
    status = folder.status(name)
    assert status is not None
    return status


def check_replaceable(folder: CheckedFolder, name: str) -> os.stat_result | None:
    """The status of the file `name` in `folder` that a write may replace (None: nothing there);
    refused if it is a link (never followed, never replaced: it came from someone), a folder, a
    FIFO or a device."""
    existing = folder.status(name)
    if existing is None:
        return None
    shown = folder.path / name
    if is_link(existing):
        raise LinkOnTheWay(f"{shown} is a link; memlens never writes through a link, since a path in the working "
                           "tree may come from anyone's commit: remove the link, or write elsewhere")
    if not stat.S_ISREG(existing.st_mode):
        raise BundleError(f"{shown} is not a file (a folder, a FIFO or a device); memlens replaces only a file "
                          "it wrote")
    return existing


def sweep_in(folder: CheckedFolder, name: str) -> None:
    """Clear away what killed writers of `name` left beside it in `folder`."""
    for entry in folder.entries():
        if entry.name.startswith(f".{name}.") and left_behind(entry.name) == name:
            if entry.is_dir(follow_symlinks=False):
                remove(folder.path / entry.name)   # a site built whole beside it, by an older memlens
            else:
                folder.unlink(entry.name)


def _bytes_of(content: str | bytes | Iterable[str], digest: Any) -> Iterator[bytes]:
    """`content` as the bytes written (UTF-8; text in chunks a megabyte at a time), each fed to `digest`."""
    for data in _utf8(content):
        if digest is not None:
            digest.update(data)
        yield data


def _utf8(content: str | bytes | Iterable[str]) -> Iterator[bytes]:
    if isinstance(content, (str, bytes)):
        yield content.encode("utf-8") if isinstance(content, str) else content
        return
    pending: list[str] = []
    size = 0
    for chunk in content:
        pending.append(chunk)
        size += len(chunk)
        if size >= _CHUNK:
            yield "".join(pending).encode("utf-8")
            pending, size = [], 0
    if pending:
        yield "".join(pending).encode("utf-8")


def rename_when_free(rename: Callable[[], None], target: Path) -> None:
    """`rename()` (of something to `target`), tried again while Windows refuses it as held by another
    program; still refused, a BundleError that says so (the target is as it was)."""
    for pause in (*HELD_PAUSES, None):
        try:
            rename()
            return
        except PermissionError as exc:
            if not REFUSES_WHILE_HELD:
                raise
            if pause is None:
                raise BundleError(f"{target} could not be replaced: another program holds it open (a viewer, a "
                                  f"virus scanner?) or it is read-only; close it and write again ({exc.strerror})"
                                  ) from None
            time.sleep(pause)
