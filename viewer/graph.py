"""networkx graphs built from a snapshot: a light one for layout and an attributed one for export."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection, Iterator

import networkx as nx

from .palette import type_color

Snapshot = dict[str, Any]


def live_entities(snapshot: Snapshot) -> list[dict[str, Any]]:
    """Entities that have not been merged into another one."""
    return [e for e in snapshot["entities"] if e.get("merged_into") is None]


def drawable_facts(snapshot: Snapshot, node_ids: Collection[str]) -> Iterator[dict[str, Any]]:
    """Facts that can be an edge: not forgotten, and both ends are known nodes."""
    for fact in snapshot["facts"]:
        if fact.get("status") == "forgotten":
            continue
        if fact.get("subject") in node_ids and fact.get("object") in node_ids:
            yield fact


@dataclass(frozen=True)
class LinkGraph:
    """Who is linked to whom among live entities; plain dicts, because building a networkx graph
    of 30,000 edges costs more than the whole layout of the tail."""

    names: dict[str, str]                 # entity id -> name, in snapshot order
    neighbours: dict[str, set[str]]       # entity id -> linked entity ids (either direction)

    def degree(self, node: str) -> int:
        return len(self.neighbours[node])


def link_graph(snapshot: Snapshot) -> LinkGraph:
    """Live entities, linked by every fact that is not forgotten."""
    entities = live_entities(snapshot)
    names = {e["id"]: e["name"] for e in entities}
    neighbours: dict[str, set[str]] = {node: set() for node in names}
    for fact in drawable_facts(snapshot, neighbours.keys()):
        subject, obj = fact["subject"], fact["object"]
        if subject != obj:
            neighbours[subject].add(obj)
            neighbours[obj].add(subject)
    return LinkGraph(names=names, neighbours=neighbours)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def fact_graph(snapshot: Snapshot) -> nx.MultiDiGraph:
    """Live entities and their facts, with GraphML-safe attributes (strings, bools, floats; no None)."""
    graph = nx.MultiDiGraph(dataset=_text(snapshot.get("dataset")), hash=_text(snapshot.get("hash")),
                            generated_at=_text(snapshot.get("generated_at")))
    entities = live_entities(snapshot)
    for entity in entities:
        graph.add_node(entity["id"], label=_text(entity.get("name")), type=_text(entity.get("type")),
                       description=_text(entity.get("description")), color=type_color(_text(entity.get("type"))),
                       created_at=_text(entity.get("created_at")), updated_at=_text(entity.get("updated_at")))
    for fact in drawable_facts(snapshot, {e["id"] for e in entities}):
        graph.add_edge(fact["subject"], fact["object"], key=fact["id"],
                       label=_text(fact.get("relation")), relation=_text(fact.get("relation")),
                       status=_text(fact.get("status")), contested=bool(fact.get("contested")),
                       functional=bool(fact.get("functional")), description=_text(fact.get("description")),
                       evidence="\n".join(_text(e) for e in fact.get("evidence") or []),
                       actor=_text(fact.get("actor")), valid_from=_text(fact.get("valid_from")),
                       valid_to=_text(fact.get("valid_to")), recorded_at=_text(fact.get("recorded_at")),
                       retired_at=_text(fact.get("retired_at")), superseded_by=_text(fact.get("superseded_by")),
                       reason=_text(fact.get("reason")))
    return graph
