"""Temporary files and folders of memlens: named `.<target name>.memlens-<pid>-<random>.tmp` beside
their target, so a later write of the same target can remove what a process that is gone left
behind (a killed process cannot clean up after itself). Reports, site files and new stores are all
made under such names (viewer/atomic.py, viewer/site/folder.py, store/memory.py).
"""

from __future__ import annotations

import ctypes
import glob
import os
import re
import secrets
import shutil
from pathlib import Path
from typing import Any, Callable

MARK = "memlens"
# a store's temporary has SQLite's files beside it while it is open: its -wal, -shm or -journal
_LEFTOVER = re.compile(rf"\.{MARK}-(?P<pid>\d+)-[0-9a-f]{{8}}\.(?:tmp|old)(?:-wal|-shm|-journal)?$")


def temporary_beside(target: Path) -> Path:
    """A fresh name beside `target` that says whose it is (memlens, this process)."""
    return target.parent / temporary_name(target.name)


def temporary_name(name: str) -> str:
    """A fresh name for a temporary of the file `name`, beside it (see `temporary_beside`)."""
    return f".{name}.{MARK}-{os.getpid()}-{secrets.token_hex(4)}.tmp"


def left_behind(name: str) -> str | None:
    """The name of the target whose temporary `name` is, if a process that is gone left it (a
    killed writer's: no one else will remove it); else None."""
    match = _LEFTOVER.search(name)
    if match is None or not name.startswith(".") or _running(int(match["pid"])):
        return None
    return name[1:match.start()]


def leftovers(target: Path) -> list[Path]:
    """Temporaries of `target` whose writing process is gone (killed before it could clean up)."""
    return sorted(entry for entry in target.parent.glob(f".{glob.escape(target.name)}.{MARK}-*")
                  if left_behind(entry.name) == target.name)


def remove(path: Path) -> None:
    """Remove a file or a folder of ours; never follows a symlink into somewhere else."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    """Whether process `pid` still runs: a leftover of a running process is not ours to remove."""
    if pid == os.getpid():
        return True
    if hasattr(ctypes, "WinDLL"):   # Windows, where os.kill(pid, 0) would send CTRL_C_EVENT
        return _running_on_windows(pid)
    try:
        os.kill(pid, 0)   # POSIX: signal 0 only asks
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    except OverflowError:
        return False
    return True


_QUERY_LIMITED_INFORMATION, _STILL_ACTIVE, _INVALID_PARAMETER = 0x1000, 259, 87


def _running_on_windows(pid: int, kernel32: Any = None, last_error: Callable[[], int] | None = None) -> bool:
    """Windows: whether process `pid` has no exit code yet (OpenProcess, GetExitCodeProcess);
    `kernel32` and `last_error` stand in for the system's in tests."""
    if kernel32 is None:
        kernel32, last_error = _kernel32(), ctypes.get_last_error   # type: ignore[attr-defined]
    if not 0 < pid < 2**32:
        return False
    handle = kernel32.OpenProcess(_QUERY_LIMITED_INFORMATION, False, pid)
    if not handle:
        return last_error() != _INVALID_PARAMETER   # no such process; otherwise denied: someone else's, alive
    try:
        code = ctypes.c_ulong()
        if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return True
        return code.value == _STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


def _kernel32() -> Any:
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)   # type: ignore[attr-defined]  # Windows only
    kernel32.OpenProcess.restype = ctypes.c_void_p
    kernel32.OpenProcess.argtypes = (ctypes.c_ulong, ctypes.c_int, ctypes.c_ulong)
    kernel32.GetExitCodeProcess.argtypes = (ctypes.c_void_p, ctypes.POINTER(ctypes.c_ulong))
    kernel32.CloseHandle.argtypes = (ctypes.c_void_p,)
    return kernel32
