"""The names a working directory's repository goes by: the entities a brief puts first.

The folder at the repository's top and the name its remotes give it (`git@host:owner/name.git`
gives `name` and `owner/name`). `.git/config` arrives with the working tree: it is read confined
(no link followed), bounded, and only ever as text to compare names with.
"""
from __future__ import annotations

import re
from pathlib import Path

from .confined import UntrustedFileError, read_inside

_CONFIG_LIMIT = 256 * 1024
_URL = re.compile(r"^\s*url\s*=\s*(\S+)\s*$", re.MULTILINE)
# Folders searched upward for a `.git`: a checkout is seldom deeper than this below its top.
_DEPTH = 40


def repository_names(directory: Path) -> list[str]:
    """The names of the repository `directory` is in (its own name if none), most telling first."""
    top = _top(directory)
    names = [top.name] if top.name else []
    for url in _remote_urls(top):
        path = re.sub(r"\.git/?$", "", url.rstrip("/"))
        parts = [part for part in re.split(r"[/:]", path) if part]
        if len(parts) >= 2:
            names += [parts[-1], f"{parts[-2]}/{parts[-1]}"]
    return list(dict.fromkeys(name for name in names if name))


def _top(directory: Path) -> Path:
    """The nearest folder at or above `directory` that holds `.git`; `directory` itself if none does."""
    here = directory
    for _ in range(_DEPTH):
        if (here / ".git").exists():
            return here
        if here.parent == here:
            break
        here = here.parent
    return directory


def _remote_urls(top: Path) -> list[str]:
    try:
        text = read_inside(top, ".git/config", _CONFIG_LIMIT).decode("utf-8", "replace")
    except (OSError, UntrustedFileError):   # no config (a worktree's .git is a file), or one refused
        return []
    return _URL.findall(text)
