"""The command line: help everywhere, exit statuses, JSON for scripts, never a traceback."""
from __future__ import annotations

import json

import click
import pytest

from memlens.viewer.cli import main


def all_commands(group: click.Group = main, prefix: tuple[str, ...] = ()):
    for name, command in sorted(group.commands.items()):
        yield prefix + (name,), command
        if isinstance(command, click.Group):
            yield from all_commands(command, prefix + (name,))


COMMANDS = list(all_commands())
# These act on files or host settings, not on a dataset (demo has --db, but builds its own).
NOT_ON_A_DATASET = {("demo",), ("verify",), ("hooks", "install"), ("hooks", "uninstall"), ("hooks", "status")}
# Its standard output is the MCP protocol, JSON-RPC already: there is nothing for --json to change.
SPEAKS_A_PROTOCOL = {("mcp",)}


def test_the_cli_has_the_commands_the_store_offers():
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"demo", "remember", "functional", "supersede", "restore", "contest", "dismiss", "forget fact",
            "forget entity", "merge", "history", "facts", "recall", "maintain", "stats", "datasets",
            "export", "view", "mcp"} <= names


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=[" ".join(p) for p, _ in COMMANDS])
def test_every_command_has_help_with_an_example(cli, path):
    result = cli(*path, "--help")
    assert result.exit_code == 0
    assert "Example" in result.output
    command = dict(COMMANDS)[path]
    if not isinstance(command, click.Group):
        assert ("--json" in result.output) != (path in SPEAKS_A_PROTOCOL)
        assert ("--db" in result.output) != (path in NOT_ON_A_DATASET) or path == ("demo",)


def test_remember_then_list_as_json(cli):
    result = cli("remember", "alice:Person --works_at--> acme:Organization", "--valid-from", "2025-01-01",
                 "-e", "user said 2025-01-02", "--json")
    assert result.exit_code == 0, result.output
    [written] = json.loads(result.output)
    assert written["outcome"] == "asserted"
    facts = json.loads(cli("facts", "--json").stdout)
    assert [(f["subject_name"], f["relation"], f["object_name"], f["valid_from"], f["evidence"]) for f in facts] == [
        ("alice", "works_at", "acme", "2025-01-01", ["user said 2025-01-02"])]
    stats = json.loads(cli("stats", "--json").stdout)
    assert stats["facts"] == 1 and stats["entities"] == 2


def test_remember_reads_json_lines_from_stdin_in_one_transaction(cli):
    lines = "\n".join(json.dumps(d) for d in [
        {"subject": "alice", "subject_type": "Person", "relation": "knows", "object": "bob", "object_type": "Person",
         "evidence": "user said so", "valid_from": "2025-01-01"},
        {"subject": "bob", "relation": "works_at", "object": "acme", "object_type": "Organization"},
    ])
    assert cli("remember", "--stdin", input=lines).exit_code == 0
    assert json.loads(cli("stats", "--json").stdout)["facts"] == 2

    bad = lines + "\n" + json.dumps({"subject": "carol", "relation": "knows", "object": "dave"})
    result = cli("remember", "--stdin", "-d", "other", input=bad)
    assert result.exit_code == 1 and "Error:" in result.output and "carol" in result.output
    # nothing of the batch was written, so the new dataset was not made either
    stats = cli("stats", "-d", "other", "--json")
    assert stats.exit_code == 1 and "no store at" in stats.output
    assert cli("remember", "--stdin", "-d", "other", input=lines).exit_code == 0
    assert json.loads(cli("stats", "-d", "other", "--json").stdout)["facts"] == 2


def test_a_stdin_batch_is_summed_up_by_outcome_and_listed_on_request(cli):
    cli("functional", "owned_by")
    lines = "\n".join(json.dumps(d) for d in [
        {"subject": "billing", "subject_type": "Service", "relation": "owned_by", "object": "priya",
         "object_type": "Person", "valid_from": "2026-01-01"},
        {"subject": "billing", "relation": "owned_by", "object": "dana", "object_type": "Person",
         "valid_from": "2025-01-01"},
        {"subject": "billing", "relation": "uses", "object": "postgres", "object_type": "Library"},
        {"subject": "billing", "relation": "uses", "object": "postgres"},
    ])
    summary = cli("remember", "--stdin", input=lines)
    assert summary.exit_code == 0, summary.output
    assert summary.stdout.splitlines() == [
        "remembered 4 facts:", "           2  asserted", "           1  filed as history", "           1  reasserted",
        "(--verbose lists each fact; --json gives them as data)"]
    assert "billing --uses--> postgres" not in summary.stdout

    again = cli("remember", "--stdin", "--verbose", input=lines)
    assert again.exit_code == 0, again.output
    listed = again.stdout.splitlines()
    assert len(listed) == 4 and all("billing --" in line for line in listed)
    assert [line.split(": ")[0] for line in listed] == ["reasserted", "kept superseded", "reasserted", "reasserted"]
    assert not any(line.startswith(" ") for line in listed)  # no padding before the outcome
    data = json.loads(cli("remember", "--stdin", "--json", input=lines).stdout)
    assert [(d["outcome"], d["fact"]["object_name"]) for d in data] == [
        ("reasserted", "priya"), ("kept superseded", "dana"), ("reasserted", "postgres"), ("reasserted", "postgres")]


@pytest.mark.parametrize("args, message", [
    (["remember", "not a triple"], "cannot read"),
    (["remember", "alice:Wizard --knows--> bob:Person"], "unknown entity type"),
    (["remember", "alice:Person --knows--> bob:Person", "--valid-from", "yesterday"], "not an ISO date"),
    (["supersede", "abcd1234", "dcba4321", "--reason", "x"], "no fact"),
    (["dismiss", "hotspot:nothing", "--reason", "x"], "no open maintenance candidate"),
    (["forget", "entity", "nobody"], "no entity"),
])
def test_bad_input_is_one_line_error_and_exit_1(cli, args, message):
    assert cli("remember", "seed:Person --knows--> other:Person").exit_code == 0
    result = cli(*args)
    assert result.exit_code == 1, result.output
    assert result.output.startswith("Error: ") and message in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("args", [["supersede", "onlyone"], ["facts", "--no-such-flag"], ["remember"],
                                  ["contest", "a", "b", "--reason", "x", "--confidence", "2"]])
def test_bad_usage_exits_2(cli, args):
    result = cli(*args)
    assert result.exit_code == 2
    assert "Usage:" in result.output or "Error:" in result.output


def test_a_file_that_is_not_a_store_is_a_clear_error(cli, tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not sqlite" * 100)
    result = cli("stats", "--db", str(junk))
    assert result.exit_code == 1 and "not a memlens store" in result.output
    good = tmp_path / "good.sqlite"
    assert cli("remember", "--db", str(good), "a:Person --knows--> b:Person").exit_code == 0
    assert cli("stats", "--db", str(good)).exit_code == 0


def test_corrections_through_the_cli(cli):
    cli("functional", "owned_by")
    cli("remember", "billing:Service --owned_by--> dana:Person", "--valid-from", "2025-03-01")
    cli("remember", "billing --owned_by--> priya:Person", "--valid-from", "2026-02-01")
    late = json.loads(cli("remember", "billing --owned_by--> sam:Person", "--valid-from", "2025-09-15", "--json").stdout)
    assert late[0]["outcome"] == "filed as history"
    current = json.loads(cli("facts", "--json").stdout)
    assert [f["object_name"] for f in current] == ["priya"]
    as_of = json.loads(cli("facts", "--as-of-valid", "2025-10-01", "--json").stdout)
    assert [f["object_name"] for f in as_of] == ["sam"]

    sam = late[0]["fact"]["id"][:8]
    refused = cli("restore", sam, "--reason", "priya's move was cancelled")
    assert refused.exit_code == 1 and "still holds" in refused.output
    priya = json.loads(cli("facts", "--json").stdout)[0]["id"][:8]
    retracted = cli("retract", priya, "--reason", "priya's move was cancelled")
    assert retracted.exit_code == 0 and "[retracted]" in retracted.output
    assert "reopened: " in retracted.output and "sam" in retracted.output.split("reopened: ")[1]
    assert [f["object_name"] for f in json.loads(cli("facts", "--json").stdout)] == ["sam"]
    assert cli("restore", sam, "--reason", "again").exit_code == 1   # it already holds

    history = json.loads(cli("history", "billing", "--json").stdout)
    assert {f["object_name"] for f in history["facts"]} == {"dana", "priya", "sam"}
    assert any(row["action"] == "restore" for row in history["ledger"])


def test_the_actor_is_recorded(cli):
    cli("remember", "a:Person --knows--> b:Person", "--actor", "agent:keeper")
    ledger = json.loads(cli("export", "--format", "json", "-o", "-").stdout)["ledger"]
    assert {row["actor"] for row in ledger} == {"agent:keeper"}


def test_export_json_is_the_versioned_snapshot(cli, tmp_path):
    assert cli("demo").exit_code == 0
    out = tmp_path / "snapshot.json"
    result = cli("export", "-d", "demo", "--format", "json", "-o", str(out))
    assert result.exit_code == 0, result.output
    snapshot = json.loads(out.read_text())
    assert snapshot["format"] == "memlens-snapshot/1"
    assert {"entities", "facts", "contradictions", "dismissals", "ledger", "maintenance", "stats", "hash"} <= set(snapshot)
    required = {"id", "subject", "relation", "object", "status", "contested", "superseded_by", "valid_from",
                "valid_to", "recorded_at", "retired_at", "evidence", "actor"}
    assert all(required <= set(f) for f in snapshot["facts"])
    assert {f["status"] for f in snapshot["facts"]} == {"current", "superseded", "retracted", "forgotten"}


def test_the_demo_holds_what_it_promises(cli):
    result = cli("demo", "--json")
    assert result.exit_code == 0, result.output
    stats = json.loads(result.output)
    assert 40 <= stats["entities"] <= 60 and 80 <= stats["facts"] <= 120
    assert stats["superseded"] >= 3 and stats["retracted"] == 1 and stats["forgotten"] >= 1
    assert stats["open_contradictions"] == 1 and stats["contested"] == 2 and stats["dismissals"] == 1
    owners = [f for f in json.loads(cli("facts", "-d", "demo", "--all", "--json").stdout) if f["relation"] == "owned_by"]
    assert [(f["object_name"], f["status"]) for f in sorted(owners, key=lambda f: f["valid_from"])] == [
        ("Dana Okafor", "superseded"), ("Sam Lee", "superseded"), ("Priya Natarajan", "current")]
    # Sam's value arrived last but is older: it was filed as history.
    assert max(owners, key=lambda f: f["recorded_at"])["object_name"] == "Sam Lee"
    again = json.loads(cli("demo", "--force", "--json").stdout)
    assert again["hash"] == stats["hash"]  # the demo is the same every time
