"""The SQLite schema and its migrations; the version lives in PRAGMA user_version."""
from __future__ import annotations

import sqlite3
from collections.abc import Callable

from . import search
from .errors import StoreUnreadable
from .ids import normalize_name

STATUSES = ("current", "superseded", "retracted", "forgotten")
# The reason shown for a value the functional ordering superseded (the `automatic` column says so).
AUTO_REASON = "functional: a later value holds"

_V1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE types (name TEXT PRIMARY KEY, added_at TEXT);             -- NULL: a default type

CREATE TABLE relations (
    name TEXT PRIMARY KEY,
    functional INTEGER NOT NULL DEFAULT 0,
    declared_at TEXT NOT NULL
);

CREATE TABLE entities (
    n INTEGER PRIMARY KEY,                 -- stable rowid, shared with entity_search
    id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    type TEXT NOT NULL REFERENCES types(name),
    description TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    merged_into TEXT REFERENCES entities(id),
    merged_at TEXT
);

CREATE TABLE facts (
    n INTEGER PRIMARY KEY,                 -- stable rowid, shared with fact_search
    id TEXT NOT NULL UNIQUE,
    subject_id TEXT NOT NULL REFERENCES entities(id),
    relation TEXT NOT NULL,
    object_id TEXT NOT NULL REFERENCES entities(id),
    description TEXT NOT NULL DEFAULT '',
    evidence TEXT NOT NULL DEFAULT '[]',   -- JSON list of strings
    actor TEXT NOT NULL,
    arrival INTEGER NOT NULL,              -- ledger seq of the first assertion: the tie-breaker
    reassertions INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX facts_subject ON facts (subject_id, relation);
CREATE INDEX facts_object ON facts (object_id);

-- One row per state a fact was in over record time; the open one has retired_at NULL.
CREATE TABLE fact_versions (
    fact_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('current', 'superseded', 'retracted', 'forgotten')),
    superseded_by TEXT,
    reason TEXT,
    valid_from TEXT,
    valid_to TEXT,
    recorded_at TEXT NOT NULL,
    retired_at TEXT,
    PRIMARY KEY (fact_id, version)
);
CREATE UNIQUE INDEX fact_versions_open ON fact_versions (fact_id) WHERE retired_at IS NULL;
CREATE INDEX fact_versions_record ON fact_versions (recorded_at);

CREATE TABLE tombstones (
    id TEXT PRIMARY KEY,                   -- the fact id (a hash of the triple) or entity id
    kind TEXT NOT NULL CHECK (kind IN ('fact', 'entity')),
    subject_id TEXT,                       -- for a fact: its subject, while that entity lives
    forgotten_at TEXT NOT NULL,
    actor TEXT NOT NULL
);

CREATE TABLE contradictions (
    id TEXT PRIMARY KEY,
    fact_a TEXT NOT NULL,
    fact_b TEXT NOT NULL,
    reason TEXT NOT NULL,
    confidence REAL NOT NULL,
    actor TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    resolved_at TEXT,
    resolution TEXT CHECK (resolution IN ('superseded', 'retracted', 'dismissed', 'forgotten', 'merged')),
    resolution_reason TEXT
);
CREATE INDEX contradictions_a ON contradictions (fact_a);
CREATE INDEX contradictions_b ON contradictions (fact_b);

CREATE TABLE dismissals (
    n INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    kind TEXT NOT NULL,
    content TEXT NOT NULL,                 -- hash of what the candidate covered when dismissed
    reason TEXT NOT NULL,
    actor TEXT NOT NULL,
    at TEXT NOT NULL,
    UNIQUE (key, content)
);

CREATE TABLE ledger (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    kind TEXT NOT NULL,
    refs TEXT NOT NULL,                    -- JSON list of ids
    payload TEXT NOT NULL,                 -- JSON object: ids and metadata, never fact text
    chain TEXT NOT NULL                    -- sha256 over the previous chain and this row
);
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
BEGIN SELECT RAISE(ABORT, 'the ledger is insert-only'); END;
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
BEGIN SELECT RAISE(ABORT, 'the ledger is insert-only'); END;

INSERT INTO types (name) VALUES ('Person'), ('Team'), ('Organization'), ('Project'), ('Repository'),
    ('Service'), ('Module'), ('File'), ('Function'), ('Library'), ('Tool'), ('Concept'), ('Decision'),
    ('Task'), ('Bug'), ('Config'), ('Environment'), ('Document'), ('Event'), ('Endpoint'), ('Dataset');

CREATE VIRTUAL TABLE fact_search USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE entity_search USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2');
"""

# Imported stores keep their own ids, which are not derived from names: find entities by name too.
_V2 = """
CREATE INDEX entities_name ON entities (name COLLATE NOCASE);
CREATE INDEX facts_triple ON facts (subject_id, relation, object_id);
"""

def _v3(conn: sqlite3.Connection) -> None:
    """A version superseded by the functional ordering says so in a column, not by its reason text;
    every entity, native or imported, is found by one stored key (store/ids.py normalize_name)."""
    conn.execute("ALTER TABLE fact_versions ADD COLUMN automatic INTEGER NOT NULL DEFAULT 0")
    conn.execute("UPDATE fact_versions SET automatic = 1 WHERE status = 'superseded' AND reason = ?", (AUTO_REASON,))
    conn.execute("ALTER TABLE entities ADD COLUMN name_key TEXT NOT NULL DEFAULT ''")
    conn.create_function("memlens_name_key", 1, normalize_name, deterministic=True)
    conn.execute("UPDATE entities SET name_key = memlens_name_key(name)")
    conn.execute("DROP INDEX entities_name")
    conn.execute("CREATE INDEX entities_name_key ON entities (name_key)")
    # The values a successor closed, found without scanning the key (functional.StoredKey.closed_by).
    conn.execute("CREATE INDEX fact_versions_closed_by ON fact_versions (superseded_by) "
                 "WHERE retired_at IS NULL AND automatic = 1")


# The facts not current (superseded, retracted, forgotten) are few, and only their open versions
# say so: this index finds them without reading every version. Recall needs them to count its
# matches exactly: 0.1 ms instead of a 21 ms scan at 30,000 facts.
_V4 = """
CREATE INDEX fact_versions_judged ON fact_versions (status, fact_id) WHERE retired_at IS NULL AND status <> 'current';
"""


# Which ledger rows name an id, found without reading the ledger: a history read every row's refs
# (0.5-0.8 s at 100,000 entities, against 15 ms for a recall). store/ledger.py adds a row's refs
# with the row, in its transaction; the migration adds those of the rows already there.
_V5 = """
CREATE TABLE ledger_refs (
    ref TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (ref, seq)
) WITHOUT ROWID;
INSERT OR IGNORE INTO ledger_refs (ref, seq) SELECT r.value, l.seq FROM ledger l, json_each(l.refs) r;
"""


# How far ledger_refs is known whole: the newest seq whose rows' refs are all in it. A memlens of
# schema 4 or 5 that opened a store before this one migrated it keeps appending rows without
# their refs (it checked the version once, when it opened); every write of ours first adds those
# (ledger.index_refs), and a history reads the rows past the mark from their own refs
# (reads.naming_any). The migration adds what such a writer may already have left out.
_V6 = """
CREATE TABLE ledger_refs_upto (seq INTEGER NOT NULL);
INSERT OR IGNORE INTO ledger_refs (ref, seq) SELECT r.value, l.seq FROM ledger l, json_each(l.refs) r
    WHERE l.seq NOT IN (SELECT seq FROM ledger_refs);
INSERT INTO ledger_refs_upto (seq) SELECT coalesce(max(seq), 0) FROM ledger;
"""


# Recall reads questions in plain words: the index stems (porter: "owns", "owned" and "owning" are
# one word) and an entity's name is a column of its own, so a question that names an entity is told
# from one that only shares a word with its description. Rebuilt from the rows: the forgotten have
# none, so their text cannot come back. store/search.py writes the same text row by row.
_V7 = f"""
DROP TABLE fact_search;
DROP TABLE entity_search;
CREATE VIRTUAL TABLE fact_search USING fts5 (text, tokenize = '{search.TOKENIZER}');
CREATE VIRTUAL TABLE entity_search USING fts5 (name, about, tokenize = '{search.TOKENIZER}');
INSERT INTO fact_search (rowid, text) SELECT f.n, {search.FACT_TEXT_SQL}
    FROM facts f JOIN entities s ON s.id = f.subject_id JOIN entities o ON o.id = f.object_id;
INSERT INTO entity_search (rowid, name, about) SELECT n, name, type || ' ' || description FROM entities
    WHERE merged_into IS NULL;
"""


# What each brief given to an agent held (store/brief_record.py): when, to which host and session,
# the facts it showed, the snapshot hash it was made from and the digest of its text (never the
# text: forgetting a fact needs no rewrite here). Not a write to the memory, so no ledger row and
# no change to the content hash; insert-only, like the ledger. A brief counts entities by type and
# finds projects and repositories in an index (2.6 and 5 ms scans at 10,000 entities, of its 150).
_V8 = """
CREATE INDEX entities_type ON entities (type, merged_into);
CREATE TABLE briefs (
    n INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    host TEXT NOT NULL,
    session TEXT,
    source TEXT,
    snapshot_hash TEXT NOT NULL,
    digest TEXT NOT NULL,
    facts TEXT NOT NULL,                   -- JSON list of the ids of the facts it showed
    chars INTEGER NOT NULL
);
CREATE INDEX briefs_at ON briefs (at);
CREATE TRIGGER briefs_no_update BEFORE UPDATE ON briefs
BEGIN SELECT RAISE(ABORT, 'the record of briefs is insert-only'); END;
CREATE TRIGGER briefs_no_delete BEFORE DELETE ON briefs
BEGIN SELECT RAISE(ABORT, 'the record of briefs is insert-only'); END;
"""


# What a teammate's bundle brought in a merge (store/bundle_merge.py), kept as origin data beside this
# store's own record times, which are the merge's (so time travel to before it shows the memory
# without it). A version's judged_at: when the state it holds was decided where it was decided (NULL:
# here, at recorded_at), which is what "later" means when two memories disagree; bundle: the seal of
# the bundle that brought it. A fact's origin: JSON {bundle, dataset, recorded_at} for a fact a merge
# brought, its actor kept as the teammate's. Read where they exist: an older store has merged nothing.
_V9 = """
ALTER TABLE fact_versions ADD COLUMN judged_at TEXT;
ALTER TABLE fact_versions ADD COLUMN bundle TEXT;
ALTER TABLE facts ADD COLUMN origin TEXT;
"""


# An observation (docs/snapshot-format.md): a note another tool keeps on one entity (the MCP memory
# server's observations), stored as an entity of its own, the object of that entity's `observation`
# fact, so that each has its own history. Its place in the entity's list, from 1, marks it one: NULL
# for every other entity.
_V10 = """
ALTER TABLE entities ADD COLUMN observation_position INTEGER;
"""


# Each migration takes the schema from version i to i + 1: a DDL script, or a function for what
# SQL alone cannot compute.
MIGRATIONS: tuple[str | Callable[[sqlite3.Connection], None], ...] = (_V1, _V2, _v3, _V4, _V5, _V6, _V7, _V8, _V9,
                                                                  _V10)
SCHEMA_VERSION = len(MIGRATIONS)
# Reads never migrate a file: they read a store as old as this. A migration that adds something the
# reads query (not just an index) raises it to its own version; an older store is then read through a
# copy migrated in memory (store/opening.py) until a write or `memlens migrate` upgrades the file.
# Version 3 added the columns entities.name_key and fact_versions.automatic, which reads use.
# (Version 5's ledger_refs is read where it exists; a version 3 or 4 file is read without it. Version
# 6's mark is read where it exists; a version 5 file's table is taken as whole. Version 7's search
# index is read in either form: an older one has no stems and no name column, store/recall.py. Version
# 8's record of briefs is read where it exists: an older store has given none. Version 9's origin
# columns are read where they exist: an older store has merged no bundle. Version 10's
# observation_position is read where it exists: in an older store, observations an import made
# (named "001. text") are plain entities until the next import of their file places them.)
OLDEST_READABLE = 3


def has_column(conn: sqlite3.Connection, table: str, column: str) -> bool:
    """Whether the store's `table` has `column`: a read of an older store reads what it has."""
    return any(row[1] == column for row in conn.execute(f"PRAGMA table_info({table})"))


def migrate(conn: sqlite3.Connection, *, up_to: int = SCHEMA_VERSION) -> None:
    """Bring the file up to SCHEMA_VERSION (or an older `up_to`), each step in its own transaction."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    _refuse_newer(version)
    for target in range(version + 1, up_to + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another writer may have taken this step since the version was read: it is ours to
            # take only if the file, read now that the write lock is held, still needs it.
            now = conn.execute("PRAGMA user_version").fetchone()[0]
            _refuse_newer(now)   # a newer memlens got here first: nothing of this file is ours to change
            if now >= target:
                conn.execute("COMMIT")
                continue
            step = MIGRATIONS[target - 1]
            if callable(step):
                step(conn)
            else:
                for statement in _statements(step):
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {target}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


def _refuse_newer(version: int) -> None:
    if version > SCHEMA_VERSION:
        raise StoreUnreadable(
            f"this store has schema version {version}; this memlens reads up to {SCHEMA_VERSION}. "
            "Upgrade memlens."
        )


def _statements(script: str) -> list[str]:
    """Split a DDL script into statements (sqlite3.complete_statement knows trigger bodies)."""
    statements, pending = [], ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--") and not pending.strip():
            continue
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    return [s for s in statements if s]
