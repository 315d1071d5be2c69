"""What the CLI's text says a memory says: descriptions, state reasons, archived memories marked,
times at one precision, and stored text that can never drive the terminal."""
from __future__ import annotations

import json
import re
import uuid

import pytest
from click.testing import CliRunner
from import_fixtures import build_mnemo

from memlens.viewer.cli import main
from memlens.viewer.cli.formatting import Times, description_lines, printable


@pytest.fixture
def mnemo(cli, tmp_path):
    """The committed mnemo fixture, imported as dataset `mn`."""
    source = tmp_path / "memories.db"
    ids = build_mnemo(source)
    assert cli("import", "--from", "mnemo", str(source), "-d", "mn").exit_code == 0
    return ids


def memories(cli, *args: str) -> list[dict]:
    return [f for f in json.loads(cli("facts", "-d", "mn", "--json", *args).output) if f["relation"] == "filed_under"]


def test_facts_text_says_what_each_current_memory_says(cli, mnemo):
    current = memories(cli)
    assert len(current) == 4 and all(f["description"] for f in current)
    whole = cli("facts", "-d", "mn", "--full").output
    for fact in current:
        assert f"    {fact['description']}" in whole.splitlines()
    cut = cli("facts", "-d", "mn").output
    assert "    the api listens on 9443" in cut.splitlines()
    assert "8443" not in cut and "8443" in cli("facts", "-d", "mn", "--all").output   # the superseded version
    recalled = cli("recall", "listens", "-d", "mn").output
    assert "    the api listens on 9443" in recalled.splitlines()
    history = cli("history", next(f["id"] for f in current if "9443" in f["description"])[:8], "-d", "mn").output
    assert "    the api listens on 9443" in history.splitlines()


def test_a_description_is_cut_at_the_terminals_width_and_whole_with_full(cli, monkeypatch):
    text = "word " * 60
    assert cli("remember", "long:Concept --says--> much:Concept", "--desc", text.strip()).exit_code == 0
    monkeypatch.setenv("COLUMNS", "60")
    [line] = [l for l in cli("facts").output.splitlines() if l.startswith("    ")]
    assert 55 <= len(line) <= 60 and line.endswith("…") and line.startswith("    word word")
    monkeypatch.setenv("COLUMNS", "400")
    [wide] = [l for l in cli("facts").output.splitlines() if l.startswith("    ")]
    assert wide == "    " + text.strip()                       # it fits: nothing cut
    assert description_lines("one\ntwo", width=80) == ["    one …"]
    assert description_lines("one\ntwo", full=True) == ["    one", "    two"]


def test_archived_memories_are_marked_in_facts_and_counted_in_stats(cli, mnemo):
    current = memories(cli)
    archived = [f for f in current if f["reason"] == "archived by mnemo"]
    assert {f["description"] for f in archived} == {"we used to deploy on fridays", "legacy archived note"}
    text = cli("facts", "-d", "mn").output.splitlines()
    for fact in current:
        [line] = [l for l in text if l.startswith(fact["id"][:8])]
        assert ("[archived by mnemo]" in line) == (fact in archived), line
    stats = cli("stats", "-d", "mn").output
    assert re.search(r"\b6 current \(2 archived\), 2 superseded\b", stats), stats
    assert json.loads(cli("stats", "-d", "mn", "--json").output)["archived"] == 2
    assert cli("remember", "a:Person --knows--> b:Person", "-d", "other").exit_code == 0
    assert "archived" not in cli("stats", "-d", "other").output      # none archived: none said


def test_a_current_facts_reason_is_shown_beside_it(cli):
    assert cli("remember", "svc:Service --uses--> lib:Library").exit_code == 0
    fid = json.loads(cli("facts", "--json").output)[0]["id"]
    assert "[" not in cli("facts").output.splitlines()[0]
    assert cli("retract", fid, "--reason", "wrong library").exit_code == 0
    assert cli("restore", fid, "--reason", "it is used after all").exit_code == 0
    assert "[it is used after all]" in cli("facts").output.splitlines()[0]
    assert "archived" not in cli("stats").output                   # restored is not archived


def test_no_mention_whose_memory_is_known_is_called_unsupported(cli, mnemo):
    worklist = json.loads(cli("maintain", "-d", "mn", "--json").output)["worklist"]
    mentions = [f for f in json.loads(cli("facts", "-d", "mn", "--json").output) if f["relation"] == "mentions"]
    assert mentions and all(f["evidence"] == [f"mnemo memory {uuid.UUID(mnemo['port'])}"] for f in mentions)
    unsupported = {c["refs"][0] for c in worklist if c["kind"] == "unsupported"}
    assert not unsupported & {f["id"] for f in mentions}
    # the positive case: a memory nobody gave a source for is still one
    no_source = [f["id"] for f in memories(cli) if not f["evidence"]]
    assert no_source and set(no_source) <= unsupported


def test_times_are_shown_to_the_minute_or_to_the_second_where_two_share_a_minute():
    apart = Times.of(["2026-01-05T09:01:34.000000Z", "2026-01-05T09:02:10.000000Z", "2026-01-05"])
    assert apart("2026-01-05T09:01:34.000000Z") == "2026-01-05 09:01" and apart("2026-01-05") == "2026-01-05"
    close = Times.of(["2026-01-05T09:01:34.000000Z", "2026-01-05T09:01:50.123456Z"])
    assert close("2026-01-05T09:01:50.123456Z") == "2026-01-05 09:01:50"
    same = Times.of(["2026-01-05T09:01:34.000000Z", "2026-01-05T09:01:34.000000Z"])  # one moment, twice
    assert same("2026-01-05T09:01:34.000000Z") == "2026-01-05 09:01"
    assert apart(None) == ""


HOSTILE_TERMINAL = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[31mRED\x1b[0m\u202eevil"


def test_stored_text_is_escaped_in_every_text_output_and_exact_in_json(home, tmp_path):
    # Color on, as at a terminal: click would otherwise strip what looks like a colour code itself.
    runner = CliRunner()

    def run(*args: str):
        result = runner.invoke(main, list(args), color=True, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    name = "probe" + HOSTILE_TERMINAL
    run("remember", "before:Concept --precedes--> probes:Concept")
    run("export", "--format", "json", "-o", str(tmp_path / "before.json"))
    run("remember", f"{name}:Concept --notes--> other{HOSTILE_TERMINAL}:Concept", "--desc", HOSTILE_TERMINAL,
        "-e", HOSTILE_TERMINAL, "--new")
    run("remember", f"{name} --notes--> third:Concept")           # no evidence: on the worklist
    listed = [f["id"] for f in json.loads(run("facts", "--json")) if f["subject_name"] == name]
    fid = listed[0]
    run("contest", fid, listed[1], "--reason", HOSTILE_TERMINAL)
    escaped = "\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[31mRED\\x1b[0m\\u202eevil"
    outputs = {
        "facts": run("facts"), "facts --full": run("facts", "--full"), "history": run("history", name),
        "history of a fact": run("history", fid[:8]), "recall": run("recall", "probe"),
        "maintain": run("maintain"), "datasets": run("datasets"), "types": run("types"),
        "diff": run("diff", str(tmp_path / "before.json")),
        "describe": run("describe", name, HOSTILE_TERMINAL),
    }
    for command, output in outputs.items():
        assert "\x1b]52" not in output and "RED\x1b" not in output and "\u202e" not in output, command
        assert "\x07" not in output, command
    for command in ("facts", "facts --full", "history", "recall", "maintain", "diff"):
        assert escaped in outputs[command], command
    exact = next(f for f in json.loads(run("facts", "--json")) if f["id"] == fid)
    assert exact["description"] == HOSTILE_TERMINAL and exact["evidence"] == [HOSTILE_TERMINAL]
    assert exact["subject_name"] == name
    assert printable(HOSTILE_TERMINAL) == escaped
