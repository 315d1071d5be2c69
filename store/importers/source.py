"""Another tool's store file, opened read-only, and its times read as memlens times.

The file is opened so that nothing beside it changes either (opening.read_only_uri): `immutable`
when its whole content is in the file, `mode=ro` when the tool that owns it has writes in its
`-wal` (it may be writing while we read) or keeps a rollback journal. Everything is read inside one
read transaction, so the report is one consistent state even while that tool commits.
"""
from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..confined import UntrustedFileError, head_of_regular_file
from ..errors import InvalidInput, MemlensError, NotFound
from ..opening import read_only_uri
from ..timefmt import is_date, parse_iso, parse_valid_time, record_time

EPOCH_RECORD_TIME = "1970-01-01T00:00:00.000000Z"


class SourceNotFound(NotFound):
    """No store file where the path, or the tool's own rules, say it is."""


class SourceUnreadable(MemlensError):
    """The file is not SQLite, is damaged, or is not a store of the tool named."""


class TextNotUtf8(SourceUnreadable):
    """A text value, the schema or SQLite's own message holds bytes that are not UTF-8."""


class SourceFile:
    """An open store file of another tool: its tables and columns, and one read transaction."""

    def __init__(self, conn: sqlite3.Connection, path: Path, tool: str) -> None:
        self.conn = conn
        self.path = path
        self.tool = tool
        self._columns: dict[str, frozenset[str]] = {}
        # Virtual tables (FTS5, sqlite-vec) are skipped: their modules may not be loadable here,
        # and they only index rows that the ordinary tables hold.
        self.tables = frozenset(
            row[0] for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND coalesce(sql, '') NOT LIKE 'CREATE VIRTUAL TABLE%'")
        )

    def columns(self, table: str) -> frozenset[str]:
        if table not in self.tables:
            return frozenset()
        if table not in self._columns:
            self._columns[table] = frozenset(
                row[1] for row in self.conn.execute(f"PRAGMA table_info({quoted(table)})"))
        return self._columns[table]

    def has(self, table: str, *columns: str) -> bool:
        present = self.columns(table)
        return bool(present) and all(column in present for column in columns)

    def rows(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        return self.conn.execute(sql, params).fetchall()

    def column_or_null(self, table: str, column: str, alias: str | None = None) -> str:
        """`column` if the table has it (older files lack some), else NULL under the same name."""
        name = alias or column
        return f"{quoted(column)} AS {quoted(name)}" if column in self.columns(table) else f"NULL AS {quoted(name)}"


def quoted(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def missing_piece(source: SourceFile, required: dict[str, tuple[str, ...]]) -> str | None:
    """What the file lacks of `required` (table -> columns), said in words; None if nothing."""
    for table, columns in required.items():
        if table not in source.tables:
            return f"it has no table {table!r}"
        absent = [c for c in columns if c not in source.columns(table)]
        if absent:
            return f"its table {table!r} has no column {', '.join(repr(c) for c in absent)}"
    return None


@contextmanager
def opened(path: Path, tool: str, *, replace_bad_text: bool = False) -> Iterator[SourceFile]:
    """The file opened read-only, inside one read transaction; closed afterwards. With
    `replace_bad_text`, text that is not UTF-8 is read with replacement characters."""
    try:   # a FIFO or a device would block SQLite's first read, or never end it
        head_of_regular_file(path, 0)
    except FileNotFoundError:
        raise SourceNotFound(f"no {tool} store at {path}") from None
    except UntrustedFileError as exc:   # a folder, a FIFO, a device
        raise SourceUnreadable(str(exc)) from None
    except OSError as exc:
        raise SourceUnreadable(f"{path} could not be read ({exc.strerror or exc})") from None
    try:
        conn = sqlite3.connect(read_only_uri(path, leave_no_trace=True), uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise SourceUnreadable(f"{path} could not be opened ({exc})") from None
    try:
        conn.row_factory = sqlite3.Row
        if replace_bad_text:
            conn.text_factory = _text_or_replacement
        conn.execute("PRAGMA busy_timeout = 10000")
        conn.execute("PRAGMA query_only = ON")
        conn.execute("BEGIN")
        yield SourceFile(conn, path, tool)
    except UnicodeDecodeError:  # raised where SQLite's message quotes the bytes
        raise TextNotUtf8(f"{path} could not be read as a {tool} store: it holds bytes that are not UTF-8 "
                          "where text must be (is it damaged?)") from None
    except sqlite3.Error as exc:
        if "decode to UTF-8" in str(exc):
            raise TextNotUtf8(f"{path} could not be read as a {tool} store ({exc})") from None
        raise SourceUnreadable(f"{path} could not be read as a {tool} store ({exc})") from None
    finally:
        conn.close()


def _text_or_replacement(data: bytes) -> str:
    return data.decode("utf-8", "replace")


# -- times ---------------------------------------------------------------------------------------

_NUMBER = re.compile(r"[+-]?\d+(\.\d+)?")


def record_time_of(value: Any) -> str | None:
    """A source's time (epoch seconds, or ISO text with or without a zone) as a record time.

    Naive times are taken as UTC, which is what every one of the three tools writes. Anything
    unreadable is None, never an error: one odd row must not hide a whole store.
    """
    if value.__class__ is float:  # memoose's times, before the checks below: 0.04 s less of 0.28 for 113,000
        try:
            return record_time(datetime.fromtimestamp(value, timezone.utc))
        except (ValueError, OverflowError, OSError):
            return None
    if value is None or isinstance(value, bool):
        return None
    try:
        if isinstance(value, (int, float)):
            return record_time(datetime.fromtimestamp(float(value), timezone.utc))
        text = str(value).strip()
        if not text:
            return None
        if _NUMBER.fullmatch(text):
            return record_time(datetime.fromtimestamp(float(text), timezone.utc))
        moment = parse_iso(text)
        if is_date(moment):
            return record_time(datetime(moment.year, moment.month, moment.day, tzinfo=timezone.utc))
        return record_time(moment)
    except (ValueError, OverflowError, OSError):
        return None


def valid_time_of(value: Any) -> str | None:
    """A valid time in memlens's form when it can be read as one; otherwise as the writer gave it."""
    if value is None:
        return None
    text = str(value).strip()
    if not text:
        return None
    try:
        return parse_valid_time(text)
    except InvalidInput:
        return text


def text_of(value: Any) -> str:
    """A cell as text: a BLOB (bytes) as the UTF-8 it most likely holds, not Python's b'...'."""
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def number_or(value: Any, default: float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


_ID = re.compile(r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}")


def as_uuid(value: Any) -> str | None:
    """A UUID written with or without dashes, in memlens's dashed lower-case form; else None."""
    text = text_of(value).strip()
    if not _ID.fullmatch(text):
        return None
    digits = text.replace("-", "").lower()
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"


def uuids_in(text: str) -> list[str]:
    """The UUIDs that a key such as `consolidate:<id>:<id>` names, in order."""
    return [as_uuid(match.group(0)) or "" for match in _ID.finditer(text)]
