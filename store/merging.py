"""Merge two entities: the dropped one's facts move to the kept one; the old facts stay as history."""
from __future__ import annotations

import json
import sqlite3

from . import contradictions, entities, functional, search
from .db import Tx, rows_in
from .errors import Forgotten, InvalidInput
from .holdings import Held
from .ids import fact_id, new_holding_id, short
from .versions import FACT_WITH_STATE, STATE_COLUMNS, change_state, insert_version, open_state


def merge(tx: Tx, keep_ref: str, drop_ref: str) -> dict[str, str]:
    """Returns {old fact id: fact id under the kept entity}."""
    keep, drop = entities.get(tx.conn, keep_ref), entities.get(tx.conn, drop_ref)
    if keep["id"] == drop["id"]:
        raise InvalidInput(f"{keep_ref!r} and {drop_ref!r} are already the same entity")
    facts = tx.all(
        FACT_WITH_STATE + " WHERE (f.subject_id = ? OR f.object_id = ?) ORDER BY f.arrival",
        (drop["id"], drop["id"]),
    )
    moved = move_facts(tx, keep, drop, facts)
    tx.conn.execute(
        "UPDATE entities SET merged_into = ?, merged_at = ? WHERE id = ?", (keep["id"], tx.at, drop["id"]))
    if not keep["description"] and drop["description"]:
        tx.conn.execute("UPDATE entities SET description = ?, updated_at = ? WHERE id = ?",
                        (drop["description"], tx.at, keep["id"]))
        search.index_entity(tx.conn, keep["id"])
    search.unindex_entity(tx.conn, drop["n"])
    tx.log("merge", "entity", [keep["id"], drop["id"]])
    # the dropped entity's own keys joined the kept one's: two histories became one (a key whose
    # object was merged is one history still, its values carried as they were)
    for relation in sorted({f["relation"] for f in facts if f["subject_id"] == drop["id"]}):
        functional.rechain(tx, keep["id"], relation)
    return moved


def move_facts(tx: Tx, keep: sqlite3.Row, drop: sqlite3.Row, facts: list[sqlite3.Row]) -> dict[str, str]:
    """Carry `facts` (FACT_WITH_STATE rows naming `drop`) to `keep`: each old fact superseded by its
    copy under the kept entity, its open questions asked there. Returns {old fact id: new fact id}."""
    endpoints = {fact["id"]: _moved_endpoints(fact, drop["id"], keep["id"]) for fact in facts}
    moved = _moved_ids(tx, facts, endpoints)
    reason = f"merged {drop['name']} into {keep['name']}"   # moved_already reads it
    for fact in facts:
        old, new = fact["id"], moved[fact["id"]]
        if tx.one("SELECT 1 FROM tombstones WHERE id = ?", (new,)):
            raise Forgotten(f"merging would bring back forgotten fact {short(new)}; forget or retract {short(old)} first")
        state = _copy_into(tx, fact, new, endpoints[old], moved)
        change_state(tx, old, status="superseded", superseded_by=new, reason=reason)
        tx.log("move", "fact", [old, new], status=state["status"], superseded_by=state["superseded_by"])
        contradictions.carry_over(tx, old, new)
    _repoint_successors(tx, moved)
    return moved


def _repoint_successors(tx: Tx, moved: dict[str, str]) -> None:
    """Facts that stay where they are and were superseded by a moved fact are superseded by its
    copy: the functional order's chain runs through the values that stand (a value closed by the
    moved fact would otherwise not give way to a value said inside its time)."""
    # status <> 'current' lets the planner read fact_versions_judged: a scan of every version took
    # 0.5 s at 100,000 entities
    successors = rows_in(tx.conn, """SELECT fact_id, superseded_by, automatic FROM fact_versions
                                     WHERE retired_at IS NULL AND status <> 'current' AND status = 'superseded'
                                       AND superseded_by IN ({})""", list(moved))
    for row in sorted(successors, key=lambda row: row["fact_id"]):
        if row["fact_id"] in moved:   # a moved fact's copy was made superseded by the copy already
            continue
        change_state(tx, row["fact_id"], superseded_by=moved[row["superseded_by"]])
        tx.log("supersede", "fact", [row["fact_id"], moved[row["superseded_by"]]], automatic=bool(row["automatic"]) or None)


def moved_already(tx: Tx, keep_id: str, drop_id: str, facts: list[sqlite3.Row]) -> set[str]:
    """Those of `facts` (naming `drop_id`) that a merge already carried to `keep_id`: superseded, as
    `move_facts` leaves them, by a fact of the triple they become there. Read from their state, not
    worked out again: the carrying changed the states the rule read (a retracted fact is carried
    beside the holdings, and reads as superseded once carried)."""
    carried = set()
    for fact in facts:
        if fact["status"] != "superseded" or fact["automatic"] or not (fact["reason"] or "").startswith("merged "):
            continue
        subject, object_ = _moved_endpoints(fact, drop_id, keep_id)
        if tx.one("SELECT 1 FROM facts WHERE id = ? AND subject_id = ? AND relation = ? AND object_id = ?",
                  (fact["superseded_by"], subject, fact["relation"], object_)):
            carried.add(fact["id"])
    return carried


def _moved_ids(tx: Tx, facts: list[sqlite3.Row], endpoints: dict[str, tuple[str, str]]) -> dict[str, str]:
    """{old fact id: its id under the kept entity}: the holding of the new triple whose time it
    shares (a twin, which gains its evidence: `_twin`), else a new one: the triple's id, or a
    holding id beside the triple's other holdings (store/holdings.py), named by its start (for a
    fact that never said one, by when it was first recorded)."""
    held: dict[tuple[str, str, str], list[Held]] = {}
    standing: dict[tuple[str, str, str], list[Held]] = {}   # current or superseded: the twins there may be
    moved = {}
    for fact in facts:
        subject, object_ = endpoints[fact["id"]]
        triple = (subject, fact["relation"], object_)
        if triple not in held:
            rows = tx.all(
                """SELECT f.id, f.arrival, v.status, v.valid_from, v.valid_to, (SELECT recorded_at FROM fact_versions
                          WHERE fact_id = f.id ORDER BY version LIMIT 1) AS first
                   FROM facts f JOIN fact_versions v ON v.fact_id = f.id AND v.retired_at IS NULL
                   WHERE f.subject_id = ? AND f.relation = ? AND f.object_id = ?""", triple)
            held[triple] = [Held(row["id"], row["valid_from"], row["valid_to"], row["valid_from"] or row["first"],
                                 row["arrival"]) for row in rows]
            standing[triple] = [h for h, row in zip(held[triple], rows) if row["status"] in ("current", "superseded")]
        # A retracted fact is no statement of the value: carried beside the holdings, never into one.
        # Nor is a value of a functional relation: each keeps its own time and place in the order
        # (folded into a holding of the kept name, its chain ran through that holding's place).
        joins = fact["status"] in ("current", "superseded") and not functional.is_functional(tx.conn, triple[1])
        target = _twin(standing[triple], fact["valid_from"], fact["valid_to"]) if joins else None
        if target is None:
            first = tx.one("SELECT recorded_at FROM fact_versions WHERE fact_id = ? ORDER BY version LIMIT 1",
                           (fact["id"],))[0]
            taken = {h.id for h in held[triple]}
            target = new_holding_id(*triple, fact["valid_from"] or first, taken) if taken else fact_id(*triple)
            new = Held(target, fact["valid_from"], fact["valid_to"], fact["valid_from"] or first, fact["arrival"])
            held[triple].append(new)
            if fact["status"] in ("current", "superseded"):
                standing[triple].append(new)
        moved[fact["id"]] = target
    return moved


def _twin(held: list[Held], valid_from: str | None, valid_to: str | None) -> str | None:
    """The holding a carried fact is the same statement as: the latest whose time overlaps its own
    (an open start or end reaching as far as it goes). Unlike a statement (holdings.holding_of),
    a carried fact is history with its own interval: one beside a holding, not over it, stays a
    holding of its own, and the time it held stays held."""
    def overlaps(h: Held) -> bool:
        return ((valid_to is None or h.valid_from is None or h.valid_from < valid_to)
                and (h.valid_to is None or valid_from is None or valid_from < h.valid_to))
    shared = sorted((h for h in held if overlaps(h)), key=lambda h: (h.starts, h.arrival, h.id))
    return shared[-1].id if shared else None


def _earlier(a: str | None, b: str | None) -> str | None:
    """The earlier of two starts; None (since always) if either is."""
    return None if a is None or b is None else min(a, b)


def _later(a: str | None, b: str | None) -> str | None:
    """The later of two ends; None (still holds) if either is."""
    return None if a is None or b is None else max(a, b)


def _moved_endpoints(fact: sqlite3.Row, drop_id: str, keep_id: str) -> tuple[str, str]:
    subject = keep_id if fact["subject_id"] == drop_id else fact["subject_id"]
    object_ = keep_id if fact["object_id"] == drop_id else fact["object_id"]
    return subject, object_


def _copy_into(
    tx: Tx, fact: sqlite3.Row, new_id: str, endpoints: tuple[str, str], moved: dict[str, str]
) -> dict:
    """The fact under its new triple, keeping its state. An existing twin (of a relation that may
    hold several values: `_moved_ids`) gains its evidence and the fact's time (what the
    merged-away name held, the kept name held); if the fact was current and the twin not, the twin
    is current now (`uses py-tz`, current, merged into a superseded `uses pytz`: pytz is used)."""
    existing = tx.one("SELECT evidence FROM facts WHERE id = ?", (new_id,))
    if existing is not None:
        evidence = json.loads(existing["evidence"])
        evidence += [e for e in json.loads(fact["evidence"]) if e not in evidence]
        tx.conn.execute("UPDATE facts SET evidence = ? WHERE id = ?", (json.dumps(evidence), new_id))
        search.index_fact(tx.conn, new_id)
        twin = open_state(tx.conn, new_id)
        changes: dict[str, object] = {"valid_from": _earlier(twin["valid_from"], fact["valid_from"]),
                                      "valid_to": _later(twin["valid_to"], fact["valid_to"])}
        if fact["status"] == "current" and twin["status"] != "current":
            changes.update(status="current", superseded_by=None, reason=fact["reason"])
        if any(twin[column] != value for column, value in changes.items()):
            change_state(tx, new_id, **changes)
        return open_state(tx.conn, new_id)
    state = {column: fact[column] for column in STATE_COLUMNS}
    state["superseded_by"] = moved.get(state["superseded_by"], state["superseded_by"])
    tx.conn.execute(
        """INSERT INTO facts (id, subject_id, relation, object_id, description, evidence, actor, arrival, reassertions)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (new_id, endpoints[0], fact["relation"], endpoints[1], fact["description"], fact["evidence"],
         fact["actor"], fact["arrival"], fact["reassertions"]),
    )
    insert_version(tx, new_id, 1, state)
    search.index_fact(tx.conn, new_id)
    return state
