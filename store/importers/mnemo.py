"""mnemo-mcp (2.x): one SQLite file, `~/.mnemo-mcp/memories.db` (`~/.mnemo/` in 2.20).

Read: `memories` (an update closes the row with valid_to and superseded_by and writes a new row;
a delete sets valid_to with no successor; archived_at marks what mnemo's search skips), the
entity graph `memory_entities`, `memory_edges`, `memory_entity_links` (before mnemo's mem_003
migration: `entities`, `relations`, and `memory_entities` as the link table), the legacy
`archived_memories` table and `memory_audit` if anything wrote it. sqlite-vec and FTS tables are
indexes of the same rows and are skipped.

A memory is a row of text, not a triple. Each chain of versions (a row and the rows that
updated it) becomes one `Memory` entity, and each version a fact `memory --filed_under-->
<category>` whose description is the text; `filed_under` is functional, so exactly the live
version is current. Links to graph entities are `mentions` facts; graph edges are facts of their
own. A deleted memory is a tombstone, and so is every earlier version of it: mnemo keeps their
text, but a memory someone deleted is not shown again unless asked (`include_deleted_text`).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..ids import derived_id
from .assembly import EntityRecord, FactRecord, LedgerEvent, SourceGraph, State, collapse, in_time_order
from .source import EPOCH_RECORD_TIME, SourceFile, as_uuid, record_time_of, text_of, valid_time_of

TOOL = "mnemo"
REQUIRED = {"memories": ("id", "content", "created_at")}
MEMORY_TYPE = "Memory"
CATEGORY_TYPE = "Category"
FILED_UNDER = "filed_under"
MENTIONS = "mentions"
WRITER = "mnemo:agent"        # mnemo records no writer; memories come from its MCP client
EXTRACTOR = "mnemo:extract"   # entities and edges come from mnemo's own extraction
_TYPES = {"person": "Person", "project": "Project", "tool": "Tool", "concept": "Concept", "org": "Organization",
          "organization": "Organization", "location": "Location", "event": "Event"}


def default_locations() -> list[tuple[Path, str]]:
    """`$DB_PATH` or `$MNEMO_DB_PATH`, else ~/.mnemo-mcp/memories.db, then mnemo 2.20's ~/.mnemo/."""
    for variable in ("DB_PATH", "MNEMO_DB_PATH"):
        if os.environ.get(variable):
            return [(Path(os.environ[variable]).expanduser(), f"${variable}")]
    home = Path.home()
    return [(home / ".mnemo-mcp" / "memories.db", "mnemo's data directory"),
            (home / ".mnemo" / "memories.db", "mnemo's data directory")]


@dataclass
class _Memory:
    """One row of `memories` (or of the legacy `archived_memories`)."""

    raw_id: str
    fact_id: str
    content: str
    category: str
    created: str
    valid_from: str | None
    closed: str | None          # record time of valid_to: when an update or delete closed it
    valid_to: str | None
    successor: str | None       # raw id
    archived: str | None
    source: str
    labels: list[str] = field(default_factory=list)


def read(source: SourceFile, *, include_deleted_text: bool = False) -> SourceGraph:
    memories = _memories(source)
    graph = SourceGraph(TOOL, source.path.name, types={MEMORY_TYPE, CATEGORY_TYPE}, relations={FILED_UNDER: True})
    threads = _threads(memories)
    thread_of = {m.raw_id: root for root, chain in threads.items() for m in chain}
    hidden = {root for root, chain in threads.items() if _deleted(chain) and not include_deleted_text}
    categories: dict[str, EntityRecord] = {}
    for root, chain in threads.items():
        _add_thread(graph, root, chain, memories, categories, hidden=root in hidden)
    graph.ledger += [LedgerEvent(c.created_at, WRITER, "entity", "entity", [c.id], {"type": CATEGORY_TYPE})
                     for c in categories.values()]
    entity_ids = _add_graph_entities(source, graph)
    _add_edges(source, graph, entity_ids)
    _add_links(source, graph, entity_ids, memories, thread_of, hidden)
    graph.ledger += _audit(source, memories)
    graph.ledger = in_time_order(graph.ledger)  # mnemo keeps no provenance: rebuilt from the rows' times
    return graph


# -- memories ------------------------------------------------------------------------------------

_MEMORY_COLUMNS = ("category", "tags", "source", "valid_from", "valid_to", "superseded_by", "archived_at",
                   "context_type", "subject")


def _memories(source: SourceFile) -> dict[str, _Memory]:
    rows = source.rows("SELECT id, content, created_at, "
                       + ", ".join(source.column_or_null("memories", c) for c in _MEMORY_COLUMNS) + " FROM memories")
    if source.has("archived_memories", "id", "content", "created_at", "archived_at"):
        # Before mem_001, mnemo moved archived rows to a table of their own.
        rows += source.rows("SELECT id, content, created_at, archived_at, "
                            + ", ".join(source.column_or_null("archived_memories", c)
                                        for c in ("category", "tags", "source", "context_type"))
                            + " FROM archived_memories WHERE id NOT IN (SELECT id FROM memories)")
    memories = {}
    for row in rows:
        raw = text_of(row["id"])
        created = record_time_of(row["created_at"]) or EPOCH_RECORD_TIME
        keys = row.keys()
        memories[raw] = _Memory(
            raw_id=raw, fact_id=as_uuid(raw) or derived_id(TOOL, "memory", raw), content=text_of(row["content"]),
            category=text_of(row["category"]).strip() or "general", created=created,
            valid_from=valid_time_of(row["valid_from"] if "valid_from" in keys else None) or valid_time_of(row["created_at"]),
            closed=record_time_of(row["valid_to"]) if "valid_to" in keys else None,
            valid_to=valid_time_of(row["valid_to"]) if "valid_to" in keys else None,
            successor=(text_of(row["superseded_by"]) or None) if "superseded_by" in keys else None,
            archived=record_time_of(row["archived_at"]), source=text_of(row["source"]),
            labels=_labels(row),
        )
    return memories


def _labels(row: Any) -> list[str]:
    """What describes a memory besides its text: its kind, tags and subject."""
    labels = [f"{row['context_type']} memory"] if row["context_type"] else []
    try:
        tags = json.loads(row["tags"]) if row["tags"] else []
    except (TypeError, ValueError):
        tags = []
    if isinstance(tags, list) and tags:
        labels.append("tags: " + ", ".join(str(t) for t in tags))
    if "subject" in row.keys() and row["subject"]:
        labels.append(f"subject: {row['subject']}")
    return labels


def _threads(memories: dict[str, _Memory]) -> dict[str, list[_Memory]]:
    """Each chain of versions, oldest first, keyed by the raw id of its first row."""
    successors = {m.successor for m in memories.values() if m.successor in memories}
    threads: dict[str, list[_Memory]] = {}
    placed: set[str] = set()
    starts = [m for m in memories.values() if m.raw_id not in successors]
    # A cycle of successors has no first row: each of its rows then stands alone.
    starts += [m for m in memories.values() if m.raw_id in successors]
    for start in sorted(starts, key=lambda m: (m.raw_id in successors, m.created, m.raw_id)):
        chain, current = [], start
        while current is not None and current.raw_id not in placed:
            placed.add(current.raw_id)
            chain.append(current)
            current = memories.get(current.successor or "")
        if chain:
            threads[start.raw_id] = chain
    return threads


def _deleted(chain: list[_Memory]) -> bool:
    """Closed with no successor: mnemo's delete (an update always names the row it wrote)."""
    head = chain[-1]
    return head.closed is not None and head.successor is None


def _add_thread(
    graph: SourceGraph, root: str, chain: list[_Memory], memories: dict[str, _Memory],
    categories: dict[str, EntityRecord], *, hidden: bool,
) -> None:
    node = derived_id(TOOL, "memory", root)
    ended = max((m.closed or m.created for m in chain), default=chain[0].created)
    head = chain[-1]
    graph.entities.append(EntityRecord(
        id=node, name=f"memory {(as_uuid(root) or root)[:8]}", type=MEMORY_TYPE, created_at=chain[0].created,
        updated_at=max(ended, chain[0].created), description="" if hidden else "; ".join(head.labels),
    ))
    graph.ledger.append(LedgerEvent(chain[0].created, WRITER, "entity", "entity", [node], {"type": MEMORY_TYPE}))
    deleted_at = head.closed if hidden else None
    for memory in chain:
        category = None if hidden else _category(graph, categories, memory)
        states = _memory_states(memory, memories, deleted_at)
        graph.facts.append(FactRecord(
            id=memory.fact_id, subject=node, relation=None if hidden else FILED_UNDER, object=category,
            states=states, description="" if hidden else memory.content,
            evidence=[] if hidden or not memory.source.strip() else [memory.source], actor=WRITER,
        ))
        graph.ledger += _memory_events(memory.fact_id, node, category, states)


def _category(graph: SourceGraph, categories: dict[str, EntityRecord], memory: _Memory) -> str:
    """The node of the memory's category, made the first time a shown memory names it."""
    node = derived_id(TOOL, "category", memory.category)
    existing = categories.get(node)
    if existing is None:
        categories[node] = EntityRecord(node, memory.category, CATEGORY_TYPE, memory.created, memory.created)
        graph.entities.append(categories[node])
    else:
        existing.created_at = min(existing.created_at, memory.created)
        existing.updated_at = max(existing.updated_at, memory.created)
    return node


def _memory_states(memory: _Memory, memories: dict[str, _Memory], deleted_at: str | None) -> list[State]:
    valid = {"valid_from": memory.valid_from, "valid_to": None}
    states = [State(memory.created, "current", **valid)]
    if memory.archived and memory.closed is None:
        states.append(State(max(memory.archived, memory.created), "current", reason="archived by mnemo", **valid))
    if memory.closed is not None:
        closed = max(memory.closed, memory.created)
        ended = {"valid_from": memory.valid_from, "valid_to": memory.valid_to}
        successor = memories.get(memory.successor or "")
        if memory.successor is not None:
            by = successor.fact_id if successor is not None else None
            states.append(State(closed, "superseded", by, "updated in mnemo", **ended))
        else:
            states.append(State(closed, "retracted", reason="deleted in mnemo", **ended))
    if deleted_at is not None:
        states.append(State(max(deleted_at, states[-1].since), "forgotten"))
    return states


def _memory_events(fid: str, node: str, category: str | None, states: list[State]) -> list[LedgerEvent]:
    states = collapse(states)
    refs = [fid, node] + ([category] if category else [])
    events = [LedgerEvent(states[0].since, WRITER, "assert", "fact", refs)]
    for state in states[1:]:
        action = {"superseded": "supersede", "retracted": "retract", "forgotten": "forget"}.get(state.status, "archive")
        refs = [fid, state.superseded_by] if state.superseded_by else [fid]
        events.append(LedgerEvent(state.since, WRITER, action, "fact", refs))
    return events


# -- the entity graph ----------------------------------------------------------------------------

def _graph_table(source: SourceFile, *candidates: tuple[str, tuple[str, ...]]) -> str | None:
    """The first of the tables that has the columns; mnemo renamed its graph tables in mem_003."""
    return next((table for table, columns in candidates if source.has(table, *columns)), None)


def _node_id(raw: Any) -> str:
    return as_uuid(raw) or derived_id(TOOL, "entity", text_of(raw))


def _add_graph_entities(source: SourceFile, graph: SourceGraph) -> set[str]:
    table = _graph_table(source, ("memory_entities", ("id", "name", "entity_type")), ("entities", ("id", "name", "entity_type")))
    if table is None:
        return set()
    ids = set()
    for row in source.rows(f"SELECT id, name, entity_type, {source.column_or_null(table, 'created_at')}, "
                           f"{source.column_or_null(table, 'updated_at')} FROM {table}"):
        created = record_time_of(row["created_at"]) or EPOCH_RECORD_TIME
        raw_type = text_of(row["entity_type"]).strip()
        type_name = _TYPES.get(raw_type.casefold()) or (raw_type[:1].upper() + raw_type[1:]) or "Concept"
        node = _node_id(row["id"])
        graph.entities.append(EntityRecord(node, text_of(row["name"]), type_name, created,
                                           max(record_time_of(row["updated_at"]) or created, created)))
        graph.ledger.append(LedgerEvent(created, EXTRACTOR, "entity", "entity", [node], {"type": type_name}))
        ids.add(node)
    return ids


def _add_edges(source: SourceFile, graph: SourceGraph, entity_ids: set[str]) -> None:
    table = _graph_table(source, ("memory_edges", ("source_id", "target_id", "relation_type")),
                         ("relations", ("source_id", "target_id", "relation_type")))
    if table is None:
        return
    cols = ", ".join(source.column_or_null(table, c) for c in ("id", "created_at", "memory_id", "valid_from", "valid_to"))
    for row in source.rows(f"SELECT source_id, target_id, relation_type, {cols} FROM {table}"):
        subject, obj, relation = _node_id(row["source_id"]), _node_id(row["target_id"]), text_of(row["relation_type"])
        if subject not in entity_ids or obj not in entity_ids:
            continue
        fid = as_uuid(row["id"]) or derived_id(TOOL, "edge", subject, relation, obj)
        created = record_time_of(row["created_at"]) or EPOCH_RECORD_TIME
        memory = text_of(row["memory_id"])
        graph.facts.append(FactRecord(
            id=fid, subject=subject, relation=relation, object=obj, actor=EXTRACTOR,
            states=[State(created, "current", valid_from=valid_time_of(row["valid_from"]),
                          valid_to=valid_time_of(row["valid_to"]))],
            evidence=[_memory_evidence(memory)] if memory else [],
        ))
        graph.ledger.append(LedgerEvent(created, EXTRACTOR, "assert", "fact", [fid, subject, obj]))


def _add_links(
    source: SourceFile, graph: SourceGraph, entity_ids: set[str], memories: dict[str, _Memory],
    thread_of: dict[str, str], hidden: set[str],
) -> None:
    # Before mem_003 the link table was called memory_entities; it is told apart by its columns.
    table = _graph_table(source, ("memory_entity_links", ("memory_id", "entity_id")),
                         ("memory_entities", ("memory_id", "entity_id")))
    if table is None:
        return
    created = {e.id: e.created_at for e in graph.entities}
    first_seen: dict[tuple[str, str], str] = {}
    named_in: dict[tuple[str, str], set[str]] = {}
    for row in source.rows(f"SELECT memory_id, entity_id FROM {table}"):
        memory, entity = memories.get(text_of(row["memory_id"])), _node_id(row["entity_id"])
        root = thread_of.get(memory.raw_id) if memory else None
        # Which entities a deleted memory named would say what it was about.
        if root is None or root in hidden or entity not in entity_ids:
            continue
        # mnemo keeps no time for a link: it is as old as the later of its two ends.
        at = max(memory.created, created[entity])
        first_seen[(root, entity)] = min(first_seen.get((root, entity), at), at)
        named_in.setdefault((root, entity), set()).add(memory.raw_id)
    for (root, entity), at in sorted(first_seen.items()):
        node, fid = derived_id(TOOL, "memory", root), derived_id(TOOL, MENTIONS, root, entity)
        # The memory (each version) that names the entity is what the mention rests on.
        evidence = [_memory_evidence(raw) for raw in sorted(named_in[(root, entity)])]
        graph.facts.append(FactRecord(fid, node, MENTIONS, entity, [State(at, "current")], evidence=evidence,
                                      actor=EXTRACTOR))
        graph.ledger.append(LedgerEvent(at, EXTRACTOR, "assert", "fact", [fid, node, entity]))


def _memory_evidence(raw_id: str) -> str:
    """A mnemo memory named as evidence: the record an extracted entity, edge or mention comes from."""
    return f"mnemo memory {as_uuid(raw_id) or raw_id}"


def _audit(source: SourceFile, memories: dict[str, _Memory]) -> list[LedgerEvent]:
    """memory_audit rows, should any mnemo have written them (2.20 creates the table, writes none)."""
    if not source.has("memory_audit", "memory_id", "operation", "occurred_at"):
        return []
    events = []
    for row in source.rows("SELECT memory_id, operation, occurred_at FROM memory_audit ORDER BY rowid"):
        memory = memories.get(text_of(row["memory_id"]))
        operation = text_of(row["operation"])
        events.append(LedgerEvent(
            record_time_of(row["occurred_at"]) or EPOCH_RECORD_TIME, TOOL,
            operation if re.fullmatch(r"[a-z_]{1,32}", operation) else "audit", "fact",
            [memory.fact_id] if memory else [], {"audit": True},
        ))
    return events
