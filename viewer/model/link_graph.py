"""Who is linked to whom in a snapshot: the light graph the layout works on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection, Iterator

from memlens.store.observations import OBSERVATION_POSITION

from .columns import FACT_FIELDS, Columns

Snapshot = dict[str, Any]


def live_entities(snapshot: Snapshot) -> list[dict[str, Any]]:
    """Entities that have not been merged into another one."""
    return [e for e in snapshot["entities"] if e.get("merged_into") is None]


def counted_entities(snapshot: Snapshot) -> list[dict[str, Any]]:
    """The live entities a reader counts, ranks and sees drawn: observations (notes on an entity,
    listed under it) are none of them."""
    # is_observation's rule, inline: a call per entity was a third of this at 100,000 entities
    return [e for e in snapshot["entities"] if e.get("merged_into") is None and e.get(OBSERVATION_POSITION) is None]


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


def link_graph(snapshot: Snapshot, facts: Columns | None = None) -> LinkGraph:
    """Live entities but observations, linked by every fact that is not forgotten (drawable_facts'
    rule, read from columns). `facts` are the snapshot's facts as columns, if the caller has them already."""
    facts = facts or Columns(snapshot["facts"], FACT_FIELDS)
    entities = counted_entities(snapshot)
    names = {e["id"]: e["name"] for e in entities}
    neighbours: dict[str, set[str]] = {node: set() for node in names}
    for status, subject, obj in zip(facts["status"], facts["subject"], facts["object"]):
        if status != "forgotten" and subject != obj and subject in neighbours and obj in neighbours:
            neighbours[subject].add(obj)
            neighbours[obj].add(subject)
    return LinkGraph(names=names, neighbours=neighbours)
