"""The data blocks the page's script reads: the snapshot, indexed and compacted for the browser.

The facts and the ledger are columns: one list per field (FACT_COLUMNS, LEDGER_COLUMNS), entry i
of each belonging to record i, so each field is mapped out of the snapshot in C. Entities,
versions and contradictions are rows (arrays) whose field names are listed once in `columns`.
References between records are list indexes, and record times are indexes into the sorted
`times` list (so the browser compares integers when it travels in record time). Actors and
ledger actions are indexes into `actors` and `actions`. A fact whose history is one open version
equal to the fact itself (most facts) has history null. The page decodes all this once, at load.
"""

from __future__ import annotations

from itertools import accumulate, chain, repeat
from operator import itemgetter
from typing import Any, Callable

from ..model.columns import FACT_FIELDS, Columns
from ..model.evidence import is_web_link
from ..model.layout import Layout
from ..model.ledger_targets import row_targets
from ..model.palette import TypeLook
from ..model.snapshot_index import UNKNOWN_LOOK
from ..model.worklist import dismissal_groups, worklist_groups
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
LEDGER_COLUMNS = ("seq", "at", "actor", "action", "refs", "refsEnd")
# the worklist and the dismissals, grouped by kind as the maintenance panel shows them (see
# maintenance_rows); a row's refs are ledger-style references (entity index, -(fact index + 1), id)
WORKLIST_COLUMNS = ("key", "summary", "refs")
DISMISSAL_COLUMNS = ("key", "reason", "actor", "at")
# what is read of each snapshot ledger row
_LEDGER_FIELDS = ("seq", "at", "actor", "action", "refs", "payload")


class _Indexes:
    """Position lookups for everything a row can point at."""

    def __init__(self, snapshot: dict[str, Any], facts: Columns, ledger: Columns, *, complete: bool = True) -> None:
        entities = Columns(snapshot["entities"], ("id", "type"))
        self.entity = {entity_id: i for i, entity_id in enumerate(entities["id"])}
        self.fact = {fact_id: i for i, fact_id in enumerate(facts["id"])}
        self.contradiction = {c["id"]: i for i, c in enumerate(snapshot.get("contradictions", []))}
        self.types = sorted(set(snapshot.get("ontology", {}).get("types", [])) | set(entities["type"]))
        self.type = {name: i for i, name in enumerate(self.types)}
        functional = {r["name"]: bool(r.get("functional")) for r in snapshot.get("ontology", {}).get("relations", [])}
        for relation, is_functional in set(zip(facts["relation"], facts["functional"])):
            if relation is not None:
                functional.setdefault(relation, bool(is_functional))
        self.relations = sorted(functional.items())
        self.relation = {name: i for i, (name, _) in enumerate(self.relations)}
        self.times = sorted(_record_times(snapshot) if complete else _ledger_times(ledger))
        self.time = {t: i for i, t in enumerate(self.times)}
        self.time[None] = self.time[""] = -1
        # actors and actions are listed as text; `*_of` map each value as the snapshot has it
        self.actors, self.actor_of = _named(set(facts["actor"]) | set(ledger["actor"]))
        self.actions, self.action_of = _named(set(ledger["action"]))
        # a ledger or maintenance reference: entity index, -(fact index + 1), or the id as given
        self.refs: dict[str, int] = {fid: -(i + 1) for fid, i in self.fact.items()}
        self.refs.update(self.entity)

    def at(self, value: str | None) -> int:
        return self.time[value]


def _named(values: set[Any]) -> tuple[list[str], dict[Any, int]]:
    """The values as sorted text, and each value's index in it (None: -1)."""
    values.discard(None)
    names = sorted({str(v) for v in values})
    index = {name: i for i, name in enumerate(names)}
    return names, {**{v: index[str(v)] for v in values}, None: -1}


def _ledger_times(ledger: Columns) -> list[str]:
    """In a memlens store every write is one ledger row, so the ledger's times are all the record
    times there are; a snapshot for which that does not hold (an importer's) fails a lookup.
    Kept in ledger order (near sorted already, which the sort then costs little), without repeats."""
    times = dict.fromkeys(ledger["at"])
    times.pop(None, None)
    return list(times)


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
_VERSION_FIELDS = ("from", "to", "status", "superseded_by", "reason", "valid_from", "valid_to")
_version_fields = itemgetter(*_VERSION_FIELDS)
_NONE: list[Any] = []   # shared by the many facts with no links or contradictions; nothing mutates it


def _fact_columns(facts: Columns, ix: _Indexes) -> dict[str, list[Any]]:
    """The facts as one list per field (see FACT_COLUMNS): most are a lookup mapped over a column
    in C instead of a Python loop building a row per fact."""
    time, entity, fact, default = ix.time.__getitem__, ix.entity.get, ix.fact.get, repeat(-1)
    evidence = [e if e.__class__ is list and all(map(_is_str, e)) else [str(i) for i in e or ()]
                for e in facts["evidence"]]
    return {
        "id": facts["id"],
        "subject": list(map(entity, facts["subject"], default)),
        "relation": list(map(ix.relation.get, facts["relation"], default)),
        "object": list(map(entity, facts["object"], default)),
        "status": facts["status"],
        "supersededBy": list(map(fact, facts["superseded_by"], default)),
        "reason": facts["reason"],
        "contested": list(map(bool, facts["contested"])),
        "validFrom": facts["valid_from"],
        "validTo": facts["valid_to"],
        "recordedAt": list(map(time, facts["recorded_at"])),
        "retiredAt": list(map(time, facts["retired_at"])),
        "actor": list(map(ix.actor_of.__getitem__, facts["actor"])),
        "description": facts["description"],
        "evidence": evidence,
        "links": [[i for i, item in enumerate(e) if is_web_link(item)] if e else _NONE for e in evidence],
        "reassertions": [int(count or 0) for count in facts["reassertions"]],
        "history": _histories(facts, ix),
        "contradictions": [[ix.contradiction[c] for c in named if c in ix.contradiction] if named else _NONE
                           for named in facts["contradictions"]],
    }


def _histories(facts: Columns, ix: _Indexes) -> list[list[list[Any]] | None]:
    """Each fact's versions as rows (HISTORY_COLUMNS); None for a fact whose history is one open
    version equal to the fact itself (most facts), which the page rebuilds."""
    time, fact = ix.time, ix.fact.get
    histories: list[list[list[Any]] | None] = []
    for versions, state in zip(facts["history"], zip(facts["recorded_at"], repeat(None), facts["status"],
                                                     facts["superseded_by"], facts["reason"],
                                                     facts["valid_from"], facts["valid_to"])):
        if not versions or (len(versions) == 1 and _version_of(versions[0]) == state):
            histories.append(None)
            continue
        rows = []
        for version in versions:
            since, until, status, superseded_by, reason, valid_from, valid_to = _version_of(version)
            rows.append([time[since], time[until], status, fact(superseded_by, -1) if superseded_by else -1,
                         reason, valid_from, valid_to])
        histories.append(rows)
    return histories


def _version_of(version: dict[str, Any]) -> tuple[Any, ...]:
    """A version's fields in one C call; a version that lacks some (an importer's) reads them as None."""
    try:
        return _version_fields(version)
    except KeyError:
        return tuple(version.get(name) for name in _VERSION_FIELDS)


def _contradiction_rows(snapshot: dict[str, Any], ix: _Indexes) -> list[list[Any]]:
    return [[c["id"], [ix.fact.get(f, -1) for f in c.get("facts", [])], c.get("reason"), c.get("confidence"),
             c.get("actor"), ix.at(c.get("recorded_at")), ix.at(c.get("resolved_at")), c.get("resolution"),
             c.get("resolution_reason")] for c in snapshot.get("contradictions", [])]


def _ledger_columns(ledger: Columns, ix: _Indexes) -> dict[str, list[Any]]:
    """The ledger as one list per field (see LEDGER_COLUMNS). The rows' references (entity index,
    -(fact index + 1), or an id as given) are one flat list; row i's are those from
    refsEnd[i - 1] (0 for the first row) up to refsEnd[i]. A row about a relation or a type names
    it instead (ledger_targets.row_targets)."""
    targets = [refs if refs else row_targets(action, refs, payload)
               for refs, action, payload in zip(ledger["refs"], ledger["action"], ledger["payload"])]
    flat = list(chain.from_iterable(t for t in targets if t))
    return {
        "seq": ledger["seq"],
        "at": list(map(ix.time.__getitem__, ledger["at"])),
        "actor": list(map(ix.actor_of.__getitem__, ledger["actor"])),
        "action": list(map(ix.action_of.__getitem__, ledger["action"])),
        "refs": list(map(ix.refs.get, flat, flat)),
        "refsEnd": list(accumulate(len(t) if t else 0 for t in targets)),
    }


def maintenance_rows(snapshot: dict[str, Any], refs: dict[str, int]) -> dict[str, list[list[Any]]]:
    """The worklist and the dismissals as [kind, rows] pairs in the panel's group order: the page
    renders a group's first rows in HTML and pages in the rest from these."""
    def reference(ref: Any) -> Any:
        return refs.get(ref, ref)

    return {
        "worklist": [[g.kind, [[str(i.get("key")), str(i.get("summary") or ""), [reference(r) for r in i.get("refs") or ()]]
                               for i in g.rows]] for g in worklist_groups(snapshot)],
        "dismissals": [[g.kind, [[str(d.get("key")), str(d.get("reason") or ""), str(d.get("actor") or ""),
                                  str(d.get("at") or "")] for d in g.rows]] for g in dismissal_groups(snapshot)],
    }


def _overview(snapshot: dict[str, Any], ix: _Indexes, layout: Layout) -> list[int]:
    drawn = [ix.entity[eid] for eid in layout.ranking[:DRAW_LIMIT]]
    if len(snapshot["entities"]) <= DRAW_LIMIT:  # small stores: merged ones too, for past views
        drawn += [ix.entity[e["id"]] for e in snapshot["entities"] if e.get("merged_into")]
    return drawn


def _valid_times(facts: Columns) -> list[str]:
    values = set(facts["valid_from"]) | set(facts["valid_to"])
    return sorted(v for v in values if v)


def page_data(snapshot: dict[str, Any], layout: Layout, *, show_superseded: bool,
              entity_pages: dict[str, str] | None = None,
              type_looks: dict[str, TypeLook] | None = None) -> dict[str, Any]:
    """Everything the page's script needs, as one plain JSON-able dict (the model of the blocks).

    `entity_pages` (entity id -> page path relative to the page) adds a `page` column, so a
    site's graph can link each entity to its own page.
    """
    blocks = _blocks(snapshot, layout, show_superseded, entity_pages, None, lambda value: value, type_looks)
    return {**blocks[MAIN_BLOCK], "facts": blocks[FACTS_BLOCK], "ledger": blocks[LEDGER_BLOCK]}


def page_blocks(snapshot: dict[str, Any], layout: Layout, *, show_superseded: bool,
                entity_pages: dict[str, str] | None = None, fact_columns: Columns | None = None,
                type_looks: dict[str, TypeLook] | None = None) -> dict[str, str]:
    """The same data as `page_data`, as JSON texts keyed by the id of the page element holding them.

    The facts and the ledger (most of the bytes) have blocks of their own: each is encoded as soon
    as its rows exist, so one section's rows are alive at a time, and the page can leave the ledger
    undecoded until the provenance tab is opened.
    """
    return _blocks(snapshot, layout, show_superseded, entity_pages, fact_columns, script_json, type_looks)


def _blocks(snapshot: dict[str, Any], layout: Layout, show_superseded: bool, entity_pages: dict[str, str] | None,
            fact_columns: Columns | None, encode: Callable[[Any], Any],
            type_looks: dict[str, TypeLook] | None) -> dict[str, Any]:
    facts = fact_columns or Columns(snapshot["facts"], FACT_FIELDS)
    ledger = Columns(snapshot.get("ledger", []), _LEDGER_FIELDS)
    try:
        ix = _Indexes(snapshot, facts, ledger, complete=False)
        entities, fact_block = _entity_rows(snapshot, ix, layout, entity_pages), encode(_fact_columns(facts, ix))
        contradictions = _contradiction_rows(snapshot, ix)
    except KeyError:  # a record time the ledger does not have: index every time there is
        ix = _Indexes(snapshot, facts, ledger)
        entities, fact_block = _entity_rows(snapshot, ix, layout, entity_pages), encode(_fact_columns(facts, ix))
        contradictions = _contradiction_rows(snapshot, ix)
    ledger_block = encode(_ledger_columns(ledger, ix))
    main = {
        "meta": {"format": snapshot.get("format"), "dataset": snapshot.get("dataset"),
                 "generatedAt": snapshot.get("generated_at"), "hash": snapshot.get("hash"),
                 "stats": snapshot.get("stats", {})},
        "columns": {"entities": ENTITY_COLUMNS if entity_pages is None else SITE_ENTITY_COLUMNS,
                    "history": HISTORY_COLUMNS, "contradictions": CONTRADICTION_COLUMNS,
                    "worklist": WORKLIST_COLUMNS, "dismissals": DISMISSAL_COLUMNS},
        # each type's look, as viewer/model/palette.py assigned it (SnapshotIndex.type_looks)
        "types": [{"name": name, "color": look.color, "shape": look.shape}
                  for name, look in ((name, (type_looks or {}).get(name) or UNKNOWN_LOOK) for name in ix.types)],
        "relations": [{"name": name, "functional": functional} for name, functional in ix.relations],
        "actors": ix.actors,
        "actions": ix.actions,
        "times": ix.times,
        "validTimes": _valid_times(facts),
        "entities": entities,
        "contradictions": contradictions,
        "maintenance": maintenance_rows(snapshot, ix.refs),
        "overview": _overview(snapshot, ix, layout),
        "drawLimit": DRAW_LIMIT,
        "showSuperseded": show_superseded,
    }
    return {MAIN_BLOCK: encode(main), FACTS_BLOCK: fact_block, LEDGER_BLOCK: ledger_block}
