"""Writing a snapshot (from an importer, or a memlens JSON export) into an empty memlens dataset.

Everything lands in one transaction under the actor `import:<source>`: types and relations,
entities (with their merges), facts with every version over record time, tombstones for
forgotten facts, contradictions with their resolution, dismissals with their reasons, the FTS
rows, and the ledger. The source's ledger rows are kept (their times and actors, marked with
the source), followed by one `import` row per entity, fact, contradiction and dismissal and one
summary row; payloads carry ids and metadata only.

Only an empty dataset is accepted. Merging two memories needs judgements (which of two
current values holds, whether two names are one entity) that an import should not make
silently; import into a new dataset instead.
"""
from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

from . import ledger, search
from .db import Tx
from .errors import Conflict, InvalidInput, StoreUnreadable
from .ids import normalize_name, usable_id
from .memory import Memory
from .schema import AUTO_REASON, STATUSES
from .snapshot import FORMAT

RESOLUTIONS = ("superseded", "retracted", "dismissed", "forgotten", "merged")


def load_into(memory: Memory, snapshot: dict[str, Any], *, source: str) -> dict[str, Any]:
    """Write `snapshot` into `memory` (which must be empty); returns what was written, counted."""
    if not re.fullmatch(r"[\w.-]+", source or ""):
        raise InvalidInput(f"import source {source!r} must be a word such as memoose, memware or mnemo")
    _check_shape(snapshot)
    actor = f"import:{source}"
    try:
        with memory.writing(actor) as tx:
            _refuse_unless_empty(tx, memory.name)
            # The snapshot's own record times are kept; the import itself happens after all of them.
            tx.at = max(tx.at, snapshot["generated_at"], *(row["at"] for row in snapshot["ledger"]))
            tx.conn.execute("PRAGMA defer_foreign_keys = ON")
            counts = _write(tx, snapshot, source)
    except sqlite3.IntegrityError as exc:
        raise InvalidInput(f"the snapshot does not hold together ({exc}); nothing was imported") from None
    except sqlite3.Error as exc:
        raise StoreUnreadable(f"could not write {memory.path} ({exc}); nothing was imported") from None
    return counts


def import_into(path: Path, snapshot: dict[str, Any], *, source: str) -> dict[str, Any]:
    """`load_into` the dataset at `path`, made if absent (a failed import makes nothing: see Memory)."""
    with Memory(path) as memory:
        return load_into(memory, snapshot, source=source)


def _refuse_unless_empty(tx: Tx, dataset: str) -> None:
    held = tx.one("""SELECT (SELECT count(*) FROM ledger) + (SELECT count(*) FROM entities)
                            + (SELECT count(*) FROM tombstones)""")[0]
    if held:
        raise Conflict(f"dataset {dataset} already holds memories; import into a new, empty dataset")


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
        """INSERT INTO entities (id, name, name_key, type, description, created_at, updated_at, merged_into, merged_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (e["id"], e["name"], normalize_name(e["name"]), _type_spelling(tx, e["type"]), e["description"] or "", e["created_at"],
         e["updated_at"], e["merged_into"], e["merged_at"]),
    )
    if not e["merged_into"]:  # a merged name is found through the entity it went into
        search.index_entity(tx.conn, e["id"])
    tx.log("import", "entity", [e["id"]], source=source, type=e["type"], merged_into=e["merged_into"])


def _fact(tx: Tx, f: dict[str, Any], source: str) -> None:
    seq = tx.log("import", "fact", [f["id"]], source=source, status=f["status"])
    if f["status"] == "forgotten":
        # The text is gone; what stays is the tombstone that refuses the triple back.
        tx.conn.execute(
            "INSERT INTO tombstones (id, kind, subject_id, forgotten_at, actor) VALUES (?, 'fact', ?, ?, ?)",
            (f["id"], f["subject"], f["retired_at"], tx.actor),
        )
    else:
        tx.conn.execute(
            """INSERT INTO facts (id, subject_id, relation, object_id, description, evidence, actor, arrival, reassertions)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (f["id"], f["subject"], f["relation"], f["object"], f["description"] or "",
             json.dumps(list(f["evidence"])), f["actor"] or tx.actor, seq, int(f["reassertions"] or 0)),
        )
    for number, v in enumerate(f["history"], start=1):
        tx.conn.execute(
            """INSERT INTO fact_versions (fact_id, version, status, superseded_by, reason, automatic, valid_from,
                                          valid_to, recorded_at, retired_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (f["id"], number, v["status"], v["superseded_by"], v["reason"], _automatic(v), v["valid_from"],
             v["valid_to"], v["from"], v["to"]),
        )
    if f["status"] != "forgotten":
        search.index_fact(tx.conn, f["id"])


def _automatic(version: dict[str, Any]) -> int:
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


# -- shape ---------------------------------------------------------------------------------------

def _check_shape(snapshot: Any) -> None:
    """Enough of docs/snapshot-format.md to write the snapshot without a half-made dataset."""
    if not isinstance(snapshot, dict) or snapshot.get("format") != FORMAT:
        raise InvalidInput(f"not a {FORMAT} snapshot")
    for key, kind in (("entities", list), ("facts", list), ("contradictions", list), ("dismissals", list),
                      ("ledger", list), ("ontology", dict), ("generated_at", str), ("hash", str), ("dataset", str)):
        if not isinstance(snapshot.get(key), kind):
            raise InvalidInput(f"the snapshot's {key!r} is missing or not a {kind.__name__}")
    for entity in snapshot["entities"]:
        _check_ids("entity", entity, "id", "merged_into")
    for fact in snapshot["facts"]:
        _check_ids("fact", fact, "id", "subject", "object", "superseded_by")
        _check_fact(fact)
    for c in snapshot["contradictions"]:
        _check_ids("contradiction", c, "id")
        if not all(usable_id(fid) for fid in c.get("facts") or ()):
            raise InvalidInput(f"contradiction {_shown(c.get('id'))} names a fact by an unusable id")
        if len(c.get("facts") or ()) != 2 or c.get("resolution") not in (None, *RESOLUTIONS):
            raise InvalidInput(f"contradiction {c.get('id')!r} needs two facts and a known resolution")
        if not 0.0 <= float(c.get("confidence", -1)) <= 1.0:
            raise InvalidInput(f"contradiction {c.get('id')!r} has a confidence outside 0..1")
    for number, row in enumerate(snapshot["ledger"], start=1):
        refs = row.get("refs") if isinstance(row, dict) else None
        if not isinstance(row, dict) or not isinstance(refs, (list, type(None))) \
                or not all(usable_id(ref) for ref in refs or ()):
            raise InvalidInput(f"ledger row {number} is not a record naming what it changed by usable ids")


def _check_ids(kind: str, record: Any, key: str, *references: str) -> None:
    """Ids are data, never paths: text of 1-256 printable characters (see ids.usable_id)."""
    if not isinstance(record, dict) or not usable_id(record.get(key)):
        raise InvalidInput(f"a {kind} has a missing or unusable id {_shown(record.get(key) if isinstance(record, dict) else record)}")
    for name in references:
        if record.get(name) is not None and not usable_id(record[name]):
            raise InvalidInput(f"{kind} {_shown(record[key])} has an unusable {name} {_shown(record[name])}")


def _shown(value: Any) -> str:
    """A value in an error message: repr'd, and cut short so a 10,000-character id stays one line."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _check_fact(fact: dict[str, Any]) -> None:
    history = fact.get("history") or []
    if fact.get("status") not in STATUSES or not history:
        raise InvalidInput(f"fact {fact.get('id')!r} needs a known status and at least one version")
    if history[-1].get("to") is not None or any(v.get("to") is None for v in history[:-1]):
        raise InvalidInput(f"fact {fact.get('id')!r}: only its last version may be open")
    if any(v.get("status") not in STATUSES for v in history):
        raise InvalidInput(f"fact {fact.get('id')!r} has a version with an unknown status")
    if fact["status"] != "forgotten" and not (fact.get("relation") and fact.get("subject") and fact.get("object")):
        raise InvalidInput(f"fact {fact.get('id')!r} is not forgotten but has no subject, relation or object")
