"""GraphML and GEXF exports read back by networkx."""

from __future__ import annotations

from xml.dom import minidom
from xml.etree import ElementTree

import networkx as nx
import pytest
from lxml import etree as lxml_etree
from viewer_fixtures import SnapshotBuilder, hostile_snapshot, project_ids, project_snapshot

from memlens.viewer.interchange import UnknownGraphFormat, write_graph


def expected_counts(snapshot):
    live = {e["id"] for e in snapshot["entities"] if e["merged_into"] is None}
    edges = [f for f in snapshot["facts"] if f["status"] != "forgotten"
             and f["subject"] in live and f["object"] in live]
    return len(live), len(edges)


@pytest.mark.parametrize("fmt,reader", [("graphml", nx.read_graphml), ("gexf", nx.read_gexf)])
@pytest.mark.parametrize("build", [project_snapshot, hostile_snapshot])
def test_graph_export_reads_back_with_every_node_and_edge(tmp_path, fmt, reader, build):
    snapshot = build()
    path = tmp_path / f"graph.{fmt}"
    write_graph(snapshot, path, fmt)
    graph = reader(path)
    nodes, edges = expected_counts(snapshot)
    assert nodes > 0 and edges > 0
    assert graph.number_of_nodes() == nodes
    assert graph.number_of_edges() == edges


def test_graphml_keeps_status_and_leaves_out_merged_and_forgotten(tmp_path):
    ids = project_ids()
    path = tmp_path / "graph.graphml"
    write_graph(project_snapshot(), path, "graphml")
    graph = nx.read_graphml(path)
    assert ids.alice in graph and ids.merged_entity not in graph
    statuses = {key: data["status"] for _, _, key, data in graph.edges(keys=True, data=True)}
    assert statuses[ids.alice_at_acme] == "current"
    assert statuses[ids.alice_at_globex] == "superseded"
    assert ids.forgotten_fact not in statuses
    contested = {key for _, _, key, data in graph.edges(keys=True, data=True) if data["contested"]}
    assert contested == {ids.payments_needs_ledger, ids.ledger_needs_payments}


def test_unknown_graph_format_is_refused(tmp_path):
    with pytest.raises(UnknownGraphFormat, match="dot"):
        write_graph(project_snapshot(), tmp_path / "g.dot", "dot")
    assert not (tmp_path / "g.dot").exists()
    write_graph(project_snapshot(), tmp_path / "g.gexf", "gexf")
    assert (tmp_path / "g.gexf").exists()


XML_HOSTILE = "nul\x00 bell\x07 esc\x1b vt\x0b ff\x0c ufffe\ufffe uffff\uffff tab\there"


def xml_hostile_snapshot():
    """A name, a type, a relation, a description and evidence holding what XML 1.0 cannot hold."""
    builder = SnapshotBuilder("xml-hostile", types=["Service", f"Kind {XML_HOSTILE}"])
    a = builder.entity(f"a {XML_HOSTILE}", f"Kind {XML_HOSTILE}", description=XML_HOSTILE)
    b = builder.entity("plain b", "Service")
    builder.assert_fact(a, f"rel {XML_HOSTILE}", b, description=XML_HOSTILE, evidence=[XML_HOSTILE])
    return builder.build()


@pytest.mark.parametrize("fmt", ["graphml", "gexf"])
def test_text_xml_cannot_hold_is_replaced_and_every_parser_reads_the_file(tmp_path, fmt):
    path = tmp_path / f"graph.{fmt}"
    write_graph(xml_hostile_snapshot(), path, fmt)
    data = path.read_bytes()
    ElementTree.fromstring(data)
    minidom.parseString(data)
    lxml_etree.fromstring(data)  # the strictest of them
    graph = nx.read_graphml(path) if fmt == "graphml" else nx.read_gexf(path)
    labels = {str(data.get("label")) for _, data in graph.nodes(data=True)}
    # what XML can hold stays as written (a tab among it); the rest became U+FFFD, one for one
    assert "plain b" in labels
    assert "a nul\ufffd bell\ufffd esc\ufffd vt\ufffd ff\ufffd ufffe\ufffd uffff\ufffd tab\there" in labels
    assert "U+FFFD" in data.decode("utf-8")  # the file says what was replaced


def test_graphml_bytes_do_not_depend_on_lxml_being_installed(tmp_path, monkeypatch):
    snapshot = project_snapshot()
    with_lxml, without = tmp_path / "with.graphml", tmp_path / "without.graphml"
    write_graph(snapshot, with_lxml, "graphml")
    monkeypatch.setitem(__import__("sys").modules, "lxml", None)   # `import lxml` now fails
    monkeypatch.setitem(__import__("sys").modules, "lxml.etree", None)
    with pytest.raises(ImportError):
        import lxml.etree  # noqa: F401
    write_graph(snapshot, without, "graphml")
    assert with_lxml.read_bytes() == without.read_bytes()
    assert nx.read_graphml(without).number_of_nodes() == expected_counts(snapshot)[0]
