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
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import corrections, functional, ontology, search
from ...db import Tx
from ...errors import Conflict
from ...ids import normalize_name
from . import (OBSERVATION_RELATION, OBSERVATION_TYPE, Link, Node, observation_name, ordinal_of,
                                   stated, unknown_description)
from .file import TOOL, MemoryFile
from ...memory import Memory
from ...versions import FACT_WITH_STATE, insert_version

ACTOR = f"import:{TOOL}"


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
        self.entities = {row["id"]: row for row in tx.all("SELECT id, name, type, description FROM entities")}
        self.facts = {row["id"]: _Fact(row["status"], row["actor"], json.loads(row["evidence"]), row["subject_id"],
                                       row["relation"])
                      for row in tx.all(FACT_WITH_STATE)}
        self.asserted: dict[tuple[str, str], list[str]] = {}   # (subject, relation) -> facts new in this import
        self.types: dict[str, str] = {}  # as written -> the ontology's spelling, added if new
        self.counts = {"entities_added": 0, "retyped": 0, "asserted": 0, "restored": 0, "retracted": 0,
                       "superseded": 0, "kept_forgotten": 0, "skipped_lines": len(memory.skipped)}

    def write(self, *, first: bool) -> dict[str, Any]:
        for node in self._numbered(self.stated.nodes.values()):
            if node.id in self.forgotten:
                self.counts["kept_forgotten"] += 1
            elif node.id in self.entities:
                self._follow(node)
            else:
                self._add(node)
        for link in self.stated.links.values():
            self._state(link)
        self._retract_vanished()
        summary = {"source": TOOL, "file": self.memory.path.name, "file_digest": self.memory.digest,
                   "source_file": file_key(self.memory.path), **self.counts}
        changed = any(self.counts[key] for key in ("entities_added", "retyped", "asserted", "restored", "retracted",
                                                   "superseded"))
        if first or changed:
            self.tx.log("import", "dataset", [], **summary)
        return summary

    def _numbered(self, nodes: Iterable[Node]) -> list[Node]:
        """New observations numbered after every one their entity ever had here, so a card keeps
        them in the order they were made (the file's numbering restarts when one is deleted)."""
        last: dict[str, int] = {}
        rows = self.tx.all(
            "SELECT f.subject_id, o.name FROM facts f JOIN entities o ON o.id = f.object_id "
            "WHERE f.relation = ? AND f.actor = ? AND o.type = ?", (OBSERVATION_RELATION, ACTOR, OBSERVATION_TYPE))
        for row in rows:
            last[row["subject_id"]] = max(last.get(row["subject_id"], 0), ordinal_of(row["name"]))
        text_of = {link.object: link for link in self.stated.links.values() if link.observation is not None}
        numbered = []
        for node in nodes:
            link = text_of.get(node.id)
            if link is not None and node.id not in self.entities and link.subject in last:
                last[link.subject] += 1
                node = Node(node.id, observation_name(last[link.subject], link.observation or ""), node.type)
            numbered.append(node)
        return numbered

    def _type(self, name: str) -> str:
        if name not in self.types:
            self.types[name] = ontology.add_type(self.tx, name)
        return self.types[name]

    def _add(self, node: Node) -> None:
        tx = self.tx
        type_name = self._type(node.type)
        tx.conn.execute(
            """INSERT INTO entities (id, name, name_key, type, description, created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?)""",
            (node.id, node.name, normalize_name(node.name), type_name, node.description, tx.at, tx.at))
        search.index_entity(tx.conn, node.id)
        tx.log("entity", "entity", [node.id], type=type_name)
        self.entities[node.id] = {"id": node.id, "name": node.name, "type": type_name, "description": node.description}
        self.counts["entities_added"] += 1

    def _follow(self, node: Node) -> None:
        """An entity the file re-typed (deleted and made again as another kind, or named only by a
        relation before): its type follows the file, its description only if memlens wrote it."""
        held = self.entities[node.id]
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
        for fid, held in sorted(self.facts.items()):
            if held.actor == ACTOR and held.status == "current" and fid not in self.stated.links:
                replaced_by = self.asserted.get((held.subject, held.relation), [])
                if len(replaced_by) == 1 and (ontology.sounds_single_valued(held.relation)
                                              or functional.is_functional(self.tx.conn, held.relation)):
                    corrections.supersede(self.tx, fid, replaced_by[0],
                                          f"replaced in {self.memory.path.name} ({self.memory.digest[:23]})")
                    self.counts["superseded"] += 1
                    continue
                corrections.retract(self.tx, fid, reason)
                self.counts["retracted"] += 1
