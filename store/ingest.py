"""Asserting a batch of facts: what asserting them one at a time would do (tests/reference_writer.py),
worked out in Python over the part of the store the batch touches, then written table by table with
executemany.

The outcomes, the rows and the ledger (its seqs and hash chain included) are exactly those of
calling the reference writer for each item in turn in the same transaction; tests/test_ingest.py
holds the two against each other on random batches. The one-at-a-time path costs ~22 statements
per fact (650,000 for 30,000 facts, 10 s); this one a few per table and batch.
"""
from __future__ import annotations

import json
import re
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from . import ledger
from .db import IN_CHUNK, Tx, rows_in
from .entities import check_new
from .errors import Ambiguous, Forgotten, InvalidInput, UnknownType
from .facts import FactInput, Outcome, validate
from .functional import KeyHistory, Value
from .holdings import Held, holding_of
from .ids import entity_id, fact_id, new_holding_id, normalize_name, short
from .ontology import relation_name
from .resolve import Candidate, KeptNames, Names, choose
from .schema import AUTO_REASON
from .search import entity_about, fact_text
from .versions import FACT_WITH_STATE, STATE_COLUMNS

# SQLite's lower() folds ASCII letters only: types match as it does.
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_SHORT_ID = re.compile(r"[0-9a-f]{8}[0-9a-f-]{0,28}")


def remember(tx: Tx, items: Iterable[FactInput], *, override_forgotten: bool = False, new: bool = False,
             each: Callable[[Outcome], None] | None = None, kept: KeptNames | None = None) -> list[Outcome]:
    """Assert every item in order, all or none; `each` hears of every outcome as it is worked out.
    `new`: create entities whose names are near misses of existing ones (entities.check_new).
    `kept`: the store's names as a long-lived caller keeps them between writes."""
    started_at = kept.head(tx.conn) if kept is not None else None
    batch = _Batch(tx, list(items), override_forgotten, new, kept)
    outcomes = []
    for item in batch.items:
        outcomes.append(batch.assert_fact(item))
        if each is not None:
            each(outcomes[-1])
    batch.write()
    if kept is not None:   # a batch changes names only by creating entities
        kept.after(tx.conn, started_at, batch.all_names)   # a new name is always looked up in all_names
    return outcomes


def _chunks(values: list[Any]) -> Iterator[list[Any]]:
    for start in range(0, len(values), IN_CHUNK):
        yield values[start:start + IN_CHUNK]


@dataclass
class _Entity:
    id: str
    n: int
    name: str
    name_key: str
    type: str
    description: str
    merged_into: str | None
    new: bool = False
    described: bool = False  # an existing entity whose description this batch changed

    def __getitem__(self, field: str) -> Any:   # read as store/resolve.py reads a row
        return getattr(self, field)


@dataclass
class _Version:
    number: int
    state: dict[str, Any]
    recorded_at: str
    new: bool
    amended: bool = False   # an existing open version changed in place (it was recorded at this time)
    retired: bool = False


@dataclass
class _Fact:
    id: str
    n: int
    subject_id: str
    relation: str
    object_id: str
    description: str
    evidence: list[str]
    actor: str
    arrival: int
    reassertions: int
    first_recorded: str
    versions: list[_Version] = field(default_factory=list)
    new: bool = False
    changed: bool = False  # an existing fact said again: evidence, description, reassertions

    @property
    def open(self) -> _Version:
        return self.versions[-1]


class _Batch:
    def __init__(self, tx: Tx, items: list[FactInput], override: bool, new: bool, kept: KeptNames | None = None) -> None:
        self.tx, self.conn, self.at, self.items, self.override, self.new = tx, tx.conn, tx.at, items, override, new
        self.kept = kept
        self.ledger = ledger.Pending(self.conn, self.at, tx.actor)
        self.types: dict[str, str] = {}
        for (name,) in self.conn.execute("SELECT name FROM types"):
            self.types.setdefault(name.translate(_ASCII_LOWER), name)
        self.functional = {r[0] for r in self.conn.execute("SELECT name FROM relations WHERE functional = 1")}
        self.next_entity_n = self.conn.execute("SELECT coalesce(max(n), 0) + 1 FROM entities").fetchone()[0]
        self.next_fact_n = self.conn.execute("SELECT coalesce(max(n), 0) + 1 FROM facts").fetchone()[0]
        self.names: dict[str, tuple[str, str]] = {}
        self.found: dict[str, _Entity] = {}               # a name as written -> the entity it found
        self.fact_ids: dict[tuple[str, str, str], str] = {}
        self.entities: dict[str, _Entity] = {}          # by id: read from the store or created here
        self.by_key: dict[str, list[_Entity]] = defaultdict(list)   # name key -> the entities that have it
        self.all_names: Names | None = None             # every stored name, read when a name is not found
        self.created: list[_Entity] = []
        self.facts: dict[str, _Fact] = {}
        self.by_triple: dict[tuple[str, str, str], list[str]] = defaultdict(list)   # a triple's holdings
        self.looked_up_facts: set[str] = set()          # ids (and triples) already read from the store
        self.tombstones: set[str] = set()
        self.tombstones_read: set[str] = set()
        self.untombstoned: list[str] = []
        self.keys: dict[tuple[str, str], KeyHistory] = {}
        self.resolved: list[str] = []                   # contradictions the functional ordering resolved
        self.fts_facts: dict[int, str] = {}
        self.fts_entities: dict[int, tuple[str, str]] = {}
        self.fts_deleted_facts: set[int] = set()
        self.fts_deleted_entities: set[int] = set()
        self._read_ahead()

    # -- reading what the batch touches, in bulk ------------------------------------------------

    def _read_ahead(self) -> None:
        """Read the entities, facts and tombstones the items name, a few queries per table."""
        named = {self._named(name) for item in self.items for name in (item.subject, item.object)}
        named.discard(("", entity_id("")))
        ids = {id_ for _, id_ in named}
        self._read_entities("name_key", sorted(key for key, _ in named))
        self._read_merge_targets()
        stored_pairs, fids = set(), set()
        for item in self.items:
            subject, object_ = self._stored(item.subject), self._stored(item.object)
            triple = (subject.id if subject else self._named(item.subject)[1], relation_name(item.relation),
                      object_.id if object_ else self._named(item.object)[1])
            fids.add(self._fact_id(*triple))
            if subject is not None and object_ is not None:
                stored_pairs.add(triple)
        self._read_tombstones(sorted(ids | fids))
        self._read_facts(stored_pairs)

    def _named(self, name: str) -> tuple[str, str]:
        """(name key, the id a new entity of that name gets), worked out once per spelling."""
        if name not in self.names:
            key = normalize_name(name)
            self.names[name] = (key, entity_id(key))
        return self.names[name]

    def _fact_id(self, subject_id: str, relation: str, object_id: str) -> str:
        triple = (subject_id, relation, object_id)
        if triple not in self.fact_ids:
            self.fact_ids[triple] = fact_id(*triple)
        return self.fact_ids[triple]

    def _read_entities(self, column: str, values: list[str]) -> None:
        for row in rows_in(self.conn, f"SELECT * FROM entities WHERE {column} IN ({{}})", values):
            self._keep_entity(row)

    def _keep_entity(self, row: sqlite3.Row) -> None:
        if row["id"] not in self.entities:
            entity = _Entity(row["id"], row["n"], row["name"], row["name_key"], row["type"], row["description"],
                             row["merged_into"])
            self.entities[row["id"]] = entity
            if row["observation_position"] is None:   # an observation's name is its note's text: found by id only
                self.by_key[entity.name_key].append(entity)

    def _read_merge_targets(self) -> None:
        while True:
            targets = sorted({e.merged_into for e in self.entities.values()
                              if e.merged_into and e.merged_into not in self.entities})
            if not targets:
                return
            self._read_entities("id", targets)

    def _read_tombstones(self, ids: list[str]) -> None:
        self.tombstones_read.update(ids)
        self.tombstones.update(r[0] for r in rows_in(self.conn, "SELECT id FROM tombstones WHERE id IN ({})", ids))

    def _stored(self, name: str) -> _Entity | None:
        """The stored entity a name finds exactly or by its key, if one (read-ahead only: no prefixes,
        no separators, an ambiguous name left for its item to refuse)."""
        try:
            found = choose(name.strip(), self.by_key.get(self._named(name)[0], []), self.entities.get)
        except Ambiguous:
            return None
        return found.entity if found else None

    def _read_facts(self, triples: set[tuple[str, str, str]]) -> None:
        """Every stored holding of the triples (an imported fact keeps its source's id: by triple, not id)."""
        ordered = sorted(triples)
        for chunk in _chunks(ordered):
            values = ",".join("(?, ?, ?)" for _ in chunk)
            for row in self.conn.execute(
                    FACT_WITH_STATE + f" WHERE (f.subject_id, f.relation, f.object_id) IN (VALUES {values})",
                    [part for triple in chunk for part in triple]):
                self._keep_fact(row)
        self.looked_up_facts.update("|".join(triple) for triple in ordered)

    def _keep_fact(self, row: sqlite3.Row) -> _Fact:
        """A stored fact (FACT_WITH_STATE row) in the batch's working set, first one per triple."""
        if row["id"] in self.facts:
            return self.facts[row["id"]]
        first = self.conn.execute("SELECT recorded_at FROM fact_versions WHERE fact_id = ? ORDER BY version LIMIT 1",
                                  (row["id"],)).fetchone()[0]
        fact = _Fact(row["id"], row["n"], row["subject_id"], row["relation"], row["object_id"], row["description"],
                     json.loads(row["evidence"]), row["actor"], row["arrival"], row["reassertions"], first,
                     [_Version(row["version"], {c: row[c] for c in STATE_COLUMNS}, row["state_since"], new=False)])
        self.facts[fact.id] = fact
        self.by_triple[fact.subject_id, fact.relation, fact.object_id].append(fact.id)
        return fact

    # -- one fact, as the reference writer's assert_fact does it --------------------------------

    def assert_fact(self, item: FactInput) -> Outcome:
        item = validate(item)
        subject = self._ensure(item.subject, item.subject_type, item.subject_description)
        object_ = self._ensure(item.object, item.object_type, item.object_description)
        fid = self._fact_id(subject.id, item.relation, object_.id)
        self._refuse_forgotten(fid, item)
        holdings = self._holdings(subject, item.relation, object_)
        others_held = None
        if item.relation in self.functional:
            key, same = self._key(subject, item.relation), {fact.id for fact in holdings}
            others_held = lambda start, end: key.stands_between(start, end, same)  # noqa: E731
        held = holding_of([self._held(fact) for fact in holdings], item.valid_from, item.valid_to, others_held)
        if held is not None:
            return self._reassert(self.facts[held], item)
        if holdings:  # the value holds again after every earlier holding ended: a fact of its own
            fid = new_holding_id(subject.id, item.relation, object_.id, item.valid_from,  # type: ignore[arg-type]
                                 {fact.id for fact in holdings})
            self._refuse_forgotten(fid, item)
        seq = self._log("assert", "fact", [fid, subject.id, object_.id], valid_from=item.valid_from,
                        valid_to=item.valid_to, override=self.override or None)
        fact = _Fact(fid, self.next_fact_n, subject.id, item.relation, object_.id, item.description,
                     list(item.evidence), self.tx.actor, seq, 0, self.at, new=True)
        self.next_fact_n += 1
        self._open_first_version(fact, item.valid_from, item.valid_to)
        self.facts[fid] = fact
        self.by_triple[subject.id, item.relation, object_.id].append(fid)
        self._index_fact(fact)
        if item.relation in self.functional:
            self._key(subject, item.relation).add(self._value(fact))
        return self._settled(fact, "asserted")

    def _open_first_version(self, fact: _Fact, valid_from: str | None, valid_to: str | None) -> None:
        """Version 1, or the next one after a forgotten fact's (asserted again on purpose)."""
        state = {"status": "current", "superseded_by": None, "reason": None, "automatic": 0,
                 "valid_from": valid_from, "valid_to": valid_to}
        number = 1
        if fact.id in self.untombstoned:
            previous = self.conn.execute(
                "SELECT version, recorded_at FROM fact_versions WHERE fact_id = ? ORDER BY version", (fact.id,)
            ).fetchall()
            if previous:
                fact.first_recorded = previous[0]["recorded_at"]
                fact.versions.append(_Version(previous[-1]["version"], {}, previous[-1]["recorded_at"], new=False,
                                              retired=True))
                number = previous[-1]["version"] + 1
        fact.versions.append(_Version(number, state, self.at, new=True))

    def _reassert(self, fact: _Fact, item: FactInput) -> Outcome:
        fact.evidence += [e for e in item.evidence if e not in fact.evidence]
        fact.description = item.description or fact.description
        fact.reassertions += 1
        fact.changed = not fact.new
        self._index_fact(fact)
        status = fact.open.state["status"]
        self._log("reassert", "fact", [fact.id], status=status)
        if status != "current":
            return Outcome(fact.id, f"kept {status}")
        changes = {}
        if item.valid_from and item.valid_from != fact.open.state["valid_from"]:
            changes["valid_from"] = item.valid_from
        if item.valid_to and item.valid_to != fact.open.state["valid_to"]:
            changes["valid_to"] = item.valid_to
        if not changes:
            return Outcome(fact.id, "reasserted")
        self._change_state(fact, **changes)
        if fact.relation in self.functional:
            state = fact.open.state
            self._key(self.entities[fact.subject_id], fact.relation).revalue(
                fact.id, state["valid_from"], state["valid_to"], fact.first_recorded)
        return self._settled(fact, "reasserted")

    def _settled(self, fact: _Fact, outcome: str) -> Outcome:
        superseded = self._settle(fact.subject_id, fact.relation) if fact.relation in self.functional else []
        if fact.id in superseded:
            return Outcome(fact.id, "filed as history", [s for s in superseded if s != fact.id])
        return Outcome(fact.id, outcome, superseded)

    def _settle(self, subject_id: str, relation: str) -> list[str]:
        """functional.settle, on the key held in memory."""
        superseded = []
        for move in self._key(self.entities[subject_id], relation).settle():
            fact = self.facts[move.fact] if move.fact in self.facts else self._read_fact(move.fact)
            if move.slotted:
                self._change_state(fact, superseded_by=move.by, valid_to=move.valid_to)
                self._log("supersede", "fact", [move.fact, move.by], automatic=True)
                continue
            self._change_state(fact, status="superseded", superseded_by=move.by, reason=AUTO_REASON, automatic=1,
                               valid_to=move.valid_to)
            self._log("supersede", "fact", [move.fact, move.by], automatic=True)
            self._resolve_contradictions(fact)
            superseded.append(move.fact)
        return superseded

    # -- entities ------------------------------------------------------------------------------

    def _ensure(self, name: str, type_name: str | None, description: str) -> _Entity:
        """The entity called `name`, created (typed) if it does not exist yet."""
        name = name.strip()
        if not name:
            raise InvalidInput("an entity needs a name")
        existing, candidates = self._find(name)
        if existing is not None:
            if type_name and self._type(type_name) != existing.type:
                raise InvalidInput(f"{existing.name!r} is a {existing.type}, not a {type_name.strip()}")
            if description and description != existing.description:
                existing.description = description
                existing.described = not existing.new
                self._index_entity(existing)
                self._log("describe", "entity", [existing.id])
            return existing
        key, new_id = self._named(name)
        if self._tombstoned(new_id):
            if not self.override:
                raise Forgotten(f"the entity {name!r} was forgotten; re-create it only on purpose (--override)")
            self._untombstone(new_id)
        check_new(name, type_name, candidates, confirmed=self.new)
        entity = _Entity(new_id, self.next_entity_n, name, key, self._type(type_name), description, None, new=True)
        self.next_entity_n += 1
        self.entities[new_id] = entity
        self.by_key[key].append(entity)
        if self.all_names is not None:
            self.all_names.add(new_id, name, entity.type)
        self.created.append(entity)
        self._index_entity(entity)
        self._log("entity", "entity", [new_id], type=entity.type, override=self.override or None)
        return entity

    def _find(self, name: str) -> tuple[_Entity | None, tuple[Candidate, ...]]:
        """store/resolve.py's resolve, on what was read ahead and created since: the entity, or the
        candidates a new entity of that name would be a near miss of. A name found once is that
        entity for the rest of the batch (a batch creates entities, and a name that found one finds
        it before any it creates), so a bulk ingest resolves each spelling once."""
        found = self.found.get(name)
        if found is None:
            found, candidates = self._resolve(name)
            if found is None:
                return None, candidates
            self.found[name] = found
        return found, ()

    def _resolve(self, name: str) -> tuple[_Entity | None, tuple[Candidate, ...]]:
        found = choose(name, self.by_key.get(self._named(name)[0], []), self._entity)
        if found is not None:
            return found.entity, ()
        if _SHORT_ID.fullmatch(name.lower()):
            by_id = self._by_short_id(name.lower())
            while by_id is not None and by_id.merged_into:
                by_id = self.entities[by_id.merged_into]
            if by_id is not None:
                return by_id, ()
        if self.all_names is None:
            self.all_names = self.kept.take(self.conn) if self.kept is not None else Names.read(self.conn)
            for entity in self.created:
                self.all_names.add(entity.id, entity.name, entity.type)
        resolved = self.all_names.resolve(name)
        if resolved.how == "folded":
            return self._entity(resolved.entity["id"]), ()   # type: ignore[index]
        return None, resolved.candidates

    def _entity(self, id_: str) -> _Entity:
        """An entity by id, read from the store the first time it is asked for."""
        if id_ not in self.entities:
            self._read_entities("id", [id_])
            self._read_merge_targets()
        return self.entities[id_]

    def _by_short_id(self, prefix: str) -> _Entity | None:
        stored = self.conn.execute("SELECT * FROM entities WHERE id LIKE ? LIMIT 2", (prefix + "%",)).fetchall()
        matches = {row["id"] for row in stored} | {e.id for e in self.created if e.id.startswith(prefix)}
        if len(matches) > 1:
            raise Ambiguous(f"{prefix!r} matches more than one entity id; give more of it")
        for row in stored:
            self._keep_entity(row)
        self._read_merge_targets()
        return self.entities[matches.pop()] if matches else None

    def _type(self, name: str) -> str:
        """ontology.resolve_type, on the types read once."""
        found = self.types.get(name.strip().translate(_ASCII_LOWER))
        if found is None:
            known = ", ".join(sorted(self.types.values()))
            raise UnknownType(f"unknown entity type {name!r}; known types: {known} "
                              "(add one with `memlens types add NAME`)")
        return found

    # -- facts ---------------------------------------------------------------------------------

    def _tombstoned(self, id_: str) -> bool:
        if id_ not in self.tombstones_read:  # an id the read-ahead could not foresee (a short-id match)
            self._read_tombstones([id_])
        return id_ in self.tombstones

    def _untombstone(self, id_: str) -> None:
        self.tombstones.discard(id_)
        self.untombstoned.append(id_)

    def _refuse_forgotten(self, fid: str, item: FactInput) -> None:
        """facts._refuse_forgotten: a forgotten triple (or holding) again only on purpose."""
        if self._tombstoned(fid):
            if not self.override:
                raise Forgotten(
                    f"{item.subject} --{item.relation}--> {item.object} was forgotten (fact {short(fid)}); "
                    "assert it again only on purpose (--override)"
                )
            self._untombstone(fid)

    def _holdings(self, subject: _Entity, relation: str, object_: _Entity) -> list[_Fact]:
        """Every holding of the triple, stored or made by this batch."""
        triple = (subject.id, relation, object_.id)
        if not (subject.new or object_.new):  # a stored fact names stored entities
            self._read_triple(triple)
        return [self.facts[fid] for fid in self.by_triple.get(triple, ())]

    @staticmethod
    def _held(fact: _Fact) -> Held:
        state = fact.open.state
        return Held(fact.id, state["valid_from"], state["valid_to"], state["valid_from"] or fact.first_recorded,
                    fact.arrival, state["status"] == "current")

    def _fact(self, fid: str) -> _Fact | None:
        if fid in self.facts:
            return self.facts[fid]
        if fid in self.looked_up_facts:
            return None
        self.looked_up_facts.add(fid)
        row = self.conn.execute(FACT_WITH_STATE + " WHERE f.id = ?", (fid,)).fetchone()
        return self._keep_fact(row) if row is not None else None

    def _read_triple(self, triple: tuple[str, str, str]) -> None:
        """The stored holdings of a triple the read-ahead could not foresee (a short-id match)."""
        marker = "|".join(triple)
        if marker in self.looked_up_facts:
            return
        self.looked_up_facts.add(marker)
        for row in self.conn.execute(FACT_WITH_STATE + " WHERE f.subject_id = ? AND f.relation = ? AND f.object_id = ?",
                                     triple):
            self._keep_fact(row)

    def _read_fact(self, fid: str) -> _Fact:
        """A stored value of a functional key that the settle touches."""
        found = self._fact(fid)
        assert found is not None, fid
        return found

    def _change_state(self, fact: _Fact, **changes: Any) -> None:
        """versions.change_state: amend a version of this record time, else close it and open the next."""
        version = fact.open
        state = dict(version.state, **changes)
        if "reason" in changes and "automatic" not in changes:
            state["automatic"] = 0
        if version.recorded_at == self.at:
            version.state = state
            version.amended = not version.new
            return
        version.retired = True
        fact.versions.append(_Version(version.number + 1, state, self.at, new=True))

    def _resolve_contradictions(self, fact: _Fact) -> None:
        """contradictions.resolve_all_of(fact, 'superseded', AUTO_REASON); new facts have none."""
        if fact.new:
            return
        for (cid,) in self.conn.execute(
                "SELECT id FROM contradictions WHERE resolved_at IS NULL AND (fact_a = ? OR fact_b = ?) ORDER BY id",
                (fact.id, fact.id)):
            if cid not in self.resolved:
                self.resolved.append(cid)
                self._log("resolve", "contradiction", [cid], resolution="superseded")

    def _key(self, subject: _Entity, relation: str) -> KeyHistory:
        key = (subject.id, relation)
        if key not in self.keys:
            # A subject created by this batch has no stored values to read.
            self.keys[key] = KeyHistory([]) if subject.new else KeyHistory.read(self.conn, subject.id, relation)
        return self.keys[key]

    def _value(self, fact: _Fact) -> Value:
        state = fact.open.state
        return Value(fact.id, fact.arrival, state["status"], state["superseded_by"], state["automatic"],
                     state["valid_from"], state["valid_to"], state["valid_from"] or fact.first_recorded)

    # -- the ledger and the search index -------------------------------------------------------

    def _log(self, action: str, kind: str, refs: list[str], **payload: object) -> int:
        return self.ledger.append(action, kind, refs, {k: v for k, v in payload.items() if v is not None})

    def _index_fact(self, fact: _Fact) -> None:
        if not fact.new:
            self.fts_deleted_facts.add(fact.n)
        self.fts_facts[fact.n] = fact_text(self.entities[fact.subject_id].name, fact.relation,
                                           self.entities[fact.object_id].name, fact.description, fact.evidence)

    def _index_entity(self, entity: _Entity) -> None:
        if not entity.new:
            self.fts_deleted_entities.add(entity.n)
        self.fts_entities[entity.n] = (entity.name, entity_about(entity.type, entity.description))

    # -- writing -------------------------------------------------------------------------------

    def write(self) -> None:
        """Everything worked out, one executemany per table and kind of change."""
        run = self.conn.executemany
        run("DELETE FROM tombstones WHERE id = ?", [(id_,) for id_ in self.untombstoned])
        run("""INSERT INTO entities (n, id, name, name_key, type, description, created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
            [(e.n, e.id, e.name, e.name_key, e.type, e.description, self.at, self.at) for e in self.created])
        run("UPDATE entities SET description = ?, updated_at = ? WHERE id = ?",
            [(e.description, self.at, e.id) for e in self.entities.values() if e.described])
        run("DELETE FROM entity_search WHERE rowid = ?", [(n,) for n in sorted(self.fts_deleted_entities)])
        run("INSERT INTO entity_search (rowid, name, about) VALUES (?, ?, ?)",
            [(n, *text) for n, text in sorted(self.fts_entities.items())])
        facts = sorted(self.facts.values(), key=lambda f: f.n)
        run("""INSERT INTO facts (n, id, subject_id, relation, object_id, description, evidence, actor, arrival,
                                  reassertions) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            [(f.n, f.id, f.subject_id, f.relation, f.object_id, f.description, json.dumps(f.evidence), f.actor,
              f.arrival, f.reassertions) for f in facts if f.new])
        run("UPDATE facts SET evidence = ?, description = ?, reassertions = ? WHERE id = ?",
            [(json.dumps(f.evidence), f.description, f.reassertions, f.id) for f in facts if f.changed])
        versions = [(f, v) for f in facts for v in f.versions]
        run("UPDATE fact_versions SET retired_at = ? WHERE fact_id = ? AND version = ?",
            [(self.at, f.id, v.number) for f, v in versions if v.retired and not v.new])
        assignments = ", ".join(f"{column} = ?" for column in STATE_COLUMNS)
        run(f"UPDATE fact_versions SET {assignments} WHERE fact_id = ? AND version = ?",
            [(*[v.state[c] for c in STATE_COLUMNS], f.id, v.number) for f, v in versions if v.amended])
        run(f"""INSERT INTO fact_versions (fact_id, version, {', '.join(STATE_COLUMNS)}, recorded_at, retired_at)
                VALUES (?, ?, {', '.join('?' * len(STATE_COLUMNS))}, ?, ?)""",
            [(f.id, v.number, *[v.state[c] for c in STATE_COLUMNS], v.recorded_at, self.at if v.retired else None)
             for f, v in versions if v.new])
        run("DELETE FROM fact_search WHERE rowid = ?", [(n,) for n in sorted(self.fts_deleted_facts)])
        run("INSERT INTO fact_search (rowid, text) VALUES (?, ?)", sorted(self.fts_facts.items()))
        run("UPDATE contradictions SET resolved_at = ?, resolution = 'superseded', resolution_reason = ? WHERE id = ?",
            [(self.at, AUTO_REASON, cid) for cid in self.resolved])
        self.ledger.write()
