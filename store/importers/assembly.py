"""Records read from another tool's store, assembled into a `memlens-snapshot/1` dict.

Each importer reads its tool's rows into these records; `build` sorts and derives them the way
memlens.store.snapshot.build does for a memlens store (docs/snapshot-format.md), so the viewer
cannot tell where a snapshot came from and `snapshot.load.load_into` can write it back as is.
"""
from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter
from typing import Any, NamedTuple

from ..snapshot.canonical import canonical_json
from ..snapshot.fact_record import fact_record, tombstone_record
from ..ids import all_usable, derived_id, usable_id
from ..maintenance import worklist_of_snapshot
from ..observations import OBSERVATION_POSITION
from ..snapshot import FORMAT, memlens_version, stats_of
from ..timefmt import build_time_fallback


class State(NamedTuple):
    """What the source believed about a fact from `since` (a record time) until the next state.

    A tuple, not a frozen dataclass: a sixth of the time to make, which for the 60,000 states of a
    10,000-entity memoose store is 0.04 s instead of 0.24."""

    since: str
    status: str
    superseded_by: str | None = None
    reason: str | None = None
    valid_from: str | None = None
    valid_to: str | None = None

    def same_as(self, other: State) -> bool:
        return (self.status, self.superseded_by, self.reason, self.valid_from, self.valid_to) == (
            other.status, other.superseded_by, other.reason, other.valid_from, other.valid_to)


@dataclass
class FactRecord:
    """One fact and its states over record time; a last state `forgotten` makes it a tombstone."""

    id: str
    subject: str | None
    relation: str | None
    object: str | None
    states: list[State]
    description: str = ""
    evidence: list[str] = field(default_factory=list)
    actor: str = ""
    reassertions: int = 0


@dataclass
class EntityRecord:
    id: str
    name: str
    type: str
    created_at: str
    updated_at: str
    description: str = ""
    merged_into: str | None = None
    merged_at: str | None = None
    observation_position: int | None = None   # an observation's place in its entity's list, from 1


@dataclass
class ContradictionRecord:
    id: str
    facts: tuple[str, str]
    reason: str
    confidence: float
    actor: str
    recorded_at: str
    resolved_at: str | None = None
    resolution: str | None = None  # superseded | retracted | dismissed | forgotten | merged
    resolution_reason: str | None = None


@dataclass
class DismissalRecord:
    key: str
    kind: str
    content: str
    reason: str
    actor: str
    at: str


@dataclass
class LedgerEvent:
    """One provenance row; `payload` holds ids and metadata only, never text from the source."""

    at: str
    actor: str
    action: str
    kind: str
    refs: list[str]
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass
class SourceGraph:
    """Everything one importer read from one store file."""

    tool: str
    file_name: str
    entities: list[EntityRecord] = field(default_factory=list)
    facts: list[FactRecord] = field(default_factory=list)
    contradictions: list[ContradictionRecord] = field(default_factory=list)
    dismissals: list[DismissalRecord] = field(default_factory=list)
    ledger: list[LedgerEvent] = field(default_factory=list)  # in the source's own order
    types: set[str] = field(default_factory=set)
    relations: dict[str, bool] = field(default_factory=dict)  # relation name -> functional


_FIRST_AT_ONE_INSTANT = {"entity": 0, "assert": 1}


def in_time_order(events: list[LedgerEvent]) -> list[LedgerEvent]:
    """Rebuilt provenance in record-time order; at one instant, things exist before they change."""
    ranked = sorted(enumerate(events), key=lambda pair: (pair[1].at, _FIRST_AT_ONE_INSTANT.get(pair[1].action, 2), pair[0]))
    return [event for _, event in ranked]


def collapse(states: list[State]) -> list[State]:
    """States in record-time order; of two at one instant the later said wins, repeats merge."""
    if len(states) < 2:
        return list(states)
    by_time: dict[str, State] = {}
    for state in states:
        by_time[state.since] = state
    kept: list[State] = []
    for since in sorted(by_time):
        if not kept or not kept[-1].same_as(by_time[since]):
            kept.append(by_time[since])
    return kept


def build(graph: SourceGraph) -> dict[str, Any]:
    """The snapshot of `graph`, sorted, counted and hashed like a memlens store's."""
    _replace_unusable_ids(graph)
    entities = sorted(_first_of_each(graph.entities), key=lambda e: (e.name, e.id))
    names = {e.id: e.name for e in entities}
    records = [r for r in _first_of_each(graph.facts) if _drawable(r, names)]
    fact_ids = {r.id for r in records}
    contradictions = sorted(
        (c for c in graph.contradictions if all(fid in fact_ids for fid in c.facts)),
        key=lambda c: (c.recorded_at, c.id),
    )
    named_in: dict[str, list[str]] = defaultdict(list)
    contested: set[str] = set()
    for c in contradictions:
        for fid in c.facts:
            named_in[fid].append(c.id)
            if c.resolved_at is None:
                contested.add(fid)
    relations = dict(graph.relations)
    facts = []
    for record in records:
        fact = _fact(record, names, fact_ids, relations, named_in, contested)
        facts.append(fact)
        if fact["relation"] is not None:
            relations.setdefault(fact["relation"], False)
    facts.sort(key=lambda f: (names.get(f["subject"], ""), f["relation"] or "", names.get(f["object"], ""), f["id"]))
    snapshot: dict[str, Any] = {
        "format": FORMAT,
        "dataset": f"{graph.tool}:{graph.file_name}",
        "generated_at": "",
        "hash": "",
        "memlens_version": memlens_version(),
        "ontology": {
            "types": sorted(graph.types | {e.type for e in entities}),
            "relations": [{"name": name, "functional": relations[name]} for name in sorted(relations)],
        },
        "entities": [_entity(e) for e in entities],
        "facts": facts,
        "contradictions": [_contradiction(c) for c in contradictions],
        "dismissals": _dismissals(graph.dismissals),
        "ledger": [
            {"seq": n, "at": e.at, "actor": e.actor, "action": e.action, "kind": e.kind,
             "refs": list(e.refs), "payload": dict(e.payload)}
            for n, e in enumerate(graph.ledger, start=1)
        ],
    }
    snapshot["stats"] = stats_of(snapshot)
    snapshot["maintenance"] = [c.as_dict() for c in worklist_of_snapshot(snapshot)]
    snapshot["generated_at"] = _newest_record_time(snapshot)
    snapshot["hash"] = content_hash(snapshot)
    return snapshot


def _replace_unusable_ids(graph: SourceGraph) -> None:
    """A source id that cannot be a memlens id (NUL, controls, 10,000 characters) becomes a stable
    derived one, everywhere the records name it; usable ids, nearly all of them, stay as they are."""
    if all_usable(_named_ids(graph)):
        return

    def fixed(raw: str | None) -> str | None:
        return raw if raw is None or usable_id(raw) else derived_id(graph.tool, "id", raw)

    for e in graph.entities:
        e.id, e.merged_into = fixed(e.id), fixed(e.merged_into)
    for f in graph.facts:
        f.id, f.subject, f.object = fixed(f.id), fixed(f.subject), fixed(f.object)
        f.states = [s if fixed(s.superseded_by) == s.superseded_by else
                    State(s.since, s.status, fixed(s.superseded_by), s.reason, s.valid_from, s.valid_to)
                    for s in f.states]
    for c in graph.contradictions:
        c.id, c.facts = fixed(c.id), (fixed(c.facts[0]), fixed(c.facts[1]))
    for event in graph.ledger:
        event.refs = [fixed(ref) for ref in event.refs]


def _named_ids(graph: SourceGraph) -> Iterator[Any]:
    """Every id the records name (None where they name none), to be checked all at once."""
    entities, facts, contradictions = graph.entities, graph.facts, graph.contradictions
    id_of, states_of = attrgetter("id"), attrgetter("states")
    return chain(
        map(id_of, entities), map(attrgetter("merged_into"), entities),
        map(id_of, facts), map(attrgetter("subject"), facts), map(attrgetter("object"), facts),
        map(attrgetter("superseded_by"), chain.from_iterable(map(states_of, facts))),
        map(id_of, contradictions), chain.from_iterable(map(attrgetter("facts"), contradictions)),
        chain.from_iterable(map(attrgetter("refs"), graph.ledger)),
    )


def content_hash(snapshot: dict[str, Any]) -> str:
    """A hash of what the snapshot says, not of when or by which memlens it was made (nor of its
    seal, which is added when it is written: see snapshot/seal.py)."""
    content = {k: v for k, v in snapshot.items() if k not in ("hash", "generated_at", "memlens_version", "seal")}
    # the canonical text the seal digests (store/snapshot/canonical.py): 0.35 s of the standard encoder's
    # at 10,000 memoose entities, about a tenth of `view --from memoose`
    return "sha256:" + hashlib.sha256(canonical_json(content)).hexdigest()


def _first_of_each(records: list[Any]) -> list[Any]:
    """A damaged file may hold one id twice (its key constraint lost): the first row stands."""
    seen: set[str] = set()
    return [r for r in records if not (r.id in seen or seen.add(r.id))]


def _entity(e: EntityRecord) -> dict[str, Any]:
    entity = {"id": e.id, "name": e.name, "type": e.type, "description": e.description,
              "created_at": e.created_at, "updated_at": e.updated_at,
              "merged_into": e.merged_into, "merged_at": e.merged_at}
    if e.observation_position is not None:
        entity[OBSERVATION_POSITION] = e.observation_position
    return entity


def _drawable(record: FactRecord, names: dict[str, str]) -> bool:
    """A tombstone, or a fact between two entities the file still holds (a damaged file may not)."""
    if not record.states:
        return False
    if collapse(record.states)[-1].status == "forgotten":
        return True
    return bool(record.relation) and record.subject in names and record.object in names


def _fact(
    record: FactRecord, names: dict[str, str], fact_ids: set[str], relations: dict[str, bool],
    named_in: dict[str, list[str]], contested: set[str],
) -> dict[str, Any]:
    # A successor the file no longer holds is named nowhere else: the pointer goes, the state stays.
    states = collapse([
        s if s.superseded_by is None or s.superseded_by in fact_ids else State(
            s.since, s.status, None, s.reason, s.valid_from, s.valid_to)
        for s in record.states
    ])
    if states[-1].status == "forgotten":
        subject = record.subject if record.subject in names else None
        return tombstone_record(record.id, subject, _history(states), states[-1].since, named_in.get(record.id, []))
    return fact_record(
        record.id, record.subject, record.relation, record.object, record.description, list(record.evidence),
        record.actor, bool(relations.get(record.relation, False)), _history(states), record.reassertions,
        record.id in contested, named_in.get(record.id, []),
    )


def _history(states: list[State]) -> list[dict[str, Any]]:
    return [
        {"from": s.since, "to": states[i + 1].since if i + 1 < len(states) else None, "status": s.status,
         "superseded_by": s.superseded_by, "reason": s.reason, "valid_from": s.valid_from, "valid_to": s.valid_to}
        for i, s in enumerate(states)
    ]


def _contradiction(c: ContradictionRecord) -> dict[str, Any]:
    return {"id": c.id, "facts": list(c.facts), "reason": c.reason, "confidence": c.confidence,
            "actor": c.actor, "recorded_at": c.recorded_at, "resolved_at": c.resolved_at,
            "resolution": c.resolution, "resolution_reason": c.resolution_reason}


def _dismissals(records: list[DismissalRecord]) -> list[dict[str, Any]]:
    """Oldest first; a candidate declined twice for the same contents keeps its latest reason."""
    latest: dict[tuple[str, str], DismissalRecord] = {}
    for d in sorted(records, key=lambda d: d.at):
        latest.pop((d.key, d.content), None)
        latest[(d.key, d.content)] = d
    return [{"key": d.key, "kind": d.kind, "content": d.content, "reason": d.reason, "actor": d.actor, "at": d.at}
            for d in latest.values()]



def _newest_record_time(snapshot: dict[str, Any]) -> str:
    """The newest record time anywhere in the snapshot, so the same file gives the same bytes."""
    times = [t for e in snapshot["entities"] for t in (e["created_at"], e["updated_at"], e["merged_at"])]
    times += [v[k] for f in snapshot["facts"] for v in f["history"] for k in ("from", "to")]
    times += [t for c in snapshot["contradictions"] for t in (c["recorded_at"], c["resolved_at"])]
    times += [d["at"] for d in snapshot["dismissals"]] + [row["at"] for row in snapshot["ledger"]]
    return max((t for t in times if t), default=None) or build_time_fallback()
