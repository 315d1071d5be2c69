"""Importing the MCP reference memory server's file, again and again: the history it never kept.

The server keeps only the present: a deleted observation or relation is simply gone from its
file. Each import into the same dataset records what changed since the one before, in one
transaction under the actor `import:mcp-memory`: what is new is asserted, what vanished is
retracted, what came back is restored, each at the import's record time and citing the file's
digest. So repeated imports give that memory a timeline, time travel and `memlens diff`. An
entity deleted and re-created is one entity (its id comes from its name) whose facts have a gap.

Only a dataset that is empty, or that was made by importing the same file (its path, hashed in
the import's ledger row), is written: anything else would retract memories the file never held.
Facts memlens users wrote themselves, and what they judged (superseded) or forgot, are left as
they are.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import corrections, functional, ontology, search
from ...db import Tx, rows_in
from ...errors import Conflict
from ...ids import normalize_name
from ...observations import OBSERVATION_TYPE
from . import OBSERVATION_RELATION, Link, Node, stated, unknown_description
from .file import TOOL, MemoryFile
from ...memory import Memory
from ...versions import FACT_WITH_STATE, insert_version

ACTOR = f"import:{TOOL}"
_NUMBERED = re.compile(r"(\d+)\. (.*)", re.S)   # an observation's name before observations had places


def file_key(path: Path) -> str:
    """Which file a dataset was imported from, without writing its path (a home folder) anywhere."""
    return "sha256:" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]


def import_memory_file(dataset: Path, memory: MemoryFile) -> dict[str, Any]:
    """Record in `dataset` (made if absent) what `memory` says that the last import did not. An
    import that changes nothing writes nothing, so a report regenerated after it stays as it was."""
    with Memory(dataset, actor=ACTOR) as store, store.writing(ACTOR) as tx:
        first = _refuse_another_source(tx, store.name, memory)
        return _Changes(tx, memory).write(first=first)


def _refuse_another_source(tx: Tx, dataset: str, memory: MemoryFile) -> bool:
    """Whether this is the dataset's first import; refused if it holds memories from elsewhere."""
    held = tx.one("""SELECT (SELECT count(*) FROM ledger) + (SELECT count(*) FROM entities)
                            + (SELECT count(*) FROM tombstones)""")[0]
    if not held:
        return True
    key = file_key(memory.path)
    for row in tx.all("SELECT payload FROM ledger WHERE action = 'import' AND kind = 'dataset' AND actor = ?", (ACTOR,)):
        if json.loads(row["payload"]).get("source_file") == key:
            return False
    raise Conflict(f"dataset {dataset} already holds memories that were not imported from {memory.path}; "
                   "import it into a new dataset, or into the one made from that file before")


@dataclass
class _Fact:
    status: str
    actor: str
    evidence: list[str]
    subject: str
    relation: str


class _Changes:
    """One import's writes: the file's graph set against what the dataset holds."""

    def __init__(self, tx: Tx, memory: MemoryFile) -> None:
        self.tx, self.memory = tx, memory
        self.stated = stated(memory)
        self.forgotten = {row[0] for row in tx.all("SELECT id FROM tombstones")}
        self.entities = {row["id"]: dict(row) for row in tx.all(
            "SELECT id, name, type, description, observation_position FROM entities")}
        self.facts = {row["id"]: _Fact(row["status"], row["actor"], json.loads(row["evidence"]), row["subject_id"],
                                       row["relation"])
                      for row in tx.all(FACT_WITH_STATE)}
        self.asserted: dict[tuple[str, str], list[str]] = {}   # (subject, relation) -> facts new in this import
        self.types: dict[str, str] = {}  # as written -> the ontology's spelling, added if new
        self.counts = {"entities_added": 0, "observations_added": 0, "retyped": 0, "placed": 0, "asserted": 0,
                       "restored": 0, "retracted": 0, "superseded": 0, "kept_forgotten": 0,
                       "skipped_lines": len(memory.skipped)}

    def write(self, *, first: bool) -> dict[str, Any]:
        self._place_numbered()
        places = self._places()
        for node in self.stated.nodes.values():
            if node.id in self.forgotten:
                self.counts["kept_forgotten"] += 1
            elif node.id in self.entities:
                self._follow(node, places.get(node.id))
            else:
                self._add(node, places.get(node.id))
        for link in self.stated.links.values():
            self._state(link)
        self._retract_vanished()
        summary = {"source": TOOL, "file": self.memory.path.name, "file_digest": self.memory.digest,
                   "source_file": file_key(self.memory.path), **self.counts}
        changed = any(self.counts[key] for key in ("entities_added", "observations_added", "retyped", "placed",
                                                   "asserted", "restored", "retracted", "superseded"))
        if first or changed:
            self.tx.log("import", "dataset", [], **summary)
        return summary

    def _places(self) -> dict[str, int]:
        """Where each observation the file states goes in its entity's list. One keeps its place
        while the file keeps the order the dataset has (the server only appends and deletes);
        a new one, or one the file moved (one added again goes last), takes the place after every
        one its entity's observations ever had here, so no two share one, current or not."""
        top = {row[0]: row[1] for row in self.tx.all(
            "SELECT f.subject_id, max(o.observation_position) FROM facts f JOIN entities o ON o.id = f.object_id "
            "WHERE f.relation = ? AND o.observation_position IS NOT NULL GROUP BY f.subject_id",
            (OBSERVATION_RELATION,))}
        places: dict[str, int] = {}
        last: dict[str, int] = {}   # entity id -> the place of its observation the file stated last
        for link in self.stated.links.values():   # in the file's order
            if link.observation is None or link.object in self.forgotten:
                continue
            held = self.entities.get(link.object)
            place = held["observation_position"] if held else None
            before = last.get(link.subject, 0)
            if place is None or place <= before:
                place = top[link.subject] = max(top.get(link.subject, 0), before) + 1
            places[link.object] = last[link.subject] = place
        return places

    def _place_numbered(self) -> None:
        """An import made before observations had places named each `001. text`: it takes its
        number as its place and its text as its name (once; `_places` then orders them)."""
        rows = self.tx.all(
            "SELECT o.id, o.name FROM facts f JOIN entities o ON o.id = f.object_id WHERE f.relation = ? "
            "AND f.actor = ? AND o.type = ? AND o.observation_position IS NULL",
            (OBSERVATION_RELATION, ACTOR, OBSERVATION_TYPE))
        for row in rows:
            numbered = _NUMBERED.fullmatch(row["name"])
            if numbered:
                self._place(row["id"], int(numbered[1]), numbered[2])

    def _place(self, node_id: str, place: int, name: str | None = None) -> None:
        held = self.entities[node_id]
        name = held["name"] if name is None else name
        self.tx.conn.execute(
            "UPDATE entities SET name = ?, name_key = ?, observation_position = ?, updated_at = ? WHERE id = ?",
            (name, normalize_name(name), place, self.tx.at, node_id))
        if name != held["name"]:   # the search index holds the name, and each fact's text names it
            search.index_entity(self.tx.conn, node_id)
            for row in self.tx.all("SELECT id FROM facts WHERE object_id = ?", (node_id,)):
                search.index_fact(self.tx.conn, row[0])
        self.tx.log("place", "entity", [node_id], position=place)
        held.update(name=name, observation_position=place)
        self.counts["placed"] += 1

    def _type(self, name: str) -> str:
        if name not in self.types:
            self.types[name] = ontology.add_type(self.tx, name)
        return self.types[name]

    def _add(self, node: Node, place: int | None) -> None:
        tx = self.tx
        type_name = self._type(node.type)
        tx.conn.execute(
            """INSERT INTO entities (id, name, name_key, type, description, created_at, updated_at, observation_position)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
            (node.id, node.name, normalize_name(node.name), type_name, node.description, tx.at, tx.at, place))
        search.index_entity(tx.conn, node.id)
        tx.log("entity", "entity", [node.id], type=type_name, **({} if place is None else {"position": place}))
        self.entities[node.id] = {"id": node.id, "name": node.name, "type": type_name, "description": node.description,
                                  "observation_position": place}
        self.counts["entities_added" if place is None else "observations_added"] += 1

    def _follow(self, node: Node, place: int | None) -> None:
        """An entity the file re-typed (deleted and made again as another kind, or named only by a
        relation before): its type follows the file, its description only if memlens wrote it. An
        observation the file moved takes its new place."""
        held = self.entities[node.id]
        if place is not None and place != held["observation_position"]:
            self._place(node.id, place)
        type_name = self._type(node.type)
        marker = unknown_description(self.memory)
        description = node.description if held["description"] in ("", marker) else held["description"]
        if type_name.lower() == held["type"].lower() and description == held["description"]:
            return
        self.tx.conn.execute("UPDATE entities SET type = ?, description = ?, updated_at = ? WHERE id = ?",
                             (type_name, description, self.tx.at, node.id))
        search.index_entity(self.tx.conn, node.id)
        self.tx.log("retype", "entity", [node.id], type=type_name, was=held["type"])
        self.counts["retyped"] += 1

    def _state(self, link: Link) -> None:
        held = self.facts.get(link.id)
        if link.id in self.forgotten or link.subject in self.forgotten or link.object in self.forgotten:
            self.counts["kept_forgotten"] += 1
        elif held is None:
            self._assert(link)
        elif held.status == "retracted" and held.actor == ACTOR:
            # Only an import retracts a fact this actor wrote: it is back in the file.
            corrections.restore(self.tx, link.id, f"back in {self.memory.path.name} ({self.memory.digest[:23]})")
            self._cite(link.id, held)
            self.counts["restored"] += 1

    def _assert(self, link: Link) -> None:
        tx = self.tx
        seq = tx.log("assert", "fact", [link.id, link.subject, link.object])
        tx.conn.execute(
            """INSERT INTO facts (id, subject_id, relation, object_id, description, evidence, actor, arrival)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
            (link.id, link.subject, link.relation, link.object, link.description,
             json.dumps([self.memory.evidence]), ACTOR, seq))
        insert_version(tx, link.id, 1, {"status": "current", "superseded_by": None, "reason": None, "automatic": 0,
                                        "valid_from": None, "valid_to": None})
        search.index_fact(tx.conn, link.id)
        functional.settle(tx, link.subject, link.relation)  # a relation a memlens user declared functional
        self.asserted.setdefault((link.subject, link.relation), []).append(link.id)
        self.counts["asserted"] += 1

    def _cite(self, fid: str, held: _Fact) -> None:
        if self.memory.evidence not in held.evidence:
            self.tx.conn.execute("UPDATE facts SET evidence = ? WHERE id = ?",
                                 (json.dumps([*held.evidence, self.memory.evidence]), fid))
            search.index_fact(self.tx.conn, fid)

    def _retract_vanished(self) -> None:
        """What the file no longer says is retracted; a value of a relation that holds one (owned_by,
        status, ...) that the file replaced by another is superseded by it instead."""
        reason = f"gone from {self.memory.path.name} ({self.memory.digest[:23]})"
        vanished = sorted(fid for fid, held in self.facts.items()
                          if held.actor == ACTOR and held.status == "current" and fid not in self.stated.links)
        # as this import left them: a declared functional relation's order may have replaced some
        status_now = dict(rows_in(self.tx.conn, "SELECT fact_id, status FROM fact_versions "
                                                "WHERE retired_at IS NULL AND fact_id IN ({})", vanished))
        for fid in vanished:
            held = self.facts[fid]
            if status_now[fid] == "superseded":
                self.counts["superseded"] += 1   # by the order, with the value the file put in its place
                continue
            replaced_by = self.asserted.get((held.subject, held.relation), [])
            if len(replaced_by) == 1 and (ontology.sounds_single_valued(held.relation)
                                          or functional.is_functional(self.tx.conn, held.relation)):
                corrections.supersede(self.tx, fid, replaced_by[0],
                                      f"replaced in {self.memory.path.name} ({self.memory.digest[:23]})")
                self.counts["superseded"] += 1
                continue
            # gone from the file is no longer said, not wrong: what it replaced stays replaced
            corrections.retract(self.tx, fid, reason, reopen=False)
            self.counts["retracted"] += 1
