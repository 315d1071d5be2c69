"""Temporary files and folders of memlens: named `.<target name>.memlens-<pid>-<random>.tmp` beside
their target (`.old` for a site being retired), so a later write of the same target can remove what
a process that is gone left behind (a killed process cannot clean up after itself). Reports,
sites and new stores are all made under such names (viewer/atomic.py, viewer/site/folder.py,
store/memory.py).
"""

from __future__ import annotations

import glob
import os
import re
import secrets
import shutil
from pathlib import Path

MARK = "memlens"
# a store's temporary has SQLite's files beside it while it is open: its -wal, -shm or -journal
_LEFTOVER = re.compile(rf"\.{MARK}-(?P<pid>\d+)-[0-9a-f]{{8}}\.(?:tmp|old)(?:-wal|-shm|-journal)?$")


def temporary_beside(target: Path, suffix: str = ".tmp") -> Path:
    """A fresh name beside `target` that says whose it is (memlens, this process)."""
    return target.parent / f".{target.name}.{MARK}-{os.getpid()}-{secrets.token_hex(4)}{suffix}"


def leftovers(target: Path) -> list[Path]:
    """Temporaries of `target` whose writing process is gone (killed before it could clean up)."""
    found = []
    for entry in target.parent.glob(f".{glob.escape(target.name)}.{MARK}-*"):
        match = _LEFTOVER.search(entry.name)
        if match and entry.name.startswith(f".{target.name}.") and not _running(int(match["pid"])):
            found.append(entry)
    return sorted(found)


def sweep(target: Path) -> None:
    """Clear away what killed writers of `target` left beside it, putting back a previous site that
    a crash took away between the two renames of a swap (its `.old`) if nothing took its place."""
    for leftover in leftovers(target):
        if leftover.name.endswith(".old") and not os.path.lexists(target):
            os.rename(leftover, target)
        else:
            remove(leftover)


def remove(path: Path) -> None:
    """Remove a file or a folder of ours; never follows a symlink into somewhere else."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    except OverflowError:
        return False
    return True
