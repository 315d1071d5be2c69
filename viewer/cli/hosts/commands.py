"""The command lines memlens puts in a host's hooks: the absolute path of the memlens that
installed them, and arguments quoted for the shell the host runs hooks with.

A host's PATH is not the user's: a virtual environment's `memlens` is usually absent from it, and a
hook that runs plain `memlens` then silently does nothing. So every hook and server names the
memlens that ran `hooks install`, and installing again writes the new path.

How each host runs a hook's command line (read in each host's source; tried on Linux):
- Claude Code: `bash -c` (your $SHELL where it is bash, zsh or sh); on Windows, Git Bash, which
  Claude Code requires there, so POSIX quoting everywhere.
- Codex CLI: `$SHELL -lc` on Unix, `cmd.exe /C` on Windows.
- Gemini CLI: `bash -c` on Unix, PowerShell on Windows.
- Cursor: a shell on Unix; on Windows memlens writes the command for PowerShell (not tried).
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from pathlib import Path, PureWindowsPath

from memlens.store.errors import InvalidInput

POSIX, CMD, POWERSHELL = "posix", "cmd", "powershell"
_NAMES = ("memlens", "memlens.exe")
# cmd.exe has no quoting that keeps these literal inside "...": refused rather than guessed
_CMD_UNSAFE = re.compile(r'["%!\r\n\x00]')
_CMD_PLAIN = re.compile(r"[A-Za-z0-9_@+=:,./\\-]+")
_POWERSHELL_PLAIN = re.compile(r"[A-Za-z0-9_+=:./\\-]+")   # no @ (splatting) nor , (arrays)


def memlens_executable() -> Path:
    """The absolute path of the `memlens` command that is running: the one this process was
    started as, else the console script beside this Python (a virtual environment's, pipx's),
    else the one on PATH. Links are kept as they are (a package manager's link outlives the
    versioned folder it points into)."""
    candidates = []
    started_as = sys.argv[0] if sys.argv else ""
    if Path(started_as).name.lower() in _NAMES or Path(started_as).stem.lower() == "memlens":
        candidates.append(shutil.which(started_as) or started_as)
    candidates.append(str(Path(sys.executable).parent / ("memlens.exe" if os.name == "nt" else "memlens")))
    candidates.append(shutil.which("memlens") or "")
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return Path(os.path.abspath(candidate))
    raise InvalidInput("cannot find the memlens command this Python runs (install memlens with pip or pipx, "
                       "so that its `memlens` command exists), so no host can be given its path")


def is_memlens_path(text: object) -> bool:
    """An absolute path whose file is called memlens: the command memlens writes, whichever
    installation of it wrote it."""
    if not isinstance(text, str) or not text:
        return False
    windows = PureWindowsPath(text)
    if windows.is_absolute() and windows.name.lower() in _NAMES:
        return True
    return text.startswith("/") and Path(text).name in _NAMES


def quote(argument: str, dialect: str) -> str:
    """`argument` as one word of a command line read by `dialect`'s shell."""
    if dialect == POSIX:
        return shlex.quote(argument)
    if dialect == POWERSHELL:
        return argument if _POWERSHELL_PLAIN.fullmatch(argument) else "'" + argument.replace("'", "''") + "'"
    if _CMD_UNSAFE.search(argument):
        raise InvalidInput(f"{argument!r} holds a character cmd.exe cannot take literally (\", %, ! or a line "
                           "break); install memlens at a path without it")
    return argument if _CMD_PLAIN.fullmatch(argument) else f'"{argument}"'


def command_line(argv: list[str], dialect: str) -> str:
    """A command line that runs `argv` (the program first) in `dialect`'s shell."""
    words = [quote(word, dialect) for word in argv]
    # PowerShell runs a program named by a string only through its call operator
    return ("& " if dialect == POWERSHELL else "") + " ".join(words)


def split_line(line: str, dialect: str) -> list[str] | None:
    """The argv of a line `command_line` wrote for `dialect`, or None if it did not write it."""
    if dialect == POSIX:
        try:
            words = shlex.split(line)
        except ValueError:
            return None
    else:
        words = _split_quoted(line.removeprefix("& ") if dialect == POWERSHELL else line, dialect)
    return words if words is not None and command_line(words, dialect) == line else None


def _split_quoted(line: str, dialect: str) -> list[str] | None:
    mark = "'" if dialect == POWERSHELL else '"'
    words, at = [], 0
    while at < len(line):
        if line[at] == mark:
            end = at + 1
            while True:
                end = line.find(mark, end)
                if end == -1:
                    return None
                if dialect == POWERSHELL and line.startswith(mark * 2, end):
                    end += 2
                    continue
                break
            words.append(line[at + 1:end].replace(mark * 2, mark) if dialect == POWERSHELL else line[at + 1:end])
            at = end + 1
        else:
            end = line.find(" ", at)
            end = len(line) if end == -1 else end
            words.append(line[at:end])
            at = end
        if at < len(line):
            if line[at] != " ":
                return None
            at += 1
    return words
