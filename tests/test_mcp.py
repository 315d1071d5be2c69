"""`memlens mcp` through the MCP SDK's own client over stdio, as an agent's host runs it.

One server (dataset `alpha`) serves the whole module; each test writes entities of its own.
"""
from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from click.testing import CliRunner
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import CallToolResult, Implementation

from memlens.viewer.cli import main

pytestmark = pytest.mark.slow

MEMLENS = str(Path(sys.executable).parent / "memlens")
TOOLS = {"remember", "recall", "history", "facts", "functional", "supersede", "restore", "retract", "contest",
         "dismiss", "forget", "maintain", "stats", "view"}


class Session:
    """A connected client, called from synchronous tests through a blocking portal."""

    def __init__(self, portal: BlockingPortal, client: Client) -> None:
        self.portal, self.client = portal, client

    def call(self, tool: str, **arguments) -> CallToolResult:
        return self.portal.call(self.client.call_tool, tool, arguments)

    def start(self, tool: str, **arguments) -> Future:
        return self.portal.start_task_soon(self.client.call_tool, tool, arguments)

    def data(self, tool: str, **arguments) -> dict:
        result = self.call(tool, **arguments)
        assert not result.is_error, result.content[0].text
        return json.loads(result.content[0].text)

    def error(self, tool: str, **arguments) -> str:
        result = self.call(tool, **arguments)
        assert result.is_error, result.content[0].text
        [content] = result.content
        return content.text


@contextmanager
def served(home: Path, *args: str, client: str = "pytest-agent", mode: str = "auto") -> Iterator[Session]:
    """`memlens mcp ARGS` as a host starts it; mode "legacy" is the initialize handshake Claude Code
    uses, "auto" the SDK's newer discovery."""
    params = StdioServerParameters(command=MEMLENS, args=["mcp", *args], env={"MEMLENS_HOME": str(home)},
                                   cwd=str(home.parent))
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(
        Client(params, client_info=Implementation(name=client, version="1.0"), mode=mode)
    ) as connected:
        yield Session(portal, connected)


@pytest.fixture(scope="module")
def mcp_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("mcp") / "home"


@pytest.fixture(scope="module")
def server(mcp_home) -> Iterator[Session]:
    with served(mcp_home, "-d", "alpha") as session:
        yield session


@pytest.fixture(scope="module")
def memlens(mcp_home):
    """The CLI in-process, on the same $MEMLENS_HOME as the server."""
    runner = CliRunner()

    def run(*args: str, input: str | None = None):
        return runner.invoke(main, list(args), input=input, env={"MEMLENS_HOME": str(mcp_home)},
                             catch_exceptions=False)

    return run


def fact(subject: str, relation: str, object_: str, **details) -> dict:
    return {"subject": subject, "subject_type": "Service", "relation": relation, "object": object_,
            "object_type": "Person", **details}


def remember(server: Session, *facts: dict) -> list[str]:
    outcomes = server.data("remember", facts=list(facts))["facts"]
    assert [o["outcome"] for o in outcomes] == ["asserted"] * len(facts)
    return [o["id"] for o in outcomes]


def test_the_server_lists_every_tool_described_for_an_agent_and_none_takes_a_dataset_or_a_path(server):
    tools = {tool.name: tool for tool in server.portal.call(server.client.list_tools).tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert "Call it" in tool.description and "Example:" in tool.description, tool.name
        properties = set(tool.input_schema.get("properties", {}))
        assert not properties & {"dataset", "db", "path", "file", "store", "out"}, tool.name
    assert set(tools["remember"].input_schema["properties"]) == {"facts", "override_forgotten", "new_entities"}
    assert tools["recall"].annotations.read_only_hint and not tools["remember"].annotations.read_only_hint
    assert tools["forget"].annotations.destructive_hint


def test_remember_then_recall_then_history(server):
    first, second = remember(
        server,
        fact("billing-service", "owned_by", "alice", evidence=["user said 2026-03-02"], valid_from="2026-03-01"),
        fact("billing-service", "reviewed_by", "bob", description="bob reviews every billing change"),
    )
    found = server.data("recall", query="billing")
    assert found["facts"]["total"] == 2 and found["next_cursor"] is None
    by_id = {f["id"]: f for f in found["facts"]["items"]}
    assert by_id[first] | {"score": 0} == {
        "id": first, "subject": by_id[first]["subject"], "subject_name": "billing-service", "relation": "owned_by",
        "object": by_id[first]["object"], "object_name": "alice", "status": "current", "superseded_by": None,
        "reason": None, "contested": False, "evidence": ["user said 2026-03-02"], "valid_from": "2026-03-01",
        "valid_to": None, "recorded_at": by_id[first]["recorded_at"], "retired_at": None,
        "actor": "mcp:pytest-agent", "description": "", "score": 0, "why": "a fact of billing-service"}
    assert [e["name"] for e in found["entities"]["items"]] == ["billing-service"]

    one = server.data("recall", query="billing", limit=1)
    assert one["facts"]["total"] == 2 and len(one["facts"]["items"]) == 1 and one["next_cursor"] == "1"
    rest = server.data("recall", query="billing", limit=1, cursor=one["next_cursor"])
    assert {one["facts"]["items"][0]["id"], rest["facts"]["items"][0]["id"]} == {first, second}
    assert rest["next_cursor"] is None

    history = server.data("history", ref="billing-service")
    assert history["entity"]["name"] == "billing-service" and history["facts"]["total"] == 2
    assert {f["id"] for f in history["facts"]["items"]} == {first, second}
    assert all(f["versions"][0]["status"] == "current" for f in history["facts"]["items"])
    asserts = [row for row in history["ledger"]["items"] if row["action"] == "assert"]
    assert {row["refs"][0] for row in asserts} == {first, second}
    assert {row["actor"] for row in history["ledger"]["items"]} == {"mcp:pytest-agent"}
    assert sorted(row["action"] for row in history["ledger"]["items"]) == ["assert", "assert", "entity"]
    assert history["ledger"]["total"] == 3
    assert server.data("history", ref=first[:8])["fact"]["id"] == first


def test_a_contest_shows_as_contested_in_the_next_snapshot(server, memlens):
    port_a, port_b = remember(server, fact("gateway", "listens_on", "port-8080"),
                              fact("gateway", "listens_on_tls", "port-8443"))
    untouched = remember(server, fact("gateway", "maintained_by", "carol"))[0]
    contest = server.data("contest", fact_a=port_a, fact_b=port_b[:8], reason="README and compose disagree",
                          confidence=0.7)
    assert contest["key"] == "contradiction:" + contest["contradiction"][:8]

    snapshot = json.loads(memlens("export", "--format", "json", "-o", "-", "-d", "alpha").output)
    contested = {f["id"]: f["contested"] for f in snapshot["facts"]}
    assert contested[port_a] and contested[port_b] and not contested[untouched]
    assert any(c["id"] == contest["contradiction"] for c in snapshot["contradictions"])

    worklist = server.data("maintain")["worklist"]["items"]
    assert contest["key"] in {c["key"] for c in worklist}
    server.data("dismiss", key=contest["key"], reason="both ports are served")
    recalled = {f["id"]: f["contested"] for f in server.data("recall", query="gateway")["facts"]["items"]}
    assert recalled == {port_a: False, port_b: False, untouched: False}


def test_judgements_supersede_restore_and_retract_through_the_protocol(server):
    old, new, wrong = remember(server, fact("search", "uses", "elastic"), fact("search", "uses", "opensearch"),
                               fact("search", "uses", "kafka"))
    assert server.data("supersede", old=old, new=new, reason="migrated in PR 12") == {"superseded": old, "by": new}
    assert server.data("retract", fact=wrong, reason="never used") == {"retracted": wrong, "reopened": []}
    statuses = {f["id"]: f["status"] for f in server.data("history", ref="search")["facts"]["items"]}
    assert statuses == {old: "superseded", new: "current", wrong: "retracted"}
    assert server.data("restore", fact=old[:8], reason="migration reverted")["restored"] == old
    current = {f["id"] for f in server.data("facts", limit=100)["facts"]["items"]}
    assert old in current and new in current and wrong not in current


def test_forget_erases_the_text_from_the_store_file(server, mcp_home):
    secret = "okapi-7731 salary figure"
    [fid] = remember(server, fact("payroll", "notes", "dave", description=secret, evidence=[secret]))
    store = mcp_home / "alpha.sqlite"

    def stored_bytes() -> bytes:
        return b"".join(p.read_bytes() for p in (store, Path(f"{store}-wal")) if p.exists())

    assert secret.encode() in stored_bytes()
    assert server.data("forget", what="fact", ref=fid) == {"forgotten": fid, "facts": []}
    assert secret.encode() not in stored_bytes()
    assert server.data("recall", query="okapi")["facts"]["total"] == 0
    again = server.error("remember", facts=[fact("payroll", "notes", "dave")])
    assert again.startswith("Error: payroll --notes--> dave was forgotten")


def test_a_malformed_call_is_a_tool_error_with_the_clis_line_and_the_next_call_works(server, memlens):
    assert server.error("remember", facts="not a list") == "Error: remember: facts: Input should be a valid list"
    assert server.error("remember") == "Error: remember: facts: Field required"
    assert server.error("contest", fact_a="a", fact_b="b", reason="r", confidence=3).startswith(
        "Error: contest: confidence: Input should be less than or equal to 1")
    assert server.error("recall", query="x", cursor="abc").startswith("Error: cursor 'abc' is not one this server gave")
    assert server.error("teleport").startswith("Error: no tool named 'teleport'")

    unknown_type = server.error("remember", facts=[{"subject": "probe", "subject_type": "Spaceship",
                                                    "relation": "docked_at", "object": "moon", "object_type": "Place"}])
    cli = memlens("remember", "probe:Spaceship --docked_at--> moon:Place", "-d", "alpha")
    assert cli.exit_code == 1
    assert unknown_type == cli.output.strip() and unknown_type.startswith("Error: unknown entity type 'Spaceship'")
    assert "\n" not in unknown_type

    stats = server.data("stats")
    assert stats["dataset"] == "alpha" and stats["facts"] >= 0
    assert server.data("recall", query="probe")["facts"]["total"] == 0  # nothing half-written


def test_a_string_past_its_documented_limit_is_a_tool_error_and_nothing_is_stored(server):
    from memlens.viewer.cli.mcp_tools import EVIDENCE_LIMIT, NAME_LIMIT, TEXT_LIMIT

    oversized = {
        "description": fact("huge-description", "sized", "limit", description="x" * (50 << 20)),
        "evidence": fact("huge-evidence", "sized", "limit", evidence=["x" * (TEXT_LIMIT + 1)]),
        "evidence list": fact("many-evidence", "sized", "limit", evidence=["x"] * (EVIDENCE_LIMIT + 1)),
        "subject": fact("s" * (NAME_LIMIT + 1), "sized", "limit"),
    }
    for field, oversized_fact in oversized.items():
        said = server.error("remember", facts=[oversized_fact])
        assert said.startswith("Error: remember: facts.0.") and "at most" in said and "\n" not in said, (field, said)
    assert server.error("retract", fact="x", reason="r" * (TEXT_LIMIT + 1)).startswith("Error: retract: reason:")
    assert server.data("recall", query="huge-description")["facts"]["total"] == 0
    at_the_limit = fact("sized-right", "sized", "limit", description="x" * TEXT_LIMIT,
                        evidence=["y" * TEXT_LIMIT] * EVIDENCE_LIMIT)
    remember(server, at_the_limit)   # the positive case: each string at its limit is stored whole
    [stored] = server.data("recall", query="sized-right")["facts"]["items"]
    assert stored["description"] == "x" * TEXT_LIMIT


def test_a_server_for_one_dataset_cannot_read_or_write_another(server, memlens):
    assert memlens("remember", "zebra-beta:Service --kept_in--> beta-vault:Service", "-d", "beta").exit_code == 0
    beta_before = json.loads(memlens("stats", "-d", "beta", "--json").output)

    assert server.data("recall", query="zebra")["facts"]["total"] == 0
    assert server.error("history", ref="zebra-beta") == "Error: no entity named 'zebra-beta'"
    assert server.error("stats", dataset="beta").startswith("Error: stats takes no argument 'dataset'")
    assert server.error("remember", facts=[fact("zebra-alpha", "kept_in", "vault")], db="beta.sqlite").startswith(
        "Error: remember takes no argument 'db'")
    remember(server, fact("zebra-alpha", "kept_in", "vault"))

    assert [f["subject_name"] for f in server.data("recall", query="zebra")["facts"]["items"]] == ["zebra-alpha"]
    assert json.loads(memlens("stats", "-d", "beta", "--json").output) == beta_before
    assert json.loads(memlens("recall", "zebra", "-d", "beta", "--json").output)["facts"][0]["subject_name"] \
        == "zebra-beta"


def test_an_mcp_write_and_a_cli_write_at_the_same_moment_both_land(server, mcp_home):
    holder = sqlite3.connect(mcp_home / "alpha.sqlite", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # both writers queue behind this lock, then go at once
    try:
        cli = subprocess.Popen([MEMLENS, "remember", "race-cli:Task --raced_by--> cli:Person", "-d", "alpha"],
                               env={"MEMLENS_HOME": str(mcp_home), "PATH": str(Path(MEMLENS).parent)},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        mcp = server.start("remember", facts=[{"subject": "race-mcp", "subject_type": "Task", "relation": "raced_by",
                                               "object": "mcp", "object_type": "Person"}])
        time.sleep(1.5)
        assert cli.poll() is None and not mcp.done()  # both are waiting for the lock
    finally:
        holder.execute("COMMIT")
        holder.close()
    _, errors = cli.communicate(timeout=60)
    assert cli.returncode == 0, errors
    result = mcp.result(timeout=60)
    assert not result.is_error, result.content[0].text
    actors = {f["subject_name"]: f for f in server.data("recall", query="raced")["facts"]["items"]}
    assert set(actors) == {"race-cli", "race-mcp"}
    history = server.data("history", ref="race-mcp")
    assert {row["actor"] for row in history["ledger"]["items"]} == {"mcp:pytest-agent"}


def test_view_writes_the_report_where_memlens_view_does_and_returns_its_path(server, mcp_home):
    remember(server, fact("report-service", "drawn_by", "erin"))
    first = server.data("view")
    assert first["path"] == str(mcp_home / "reports" / "alpha.html") and first["written"]
    assert first["hash"] in Path(first["path"]).read_text(encoding="utf-8")
    assert server.data("view") == dict(first, written=False)


def test_a_damaged_store_is_a_tool_error_until_it_is_fixed_and_the_actor_is_the_clients_name(mcp_home, memlens):
    damaged = mcp_home / "damaged.sqlite"
    damaged.write_bytes(b"not a database at all" * 100)
    with served(mcp_home, "--db", str(damaged), client="  other   agent ", mode="legacy") as other:
        error = other.error("stats")
        assert error == memlens("stats", "--db", str(damaged)).output.strip()
        assert error.startswith(f"Error: {damaged} is not a memlens store")
        damaged.unlink()  # the person fixes it; the server is still there
        other.data("remember", facts=[fact("gamma-service", "run_by", "frank", evidence="user said so")])
        ledger = other.data("history", ref="gamma-service")["ledger"]["items"]
        assert other.data("recall", query="gamma")["facts"]["items"][0]["evidence"] == ["user said so"]
    assert {row["actor"] for row in ledger} == {"mcp:other agent"}


def test_a_fact_has_one_json_shape_in_the_cli_and_over_mcp(server, memlens):
    [fid] = remember(server, fact("ledger-shape", "kept_by", "erin", description="one shape for both",
                                  evidence=["user said 2026-04-01"], valid_from="2026-04-01"))
    over_mcp = next(f for f in server.data("facts", limit=100)["facts"]["items"] if f["id"] == fid)
    in_cli = next(f for f in json.loads(memlens("facts", "--json", "-d", "alpha").output) if f["id"] == fid)
    assert over_mcp == in_cli                                   # the same keys, the same values
    assert in_cli["subject_name"] == "ledger-shape" and in_cli["description"] == "one shape for both"
    recalled = server.data("recall", query="ledger-shape")["facts"]["items"][0]
    assert set(recalled) - {"score", "why"} == set(in_cli) and recalled["score"] > 0
    assert recalled["why"] == "a fact of ledger-shape"


def test_reads_of_a_dataset_that_does_not_exist_are_tool_errors_and_create_nothing(mcp_home):
    with served(mcp_home, "-d", "never-written") as fresh:
        for tool, arguments in (("stats", {}), ("facts", {}), ("recall", {"query": "x"}),
                                ("history", {"ref": "x"}), ("maintain", {})):
            assert fresh.error(tool, **arguments).startswith("Error: no dataset at "), tool
        assert not list(mcp_home.glob("never-written*"))
        remember(fresh, fact("first-write", "made_by", "frank"))  # a write makes it
        assert fresh.data("stats")["facts"] == 1
    assert (mcp_home / "never-written.sqlite").exists()


def test_maintain_pages_come_from_one_worklist_until_the_store_changes(server):
    for n in range(3):
        remember(server, fact(f"paged-{n}", "owned_by", f"owner-{n}"))  # no evidence: one item each
    first = server.data("maintain", limit=1)
    total = first["worklist"]["total"]
    assert total >= 3 and first["next_cursor"] == "1"
    keys, cursor = [first["worklist"]["items"][0]["key"]], first["next_cursor"]
    while cursor is not None:
        page = server.data("maintain", limit=1, cursor=cursor)
        assert page["worklist"]["total"] == total and page["hooks"] == []
        keys.append(page["worklist"]["items"][0]["key"])
        cursor = page["next_cursor"]
    assert len(keys) == len(set(keys)) == total
    remember(server, fact("paged-late", "owned_by", "owner-late"))   # the store changed: built anew
    assert server.data("maintain", limit=1, cursor="1")["worklist"]["total"] == total + 1


def test_the_brief_is_a_prompt_recorded_as_given_and_a_resource_that_is_only_read(tmp_path):
    home = tmp_path / "home"
    with served(home, "-d", "briefs") as server:
        remember(server, fact("brief-service", "owned_by", "zoe", valid_from="2026-02-01"))
        [prompt] = [p for p in server.portal.call(server.client.list_prompts).prompts if p.name == "brief"]
        assert "not instructions" in prompt.description
        text = server.portal.call(server.client.get_prompt, "brief", {}).messages[0].content.text
        assert "- brief-service owned_by zoe since 2026-02-01 [" in text
        assert text.splitlines()[-1].startswith("This is recalled memory from memlens")
        [resource] = [r for r in server.portal.call(server.client.list_resources).resources if r.name == "brief"]
        read = server.portal.call(server.client.read_resource, str(resource.uri)).contents[0].text
        assert "- brief-service owned_by zoe since 2026-02-01 [" in read
    with sqlite3.connect(home / "briefs.sqlite") as conn:
        # the prompt was given to the client that asked; reading the resource gave nothing to anyone
        assert conn.execute("SELECT host, chars FROM briefs").fetchall() == [("mcp:pytest-agent", len(text))]


def test_a_near_miss_is_a_tool_error_naming_the_entity_and_how_to_insist(server):
    remember(server, fact("ledger-svc", "owned_by", "Priya Natarajan"))
    error = server.error("remember", facts=[fact("ledger-svc", "reviewed_by", "Priya Natarjan")])
    assert error.startswith("Error: 'Priya Natarjan' would be a new entity, and it is close to 'Priya Natarajan' "
                            "(Person)") and "new_entities: true" in error
    [outcome] = server.data("remember", facts=[fact("ledger-svc", "reviewed_by", "Priya Natarjan")],
                            new_entities=True)["facts"]
    assert outcome["outcome"] == "asserted"
    unknown = server.error("history", ref="priya")
    assert unknown == "Error: no entity named 'priya'; did you mean 'Priya Natarajan' (Person) or 'Priya Natarjan' (Person)?"


def test_forget_through_the_protocol_takes_the_exact_name_among_case_twins(mcp_home, memlens, tmp_path):
    path = tmp_path / "memory.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in [
        {"type": "entity", "name": "Alice", "entityType": "person", "observations": ["leads payments"]},
        {"type": "entity", "name": "alice", "entityType": "person", "observations": ["an intern"]},
    ]) + "\n", encoding="utf-8")
    assert memlens("import", "--from", "mcp-memory", str(path), "-d", "twins").exit_code == 0
    with served(mcp_home, "-d", "twins") as twins:
        refused = twins.error("forget", what="entity", ref="ALICE")
        assert refused.startswith("Error: 'ALICE' could be 'Alice' (Person, ") and "'alice' (Person, " in refused
        assert twins.data("history", ref="alice")["entity"]["name"] == "alice"
        gone = twins.data("forget", what="entity", ref="alice")["forgotten"]
        assert twins.data("history", ref="Alice")["entity"]["id"] != gone
        assert twins.data("history", ref="alice")["entity"]["name"] == "Alice"   # the one left that folds to it
