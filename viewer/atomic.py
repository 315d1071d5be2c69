"""Writing a file the one way memlens writes files: under a temporary name beside the target,
flushed to disk, then renamed over it, so a crash never leaves half a file where the old one was.

Temporaries are named as store/temporaries.py names them: a killed process cannot clean up after
itself, so the next write of the same target removes what a process that is gone left behind.
(Sites use the same names for their build and retired folders; see site/folder.py.)
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from memlens.store.errors import BundleError
from memlens.store.temporaries import sweep, temporary_beside

# Windows refuses to replace or rename a file (or a folder holding one) that another program has
# open without sharing its deletion: a virus scanner or a search indexer for a moment after a
# write, a viewer for longer. The rename is tried again after each pause, about a second in all.
HELD_PAUSES = (0.02, 0.05, 0.1, 0.2, 0.3, 0.4)
REFUSES_WHILE_HELD = os.name == "nt"


def atomic_write(path: str | os.PathLike[str], content: str | bytes | Iterable[str], *,
                 mode: int | None = None) -> Path:
    """Replace `path` with `content` (text, bytes, or text in chunks) in one rename; returns the path.

    The file keeps the mode of the one it replaces, or gets `mode`, or is made as any new file is
    (0666 less the umask: 0644 by default): what memlens writes is meant to be read by others
    (mkstemp's 0600 would hide a report from a web server), unless the user's umask says otherwise.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    sweep(target)
    temporary = temporary_beside(target)
    keep = target.stat().st_mode & 0o777 if target.is_file() else mode
    # Private while written when it will get a mode of its own (never more exposed than the file
    # it replaces); else the kernel applies the umask, which no call can read without changing it.
    # O_BINARY: Windows opens a descriptor in text mode without it, writing every "\n" as "\r\n"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    handle = os.open(temporary, flags, 0o600 if keep is not None else 0o666)
    try:
        if isinstance(content, (str, bytes)):
            with os.fdopen(handle, "wb") as out:
                out.write(content.encode("utf-8") if isinstance(content, str) else content)
                out.flush()
                os.fsync(out.fileno())
        else:
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
                stream.writelines(content)
                stream.flush()
                os.fsync(stream.fileno())
        if keep is not None:
            os.chmod(temporary, keep)
        rename_when_free(os.replace, temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return target


def rename_when_free(rename: Callable[[Path, Path], None], source: Path, target: Path) -> None:
    """`rename(source, target)`, tried again while Windows refuses it as held by another program;
    still refused, a BundleError that says so (the target is as it was)."""
    for pause in (*HELD_PAUSES, None):
        try:
            rename(source, target)
            return
        except PermissionError as exc:
            if not REFUSES_WHILE_HELD:
                raise
            if pause is None:
                raise BundleError(f"{target} could not be replaced: another program holds it open (a viewer, a "
                                  f"virus scanner?) or it is read-only; close it and write again ({exc.strerror})"
                                  ) from None
            time.sleep(pause)
