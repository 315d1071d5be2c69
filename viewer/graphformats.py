"""GraphML and GEXF exports of the current graph, for Gephi and Cytoscape."""

from __future__ import annotations

import os
from typing import Any

import networkx as nx

from .graph import fact_graph

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
