"""Opening a store file: read-only for reads, for writing only to write; never a file that is not ours.

A read never changes a file: it opens the store with `mode=ro` (or `immutable=1` where SQLite's
write-ahead log cannot work), refuses what is not a memlens store, and leaves migrations to a write
or to `memlens migrate` (a store too old for the reads is read through a migrated copy in memory). A write first checks that the file is a memlens store (or new) and intact.
"""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from .errors import StoreDamaged, StoreNotFound, StoreUnreadable
from .confined import UntrustedFileError, head_of_regular_file
from .schema import OLDEST_READABLE, SCHEMA_VERSION, migrate

SQLITE_MAGIC = b"SQLite format 3\x00"
# What a memlens store has and none of the other tools' do (their importers name theirs).
MEMLENS_REQUIRED = {"fact_versions": ("fact_id", "status"), "ledger": ("seq", "chain"),
                    "facts": ("id",), "entities": ("id",)}
# PRAGMA quick_check reads every page of the file (benchmarks/bench_opening.py). At 100,000 entities
# (384 MB) it took 0.6-1.0 s with the file in the page cache and up to 7 s from disk, against ~15 ms
# for a recall and ~10 ms for the write of one fact; at 10,000 entities (39 MB), 0.05-0.1 s. Writes
# always check: bad bytes must never be written over. Reads check files up to this size, where it
# costs at most ~0.1 s (a no-op `view --if-changed` at 10,000 entities stays within its 0.3 s);
# past it a read finds damage only in the pages it touches, as SQLite's one-line error.
QUICK_CHECK_ON_READ_MAX_BYTES = 48 * 1024 * 1024


def read_only_uri(path: Path, *, leave_no_trace: bool = False) -> str:
    """The SQLite URI that reads `path` without writing it.

    `mode=ro` honours the locks of a writer working at the same time, but on a file in WAL mode it
    creates `-wal` and `-shm` beside it, and fails where it cannot (a read-only file or folder).
    `immutable=1` creates nothing and needs no lock, but does not see writes still in a `-wal`:
    it is used only where no such writes exist, when asked to leave no trace (another tool's
    store) or when the file or its folder cannot be written.
    """
    uri = path.resolve().as_uri()
    if _pending_wal(path) or not _wal_mode(path):
        # Writes still in the log must be read through it; a rollback-journal file is read with
        # shared locks and no new files.
        return f"{uri}?mode=ro"
    if leave_no_trace or not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        return f"{uri}?immutable=1"
    return f"{uri}?mode=ro"


def _pending_wal(path: Path) -> bool:
    try:
        return os.path.getsize(f"{path}-wal") > 0
    except OSError:
        return False


def _wal_mode(path: Path) -> bool:
    """Whether the header says WAL (file format versions 2 and 2 at bytes 18 and 19)."""
    try:
        with path.open("rb") as handle:
            header = handle.read(20)
    except OSError:
        return False
    return len(header) == 20 and header[18:20] == b"\x02\x02"


def open_for_reading(path: Path) -> sqlite3.Connection:
    """A read-only connection to the memlens store at `path`, refused if it is not one or is damaged."""
    _check_file(path, creating=False)
    try:
        conn = sqlite3.connect(read_only_uri(path), uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise StoreUnreadable(f"{path} could not be opened ({exc})") from None
    try:
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA busy_timeout = 60000")
        conn.execute("PRAGMA query_only = ON")
        version = _check_memlens(conn, path, allow_blank=False)
        if path.stat().st_size <= QUICK_CHECK_ON_READ_MAX_BYTES:
            check_intact(conn, path)
        if version < OLDEST_READABLE:
            return _migrated_copy(conn)
        return conn
    except BaseException as exc:
        conn.close()
        if isinstance(exc, sqlite3.OperationalError) and "unable to open" in str(exc) and _pending_wal(path):
            raise StoreUnreadable(
                f"{path} cannot be read: {path.name}-wal beside it holds recent writes, and reading them "
                f"needs write access to {path.parent} or a {path.name}-shm file ({exc})"
            ) from None
        if isinstance(exc, sqlite3.DatabaseError):
            raise StoreUnreadable(f"{path} is not a readable memlens store ({exc})") from None
        raise


def _migrated_copy(conn: sqlite3.Connection) -> sqlite3.Connection:
    """The store of `conn` (closed here) copied into memory and migrated there: a read of a store too
    old for the reads' queries still never writes the file (`memlens migrate` spares the copy)."""
    copy = sqlite3.connect(":memory:", isolation_level=None)
    try:
        conn.backup(copy)
    finally:
        conn.close()
    copy.row_factory = sqlite3.Row
    migrate(copy)
    copy.execute("PRAGMA query_only = ON")
    return copy


def open_for_writing(path: Path, *, create: bool = True) -> sqlite3.Connection:
    """A connection for writes to the store at `path` (made if `create`), migrated to SCHEMA_VERSION."""
    return _open_writable(path, create=create)[0]


def open_for_recording(path: Path, tables: tuple[str, ...]) -> sqlite3.Connection:
    """A connection to the existing store at `path` for a small write into `tables` alone (the record
    of briefs a session-start hook adds), checked where that write goes: `quick_check` of those
    tables instead of the whole file, which at 10,000 entities costs 70-80 ms of the hook's 150.
    Reads through it find damage in the pages they touch, as SQLite's error. A store of an older
    schema is opened as for any write (checked whole, then migrated), once."""
    return _open_writable(path, create=False, checked=tables)[0]


def migrate_file(path: Path) -> tuple[int, int]:
    """Bring an existing store up to SCHEMA_VERSION; returns its version before and after."""
    conn, before = _open_writable(path, create=False)
    conn.close()
    return before, SCHEMA_VERSION


def remove_store_files(path: Path) -> None:
    """Remove the store at `path` and the files SQLite keeps beside it (its log, shared memory, journal)."""
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
        name.unlink(missing_ok=True)


def check_can_make(path: Path) -> None:
    """Refuse, naming `path`, a new store that could not be made there (its folder made if absent)."""
    _check_file(path, creating=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    _check_writable(path)


def _check_writable(path: Path) -> None:
    # Refused before SQLite opens it: it would fall back to reading, and leave -wal/-shm behind.
    if path.exists() and not os.access(path, os.W_OK):
        raise StoreUnreadable(f"{path} cannot be written: the file is read-only")
    if not os.access(path.parent, os.W_OK):
        raise StoreUnreadable(f"{path} cannot be written: its folder is read-only (the store's log is kept beside it)")


def _open_writable(path: Path, *, create: bool, checked: tuple[str, ...] = ()) -> tuple[sqlite3.Connection, int]:
    """`checked`: the only tables the caller writes, checked alone in a store of the current schema."""
    _check_file(path, creating=create)
    if create:
        path.parent.mkdir(parents=True, exist_ok=True)
    _check_writable(path)
    try:
        conn = sqlite3.connect(path, isolation_level=None, timeout=60)
    except sqlite3.Error as exc:
        raise StoreUnreadable(f"{path} could not be opened ({exc})") from None
    try:
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA busy_timeout = 60000")
        version = _check_memlens(conn, path, allow_blank=True)
        if version:
            check_intact(conn, path, checked if version == SCHEMA_VERSION else ())
        conn.execute("PRAGMA foreign_keys = ON")
        # Forgetting must erase bytes, not just unlink pages: zero what is deleted.
        conn.execute("PRAGMA secure_delete = ON")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        migrate(conn)
        return conn, version
    except BaseException as exc:
        conn.close()
        if isinstance(exc, sqlite3.DatabaseError):
            raise StoreUnreadable(f"{path} is not a writable memlens store ({exc})") from None
        raise


def _check_file(path: Path, *, creating: bool) -> None:
    """Refuse, before SQLite sees it, what cannot be a store: nothing there, a folder, not SQLite."""
    if path.is_dir():
        raise StoreUnreadable(f"{path} is a directory, not a memlens store")
    if not path.exists():
        if creating:
            return
        raise StoreNotFound(f"no store at {path}; write to it with `memlens remember`, or try `memlens demo`")
    try:
        head = head_of_regular_file(path, len(SQLITE_MAGIC))   # a FIFO would hang SQLite's open: refused here
    except UntrustedFileError as exc:
        raise StoreUnreadable(f"{path} is not a memlens store: it {str(exc).removeprefix(f'{path} ')}") from None
    if not head:
        if creating:
            return  # an empty file becomes a store, as SQLite itself would make it one
        raise StoreUnreadable(f"{path} is an empty file, not a memlens store")
    if head != SQLITE_MAGIC:
        raise StoreUnreadable(f"{path} is not a memlens store: {_what_text_is(path)}")


def _check_memlens(conn: sqlite3.Connection, path: Path, *, allow_blank: bool) -> int:
    """The file's schema version, once it is known to be a memlens store (or blank, if allowed)."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables and not version:
        if allow_blank:
            return 0
        raise StoreUnreadable(f"{path} is an empty SQLite database, not a memlens store")
    if not version or not set(MEMLENS_REQUIRED) <= tables:
        raise StoreUnreadable(f"{path} is not a memlens store: {_what_it_is(conn, path, tables)}")
    if version > SCHEMA_VERSION:
        raise StoreUnreadable(
            f"{path} has schema version {version}; this memlens reads up to {SCHEMA_VERSION}. Upgrade memlens."
        )
    return version


def _what_text_is(path: Path) -> str:
    from .importers.mcp_memory.file import looks_like_memory_file  # only on this error path

    if looks_like_memory_file(path):
        return f"it is an MCP memory server's file; read it with `--from mcp-memory {path}`"
    return "it is not a SQLite database"


def _what_it_is(conn: sqlite3.Connection, path: Path, tables: set[str]) -> str:
    from .importers import tools_it_resembles  # only on this error path: the importers load slowly

    tools = [tool for tool in tools_it_resembles(conn, path) if tool != "memlens"]
    if tools:
        return f"it is a {tools[0]} store; read it with `--from {tools[0]} {path}`"
    shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
    return f"it is a SQLite database with other tables ({shown})"


def check_intact(conn: sqlite3.Connection, path: Path, tables: tuple[str, ...] = ()) -> None:
    """Refuse a damaged file (PRAGMA quick_check), before anything reads into it or writes over it;
    `tables`: check only those tables and their indexes (the ones a small write goes to)."""
    try:
        if tables:
            problems = sorted({row[0] for table in tables for row in conn.execute(f"PRAGMA quick_check({table})")})
        else:
            problems = [row[0] for row in conn.execute("PRAGMA quick_check(3)")]
    except sqlite3.DatabaseError as exc:
        problems = [str(exc)]
    if problems != ["ok"]:
        raise StoreDamaged(
            f"{path} is damaged ({'; '.join(problems)[:200]}); memlens will neither read nor write it. "
            "Restore it from a backup copy"
        )
