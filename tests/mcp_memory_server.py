"""The MCP reference memory server, installed with npm and driven through the MCP Python client.

`python tests/mcp_memory_server.py OUT_DIR` writes tests/fixtures/mcp_memory/state-*.jsonl: the
file the real server wrote after each of three sessions (SESSIONS). The opt-in test
(test_import_real_mcp_memory.py) writes them again and holds them to the committed ones.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

PACKAGE = "@modelcontextprotocol/server-memory@2026.8.31"
FIXTURES = Path(__file__).parent / "fixtures" / "mcp_memory"
HOSTILE = "</script><script>alert(1)</script>"

# Each session: the tool calls one agent session made, in order.
SESSIONS: list[list[tuple[str, dict]]] = [
    [
        ("create_entities", {"entities": [
            {"name": "billing-service", "entityType": "service",
             "observations": ["Invoices merchants monthly", "Written in Go"]},
            {"name": "Priya Natarajan", "entityType": "person", "observations": ["Leads the payments team"]},
            {"name": "payments-db", "entityType": "database", "observations": ["PostgreSQL 15"]},
            {"name": HOSTILE, "entityType": '<img src=x onerror="alert(2)">',
             "observations": ["{{ 7*7 }}", "javascript:alert(3)", "\x1b[31mred\x1b[0m <b>bold</b>"]},
        ]}),
        ("create_relations", {"relations": [
            {"from": "billing-service", "to": "Priya Natarajan", "relationType": "owned_by"},
            {"from": "billing-service", "to": "payments-db", "relationType": "stores data in"},
            {"from": "billing-service", "to": "Stripe", "relationType": "depends_on"},
            {"from": HOSTILE, "to": "billing-service", "relationType": "links </script> to"},
        ]}),
        ("add_observations", {"observations": [
            {"entityName": "billing-service", "contents": ["Retries failed charges 3 times"]}]}),
    ],
    [
        ("delete_observations", {"deletions": [{"entityName": "billing-service", "observations": ["Written in Go"]}]}),
        ("add_observations", {"observations": [{"entityName": "billing-service", "contents": ["Rewritten in Rust"]}]}),
        ("delete_relations", {"relations": [
            {"from": "billing-service", "to": "payments-db", "relationType": "stores data in"}]}),
        ("delete_entities", {"entityNames": ["Priya Natarajan"]}),
    ],
    [
        ("create_entities", {"entities": [
            {"name": "Priya Natarajan", "entityType": "person", "observations": ["Leads the payments team"]}]}),
        ("create_relations", {"relations": [
            {"from": "billing-service", "to": "Priya Natarajan", "relationType": "owned_by"}]}),
        ("add_observations", {"observations": [{"entityName": "billing-service", "contents": ["Written in Go"]}]}),
    ],
]


def install(folder: Path) -> Path:
    """The server's dist/index.js, installed into `folder` with npm (nothing global)."""
    subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(folder), PACKAGE],
                   check=True, capture_output=True, timeout=600)
    return folder / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"


def run_session(server: Path, memory: Path, calls: list[tuple[str, dict]]) -> None:
    """One session: `node server` over stdio with MEMORY_FILE_PATH=memory, the calls in order."""
    from anyio.from_thread import start_blocking_portal  # the client only here: the fixtures' readers need none
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp_types import Implementation

    params = StdioServerParameters(command="node", args=[str(server)],
                                   env={"MEMORY_FILE_PATH": str(memory), "PATH": os.environ.get("PATH", "")})
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(
        Client(params, client_info=Implementation(name="memlens-tests", version="1.0"), mode="legacy")
    ) as client:
        for tool, arguments in calls:
            result = portal.call(client.call_tool, tool, arguments)
            if result.is_error:
                raise RuntimeError(f"{tool} failed: {result.content[0].text}")


def write_states(server: Path, folder: Path) -> list[Path]:
    """state-1.jsonl ... : the server's file after each session."""
    folder.mkdir(parents=True, exist_ok=True)
    memory = folder / "memory.jsonl"
    states = []
    for number, calls in enumerate(SESSIONS, start=1):
        run_session(server, memory, calls)
        state = folder / f"state-{number}.jsonl"
        shutil.copyfile(memory, state)
        states.append(state)
    memory.unlink()
    return states


if __name__ == "__main__":
    import tempfile

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else FIXTURES
    with tempfile.TemporaryDirectory() as scratch:
        for path in write_states(install(Path(scratch)), out):
            print(path)
