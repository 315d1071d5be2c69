"""The reference writer: one fact at a time, each step a query, as memlens wrote before its batch
writer (store/ingest.py). tests/test_ingest.py holds the two to the same bytes, so a rule changed
in the batch writer must be changed here too: this is the plain statement of it."""
from __future__ import annotations

import json
import sqlite3

from memlens.store import entities, functional, search
from memlens.store.db import Tx
from memlens.store.errors import Forgotten, InvalidInput
from memlens.store.facts import FactInput, Outcome, validate
from memlens.store.holdings import Held, OthersHeld, holding_of
from memlens.store.ids import entity_id, fact_id, new_holding_id, normalize_name, short
from memlens.store.ontology import resolve_type
from memlens.store.resolve import resolve
from memlens.store.versions import FACT_WITH_STATE, change_state, insert_version


def assert_fact(tx: Tx, item: FactInput, *, override_forgotten: bool = False, new: bool = False) -> Outcome:
    """Record one fact; a superseded or retracted fact said again stays as it was judged. `new`:
    create entities whose names are near misses of existing ones (entities.check_new)."""
    item = validate(item)
    subject_id = ensure(
        tx, item.subject, item.subject_type, item.subject_description, override_forgotten=override_forgotten, new=new
    )
    object_id = ensure(
        tx, item.object, item.object_type, item.object_description, override_forgotten=override_forgotten, new=new
    )
    fid = fact_id(subject_id, item.relation, object_id)
    _refuse_forgotten(tx, fid, item, override_forgotten)
    holdings = tx.all(FACT_WITH_STATE + " WHERE f.subject_id = ? AND f.relation = ? AND f.object_id = ?",
                      (subject_id, item.relation, object_id))
    held = holding_of([_held(tx.conn, row) for row in holdings], item.valid_from, item.valid_to,
                      _others_held(tx.conn, subject_id, item.relation, object_id))
    if held is not None:
        return _reassert(tx, next(row for row in holdings if row["id"] == held), item)
    if holdings:  # the value holds again after every earlier holding ended: a fact of its own
        fid = new_holding_id(subject_id, item.relation, object_id, item.valid_from,  # type: ignore[arg-type]
                             {row["id"] for row in holdings})
        _refuse_forgotten(tx, fid, item, override_forgotten)
    seq = tx.log("assert", "fact", [fid, subject_id, object_id], valid_from=item.valid_from,
                 valid_to=item.valid_to, override=override_forgotten or None)
    tx.conn.execute(
        """INSERT INTO facts (id, subject_id, relation, object_id, description, evidence, actor, arrival)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
        (fid, subject_id, item.relation, object_id, item.description, json.dumps(list(item.evidence)), tx.actor, seq),
    )
    previous = tx.one("SELECT max(version) FROM fact_versions WHERE fact_id = ?", (fid,))[0] or 0
    if previous:  # a forgotten fact asserted again on purpose: close the tombstone's version
        tx.conn.execute(
            "UPDATE fact_versions SET retired_at = ? WHERE fact_id = ? AND retired_at IS NULL", (tx.at, fid)
        )
    insert_version(tx, fid, previous + 1, {
        "status": "current", "superseded_by": None, "reason": None, "automatic": 0,
        "valid_from": item.valid_from, "valid_to": item.valid_to,
    })
    search.index_fact(tx.conn, fid)
    return _settled(tx, fid, subject_id, item.relation, "asserted")


def _refuse_forgotten(tx: Tx, fid: str, item: FactInput, override: bool) -> None:
    """A forgotten triple (or holding) is asserted again only on purpose; then its tombstone goes."""
    if tx.one("SELECT 1 FROM tombstones WHERE id = ?", (fid,)):
        if not override:
            raise Forgotten(
                f"{item.subject} --{item.relation}--> {item.object} was forgotten (fact {short(fid)}); "
                "assert it again only on purpose (--override)"
            )
        tx.conn.execute("DELETE FROM tombstones WHERE id = ?", (fid,))


def _others_held(conn: sqlite3.Connection, subject_id: str, relation: str, object_id: str) -> OthersHeld | None:
    """For a functional relation: whether a value other than `object_id` stands in [start, end)."""
    if not functional.is_functional(conn, relation):
        return None

    def held(start: str, end: str) -> bool:
        return conn.execute(
            """SELECT 1 FROM facts f JOIN fact_versions v ON v.fact_id = f.id AND v.retired_at IS NULL
               WHERE f.subject_id = ? AND f.relation = ? AND f.object_id <> ?
                 AND (v.status = 'current' OR (v.status = 'superseded' AND v.automatic))
                 AND (v.valid_from IS NULL OR v.valid_from < ?) AND (v.valid_to IS NULL OR v.valid_to > ?)
               LIMIT 1""", (subject_id, relation, object_id, end, start)).fetchone() is not None
    return held


def _held(conn: sqlite3.Connection, row: sqlite3.Row) -> Held:
    first = conn.execute("SELECT recorded_at FROM fact_versions WHERE fact_id = ? ORDER BY version LIMIT 1",
                         (row["id"],)).fetchone()[0]
    return Held(row["id"], row["valid_from"], row["valid_to"], row["valid_from"] or first, row["arrival"],
                row["status"] == "current")


def _reassert(tx: Tx, existing: sqlite3.Row, item: FactInput) -> Outcome:
    fid = existing["id"]
    evidence = json.loads(existing["evidence"])
    evidence += [e for e in item.evidence if e not in evidence]
    description = item.description or existing["description"]
    tx.conn.execute(
        "UPDATE facts SET evidence = ?, description = ?, reassertions = reassertions + 1 WHERE id = ?",
        (json.dumps(evidence), description, fid),
    )
    search.index_fact(tx.conn, fid)
    status = existing["status"]
    tx.log("reassert", "fact", [fid], status=status)
    if status != "current":
        # Supersession holds: only restore or supersede changes a judged fact.
        return Outcome(fid, f"kept {status}")
    changes = {}
    if item.valid_from and item.valid_from != existing["valid_from"]:
        changes["valid_from"] = item.valid_from
    if item.valid_to and item.valid_to != existing["valid_to"]:
        changes["valid_to"] = item.valid_to
    if not changes:
        return Outcome(fid, "reasserted")
    change_state(tx, fid, **changes)
    return _settled(tx, fid, existing["subject_id"], existing["relation"], "reasserted")


def _settled(tx: Tx, fid: str, subject_id: str, relation: str, outcome: str) -> Outcome:
    """Apply the functional ordering; the fact itself may come out of it as history."""
    superseded = functional.settle(tx, subject_id, relation)
    if fid in superseded:
        return Outcome(fid, "filed as history", [s for s in superseded if s != fid])
    return Outcome(fid, outcome, superseded)


def ensure(
    tx: Tx, name: str, type_name: str | None, description: str = "", *, override_forgotten: bool = False,
    new: bool = False,
) -> str:
    """The id of the entity called `name`, creating it (typed) if it does not exist yet."""
    name = name.strip()
    if not name:
        raise InvalidInput("an entity needs a name")
    found = resolve(tx.conn, name)
    existing = found.entity
    if existing is not None:
        if type_name and resolve_type(tx, type_name) != existing["type"]:
            raise InvalidInput(
                f"{existing['name']!r} is a {existing['type']}, not a {type_name.strip()}"
            )
        if description and description != existing["description"]:
            entities.set_description(tx, existing["id"], description)
        return existing["id"]
    new_id = entity_id(name)
    if tx.one("SELECT 1 FROM tombstones WHERE id = ?", (new_id,)):
        if not override_forgotten:
            raise Forgotten(
                f"the entity {name!r} was forgotten; re-create it only on purpose (--override)"
            )
        tx.conn.execute("DELETE FROM tombstones WHERE id = ?", (new_id,))
    entities.check_new(name, type_name, found.candidates, confirmed=new)
    canonical_type = resolve_type(tx, type_name)
    tx.conn.execute(
        """INSERT INTO entities (id, name, name_key, type, description, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)""",
        (new_id, name, normalize_name(name), canonical_type, description, tx.at, tx.at),
    )
    search.index_entity(tx.conn, new_id)
    tx.log("entity", "entity", [new_id], type=canonical_type, override=override_forgotten or None)
    return new_id
