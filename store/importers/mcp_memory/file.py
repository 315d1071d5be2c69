"""The MCP reference memory server's file (`@modelcontextprotocol/server-memory`), read line by line.

One JSON object a line: `{"type":"entity","name","entityType","observations":[...]}` or
`{"type":"relation","from","to","relationType"}`. The server writes `memory.jsonl` beside its own
`dist/index.js` (older versions `memory.json`, which it renames on start), or `$MEMORY_FILE_PATH`
(a relative one is taken from that same folder). The file is read once, as bytes, and never
opened for writing; its sha256 is what a repeated import cites as evidence.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ...confined import UntrustedFileError, head_of_regular_file, read_regular_file
from ...json_input import NotJson, parsed
from ...timefmt import record_time
from ..source import SourceNotFound, SourceUnreadable

TOOL = "mcp-memory"
PACKAGE = ("@modelcontextprotocol", "server-memory")
FILE_NAMES = ("memory.jsonl", "memory.json")  # the second: versions before the JSON-lines rename
# Bounds, so a damaged or hostile file is refused before it fills memory: a memory the server
# itself can still load (it reads the whole file at every call) is far below both.
MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_LINE_BYTES = 4 * 1024 * 1024
SHOWN_PROBLEMS = 3
_BOM = b"\xef\xbb\xbf"


class MalformedLines(SourceUnreadable):
    """Lines of the file that are not an entity or a relation the server could have written."""


@dataclass
class FileEntity:
    name: str
    entity_type: str
    observations: list[str]
    line: int


@dataclass
class FileRelation:
    source: str
    target: str
    relation_type: str
    line: int


@dataclass
class MemoryFile:
    """What one read of the file found, in the file's order."""

    path: Path
    digest: str  # "sha256:<hex>" of the file's bytes
    modified_at: str  # the file's mtime as a record time: the latest moment it is known to say this
    entities: list[FileEntity] = field(default_factory=list)
    relations: list[FileRelation] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (line, problem) under lenient

    @property
    def evidence(self) -> str:
        """How a fact cites this state of the file: its name and the start of its digest."""
        return f"{self.path.name} {self.digest[:23]}"


class EmptyMemoryFile(SourceUnreadable):
    """A file that holds no line at all: the server, which rewrites the whole file at every change,
    leaves one so only for the moment of a write (a torn write), so it is not taken to mean that
    every memory is gone unless the user says so."""


def read_memory_file(path: Path, *, lenient: bool = False, allow_empty: bool = False) -> MemoryFile:
    """The file's entities and relations; malformed lines refuse the file, or are skipped if `lenient`;
    a file with no line refused (EmptyMemoryFile) unless `allow_empty`."""
    data = _bytes_of(path)
    if not allow_empty and not data.removeprefix(_BOM).strip():
        raise EmptyMemoryFile(f"{path} is empty: the server leaves its file so only while it rewrites it (a torn "
                              "write?); try again in a moment, or give --allow-empty if the memory really is empty")
    modified = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
    memory = MemoryFile(path, "sha256:" + hashlib.sha256(data).hexdigest(), record_time(modified))
    problems: list[tuple[int, str]] = []
    for number, line in _lines(data):
        try:
            item = _item(line, number)
        except _Problem as problem:
            problems.append((number, str(problem)))
            continue
        if item is not None:
            (memory.entities if isinstance(item, FileEntity) else memory.relations).append(item)
    if problems and not lenient:
        raise MalformedLines(_problems_said(path, problems))
    memory.skipped = problems
    return memory


def looks_like_memory_file(path: Path) -> bool:
    """Whether the file's first line is an entity or a relation as the server writes them."""
    try:
        head = head_of_regular_file(path, MAX_LINE_BYTES + len(_BOM))
    except (OSError, UntrustedFileError):
        return False
    first = next(_lines(head.split(b"\n", 1)[0]), None)
    try:
        return first is not None and isinstance(_item(first[1], first[0]), (FileEntity, FileRelation))
    except _Problem:
        return False


def _bytes_of(path: Path) -> bytes:
    """The file's bytes, read only (the server's file keeps every byte): a regular file, never a
    FIFO or a device, which would block the read or never end it."""
    try:
        return read_regular_file(path, MAX_FILE_BYTES)
    except FileNotFoundError:
        raise SourceNotFound(f"no {TOOL} file at {path}") from None
    except UntrustedFileError as exc:   # a folder, a FIFO, a device, more than MAX_FILE_BYTES
        raise SourceUnreadable(str(exc)) from None
    except OSError as exc:
        raise SourceUnreadable(f"{path} could not be read ({exc.strerror or exc})") from None


def _lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of each line that is not blank, as the server splits them (on \\n; a
    trailing \\r, which JSON takes as space, is dropped). A UTF-8 mark at the start (an editor's,
    never the server's) is not part of the first line."""
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    for number, line in enumerate(data.split(b"\n"), start=1):
        line = line.rstrip(b"\r")
        if line.strip():
            yield number, line


class _Problem(Exception):
    """Why one line is not an entity or a relation."""


_FIELDS = {"entity": ("name", "entityType", "observations"), "relation": ("from", "to", "relationType")}


def _item(line: bytes, number: int) -> FileEntity | FileRelation | None:
    if len(line) > MAX_LINE_BYTES:
        raise _Problem(f"longer than {MAX_LINE_BYTES // 2**20} MiB")
    try:
        value = parsed(line)
    except NotJson as reason:   # not UTF-8 or not JSON, a lone surrogate, a number of thousands of digits
        raise _Problem(str(reason)) from None
    if not isinstance(value, dict):
        raise _Problem(f"a JSON {type(value).__name__}, not an object")
    kind = value.get("type")
    if kind not in _FIELDS:
        raise _Problem(f"unknown type {_shown(kind)} (entity or relation expected)")
    missing = [name for name in _FIELDS[kind] if name not in value]
    if missing:
        raise _Problem(f"{kind} without {', '.join(repr(m) for m in missing)}")
    if kind == "entity":
        return _entity(value, number)
    return _relation(value, number)


def _entity(value: dict[str, Any], number: int) -> FileEntity:
    name, entity_type, observations = value["name"], value["entityType"], value["observations"]
    _require_text(name, "name")
    _require_text(entity_type, "entityType", may_be_empty=True)
    if not isinstance(observations, list) or not all(isinstance(o, str) for o in observations):
        raise _Problem("entity whose 'observations' is not a list of strings")
    return FileEntity(name, entity_type, list(observations), number)


def _relation(value: dict[str, Any], number: int) -> FileRelation:
    for key in _FIELDS["relation"]:
        _require_text(value[key], key, may_be_empty=key == "relationType")
    return FileRelation(value["from"], value["to"], value["relationType"], number)


def _require_text(value: Any, key: str, *, may_be_empty: bool = False) -> None:
    if not isinstance(value, str):
        raise _Problem(f"{key!r} is a {type(value).__name__}, not a string")
    if not may_be_empty and not value.strip():
        raise _Problem(f"{key!r} is empty")


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."


def _problems_said(path: Path, problems: list[tuple[int, str]]) -> str:
    """All of them on one line: the first few by number, the rest counted."""
    said = "; ".join(f"line {number}: {problem}" for number, problem in problems[:SHOWN_PROBLEMS])
    more = len(problems) - SHOWN_PROBLEMS
    if more > 0:
        said += f"; and {more} more malformed line{'s' if more > 1 else ''}"
    return f"{path} is not a {TOOL} file memlens can read whole: {said} (nothing was read; --lenient skips such lines)"


def skipped_note(memory: MemoryFile) -> str | None:
    """What --lenient left out, for the person who asked for it; None if nothing."""
    if not memory.skipped:
        return None
    count = len(memory.skipped)
    lines = ", ".join(str(number) for number, _ in memory.skipped[:10]) + (", ..." if count > 10 else "")
    return f"skipped {count} malformed line{'s' if count > 1 else ''} of {memory.path.name} (line{'s' if count > 1 else ''} {lines})"


# -- where the server keeps its file -------------------------------------------------------------

def default_locations() -> list[tuple[Path, str]]:
    """Where the server would write its file: `$MEMORY_FILE_PATH`, else beside every installed
    copy of the server that can be found (global installs, then npx's cache, newest first)."""
    folders = [(folder, why) for folder, why in _server_folders() if folder.is_dir()]
    override = os.environ.get("MEMORY_FILE_PATH")
    if override:
        given = Path(override).expanduser()
        if given.is_absolute():
            return [(given, "$MEMORY_FILE_PATH")]
        # The server reads a relative path from its own folder, not from where it was started.
        if folders:
            return [(folder / given, f"$MEMORY_FILE_PATH, from {why}") for folder, why in folders]
        return [(given, "$MEMORY_FILE_PATH (relative, and no installed server found to take it from)")]
    found = [(folder / name, why) for folder, why in folders for name in FILE_NAMES]
    if found:
        return found
    return [(pattern / FILE_NAMES[0], why + " (no server installed there)") for pattern, why in _server_folders(patterns=True)]


def _server_folders(*, patterns: bool = False) -> list[tuple[Path, str]]:
    """The `dist` folders of installed servers, or (`patterns`) where they would be."""
    package = Path("node_modules", *PACKAGE, "dist")
    folders = [(root / Path(*PACKAGE) / "dist", "beside a global install of the server") for root in _global_roots()]
    cache = _npx_cache() / "_npx"
    if patterns:
        return folders + [(cache / "*" / package, "beside a server npx ran")]
    ran = sorted(cache.glob(f"*/{package.as_posix()}"), key=_newest_file_time, reverse=True) if cache.is_dir() else []
    return folders + [(folder, "beside a server npx ran") for folder in ran]


def _newest_file_time(folder: Path) -> float:
    """npx keeps one copy per version, each with its own file: the one written last is the memory in use."""
    times = [(folder / name).stat().st_mtime for name in FILE_NAMES if (folder / name).is_file()]
    return max(times, default=0.0)


def _global_roots() -> list[Path]:
    """npm's global `node_modules` folders, found without running npm: its prefix setting, then the
    one beside the `node` on PATH (nvm, Homebrew, a system install), then the usual places."""
    roots: list[Path] = []
    prefix = os.environ.get("NPM_CONFIG_PREFIX") or os.environ.get("npm_config_prefix")
    if prefix:
        roots.append(_modules_under(Path(prefix).expanduser()))
    node = _which("node")
    if node is not None:
        bin_folder = node.resolve().parent
        roots.append(_modules_under(bin_folder if _windows() else bin_folder.parent))
    if _windows():
        appdata = os.environ.get("APPDATA")
        if appdata:
            roots.append(Path(appdata) / "npm" / "node_modules")
    else:
        roots += [Path("/usr/local/lib/node_modules"), Path("/usr/lib/node_modules"),
                  Path("/opt/homebrew/lib/node_modules"), Path.home() / ".npm-global" / "lib" / "node_modules"]
    unique: list[Path] = []
    for root in roots:
        if root not in unique:
            unique.append(root)
    return unique


def _modules_under(prefix: Path) -> Path:
    return prefix / "node_modules" if _windows() else prefix / "lib" / "node_modules"


def _npx_cache() -> Path:
    configured = os.environ.get("npm_config_cache") or os.environ.get("NPM_CONFIG_CACHE")
    if configured:
        return Path(configured).expanduser()
    if _windows() and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "npm-cache"
    return Path.home() / ".npm"


def _which(program: str) -> Path | None:
    found = shutil.which(program)
    return Path(found) if found else None


def _windows() -> bool:
    return sys.platform == "win32"

