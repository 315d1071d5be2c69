"""Maintenance as tasks: each worklist row a plain sentence with the exact command for each answer,
and `memlens maintain` ending with the next command to run, which does what it says."""
from __future__ import annotations

import json
import shlex

from memlens.viewer.model.printed_commands import shell_quoted, with_flag
from memlens.viewer.model.worklist import next_command, task_of


def names(mapping: dict[str, str]):
    return lambda entity_id: mapping.get(entity_id, "(forgotten)")


def test_each_kind_reads_as_a_sentence_with_a_command_for_each_answer():
    words = {"f1aaaaaaaa": ("api-gateway", "listens_on", "port 8080"), "f2bbbbbbbb": ("api-gateway", "listens_on", "port 8443"),
             "f3cccccccc": ("billing-service", "owned_by", "Dana"), "f4dddddddd": ("billing-service", "owned_by", "Priya")}
    for summary in ("f1aaaaaa vs f2bbbbbb (confidence 0.70): README says 8080",   # as the store says it
                    "f1aaaaaa vs f2bbbbbb (0.70): README says 8080"):              # as older snapshots did
        contradiction = task_of({"kind": "contradiction", "key": "contradiction:c0ffee00", "summary": summary,
                                 "refs": ["c0ffee00", "f1aaaaaaaa", "f2bbbbbbbb"]}, names({}), words.get)
        assert contradiction.sentence == ("\u201capi-gateway listens_on port 8080\u201d and \u201capi-gateway listens_on "
                                          "port 8443\u201d cannot both hold (confidence 0.70): README says 8080")
    assert [c for _, c in contradiction.commands] == [
        "memlens supersede f1aaaaaa f2bbbbbb --reason '...'", "memlens supersede f2bbbbbb f1aaaaaa --reason '...'",
        "memlens dismiss contradiction:c0ffee00 --reason '...'"]
    hotspot = task_of({"kind": "hotspot", "key": "hotspot:b1111111:owned_by", "summary": "x",
                       "refs": ["b1111111-e", "f3cccccccc", "f4dddddddd"]}, names({"b1111111-e": "billing-service"}), words.get)
    assert hotspot.sentence == "billing-service has 2 current owned_by values at once: Dana and Priya."
    assert hotspot.commands[0] == ("Priya replaced Dana", "memlens supersede f3cccccc f4dddddd --reason '...'")
    unsupported = task_of({"kind": "unsupported", "key": "unsupported:f3cccccc", "summary": "x", "refs": ["f3cccccccc"]},
                          names({}), words.get)
    assert unsupported.sentence.startswith("\u201cbilling-service owned_by Dana\u201d has no evidence")
    other = task_of({"kind": "consolidate", "key": "consolidate:a:b", "summary": "as memoose put it", "refs": []}, names({}), words.get)
    assert other.sentence == "as memoose put it" and other.commands == (("it is fine", "memlens dismiss consolidate:a:b --reason '...'"),)


def test_a_hostile_name_in_a_command_stays_one_word_of_text():
    hostile = ["it's", "$(rm -rf ~)", "a b", "`x`; echo hi", "plain-name", "数据库"]
    duplicate = task_of({"kind": "duplicate", "key": "duplicate:1:2", "summary": "x", "refs": ["e1", "e2"]},
                        names({"e1": hostile[0], "e2": hostile[1]}), lambda _: None)
    assert shlex.split(duplicate.commands[0][1]) == ["memlens", "merge", "it's", "$(rm -rf ~)"]
    for name in hostile:
        assert shlex.split(shell_quoted(name)) == [name]
    assert shell_quoted("plain-name") == "plain-name" and shell_quoted("a b") == "'a b'"


def test_maintain_ends_with_the_next_command_and_running_it_settles_the_first_task(cli):
    assert cli("demo").exit_code == 0
    result = cli("maintain", "-d", "demo")
    assert result.exit_code == 0
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("next, if the second holds: memlens supersede ") and last.endswith(" -d demo")
    assert "hook" not in result.output     # no bundle configured: nothing to say about it
    before = json.loads(cli("maintain", "-d", "demo", "--json").output)["worklist"]
    assert [item["kind"] for item in before] == ["contradiction"]
    command = shlex.split(last.split(": ", 1)[1])
    assert command[:2] == ["memlens", "supersede"] and command[-4:] == ["--reason", "...", "-d", "demo"]
    settled = cli(*command[1:-3], "the docker-compose mapping is what production runs", "-d", "demo")
    assert settled.exit_code == 0, settled.output
    assert json.loads(cli("maintain", "-d", "demo", "--json").output)["worklist"] == []
    assert cli("maintain", "-d", "demo").output.strip().splitlines()[-1] == \
        "next: memlens view -d demo    (nothing to review)"


def test_next_command_with_nothing_to_review_points_at_the_report():
    assert next_command([], names({}), lambda _: None) == "next: memlens view    (nothing to review)"
    assert next_command([], names({}), lambda _: None, ("--db", "/my store.sqlite")) == \
        "next: memlens view --db '/my store.sqlite'    (nothing to review)"


def test_a_hotspots_next_command_names_its_values_not_forgotten_ones(cli):
    assert cli("remember", "billing:Service --owned_by--> dana:Person", "-e", "x", "-d", "t").exit_code == 0
    assert cli("remember", "billing --owned_by--> priya:Person", "-e", "y", "-d", "t").exit_code == 0
    lines = cli("maintain", "-d", "t").output.strip().splitlines()
    assert lines[-1].startswith("next, if priya replaced dana: memlens supersede ")
    assert "forgotten" not in "\n".join(lines)


def test_commands_in_messages_carry_the_dataset_flag():
    assert with_flag("see `memlens maintain`, then `memlens types add NAME`", ("-d", "demo")) == \
        "see `memlens maintain -d demo`, then `memlens types add NAME -d demo`"
    assert with_flag("see `memlens maintain`", ()) == "see `memlens maintain`"


def test_the_demos_contradiction_reads_with_its_confidence_in_the_report(cli, tmp_path):
    """End to end, from the store's own summary: a change of its wording once left "(confidence ?)"."""
    assert cli("demo").exit_code == 0
    assert cli("export", "-d", "demo", "--format", "html", "-o", str(tmp_path / "r.html")).exit_code == 0
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "cannot both hold (confidence 0.70): README says 8080" in page
    assert "confidence ?" not in page


def test_the_sites_maintenance_page_words_the_same_tasks(cli, tmp_path):
    assert cli("demo").exit_code == 0
    assert cli("export", "-d", "demo", "--format", "site", "-o", str(tmp_path / "site")).exit_code == 0
    page = (tmp_path / "site" / "maintenance.html").read_text(encoding="utf-8")
    assert "cannot both hold (confidence 0.70): README says 8080" in page
    assert "memlens dismiss contradiction:" in page and "memlens supersede " in page
