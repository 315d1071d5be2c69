"""`maintain`: the worklist first, then the after-maintenance hooks, which never undo it."""
from __future__ import annotations

import json

import pytest

from memlens.store import hooks


@pytest.fixture
def registered():
    names = []

    def add(name, hook):
        hooks.register(name, hook)
        names.append(name)

    yield add
    for name in names:
        hooks.unregister(name)


def test_maintain_runs_the_hooks_after_building_the_worklist(cli, registered):
    seen = []
    registered("record", lambda memory: seen.append(memory.stats()["facts"]) or "recorded")
    cli("remember", "a:Person --knows--> b:Person")
    result = cli("maintain", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert seen == [1]
    assert {"name": "record", "ok": True, "message": "recorded"} in data["hooks"]
    assert [c["kind"] for c in data["worklist"]] == ["unsupported"]


def test_a_failing_hook_is_reported_and_sets_the_exit_status_but_undoes_nothing(cli, registered):
    def broken(memory):
        raise RuntimeError("regeneration failed")

    ran = []
    registered("broken", broken)
    registered("zz-after", lambda memory: ran.append(True) and None)
    cli("remember", "a:Person --knows--> b:Person")
    result = cli("maintain")
    assert result.exit_code == 1
    assert "hook broken: FAILED: RuntimeError: regeneration failed" in result.output
    assert "unsupported:" in result.output  # the worklist was still shown
    assert ran == [True]  # later hooks still ran
    assert json.loads(cli("stats", "--json").stdout)["facts"] == 1


def test_as_of_record_shows_what_the_store_believed_then(cli):

    cli("remember", "eta.py:Module --uses--> pytz:Library")
    cli("remember", "eta.py --uses--> zoneinfo:Library")
    facts = {f["object_name"]: f for f in json.loads(cli("facts", "--json").stdout)}
    cli("supersede", facts["pytz"]["id"][:8], facts["zoneinfo"]["id"][:8], "--reason", "PR 433")
    ledger = json.loads(cli("export", "--format", "json", "-o", "-").stdout)["ledger"]
    first_assert = next(r["at"] for r in ledger if r["action"] == "assert")

    before = json.loads(cli("facts", "--as-of-record", first_assert, "--json").stdout)
    assert [f["object_name"] for f in before] == ["pytz"]
    now = json.loads(cli("facts", "--json").stdout)
    assert [f["object_name"] for f in now] == ["zoneinfo"]
    everything = json.loads(cli("facts", "--all", "--json").stdout)
    assert {(f["object_name"], f["status"]) for f in everything} == {("pytz", "superseded"), ("zoneinfo", "current")}
