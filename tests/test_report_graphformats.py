"""GraphML and GEXF exports read back by networkx."""

from __future__ import annotations

import networkx as nx
import pytest
from viewer_fixtures import hostile_snapshot, project_ids, project_snapshot

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
