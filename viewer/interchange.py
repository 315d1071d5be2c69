"""GraphML and GEXF exports of the current graph, for Gephi and Cytoscape."""

from __future__ import annotations

import os
from typing import Any

import networkx as nx

from .model.link_graph import drawable_facts, live_entities
from .model.palette import type_color

FORMATS = ("graphml", "gexf")


class UnknownGraphFormat(ValueError):
    """The requested graph format is not one of FORMATS."""


def write_graph(snapshot: dict[str, Any], path: str | os.PathLike[str], fmt: str) -> None:
    """Write live entities and non-forgotten facts as `fmt` ("graphml" or "gexf")."""
    graph = fact_graph(snapshot)
    if fmt == "graphml":
        nx.write_graphml(graph, path, encoding="utf-8")
    elif fmt == "gexf":
        nx.write_gexf(graph, path, encoding="utf-8")
    else:
        raise UnknownGraphFormat(f"unknown graph format {fmt!r}; choose one of {', '.join(FORMATS)}")


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
