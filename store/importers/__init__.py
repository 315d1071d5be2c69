"""Reading the stores of memoose, memware and mnemo as memlens snapshots, without copying them.

    >>> from memlens.store.importers import locate, read_snapshot
    >>> snapshot = read_snapshot("memware")            # $MEMWARE_DB or ~/.memware/memware.db
    >>> snapshot = read_snapshot("memoose", "proj-1a2b3c4d.sqlite")

Each file is opened read-only (`mode=ro`) and read in one read transaction; the snapshot is
exactly what memlens.store.snapshot.build makes of a memlens store (docs/snapshot-format.md).
`memlens.store.snapshot_load.load_into` writes one into a memlens dataset.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from ..errors import InvalidInput
from ..opening import MEMLENS_REQUIRED
from . import memoose, memware, mnemo
from .assembly import SourceGraph, build
from .source import SourceFile, SourceNotFound, SourceUnreadable, TextNotUtf8, missing_piece, opened

__all__ = ["TOOLS", "SourceNotFound", "SourceUnreadable", "locate", "read_snapshot", "tools_it_resembles"]


@dataclass(frozen=True)
class _Tool:
    module: ModuleType
    read: Callable[[SourceFile, bool], SourceGraph]


_TOOLS: dict[str, _Tool] = {
    "memoose": _Tool(memoose, lambda source, _deleted: memoose.read(source)),
    "memware": _Tool(memware, lambda source, _deleted: memware.read(source)),
    "mnemo": _Tool(mnemo, lambda source, deleted: mnemo.read(source, include_deleted_text=deleted)),
}
TOOLS: tuple[str, ...] = tuple(_TOOLS)


def _tool(name: str) -> _Tool:
    tool = _TOOLS.get(name.strip().lower())
    if tool is None:
        raise InvalidInput(f"unknown source {name!r}; memlens reads {', '.join(TOOLS)}")
    return tool


def locate(tool: str, path: str | Path | None = None) -> Path:
    """The tool's store file: `path` if given, else where the tool itself keeps it."""
    _tool(tool)
    if path is not None:
        given = Path(path).expanduser()
        if not given.exists():
            raise SourceNotFound(f"no {tool} store at {given}")
        return given
    candidates = _tool(tool).module.default_locations()
    for candidate, _why in candidates:
        if candidate.is_file():
            return candidate
    looked = " or ".join(f"{candidate} ({why})" for candidate, why in candidates)
    raise SourceNotFound(f"no {tool} store found: looked at {looked}; give its path")


def read_snapshot(tool: str, path: str | Path | None = None, *, include_deleted_text: bool = False) -> dict[str, Any]:
    """The `memlens-snapshot/1` of the tool's store, read without writing a byte of it.

    `include_deleted_text` shows the text of what mnemo soft-deleted (as retracted facts);
    by default a deleted memory is a tombstone, as a forgotten fact is in memlens.
    """
    name = tool.strip().lower()
    spec = _tool(name)
    file = locate(name, path)
    try:
        graph = _read(spec, file, name, include_deleted_text, replace_bad_text=False)
    except TextNotUtf8:
        # One value that is not UTF-8 (the tool's bug, or a damaged page) must not hide the store:
        # read it again with replacement characters (raised again if the bytes are not in a value).
        # Decoding every value in Python costs ~5% of a read, so only a store that needs it pays.
        graph = _read(spec, file, name, include_deleted_text, replace_bad_text=True)
    return build(graph)


def _read(spec: _Tool, file: Path, name: str, include_deleted_text: bool, *, replace_bad_text: bool) -> SourceGraph:
    with opened(file, name, replace_bad_text=replace_bad_text) as source:
        _check(source, name)
        return spec.read(source, include_deleted_text)


def _check(source: SourceFile, tool: str) -> None:
    """Refuse a file that is not this tool's store, and say whose it looks like."""
    missing = missing_piece(source, _TOOLS[tool].module.REQUIRED)
    if missing is None:
        return
    if not source.tables:
        raise SourceUnreadable(f"{source.path} is not a {tool} store: it holds no tables")
    guesses = [other for other in _resembled(source) if other != tool]
    looks = f" (it looks like a {guesses[0]} store)" if guesses else ""
    raise SourceUnreadable(f"{source.path} is not a {tool} store: {missing}{looks}")


def _resembled(source: SourceFile) -> list[str]:
    specs = {**{name: spec.module.REQUIRED for name, spec in _TOOLS.items()}, "memlens": MEMLENS_REQUIRED}
    return [name for name, required in specs.items() if missing_piece(source, required) is None]


def tools_it_resembles(conn: sqlite3.Connection, path: Path) -> list[str]:
    """The tools (memoose, memware, mnemo, memlens) whose tables the open file at `path` has."""
    return _resembled(SourceFile(conn, path, "memlens"))
