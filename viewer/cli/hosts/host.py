"""What a coding agent's host is to memlens: where its settings live for a project and for the
user, and the pieces memlens puts there (the MCP server, the session-start brief, the
session-end maintenance), written in the host's own format."""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .commands import CMD, POSIX, POWERSHELL, is_memlens_path, split_line
from .pieces import Piece, SettingsFile

PROJECT, USER = "project", "user"
# Claude Code and Codex name the reason a session started; compaction drops what was injected,
# so the brief is given again then.
SESSION_SOURCES = "startup|resume|clear|compact"
BRIEF_TIMEOUT = 30     # seconds; the brief is meant to take well under a second
MAINTAIN_TIMEOUT = 60  # seconds: Claude Code waits at most 60 s for session-end hooks


@dataclass(frozen=True)
class Place:
    """Where a host's files are for one scope."""
    scope: str            # PROJECT or USER
    folder: Path          # the project's folder, or the home folder
    memlens: Path         # the memlens command the pieces run

    @property
    def project(self) -> Path | None:
        return self.folder if self.scope == PROJECT else None

    def file(self, relative: str, syntax: str, skeleton: str = "{}\n") -> SettingsFile:
        return SettingsFile(self.folder / relative, syntax, self.project, skeleton)


@dataclass(frozen=True)
class Host:
    name: str                                     # as `--host` takes it
    title: str
    pieces: Callable[[Place], list[Piece]]
    notes: Callable[[Place], list[str]] = lambda place: []
    rules_file: str = ""                          # its project rules file, from the project's folder
    dialects: dict[str, str] = field(default_factory=lambda: {"posix": POSIX, "nt": POSIX})

    @property
    def dialect(self) -> str:
        """The shell its hooks' command lines are written for, on this system."""
        return self.dialects.get(os.name, POSIX)


def brief_argv(memlens: Path, host: str) -> list[str]:
    return [str(memlens), "brief", "--for-host", host]


def maintain_argv(memlens: Path) -> list[str]:
    # --if-exists: a project without a memory yet is a quiet no-op, not an error at every exit
    return [str(memlens), "maintain", "--quiet", "--if-exists"]


def server_entry(memlens: Path, **extra: Any) -> dict[str, Any]:
    return {**extra, "command": str(memlens), "args": ["mcp"]}


def same_but_memlens(dialect: str) -> Callable[[Any, Any], bool]:
    """Whether two entries are the same but for the memlens path they name (in a `command`
    value, or as the program of a command line), so a reinstall from elsewhere is recognised."""
    def shape(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: shape(item) for key, item in value.items()}
        if isinstance(value, list):
            return [shape(item) for item in value]
        if isinstance(value, str):
            if is_memlens_path(value):
                return ("memlens",)
            words = split_line(value, dialect) if " " in value else None
            if words and is_memlens_path(words[0]):
                return tuple("<memlens>" if is_memlens_path(word) else word for word in words)
        return value

    return lambda found, ours: shape(found) == shape(ours)


def piece(label: str, file: SettingsFile, where: tuple[str, ...], key: str | None, value: Any,
          dialect: str, *older: Any) -> Piece:
    """A piece recognised by its shape (any memlens path), or as one of the `older` forms an
    earlier memlens wrote."""
    same = same_but_memlens(dialect)
    return Piece(label, file, where, key, value, lambda found: same(found, value) or found in older)


WINDOWS_CMD = {"posix": POSIX, "nt": CMD}
WINDOWS_POWERSHELL = {"posix": POSIX, "nt": POWERSHELL}
