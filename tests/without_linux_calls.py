"""A process with the Linux-only calls memlens could reach taken away, and what Windows and macOS have
put in their place, so the portable paths run on a Linux CI.

Taken away: os.getuid and its kin, the pwd and grp modules, os.fork, signal.pthread_sigmask,
O_NOFOLLOW and O_DIRECTORY, `dir_fd` (os.supports_dir_fd empty, shutil's descriptor-based rmtree
off), flock (store/memory.py's fcntl), and renameat2 and prctl from the C library (a libc without
them, as macOS's). os.kill, fcntl.flock and an open with `dir_fd` are trip wires: reaching one is
recorded in `Reached.linux_calls` and fails the call with `LinuxOnlyCall`, which no `except
Exception` swallows.

Put in: Windows' process calls (ctypes.WinDLL's kernel32, answered from this system's processes:
`Kernel32`) and Windows' O_BINARY, which a file opened for writing must ask for (without it Windows
writes every "\\n" as "\\r\\n"): a write opened without it, or a text file opened for writing
without newline="\\n", is recorded in `Reached.text_mode_writes`.

`run_memlens_without_linux_calls()` runs `memlens` so, in a process of its own, taking them away
before any module of memlens loads (a module that reads the system as it loads reads Windows'),
and noting what it reached in the file named by $MEMLENS_TEST_REACHED, one JSON line each.
"""
from __future__ import annotations

import builtins
import ctypes
import io
import json
import os
import shutil
import signal
import sys
from collections import Counter
from types import SimpleNamespace
from typing import Any

import pytest

# Windows' O_BINARY has no meaning on Linux: this bit stands for it, and is taken off again before
# the real open
BINARY = 1 << 29
_STILL_ACTIVE, _INVALID_PARAMETER, _ACCESS_DENIED = 259, 87, 5
_LINUX_ONLY_LIBC = ("renameat2", "prctl")
_REAL_KILL = os.kill
_REAL_OPEN = io.open


class LinuxOnlyCall(BaseException):
    """A call that is not there on Windows (or macOS) was made."""


class Reached:
    """What a run reached: Linux-only calls (none, if all is well) and the portable paths taken."""

    def __init__(self, into: str | None = None) -> None:
        self.linux_calls: list[str] = []
        self.text_mode_writes: list[str] = []
        self.portable: Counter[str] = Counter()
        self.renames: list[tuple[str, str]] = []
        self.opened: list[str] = []
        self._into = into

    def note(self, kind: str, what: Any) -> None:
        if kind == "linux_call":
            self.linux_calls.append(what)
        elif kind == "text_mode_write":
            self.text_mode_writes.append(what)
        elif kind == "portable":
            self.portable[what] += 1
        elif kind == "rename":
            self.renames.append(tuple(what))
        elif kind == "opened":
            self.opened.append(what)
        if self._into:
            with _REAL_OPEN(self._into, "a", encoding="utf-8") as out:
                out.write(json.dumps([kind, what]) + "\n")

    @classmethod
    def read(cls, path: str) -> "Reached":
        """What a process of its own noted in `path`."""
        reached = cls()
        if os.path.exists(path):
            with open(path, encoding="utf-8") as lines:
                for line in lines:
                    reached.note(*json.loads(line))
        return reached


def kernel32(reached: Reached) -> SimpleNamespace:
    """Windows' OpenProcess, GetExitCodeProcess and CloseHandle, as ctypes.WinDLL("kernel32") gives
    them (`last_error` as ctypes.get_last_error), answered from this system's processes; `open`
    holds the handles not closed yet."""
    state = SimpleNamespace(error=0, open=set())

    def OpenProcess(access: int, inherit: bool, pid: int) -> int:
        reached.note("portable", "OpenProcess")
        try:
            _REAL_KILL(pid, 0)
        except ProcessLookupError:
            state.error = _INVALID_PARAMETER      # no such process
            return 0
        except PermissionError:
            state.error = _ACCESS_DENIED
            return 0
        state.open.add(pid)
        return pid

    def GetExitCodeProcess(handle: int, code: Any) -> int:
        code._obj.value = _STILL_ACTIVE
        return 1

    def CloseHandle(handle: int) -> int:
        state.open.remove(handle)
        return 1

    return SimpleNamespace(OpenProcess=OpenProcess, GetExitCodeProcess=GetExitCodeProcess, CloseHandle=CloseHandle,
                           last_error=lambda: state.error, open=state.open)


class _LibcWithoutLinuxCalls:
    """The C library as macOS has it: no renameat2, no prctl."""

    def __init__(self, real: Any, reached: Reached) -> None:
        self._real, self._reached = real, reached

    def __getattr__(self, name: str) -> Any:
        if name in _LINUX_ONLY_LIBC:
            self._reached.note("portable", f"libc without {name}")
            raise AttributeError(name)
        return getattr(self._real, name)


def take_away(patch: Any, reached: Reached) -> None:
    """Take the Linux-only calls away for as long as `patch` (pytest's monkeypatch) holds. Done
    before memlens is imported, what its modules read as they load is Windows' too (`no_flock`
    then stands for the `import fcntl` that fails there)."""
    import fcntl

    real_open, real_rename, real_cdll = os.open, os.rename, ctypes.CDLL
    for name in ("getuid", "geteuid", "getgid", "getegid", "fork", "forkpty", "O_NOFOLLOW", "O_DIRECTORY"):
        if hasattr(os, name):
            patch.delattr(os, name)
    if hasattr(signal, "pthread_sigmask"):
        patch.delattr(signal, "pthread_sigmask")
    patch.setitem(sys.modules, "pwd", None)   # an import of it fails, as on Windows
    patch.setitem(sys.modules, "grp", None)

    def trip_wire(name: str):
        def reached_it(*args: Any, **kwargs: Any) -> None:
            reached.note("linux_call", name)
            raise LinuxOnlyCall(name)
        return reached_it

    patch.setattr(os, "kill", trip_wire("os.kill"))
    patch.setattr(fcntl, "flock", trip_wire("fcntl.flock"))
    patch.setattr(fcntl, "lockf", trip_wire("fcntl.lockf"))

    patch.setattr(os, "supports_dir_fd", set())
    patch.setattr(os, "supports_follow_symlinks", {os.stat})   # Windows' set
    patch.setattr(shutil, "_use_fd_functions", False)
    patch.setattr(os, "O_BINARY", BINARY, raising=False)

    def opening(path: Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        if dir_fd is not None:
            reached.note("linux_call", "os.open(dir_fd=...)")
            raise LinuxOnlyCall("os.open(dir_fd=...)")
        shown = os.fsdecode(path)
        if flags & (os.O_WRONLY | os.O_RDWR) and not flags & BINARY and shown != os.devnull:
            reached.note("text_mode_write", shown)
        reached.note("opened", shown)
        return real_open(path, flags & ~BINARY, mode)

    def renaming(source: Any, target: Any, **kwargs: Any) -> None:
        reached.note("rename", [os.fsdecode(source), os.fsdecode(target)])
        real_rename(source, target, **kwargs)

    def opening_a_file(file: Any, mode: str = "r", buffering: int = -1, encoding: str | None = None,
                       errors: str | None = None, newline: str | None = None, *args: Any, **kwargs: Any) -> Any:
        # a text file written with newline=None is written with "\r\n" on Windows
        if set(mode) & set("wax+") and "b" not in mode and newline not in ("\n", ""):
            reached.note("text_mode_write", str(file) if isinstance(file, int) else os.fsdecode(file))
        return _REAL_OPEN(file, mode, buffering, encoding, errors, newline, *args, **kwargs)

    patch.setattr(os, "open", opening)
    patch.setattr(os, "rename", renaming)
    patch.setattr(io, "open", opening_a_file)
    patch.setattr(builtins, "open", opening_a_file)

    def cdll(name: Any, *args: Any, **kwargs: Any) -> Any:
        real = real_cdll(name, *args, **kwargs)
        return _LibcWithoutLinuxCalls(real, reached) if name is None else real

    windows = kernel32(reached)
    patch.setattr(ctypes, "CDLL", cdll)
    patch.setattr(ctypes, "WinDLL", lambda name, **kwargs: windows, raising=False)
    patch.setattr(ctypes, "get_last_error", windows.last_error, raising=False)


def no_flock(patch: Any) -> None:
    """store/memory.py as it loads where `import fcntl` fails."""
    import memlens.store.memory as memory

    patch.setattr(memory, "fcntl", None)


def _import_memlens() -> None:
    """Every module of memlens, so each reads the system it loads on now (not when first used)."""
    import pkgutil

    import memlens.store
    import memlens.viewer

    for package in (memlens.store, memlens.viewer):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            __import__(module.name)


def run_memlens_without_linux_calls() -> None:
    """The `memlens` console script, in this process, with the Linux-only calls taken away."""
    for_good = pytest.MonkeyPatch()   # never undone: the process ends with the command
    take_away(for_good, Reached(os.environ["MEMLENS_TEST_REACHED"]))
    _import_memlens()
    no_flock(for_good)
    from memlens.viewer.cli import app

    app.run()


# `python -c LAUNCH ARGS...` runs `memlens ARGS...` so
LAUNCH = (f"import sys; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); "
          "import without_linux_calls; without_linux_calls.run_memlens_without_linux_calls()")
