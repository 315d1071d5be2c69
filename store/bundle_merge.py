"""Merging a teammate's memory (the snapshot a memlens bundle carries) into a dataset that holds memories.

The rules, which make a merge idempotent (the same bundle again changes nothing, not even the
ledger) and convergent (two memories that exchange bundles, in either order and any number of
rounds, end with the same facts in the same states and the same contradictions):

- The same id is the same record (an entity's id is its normalized name's, a fact's its triple's or
  its holding's): one fact, whose evidence gains the teammate's.
- A shared fact whose states differ takes the later judgement. A state with a reason (a supersession,
  a retraction, a restore, the functional order's) beats a bare assertion, which never revives a
  judged fact (supersession holds, as when a fact is said again); between two of a kind, the one
  decided later by the record time where it was decided (`judged_at`, carried in bundles), ties
  broken by the states themselves, so both sides pick the same.
- What the merge brings is recorded at the merge's time, so time travel to before it shows the
  memory without it; the teammate's actor stays the fact's, and where and when it was recorded
  there is its origin (`facts.origin`; a version's `judged_at` and `bundle`).
- A functional key left with several current values takes the order of their valid times where
  each has a valid_from and no two share one; otherwise each pair is an open contradiction for a
  person, never a silent supersession (its id derived from the pair and when each value was
  decided, so both memories ask the same question once).
- Their contradictions come with their facts; a question closed on either side is closed. Their
  entity merges are made here; a fact of theirs naming an entity merged here is carried to the
  entity it went into, as the merge carried this memory's.
- A fact they forgot is not in their bundle and stays here; a fact forgotten here is not brought
  back, nor is anything naming an entity forgotten here. The merge counts both, and this memory's
  facts their bundle does not hold.

Everything lands in one transaction under the actor `import:memlens`: one ledger row per record the
merge adds or changes (`import`, or the row the store's own rule writes: `contest`, `resolve`,
`supersede`, `move`, `merge`), and one `import dataset` row naming the bundle's seal.
"""
from __future__ import annotations

import json
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from . import contradictions, functional, ledger, merging, search
from .db import Tx, dumps, rows_in
from .errors import Ambiguous, Forgotten
from .ids import derived_id, normalize_name
from .memory import Memory
from .resolve import Names, Resolution
from .observations import OBSERVATION_POSITION, is_observation
from .snapshot import build_within
from .snapshot.diff import diff
from .snapshot.load import automatic, holds_memories, load, writing_whole
from .snapshot.shape import check_loadable
from .timefmt import utc_now
from .versions import FACT_WITH_STATE

ACTOR = "import:memlens"
SOURCE = "memlens"
# the reason of a contradiction a merge opens on a functional key
UNORDERED_REASON = "two current values from a merge; their valid times do not say which came later"
_STATE = ("status", "superseded_by", "reason", "valid_from", "valid_to")


@dataclass
class Merged:
    """What a merge did (or, dry, would do), counted; `notes` say what it left for a person."""

    bundle: str
    dataset: str
    counts: Counter = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    near_misses: list[dict[str, Any]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(self.counts[key] for key in CHANGES)

    def as_dict(self) -> dict[str, Any]:
        return {"bundle": self.bundle, "from": self.dataset, "merged": True,
                **{key: self.counts[key] for key in (*CHANGES, *KEPT)}, "notes": self.notes,
                "near_misses": self.near_misses}


# what a merge counts: the changes (any of them makes the ledger rows), then what it kept as it was
CHANGES = ("entities_added", "entities_described", "entities_merged", "facts_added", "facts_judged",
           "facts_with_more_evidence", "facts_described", "facts_carried", "facts_ordered",
           "contradictions_added", "contradictions_opened", "contradictions_resolved", "dismissals_added",
           "types_added", "relations_added", "relations_made_functional")
KEPT = ("facts_yours_only", "facts_kept_forgotten", "facts_yours_judged_later", "descriptions_differ",
        "entities_kept_forgotten", "types_differ", "merges_differ")


def take_bundle(memory: Memory, snapshot: dict[str, Any], *, bundle: str,
                dry_run: bool = False) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """`import --from memlens`: the bundle's memory (its seal checked by the caller) into `memory`:
    copied whole into an empty dataset (snapshot/load.py), merged into one that holds memories.
    Returns what was done, counted, and for a dry run (written, then rolled back) the diff from the
    dataset as it is to what the import would make of it."""
    check_loadable(snapshot, utc_now())   # the world's time: a store's own clock may be a test's
    try:
        with writing_whole(memory, ACTOR) as tx:
            before = build_within(tx.conn, memory.name) if dry_run else None
            if holds_memories(tx.conn):
                done = merge(tx, snapshot, bundle).as_dict()
            else:
                done = dict(load(tx, snapshot, SOURCE), merged=False)
            if before is not None:
                after = build_within(tx.conn, memory.name)
                raise _DryRun(done, diff(before, after, names=(memory.name, f"{memory.name} after the import"),
                                         newer_from_the_store=True))
    except _DryRun as dry:
        return dry.done, dry.changes
    return done, None


class _DryRun(Exception):
    """Raised inside the write to roll it back, carrying what it did and the diff it made."""

    def __init__(self, done: dict[str, Any], changes: dict[str, Any]) -> None:
        super().__init__("dry run")
        self.done, self.changes = done, changes


def merge(tx: Tx, snapshot: dict[str, Any], bundle: str) -> Merged:
    """Merge `snapshot` (shape-checked, its seal checked) into the store `tx` writes; `bundle` names it
    (its seal's content hash)."""
    return _Merge(tx, snapshot, bundle).run()


class _Merge:
    def __init__(self, tx: Tx, snapshot: dict[str, Any], bundle: str) -> None:
        self.tx, self.conn, self.snapshot, self.bundle = tx, tx.conn, snapshot, bundle
        self.result = Merged(bundle, snapshot["dataset"])
        self.count = self.result.counts
        self.origin_dataset = snapshot["dataset"][:200]
        self.pending = ledger.Pending(self.conn, tx.at, tx.actor)
        self.forgotten = {row[0] for row in self.conn.execute("SELECT id FROM tombstones")}
        self.new_entities: set[str] = set()
        self.new_facts: set[str] = set()
        self.touched: set[str] = set()          # facts whose state the merge set: their keys are ordered again
        self.uncurrent: list[tuple[str, str]] = []   # (fact, status): no longer current, its questions close

    def run(self) -> Merged:
        self._ontology()
        self._entities()
        self._facts()
        self.pending.write()
        self._close_questions_of_judged_facts()
        self._contradictions()
        self._entity_merges()
        self._order_functional_keys()
        self._dismissals()
        if self.result.changed:
            self.tx.log("import", "dataset", [], source=SOURCE, bundle=self.bundle, dataset=self.origin_dataset,
                        source_hash=self.snapshot["hash"], **{k: v for k, v in self.count.items() if v})
        return self.result

    def _log(self, action: str, kind: str, refs: list[str], **payload: object) -> int:
        return self.pending.append(action, kind, refs, {k: v for k, v in payload.items() if v is not None})

    # -- the ontology ----------------------------------------------------------------------------

    def _ontology(self) -> None:
        known = {name.lower() for (name,) in self.conn.execute("SELECT name FROM types")}
        wanted = set(self.snapshot["ontology"]["types"]) | {e["type"] for e in self.snapshot["entities"]}
        for name in sorted(wanted):
            if name.lower() not in known:
                self.conn.execute("INSERT INTO types (name, added_at) VALUES (?, ?)", (name, self.tx.at))
                self._log("add_type", "type", [], type=name, bundle=self.bundle)
                known.add(name.lower())
                self.count["types_added"] += 1
        mine = {name: bool(flag) for name, flag in self.conn.execute("SELECT name, functional FROM relations")}
        theirs = {r["name"]: bool(r["functional"]) for r in self.snapshot["ontology"]["relations"]}
        self.newly_functional: list[str] = []
        for name, flag in sorted(theirs.items()):
            if flag and not mine.get(name):   # one side holds it to one value (facts here may use it undeclared)
                self.conn.execute("""INSERT INTO relations (name, functional, declared_at) VALUES (?, 1, ?)
                                     ON CONFLICT (name) DO UPDATE SET functional = 1, declared_at = excluded.declared_at""",
                                  (name, self.tx.at))
                self._log("declare_functional", "relation", [], relation=name, bundle=self.bundle)
                self.newly_functional.append(name)
                self.count["relations_made_functional"] += 1
            elif name not in mine:
                self.conn.execute("INSERT INTO relations (name, functional, declared_at) VALUES (?, 0, ?)",
                                  (name, self.tx.at))
                self.count["relations_added"] += 1
        self.types = {}
        for (name,) in self.conn.execute("SELECT name FROM types ORDER BY added_at IS NOT NULL, name"):
            self.types.setdefault(name.lower(), name)

    # -- entities ----------------------------------------------------------------------------------

    def _entities(self) -> None:
        theirs = self.snapshot["entities"]
        self.mine = {row["id"]: row for row in rows_in(self.conn, "SELECT * FROM entities WHERE id IN ({})",
                                                           [e["id"] for e in theirs])}
        next_n = self.conn.execute("SELECT coalesce(max(n), 0) + 1 FROM entities").fetchone()[0]
        names = Names.read(self.conn)   # this memory's names, before the merge adds theirs
        added, indexed = [], []
        for entity in theirs:
            eid = entity["id"]
            if eid in self.forgotten:
                self.count["entities_kept_forgotten"] += 1
                continue
            mine = self.mine.get(eid)
            if mine is None:
                kind = self.types[entity["type"].lower()]
                added.append((next_n, eid, entity["name"], normalize_name(entity["name"]), kind,
                              entity["description"] or "", self.tx.at, self.tx.at, entity.get(OBSERVATION_POSITION)))
                indexed.append((next_n, entity["name"], search.entity_about(kind, entity["description"] or "")))
                self._log("import", "entity", [eid], source=SOURCE, bundle=self.bundle, type=kind)
                self.new_entities.add(eid)
                next_n += 1
                if not entity["merged_into"] and not is_observation(entity):   # an observation's text is no name
                    self._near_miss(names, entity)
                continue
            if mine["type"].lower() != entity["type"].lower():
                self.count["types_differ"] += 1
            if entity["description"] and entity["description"] != mine["description"]:
                if mine["description"]:
                    self.count["descriptions_differ"] += 1
                else:   # theirs says what this one did not: taken, as a merge of entities takes it
                    self.conn.execute("UPDATE entities SET description = ?, updated_at = ? WHERE id = ?",
                                      (entity["description"], self.tx.at, eid))
                    if not mine["merged_into"]:
                        self.conn.execute("DELETE FROM entity_search WHERE rowid = ?", (mine["n"],))
                        indexed.append((mine["n"], mine["name"], search.entity_about(mine["type"], entity["description"])))
                    self._log("describe", "entity", [eid], bundle=self.bundle)
                    self.count["entities_described"] += 1
        self.conn.executemany("""INSERT INTO entities (n, id, name, name_key, type, description, created_at, updated_at,
                                                       observation_position)
                                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""", added)
        self.conn.executemany("INSERT INTO entity_search (rowid, name, about) VALUES (?, ?, ?)", indexed)
        self.count["entities_added"] += len(added)

    def _near_miss(self, names: Names, entity: dict[str, Any]) -> None:
        """Their new entity whose name the resolver finds near one of this memory's: said, never
        merged (a person merges the two if they are one, and the merge travels in their bundle)."""
        try:
            found = names.resolve(entity["name"], type_name=entity["type"])
        except Ambiguous:   # it folds like several of this memory's names, themselves twins
            found = Resolution(entity["name"], "candidates", None, names.candidates(entity["name"], entity["type"]))
        if found.entity is not None:
            yours = [{"id": found.entity["id"], "name": found.entity["name"], "type": found.entity["type"]}]
            why = "the same name but for case, spaces or separators"
        elif found.candidates:
            yours = [{"id": c.id, "name": c.name, "type": c.type} for c in found.candidates]
            why = {"word": "one name is words of the other", "spelling": "spelt alike"}[found.candidates[0].why]
        else:
            return
        self.result.near_misses.append({"id": entity["id"], "name": entity["name"], "type": entity["type"],
                                        "yours": yours, "why": why})

    # -- facts -------------------------------------------------------------------------------------

    def _facts(self) -> None:
        theirs = [f for f in self.snapshot["facts"] if f["status"] != "forgotten"]
        held = {f["id"] for f in theirs}
        mine = {row["id"]: row for row in rows_in(
            self.conn, FACT_WITH_STATE.replace("SELECT f.*", "SELECT f.*, v.judged_at") + " WHERE f.id IN ({})",
            sorted(held))}
        self.count["facts_yours_only"] = self.conn.execute("SELECT count(*) FROM facts").fetchone()[0] - len(mine)
        names = {row[0]: row[1] for row in self.conn.execute("SELECT id, name FROM entities")}
        next_n = self.conn.execute("SELECT coalesce(max(n), 0) + 1 FROM facts").fetchone()[0]
        rows, versions, indexed = [], [], []
        for fact in sorted(theirs, key=lambda f: (f["recorded_at"], f["id"])):   # their arrival order
            fid = fact["id"]
            if fid in self.forgotten:
                self.count["facts_kept_forgotten"] += 1
                continue
            if fact["subject"] in self.forgotten or fact["object"] in self.forgotten:
                self.count["facts_kept_forgotten"] += 1   # it names an entity forgotten here
                continue
            if fid in mine:
                self._shared(mine[fid], fact, names)
                continue
            seq = self._log("import", "fact", [fid, fact["subject"], fact["object"]], source=SOURCE,
                            bundle=self.bundle, status=fact["status"], superseded_by=fact["superseded_by"],
                            judged_at=_judged(fact["history"][-1]))
            origin = {"bundle": self.bundle, "dataset": self.origin_dataset, "recorded_at": fact["recorded_at"]}
            rows.append((next_n, fid, fact["subject"], fact["relation"], fact["object"], fact["description"] or "",
                         json.dumps(list(fact["evidence"])), fact["actor"] or self.tx.actor, seq,
                         fact["reassertions"], dumps(origin)))
            state = fact["history"][-1]
            versions.append((fid, 1, *(state[c] for c in _STATE), automatic(state), self.tx.at, _judged(state),
                             self.bundle))
            indexed.append((next_n, search.fact_text(names[fact["subject"]], fact["relation"], names[fact["object"]],
                                                     fact["description"] or "", list(fact["evidence"]))))
            self.new_facts.add(fid)
            self.touched.add(fid)
            next_n += 1
        self.conn.executemany("""INSERT INTO facts (n, id, subject_id, relation, object_id, description, evidence,
                                                    actor, arrival, reassertions, origin)
                                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""", rows)
        self.conn.executemany(f"""INSERT INTO fact_versions (fact_id, version, {', '.join(_STATE)}, automatic,
                                                            recorded_at, judged_at, bundle)
                                  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""", versions)
        self.conn.executemany("INSERT INTO fact_search (rowid, text) VALUES (?, ?)", indexed)
        self.count["facts_added"] += len(rows)

    def _shared(self, mine: sqlite3.Row, theirs: dict[str, Any], names: dict[str, str]) -> None:
        """One fact both memories hold: its evidence gains theirs; its state is the later judgement's."""
        fid = mine["id"]
        evidence = json.loads(mine["evidence"])
        more = [e for e in theirs["evidence"] if e not in evidence]
        description = mine["description"] or theirs["description"] or ""
        if theirs["description"] and mine["description"] and theirs["description"] != mine["description"]:
            self.count["descriptions_differ"] += 1
        reworded = more or description != mine["description"]
        if reworded:
            self.conn.execute("UPDATE facts SET evidence = ?, description = ? WHERE id = ?",
                              (json.dumps(evidence + more), description, fid))
            self.conn.execute("DELETE FROM fact_search WHERE rowid = ?", (mine["n"],))
            self.conn.execute("INSERT INTO fact_search (rowid, text) VALUES (?, ?)", (mine["n"], search.fact_text(
                names[mine["subject_id"]], mine["relation"], names[mine["object_id"]], description, evidence + more)))
            self.count["facts_with_more_evidence" if more else "facts_described"] += 1
        state, ours = theirs["history"][-1], {c: mine[c] for c in _STATE}
        differs = any(state[c] != ours[c] for c in _STATE)
        takes = differs and _rank(state, _judged(state)) > _rank(ours, mine["judged_at"] or mine["state_since"])
        if differs and not takes:
            self.count["facts_yours_judged_later"] += 1
        if not (takes or reworded):
            return
        now = state if takes else ours
        self._log("import", "fact", [fid], source=SOURCE, bundle=self.bundle, status=now["status"],
                  superseded_by=now["superseded_by"], judged_at=_judged(state) if takes else None,
                  evidence_added=len(more) or None)
        if takes:
            self._take_state(mine, state)
            if ours["status"] == "current" and state["status"] != "current":
                self.uncurrent.append((fid, state["status"]))

    def _take_state(self, mine: sqlite3.Row, state: dict[str, Any]) -> None:
        """Their state of a shared fact, as a version of this record time that says where it was decided."""
        fid = mine["id"]
        values = (*(state[c] for c in _STATE), automatic(state), _judged(state), self.bundle)
        if mine["state_since"] == self.tx.at:   # a version of this very record time: amended, as change_state does
            self.conn.execute(f"""UPDATE fact_versions SET {', '.join(c + ' = ?' for c in _STATE)}, automatic = ?,
                                  judged_at = ?, bundle = ? WHERE fact_id = ? AND version = ?""",
                              (*values, fid, mine["version"]))
        else:
            self.conn.execute("UPDATE fact_versions SET retired_at = ? WHERE fact_id = ? AND version = ?",
                              (self.tx.at, fid, mine["version"]))
            self.conn.execute(f"""INSERT INTO fact_versions (fact_id, version, {', '.join(_STATE)}, automatic,
                                                            judged_at, bundle, recorded_at)
                                  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                              (fid, mine["version"] + 1, *values, self.tx.at))
        self.count["facts_judged"] += 1
        self.touched.add(fid)

    # -- contradictions ----------------------------------------------------------------------------

    def _close_questions_of_judged_facts(self) -> None:
        """A fact the merge made superseded or retracted settles its open questions here, as it did there."""
        for fid, status in self.uncurrent:
            for cid in contradictions.open_ids_of(self.conn, fid):
                contradictions.resolve(self.tx, cid, status)
                self.count["contradictions_resolved"] += 1

    def _contradictions(self) -> None:
        mine = {row["id"]: row for row in rows_in(self.conn, "SELECT * FROM contradictions WHERE id IN ({})",
                                                      [c["id"] for c in self.snapshot["contradictions"]])}
        for theirs in self.snapshot["contradictions"]:
            cid, pair = theirs["id"], sorted(theirs["facts"])
            if cid in mine:
                if mine[cid]["resolved_at"] is None and theirs["resolved_at"] is not None:
                    contradictions.resolve(self.tx, cid, theirs["resolution"] or "dismissed", theirs["resolution_reason"])
                    self.count["contradictions_resolved"] += 1
                continue
            states = dict(self.conn.execute(
                "SELECT fact_id, status FROM fact_versions WHERE retired_at IS NULL AND fact_id IN (?, ?)", pair).fetchall())
            if len(states) < 2 or "forgotten" in states.values():
                continue   # a fact of it forgotten here, or on an entity forgotten here
            if theirs["resolved_at"] is None and contradictions.open_between(self.conn, *pair):
                continue   # the same question is open here already
            resolution, reason = theirs["resolution"], theirs["resolution_reason"]
            if theirs["resolved_at"] is None and set(states.values()) != {"current"}:
                # open there, but a fact of it is judged here: settled, as the judgement settled it
                resolution, reason = next(s for s in states.values() if s != "current"), None
            self.conn.execute(
                """INSERT INTO contradictions (id, fact_a, fact_b, reason, confidence, actor, recorded_at, resolved_at,
                                               resolution, resolution_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (cid, pair[0], pair[1], theirs["reason"] or "", theirs["confidence"], theirs["actor"] or self.tx.actor,
                 self.tx.at, self.tx.at if resolution else None, resolution, reason))
            if resolution is None:
                self.tx.log("contest", "contradiction", [cid, *pair], confidence=theirs["confidence"], bundle=self.bundle)
            else:
                self.tx.log("import", "contradiction", [cid, *pair], source=SOURCE, bundle=self.bundle, open=False)
            self.count["contradictions_added"] += 1

    # -- entity merges -----------------------------------------------------------------------------

    def _entity_merges(self) -> None:
        """Their merges made here; then the facts they brought that name an entity merged here are
        carried to the entity it went into."""
        theirs = sorted((e for e in self.snapshot["entities"] if e["merged_into"] and e["id"] not in self.forgotten),
                        key=lambda e: (e["merged_at"], e["id"]))
        for entity in theirs:
            self._merge_entity(entity)
        self._carry_brought_facts()

    def _merge_entity(self, entity: dict[str, Any]) -> None:
        drop = self.conn.execute("SELECT * FROM entities WHERE id = ?", (entity["id"],)).fetchone()
        keep = _live(self.conn, entity["merged_into"])
        if keep is None:   # what it went into is forgotten here
            self.count["merges_differ"] += 1
            return
        if drop["merged_into"] is not None:
            if _live(self.conn, drop["id"])["id"] != keep["id"]:
                self.count["merges_differ"] += 1
                self.result.notes.append(f"their {drop['name']!r} was merged into {keep['name']!r}; yours into "
                                         f"{_live(self.conn, drop['id'])['name']!r}: yours kept")
            return
        if keep["id"] == drop["id"]:   # here, what they merged away is what the other went into
            self.count["merges_differ"] += 1
            self.result.notes.append(f"they merged {drop['name']!r} into {entity['merged_into']!r}; here the "
                                     f"other went into it: yours kept")
            return
        if drop["id"] in self.new_entities:
            # brought by this merge, it arrives merged, as it is there (its facts are carried below)
            self.conn.execute("UPDATE entities SET merged_into = ?, merged_at = ? WHERE id = ?",
                              (keep["id"], self.tx.at, drop["id"]))
            search.unindex_entity(self.conn, drop["n"])
            self.tx.log("merge", "entity", [keep["id"], drop["id"]], bundle=self.bundle)
        elif not self._merged_here(keep, drop):
            return
        self.count["entities_merged"] += 1

    def _merged_here(self, keep: sqlite3.Row, drop: sqlite3.Row) -> bool:
        """Their merge of `drop` into `keep`, made here as `memlens merge` makes it; not made (and
        said) where it would bring back a fact forgotten here."""
        self.conn.execute("SAVEPOINT entity_merge")
        try:
            merging.merge(self.tx, keep["id"], drop["id"])
        except Forgotten:
            self.conn.execute("ROLLBACK TO entity_merge")
            self.count["merges_differ"] += 1
            self.result.notes.append(f"they merged {drop['name']!r} into {keep['name']!r}, which here would bring back "
                                     "a fact you forgot: not merged")
            return False
        finally:
            self.conn.execute("RELEASE entity_merge")
        return True

    def _naming(self, entity_id: str) -> list[sqlite3.Row]:
        return self.conn.execute(FACT_WITH_STATE + " WHERE (f.subject_id = ? OR f.object_id = ?) ORDER BY f.arrival",
                                 (entity_id, entity_id)).fetchall()

    def _carry_brought_facts(self) -> None:
        merged_away = {row["id"]: row for row in rows_in(
            self.conn, "SELECT * FROM entities WHERE merged_into IS NOT NULL AND id IN ({})",
            sorted({end for fid in self.new_facts for end in self._ends(fid)}))}
        for drop in sorted(merged_away.values(), key=lambda e: (e["merged_at"], e["id"])):
            keep = _live(self.conn, drop["id"])
            facts = [f for f in self._naming(drop["id"]) if f["id"] in self.new_facts]
            facts = [f for f in facts if f["id"] not in merging.moved_already(self.tx, keep["id"], drop["id"], facts)]
            if not facts:
                continue
            moved = merging.move_facts(self.tx, keep, drop, facts)
            self.touched.update(moved.values())
            self.count["facts_carried"] += len(facts)

    def _ends(self, fid: str) -> tuple[str, ...]:
        row = self.conn.execute("SELECT subject_id, object_id FROM facts WHERE id = ?", (fid,)).fetchone()
        return tuple(row) if row else ()

    # -- functional keys ---------------------------------------------------------------------------

    def _order_functional_keys(self) -> None:
        keys = {tuple(row) for row in rows_in(
            self.conn, """SELECT DISTINCT f.subject_id, f.relation FROM facts f JOIN relations r ON r.name = f.relation
                          WHERE r.functional = 1 AND f.id IN ({})""", list(self.touched))}
        for relation in self.newly_functional:
            keys.update(self.conn.execute("SELECT DISTINCT subject_id, relation FROM facts WHERE relation = ?",
                                          (relation,)).fetchall())
        for subject_id, relation in sorted(tuple(key) for key in keys):
            self._order(subject_id, relation)

    def _order(self, subject_id: str, relation: str) -> None:
        """Several current values of one functional key: ordered by valid time where their times say
        which came later, else an open contradiction for each pair (never a silent supersession)."""
        current = self.conn.execute(
            FACT_WITH_STATE.replace("SELECT f.*", "SELECT f.*, v.judged_at") + """ WHERE f.subject_id = ? AND
            f.relation = ? AND v.status = 'current' ORDER BY f.id""", (subject_id, relation)).fetchall()
        if len(current) < 2:
            return
        starts = [row["valid_from"] for row in current]
        asked = any(contradictions.open_between(self.conn, a["id"], b["id"]) for a, b in combinations(current, 2))
        if None not in starts and len(set(starts)) == len(starts) and not asked:
            self.count["facts_ordered"] += len(functional.settle(self.tx, subject_id, relation))
            return
        for a, b in combinations(current, 2):
            if contradictions.open_between(self.conn, a["id"], b["id"]):
                continue
            cid = derived_id("contradiction", a["id"], b["id"], "merge", a["judged_at"] or a["state_since"],
                             b["judged_at"] or b["state_since"])
            if self.conn.execute("SELECT 1 FROM contradictions WHERE id = ?", (cid,)).fetchone():
                continue   # asked before, and answered (dismissed): the same two values, the same answer
            self.conn.execute("""INSERT INTO contradictions (id, fact_a, fact_b, reason, confidence, actor, recorded_at)
                                 VALUES (?, ?, ?, ?, ?, ?, ?)""",
                              (cid, a["id"], b["id"], UNORDERED_REASON, 0.5, self.tx.actor, self.tx.at))
            self.tx.log("contest", "contradiction", [cid, a["id"], b["id"]], confidence=0.5, bundle=self.bundle)
            self.count["contradictions_opened"] += 1

    # -- dismissals --------------------------------------------------------------------------------

    def _dismissals(self) -> None:
        mine = {(key, content) for key, content in self.conn.execute("SELECT key, content FROM dismissals")}
        for d in self.snapshot["dismissals"]:
            if (d["key"], d["content"]) in mine:
                continue
            self.conn.execute("INSERT INTO dismissals (key, kind, content, reason, actor, at) VALUES (?, ?, ?, ?, ?, ?)",
                              (d["key"], d["kind"], d["content"], d["reason"], d["actor"], self.tx.at))
            self.tx.log("import", "dismissal", [], source=SOURCE, bundle=self.bundle, key=d["key"], content=d["content"])
            mine.add((d["key"], d["content"]))
            self.count["dismissals_added"] += 1


def _judged(version: dict[str, Any]) -> str:
    """When a version's state was decided, where it was: kept from the memory that decided it."""
    return version.get("judged_at") or version["from"]


def _rank(state: dict[str, Any] | sqlite3.Row, judged: str) -> tuple[bool, str, str]:
    """Which of two states of one fact holds after a merge: the greater. A judgement (a state with a
    reason) over a bare assertion, then the later, then the state itself, so both memories agree."""
    return state["reason"] is not None, judged, dumps([state[c] for c in _STATE])


def _live(conn: sqlite3.Connection, entity_id: str) -> sqlite3.Row | None:
    """The live entity `entity_id` is, or went into, here; None if it is not here (forgotten)."""
    row = conn.execute("SELECT * FROM entities WHERE id = ?", (entity_id,)).fetchone()
    while row is not None and row["merged_into"]:
        row = conn.execute("SELECT * FROM entities WHERE id = ?", (row["merged_into"],)).fetchone()
    return row


