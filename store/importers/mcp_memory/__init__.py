"""The MCP reference memory server's graph as memlens entities and facts (its file is read by
mcp_memory/file.py; importing it again and again, the history it never kept, is mcp_memory/history.py).

- An entity keeps its name (exactly: the server tells `Alice` from `alice`, so its id is derived
  from the name as written); its free-text `entityType` becomes the ontology type it names
  (`person`, `people`, `developer` -> Person), or else is added as written.
- A relation is a fact; its `relationType` becomes a relation name by one rule (`relation_name`),
  and the spelling it had, when that differs, is the fact's description.
- An observation is a fact `entity --observation--> text` to a node of type Observation of its
  own (one per entity and text, as the server keeps them) that says its place in the entity's
  list: an observation in the snapshot's sense (docs/snapshot-format.md), which viewers list under
  its entity in the file's order and never count, rank or draw as an entity. A fact, not the
  entity's description, so that each observation has its own history (added, deleted, added
  again), its own evidence and its own line in search and time travel.
- A name that a relation gives but no entity has (the server allows it) is an entity of type
  Unknown, described as such.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...ids import derived_id, fact_id
from ...observations import OBSERVATION_TYPE
from ..assembly import EntityRecord, FactRecord, LedgerEvent, SourceGraph, State
from .file import TOOL, MemoryFile

OBSERVATION_RELATION = "observation"
UNKNOWN_TYPE = "Unknown"
FALLBACK_RELATION = "related_to"
BLANK_OBSERVATION = "(a blank observation)"   # a name is never blank; the text is the node's id
ACTOR = TOOL

# entityType words (case-folded, singular) -> a type of the default ontology
_SYNONYMS = {
    "people": "Person", "user": "Person", "human": "Person", "individual": "Person", "developer": "Person",
    "engineer": "Person", "contact": "Person", "author": "Person", "maintainer": "Person", "colleague": "Person",
    "organisation": "Organization", "org": "Organization", "company": "Organization", "business": "Organization",
    "corporation": "Organization", "institution": "Organization", "vendor": "Organization",
    "group": "Team", "squad": "Team",
    "repo": "Repository", "codebase": "Repository", "git repository": "Repository",
    "microservice": "Service",
    "component": "Module",
    "source file": "File",
    "method": "Function",
    "package": "Library", "framework": "Library", "dependency": "Library", "lib": "Library", "sdk": "Library",
    "cli": "Tool", "utility": "Tool",
    "idea": "Concept", "topic": "Concept", "term": "Concept",
    "architecture decision": "Decision", "adr": "Decision",
    "todo": "Task", "ticket": "Task", "action item": "Task",
    "issue": "Bug", "defect": "Bug",
    "configuration": "Config", "setting": "Config",
    "env": "Environment",
    "doc": "Document", "documentation": "Document", "spec": "Document", "specification": "Document",
    "meeting": "Event", "incident": "Event",
    "api endpoint": "Endpoint", "route": "Endpoint",
    "data set": "Dataset",
}
_DEFAULTS = ("Person", "Team", "Organization", "Project", "Repository", "Service", "Module", "File", "Function",
             "Library", "Tool", "Concept", "Decision", "Task", "Bug", "Config", "Environment", "Document", "Event",
             "Endpoint", "Dataset")
_BY_KEY = {**{name.casefold(): name for name in _DEFAULTS}, **_SYNONYMS}
_SEPARATORS = re.compile(r"[\s_-]+")
_NOT_IN_RELATION = re.compile(r"[^\w.:-]+")
_DASHES = re.compile(r"-{2,}")


def type_for(entity_type: str) -> str:
    """The ontology type an entityType names, or the entityType itself (spaces collapsed) with a
    capital first letter, as the ontology's own are written: `technology` beside `Person`."""
    written = " ".join(entity_type.split())
    if not written:
        return UNKNOWN_TYPE
    key = _SEPARATORS.sub(" ", written.casefold()).strip()
    for candidate in (key, key[:-1] if key.endswith("s") else None, key[:-2] if key.endswith("es") else None):
        if candidate and candidate in _BY_KEY:
            return _BY_KEY[candidate]
    return written[:1].upper() + written[1:]


def relation_name(relation_type: str) -> str:
    """A relationType as a relation name: every run of characters other than letters, digits, `.`,
    `:`, `_` and single `-` becomes one `_` (`works at` -> `works_at`, `a --> b` -> `a_b`), none at
    either end; nothing left -> related_to. (`--` would end a relation in `s --rel--> o`.)"""
    name = _NOT_IN_RELATION.sub("_", _DASHES.sub(" ", relation_type)).strip("_")
    return name or FALLBACK_RELATION


def entity_id_of(name: str) -> str:
    return derived_id(TOOL, "entity", name)


def observation_node_id(entity_id: str, text: str) -> str:
    return derived_id(TOOL, "observation", entity_id, text)


@dataclass
class Node:
    id: str
    name: str
    type: str
    description: str = ""
    position: int | None = None   # an observation's place in its entity's list in the file, from 1


@dataclass
class Link:
    """A fact the file states now; `observation` is the text when it is an observation."""

    id: str
    subject: str
    relation: str
    object: str
    description: str = ""
    observation: str | None = None


@dataclass
class Stated:
    """Everything the file says now, as memlens nodes and facts, in the file's order."""

    nodes: dict[str, Node] = field(default_factory=dict)
    links: dict[str, Link] = field(default_factory=dict)


def stated(memory: MemoryFile) -> Stated:
    """The file's graph as nodes and facts (duplicates, which a hand edit may make, kept once)."""
    result = Stated()
    named: dict[str, str] = {}
    observed: dict[str, int] = {}  # entity id -> its observations so far
    for entity in memory.entities:
        eid = named.setdefault(entity.name, entity_id_of(entity.name))
        result.nodes.setdefault(eid, Node(eid, entity.name, type_for(entity.entity_type)))
        for text in entity.observations:
            _observation(result, observed, eid, text)
    for relation in memory.relations:
        ends = [named.get(name) or _unknown(result, named, name, memory) for name in (relation.source, relation.target)]
        name = relation_name(relation.relation_type)
        fid = fact_id(ends[0], name, ends[1])
        link = result.links.get(fid)
        if link is None:
            result.links[fid] = Link(fid, ends[0], name, ends[1], _as_written(name, relation.relation_type))
        elif relation.relation_type != name and f'"{relation.relation_type}"' not in link.description:
            link.description = _joined(link.description, _as_written(name, relation.relation_type))
    return result


def _observation(result: Stated, observed: dict[str, int], eid: str, text: str) -> None:
    node_id = observation_node_id(eid, text)
    if node_id in result.nodes:
        return  # the server keeps an entity's observations unique; a hand edit may repeat one
    observed[eid] = observed.get(eid, 0) + 1
    result.nodes[node_id] = Node(node_id, text if text.strip() else BLANK_OBSERVATION, OBSERVATION_TYPE,
                                 position=observed[eid])
    fid = fact_id(eid, OBSERVATION_RELATION, node_id)
    result.links[fid] = Link(fid, eid, OBSERVATION_RELATION, node_id, observation=text)


def _unknown(result: Stated, named: dict[str, str], name: str, memory: MemoryFile) -> str:
    eid = named.setdefault(name, entity_id_of(name))
    result.nodes[eid] = Node(eid, name, UNKNOWN_TYPE, unknown_description(memory))
    return eid


def unknown_description(memory: MemoryFile) -> str:
    return f"not an entity in {memory.path.name}: only a relation names it"


def _as_written(name: str, written: str) -> str:
    return "" if written == name else f'relationType as written: "{written}"'


def _joined(first: str, second: str) -> str:
    return "; ".join(part for part in (first, second) if part)


def read(memory: MemoryFile) -> SourceGraph:
    """The file as a snapshot's records: everything current since the file was last written."""
    graph = SourceGraph(TOOL, memory.path.name)
    at, evidence = memory.modified_at, memory.evidence
    state = stated(memory)
    for node in state.nodes.values():
        graph.entities.append(EntityRecord(node.id, node.name, node.type, at, at, node.description,
                                           observation_position=node.position))
        graph.ledger.append(LedgerEvent(at, ACTOR, "entity", "entity", [node.id], {"type": node.type}))
    for link in state.links.values():
        graph.facts.append(FactRecord(link.id, link.subject, link.relation, link.object, [State(at, "current")],
                                      description=link.description, evidence=[evidence], actor=ACTOR))
        graph.ledger.append(LedgerEvent(at, ACTOR, "assert", "fact", [link.id, link.subject, link.object]))
    graph.types = {node.type for node in state.nodes.values()}
    graph.relations = {link.relation: False for link in state.links.values()}
    return graph
