"""The importer against the real MCP reference memory server (@modelcontextprotocol/server-memory).

Opt-in (MEMLENS_REAL_TOOLS=1, with node and npm on PATH): the server is installed with npm into a
temporary directory and run with `node` over stdio, driven through the MCP Python client for the
three sessions of tests/mcp_memory_server.py; memlens imports its file after each session. The
files it writes must be the committed fixtures the default run reads.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from memlens.store import datasets
from memlens.store.memory import Memory
from mcp_memory_server import FIXTURES, SESSIONS, install, run_session

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("MEMLENS_REAL_TOOLS") != "1" or not (shutil.which("npm") and shutil.which("node")),
                       reason="installs @modelcontextprotocol/server-memory with npm into a temporary directory; "
                              "set MEMLENS_REAL_TOOLS=1 (and have node and npm) to run"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Path:
    return install(tmp_path_factory.mktemp("npm"))


def test_the_files_the_server_writes_import_into_a_timeline(cli, home, server: Path, tmp_path: Path):
    memory = tmp_path / "memory.jsonl"
    outcomes = []
    for number, calls in enumerate(SESSIONS, start=1):
        run_session(server, memory, calls)
        assert memory.read_bytes() == (FIXTURES / f"state-{number}.jsonl").read_bytes()
        written = memory.read_bytes()
        result = cli("import", "--from", "mcp-memory", str(memory), "-d", "mcp", "--json")
        assert result.exit_code == 0, result.output
        assert memory.read_bytes() == written  # only read
        outcomes.append({k: json.loads(result.output)[k] for k in ("asserted", "retracted", "restored")})
    assert outcomes == [{"asserted": 12, "retracted": 0, "restored": 0},
                        {"asserted": 1, "retracted": 4, "restored": 0},
                        {"asserted": 0, "retracted": 0, "restored": 3}]
    with Memory(datasets.resolve(None, "mcp"), readonly=True) as store:
        snapshot = store.snapshot()
    assert snapshot["stats"]["current"] == 12 and snapshot["stats"]["retracted"] == 1


def test_the_server_reads_back_what_memlens_reads(server: Path, tmp_path: Path):
    """read_graph of the committed fixture, through the server itself: the same names memlens shows."""
    from anyio.from_thread import start_blocking_portal
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp_types import Implementation

    from memlens.store.importers import read_snapshot

    memory = tmp_path / "memory.jsonl"
    shutil.copyfile(FIXTURES / "state-3.jsonl", memory)
    params = StdioServerParameters(command="node", args=[str(server)],
                                   env={"MEMORY_FILE_PATH": str(memory), "PATH": os.environ.get("PATH", "")})
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(
        Client(params, client_info=Implementation(name="memlens-tests", version="1.0"), mode="legacy")
    ) as client:
        graph = json.loads(portal.call(client.call_tool, "read_graph", {}).content[0].text)
    snapshot = read_snapshot("mcp-memory", memory)
    names = {e["name"] for e in snapshot["entities"] if e["type"] not in ("Observation", "Unknown")}
    assert names == {e["name"] for e in graph["entities"]}
    observed = sum(len(e["observations"]) for e in graph["entities"])
    assert sum(1 for f in snapshot["facts"] if f["relation"] == "observation") == observed
