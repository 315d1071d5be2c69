"""Reading the stores of memoose, memware, mnemo and the MCP reference memory server as memlens
snapshots, without copying them.

    >>> from memlens.store.importers import locate, read_snapshot
    >>> snapshot = read_snapshot("memware")            # $MEMWARE_DB or ~/.memware/memware.db
    >>> snapshot = read_snapshot("memoose", "proj-1a2b3c4d.sqlite")
    >>> snapshot = read_snapshot("mcp-memory")         # $MEMORY_FILE_PATH, or beside the server

Each SQLite file is opened read-only (`mode=ro`) and read in one read transaction, the MCP
server's JSON-lines file read once as bytes; the snapshot is exactly what
memlens.store.snapshot.build makes of a memlens store (docs/snapshot-format.md).
`memlens.store.snapshot.load.load_into` writes one into a memlens dataset; an MCP memory file is
imported by `memlens.store.importers.mcp_memory.history`, which records what changed since the last import.
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
from . import mcp_memory, memoose, memware, mnemo
from .mcp_memory import file as memory_file_format
from .assembly import SourceGraph, build
from .mcp_memory.file import MemoryFile, read_memory_file, skipped_note
from .source import SourceFile, SourceNotFound, SourceUnreadable, TextNotUtf8, missing_piece, opened

__all__ = ["TOOLS", "SourceNotFound", "SourceUnreadable", "locate", "memory_file", "read_snapshot", "skipped_note",
           "tools_it_resembles"]


@dataclass(frozen=True)
class _Tool:
    module: ModuleType
    read: Callable[[SourceFile, bool], SourceGraph]


_TOOLS: dict[str, _Tool] = {
    "memoose": _Tool(memoose, lambda source, _deleted: memoose.read(source)),
    "memware": _Tool(memware, lambda source, _deleted: memware.read(source)),
    "mnemo": _Tool(mnemo, lambda source, deleted: mnemo.read(source, include_deleted_text=deleted)),
}
TOOLS: tuple[str, ...] = (*_TOOLS, memory_file_format.TOOL)


def _known(name: str) -> str:
    name = name.strip().lower()
    if name not in TOOLS:
        raise InvalidInput(f"unknown source {name!r}; memlens reads {', '.join(TOOLS)}")
    return name


def _tool(name: str) -> _Tool:
    return _TOOLS[_known(name)]


def _locations(tool: str) -> list[tuple[Path, str]]:
    if tool == memory_file_format.TOOL:
        return memory_file_format.default_locations()
    return _TOOLS[tool].module.default_locations()


def locate(tool: str, path: str | Path | None = None) -> Path:
    """The tool's store file: `path` if given, else where the tool itself keeps it."""
    tool = _known(tool)
    if path is not None:
        given = Path(path).expanduser()
        if not given.exists():
            raise SourceNotFound(f"no {tool} store at {given}")
        return given
    candidates = _locations(tool)
    for candidate, _why in candidates:
        if candidate.is_file():
            return candidate
    if tool == memory_file_format.TOOL:
        raise SourceNotFound(_no_memory_file(candidates))
    looked = " or ".join(f"{candidate} ({why})" for candidate, why in candidates)
    raise SourceNotFound(f"no {tool} store found: looked at {looked}; give its path")


def _no_memory_file(candidates: list[tuple[Path, str]]) -> str:
    """One short line: how to name the file, and where it was looked for (the `node_modules` folders
    the server's copies would be in: the first three, then a count)."""
    def modules(path: Path) -> str:
        return str(next((p for p in path.parents if p.name == "node_modules"), path.parent))

    roots = list(dict.fromkeys(modules(candidate) for candidate, _ in candidates))
    shown = ", ".join(roots[:3]) + (f" and {len(roots) - 3} more" if len(roots) > 3 else "")
    return (f"no MCP memory file found (looked beside the server's copies in {shown}); set MEMORY_FILE_PATH "
            "to the file the server writes, or give its path")


def memory_file(path: str | Path | None = None, *, lenient: bool = False, allow_empty: bool = False) -> MemoryFile:
    """The MCP memory server's file at `path`, or where the server keeps it, read once (an empty one
    refused unless `allow_empty`: memory_file_format.EmptyMemoryFile)."""
    return read_memory_file(locate(memory_file_format.TOOL, path), lenient=lenient, allow_empty=allow_empty)


def read_snapshot(
    tool: str, path: str | Path | None = None, *, include_deleted_text: bool = False, lenient: bool = False,
    allow_empty: bool = False, note: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The `memlens-snapshot/1` of the tool's store, read without writing a byte of it.

    `include_deleted_text` shows the text of what mnemo soft-deleted (as retracted facts);
    by default a deleted memory is a tombstone, as a forgotten fact is in memlens. `lenient`
    skips the malformed lines of an MCP memory file, which `note` hears counted.
    """
    name = _known(tool)
    if name == memory_file_format.TOOL:
        memory = memory_file(path, lenient=lenient, allow_empty=allow_empty)
        skipped = skipped_note(memory)
        if skipped and note is not None:
            note(skipped)
        return build(mcp_memory.read(memory))
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
