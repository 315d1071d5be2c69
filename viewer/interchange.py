"""GraphML and GEXF exports of the current graph, for Gephi and Cytoscape."""

from __future__ import annotations

import io
import os
import re
from typing import Any

from xml.etree.ElementTree import SubElement

import networkx as nx
from networkx.readwrite.gexf import GEXFWriter

from memlens.store.errors import InvalidInput
from memlens.store.observations import OBSERVATION_POSITION

from .atomic import write_named
from .model.link_graph import counted_entities, drawable_facts
from .model.palette import assign_looks, type_counts

FORMATS = ("graphml", "gexf")
# What XML 1.0 cannot hold, even escaped: C0 controls but tab, LF and CR; surrogates; U+FFFE/U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
REPLACEMENT = "\ufffd"
NOTE = ("Characters XML 1.0 cannot hold (control characters, U+FFFE, U+FFFF) are replaced by U+FFFD; "
        "the memlens snapshot (memlens export --format json) keeps the text as written.")


class UnknownGraphFormat(InvalidInput):
    """The requested graph format is not one of FORMATS."""


def write_graph(snapshot: dict[str, Any], path: str | os.PathLike[str], fmt: str) -> None:
    """Write live entities and non-forgotten facts as `fmt` ("graphml" or "gexf")."""
    if fmt not in FORMATS:
        raise UnknownGraphFormat(f"unknown graph format {fmt!r}; choose one of {', '.join(FORMATS)}")
    graph = fact_graph(snapshot)
    out = io.BytesIO()
    if fmt == "graphml":
        # the standard library's writer, by name: write_graphml picks lxml's where lxml is
        # installed, which lays the file out differently, so the same store gave other bytes
        nx.write_graphml_xml(graph, out, encoding="utf-8")
    else:
        _write_gexf(graph, out, _text(snapshot.get("generated_at"))[:10])
    write_named(path, out.getvalue())


def _write_gexf(graph: nx.MultiDiGraph, out: io.BytesIO, day: str) -> None:
    """GEXF keeps no graph attributes but its <meta>: the note goes in its description, and its
    date is the snapshot's, not the day of writing (the same store gives the same bytes)."""
    writer = GEXFWriter(encoding="utf-8", prettyprint=True, version="1.2draft")
    writer.add_graph(graph)
    meta = writer.xml.find("meta")
    if meta is not None:
        if day:
            meta.set("lastmodifieddate", day)
        SubElement(meta, "description").text = NOTE
    writer.write(out)


def _text(value: Any) -> str:
    """Text an XML 1.0 parser accepts: None is empty, what XML cannot hold becomes U+FFFD."""
    return "" if value is None else _NOT_XML.sub(REPLACEMENT, str(value))


def fact_graph(snapshot: dict[str, Any]) -> nx.MultiDiGraph:
    """Live entities and their facts, with GraphML-safe attributes (strings, bools, floats; no None).
    Observations (notes another tool keeps on an entity) are no nodes: an entity's current ones are
    its `observations` attribute, one a line, in their list's order."""
    graph = nx.MultiDiGraph(dataset=_text(snapshot.get("dataset")), hash=_text(snapshot.get("hash")),
                            generated_at=_text(snapshot.get("generated_at")), note=NOTE)
    entities = counted_entities(snapshot)
    looks = assign_looks(type_counts(snapshot))
    noted = _observations(snapshot)
    for entity in entities:
        graph.add_node(_text(entity["id"]), label=_text(entity.get("name")), type=_text(entity.get("type")),
                       description=_text(entity.get("description")), color=looks[entity["type"]].color,
                       created_at=_text(entity.get("created_at")), updated_at=_text(entity.get("updated_at")),
                       **({"observations": "\n".join(noted[entity["id"]])} if entity["id"] in noted else {}))
    for fact in drawable_facts(snapshot, {e["id"] for e in entities}):
        graph.add_edge(_text(fact["subject"]), _text(fact["object"]), key=_text(fact["id"]),
                       label=_text(fact.get("relation")), relation=_text(fact.get("relation")),
                       status=_text(fact.get("status")), contested=bool(fact.get("contested")),
                       functional=bool(fact.get("functional")), description=_text(fact.get("description")),
                       evidence="\n".join(_text(e) for e in fact.get("evidence") or []),
                       actor=_text(fact.get("actor")), valid_from=_text(fact.get("valid_from")),
                       valid_to=_text(fact.get("valid_to")), recorded_at=_text(fact.get("recorded_at")),
                       retired_at=_text(fact.get("retired_at")), superseded_by=_text(fact.get("superseded_by")),
                       reason=_text(fact.get("reason")))
    return graph


def _observations(snapshot: dict[str, Any]) -> dict[str, list[str]]:
    """Entity id -> the texts of its current observations, in their list's order."""
    places = {e["id"]: (e[OBSERVATION_POSITION], e.get("name")) for e in snapshot["entities"]
              if e.get(OBSERVATION_POSITION) is not None}
    if not places:
        return {}
    found: dict[str, list[tuple[int, str]]] = {}
    for fact in snapshot["facts"]:
        if fact.get("status") == "current" and fact.get("object") in places:
            found.setdefault(fact["subject"], []).append(places[fact["object"]])
    return {entity_id: [_text(text) for _, text in sorted(notes)] for entity_id, notes in found.items()}
