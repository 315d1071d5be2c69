"""memoose (0.4-0.6): one SQLite file per project, `~/.memoose/<project>-<hash>.sqlite`.

Read: `entities`, `relations` (superseded, superseded_by, supersession_reason, valid_from/to),
`contradictions` (resolved_by NULL = open), `provenance` (every write: assert, reassert,
supersede, mark_contradiction, dismiss, merge_entities, forget, ...), `entity_types` and
`functional_relations`. Chunks, sessions, lessons and embeddings are not memory facts.

memoose keeps no versions: a relation's states over record time are rebuilt from its provenance
rows, then squared with the row itself, which has the last word. memoose deletes what it forgets
and what a merge removes, but its provenance still quotes the fact; such a relation becomes a
tombstone here (id and dates), and no payload text is ever copied anywhere.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from collections import defaultdict
from pathlib import Path
from typing import Any, NamedTuple

from ..ids import short
from ..maintenance import content_of
from .assembly import (ContradictionRecord, DismissalRecord, EntityRecord, FactRecord, LedgerEvent, SourceGraph,
                       State)
from .source import EPOCH_RECORD_TIME, SourceFile, as_uuid, number_or, record_time_of, text_of, uuids_in, valid_time_of

TOOL = "memoose"
REQUIRED = {
    "entities": ("id", "name", "type", "created_at"),
    "relations": ("id", "source_id", "target_id", "name", "created_at"),
}
DEFAULT_TYPE = "Concept"
_UNSAFE = re.compile(r"[^a-z0-9._-]+")


def default_locations() -> list[tuple[Path, str]]:
    """Where memoose keeps the store of the working directory (its own naming rule)."""
    override = os.environ.get("MEMOOSE_DATA_DIR")
    data_dir = Path(override).expanduser() if override else Path.home() / ".memoose"
    project = Path(os.environ.get("MEMOOSE_PROJECT_DIR") or os.getcwd())
    why = "$MEMOOSE_DATA_DIR" if override else "memoose's data directory"
    return [(data_dir / f"{project_dataset_name(project)}.sqlite", why)]


def project_dataset_name(directory: Path) -> str:
    """The directory's name case-folded, runs outside [a-z0-9._-] as '-', plus 8 hex of its path's sha1."""
    path = directory.resolve()
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:8]
    base = _UNSAFE.sub("-", path.name.casefold()).strip("-") or "project"
    # memoose normalizes the name once more when it turns it into a file name.
    return _UNSAFE.sub("-", f"{base}-{digest}".casefold()).strip("-.")


class _Event(NamedTuple):
    """One provenance row; its payload is read only for ids, numbers and keys."""

    seq: int
    at: str
    actor: str
    action: str
    kind: str
    ref_id: str
    payload_text: Any

    @property
    def payload(self) -> dict[str, Any]:
        """Parsed when read, which few rows are: parsing all 63,000 of a 10,000-entity store took 0.13 s."""
        return _parsed(self.payload_text)


def read(source: SourceFile) -> SourceGraph:
    events = _provenance(source)
    graph = SourceGraph(TOOL, source.path.name)
    graph.entities = _entities(source) + _merged_away(source, events)
    functional = _names(source, "functional_relations")
    graph.types = _names(source, "entity_types")
    graph.facts = _facts(source, events)
    graph.contradictions = _contradictions(source, events, graph.facts)
    _quiet_contradicts_edges(graph)
    graph.dismissals = _dismissals(events, graph.facts)
    graph.ledger = [_ledger_event(e) for e in events]
    graph.relations = {name: True for name in functional}
    return graph


# -- rows ----------------------------------------------------------------------------------------

def _provenance(source: SourceFile) -> list[_Event]:
    if not source.has("provenance", "id", "at", "actor", "action", "kind", "ref_id"):
        return []
    payload = source.column_or_null("provenance", "payload")
    return [_Event(int(seq), record_time_of(at) or EPOCH_RECORD_TIME, text_of(actor), text_of(action), text_of(kind),
                   text_of(ref_id), payload_text)
            for seq, at, actor, action, kind, ref_id, payload_text
            in source.rows(f"SELECT id, at, actor, action, kind, ref_id, {payload} FROM provenance ORDER BY id")]


def _parsed(payload: Any) -> dict[str, Any]:
    try:
        value = json.loads(payload) if payload else {}
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _names(source: SourceFile, table: str) -> set[str]:
    if not source.has(table, "name"):
        return set()
    return {text_of(row[0]) for row in source.rows(f"SELECT name FROM {table}") if row[0]}


def _entities(source: SourceFile) -> list[EntityRecord]:
    cols = ", ".join(source.column_or_null("entities", c) for c in ("description", "updated_at"))
    records = []
    for row in source.rows(f"SELECT id, name, type, created_at, {cols} FROM entities"):
        created = record_time_of(row["created_at"]) or EPOCH_RECORD_TIME
        records.append(EntityRecord(
            id=text_of(row["id"]), name=text_of(row["name"]), type=text_of(row["type"]) or DEFAULT_TYPE,
            created_at=created, updated_at=max(record_time_of(row["updated_at"]) or created, created),
            description=text_of(row["description"]),
        ))
    return records


def _merged_away(source: SourceFile, events: list[_Event]) -> list[EntityRecord]:
    """Entities a merge deleted, brought back as memlens shows them: named, merged into the kept one."""
    merges = [e for e in events if e.action == "merge_entities"]
    if not merges:
        return []
    live = {text_of(row[0]) for row in source.rows("SELECT id FROM entities")}
    forgotten = {e.ref_id: e.at for e in events if e.kind == "entity" and e.action == "forget"}
    about: dict[str, list[_Event]] = defaultdict(list)
    for e in events:
        if e.kind == "entity":
            about[e.ref_id].append(e)
    merged: dict[str, EntityRecord] = {}
    for e in merges:
        payload = e.payload
        dropped = payload.get("dropped")
        if not isinstance(dropped, str):
            continue
        if dropped in live or forgotten.get(dropped, "") >= e.at:
            continue  # re-created since, or forgotten after: not a merged alias any more
        mentions = [m for m in about.get(dropped, []) if m.seq < e.seq]
        typed = [t for t in (m.payload.get("type") for m in mentions) if isinstance(t, str)]
        merged[dropped] = EntityRecord(
            id=dropped, name=text_of(payload.get("dropped_name")) or dropped, type=(typed or [DEFAULT_TYPE])[-1],
            created_at=mentions[0].at if mentions else e.at, updated_at=e.at, merged_into=e.ref_id, merged_at=e.at,
        )
    # An alias stays only if its chain of merges ends at an entity the file still holds.
    def lands(entity_id: str, seen: frozenset[str] = frozenset()) -> bool:
        if entity_id in live:
            return True
        target = merged.get(entity_id)
        return target is not None and entity_id not in seen and lands(target.merged_into or "", seen | {entity_id})
    return [record for record in merged.values() if lands(record.merged_into or "")]


# -- facts ---------------------------------------------------------------------------------------

_RELATION_COLUMNS = ("description", "evidence", "updated_at", "superseded", "superseded_by", "supersession_reason",
                     "valid_from", "valid_to", "condition", "advice", "pitfall", "chunk_id")


def _facts(source: SourceFile, events: list[_Event]) -> list[FactRecord]:
    by_relation: dict[str, list[_Event]] = defaultdict(list)
    for e in events:
        if e.kind == "relation":
            by_relation[e.ref_id].append(e)
    cols = ", ".join(source.column_or_null("relations", c) for c in _RELATION_COLUMNS)
    records = [_live_fact(row, by_relation.pop(text_of(row[0]), []))
               for row in source.rows(f"SELECT id, source_id, target_id, name, created_at, {cols} FROM relations")]
    removals = [e for e in events if e.action in ("forget", "merge_entities")]
    for rid, history in by_relation.items():
        if any(e.action in ("assert", "reassert", "supersede", "forget") for e in history):
            records.append(_deleted_fact(rid, history, removals))
    _close_superseded_intervals(records)
    return records


def _close_superseded_intervals(records: list[FactRecord]) -> None:
    """memoose leaves a superseded relation's valid_to empty, so it would read as true until now;
    like memlens's own supersession (functional.py), its interval ends where its successor's begins."""
    starts = {r.id: r.states[-1].valid_from for r in records if r.states}
    for record in records:
        if any(s.status == "superseded" and s.valid_to is None for s in record.states):
            record.states = [_closed(state, starts.get(state.superseded_by or "")) for state in record.states]


def _closed(state: State, successor_from: str | None) -> State:
    if state.status != "superseded" or state.valid_to is not None or successor_from is None:
        return state
    if state.valid_from is not None and successor_from <= state.valid_from:
        return state  # a successor that began first closes nothing that began after it
    return state._replace(valid_to=successor_from)


def _live_fact(row: Any, history: list[_Event]) -> FactRecord:
    """A relation the file holds, in the columns _facts selects (read by position: by name took
    0.06 s of 30,000 relations)."""
    (rid, subject, obj, relation, created_at, description, evidence, updated_at, superseded, superseded_by,
     supersession_reason, valid_from, valid_to, condition, advice, pitfall, chunk_id) = row
    created = record_time_of(created_at) or EPOCH_RECORD_TIME
    valid = {"valid_from": valid_time_of(valid_from), "valid_to": valid_time_of(valid_to)}
    if not superseded and len(history) == 1 and history[0].action == "assert":
        states, present = [State(created, "current", **valid)], history  # said once, never changed: most are
    else:
        earlier, present = _lives(history, created)
        states = _earlier_life(earlier) + [State(created, "current", **valid)] + _replayed(present, created, valid)
        if superseded:
            final = State("", "superseded", text_of(superseded_by) or None, text_of(supersession_reason) or None, **valid)
        else:
            final = State("", "current", **valid)
        if not states[-1].same_as(final):
            # The row has the last word: memoose changed it without a provenance row (or the file is old).
            since = max(record_time_of(updated_at) or created, states[-1].since)
            states.append(State(since, final.status, final.superseded_by, final.reason, **valid))
    first = next((e for e in present if e.action == "assert"), present[0] if present else None)
    evidence = text_of(evidence)
    return FactRecord(
        id=text_of(rid), subject=text_of(subject), relation=text_of(relation), object=text_of(obj), states=states,
        description=_description(description, condition, advice, pitfall),
        evidence=([evidence] if evidence.strip() else []) + _chunk(chunk_id),
        actor=(first.actor if first else "") or TOOL,
        reassertions=sum(1 for e in present if e.action == "reassert"),
    )


def _chunk(chunk_id: Any) -> list[str]:
    """The chunk of text memoose extracted the relation from, as evidence: the record it rests on."""
    chunk = text_of(chunk_id).strip()
    return [f"memoose chunk {chunk}"] if chunk else []


def _lives(history: list[_Event], created: str) -> tuple[list[_Event], list[_Event]]:
    """A relation's rows split into those of a forgotten earlier life of the same triple (before
    `created`, ending in a forget) and those of the life the file holds."""
    if not any(e.action == "forget" for e in history):
        return [], history  # one life, as nearly every relation has
    earlier = [e for e in history if e.at < created]
    if not any(e.action == "forget" for e in earlier):
        return [], history  # no earlier life that ended in a forget: those rows belong to this one
    before = {e.seq for e in earlier}
    return earlier, [e for e in history if e.seq not in before]


def _earlier_life(events: list[_Event]) -> list[State]:
    """A forgotten earlier life of the same triple (memoose lets it be said again): dates only."""
    if not events:
        return []
    states = [State(events[0].at, "current")] + _replayed(events, events[0].at, {"valid_from": None, "valid_to": None})
    if states[-1].status != "forgotten":
        states.append(State(events[-1].at, "forgotten"))
    return [State(s.since, s.status, s.superseded_by) for s in states]


def _replayed(history: list[_Event], created: str, valid: dict[str, str | None]) -> list[State]:
    """The states a relation's provenance rows say it went through after it was created."""
    states: list[State] = []
    status = "current"
    for e in history:
        at = max(e.at, created)
        if e.action == "forget":
            states.append(State(at, "forgotten"))
            status = "forgotten"
        elif e.action == "supersede" and status != "forgotten":
            payload = e.payload
            by, reason = payload.get("superseded_by"), payload.get("reason")
            states.append(State(at, "superseded", by if isinstance(by, str) else None,
                                reason if isinstance(reason, str) else None, **valid))
            status = "superseded"
        elif e.action in ("assert", "reassert") and status != "current":
            # memoose clears the supersession when a superseded fact is said again, and a
            # forgotten one said again is simply new.
            states.append(State(at, "current", **valid))
            status = "current"
    return states


def _description(description: Any, *procedure: Any) -> str:
    """The relation's description, or else its procedure (condition, advice, pitfall) in words."""
    description = text_of(description)
    if description:
        return description
    condition, advice, pitfall = (text_of(value).strip() for value in procedure)
    parts = []
    if condition or advice:
        parts.append(f"When {condition or 'taken'}: {advice or 'proceed'}.")
    if pitfall:
        parts.append(f"Avoid: {pitfall}.")
    return " ".join(parts)


def _deleted_fact(rid: str, history: list[_Event], removals: list[_Event]) -> FactRecord:
    """A relation memoose deleted (forget, an entity forgotten or merged): a tombstone, dates only."""
    first = history[0].at
    states = [State(first, "current")] + _replayed(history, first, {"valid_from": None, "valid_to": None})
    if states[-1].status != "forgotten":
        # Deleted with its entity, the relation has no forget row of its own: the removal that
        # followed its last change is the best-known time.
        later = [e.at for e in removals if e.at >= history[-1].at and e.kind == "entity"]
        states.append(State((later or [history[-1].at])[0], "forgotten"))
    return FactRecord(id=rid, subject=None, relation=None, object=None, states=states)


# -- contradictions, dismissals, ledger ----------------------------------------------------------

def _contradictions(source: SourceFile, events: list[_Event], facts: list[FactRecord]) -> list[ContradictionRecord]:
    if not source.has("contradictions", "id", "first_relation_id", "second_relation_id"):
        return []
    cols = ", ".join(source.column_or_null("contradictions", c)
                     for c in ("reason", "confidence", "created_at", "resolved_by"))
    by_id = {f.id: f for f in facts}
    marked = {e.ref_id: e.actor for e in events if e.action == "mark_contradiction"}
    records = []
    for row in source.rows(f"SELECT id, first_relation_id, second_relation_id, {cols} FROM contradictions"):
        cid, created = text_of(row["id"]), record_time_of(row["created_at"]) or EPOCH_RECORD_TIME
        pair = (text_of(row["first_relation_id"]), text_of(row["second_relation_id"]))
        for fid in pair:
            if fid not in by_id:  # deleted before provenance was kept: known only by this pair
                by_id[fid] = FactRecord(fid, None, None, None, [State(created, "forgotten")])
                facts.append(by_id[fid])
        record = ContradictionRecord(
            id=cid, facts=pair, reason=text_of(row["reason"]),
            confidence=min(1.0, max(0.0, number_or(row["confidence"], 0.5))),
            actor=marked.get(cid, TOOL), recorded_at=created,
        )
        _settle(record, text_of(row["resolved_by"]), [by_id[fid] for fid in pair])
        records.append(record)
    return records


def _settle(record: ContradictionRecord, resolved_by: str, pair: list[FactRecord]) -> None:
    """Resolution state: memoose's resolved_by, or memlens's rule that forgetting a fact settles it."""
    forgotten = [f for f in pair if f.states[-1].status == "forgotten"]
    if forgotten:
        record.reason = ""  # a reason may quote the forgotten fact
    if resolved_by:
        losers = [f for f in pair if f.states[-1].status == "superseded"] or pair
        moments = [s.since for f in losers for s in f.states if s.status == "superseded" and s.since >= record.recorded_at]
        record.resolved_at = min(moments) if moments else record.recorded_at
        if resolved_by.startswith("superseded_by:"):
            record.resolution = "superseded"
            record.resolution_reason = None if forgotten else losers[0].states[-1].reason
        else:
            record.resolution, record.resolution_reason = "dismissed", resolved_by
    elif forgotten:
        record.resolution = "forgotten"
        record.resolved_at = max(record.recorded_at, min(f.states[-1].since for f in forgotten))


def _quiet_contradicts_edges(graph: SourceGraph) -> None:
    """memoose copies a contradiction's reason onto a `contradicts` edge; it goes where the reason went."""
    forgotten = {f.id for f in graph.facts if f.states[-1].status == "forgotten"}
    quoted_forgotten = {f"contradiction:{c.id}" for c in graph.contradictions if forgotten.intersection(c.facts)}
    for fact in graph.facts:
        if fact.relation == "contradicts" and quoted_forgotten.intersection(fact.evidence):
            fact.description = ""


def _dismissals(events: list[_Event], facts: list[FactRecord]) -> list[DismissalRecord]:
    values: dict[tuple[str | None, str | None], list[FactRecord]] = defaultdict(list)
    for fact in facts:
        values[(fact.subject, fact.relation)].append(fact)
    records = []
    for e in events:
        if e.action != "dismiss":
            continue
        key, kind, content = _dismissal_key(e.ref_id, e.at, values)
        reason = e.payload.get("reason")
        records.append(DismissalRecord(key, kind, content, reason if isinstance(reason, str) else "", e.actor, e.at))
    return records


def _dismissal_key(
    key: str, at: str, values: dict[tuple[str | None, str | None], list[FactRecord]],
) -> tuple[str, str, str]:
    """memoose's candidate key as memlens keys it; a hotspot's contents are the values current then."""
    parts = key.split(":", 2)
    if len(parts) == 3 and parts[0] == "hotspot":
        subject, relation = parts[1], parts[2]
        covered = [f.id for f in values.get((subject, relation), []) if _status_at(f, at) == "current"]
        return f"hotspot:{short(subject)}:{relation}", "hotspot", content_of(covered)
    return key, parts[0] or "candidate", content_of(uuids_in(key) or [key])


def _status_at(fact: FactRecord, at: str) -> str | None:
    status = None
    for state in sorted(fact.states, key=lambda s: s.since):
        if state.since <= at:
            status = state.status
    return status


# memoose action -> (memlens action, memlens kind); anything else keeps its own name.
_ACTIONS = {
    ("create", "entity"): ("entity", "entity"), ("merge", "entity"): ("entity", "entity"),
    ("assert", "relation"): ("assert", "fact"), ("reassert", "relation"): ("reassert", "fact"),
    ("supersede", "relation"): ("supersede", "fact"), ("forget", "relation"): ("forget", "fact"),
    ("forget", "entity"): ("forget", "entity"), ("merge_entities", "entity"): ("merge", "entity"),
    ("mark_contradiction", "contradiction"): ("contest", "contradiction"),
    ("dismiss", "candidate"): ("dismiss", "dismissal"),
    ("declare_functional", "relation_name"): ("declare_functional", "relation"),
    ("add_entity_type", "entity_type"): ("add_type", "type"),
}


_KINDS = {"relation": "fact", "candidate": "dismissal", "relation_name": "relation", "entity_type": "type"}


def _ledger_event(e: _Event) -> LedgerEvent:
    """A provenance row as a ledger row: ids, names of relations and types, numbers; never text."""
    action, kind = _ACTIONS.get((e.action, e.kind)) or (e.action, _KINDS.get(e.kind, e.kind))
    refs = [e.ref_id] if as_uuid(e.ref_id) else []
    payload: dict[str, Any] = {"source_action": e.action} if action != e.action else {}
    if action == "supersede":
        said = e.payload
        by = said.get("superseded_by")
        refs += [by] if isinstance(by, str) and as_uuid(by) else []
        payload["automatic"] = "relation_id" in said  # memoose's functional ordering wrote it
    elif action == "contest":
        said = e.payload
        refs += [v for v in (said.get("first"), said.get("second")) if isinstance(v, str) and as_uuid(v)]
        if isinstance(said.get("confidence"), (int, float)):
            payload["confidence"] = said["confidence"]
    elif action == "merge":
        said = e.payload
        dropped = said.get("dropped")
        refs += [dropped] if isinstance(dropped, str) and as_uuid(dropped) else []
        if isinstance(said.get("relations_repointed"), int):
            payload["relations_repointed"] = said["relations_repointed"]
    elif action == "dismiss":
        refs = [i for i in uuids_in(e.ref_id) if i]
        payload["key"] = e.ref_id
    elif action == "declare_functional":
        payload["relation"] = e.ref_id
    elif action == "add_type":
        payload["type"] = e.ref_id
    return LedgerEvent(e.at, e.actor or TOOL, action, kind, refs, payload)
