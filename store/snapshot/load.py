"""Writing a snapshot (from an importer, or a memlens JSON export) into an empty memlens dataset.

Everything lands in one transaction under the actor `import:<source>`: types and relations,
entities (with their merges), facts with every version over record time, tombstones for
forgotten facts, contradictions with their resolution, dismissals with their reasons, the FTS
rows, and the ledger. The source's ledger rows are kept (their times and actors, marked with
the source), followed by one `import` row per entity, fact, contradiction and dismissal and one
summary row; payloads carry ids and metadata only.

What it accepts is checked first, field by field (snapshot/shape.py): a bundle is untrusted input.
Only an empty dataset is accepted here: a memlens bundle taken into a dataset that holds memories
is a merge, with rules of its own (bundle_merge.py); another tool's store goes into a new dataset.
"""
from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .. import ledger, search
from ..db import Tx, dumps
from ..errors import Conflict, InvalidInput, StoreUnreadable
from ..ids import normalize_name
from ..memory import Memory
from ..schema import AUTO_REASON
from ..observations import OBSERVATION_POSITION
from .shape import check_loadable
from ..timefmt import utc_now

def load_into(memory: Memory, snapshot: dict[str, Any], *, source: str) -> dict[str, Any]:
    """Write `snapshot` into `memory` (which must be empty); returns what was written, counted."""
    if not re.fullmatch(r"[\w.-]+", source or ""):
        raise InvalidInput(f"import source {source!r} must be a word such as memoose, memware or mnemo")
    check_loadable(snapshot, utc_now())   # the world's time: a store's own clock may be a test's
    with writing_whole(memory, f"import:{source}") as tx:
        if holds_memories(tx.conn):
            raise Conflict(f"dataset {memory.name} already holds memories; import into a new, empty dataset")
        return load(tx, snapshot, source)


@contextmanager
def writing_whole(memory: Memory, actor: str) -> Iterator[Tx]:
    """`memory.writing(actor)`, where rows that do not hold together (or a store that cannot be
    written) are one error line and nothing is written."""
    try:
        with memory.writing(actor) as tx:
            yield tx
    except sqlite3.IntegrityError as exc:
        raise InvalidInput(f"the snapshot does not hold together ({exc}); nothing was imported") from None
    except sqlite3.Error as exc:
        raise StoreUnreadable(f"could not write {memory.path} ({exc}); nothing was imported") from None


def load(tx: Tx, snapshot: dict[str, Any], source: str) -> dict[str, Any]:
    """Write `snapshot` (checked) into the empty store `tx` writes; returns what was written, counted."""
    # The snapshot's own record times are kept; the import itself happens after all of them.
    tx.at = max(tx.at, snapshot["generated_at"], *(row["at"] for row in snapshot["ledger"]))
    tx.conn.execute("PRAGMA defer_foreign_keys = ON")
    return _write(tx, snapshot, source)


def import_into(path: Path, snapshot: dict[str, Any], *, source: str) -> dict[str, Any]:
    """`load_into` the dataset at `path`, made if absent (a failed import makes nothing: see Memory)."""
    with Memory(path) as memory:
        return load_into(memory, snapshot, source=source)


def holds_memories(conn: sqlite3.Connection) -> bool:
    """Whether the store has anything in it (a ledger row, an entity, a tombstone)."""
    return bool(conn.execute("""SELECT (SELECT count(*) FROM ledger) + (SELECT count(*) FROM entities)
                                       + (SELECT count(*) FROM tombstones)""").fetchone()[0])


def _write(tx: Tx, snapshot: dict[str, Any], source: str) -> dict[str, Any]:
    types_added = _types(tx, snapshot)
    _relations(tx, snapshot)
    for row in snapshot["ledger"]:
        # History from the source: its own times and actors, marked as imported.
        ledger.append(tx.conn, row["at"], row["actor"], row["action"], row["kind"], list(row["refs"]),
                      {**row["payload"], "imported_from": source})
    for entity in snapshot["entities"]:
        _entity(tx, entity, source)
    facts = sorted(snapshot["facts"], key=lambda f: (f["recorded_at"], f["id"]))  # arrival order
    for fact in facts:
        _fact(tx, fact, source)
    for c in snapshot["contradictions"]:
        _contradiction(tx, c, source)
    for d in snapshot["dismissals"]:
        tx.conn.execute("INSERT INTO dismissals (key, kind, content, reason, actor, at) VALUES (?, ?, ?, ?, ?, ?)",
                        (d["key"], d["kind"], d["content"], d["reason"], d["actor"], d["at"]))
        tx.log("import", "dismissal", [], source=source, key=d["key"], content=d["content"])
    # What sessions were told travels with the memory it was told from (no ledger row: giving a brief
    # is not a write, store/brief_record.py).
    tx.conn.executemany("INSERT INTO briefs (at, host, session, source, snapshot_hash, digest, facts, chars) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [(b["at"], b["host"], b.get("session"), b.get("source"), b["hash"], b["digest"],
                          json.dumps(b["facts"]), b["chars"]) for b in snapshot.get("briefs", [])])
    counts = {
        "source": source, "dataset": snapshot["dataset"], "source_hash": snapshot["hash"],
        "entities": len(snapshot["entities"]),
        "facts": sum(1 for f in facts if f["status"] != "forgotten"),
        "forgotten": sum(1 for f in facts if f["status"] == "forgotten"),
        "contradictions": len(snapshot["contradictions"]), "dismissals": len(snapshot["dismissals"]),
        "types_added": types_added, "source_ledger": len(snapshot["ledger"]),
    }
    tx.log("import", "dataset", [], **counts)
    return counts


def _types(tx: Tx, snapshot: dict[str, Any]) -> int:
    known = {r[0].lower() for r in tx.all("SELECT name FROM types")}
    added = 0
    for name in sorted(set(snapshot["ontology"]["types"]) | {e["type"] for e in snapshot["entities"]}):
        if name.lower() not in known:
            tx.conn.execute("INSERT INTO types (name, added_at) VALUES (?, ?)", (name, tx.at))
            known.add(name.lower())
            added += 1
    return added


def _type_spelling(tx: Tx, name: str) -> str:
    """The dataset's spelling of a type (types match case-insensitively, as everywhere in memlens)."""
    return tx.one("SELECT name FROM types WHERE lower(name) = lower(?) ORDER BY added_at IS NOT NULL, name",
                  (name,))["name"]


def _relations(tx: Tx, snapshot: dict[str, Any]) -> None:
    functional = {r["name"]: bool(r["functional"]) for r in snapshot["ontology"]["relations"]}
    for fact in snapshot["facts"]:
        if fact["relation"] is not None:
            functional[fact["relation"]] = functional.get(fact["relation"], False) or bool(fact["functional"])
    tx.conn.executemany("INSERT INTO relations (name, functional, declared_at) VALUES (?, ?, ?)",
                        [(name, int(flag), tx.at) for name, flag in sorted(functional.items())])


def _entity(tx: Tx, e: dict[str, Any], source: str) -> None:
    tx.conn.execute(
        """INSERT INTO entities (id, name, name_key, type, description, created_at, updated_at, merged_into, merged_at,
                                 observation_position)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (e["id"], e["name"], normalize_name(e["name"]), _type_spelling(tx, e["type"]), e["description"] or "", e["created_at"],
         e["updated_at"], e["merged_into"], e["merged_at"], e.get(OBSERVATION_POSITION)),
    )
    if not e["merged_into"]:  # a merged name is found through the entity it went into
        search.index_entity(tx.conn, e["id"])
    tx.log("import", "entity", [e["id"]], source=source, type=e["type"], merged_into=e["merged_into"])


def _fact(tx: Tx, f: dict[str, Any], source: str) -> None:
    seq = tx.log("import", "fact", [f["id"]], source=source, status=f["status"], superseded_by=f["superseded_by"])
    if f["status"] == "forgotten":
        # The text is gone; what stays is the tombstone that refuses the triple back.
        tx.conn.execute(
            "INSERT INTO tombstones (id, kind, subject_id, forgotten_at, actor) VALUES (?, 'fact', ?, ?, ?)",
            (f["id"], f["subject"], f["retired_at"], tx.actor),
        )
    else:
        tx.conn.execute(
            """INSERT INTO facts (id, subject_id, relation, object_id, description, evidence, actor, arrival, reassertions,
                                  origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (f["id"], f["subject"], f["relation"], f["object"], f["description"] or "",
             json.dumps(list(f["evidence"])), f["actor"] or tx.actor, seq, int(f["reassertions"] or 0),
             dumps(f["origin"]) if "origin" in f else None),
        )
    for number, v in enumerate(f["history"], start=1):
        tx.conn.execute(
            """INSERT INTO fact_versions (fact_id, version, status, superseded_by, reason, automatic, valid_from,
                                          valid_to, recorded_at, retired_at, judged_at, bundle)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (f["id"], number, v["status"], v["superseded_by"], v["reason"], automatic(v), v["valid_from"],
             v["valid_to"], v["from"], v["to"], v.get("judged_at"), v.get("bundle")),
        )
    if f["status"] != "forgotten":
        search.index_fact(tx.conn, f["id"])


def automatic(version: dict[str, Any]) -> int:
    """The snapshot format shows the functional ordering's supersessions by their reason text."""
    return int(version["status"] == "superseded" and version["reason"] == AUTO_REASON)


def _contradiction(tx: Tx, c: dict[str, Any], source: str) -> None:
    tx.conn.execute(
        """INSERT INTO contradictions (id, fact_a, fact_b, reason, confidence, actor, recorded_at, resolved_at,
                                       resolution, resolution_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (c["id"], c["facts"][0], c["facts"][1], c["reason"] or "", c["confidence"], c["actor"] or tx.actor,
         c["recorded_at"], c["resolved_at"], c["resolution"], c["resolution_reason"]),
    )
    tx.log("import", "contradiction", [c["id"], *c["facts"]], source=source, open=c["resolved_at"] is None)
