"""The data blocks the page's script reads: the snapshot, indexed and compacted for the browser.

Rows are arrays whose field names are listed once in `columns`, references between rows are
array indexes, and record times are indexes into the sorted `times` list (so the browser compares
integers when it travels in record time). Actors and ledger actions are indexes into `actors`
and `actions`. A fact whose history is one open version equal to the fact itself (most facts)
carries `history: null`. The page decodes this into objects once, at load.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Callable

from .evidence import is_web_link
from .layout import Layout
from .palette import type_color
from .script_json import script_json

DRAW_LIMIT = 1500   # nodes drawn at first; vis-network stays fluid below this, the rest is on demand
MERGED_OFFSET = 36.0
# the ids of the page elements that hold the data: the facts and the ledger have blocks of their own
MAIN_BLOCK, FACTS_BLOCK, LEDGER_BLOCK = "memlens-data", "memlens-facts", "memlens-ledger"

ENTITY_COLUMNS = ("id", "name", "type", "description", "createdAt", "updatedAt", "mergedInto",
                  "mergedAt", "x", "y", "degree")
SITE_ENTITY_COLUMNS = ENTITY_COLUMNS + ("page",)
FACT_COLUMNS = ("id", "subject", "relation", "object", "status", "supersededBy", "reason", "contested",
                "validFrom", "validTo", "recordedAt", "retiredAt", "actor", "description", "evidence",
                "links", "reassertions", "history", "contradictions")
HISTORY_COLUMNS = ("from", "to", "status", "supersededBy", "reason", "validFrom", "validTo")
CONTRADICTION_COLUMNS = ("id", "facts", "reason", "confidence", "actor", "recordedAt", "resolvedAt",
                         "resolution", "resolutionReason")
# actor and action are indexes into the `actors` and `actions` lists: 40,000 ledger rows repeat a
# handful of each, and spelling them out every time was a fifth of the page
LEDGER_COLUMNS = ("seq", "at", "actor", "action", "refs")


class _Indexes:
    """Position lookups for everything a row can point at."""

    def __init__(self, snapshot: dict[str, Any], *, complete: bool = True) -> None:
        entities, facts, ledger = snapshot["entities"], snapshot["facts"], snapshot.get("ledger", [])
        self.entity = {entity_id: i for i, entity_id in enumerate(_column(entities, "id"))}
        self.fact = {fact_id: i for i, fact_id in enumerate(_column(facts, "id"))}
        self.contradiction = {c["id"]: i for i, c in enumerate(snapshot.get("contradictions", []))}
        self.types = sorted(set(snapshot.get("ontology", {}).get("types", [])) | set(_column(entities, "type")))
        self.type = {name: i for i, name in enumerate(self.types)}
        functional = {r["name"]: bool(r.get("functional")) for r in snapshot.get("ontology", {}).get("relations", [])}
        for relation, is_functional in set(zip(_column(facts, "relation"), _column(facts, "functional"))):
            if relation is not None:
                functional.setdefault(relation, bool(is_functional))
        self.relations = sorted(functional.items())
        self.relation = {name: i for i, (name, _) in enumerate(self.relations)}
        self.times = sorted(_record_times(snapshot) if complete else _ledger_times(snapshot))
        self.time = {t: i for i, t in enumerate(self.times)}
        self.time[None] = self.time[""] = -1
        actors = set(_column(facts, "actor")) | set(_column(ledger, "actor"))
        actors.discard(None)
        self.actors = sorted(set(map(str, actors)))
        self.actor = {name: i for i, name in enumerate(self.actors)}
        self.actions = sorted(set(map(str, set(_column(ledger, "action")))))
        self.action = {name: i for i, name in enumerate(self.actions)}
        # a ledger or maintenance reference: entity index, -(fact index + 1), or the id as given
        self.refs: dict[str, int] = {fid: -(i + 1) for fid, i in self.fact.items()}
        self.refs.update(self.entity)

    def at(self, value: str | None) -> int:
        return self.time[value]

    def ref(self, value: str) -> int | str:
        return self.refs.get(value, value)


def _column(records: list[dict[str, Any]], key: str) -> list[Any]:
    """`key` of every record, read in C; a record that lacks it (an importer's) reads None."""
    try:
        return list(map(itemgetter(key), records))
    except KeyError:
        return [record.get(key) for record in records]


def _ledger_times(snapshot: dict[str, Any]) -> set[str]:
    """In a memlens store every write is one ledger row, so the ledger's times are all the record
    times there are; a snapshot for which that does not hold (an importer's) fails a lookup."""
    times = set(_column(snapshot.get("ledger", []), "at"))
    times.discard(None)
    return times


def _record_times(snapshot: dict[str, Any]) -> set[str]:
    entities, facts = snapshot["entities"], snapshot["facts"]
    contradictions = snapshot.get("contradictions", [])
    times: set[Any] = set()
    for key in ("created_at", "updated_at", "merged_at"):
        times.update([e.get(key) for e in entities])
    for key in ("recorded_at", "retired_at"):
        times.update([f.get(key) for f in facts])
    versions = [v for f in facts for v in f.get("history") or ()]
    times.update([v.get("from") for v in versions])
    times.update([v.get("to") for v in versions])
    for key in ("recorded_at", "resolved_at"):
        times.update([c.get(key) for c in contradictions])
    times.update([row.get("at") for row in snapshot.get("ledger", [])])
    times.discard(None)
    times.discard("")
    return times


def _entity_rows(snapshot: dict[str, Any], ix: _Indexes, layout: Layout,
                 pages: dict[str, str] | None) -> list[list[Any]]:
    rows = []
    for entity in snapshot["entities"]:
        target = entity.get("merged_into")
        if entity["id"] in layout.positions:
            x, y = layout.positions[entity["id"]]
        else:  # merged entities are only drawn in the past; put them beside what absorbed them
            tx, ty = layout.positions.get(target, (0.0, 0.0))
            x, y = round(tx + MERGED_OFFSET, 1), round(ty + MERGED_OFFSET, 1)
        row = [entity["id"], entity["name"], ix.type[entity["type"]], entity.get("description") or "",
               ix.at(entity.get("created_at")), ix.at(entity.get("updated_at")),
               ix.entity.get(target, -1) if target else -1, ix.at(entity.get("merged_at")),
               x, y, layout.degree.get(entity["id"], 0)]
        if pages is not None:
            row.append(pages.get(entity["id"]))
        rows.append(row)
    return rows


_is_str = str.__instancecheck__
_FACT_FIELDS = ("id", "subject", "relation", "object", "status", "superseded_by", "reason", "contested",
                "valid_from", "valid_to", "recorded_at", "retired_at", "actor", "description", "evidence",
                "reassertions", "history", "contradictions")
_VERSION_FIELDS = ("from", "to", "status", "superseded_by", "reason", "valid_from", "valid_to")
_fact_fields = itemgetter(*_FACT_FIELDS)
_version_fields = itemgetter(*_VERSION_FIELDS)


def _fields(getter: Callable[[dict[str, Any]], tuple[Any, ...]], names: tuple[str, ...],
            item: dict[str, Any]) -> tuple[Any, ...]:
    """All of `names` in one C call; a record that lacks some (an importer's) reads them as None."""
    try:
        return getter(item)
    except KeyError:
        return tuple(item.get(name) for name in names)


def _fact_rows(snapshot: dict[str, Any], ix: _Indexes) -> list[list[Any]]:
    # the hottest loop of a build (30,000 facts): one itemgetter call per record instead of a
    # dict.get() per field, and lookups bound to locals
    time, entity, fact_index, relation_index = ix.time, ix.entity, ix.fact, ix.relation
    actor_index, contradiction_index = ix.actor, ix.contradiction
    rows = []
    for fact in snapshot["facts"]:
        (fid, subject, relation, obj, status, superseded_by, reason, contested, valid_from, valid_to,
         recorded_at, retired_at, actor, description, evidence, reassertions, versions,
         contradictions) = _fields(_fact_fields, _FACT_FIELDS, fact)
        if not evidence:
            evidence = []
        elif not all(map(_is_str, evidence)):
            evidence = [str(e) for e in evidence]
        history: list[list[Any]] | None = None
        if versions:
            first = _fields(_version_fields, _VERSION_FIELDS, versions[0])
            # one open version equal to the fact itself (most facts): the page rebuilds it
            if not (len(versions) == 1 and first[1] is None and first[0] == recorded_at
                    and first[2:] == (status, superseded_by, reason, valid_from, valid_to)):
                history = []
                for version in versions:
                    v_from, v_to, v_status, v_by, v_reason, v_valid_from, v_valid_to = \
                        _fields(_version_fields, _VERSION_FIELDS, version)
                    history.append([time[v_from], time[v_to], v_status, fact_index.get(v_by, -1) if v_by else -1,
                                    v_reason, v_valid_from, v_valid_to])
        rows.append([
            fid, entity.get(subject, -1) if subject else -1,
            relation_index[relation] if relation is not None else -1, entity.get(obj, -1) if obj else -1,
            status, fact_index.get(superseded_by, -1) if superseded_by else -1, reason, bool(contested),
            valid_from, valid_to, time[recorded_at], time[retired_at],
            actor_index[str(actor)] if actor is not None else -1,
            description, evidence, [i for i, e in enumerate(evidence) if is_web_link(e)] if evidence else [],
            int(reassertions or 0), history,
            [contradiction_index[c] for c in contradictions if c in contradiction_index] if contradictions else [],
        ])
    return rows


def _contradiction_rows(snapshot: dict[str, Any], ix: _Indexes) -> list[list[Any]]:
    return [[c["id"], [ix.fact.get(f, -1) for f in c.get("facts", [])], c.get("reason"), c.get("confidence"),
             c.get("actor"), ix.at(c.get("recorded_at")), ix.at(c.get("resolved_at")), c.get("resolution"),
             c.get("resolution_reason")] for c in snapshot.get("contradictions", [])]


_LEDGER_FIELDS = ("seq", "at", "actor", "action", "refs")
_ledger_fields = itemgetter(*_LEDGER_FIELDS)


def _ledger_rows(snapshot: dict[str, Any], ix: _Indexes) -> list[list[Any]]:
    time, ref, actors, actions = ix.time, ix.refs.get, ix.actor, ix.action
    rows = []
    for row in snapshot.get("ledger", []):
        seq, at, actor, action, targets = _fields(_ledger_fields, _LEDGER_FIELDS, row)
        rows.append([seq, time[at], actors[str(actor)] if actor is not None else -1, actions[str(action)],
                     list(map(ref, targets, targets)) if targets else []])
    return rows


def _overview(snapshot: dict[str, Any], ix: _Indexes, layout: Layout) -> list[int]:
    drawn = [ix.entity[eid] for eid in layout.ranking[:DRAW_LIMIT]]
    if len(snapshot["entities"]) <= DRAW_LIMIT:  # small stores: merged ones too, for past views
        drawn += [ix.entity[e["id"]] for e in snapshot["entities"] if e.get("merged_into")]
    return drawn


def _valid_times(snapshot: dict[str, Any]) -> list[str]:
    values = {v for f in snapshot["facts"] for v in (f.get("valid_from"), f.get("valid_to")) if v}
    return sorted(values)


def page_data(snapshot: dict[str, Any], layout: Layout, *, show_superseded: bool,
              entity_pages: dict[str, str] | None = None) -> dict[str, Any]:
    """Everything the page's script needs, as one plain JSON-able dict (the model of the blocks).

    `entity_pages` (entity id -> page path relative to the page) adds a `page` column, so a
    site's graph can link each entity to its own page.
    """
    blocks = _blocks(snapshot, layout, show_superseded, entity_pages, lambda value: value)
    return {**blocks[MAIN_BLOCK], "facts": blocks[FACTS_BLOCK], "ledger": blocks[LEDGER_BLOCK]}


def page_blocks(snapshot: dict[str, Any], layout: Layout, *, show_superseded: bool,
                entity_pages: dict[str, str] | None = None) -> dict[str, str]:
    """The same data as `page_data`, as JSON texts keyed by the id of the page element holding them.

    The facts and the ledger (most of the bytes) have blocks of their own: each is encoded as soon
    as its rows exist, so one section's rows are alive at a time, and the page can leave the ledger
    undecoded until the provenance tab is opened.
    """
    return _blocks(snapshot, layout, show_superseded, entity_pages, script_json)


def _blocks(snapshot: dict[str, Any], layout: Layout, show_superseded: bool,
            entity_pages: dict[str, str] | None, encode: Callable[[Any], Any]) -> dict[str, Any]:
    try:
        ix = _Indexes(snapshot, complete=False)
        entities, facts = _entity_rows(snapshot, ix, layout, entity_pages), encode(_fact_rows(snapshot, ix))
        contradictions = _contradiction_rows(snapshot, ix)
    except KeyError:  # a record time the ledger does not have: index every time there is
        ix = _Indexes(snapshot)
        entities, facts = _entity_rows(snapshot, ix, layout, entity_pages), encode(_fact_rows(snapshot, ix))
        contradictions = _contradiction_rows(snapshot, ix)
    ledger = encode(_ledger_rows(snapshot, ix))
    main = {
        "meta": {"format": snapshot.get("format"), "dataset": snapshot.get("dataset"),
                 "generatedAt": snapshot.get("generated_at"), "hash": snapshot.get("hash"),
                 "stats": snapshot.get("stats", {})},
        "columns": {"entities": ENTITY_COLUMNS if entity_pages is None else SITE_ENTITY_COLUMNS,
                    "facts": FACT_COLUMNS, "history": HISTORY_COLUMNS,
                    "contradictions": CONTRADICTION_COLUMNS, "ledger": LEDGER_COLUMNS},
        "types": [{"name": name, "color": type_color(name)} for name in ix.types],
        "relations": [{"name": name, "functional": functional} for name, functional in ix.relations],
        "actors": ix.actors,
        "actions": ix.actions,
        "times": ix.times,
        "validTimes": _valid_times(snapshot),
        "entities": entities,
        "contradictions": contradictions,
        "overview": _overview(snapshot, ix, layout),
        "drawLimit": DRAW_LIMIT,
        "showSuperseded": show_superseded,
    }
    return {MAIN_BLOCK: encode(main), FACTS_BLOCK: facts, LEDGER_BLOCK: ledger}
