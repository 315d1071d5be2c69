"""Every command, run the way its help says, does what it says: one success case per command,
its effect read back from the store or the files it wrote (not only its exit status)."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import click
import pytest
from conftest import store_at_schema_version
from import_fixtures import build_memoose

from memlens.store import datasets, schema
from memlens.store.memory import Memory
from memlens.viewer.cli import main


def leaf_commands(group: click.Group = main, prefix: tuple[str, ...] = ()):
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from leaf_commands(command, prefix + (name,))
        else:
            yield " ".join(prefix + (name,))


def ok(result) -> None:
    assert result.exit_code == 0, result.output


def said(result) -> object:
    """The JSON a successful command printed (it was given --json)."""
    ok(result)
    return json.loads(result.stdout)


def store(home: Path, name: str = "t") -> Memory:
    return Memory(home / f"{name}.sqlite")


def fact_id(cli, triple: str) -> str:
    (written,) = said(cli("remember", triple, "-d", "t", "--json"))
    return written["fact"]["id"]


def facts_named(home: Path) -> dict[str, dict]:
    """Every fact of dataset t by 'subject relation object', with its status."""
    with store(home) as memory:
        return {f"{f['subject_name']} {f['relation']} {f['object_name']}": f
                for f in memory.facts(include_all=True) if f["relation"]}


# -- writes ---------------------------------------------------------------------------------------

def case_remember(cli, home, tmp_path):
    ok(cli("remember", "alice:Person --works_at--> acme:Organization", "--valid-from", "2025-01-01",
           "-e", "user said so", "-d", "t", "--json"))
    fact = facts_named(home)["alice works_at acme"]
    assert fact["status"] == "current" and fact["valid_from"] == "2025-01-01" and fact["evidence"] == ["user said so"]


def case_describe(cli, home, tmp_path):
    fact_id(cli, "alice:Person --works_at--> acme:Organization")
    said(cli("describe", "alice", "Staff engineer on billing", "-d", "t", "--json"))
    with store(home) as memory:
        assert memory.history("alice")["entity"]["description"] == "Staff engineer on billing"


def case_functional(cli, home, tmp_path):
    ok(cli("remember", "alice:Person --works_at--> acme:Organization", "--valid-from", "2025-01-01", "-d", "t"))
    said(cli("remember", "alice --works_at--> globex:Organization", "--valid-from", "2026-01-01", "-d", "t", "--json"))
    answer = said(cli("functional", "works_at", "-d", "t", "--json"))
    facts = facts_named(home)
    assert answer["superseded"] == [facts["alice works_at acme"]["id"]]
    assert facts["alice works_at acme"]["status"] == "superseded"
    assert facts["alice works_at globex"]["status"] == "current"


def case_supersede(cli, home, tmp_path):
    old, new = fact_id(cli, "eta:Module --uses--> pytz:Library"), fact_id(cli, "eta --uses--> zoneinfo:Library")
    said(cli("supersede", old[:8], new[:8], "--reason", "PR 433", "-d", "t", "--json"))
    fact = facts_named(home)["eta uses pytz"]
    assert (fact["status"], fact["superseded_by"], fact["reason"]) == ("superseded", new, "PR 433")


def case_restore(cli, home, tmp_path):
    old, new = fact_id(cli, "eta:Module --uses--> pytz:Library"), fact_id(cli, "eta --uses--> zoneinfo:Library")
    ok(cli("supersede", old, new, "--reason", "PR 433", "-d", "t"))
    said(cli("restore", old, "--reason", "reverted", "-d", "t", "--json"))
    assert facts_named(home)["eta uses pytz"]["status"] == "current"


def case_retract(cli, home, tmp_path):
    wrong = fact_id(cli, "notify:Service --depends_on--> Kafka:Library")
    kept = fact_id(cli, "notify --depends_on--> Redis:Library")
    said(cli("retract", wrong, "--reason", "never used Kafka", "-d", "t", "--json"))
    facts = facts_named(home)
    assert facts["notify depends_on Kafka"]["status"] == "retracted"
    assert facts["notify depends_on Redis"]["status"] == "current" and facts["notify depends_on Redis"]["id"] == kept


def case_contest(cli, home, tmp_path):
    a, b = fact_id(cli, "api:Service --listens_on--> 8080:Config"), fact_id(cli, "api --listens_on--> 8443:Config")
    said(cli("contest", a, b, "--reason", "README vs compose", "--confidence", "0.7", "-d", "t", "--json"))
    facts = facts_named(home)
    assert facts["api listens_on 8080"]["contested"] and facts["api listens_on 8443"]["contested"]
    with store(home) as memory:
        assert memory.stats()["open_contradictions"] == 1


def case_dismiss(cli, home, tmp_path):
    a, b = fact_id(cli, "api:Service --listens_on--> 8080:Config"), fact_id(cli, "api --listens_on--> 8443:Config")
    ok(cli("contest", a, b, "--reason", "README vs compose", "-d", "t"))
    worklist = said(cli("maintain", "-d", "t", "--json"))["worklist"]
    (key,) = [item["key"] for item in worklist if item["kind"] == "contradiction"]
    said(cli("dismiss", key, "--reason", "both hold: 8080 inside, 8443 outside", "-d", "t", "--json"))
    after = said(cli("maintain", "-d", "t", "--json"))["worklist"]
    assert key not in {item["key"] for item in after} and after  # the facts' missing evidence is still listed
    with store(home) as memory:
        assert (memory.stats()["dismissals"], memory.stats()["open_contradictions"]) == (1, 0)


def case_merge(cli, home, tmp_path):
    fact_id(cli, "tracking:Service --depends_on--> PostgreSQL:Library")
    fact_id(cli, "billing:Service --depends_on--> Postgres:Library")
    answer = said(cli("merge", "PostgreSQL", "Postgres", "-d", "t", "--json"))
    assert (answer["kept"], answer["dropped"]) == ("PostgreSQL", "Postgres")
    facts = {name for name, f in facts_named(home).items() if f["status"] == "current"}
    assert {"tracking depends_on PostgreSQL", "billing depends_on PostgreSQL"} <= facts


def case_forget_fact(cli, home, tmp_path):
    secret = fact_id(cli, "alice:Person --knows--> bob:Person")
    fact_id(cli, "alice --works_at--> acme:Organization")
    said(cli("forget", "fact", secret, "-d", "t", "--json"))
    names = facts_named(home)
    assert "alice works_at acme" in names and "alice knows bob" not in names
    with store(home) as memory:
        assert memory.stats()["forgotten"] == 1


def case_forget_entity(cli, home, tmp_path):
    fact_id(cli, "alice:Person --works_at--> acme:Organization")
    fact_id(cli, "bob:Person --works_at--> acme")
    said(cli("forget", "entity", "alice", "-d", "t", "--json"))
    names = facts_named(home)
    assert "bob works_at acme" in names and not any("alice" in name for name in names)
    assert b"alice" not in (home / "t.sqlite").read_bytes()


def case_types_add(cli, home, tmp_path):
    fact_id(cli, "alice:Person --works_at--> acme:Organization")
    said(cli("types", "add", "Runbook", "-d", "t", "--json"))
    assert "Runbook" in said(cli("types", "list", "-d", "t", "--json"))
    ok(cli("remember", "deploy:Runbook --documents--> acme", "-d", "t"))
    assert "deploy documents acme" in facts_named(home)


def case_types_list(cli, home, tmp_path):
    fact_id(cli, "alice:Person --works_at--> acme:Organization")
    listed = said(cli("types", "list", "-d", "t", "--json"))
    assert {"Person", "Organization", "Service"} <= set(listed) and listed == sorted(listed)


def case_demo(cli, home, tmp_path):
    cli("demo")
    with Memory(datasets.path_for("demo")) as memory:
        stats = memory.stats()
    assert stats["entities"] > 40 and stats["open_contradictions"] >= 1 and stats["superseded"] >= 1


# -- reads ----------------------------------------------------------------------------------------

def case_facts(cli, home, tmp_path):
    ok(cli("remember", "alice:Person --works_at--> acme:Organization", "--valid-from", "2025-01-01", "-d", "t"))
    old = facts_named(home)["alice works_at acme"]["id"]
    ok(cli("remember", "alice --works_at--> globex:Organization", "--valid-from", "2026-01-01", "-d", "t"))
    ok(cli("functional", "works_at", "-d", "t"))
    current = said(cli("facts", "-d", "t", "--json"))
    assert [f["object_name"] for f in current] == ["globex"]
    everything = said(cli("facts", "--all", "-d", "t", "--json"))
    assert {f["id"] for f in everything} >= {old}


def case_history(cli, home, tmp_path):
    old, new = fact_id(cli, "eta:Module --uses--> pytz:Library"), fact_id(cli, "eta --uses--> zoneinfo:Library")
    ok(cli("supersede", old, new, "--reason", "PR 433", "-d", "t"))
    answer = said(cli("history", old, "-d", "t", "--json"))
    assert [v["status"] for v in answer["history"]] == ["current", "superseded"]
    assert said(cli("history", "eta", "-d", "t", "--json"))["entity"]["name"] == "eta"


def case_recall(cli, home, tmp_path):
    fact_id(cli, "billing:Service --owned_by--> Payments Team:Team")
    fact_id(cli, "search:Service --owned_by--> Discovery:Team")
    answer = said(cli("recall", "billing", "-d", "t", "--json"))
    assert [f["subject_name"] for f in answer["facts"]] == ["billing"]


def case_stats(cli, home, tmp_path):
    fact_id(cli, "alice:Person --works_at--> acme:Organization")
    answer = said(cli("stats", "-d", "t", "--json"))
    assert (answer["entities"], answer["facts"], answer["current"]) == (2, 1, 1)


def case_datasets(cli, home, tmp_path):
    fact_id(cli, "alice:Person --works_at--> acme:Organization")
    ok(cli("remember", "x:Concept --is--> y:Concept", "-d", "other"))
    names = {d["name"] for d in said(cli("datasets", "--json"))}
    assert names == {"t", "other"}


def case_maintain(cli, home, tmp_path):
    fact_id(cli, "api:Service --listens_on--> 8080:Config")
    answer = said(cli("maintain", "-d", "t", "--json"))
    assert {item["kind"] for item in answer["worklist"]} == {"unsupported"}  # no evidence given
    assert [hook["ok"] for hook in answer["hooks"]] == [True] * len(answer["hooks"])


def case_export(cli, home, tmp_path):
    fact_id(cli, "alice:Person --works_at--> acme:Organization")
    for fmt, name in (("json", "s.json"), ("html", "r.html"), ("site", "site"), ("graphml", "g.graphml"),
                      ("gexf", "g.gexf")):
        said(cli("export", "-d", "t", "--format", fmt, "-o", str(tmp_path / name), "--json"))
    assert json.loads((tmp_path / "s.json").read_text())["stats"]["facts"] == 1
    assert "alice" in (tmp_path / "r.html").read_text() and (tmp_path / "site" / "manifest.json").is_file()
    assert "acme" in (tmp_path / "g.graphml").read_text() and "acme" in (tmp_path / "g.gexf").read_text()


def case_view(cli, home, tmp_path):
    fact_id(cli, "alice:Person --works_at--> acme:Organization")
    answer = said(cli("view", "-d", "t", "--out", str(tmp_path / "v.html"), "--no-open", "--json"))
    assert answer["written"] and "alice" in (tmp_path / "v.html").read_text()
    again = said(cli("view", "-d", "t", "--out", str(tmp_path / "v.html"), "--no-open", "--if-changed", "--json"))
    assert not again["written"]


def case_diff(cli, home, tmp_path):
    fact_id(cli, "alice:Person --works_at--> acme:Organization")
    ok(cli("export", "-d", "t", "--format", "json", "-o", str(tmp_path / "before.json")))
    added = fact_id(cli, "bob:Person --works_at--> acme")
    answer = said(cli("diff", str(tmp_path / "before.json"), str(home / "t.sqlite"), "--json"))
    assert [entry["id"] for entry in answer["changes"]["facts_added"]] == [added]


def case_verify(cli, home, tmp_path):
    fact_id(cli, "alice:Person --works_at--> acme:Organization")
    ok(cli("export", "-d", "t", "--format", "site", "-o", str(tmp_path / "site")))
    answer = said(cli("verify", str(tmp_path / "site"), "--json"))
    assert answer["ok"] and answer["facts"] == 1 and answer["files"] > 0


def case_import(cli, home, tmp_path):
    source = tmp_path / "memoose.sqlite"
    build_memoose(source)
    said(cli("import", "--from", "memoose", str(source), "-d", "copied", "--json"))
    with Memory(datasets.path_for("copied")) as memory:
        assert memory.stats()["entities"] > 0 and memory.stats()["facts"] > 0


def case_migrate(cli, home, tmp_path):
    store_at_schema_version(home / "t.sqlite", 2)  # as a memlens of schema version 2 made it
    answer = said(cli("migrate", "-d", "t", "--json"))
    assert (answer["from"], answer["to"]) == (2, schema.SCHEMA_VERSION)
    with sqlite3.connect(home / "t.sqlite") as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
    fact_id(cli, "alice:Person --works_at--> acme:Organization")  # and it takes writes
    assert said(cli("stats", "-d", "t", "--json"))["facts"] == 1


def case_bundles_add(cli, home, tmp_path):
    fact_id(cli, "alice:Person --works_at--> acme:Organization")
    said(cli("bundles", "add", str(tmp_path / "b.html"), "-d", "t", "--json"))
    listed = said(cli("bundles", "list", "-d", "t", "--json"))
    assert [Path(b["path"]).name for b in listed] == ["b.html"]
    said(cli("maintain", "-d", "t", "--json"))  # the hook writes it
    assert "alice" in (tmp_path / "b.html").read_text()


def case_bundles_list(cli, home, tmp_path):
    fact_id(cli, "alice:Person --works_at--> acme:Organization")
    assert said(cli("bundles", "list", "-d", "t", "--json")) == []
    ok(cli("bundles", "add", str(tmp_path / "site"), "--format", "site", "-d", "t"))
    assert [b["format"] for b in said(cli("bundles", "list", "-d", "t", "--json"))] == ["site"]


def case_bundles_remove(cli, home, tmp_path):
    fact_id(cli, "alice:Person --works_at--> acme:Organization")
    ok(cli("bundles", "add", str(tmp_path / "b.html"), "-d", "t"))
    said(cli("bundles", "remove", str(tmp_path / "b.html"), "-d", "t", "--json"))
    assert said(cli("bundles", "list", "-d", "t", "--json")) == []


def case_hooks_install(cli, home, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    said(cli("hooks", "install", "--host", "claude-code", "--project", "--json"))
    settings = json.loads((tmp_path / ".claude" / "settings.json").read_text())
    assert "memlens maintain" in json.dumps(settings["hooks"])


def case_hooks_uninstall(cli, home, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ok(cli("hooks", "install", "--host", "claude-code", "--project"))
    said(cli("hooks", "uninstall", "--host", "claude-code", "--project", "--json"))
    assert not (tmp_path / ".claude").exists()   # it made the file, and took it away again


def case_hooks_status(cli, home, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ok(cli("hooks", "install", "--host", "cursor", "--project"))
    rows = said(cli("hooks", "status", "--host", "cursor", "--project", "--json"))
    assert [row["state"] for row in rows] == ["installed"] * 3


def case_phrases_add(cli, home, tmp_path):
    ok(cli("remember", "billing:Service --owned_by--> priya:Person", "billing:Service --mentions--> tending:Person",
           "-d", "t"))
    before = said(cli("recall", "who tends billing", "-d", "t", "--json"))["facts"]
    assert before[0]["relation"] == "mentions"   # it holds both words; nothing says tending is owning
    assert said(cli("phrases", "add", "Tends", "owned_by", "-d", "t", "--json")) == {"tends": ["owned_by"]}
    found = said(cli("recall", "who tends billing", "-d", "t", "--json"))["facts"]
    assert (found[0]["relation"], found[0]["object_name"]) == ("owned_by", "priya")


def case_phrases_list(cli, home, tmp_path):
    ok(cli("remember", "alice:Person --works_at--> acme:Organization", "-d", "t"))
    ok(cli("phrases", "add", "answers to", "~manages", "-d", "t"))
    assert said(cli("phrases", "list", "-d", "t", "--json")) == {"answers to": ["~manages"]}


def case_phrases_remove(cli, home, tmp_path):
    ok(cli("remember", "alice:Person --works_at--> acme:Organization", "-d", "t"))
    ok(cli("phrases", "add", "answers to", "~manages", "-d", "t"))
    said(cli("phrases", "remove", "answers to", "-d", "t", "--json"))
    assert said(cli("phrases", "list", "-d", "t", "--json")) == {}


def case_brief(cli, home, tmp_path):
    fact_id(cli, "alice:Person --works_at--> acme:Organization")
    given = said(cli("brief", "-d", "t", "--record", "--json"))
    assert "- alice works_at acme [" in given["text"] and given["chars"] <= 4_000
    with sqlite3.connect(home / "t.sqlite") as conn:
        assert conn.execute("SELECT host, digest FROM briefs").fetchall() == [("cli", given["digest"])]


CASES = {name[len("case_"):].replace("_", " "): case for name, case in globals().items()
         if name.startswith("case_")}
# Spoken to over stdio by an MCP client, not run as a one-shot command: tests/test_mcp.py.
ELSEWHERE = {"mcp"}


def test_every_command_has_a_success_case():
    assert set(leaf_commands()) - ELSEWHERE == set(CASES)


@pytest.mark.parametrize("command", sorted(CASES))
def test_the_command_does_what_its_help_says(command, cli, home, tmp_path, monkeypatch):
    case = CASES[command]
    if "monkeypatch" in case.__code__.co_varnames[:case.__code__.co_argcount]:
        case(cli, home, tmp_path, monkeypatch)
    else:
        case(cli, home, tmp_path)
