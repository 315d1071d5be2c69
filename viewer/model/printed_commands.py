"""Commands memlens prints or offers to copy: shell-quoted, and naming the dataset they are for,
so each runs as printed from any folder.

The flag comes from store/datasets.py `flag_for` (`-d NAME`, or `--db` and an absolute path): the
CLI and the MCP server take it from the store they opened, a report or site from its snapshot's
`dataset_flag`. Written for POSIX shells (sh, bash, zsh); PowerShell reads them alike unless a
name holds a single quote, cmd.exe wants double quotes (README).
"""
from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import Any


def shell_quoted(text: str) -> str:
    """One shell word, as POSIX shells read it (shlex.quote): plain ASCII words bare, anything else
    in single quotes. static/maintenance.js `shellQuoted` says the same."""
    return shlex.quote(text)


def dataset_flag(snapshot: dict[str, Any]) -> tuple[str, ...]:
    """The flag a snapshot says its dataset is named by, or none: a snapshot from before it said,
    from another tool, or saying anything but `-d NAME` or `--db PATH` (a bundle is untrusted)."""
    flag = snapshot.get("dataset_flag")
    if isinstance(flag, dict) and flag.get("option") in ("-d", "--db") and isinstance(flag.get("value"), str) \
            and flag["value"]:
        return flag["option"], flag["value"]
    return ()


def flag_words(flag: Sequence[str]) -> str:
    """' -d demo', quoted, to end a command with; '' without a flag."""
    return "".join(" " + shell_quoted(word) for word in flag)


_QUOTED_COMMAND = re.compile(r"`memlens ([^`]*)`")


def with_flag(message: str, flag: Sequence[str]) -> str:
    """A message whose `memlens ...` commands (written in backquotes) name the dataset too."""
    if not flag:
        return message
    return _QUOTED_COMMAND.sub(lambda found: f"`memlens {found[1]}{flag_words(flag)}`", message)
