"""`memlens diff`: what changed between two snapshots, forgotten facts by id only."""
from __future__ import annotations

import json

from memlens.store.facts import FactInput
from memlens.store.snapshot.diff import diff

SECRET = "prod-password-correct-horse"


def test_diff_reports_a_supersession_a_contest_and_a_forget_without_the_forgotten_text(memory):
    [pytz, zoneinfo, port_a, port_b, secret] = [o.fact_id for o in memory.remember([
        FactInput("eta.py", "uses", "pytz", "Module", "Library", evidence=("a",)),
        FactInput("eta.py", "uses", "zoneinfo", None, "Library", evidence=("b",)),
        FactInput("gateway", "listens_on", "8080", "Service", "Config", evidence=("c",)),
        FactInput("gateway", "listens_on", "8443", None, "Config", evidence=("d",)),
        FactInput("gateway", "uses_password", SECRET, None, "Config", evidence=("e",)),
    ])]
    before = memory.snapshot()
    assert SECRET in json.dumps(before)  # the old snapshot still holds it

    memory.supersede(pytz, zoneinfo, "PR 433")
    memory.contest(port_a, port_b, "README vs compose", 0.7)
    memory.forget_fact(secret)
    [added] = memory.remember([FactInput("gateway", "runs_in", "production", None, "Environment", evidence=("f",))])
    changes = diff(before, memory.snapshot())

    assert changes["counts"]["facts_superseded"] == 1
    assert changes["changes"]["facts_superseded"][0] == {
        "id": pytz, "subject": "eta.py", "relation": "uses", "object": "pytz", "by": zoneinfo}
    assert {c["id"] for c in changes["changes"]["facts_contested"]} == {port_a, port_b}
    assert changes["changes"]["facts_forgotten"] == [{"id": secret}]
    assert [c["id"] for c in changes["changes"]["facts_added"]] == [added.fact_id]
    assert [e["name"] for e in changes["changes"]["entities_added"]] == ["production"]
    assert SECRET not in json.dumps(changes)


def test_resolving_and_merging_show_up(memory):
    [a, b] = [o.fact_id for o in memory.remember([
        FactInput("gateway", "listens_on", "8080", "Service", "Config"),
        FactInput("gateway", "listens_on", "8443", None, "Config"),
    ])]
    memory.remember([FactInput("Postgres", "used_by", "gateway", "Library", None),
                     FactInput("PostgreSQL", "used_by", "billing", "Library", "Service")], new=True)
    memory.contest(a, b, "which one", 0.5)
    before = memory.snapshot()
    memory.supersede(a, b, "compose wins")
    memory.merge("PostgreSQL", "Postgres")
    changes = diff(before, memory.snapshot())
    assert {c["id"] for c in changes["changes"]["facts_resolved"]} == {a, b}
    assert a in [c["id"] for c in changes["changes"]["facts_superseded"]]
    assert [m["name"] for m in changes["changes"]["entities_merged"]] == ["Postgres"]
    assert changes["changes"]["entities_merged"][0]["into_name"] == "PostgreSQL"


def test_no_change_is_an_empty_diff(memory):
    memory.remember([FactInput("a", "knows", "b", "Person", "Person")])
    snapshot = memory.snapshot()
    assert not any(diff(snapshot, snapshot)["counts"].values())
    memory.remember([FactInput("a", "knows", "c", None, "Person")])
    assert diff(snapshot, memory.snapshot())["counts"]["facts_added"] == 1


def test_the_diff_command_reads_stores_and_snapshot_files(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    cli("remember", "--db", str(store), "a:Person --knows--> b:Person")
    old = tmp_path / "old.json"
    assert cli("export", "--db", str(store), "--format", "json", "-o", str(old)).exit_code == 0
    cli("remember", "--db", str(store), "a --knows--> c:Person")
    result = cli("diff", str(old), str(store), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["counts"]["facts_added"] == 1
    text = cli("diff", str(old), str(store)).output
    assert "facts added (1)" in text and "a --knows--> c" in text
    bad = cli("diff", str(old), str(tmp_path / "missing.json"))
    assert bad.exit_code == 1 and "no such snapshot" in bad.output


def test_diff_reports_evidence_added_and_the_ledger_rows_since(cli, tmp_path):
    assert cli("demo").exit_code == 0
    report = tmp_path / "before.html"
    assert cli("export", "-d", "demo", "--format", "html", "-o", str(report)).exit_code == 0
    said = cli("remember", "billing-service --owned_by--> Sam Lee", "--valid-from", "2025-10-01", "-d", "demo",
               "-e", "CODEOWNERS blame, Oct 2025")
    assert said.output.startswith("kept superseded: ")     # said again inside its interval: a reassertion

    shown = cli("diff", str(report), "-d", "demo")
    changes = json.loads(cli("diff", str(report), "-d", "demo", "--json").output)

    assert "no changes" not in shown.output
    [again] = changes["changes"]["facts_said_again"]
    assert (again["object"], again["evidence_added"]) == ("Sam Lee", ["CODEOWNERS blame, Oct 2025"])
    assert [row["action"] for row in changes["changes"]["ledger_rows_added"]] == ["reassert"]
    assert "+ evidence CODEOWNERS blame, Oct 2025" in shown.output and "ledger rows added (1)" in shown.output
    assert changes["memories"]["same"] is True and "different memories" not in shown.output
    # nothing changed: nothing said
    assert json.loads(cli("diff", str(report), str(report), "--json").output)["counts"] == dict.fromkeys(
        changes["counts"], 0)


def test_a_diff_of_two_different_memories_says_so(cli, tmp_path):
    assert cli("demo").exit_code == 0
    report = tmp_path / "demo.html"
    assert cli("export", "-d", "demo", "--format", "html", "-o", str(report)).exit_code == 0
    assert cli("remember", "a:Person --knows--> b:Person", "-d", "mine").exit_code == 0

    shown = cli("diff", str(report), "-d", "mine")

    assert "these are two different memories (demo and mine)" in shown.output
    assert json.loads(cli("diff", str(report), "-d", "mine", "--json").output)["memories"] == {
        "from": "demo", "to": "mine", "same": False}
