"""memware (0.2-0.11): one SQLite file, `~/.memware/memware.db`, a bi-temporal belief ledger.

Read: `belief` (key, subject, relation, value, valid_from/valid_to = valid time, recorded_at =
record time, superseded_by, status committed|candidate|rejected|retracted, source), `review`
(open while decision is NULL), and, from memware versions that have them, `retraction` and
`confirmation`. Turns and passages are transcripts, not beliefs.

memware has no entity table: subjects and values become entities (one per memware-normalized
name, named as first written; `Concept` for subjects, `Value` for what is only ever a value) and
each belief is a fact named by its relation. Every key holds one current value, so every relation
is functional. A candidate parked for review is not believed: it is kept out of the current facts
as a retraction is ("candidate awaiting review") and stays contested with the belief it challenges,
the review's reason as the contradiction's; a retracted fact in an open contradiction is what the
viewer and the CLI show as a candidate awaiting review (a memlens store resolves a fact's
contradictions when it retracts it, so only such an import has one).
memware records neither when a belief stopped being current nor any provenance: those times are
taken from the rows that replaced, reviewed, retracted or confirmed it, and the ledger is rebuilt
from them.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..schema import AUTO_REASON
from ..ids import derived_id, entity_id
from .assembly import (ContradictionRecord, EntityRecord, FactRecord, LedgerEvent, SourceGraph, State, collapse,
                       in_time_order)
from .source import EPOCH_RECORD_TIME, SourceFile, record_time_of, text_of, valid_time_of

TOOL = "memware"
REQUIRED = {"belief": ("id", "key", "subject", "relation", "value", "valid_from", "recorded_at", "status")}
SUBJECT_TYPE = "Concept"
VALUE_TYPE = "Value"
REVIEW_CONFIDENCE = 0.5  # memware's review says that two values compete, not how surely
_EDGE_PUNCTUATION = re.compile(r"^[\s\"'`.,;:!?()\[\]{}]+|[\s\"'`.,;:!?()\[\]{}]+$")


def default_locations() -> list[tuple[Path, str]]:
    """`$MEMWARE_DB`, else `memware.db` in memware's home (`$MEMWARE_HOME`, ~/.memware, XDG)."""
    if os.environ.get("MEMWARE_DB"):
        return [(Path(os.environ["MEMWARE_DB"]).expanduser(), "$MEMWARE_DB")]
    if os.environ.get("MEMWARE_HOME"):
        return [(Path(os.environ["MEMWARE_HOME"]).expanduser() / "memware.db", "$MEMWARE_HOME")]
    legacy = Path.home() / ".memware"
    if not legacy.exists() and os.environ.get("XDG_DATA_HOME"):
        return [(Path(os.environ["XDG_DATA_HOME"]).expanduser() / "memware" / "memware.db", "$XDG_DATA_HOME")]
    return [(legacy / "memware.db", "memware's home")]


def node_key(text: str) -> str:
    """memware compares names case-folded, trimmed of edge punctuation, spaces collapsed."""
    key = re.sub(r"\s+", " ", _EDGE_PUNCTUATION.sub("", text.strip().casefold()))
    return key or text.casefold()


def fact_id_of(belief_id: Any) -> str:
    return derived_id(TOOL, "belief", str(belief_id))


@dataclass(frozen=True)
class _Review:
    id: int
    belief_id: int
    incumbent_id: int | None
    reason: str
    opened_at: str
    decided_at: str | None
    decision: str | None


def read(source: SourceFile) -> SourceGraph:
    beliefs = _beliefs(source)
    reviews = _reviews(source)
    review_of = {r.belief_id: r for r in reviews}  # ordered by id: the latest review wins
    retracted = _keyed(source, "retraction", "retracted_at", "reason")
    confirmed = _keyed(source, "confirmation", "confirmed_at", "source")
    by_id = {b["id"]: b for b in beliefs}
    graph = SourceGraph(TOOL, source.path.name, types={SUBJECT_TYPE, VALUE_TYPE})
    node_of: dict[str, str] = {}  # text -> entity id; the uuid5 behind it is worth computing once
    graph.entities = _nodes(beliefs, node_of)
    relation_of_key: dict[str, str] = {}
    for b in beliefs:
        relation_of_key.setdefault(b["key"], text_of(b["relation"]))
    for b in beliefs:
        graph.facts.append(FactRecord(
            id=fact_id_of(b["id"]), subject=node_of[text_of(b["subject"])],
            relation=relation_of_key[b["key"]], object=node_of[text_of(b["value"])],
            states=_states(b, by_id, review_of, retracted.get(b["id"])),
            evidence=[text_of(b["source"])] if text_of(b["source"]).strip() else [],
            actor=_actor(b), reassertions=1 if b["id"] in confirmed else 0,
        ))
    graph.relations = {relation: True for relation in relation_of_key.values()}
    graph.contradictions = [_contradiction(r) for r in reviews if r.incumbent_id in by_id and r.belief_id in by_id]
    graph.ledger = _ledger(graph, beliefs, retracted, confirmed, review_of)
    return graph


# -- rows ----------------------------------------------------------------------------------------

def _beliefs(source: SourceFile) -> list[dict[str, Any]]:
    optional = ", ".join(source.column_or_null("belief", c) for c in ("valid_to", "superseded_by", "source"))
    rows = source.rows(f"SELECT id, key, subject, relation, value, valid_from, recorded_at, status, {optional} "
                       "FROM belief ORDER BY id")
    return [dict(row, recorded_at=record_time_of(row["recorded_at"]) or EPOCH_RECORD_TIME) for row in rows]


def _reviews(source: SourceFile) -> list[_Review]:
    if not source.has("review", "id", "belief_id", "reason", "opened_at"):
        return []
    optional = ", ".join(source.column_or_null("review", c) for c in ("incumbent_id", "decided_at", "decision"))
    return [
        _Review(row["id"], row["belief_id"], row["incumbent_id"], text_of(row["reason"]),
                record_time_of(row["opened_at"]) or EPOCH_RECORD_TIME, record_time_of(row["decided_at"]),
                text_of(row["decision"]) or None)
        for row in source.rows(f"SELECT id, belief_id, reason, opened_at, {optional} FROM review ORDER BY id")
    ]


def _keyed(source: SourceFile, table: str, at: str, note: str) -> dict[int, tuple[str | None, str]]:
    """belief id -> (time, note) from `retraction` or `confirmation`; older files have neither."""
    if not source.has(table, "belief_id", at):
        return {}
    note_column = source.column_or_null(table, note, "note")
    return {row["belief_id"]: (record_time_of(row[at]), text_of(row["note"]))
            for row in source.rows(f"SELECT belief_id, {at}, {note_column} FROM {table}")}


def _nodes(beliefs: list[dict[str, Any]], node_of: dict[str, str]) -> list[EntityRecord]:
    """One entity per name as memware compares names; `node_of` learns each spelling's entity."""
    nodes: dict[str, EntityRecord] = {}
    subjects: set[str] = set()
    for b in beliefs:
        for text, is_subject in ((text_of(b["subject"]), True), (text_of(b["value"]), False)):
            if text not in node_of:
                node_of[text] = entity_id(node_key(text))
            eid = node_of[text]
            node = nodes.setdefault(eid, EntityRecord(eid, text, VALUE_TYPE, b["recorded_at"], b["recorded_at"]))
            node.created_at = min(node.created_at, b["recorded_at"])
            node.updated_at = max(node.updated_at, b["recorded_at"])
            if is_subject:
                subjects.add(eid)
    for eid in subjects:
        nodes[eid].type = SUBJECT_TYPE
    return list(nodes.values())


def _actor(belief: dict[str, Any]) -> str:
    # `memware derive` cites the session it read; anything else came through assert or remember.
    return "memware:derive" if text_of(belief["source"]).startswith("memware:session/") else "memware:assert"


# -- a belief's states over record time ----------------------------------------------------------

def _states(
    b: dict[str, Any], by_id: dict[Any, dict[str, Any]], review_of: dict[Any, _Review],
    retraction: tuple[str | None, str] | None,
) -> list[State]:
    rec, status = b["recorded_at"], text_of(b["status"])
    vf, vt = valid_time_of(b["valid_from"]), valid_time_of(b["valid_to"])
    review = review_of.get(b["id"])
    open_ = {"valid_from": vf, "valid_to": None}
    closed = {"valid_from": vf, "valid_to": vt}
    if review is not None or status == "candidate":
        why = f"candidate awaiting review: {review.reason}" if review else "candidate awaiting review"
        states = [State(rec, "retracted", reason=why, **open_)]
    else:
        states = [State(rec, "current", **(closed if status == "committed" and not b["superseded_by"] else open_))]
    if review is not None and review.decision:
        decided = max(review.decided_at or rec, rec)
        if review.decision == "approved":
            states.append(State(decided, "current", **(open_ if b["superseded_by"] else closed)))
        elif review.decision == "rejected":
            states.append(State(decided, "retracted", reason=f"rejected in review: {review.reason}", **closed))
        else:
            states.append(State(decided, "retracted", reason=f"review closed ({review.decision}): {review.reason}", **closed))
    successor = by_id.get(b["superseded_by"])
    if successor is not None and status in ("committed", "retracted"):
        # An older value filed late is superseded from the moment it was recorded.
        states.append(State(max(_believed_since(successor, review_of), rec), "superseded",
                            fact_id_of(successor["id"]), AUTO_REASON, **closed))
    if status == "retracted":
        at, why = retraction or (None, "")
        states.append(State(max(at or rec, states[-1].since), "retracted", reason=why or "retracted in memware", **closed))
    elif status == "rejected" and states[-1].status != "retracted":
        states.append(State(states[-1].since, "retracted", reason="rejected in review", **closed))
    return states


def _believed_since(belief: dict[str, Any], review_of: dict[Any, _Review]) -> str:
    """When a belief began to hold: when recorded, or, for a candidate, when review approved it."""
    review = review_of.get(belief["id"])
    if review is not None and review.decision == "approved" and review.decided_at:
        return max(review.decided_at, belief["recorded_at"])
    return belief["recorded_at"]


def _contradiction(review: _Review) -> ContradictionRecord:
    record = ContradictionRecord(
        id=derived_id(TOOL, "review", str(review.id)),
        facts=(fact_id_of(review.belief_id), fact_id_of(review.incumbent_id)),
        reason=review.reason, confidence=REVIEW_CONFIDENCE, actor="memware:review", recorded_at=review.opened_at,
    )
    if review.decision:
        record.resolved_at = max(review.decided_at or review.opened_at, review.opened_at)
        record.resolution = "superseded" if review.decision == "approved" else "retracted"
        record.resolution_reason = f"{review.decision} in review"
    return record


# -- the ledger memware does not keep ------------------------------------------------------------

def _ledger(
    graph: SourceGraph, beliefs: list[dict[str, Any]], retracted: dict[int, tuple[str | None, str]],
    confirmed: dict[int, tuple[str | None, str]], review_of: dict[Any, _Review],
) -> list[LedgerEvent]:
    events = [LedgerEvent(e.created_at, TOOL, "entity", "entity", [e.id], {"type": e.type}) for e in graph.entities]
    for b, fact in zip(beliefs, graph.facts):  # one fact per belief, in the same order
        events += _belief_events(fact, b["id"] in retracted, review_of.get(b["id"]))
        if b["id"] in confirmed:
            at = confirmed[b["id"]][0] or b["recorded_at"]
            events.append(LedgerEvent(at, "memware:confirm", "reassert", "fact", [fact.id], {"confirmed": True}))
    for c in graph.contradictions:
        events.append(LedgerEvent(c.recorded_at, c.actor, "contest", "contradiction", [c.id, *c.facts],
                                  {"confidence": c.confidence}))
        if c.resolved_at:
            events.append(LedgerEvent(c.resolved_at, c.actor, "resolve", "contradiction", [c.id],
                                      {"resolution": c.resolution}))
    return in_time_order(events)  # memware writes no provenance: the rows' own times order it


def _belief_events(fact: FactRecord, was_retracted: bool, review: _Review | None) -> list[LedgerEvent]:
    states = collapse(fact.states)
    first = states[0]
    candidate = {"candidate": True} if first.status == "retracted" else {}
    events = [LedgerEvent(first.since, fact.actor, "assert", "fact", [fact.id, fact.subject or "", fact.object or ""],
                          {"valid_from": first.valid_from, **candidate})]
    for state in states[1:]:
        if state.status == "superseded":
            events.append(LedgerEvent(state.since, TOOL, "supersede", "fact", [fact.id, state.superseded_by or ""],
                                      {"automatic": True}))
        elif state.status == "current":
            events.append(LedgerEvent(state.since, "memware:review", "restore", "fact", [fact.id], {"review": "approved"}))
        elif was_retracted and state is states[-1]:
            events.append(LedgerEvent(state.since, "memware:retract", "retract", "fact", [fact.id]))
        else:
            decision = review.decision if review is not None and review.decision else "rejected"
            events.append(LedgerEvent(state.since, "memware:review", "retract", "fact", [fact.id], {"review": decision}))
    return events
