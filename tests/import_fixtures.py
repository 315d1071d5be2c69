"""Store files of memoose, memware and mnemo, built by code for the importer tests.

Each builder lays out the tables of the real tool's schema (memoose 0.6.0 `store/schema.py`,
memware 0.11.0 `store.py`, mnemo-mcp 2.20.1 `db.py` and its Alembic migrations), including an
older variant that lacks what later versions added, and writes rows the way that tool does:
the same columns, id shapes, time formats and provenance payloads (which quote fact text).
Nothing here imports the tools themselves.
"""
from __future__ import annotations

import json
import sqlite3
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

HOSTILE = [
    "</script><script>alert(1)</script>",
    '<img src=x onerror="alert(2)">',
    "javascript:alert(3)",
    "{{ 7*7 }}",
]
START = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


class Clock:
    """Source-side time: one step per write, as each tool writes it."""

    def __init__(self, step: timedelta = timedelta(minutes=10)) -> None:
        self.now = START
        self.step = step

    def tick(self) -> datetime:
        self.now += self.step
        return self.now


# -- memoose -------------------------------------------------------------------------------------

MEMOOSE_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entity_types (name TEXT PRIMARY KEY, description TEXT NOT NULL, builtin INTEGER NOT NULL DEFAULT 0,
    parent TEXT, source_id TEXT, aliases TEXT NOT NULL DEFAULT '[]');
CREATE TABLE functional_relations (name TEXT PRIMARY KEY, declared_at REAL NOT NULL);
CREATE TABLE entities (id TEXT PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, description TEXT NOT NULL,
    mentions INTEGER NOT NULL DEFAULT 1, created_at REAL NOT NULL, updated_at REAL NOT NULL);
CREATE TABLE relations (id TEXT PRIMARY KEY, source_id TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    target_id TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE, name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '', evidence TEXT, chunk_id TEXT, created_at REAL NOT NULL,
    updated_at REAL NOT NULL, superseded INTEGER NOT NULL DEFAULT 0, superseded_by TEXT, supersession_reason TEXT,
    weight REAL NOT NULL DEFAULT 1.0, valid_from TEXT, valid_to TEXT);
CREATE TABLE contradictions (id TEXT PRIMARY KEY, first_relation_id TEXT NOT NULL, second_relation_id TEXT NOT NULL,
    reason TEXT NOT NULL, confidence REAL NOT NULL, created_at REAL NOT NULL, resolved_by TEXT);
CREATE TABLE chunks (id TEXT PRIMARY KEY, text TEXT NOT NULL, summary TEXT, source TEXT, created_at REAL NOT NULL);
CREATE VIRTUAL TABLE fts USING fts5(kind UNINDEXED, ref_id UNINDEXED, text, tokenize='porter unicode61 remove_diacritics 2');
CREATE TABLE embeddings (kind TEXT NOT NULL, ref_id TEXT NOT NULL, model TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (kind, ref_id));
CREATE TABLE provenance (id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, actor TEXT NOT NULL,
    action TEXT NOT NULL, kind TEXT NOT NULL, ref_id TEXT NOT NULL, payload TEXT NOT NULL);
"""
# Added after the tables shipped (memoose's COLUMNS list): an older file lacks them.
MEMOOSE_LATER_COLUMNS = ["condition TEXT", "advice TEXT", "pitfall TEXT", "succeeded INTEGER NOT NULL DEFAULT 0",
                         "failed INTEGER NOT NULL DEFAULT 0", "abandoned INTEGER NOT NULL DEFAULT 0"]
MEMOOSE_NAMESPACE = uuid.UUID("6f1c2a2e-1b8b-4d2c-9c1e-0a0a0a0a0001")


class MemooseFile:
    """A memoose dataset file, written the way memoose's Engine writes it."""

    def __init__(self, path: Path, *, older: bool = False) -> None:
        self.path = path
        self.clock = Clock()
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA foreign_keys = ON")
        self.conn.executescript(MEMOOSE_SCHEMA)
        if not older:
            for column in MEMOOSE_LATER_COLUMNS:
                self.conn.execute(f"ALTER TABLE relations ADD COLUMN {column}")
        for name in ("Person", "Organization", "Project", "Concept", "Technology"):
            self.conn.execute("INSERT INTO entity_types (name, description, builtin) VALUES (?, '', 1)", (name,))

    def close(self) -> None:
        self.conn.close()

    @staticmethod
    def entity_id(name: str) -> str:
        return str(uuid.uuid5(MEMOOSE_NAMESPACE, "Entity:" + " ".join(name.split()).casefold()))

    @staticmethod
    def relation_id(source_id: str, name: str, target_id: str) -> str:
        return str(uuid.uuid5(MEMOOSE_NAMESPACE, f"Relation:{source_id}:{name.casefold()}:{target_id}"))

    def _record(self, action: str, kind: str, ref_id: str, payload: dict, at: float | None = None) -> None:
        self.conn.execute("INSERT INTO provenance (at, actor, action, kind, ref_id, payload) VALUES (?, ?, ?, ?, ?, ?)",
                          (at or self.clock.tick().timestamp(), "host-model", action, kind, ref_id, json.dumps(payload)))

    def entity(self, name: str, type_: str, description: str = "") -> str:
        eid = self.entity_id(name)
        now = self.clock.tick().timestamp()
        exists = self.conn.execute("SELECT 1 FROM entities WHERE id = ?", (eid,)).fetchone()
        if exists:
            self.conn.execute("UPDATE entities SET mentions = mentions + 1, updated_at = ? WHERE id = ?", (now, eid))
        else:
            self.conn.execute("INSERT INTO entities VALUES (?, ?, ?, ?, 1, ?, ?)", (eid, name, type_, description, now, now))
        self._record("merge" if exists else "create", "entity", eid, {"name": name, "type": type_}, now)
        return eid

    def relation(self, source: str, name: str, target: str, description: str = "", evidence: str | None = None,
                 valid_from: str | None = None, valid_to: str | None = None) -> str:
        sid, tid = self.entity_id(source), self.entity_id(target)
        rid = self.relation_id(sid, name, tid)
        now = self.clock.tick().timestamp()
        fact = f"{source} --{name}--> {target}" + (f": {description}" if description else "")
        if self.conn.execute("SELECT 1 FROM relations WHERE id = ?", (rid,)).fetchone():
            # memoose's upsert: a superseded fact said again is current again.
            self.conn.execute("UPDATE relations SET superseded = 0, superseded_by = NULL, supersession_reason = NULL, "
                              "updated_at = ? WHERE id = ?", (now, rid))
            self._record("reassert", "relation", rid, {"fact": fact, "evidence": evidence}, now)
            return rid
        self.conn.execute(
            "INSERT INTO relations (id, source_id, target_id, name, description, evidence, created_at, updated_at, "
            "valid_from, valid_to) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (rid, sid, tid, name, description, evidence, now, now, valid_from, valid_to))
        self._record("assert", "relation", rid, {"fact": fact, "evidence": evidence, "session_id": None}, now)
        return rid

    def declare_functional(self, name: str) -> None:
        self.conn.execute("INSERT INTO functional_relations VALUES (?, ?)", (name, self.clock.tick().timestamp()))
        self._record("declare_functional", "relation_name", name, {})

    def supersede(self, old: str, new: str, reason: str, *, automatic: bool = False) -> None:
        now = self.clock.tick().timestamp()
        self.conn.execute("UPDATE relations SET superseded = 1, superseded_by = ?, supersession_reason = ?, "
                          "updated_at = ? WHERE id = ?", (new, reason, now, old))
        self.conn.execute("UPDATE contradictions SET resolved_by = ? WHERE resolved_by IS NULL "
                          "AND (first_relation_id = ? OR second_relation_id = ?)", (f"superseded_by:{new}", old, old))
        payload = {"relation_id": old, "superseded_by": new, "reason": reason} if automatic else \
            {"superseded_by": new, "reason": reason}
        self._record("supersede", "relation", old, payload, now)

    def contradiction(self, first: str, second: str, reason: str, confidence: float) -> str:
        cid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"contradiction:{min(first, second)}:{max(first, second)}"))
        now = self.clock.tick().timestamp()
        self.conn.execute("INSERT INTO contradictions VALUES (?, ?, ?, ?, ?, ?, NULL)",
                          (cid, first, second, reason, confidence, now))
        a, b = (self.conn.execute("SELECT source_id FROM relations WHERE id = ?", (r,)).fetchone()[0] for r in (first, second))
        if a != b:  # memoose links the two subjects with a `contradicts` edge carrying the reason
            edge = self.relation_id(a, "contradicts", b)
            self.conn.execute("INSERT OR IGNORE INTO relations (id, source_id, target_id, name, description, evidence, "
                              "created_at, updated_at) VALUES (?, ?, ?, 'contradicts', ?, ?, ?, ?)",
                              (edge, a, b, reason, f"contradiction:{cid}", now, now))
        self._record("mark_contradiction", "contradiction", cid,
                     {"first": first, "second": second, "reason": reason, "confidence": confidence}, now)
        return cid

    def dismiss(self, key: str, reason: str) -> None:
        self._record("dismiss", "candidate", key, {"reason": reason})

    def merge(self, keep: str, drop: str) -> None:
        keep_id, drop_id = self.entity_id(keep), self.entity_id(drop)
        now = self.clock.tick().timestamp()
        moved = 0
        for rid, sid, tid in self.conn.execute("SELECT id, source_id, target_id FROM relations "
                                               "WHERE source_id = ? OR target_id = ?", (drop_id, drop_id)).fetchall():
            sid, tid = (keep_id if sid == drop_id else sid), (keep_id if tid == drop_id else tid)
            if sid == tid:
                self.conn.execute("DELETE FROM relations WHERE id = ?", (rid,))
                continue
            self.conn.execute("UPDATE relations SET source_id = ?, target_id = ?, updated_at = ? WHERE id = ?",
                              (sid, tid, now, rid))
            moved += 1
        self.conn.execute("DELETE FROM entities WHERE id = ?", (drop_id,))
        self._record("merge_entities", "entity", keep_id,
                     {"dropped": drop_id, "dropped_name": drop, "relations_repointed": moved}, now)

    def forget_relation(self, rid: str) -> None:
        self.conn.execute("DELETE FROM relations WHERE id = ?", (rid,))
        self._record("forget", "relation", rid, {})

    def forget_entity(self, name: str) -> None:
        eid = self.entity_id(name)
        self.conn.execute("DELETE FROM entities WHERE id = ?", (eid,))  # its relations go by cascade
        self._record("forget", "entity", eid, {"name": name})


def build_memoose(path: Path, *, older: bool = False) -> dict[str, str]:
    """A memoose store with every kind of row; returns the ids the tests look for."""
    m = MemooseFile(path, older=older)
    ids: dict[str, str] = {}
    m.declare_functional("works_at")
    m.entity("alice", "Person", "backend lead")
    m.entity("acme", "Organization")
    m.entity("globex", "Organization")
    m.entity("initech", "Organization")
    ids["acme"] = m.relation("alice", "works_at", "acme", "joined in 2024", "user said 2026-03-01", valid_from="2024-01-01")
    ids["globex"] = m.relation("alice", "works_at", "globex", "moved", "https://example.com/hr", valid_from="2025-06-01")
    m.supersede(ids["acme"], ids["globex"], "functional relation 'works_at': newer", automatic=True)
    # Late history: an older value arrives after the present one and is filed as superseded.
    ids["initech"] = m.relation("alice", "works_at", "initech", "", "cv", valid_from="2020-01-01")
    m.supersede(ids["initech"], ids["globex"], "functional relation 'works_at': backfilled history", automatic=True)
    m.entity("billing", "Project")
    m.entity("postgres", "Technology")
    m.entity("mysql", "Technology")
    ids["pg"] = m.relation("billing", "uses", "postgres", "primary store", "repo://db.py#L1-L9")
    m.clock.now += timedelta(days=1)  # a value that came later: a hotspot, not one statement
    ids["my"] = m.relation("billing", "uses", "mysql", "", None)
    ids["contradiction"] = m.contradiction(ids["pg"], ids["my"], "both claimed as primary", 0.8)
    m.entity("auth", "Project")
    ids["auth_pg"] = m.relation("auth", "uses", "postgres", "", "repo://auth.py")
    ids["resolved"] = m.contradiction(ids["auth_pg"], ids["globex"], "auth uses postgres but alice said otherwise", 0.3)
    m.supersede(ids["auth_pg"], ids["pg"], "billing's postgres is the one")
    m.dismiss(f"hotspot:{m.entity_id('billing')}:uses", "billing really uses both")
    m.dismiss(f"consolidate:{m.entity_id('postgres')}:{m.entity_id('mysql')}", "different databases")
    # Merge: "Alice Smith" folded into "alice"; her relation moves with her.
    m.entity("Alice Smith", "Person")
    m.entity("payments", "Project")
    ids["owns"] = m.relation("Alice Smith", "owns", "payments", "", "standup")
    m.merge("alice", "Alice Smith")
    # Forget: a relation, and an entity with its relations; memoose keeps their text in provenance.
    m.entity("staging", "Concept")
    ids["secret"] = m.relation("staging", "has_password", "billing", "the password is hunter2-staging", "pasted")
    m.forget_relation(ids["secret"])
    m.entity("Mallory Secretname", "Person")
    ids["gossip"] = m.relation("Mallory Secretname", "dislikes", "billing", "mallory-gossip-text", "rumour")
    m.forget_entity("Mallory Secretname")
    # Re-asserting a superseded fact: memoose clears the flag (and its provenance says so).
    ids["reassert"] = m.relation("alice", "works_at", "acme", "", None)
    m.supersede(ids["reassert"], ids["globex"], "functional relation 'works_at': newer", automatic=True)
    # Hostile text passes through as data.
    m.entity(HOSTILE[0], "Concept", HOSTILE[1])
    ids["hostile"] = m.relation(HOSTILE[0], "links_to", "billing", HOSTILE[3], HOSTILE[2])
    m.close()
    return ids


# -- memware -------------------------------------------------------------------------------------

MEMWARE_SCHEMA = """
CREATE TABLE belief (id INTEGER PRIMARY KEY, key TEXT NOT NULL, subject TEXT NOT NULL, relation TEXT NOT NULL,
  value TEXT NOT NULL, valid_from TEXT NOT NULL, valid_to TEXT, recorded_at TEXT NOT NULL, superseded_by INTEGER,
  status TEXT NOT NULL DEFAULT 'committed', reliability REAL NOT NULL DEFAULT 0.5, source TEXT,
  use_count INTEGER NOT NULL DEFAULT 0, last_used TEXT);
CREATE INDEX belief_key_idx ON belief(key, valid_from);
CREATE VIRTUAL TABLE belief_fts USING fts5(subject, relation, value, content='belief', content_rowid='id',
  tokenize='porter unicode61');
CREATE TRIGGER belief_ai AFTER INSERT ON belief BEGIN
  INSERT INTO belief_fts(rowid, subject, relation, value) VALUES (new.id, new.subject, new.relation, new.value);
END;
CREATE TABLE turn (id INTEGER PRIMARY KEY, session TEXT NOT NULL, seq INTEGER NOT NULL, ts TEXT, role TEXT NOT NULL,
  text TEXT NOT NULL, source TEXT NOT NULL, harness TEXT NOT NULL, use_count INTEGER NOT NULL DEFAULT 0,
  last_used TEXT, UNIQUE(source, seq));
CREATE TABLE review (id INTEGER PRIMARY KEY, belief_id INTEGER NOT NULL, incumbent_id INTEGER, reason TEXT NOT NULL,
  opened_at TEXT NOT NULL, decided_at TEXT, decision TEXT, external_ref TEXT);
"""
# memware 0.11 has these; 0.2 had neither.
MEMWARE_LATER_TABLES = """
CREATE TABLE retraction (belief_id INTEGER PRIMARY KEY, retracted_at TEXT NOT NULL, reason TEXT NOT NULL);
CREATE TABLE confirmation (belief_id INTEGER PRIMARY KEY, confirmed_at TEXT NOT NULL, source TEXT);
CREATE TABLE notice (key TEXT PRIMARY KEY, shown_at TEXT NOT NULL, version TEXT NOT NULL);
"""


class MemwareFile:
    """A memware store, written the way memware's ledger functions write it."""

    def __init__(self, path: Path, *, older: bool = False) -> None:
        self.clock = Clock()
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.executescript(MEMWARE_SCHEMA + ("" if older else MEMWARE_LATER_TABLES))
        self.conn.execute("PRAGMA user_version = 1" if older else "PRAGMA user_version = 3")

    def now(self) -> str:
        return self.clock.tick().strftime("%Y-%m-%dT%H:%M:%SZ")

    def close(self) -> None:
        self.conn.close()

    def belief(self, subject: str, relation: str, value: str, valid_from: str, *, status: str = "committed",
               source: str | None = None, valid_to: str | None = None, reliability: float = 0.5) -> int:
        key = f"{subject.strip().lower()}|{relation.strip().lower()}"
        cur = self.conn.execute(
            "INSERT INTO belief (key, subject, relation, value, valid_from, valid_to, recorded_at, status, reliability, "
            "source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (key, subject, relation, value, valid_from, valid_to, self.now(), status, reliability, source))
        return int(cur.lastrowid)

    def supersede(self, old: int, new: int) -> None:
        valid_from = self.conn.execute("SELECT valid_from FROM belief WHERE id = ?", (new,)).fetchone()[0]
        self.conn.execute("UPDATE belief SET valid_to = ?, superseded_by = ? WHERE id = ?", (valid_from, new, old))

    def review(self, candidate: int, incumbent: int, reason: str) -> int:
        return int(self.conn.execute("INSERT INTO review (belief_id, incumbent_id, reason, opened_at) VALUES (?, ?, ?, ?)",
                                     (candidate, incumbent, reason, self.now())).lastrowid)

    def decide(self, review_id: int, decision: str) -> None:
        candidate, incumbent = self.conn.execute("SELECT belief_id, incumbent_id FROM review WHERE id = ?",
                                                 (review_id,)).fetchone()
        if decision == "approved":
            self.supersede(incumbent, candidate)
            self.conn.execute("UPDATE belief SET status = 'committed' WHERE id = ?", (candidate,))
        else:
            self.conn.execute("UPDATE belief SET status = 'rejected', valid_to = valid_from WHERE id = ?", (candidate,))
        self.conn.execute("UPDATE review SET decision = ?, decided_at = ? WHERE id = ?", (decision, self.now(), review_id))

    def retract(self, belief_id: int, reason: str) -> None:
        self.conn.execute("UPDATE belief SET status = 'retracted', valid_to = valid_from WHERE id = ?", (belief_id,))
        self.conn.execute("INSERT INTO retraction VALUES (?, ?, ?)", (belief_id, self.now(), reason))

    def confirm(self, belief_id: int, source: str) -> None:
        self.conn.execute("INSERT INTO confirmation VALUES (?, ?, ?)", (belief_id, self.now(), source))


def build_memware(path: Path, *, older: bool = False) -> dict[str, int]:
    w = MemwareFile(path, older=older)
    ids: dict[str, int] = {}
    ids["port_old"] = w.belief("api", "listens on port", "8080", "2025-01-01", source="session 3f2a, turn 41")
    ids["port_new"] = w.belief("api", "listens on port", "8443", "2026-02-01T10:00:00Z", source="memware:session/s1/turn/7")
    w.supersede(ids["port_old"], ids["port_new"])
    # Late history: an older value arrives last and is filed between the two.
    ids["port_late"] = w.belief("API", "listens on port", "8000", "2024-01-01", valid_to="2025-01-01")
    w.conn.execute("UPDATE belief SET superseded_by = ? WHERE id = ?", (ids["port_old"], ids["port_late"]))
    # A weaker challenger parked for review, open.
    ids["db"] = w.belief("billing", "stores data in", "postgres", "2025-05-01", reliability=0.9)
    ids["db_candidate"] = w.belief("billing", "stores data in", "mysql", "2026-01-01", status="candidate", reliability=0.3)
    ids["review_open"] = w.review(ids["db_candidate"], ids["db"], "challenges committed belief with lower reliability")
    # One approved, one rejected.
    ids["owner"] = w.belief("billing", "owned by", "team-a", "2025-01-01", reliability=0.9)
    ids["owner_new"] = w.belief("billing", "owned by", "team-b", "2026-01-15", status="candidate", reliability=0.2)
    ids["review_approved"] = w.review(ids["owner_new"], ids["owner"], "policy requires confirmation")
    w.decide(ids["review_approved"], "approved")
    ids["lang"] = w.belief("billing", "written in", "python", "2024-01-01", reliability=0.9)
    ids["lang_bad"] = w.belief("billing", "written in", "cobol", "2026-02-01", status="candidate", reliability=0.1)
    ids["review_rejected"] = w.review(ids["lang_bad"], ids["lang"], "challenges committed belief with lower reliability")
    w.decide(ids["review_rejected"], "rejected")
    ids["hostile"] = w.belief(HOSTILE[0], "links to", HOSTILE[1], "2026-01-01", source=HOSTILE[2] + " " + HOSTILE[3])
    if not older:
        ids["wrong"] = w.belief("billing", "deployed on", "heroku", "2025-03-01", source="memware:session/s9/turn/2")
        w.retract(ids["wrong"], "session s9 is no longer indexed")
        w.confirm(ids["db"], "user said so")
    w.close()
    return ids


# -- mnemo ---------------------------------------------------------------------------------------

MNEMO_MEMORIES = """
CREATE TABLE memories (id TEXT PRIMARY KEY NOT NULL, content TEXT NOT NULL, category TEXT NOT NULL DEFAULT 'general',
  tags TEXT NOT NULL DEFAULT '[]', source TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  access_count INTEGER NOT NULL DEFAULT 0, last_accessed TEXT NOT NULL, importance REAL NOT NULL DEFAULT 0.5);
CREATE VIRTUAL TABLE memories_fts USING fts5(id UNINDEXED, content, category UNINDEXED, tags, content=memories,
  content_rowid=rowid, tokenize='porter unicode61');
CREATE TABLE archived_memories (id TEXT PRIMARY KEY NOT NULL, content TEXT NOT NULL, category TEXT NOT NULL DEFAULT
  'general', tags TEXT NOT NULL DEFAULT '[]', source TEXT, importance REAL NOT NULL DEFAULT 0.5, created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL, access_count INTEGER NOT NULL DEFAULT 0, last_accessed TEXT NOT NULL, archived_at TEXT NOT NULL);
"""
# mem_001 .. mem_006: the columns a current store has and an older one lacks.
MNEMO_LATER_COLUMNS = ["context_type TEXT NOT NULL DEFAULT 'conversation'", "archived_at DATETIME", "text_raw TEXT",
                       "compressed BOOLEAN NOT NULL DEFAULT 0", "compression_provider TEXT", "commit_sha TEXT",
                       "valid_from DATETIME", "valid_to DATETIME", "superseded_by TEXT", "subject TEXT"]
MNEMO_GRAPH = """
CREATE TABLE memory_entities (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, entity_type TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE memory_edges (id TEXT PRIMARY KEY NOT NULL, source_id TEXT NOT NULL REFERENCES memory_entities(id)
  ON DELETE CASCADE, target_id TEXT NOT NULL REFERENCES memory_entities(id) ON DELETE CASCADE,
  relation_type TEXT NOT NULL, created_at TEXT NOT NULL, memory_id TEXT, valid_from DATETIME, valid_to DATETIME);
CREATE TABLE memory_entity_links (memory_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  entity_id TEXT NOT NULL REFERENCES memory_entities(id) ON DELETE CASCADE, PRIMARY KEY (memory_id, entity_id));
CREATE TABLE memory_audit (id INTEGER PRIMARY KEY AUTOINCREMENT, memory_id TEXT NOT NULL, prev_state_hash TEXT,
  new_state_hash TEXT NOT NULL, operation TEXT NOT NULL, commit_sha TEXT NOT NULL, occurred_at DATETIME NOT NULL);
CREATE TABLE store_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT);
CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY);
"""
# Before mem_003 the graph lived under other names, the link table under today's entity-table name.
MNEMO_LEGACY_GRAPH = """
CREATE TABLE entities (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, entity_type TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE relations (id TEXT PRIMARY KEY NOT NULL, source_id TEXT NOT NULL, target_id TEXT NOT NULL,
  relation_type TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE memory_entities (memory_id TEXT NOT NULL, entity_id TEXT NOT NULL, PRIMARY KEY (memory_id, entity_id));
"""
# sqlite-vec's table as a file holds it: readable only with the extension, which memlens never loads.
MNEMO_VEC = ("INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) VALUES ('table', 'memories_vec', "
             "'memories_vec', 0, 'CREATE VIRTUAL TABLE memories_vec USING vec0(id TEXT PRIMARY KEY, embedding float[4])')")


class MnemoFile:
    """A mnemo memories.db, written the way MemoryDB writes it (uuid4().hex ids, isoformat times)."""

    def __init__(self, path: Path, *, legacy: bool = False) -> None:
        self.legacy = legacy
        self.clock = Clock()
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.executescript(MNEMO_MEMORIES + (MNEMO_LEGACY_GRAPH if legacy else MNEMO_GRAPH))
        if not legacy:
            for column in MNEMO_LATER_COLUMNS:
                self.conn.execute(f"ALTER TABLE memories ADD COLUMN {column}")
            self.conn.execute("INSERT INTO alembic_version VALUES ('mem_006_subject')")
        self.conn.execute("PRAGMA writable_schema = ON")
        self.conn.execute(MNEMO_VEC)
        self.conn.execute("PRAGMA writable_schema = OFF")
        self.ids = 0

    def now(self) -> str:
        return self.clock.tick().isoformat()

    def close(self) -> None:
        self.conn.close()

    def _id(self) -> str:
        self.ids += 1
        return uuid.uuid5(uuid.NAMESPACE_OID, f"mnemo-memory-{self.ids}").hex

    def add(self, content: str, *, category: str = "general", tags: list[str] | None = None,
            source: str | None = None, context_type: str = "fact") -> str:
        mid, now = self._id(), self.now()
        if self.legacy:
            self.conn.execute("INSERT INTO memories (id, content, category, tags, source, created_at, updated_at, "
                              "last_accessed) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                              (mid, content, category, json.dumps(tags or []), source, now, now, now))
        else:
            self.conn.execute("INSERT INTO memories (id, content, category, tags, source, created_at, updated_at, "
                              "last_accessed, context_type, subject) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                              (mid, content, category, json.dumps(tags or []), source, now, now, now, context_type, None))
        return mid

    def update(self, mid: str, content: str) -> str:
        new, now = self._id(), self.now()
        row = self.conn.execute("UPDATE memories SET valid_to = ?, superseded_by = ? WHERE id = ? AND valid_to IS NULL "
                                "RETURNING category, tags, source, context_type", (now, new, mid)).fetchone()
        self.conn.execute("INSERT INTO memories (id, content, category, tags, source, created_at, updated_at, "
                          "last_accessed, context_type, valid_from) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                          (new, content, row[0], row[1], row[2], now, now, now, row[3], now))
        return new

    def delete(self, mid: str) -> None:
        self.conn.execute("UPDATE memories SET valid_to = ? WHERE id = ? AND valid_to IS NULL", (self.now(), mid))

    def archive(self, mid: str) -> None:
        self.conn.execute("UPDATE memories SET archived_at = ? WHERE id = ?", (self.now(), mid))

    def entity(self, name: str, entity_type: str) -> str:
        eid, now = str(uuid.uuid5(uuid.NAMESPACE_DNS, f"{name}|{entity_type}")), self.now()
        table = "entities" if self.legacy else "memory_entities"
        self.conn.execute(f"INSERT INTO {table} (id, name, entity_type, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                          (eid, name, entity_type, now, now))
        return eid

    def edge(self, source: str, relation: str, target: str, memory_id: str | None = None) -> str:
        rid, now = str(uuid.uuid5(uuid.NAMESPACE_DNS, f"{source}|{relation}|{target}")), self.now()
        if self.legacy:
            self.conn.execute("INSERT INTO relations VALUES (?, ?, ?, ?, ?)", (rid, source, target, relation, now))
        else:
            self.conn.execute("INSERT INTO memory_edges (id, source_id, target_id, relation_type, created_at, memory_id, "
                              "valid_from) VALUES (?, ?, ?, ?, ?, ?, ?)", (rid, source, target, relation, now, memory_id, now))
        return rid

    def link(self, memory_id: str, entity_id: str) -> None:
        table = "memory_entities" if self.legacy else "memory_entity_links"
        self.conn.execute(f"INSERT INTO {table} (memory_id, entity_id) VALUES (?, ?)", (memory_id, entity_id))


def build_mnemo(path: Path, *, legacy: bool = False) -> dict[str, str]:
    n = MnemoFile(path, legacy=legacy)
    ids: dict[str, str] = {}
    ids["port"] = n.add("the api listens on 8080", category="infra", tags=["api"], source="session 12")
    ids["alice"] = n.entity("alice", "person")
    ids["billing"] = n.entity("billing", "project")
    ids["acme"] = n.entity("acme", "org")
    ids["edge"] = n.edge(ids["alice"], "works_on", ids["billing"], ids["port"])
    n.link(ids["port"], ids["billing"])
    ids["hostile"] = n.add(" ".join(HOSTILE), category=HOSTILE[3], tags=[HOSTILE[1]], source=HOSTILE[2])
    if not legacy:
        ids["port_v2"] = n.update(ids["port"], "the api listens on 8443")
        ids["port_v3"] = n.update(ids["port_v2"], "the api listens on 9443")
        ids["secret"] = n.add("staging password is hunter2-mnemo", category="infra")
        ids["secret_v2"] = n.update(ids["secret"], "staging password is hunter3-mnemo")
        n.link(ids["secret_v2"], ids["acme"])
        n.delete(ids["secret_v2"])
        ids["old"] = n.add("we used to deploy on fridays", category="process")
        n.archive(ids["old"])
        n.conn.execute("INSERT INTO archived_memories (id, content, created_at, updated_at, last_accessed, archived_at) "
                       "VALUES (?, 'legacy archived note', ?, ?, ?, ?)", (n._id(), n.now(), n.now(), n.now(), n.now()))
    n.close()
    return ids
