"""The page's data blocks: one wire format, written and read back here (and read by static/memory.js).

A report carries the snapshot it was rendered from in five blocks (six for a sealed snapshot),
`<script type="application/gzip" id=... data-encoding="base64">` elements whose text is the base64
of a deterministic gzip of one JSON object: MAIN_BLOCK (everything but the facts, the ledger and the
maintenance lists), FACTS_BLOCK, TEXTS_BLOCK (the facts' descriptions and evidence, which the page
reads after its first draw), LEDGER_BLOCK (read when the provenance tab is first shown),
MAINTENANCE_BLOCK (the worklist and the dismissals, read when the maintenance panel pages in more
rows: at 100,000 entities without evidence they were 38 of the main block's 41 MB of JSON, parsed
before the first draw) and, for a sealed snapshot, SEAL_BLOCK (its seal, which the page never
reads). Every block carries `"version": PAGE_DATA_VERSION`, which both decoders check. One more,
TIMELINES_BLOCK, is no part of the snapshot: the drawings of the timelines the page shows folded
(anchor -> markup), which it draws on request.

The blocks are built for the browser and lose nothing:
- The facts, the ledger, the dismissals and the worklist are columns: one list per field, entry i
  of each belonging to record i (so each field is mapped out of the snapshot in C). Entities,
  versions and contradictions are rows whose field names are listed once in `columns`.
- References between records are list indexes (-1: none); record times are indexes into the
  sorted `times` list, so the browser compares integers when it travels in record time; actors,
  ledger actions and kinds are indexes into `actors`, `actions` and `kinds`. A ledger or worklist
  reference is an entity index, -(fact index + 1), or the id as given. The ledger's seq is stored
  as steps from the row before, and each row's reference count instead of where its references end.
- Entity and fact ids are packed (`entityIds`, the facts' `ids`): the base64 of each uuid's 16
  bytes, and [index, id] for any id that is no uuid.
- A fact whose history is one open version equal to the fact itself (most facts) has history null,
  and a worklist row whose content is maintenance.content_of(its refs) (every row maintenance
  makes) has content null (from memlens-page/2; the decoder here still reads /1).
- `meta` is the snapshot's top level (format, dataset, hash, ontology, stats, ...) as it is, and
  `keys` the order of the snapshot's keys.
- A record those columns cannot say exactly (a reference to an id the snapshot lacks, a time that
  is no record time, a field too many or too few: things a hand-made or damaged snapshot may hold)
  is also kept whole in its part's `raw` list as [index, record]; the page reads the columns only.

So `decode(blocks) == snapshot`, which `read_report` relies on to give back the snapshot a report
was made from: what `memlens diff`, `verify` and `import --from memlens` read from a bundle.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import struct
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from itertools import accumulate, chain, repeat
from operator import is_, itemgetter, methodcaller, sub
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

import orjson

from memlens.store.errors import BundleError
from memlens.store.json_input import NotJson, ParseBudget
from memlens.store.maintenance import content_of
from memlens.store.observations import OBSERVATION_POSITION
from memlens.store.confined import UntrustedFileError, read_bundle_file

from ..model.columns import FACT_FIELDS, Columns
from ..model.palette import TypeLook
from ..model.snapshot_index import UNKNOWN_LOOK
from ..model.worklist import dismissal_groups, worklist_groups

if TYPE_CHECKING:  # numpy comes with the layout; reading a report back needs neither
    from ..model.layout import Layout

PAGE_DATA_VERSION = "memlens-page/2"
# what the decoder here also reads: /1 said every worklist row's content (/2 leaves out what it
# derives) and kept the maintenance lists in the main block
FIRST_VERSION = "memlens-page/1"
READABLE_VERSIONS = (FIRST_VERSION, PAGE_DATA_VERSION)
DRAW_LIMIT = 1500   # nodes drawn at first; vis-network stays fluid below this, the rest is on demand
MERGED_OFFSET = 36.0
# the ids of the page elements that hold the data: the facts, their texts and the ledger have blocks of their own
MAIN_BLOCK, FACTS_BLOCK, TEXTS_BLOCK, LEDGER_BLOCK = "memlens-data", "memlens-facts", "memlens-texts", "memlens-ledger"
MAINTENANCE_BLOCK = "memlens-maintenance"
# the snapshot's seal (snapshot/seal.py), which only `memlens verify` reads: 6.7 MB of JSON at
# 100,000 entities that the page parsed before its first draw when it was part of `meta`
SEAL_BLOCK = "memlens-seal"
BLOCKS = (MAIN_BLOCK, FACTS_BLOCK, TEXTS_BLOCK, LEDGER_BLOCK, MAINTENANCE_BLOCK)   # in every page
SNAPSHOT_BLOCKS = (*BLOCKS, SEAL_BLOCK)   # what reading a snapshot back takes: the seal's where there is one
TIMELINES_BLOCK = "memlens-timelines"
# what the page around the data is drawn from besides the snapshot, which only `memlens verify` reads
# (to draw the page again and compare): the code that drew it and the changes its panel shows
PAGE_BLOCK = "memlens-page"
BLOCK_TYPE = "application/gzip"
# zlib's level 4: at 100,000 entities the blocks are 23.4 MB in 1.0 s of CPU; level 6, 22.3 MB in
# 2.2 s; level 1, 26.1 MB in 0.7 s (and the worker thread does it while the page is rendered)
COMPRESSION_LEVEL = 4

# `observation`: an observation's place in its entity's list (null for an entity); x and y are null for
# an observation, which is listed under its entity and never drawn
ENTITY_COLUMNS = ("name", "type", "description", "createdAt", "updatedAt", "mergedInto", "mergedAt", "x", "y",
                  "degree", "observation")
SITE_ENTITY_COLUMNS = ENTITY_COLUMNS + ("page",)
FACT_COLUMNS = ("subject", "relation", "object", "status", "supersededBy", "reason", "contested",
                "validFrom", "validTo", "recordedAt", "retiredAt", "actor", "reassertions", "history",
                "contradictions")
# the facts' text, in a block of its own: 40% of the facts' bytes, and no part of the first draw
TEXT_COLUMNS = ("description", "evidence")
HISTORY_COLUMNS = ("from", "to", "status", "supersededBy", "reason", "validFrom", "validTo")
CONTRADICTION_COLUMNS = ("id", "facts", "reason", "confidence", "actor", "recordedAt", "resolvedAt",
                         "resolution", "resolutionReason")
# actor, action and kind are indexes into the `actors`, `actions` and `kinds` lists: 40,000 ledger
# rows repeat a handful of each, and spelling them out every time was a fifth of the page
LEDGER_COLUMNS = ("seqStep", "at", "actor", "action", "kind", "refs", "refsCount", "payload")
DISMISSAL_COLUMNS = ("key", "kind", "content", "reason", "actor", "at")

# the snapshot's records, field by field, as docs/snapshot-format.md lists them
ENTITY_FIELDS = ("id", "name", "type", "description", "created_at", "updated_at", "merged_into", "merged_at")
VERSION_FIELDS = ("from", "to", "status", "superseded_by", "reason", "valid_from", "valid_to")
# what a version a merge brought says besides (store/bundle_merge.py): when it was decided where it
# was, and the seal of the bundle that brought it; its history row ends with them
MERGED_VERSION_FIELDS = ("judged_at", "bundle")
# where a merge brought a fact from: the facts block's `origin` column, [bundle, dataset, recorded_at]
ORIGIN_FIELDS = ("bundle", "dataset", "recorded_at")
CONTRADICTION_FIELDS = ("id", "facts", "reason", "confidence", "actor", "recorded_at", "resolved_at",
                        "resolution", "resolution_reason")
LEDGER_FIELDS = ("seq", "at", "actor", "action", "kind", "refs", "payload")
DISMISSAL_FIELDS = DISMISSAL_COLUMNS
WORKLIST_FIELDS = ("key", "kind", "summary", "refs", "content")
# the snapshot's lists that are encoded record by record; everything else at its top level is `meta`
LISTS = ("entities", "facts", "contradictions", "dismissals", "maintenance", "ledger")


class BundleUnreadable(BundleError):
    """A report or site that memlens cannot read back: missing, damaged, or not made by this memlens."""


# -- encoding: snapshot -> the blocks' JSON model -----------------------------------------------------

class _SnapshotColumns:
    """The snapshot's entities, facts and ledger read as columns, once."""

    def __init__(self, snapshot: dict[str, Any], facts: Columns | None) -> None:
        self.entities = Columns(snapshot["entities"], ENTITY_FIELDS)
        self.facts = facts or Columns(snapshot["facts"], FACT_FIELDS)
        self.ledger = Columns(snapshot.get("ledger", []), LEDGER_FIELDS)


class _Indexes:
    """Position lookups for everything a row can point at. Record times are indexes into every
    record time there is; any other value (an empty string) reads -1."""

    def __init__(self, snapshot: dict[str, Any], read: _SnapshotColumns) -> None:
        entities, facts, ledger = read.entities, read.facts, read.ledger
        self.entity = {entity_id: i for i, entity_id in enumerate(entities["id"])}
        self.fact = {fact_id: i for i, fact_id in enumerate(facts["id"])}
        self.contradiction = {c["id"]: i for i, c in enumerate(snapshot.get("contradictions", []))}
        self.types = sorted(set(snapshot.get("ontology", {}).get("types", [])) | set(entities["type"]))
        self.type = {name: i for i, name in enumerate(self.types)}
        declared = {r["name"]: bool(r.get("functional")) for r in snapshot.get("ontology", {}).get("relations", [])}
        functional = dict(declared)
        # a relation the ontology lacks is functional if any of its facts says so (whatever their order)
        for relation, is_functional in set(zip(facts["relation"], facts["functional"])):
            if relation is not None and relation not in declared:
                functional[relation] = functional.get(relation, False) or bool(is_functional)
        self.relations = sorted(functional.items())
        self.relation = {name: i for i, (name, _) in enumerate(self.relations)}
        self.functional_of = {name: is_functional for name, is_functional in self.relations}
        self.functional_of[None] = False
        self.times = sorted(_record_times(snapshot, read))
        self.time: dict[Any, int] = {t: i for i, t in enumerate(self.times)}
        self.time[None] = -1
        # actors, actions and kinds are listed as text; `*_of` map each value as the snapshot has it
        self.actors, self.actor_of = _named(set(facts["actor"]) | set(ledger["actor"]))
        self.actions, self.action_of = _named(set(ledger["action"]))
        self.kinds, self.kind_of = _named(set(ledger["kind"]))
        # a ledger or maintenance reference: entity index, -(fact index + 1), or the id as given
        self.refs: dict[str, int] = {fid: -(i + 1) for fid, i in self.fact.items()}
        self.refs.update(self.entity)

    def at(self, value: Any) -> int:
        """A record time's index; -1 for None and for anything that is no record time."""
        return self.time.get(value, -1)

    def times_of(self, values: Iterable[Any]) -> list[int]:
        return list(map(self.time.get, values, repeat(-1)))


def _named(values: set[Any]) -> tuple[list[str], dict[Any, int]]:
    """The values as sorted text, and each value's index in it (None: -1)."""
    values.discard(None)
    names = sorted({str(v) for v in values})
    index = {name: i for i, name in enumerate(names)}
    return names, {**{v: index[str(v)] for v in values}, None: -1}


def _record_times(snapshot: dict[str, Any], read: _SnapshotColumns) -> set[str]:
    """Every record time, read from the columns and, for the versions, mapped in C: the ledger's
    times alone (every write in a memlens store is one ledger row) miss those of an imported store,
    whose encoding was then done twice (long histories: 0.5 s of the export's 3.5 s CPU)."""
    entities, facts = read.entities, read.facts
    times: set[Any] = set(read.ledger["at"])
    for column in (entities["created_at"], entities["updated_at"], entities["merged_at"],
                   facts["recorded_at"], facts["retired_at"]):
        times.update(column)
    versions = [v for v in chain.from_iterable(h for h in facts["history"] if h.__class__ is list)
                if isinstance(v, dict)]
    times.update(map(dict.get, versions, repeat("from")))
    times.update(map(dict.get, versions, repeat("to")))
    for c in snapshot.get("contradictions", []):
        times.update((c.get("recorded_at"), c.get("resolved_at")))
    # only text sorts with text; an empty string is no time the page could show
    return {t for t in times if isinstance(t, str) and t}


class _Inexact:
    """The indexes of the records (of one list) that their columns do not say exactly."""

    def __init__(self) -> None:
        self.rows: set[int] = set()

    def shape(self, records: list[dict[str, Any]], fields: tuple[str, ...], read: Columns | None = None,
              optional: tuple[str, ...] = ()) -> None:
        """Records with other fields than `fields` (and those of `optional` they have): checked by
        count in C, by name only when needed."""
        if read is not None and read.complete and all(map(len(fields).__eq__, map(len, records))):
            return
        wanted, may = set(fields), set(optional)
        self.rows.update(i for i, record in enumerate(records) if record.keys() - may != wanted)

    def references(self, values: tuple[Any, ...], indexes: list[int]) -> None:
        """A reference that is not None but points nowhere (-1): the id itself would be lost."""
        if indexes.count(-1) != values.count(None):
            self.rows.update(i for i, (value, index) in enumerate(zip(values, indexes)) if index == -1 and value is not None)

    def where(self, flags: Iterable[bool]) -> None:
        self.rows.update(i for i, flag in enumerate(flags) if flag)

    def unless_type(self, values: tuple[Any, ...], kind: type) -> None:
        if set(map(type, values)) - {kind}:
            self.where(type(value) is not kind for value in values)

    def raw(self, records: list[dict[str, Any]]) -> list[list[Any]]:
        return [[i, records[i]] for i in sorted(self.rows)]


def _entity_rows(records: list[dict[str, Any]], read: Columns, ix: _Indexes, layout: Layout,
                 pages: dict[str, str] | None, inexact: _Inexact) -> list[list[Any]]:
    """The entities as rows (ENTITY_COLUMNS), each field mapped over a column in C (a loop per entity
    took 1.5 s at 100,000 entities)."""
    inexact.shape(records, ENTITY_FIELDS, read, optional=(OBSERVATION_POSITION,))
    places = list(map(_observation_position, records))
    if any(map(len(ENTITY_FIELDS).__ne__, map(len, records))):   # a place of null, said outright, is lost
        inexact.where(OBSERVATION_POSITION in record and place is None for record, place in zip(records, places))
    ids, targets = read["id"], read["merged_into"]
    times = {key: ix.times_of(read[key]) for key in ("created_at", "updated_at", "merged_at")}
    for key, indexes in times.items():
        inexact.references(read[key], indexes)
    merged_into = list(map(ix.entity.get, targets, repeat(-1)))
    inexact.references(targets, merged_into)
    positions = layout.positions
    # merged entities are only drawn in the past; put them beside what absorbed them
    xy = [positions.get(entity_id) or (_NOWHERE if place is not None else _beside(positions.get(target)))
          for entity_id, target, place in zip(ids, targets, places)]
    columns = [read["name"], list(map(ix.type.__getitem__, read["type"])), read["description"], times["created_at"],
               times["updated_at"], merged_into, times["merged_at"], [x for x, _ in xy], [y for _, y in xy],
               list(map(layout.degree.get, ids, repeat(0))), places]
    if pages is not None:
        columns.append(list(map(pages.get, ids)))
    return list(map(list, zip(*columns))) if records else []


_observation_position = methodcaller("get", OBSERVATION_POSITION)
_NOWHERE = (None, None)   # where an observation is drawn: nowhere (it is listed under its entity)


def _beside(target: tuple[float, float] | None) -> tuple[float, float]:
    tx, ty = target or (0.0, 0.0)
    return round(tx + MERGED_OFFSET, 1), round(ty + MERGED_OFFSET, 1)


_is_str = str.__instancecheck__
_version_fields = itemgetter(*VERSION_FIELDS)
_merged_version_fields = itemgetter(*VERSION_FIELDS, *MERGED_VERSION_FIELDS)
_origin_fields = itemgetter(*ORIGIN_FIELDS)
_NONE: list[Any] = []   # shared by the many facts with no contradictions; nothing mutates it


def _fact_columns(facts: Columns, records: list[dict[str, Any]], ix: _Indexes, inexact: _Inexact) -> dict[str, list[Any]]:
    """The facts as one list per field (see FACT_COLUMNS): most are a lookup mapped over a column
    in C instead of a Python loop building a row per fact."""
    entity, fact, default = ix.entity.get, ix.fact.get, repeat(-1)
    evidence = [e if e.__class__ is list and all(map(_is_str, e)) else [str(i) for i in e or ()]
                for e in facts["evidence"]]
    if not all(map(is_, evidence, facts["evidence"])):  # some were not lists of text
        inexact.where(mine is not theirs for mine, theirs in zip(evidence, facts["evidence"]))
    references = {}
    for name, field, index in (("subject", "subject", entity), ("object", "object", entity),
                               ("supersededBy", "superseded_by", fact)):
        references[name] = list(map(index, facts[field], default))
        inexact.references(facts[field], references[name])
    recorded, retired = ix.times_of(facts["recorded_at"]), ix.times_of(facts["retired_at"])
    inexact.references(facts["recorded_at"], recorded)
    inexact.references(facts["retired_at"], retired)
    inexact.unless_type(facts["contested"], bool)
    if any(not isinstance(actor, str) for actor in set(facts["actor"]) - {None}):
        inexact.where(actor is not None and not isinstance(actor, str) for actor in facts["actor"])
    # a fact's `functional` is read back from its relation (False without one)
    expected = list(map(ix.functional_of.get, facts["relation"]))
    if not all(map(is_, expected, facts["functional"])):
        inexact.where(e is not f for e, f in zip(expected, facts["functional"]))
    return {
        "ids": _packed_ids(facts["id"]),
        "subject": references["subject"],
        "relation": list(map(ix.relation.get, facts["relation"], default)),
        "object": references["object"],
        "status": facts["status"],
        "supersededBy": references["supersededBy"],
        "reason": facts["reason"],
        "contested": list(map(bool, facts["contested"])),
        "validFrom": facts["valid_from"],
        "validTo": facts["valid_to"],
        "recordedAt": recorded,
        "retiredAt": retired,
        "actor": list(map(ix.actor_of.__getitem__, facts["actor"])),
        "description": facts["description"],
        "evidence": evidence,
        "reassertions": facts["reassertions"],
        "history": _histories(facts, ix, inexact),
        "contradictions": _fact_contradictions(facts, ix, inexact),
        "origin": _origins(records, inexact),
    }


def _origins(records: list[dict[str, Any]], inexact: _Inexact) -> list[list[str] | None]:
    """Each fact's origin as [bundle, dataset, recorded_at] (None for most: no merge brought them)."""
    origins: list[list[str] | None] = []
    for i, fact in enumerate(records):
        origin = fact.get("origin")
        if origin is None:
            origins.append(None)
            continue
        fields = _fields(origin, ORIGIN_FIELDS, _origin_fields)
        if fields is None or not all(map(_is_str, fields)):
            inexact.rows.add(i)
            fields = None
        origins.append(list(fields) if fields else None)
    return origins


def _fields(record: Any, names: tuple[str, ...], getter: Callable[[Any], tuple[Any, ...]]) -> tuple[Any, ...] | None:
    """A record's fields in one C call; None unless it has exactly `names`."""
    try:
        fields = getter(record)
    except (KeyError, TypeError):
        return None
    return fields if len(record) == len(names) else None


def _histories(facts: Columns, ix: _Indexes, inexact: _Inexact) -> list[list[list[Any]] | None]:
    """Each fact's versions as rows (HISTORY_COLUMNS); None for a fact whose history is one open
    version equal to the fact itself (most facts), which the page rebuilds."""
    at, fact = ix.at, ix.fact.get
    histories: list[list[list[Any]] | None] = []
    states = zip(facts["recorded_at"], repeat(None), facts["status"], facts["superseded_by"], facts["reason"],
                 facts["valid_from"], facts["valid_to"])
    for i, (versions, state) in enumerate(zip(facts["history"], states)):
        if versions.__class__ is list and len(versions) == 1 and _version_of(versions[0]) == state:
            histories.append(None)
            continue
        if versions.__class__ is not list or not versions:
            inexact.rows.add(i)  # no versions at all: the page rebuilds one, the record keeps none
            histories.append(None)
            continue
        rows = []
        for version in versions:
            fields = _version_of(version)
            merged = None if fields is not None else _fields(version, VERSION_FIELDS + MERGED_VERSION_FIELDS,
                                                             _merged_version_fields)
            if merged is not None and all(map(_is_str, merged[7:])):
                fields = merged[:7]
            elif fields is None:
                inexact.rows.add(i)
                merged = None
                fields = tuple(version.get(name) for name in VERSION_FIELDS) if isinstance(version, dict) else (None,) * 7
            since, until, status, superseded_by, reason, valid_from, valid_to = fields
            row = [at(since), at(until), status, fact(superseded_by, -1) if superseded_by is not None else -1,
                   reason, valid_from, valid_to, *(merged[7:] if merged else ())]
            if (row[0] == -1 and since is not None) or (row[1] == -1 and until is not None) or (
                    row[3] == -1 and superseded_by is not None):
                inexact.rows.add(i)
            rows.append(row)
        histories.append(rows)
    return histories


def _version_of(version: Any) -> tuple[Any, ...] | None:
    """A version's fields in one C call; None for a version with other fields than VERSION_FIELDS."""
    return _fields(version, VERSION_FIELDS, _version_fields)


def _fact_contradictions(facts: Columns, ix: _Indexes, inexact: _Inexact) -> list[list[int]]:
    known, lists = ix.contradiction, []
    for i, named in enumerate(facts["contradictions"]):
        if named.__class__ is list and not named:
            lists.append(_NONE)
            continue
        indexes = [known[c] for c in named if c in known] if named.__class__ is list else []
        if named.__class__ is not list or len(indexes) != len(named):
            inexact.rows.add(i)
        lists.append(indexes or _NONE)
    return lists


def _contradiction_rows(snapshot: dict[str, Any], ix: _Indexes, inexact: _Inexact) -> list[list[Any]]:
    rows, at = [], ix.at
    for i, c in enumerate(snapshot.get("contradictions", [])):
        named = c.get("facts")
        facts = [ix.fact.get(f, -1) for f in named] if named.__class__ is list else []
        recorded, resolved = at(c.get("recorded_at")), at(c.get("resolved_at"))
        rows.append([c["id"], facts, c.get("reason"), c.get("confidence"), c.get("actor"), recorded, resolved,
                     c.get("resolution"), c.get("resolution_reason")])
        if (named.__class__ is not list or -1 in facts or (recorded == -1 and c.get("recorded_at") is not None)
                or (resolved == -1 and c.get("resolved_at") is not None)):
            inexact.rows.add(i)
    inexact.shape(snapshot.get("contradictions", []), CONTRADICTION_FIELDS)
    return rows


def _reference_columns(lists: tuple[Any, ...], ix: _Indexes, inexact: _Inexact) -> tuple[list[Any], list[int]]:
    """Each record's references (ledger or worklist) as one flat list (see `_Indexes.refs`) and
    each record's count of them."""
    if all(map(list.__instancecheck__, lists)):
        flat = list(chain.from_iterable(lists))
        if all(map(_is_str, flat)):  # every record's references a list of ids: all checked in two C passes
            return list(map(ix.refs.get, flat, flat)), list(map(len, lists))
    exact = [refs.__class__ is list and all(map(_is_str, refs)) for refs in lists]
    inexact.where(not ok for ok in exact)
    flat = list(chain.from_iterable(refs for refs, ok in zip(lists, exact) if ok))
    counts = [len(refs) if ok else 0 for refs, ok in zip(lists, exact)]
    return list(map(ix.refs.get, flat, flat)), counts


def _ledger_columns(ledger: Columns, records: list[dict[str, Any]], ix: _Indexes,
                    inexact: _Inexact) -> dict[str, list[Any]]:
    """The ledger as one list per field (see LEDGER_COLUMNS). Row i's references are the
    refsCount[i] entries of `refs` after those of the rows before it."""
    inexact.shape(records, LEDGER_FIELDS, ledger)
    seq = ledger["seq"]
    if set(map(type, seq)) - {int}:
        inexact.unless_type(seq, int)
        seq = tuple(value if type(value) is int else 0 for value in seq)
    at = list(map(ix.time.get, ledger["at"], repeat(-1)))  # the ledger's times are always indexed
    inexact.references(ledger["at"], at)
    for values in (ledger["actor"], ledger["action"], ledger["kind"]):
        if any(not isinstance(value, str) for value in set(values) - {None}):
            inexact.where(value is not None and not isinstance(value, str) for value in values)
    refs, counts = _reference_columns(ledger["refs"], ix, inexact)
    return {
        "seqStep": list(map(sub, seq, (0,) + seq[:-1])),
        "at": at,
        "actor": list(map(ix.actor_of.__getitem__, ledger["actor"])),
        "action": list(map(ix.action_of.__getitem__, ledger["action"])),
        "kind": list(map(ix.kind_of.__getitem__, ledger["kind"])),
        "refs": refs,
        "refsCount": counts,
        "payload": ledger["payload"],  # as they are: their distinct ones listed once saved gzip 2%, and cost 50 ms
    }


def _dismissal_columns(records: list[dict[str, Any]], inexact: _Inexact) -> dict[str, list[Any]]:
    read = Columns(records, DISMISSAL_FIELDS)
    inexact.shape(records, DISMISSAL_FIELDS, read)
    return {name: list(read[name]) for name in DISMISSAL_FIELDS}


def _worklist_columns(records: list[dict[str, Any]], ix: _Indexes, inexact: _Inexact) -> dict[str, list[Any]]:
    read = Columns(records, WORKLIST_FIELDS)
    inexact.shape(records, WORKLIST_FIELDS, read)
    refs, counts = _reference_columns(read["refs"], ix, inexact)
    return {"key": list(read["key"]), "kind": list(read["kind"]), "summary": list(read["summary"]),
            "refs": refs, "refsCount": counts, "content": _underived(read["content"], read["refs"], inexact)}


def _underived(contents: tuple[Any, ...], refs: tuple[Any, ...], inexact: _Inexact) -> list[Any]:
    """Each worklist row's content, None where it is what maintenance makes of its refs (content_of:
    64 random hex digits a row, a quarter of the worklist's JSON and most of its compressed size);
    the decoders derive it again. A row whose content is no text is kept whole in `raw`."""
    inexact.unless_type(contents, str)
    kept = []
    for content, ids in zip(contents, refs):
        try:
            derived = content == content_of(list(ids))
        except TypeError:  # refs that are not all text: a hand-made snapshot's
            derived = False
        kept.append(None if derived else content)
    return kept


def maintenance_groups(snapshot: dict[str, Any]) -> dict[str, list[list[Any]]]:
    """The worklist and the dismissals as [kind, record indexes] pairs in the panel's group order:
    the page renders a group's first rows in HTML and pages in the rest from the `worklist` and
    `dismissals` columns, so no row is in the blocks twice."""
    def grouped(records: list[dict[str, Any]], groups: list[Any]) -> list[list[Any]]:
        position = {id(record): i for i, record in enumerate(records)}
        return [[group.kind, [position[id(row)] for row in group.rows]] for group in groups]

    return {"worklist": grouped(snapshot.get("maintenance") or [], worklist_groups(snapshot)),
            "dismissals": grouped(snapshot.get("dismissals") or [], dismissal_groups(snapshot))}


# a uuid as memlens writes one; its 16 bytes say it in 22 base64 characters instead of 36 of hex
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _packed_ids(ids: tuple[Any, ...]) -> dict[str, Any]:
    """Ids as `uuids`, the base64 of each one's 16 bytes, and `other`, [index, id] for each id that is
    no uuid as memlens writes one (an importer's may not be), whose 16 bytes there are zero. Uuids
    are half of what the blocks hold and random: gzip makes 21.7 bytes of one as JSON text, 16.2 of
    its bytes (a 10,000-entity page 12% smaller)."""
    packed = _all_uuids(ids)
    if packed is not None:
        return {"uuids": base64.b64encode(packed).decode("ascii"), "other": []}
    buffer, other = bytearray(), []
    for index, value in enumerate(ids):
        if isinstance(value, str) and _UUID.fullmatch(value):
            buffer += bytes.fromhex(value.replace("-", ""))
        else:
            buffer += bytes(16)
            other.append([index, value])
    return {"uuids": base64.b64encode(buffer).decode("ascii"), "other": other}


def _all_uuids(ids: tuple[Any, ...]) -> bytes | None:
    """The bytes of every id if every one is a uuid as memlens writes it, else None: checked over all
    of them at once in C (a regular expression over 400,000 ids took 0.4 s; this, 0.05)."""
    total = len(ids)
    if not all(map(_is_str, ids)) or set(map(len, ids)) - {36}:
        return None
    joined = "".join(ids)
    if joined.count("-") != 4 * total or any(joined[at::36] != "-" * total for at in (8, 13, 18, 23)):
        return None
    digits = joined.replace("-", "")
    try:
        packed = bytes.fromhex(digits)
    except ValueError:
        return None
    # fromhex also reads upper-case digits (another spelling of the same uuid) and skips whitespace
    return packed if packed.hex() == digits else None


def _unpacked_ids(packed: dict[str, Any]) -> list[Any]:
    text = base64.b64decode(packed["uuids"], validate=True).hex()
    ids: list[Any] = [f"{text[i:i + 8]}-{text[i + 8:i + 12]}-{text[i + 12:i + 16]}-{text[i + 16:i + 20]}-{text[i + 20:i + 32]}"
                      for i in range(0, len(text), 32)]
    for index, value in packed["other"]:
        ids[index] = value
    return ids


def _overview(snapshot: dict[str, Any], ix: _Indexes, layout: Layout) -> list[int]:
    drawn = [ix.entity[eid] for eid in layout.ranking[:DRAW_LIMIT]]
    if len(snapshot["entities"]) <= DRAW_LIMIT:  # small stores: merged ones too, for past views
        drawn += [ix.entity[e["id"]] for e in snapshot["entities"] if e.get("merged_into")]
    return drawn


def _valid_times(facts: Columns) -> list[str]:
    values = set(facts["valid_from"]) | set(facts["valid_to"])
    return sorted(v for v in values if v)


def _models(snapshot: dict[str, Any], layout: Layout, show_superseded: bool, entity_pages: dict[str, str] | None,
            fact_columns: Columns | None, type_looks: dict[str, TypeLook] | None,
            encode: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    """The blocks, each passed through `encode` as soon as it is built (so one block's rows are
    alive at a time)."""
    read = _SnapshotColumns(snapshot, fact_columns)
    return _encoded(snapshot, layout, show_superseded, entity_pages, type_looks, read, _Indexes(snapshot, read), encode)


def _encoded(snapshot: dict[str, Any], layout: Layout, show_superseded: bool, entity_pages: dict[str, str] | None,
             type_looks: dict[str, TypeLook] | None, read: _SnapshotColumns, ix: _Indexes,
             encode: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    inexact = {part: _Inexact() for part in LISTS}
    facts = read.facts
    entities = _entity_rows(snapshot["entities"], read.entities, ix, layout, entity_pages, inexact["entities"])
    contradictions = _contradiction_rows(snapshot, ix, inexact["contradictions"])
    inexact["facts"].shape(snapshot["facts"], FACT_FIELDS, facts, optional=("origin",))
    fact_block = _fact_columns(facts, snapshot["facts"], ix, inexact["facts"])
    texts_block = encode({"version": PAGE_DATA_VERSION, **{name: fact_block.pop(name) for name in TEXT_COLUMNS}})
    fact_block.update(version=PAGE_DATA_VERSION, raw=inexact["facts"].raw(snapshot["facts"]))
    fact_block = encode(fact_block)
    records = snapshot.get("ledger", [])
    ledger_block = _ledger_columns(read.ledger, records, ix, inexact["ledger"])
    ledger_block.update(version=PAGE_DATA_VERSION, raw=inexact["ledger"].raw(records))
    ledger_block = encode(ledger_block)
    maintenance_block = encode({
        "version": PAGE_DATA_VERSION,
        "dismissals": _dismissal_columns(snapshot.get("dismissals", []), inexact["dismissals"]),
        "worklist": _worklist_columns(snapshot.get("maintenance", []), ix, inexact["maintenance"]),
        "maintenance": maintenance_groups(snapshot),
    })
    main = {
        "version": PAGE_DATA_VERSION,
        "meta": {key: value for key, value in snapshot.items() if key not in LISTS and key != "seal"},
        "keys": list(snapshot),
        "columns": {"entities": ENTITY_COLUMNS if entity_pages is None else SITE_ENTITY_COLUMNS,
                    "history": HISTORY_COLUMNS, "contradictions": CONTRADICTION_COLUMNS},
        # each type's look, as viewer/model/palette.py assigned it (SnapshotIndex.type_looks)
        "types": [{"name": name, "color": look.color, "shape": look.shape}
                  for name, look in ((name, (type_looks or {}).get(name) or UNKNOWN_LOOK) for name in ix.types)],
        "relations": [{"name": name, "functional": functional} for name, functional in ix.relations],
        "actors": ix.actors,
        "actions": ix.actions,
        "kinds": ix.kinds,
        "times": ix.times,
        "validTimes": _valid_times(facts),
        "entityIds": _packed_ids(read.entities["id"]),
        "entities": entities,
        "contradictions": contradictions,
        "raw": {part: inexact[part].raw(snapshot.get(part, []))
                for part in ("entities", "contradictions", "dismissals", "maintenance")},
        "overview": _overview(snapshot, ix, layout),
        "drawLimit": DRAW_LIMIT,
        "showSuperseded": show_superseded,
    }
    blocks = {MAIN_BLOCK: encode(main), FACTS_BLOCK: fact_block, TEXTS_BLOCK: texts_block, LEDGER_BLOCK: ledger_block,
              MAINTENANCE_BLOCK: maintenance_block}
    if "seal" in snapshot:
        blocks[SEAL_BLOCK] = encode({"version": PAGE_DATA_VERSION, "seal": snapshot["seal"]})
    return blocks


def page_data(snapshot: dict[str, Any], layout: Layout, *, show_superseded: bool,
              entity_pages: dict[str, str] | None = None,
              type_looks: dict[str, TypeLook] | None = None) -> dict[str, dict[str, Any]]:
    """The blocks as plain JSON-able dicts, keyed by the id of the page element holding each.

    `entity_pages` (entity id -> page path relative to the page) adds a `page` column, so a
    site's graph can link each entity to its own page.
    """
    return _models(snapshot, layout, show_superseded, entity_pages, None, type_looks, lambda model: model)


# -- framing: a block's JSON, gzipped, as base64 text in a non-executable script element ---------------

# gzip's header with no file name, no modification time (0) and no operating system (255), so the
# same data gives the same bytes everywhere; the browser's DecompressionStream("gzip") reads it.
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
_ELEMENT = re.compile(rb'<script type="' + BLOCK_TYPE.encode() + rb'" id="([\w-]+)" data-encoding="base64">'
                      rb'([A-Za-z0-9+/=]*)</script>')


class Block:
    """One data element of the page; its text may still be compressing in a worker thread."""

    def __init__(self, name: str, text: Future[str] | str) -> None:
        self.name = name
        self._text = text

    def text(self) -> str:
        return self._text.result() if isinstance(self._text, Future) else self._text

    def __html__(self) -> str:
        # base64 holds no character that could end the element or mean anything to the HTML parser
        return f'<script type="{BLOCK_TYPE}" id="{self.name}" data-encoding="base64">{self.text()}</script>'


def page_blocks(snapshot: dict[str, Any], layout: Layout, *, show_superseded: bool,
                entity_pages: dict[str, str] | None = None, fact_columns: Columns | None = None,
                type_looks: dict[str, TypeLook] | None = None) -> list[Block]:
    """The blocks as page elements. Each block's JSON is written as soon as its rows exist and
    compressed in a worker thread (zlib lets go of the interpreter while it works), so a block is
    compressed while the next one is built and while the rest of the page is rendered. A block's
    JSON is written only once the one before is compressed, so one block's JSON is alive at a time
    (at 100,000 entities the texts' JSON waited beside the facts': the export's peak, 1.63 GB)."""
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memlens-gzip")
    compressing: list[Future[str]] = []

    def encode(model: dict[str, Any]) -> Future[str]:
        if compressing:
            compressing[-1].result()
        compressing.append(worker.submit(_compressed, _json(model)))
        return compressing[-1]

    try:
        texts = _models(snapshot, layout, show_superseded, entity_pages, fact_columns, type_looks, encode)
    finally:
        worker.shutdown(wait=False)
    return [Block(name, text) for name, text in texts.items()]


def drawings_block(drawings: dict[str, str]) -> Block:
    """The folded timelines' drawings (figure id -> its markup) as TIMELINES_BLOCK: as markup they
    were a quarter of a 10,000-entity report (1.44 of 5.2 MB), compressed they are a sixth of that
    (zlib's level 9 would save 43 KB more for 60 ms more)."""
    return Block(TIMELINES_BLOCK, _compressed(_json({"version": PAGE_DATA_VERSION, "drawings": drawings})))


def page_record_block(record: dict[str, Any]) -> Block:
    """PAGE_BLOCK: `record` (renderer, memlens version, the changes shown; see report/page_check.py)."""
    return Block(PAGE_BLOCK, _compressed(_json({"version": PAGE_DATA_VERSION, **record})))


def _json(model: dict[str, Any]) -> bytes:
    """Compact JSON, keys sorted. orjson writes what the standard encoder would, three times as
    fast (most of a second at 100,000 entities); the standard one is kept for what orjson refuses,
    integers beyond 64 bits (a hand-made snapshot's)."""
    try:
        return orjson.dumps(model, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:
        return json.dumps(model, ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                          allow_nan=False).encode()


def _compressed(data: bytes) -> str:
    deflate = zlib.compressobj(COMPRESSION_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = deflate.compress(data) + deflate.flush()
    trailer = struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)
    return base64.b64encode(_GZIP_HEADER + body + trailer).decode("ascii")


def _decompressed(text: bytes, limit: int) -> bytes:
    """The data of one element's text; ValueError if it is not whole base64 of one whole gzip stream,
    or if it inflates past `limit` bytes (inflated no further: a gzip bomb costs at most the limit)."""
    try:
        packed = base64.b64decode(text, validate=True)
    except binascii.Error as exc:
        raise ValueError(f"not base64 ({exc})") from None
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)  # a gzip stream: its CRC and length are checked
    try:
        data = inflate.decompress(packed, limit + 1)
    except zlib.error as exc:
        raise ValueError(f"not gzip, or damaged ({exc})") from None
    if len(data) > limit:
        raise InflatesTooFar(f"it inflates past {limit:,} bytes")
    if not inflate.eof or inflate.unused_data:
        raise ValueError("its gzip stream is cut short or followed by other bytes")
    return data


class InflatesTooFar(ValueError):
    """A block whose data is larger than a report of its size can hold."""


# what a report's blocks may inflate to, together: INFLATE_RATIO times the page's size (real reports
# inflate 3.4 times at 100,000 entities; compressed data is three quarters of their bytes) and at
# least INFLATE_FLOOR, never more than INFLATE_LIMIT (ten times the data of a 100,000-entity report)
INFLATE_RATIO, INFLATE_FLOOR, INFLATE_LIMIT = 32, 16 << 20, 1 << 30


def inflate_limit(page_size: int) -> int:
    """How many bytes the blocks of a page of `page_size` bytes may inflate to, together."""
    return min(INFLATE_LIMIT, max(INFLATE_FLOOR, INFLATE_RATIO * page_size))


# -- decoding: the blocks -> the snapshot ----------------------------------------------------------------

class _Reader:
    """Reads records back out of the blocks; an index of -1 reads None (the lists end with None)."""

    def __init__(self, main: dict[str, Any], maintenance: dict[str, Any] | None = None) -> None:
        self.main = main
        self.lists = main if maintenance is None else maintenance   # memlens-page/1 kept them in main
        self.times = [*main["times"], None]
        self.entity_ids = [*_unpacked_ids(main["entityIds"]), None]

    def entities(self) -> list[dict[str, Any]]:
        types, times, ids = [t["name"] for t in self.main["types"]], self.times, self.entity_ids
        entities = [{"id": entity_id, "name": row[0], "type": types[row[1]], "description": row[2],
                     "created_at": times[row[3]], "updated_at": times[row[4]], "merged_into": ids[row[5]],
                     "merged_at": times[row[6]]} for entity_id, row in zip(ids, self.main["entities"])]
        columns = self.main["columns"]["entities"]
        if "observation" in columns:   # a page written before observations has no such column
            at = columns.index("observation")
            for entity, row in zip(entities, self.main["entities"]):
                if row[at] is not None:
                    entity[OBSERVATION_POSITION] = row[at]
        return _with_raw(entities, self.main["raw"]["entities"])

    def facts(self, block: dict[str, Any], texts: dict[str, Any], ids: list[Any]) -> list[dict[str, Any]]:
        times, entities = self.times, self.entity_ids
        fact_ids = [*ids, None]
        names = [r["name"] for r in self.main["relations"]] + [None]
        functional = [r["functional"] for r in self.main["relations"]] + [False]
        actors = [*self.main["actors"], None]
        contradiction_ids = [row[0] for row in self.main["contradictions"]]
        origins = block.get("origin")   # a report written before merges has none
        facts = []
        for (fact_id, subject, relation, obj, status, superseded_by, reason, contested, valid_from, valid_to,
             recorded_at, retired_at, actor, reassertions, history, contradictions, description, evidence) in zip(
                ids, *(block[name] for name in FACT_COLUMNS), *(texts[name] for name in TEXT_COLUMNS), strict=True):
            fact = {"id": fact_id, "subject": entities[subject], "relation": names[relation],
                    "object": entities[obj], "description": description, "evidence": evidence,
                    "actor": actors[actor], "functional": functional[relation], "status": status,
                    "superseded_by": fact_ids[superseded_by], "reason": reason, "contested": contested,
                    "contradictions": [contradiction_ids[c] for c in contradictions],
                    "valid_from": valid_from, "valid_to": valid_to, "recorded_at": times[recorded_at],
                    "retired_at": times[retired_at], "reassertions": reassertions}
            if history is None:  # one open version equal to the fact itself
                fact["history"] = [{"from": fact["recorded_at"], "to": None, "status": status,
                                    "superseded_by": fact["superseded_by"], "reason": reason,
                                    "valid_from": valid_from, "valid_to": valid_to}]
            else:
                fact["history"] = [_version(v, times, fact_ids) for v in history]
            if origins is not None and origins[len(facts)] is not None:
                fact["origin"] = dict(zip(ORIGIN_FIELDS, origins[len(facts)]))
            facts.append(fact)
        return _with_raw(facts, block["raw"])

    def contradictions(self, fact_ids: list[Any]) -> list[dict[str, Any]]:
        times, ids = self.times, [*fact_ids, None]
        rows = [{"id": r[0], "facts": [ids[f] for f in r[1]], "reason": r[2], "confidence": r[3], "actor": r[4],
                 "recorded_at": times[r[5]], "resolved_at": times[r[6]], "resolution": r[7],
                 "resolution_reason": r[8]} for r in self.main["contradictions"]]
        return _with_raw(rows, self.main["raw"]["contradictions"])

    def dismissals(self) -> list[dict[str, Any]]:
        columns = self.lists["dismissals"]
        rows = [dict(zip(DISMISSAL_FIELDS, values)) for values in zip(*(columns[n] for n in DISMISSAL_FIELDS), strict=True)]
        return _with_raw(rows, self.main["raw"]["dismissals"])

    def worklist(self, fact_ids: list[Any]) -> list[dict[str, Any]]:
        columns = self.lists["worklist"]
        refs = self._references(columns["refs"], columns["refsCount"], fact_ids)
        derives = self.main.get("version") != FIRST_VERSION
        rows = [{"key": key, "kind": kind, "summary": summary, "refs": named,
                 "content": content_of(named) if content is None and derives else content}
                for key, kind, summary, named, content in zip(columns["key"], columns["kind"], columns["summary"],
                                                              refs, columns["content"], strict=True)]
        return _with_raw(rows, self.main["raw"]["maintenance"])

    def ledger(self, block: dict[str, Any], fact_ids: list[Any]) -> list[dict[str, Any]]:
        actors, actions, kinds = ([*self.main[name], None] for name in ("actors", "actions", "kinds"))
        times = self.times
        refs = self._references(block["refs"], block["refsCount"], fact_ids)
        rows = [{"seq": seq, "at": times[at], "actor": actors[actor], "action": actions[action], "kind": kinds[kind],
                 "refs": named, "payload": payload}
                for seq, at, actor, action, kind, named, payload in zip(
                    accumulate(block["seqStep"]), block["at"], block["actor"], block["action"], block["kind"], refs,
                    block["payload"], strict=True)]
        return _with_raw(rows, block["raw"])

    def _references(self, flat: list[Any], counts: list[int], fact_ids: list[Any]) -> list[list[Any]]:
        """Each record's references (see `_Indexes.refs`), from the flat list and the counts."""
        entities = self.entity_ids
        named = [ref if ref.__class__ is str else entities[ref] if ref >= 0 else fact_ids[-ref - 1] for ref in flat]
        ends = list(accumulate(counts))
        return [named[end - count:end] for end, count in zip(ends, counts)]


def _version(row: list[Any], times: list[Any], fact_ids: list[Any]) -> dict[str, Any]:
    """A history row read back; one a merge brought ends with its judged_at and bundle."""
    version = {"from": times[row[0]], "to": times[row[1]], "status": row[2], "superseded_by": fact_ids[row[3]],
               "reason": row[4], "valid_from": row[5], "valid_to": row[6]}
    if len(row) > len(VERSION_FIELDS):
        version.update(zip(MERGED_VERSION_FIELDS, row[len(VERSION_FIELDS):]))
    return version


def _with_raw(records: list[Any], raw: list[list[Any]]) -> list[Any]:
    for index, record in raw:
        records[index] = record
    return records


def decode(blocks: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The snapshot the blocks (as `page_data` makes them, or as read back) were made from, exactly."""
    main = blocks[MAIN_BLOCK]
    reader = _Reader(main, blocks.get(MAINTENANCE_BLOCK))
    fact_ids = _unpacked_ids(blocks[FACTS_BLOCK]["ids"])
    lists = {"entities": reader.entities,
             "facts": lambda: reader.facts(blocks[FACTS_BLOCK], blocks[TEXTS_BLOCK], fact_ids),
             "contradictions": lambda: reader.contradictions(fact_ids), "dismissals": reader.dismissals,
             "maintenance": lambda: reader.worklist(fact_ids),
             "ledger": lambda: reader.ledger(blocks[LEDGER_BLOCK], fact_ids)}
    meta = main["meta"] if SEAL_BLOCK not in blocks else {**main["meta"], "seal": blocks[SEAL_BLOCK]["seal"]}
    return {key: lists[key]() if key in lists else meta[key] for key in main["keys"]}


def decode_digest(main: dict[str, Any], facts: dict[str, Any]) -> dict[str, Any]:
    """What `memlens.store.snapshot.diff.digest` makes of the snapshot, from the main and facts blocks."""
    from memlens.store.snapshot.diff import digest

    states = [{"id": fact_id, "status": status, "contested": contested} for fact_id, status, contested
              in zip(_unpacked_ids(facts["ids"]), facts["status"], facts["contested"], strict=True)]
    meta = main["meta"]
    return digest({"hash": meta["hash"], "generated_at": meta["generated_at"],
                   "facts": _with_raw(states, facts["raw"]), "entities": _Reader(main).entities()})


def decode_layout(main: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """The position the page drew each entity at (merged ones, drawn beside what absorbed them, and
    observations, never drawn, left out)."""
    columns = main["columns"]["entities"]
    x, y, merged = (columns.index(name) for name in ("x", "y", "mergedInto"))
    observation = columns.index("observation") if "observation" in columns else None
    positions = {}
    for entity_id, row in zip(_unpacked_ids(main["entityIds"]), main["entities"], strict=True):
        if row[merged] != -1 or (observation is not None and row[observation] is not None):
            continue
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (row[x], row[y])):
            raise ValueError(f"entity {str(entity_id)[:40]!r} has no position")
        positions[entity_id] = (float(row[x]), float(row[y]))
    return positions


def decode_looks(main: dict[str, Any]) -> dict[str, TypeLook]:
    """Type -> the look (colour and shape) the page drew it with, for each type its live entities
    (observations aside) have: what the page's legend showed."""
    columns = main["columns"]["entities"]
    kind, merged = columns.index("type"), columns.index("mergedInto")
    observation = columns.index("observation") if "observation" in columns else None
    looks = {}
    for index in sorted({row[kind] for row in main["entities"]
                         if row[merged] == -1 and (observation is None or row[observation] is None)}):
        entry = main["types"][index]
        color, shape = entry["color"], entry["shape"]
        if not (isinstance(color, str) and _COLOR.fullmatch(color) and isinstance(shape, str)):
            raise ValueError(f"type {str(entry['name'])[:40]!r} has no colour and shape")
        looks[entry["name"]] = TypeLook(color.lower(), shape)
    return looks


_COLOR = re.compile(r"#[0-9a-fA-F]{6}")


# -- reading a report file back ---------------------------------------------------------------------------

def read_blocks(path: str | PathLike[str], names: tuple[str, ...] = SNAPSHOT_BLOCKS) -> dict[str, dict[str, Any]]:
    """The named data blocks of the report at `path`, decompressed, parsed and version-checked.
    Raises BundleUnreadable, naming the file and what is wrong with it."""
    return parse_blocks(read_page(path), str(path), names)


def parse_blocks(page: bytes, path: str, names: tuple[str, ...] = SNAPSHOT_BLOCKS) -> dict[str, dict[str, Any]]:
    """`read_blocks` of a page already read; `path` names it in errors."""
    found: dict[str, bytes] = {}
    for match in _ELEMENT.finditer(page):
        name = match.group(1).decode()
        if name in found:
            raise BundleUnreadable(f"{path} has two {name} blocks; it is not a report memlens wrote")
        found[name] = match.group(2)
    blocks = {}
    budget = inflate_limit(len(page))
    parse_budget = ParseBudget(len(page))
    for name in names:
        if name == PAGE_BLOCK and name not in found:
            continue  # a report written before pages carried their record
        if name == MAINTENANCE_BLOCK and name not in found and blocks.get(MAIN_BLOCK, {}).get("version") == FIRST_VERSION:
            continue  # memlens-page/1 kept the maintenance lists in the main block
        if name == SEAL_BLOCK and name not in found and _seal_in_main(blocks.get(MAIN_BLOCK)):
            continue  # a snapshot without a seal, or a memlens-page/1 page that kept it in `meta`
        if name not in found:
            older = b'<script type="application/json" id="memlens-data">' in page
            raise BundleUnreadable(f"{path} was written by an older memlens; its data cannot be read back" if older
                                   else f"{path} has no {name} block; it is not a memlens report")
        try:
            data = _decompressed(found.pop(name), budget)
            budget -= len(data)
            parse_budget.spend(data)
            block = orjson.loads(data)
        except InflatesTooFar as exc:
            raise BundleUnreadable(f"{path}: its {name} block is refused: {exc}, more than a report of "
                                   f"{len(page):,} bytes holds (at most {INFLATE_RATIO} times its size, and "
                                   f"{INFLATE_LIMIT:,} bytes)") from None
        except NotJson as exc:
            raise BundleUnreadable(f"{path}: its {name} block is refused: {exc}") from None
        except ValueError as exc:  # orjson.JSONDecodeError is one
            raise BundleUnreadable(f"{path}: its {name} block is damaged: {exc}") from None
        version = block.get("version") if isinstance(block, dict) else None
        if version not in READABLE_VERSIONS:
            raise BundleUnreadable(f"{path}: its {name} block is {str(version)[:40]!r}, but this memlens "
                                   f"reads {PAGE_DATA_VERSION!r} (a report from another memlens version?)")
        blocks[name] = block
    return blocks


def _seal_in_main(main: dict[str, Any] | None) -> bool:
    """Whether the main block says all there is of the seal: none in the snapshot, or in its `meta`."""
    return main is not None and ("seal" not in main.get("keys", ()) or "seal" in main.get("meta", {}))


def read_page(path: str | PathLike[str], *, follow: bool = True) -> bytes:
    """The page's bytes: a regular file of at most BUNDLE_FILE_LIMIT bytes (store/confined.py), else
    BundleUnreadable; with `follow=False` (a site's page), one reached through no link."""
    page = Path(path)
    try:
        return read_bundle_file(page, follow=follow)
    except UntrustedFileError as exc:   # a FIFO, a device, a link, a file too large
        raise BundleUnreadable(str(exc)) from None
    except OSError as exc:
        raise BundleUnreadable(f"cannot read {path}: {exc.strerror or exc}") from None


def decoded(path: str | PathLike[str], what: str, decoder: Callable[[], Any]) -> Any:
    """`decoder()`, with blocks that do not hold together reported as BundleUnreadable."""
    try:
        return decoder()
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise BundleUnreadable(f"{path}: its {what} does not hold together ({reason[:200]})") from None


def read_report(path: str | PathLike[str]) -> dict[str, Any]:
    """The snapshot the report at `path` was rendered from, exactly as it was handed to the writer."""
    blocks = read_blocks(path)
    return decoded(path, "data", lambda: decode(blocks))
