"""The CLI's first-hour paper cuts (issue 27), each pinned with its positive case beside it."""
from __future__ import annotations

import json
import re

import pytest
from import_fixtures import build_memoose

from memlens.store.reads import FACT_FIELDS


@pytest.fixture
def demo(cli):
    assert cli("demo").exit_code == 0
    return cli


def test_a_group_takes_the_dataset_for_its_subcommands_and_types_lists_without_one(demo, tmp_path):
    listed = demo("types", "list", "-d", "demo")
    assert listed.exit_code == 0 and "Service" in listed.output.split()
    assert demo("types", "-d", "demo").output == listed.output              # the group alone lists
    assert demo("types", "--db", str(tmp_path / "none.sqlite")).exit_code == 0   # defaults, no store made
    assert not (tmp_path / "none.sqlite").exists()
    assert json.loads(demo("types", "-d", "demo", "--json").output) == listed.output.split()
    added = demo("types", "-d", "demo", "add", "Runbook")
    assert added.exit_code == 0 and "Runbook" in demo("types", "-d", "demo").output.split()
    assert "Runbook" not in demo("types", "-d", "other").output.split()    # it went to demo, not elsewhere
    forgot = demo("forget", "-d", "demo", "entity", "Kafka")
    assert forgot.exit_code == 0 and forgot.output.startswith("forgot entity ")
    assert demo("bundles", "-d", "demo", "list").exit_code == 0
    for group in ("types", "forget", "bundles"):
        assert "--db" in demo(group, "--help").output and "-d, --dataset" in demo(group, "--help").output


@pytest.mark.parametrize("command", [("history",), ("describe",), ("forget", "entity"), ("merge", "PostgreSQL")])
def test_a_name_written_differently_is_answered_with_the_name_it_may_mean(demo, command):
    extra = ("new words",) if command == ("describe",) else ()
    missed = demo(*command, "Biling Service", *extra, "-d", "demo")
    assert missed.exit_code == 1
    assert missed.output.strip().endswith("; did you mean 'billing-service' (Service)?"), missed.output
    assert "fact" not in missed.output      # a name is not read as a fact id
    # case and separators do not matter: a name written otherwise is the entity
    assert demo("history", "BILLING service", "-d", "demo").exit_code == 0


def test_history_shows_times_to_the_minute_labelled_columns_and_the_fact_each_row_touched(demo):
    shown = demo("history", "billing-service", "-d", "demo").output
    assert not re.search(r"\d{2}:\d{2}:\d{2}\.\d{6}", shown)                      # no microseconds
    assert re.search(r"^\s+seq\s+at \(UTC\)\s+actor\s+action\s+touched$", shown, re.M)
    owners = [f for f in json.loads(demo("facts", "--all", "-d", "demo", "--json").output)
              if f["subject_name"] == "billing-service" and f["relation"] == "owned_by"]
    first = min(owners, key=lambda f: f["recorded_at"])
    row = re.search(rf"^\s+\d+\s+(\S+ \S+)\s+cli:dana\s+assert\s+fact {first['id'][:8]} "
                    rf"billing-service --owned_by--> {first['object_name']}$", shown, re.M)
    assert row, shown
    assert row[1] == f"{first['recorded_at'][:10]} {first['recorded_at'][11:16]}"
    of_fact = demo("history", first["id"][:8], "-d", "demo").output
    assert f"supersede   fact {first['id'][:8]}" in of_fact and not re.search(r"\.\d{6}Z", of_fact)


def test_every_command_counts_entities_one_way_merged_ones_apart(demo, tmp_path):
    stats = json.loads(demo("stats", "-d", "demo", "--json").output)
    assert stats["merged"] == 1
    text = demo("stats", "-d", "demo").output
    assert text.startswith(f"{stats['entities']} entities (1 more merged into them), ")
    source = tmp_path / "memoose.sqlite"
    build_memoose(source)
    imported = demo("import", "--from", "memoose", str(source), "-d", "copy").output
    live = json.loads(demo("stats", "-d", "copy", "--json").output)["entities"]
    assert f"{live} entities (1 more merged into them)" in imported
    assert demo("stats", "-d", "copy").output.startswith(f"{live} entities (1 more merged into them), ")


def test_words_are_singular_for_one_lines_end_without_spaces_and_confidences_are_labelled(demo):
    assert demo("remember", "solo:Person --knows--> duo:Person", "-d", "one").exit_code == 0
    listed = demo("datasets").output.splitlines()
    one = next(line for line in listed if " one " in f" {line} ")
    assert re.search(r"\b2 entities\s+1 fact$", one), one
    assert re.search(r"\b51 entities\s+93 facts$", next(line for line in listed if "demo" in line))
    recalled = demo("recall", "billing", "-d", "demo").output.splitlines()
    assert recalled and all(line == line.rstrip() for line in recalled)
    worklist = demo("maintain", "-d", "demo").output
    assert re.search(r"^contradiction:\w{8}  \w{8} vs \w{8} \(confidence 0\.70\): README says", worklist, re.M)
    added = demo("remember", "solo --knows--> trio:Person", "-d", "one").output
    assert added.startswith("asserted: ") and not added.startswith(" ")


def test_demo_refuses_to_overwrite_a_dataset_unless_forced(demo):
    assert demo("remember", "mine:Person --knows--> demo-user:Person", "-d", "demo").exit_code == 0
    again = demo("demo")
    assert again.exit_code == 1 and "--force" in again.output and "already" in again.output
    assert "mine" in demo("history", "mine", "-d", "demo").output       # what was written there stays
    forced = demo("demo", "--force")
    assert forced.exit_code == 0
    assert demo("history", "mine", "-d", "demo").exit_code == 1          # rebuilt from scratch
    assert demo("history", "billing-service", "-d", "demo").exit_code == 0


def test_an_imported_superseded_fact_shows_the_interval_it_held(cli, tmp_path):
    source = tmp_path / "memoose.sqlite"
    build_memoose(source)
    assert cli("import", "--from", "memoose", str(source), "-d", "copy").exit_code == 0
    works = {f["object_name"]: f for f in json.loads(cli("facts", "--all", "-d", "copy", "--json").output)
             if f["relation"] == "works_at"}
    assert works["acme"]["status"] == "superseded" and works["acme"]["valid_to"] == works["globex"]["valid_from"]
    assert works["globex"]["status"] == "current" and works["globex"]["valid_to"] is None
    text = cli("facts", "--all", "-d", "copy").output
    assert re.search(r"alice --works_at--> acme  \[superseded by \w{8}\]  valid 2024-01-01 → 2025-06-01", text)
    assert re.search(r"alice --works_at--> globex  valid 2025-06-01 → now", text)


def test_export_of_one_file_to_a_folder_says_so_in_words(demo, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    refused = demo("export", "--format", "html", "-o", str(folder), "-d", "demo")
    assert refused.exit_code == 2
    assert f"{folder} is a folder, and --format html writes one file" in refused.output
    assert ".tmp" not in refused.output and not list(folder.iterdir())
    written = demo("export", "--format", "html", "-o", str(folder / "memory.html"), "-d", "demo")
    assert written.exit_code == 0 and (folder / "memory.html").is_file()
    assert demo("export", "--format", "site", "-o", str(tmp_path / "site"), "-d", "demo").exit_code == 0


def test_a_fact_in_json_has_every_field_of_the_one_shape(demo):
    listed = json.loads(demo("facts", "-d", "demo", "--json").output)
    assert listed and all(set(fact) == set(FACT_FIELDS) for fact in listed)
    recalled = json.loads(demo("recall", "billing", "-d", "demo", "--json").output)["facts"]
    assert recalled and all(set(fact) == {*FACT_FIELDS, "score", "why"} for fact in recalled)


def test_export_never_overwrites_a_file_memlens_did_not_write(demo, tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("# my notes\n")
    for fmt in ("html", "json", "graphml", "gexf"):
        refused = demo("export", "-d", "demo", "--format", fmt, "-o", str(notes))
        assert refused.exit_code == 1 and "is not a" in refused.output and "memlens wrote" in refused.output, fmt
    assert demo("view", "-d", "demo", "--out", str(notes), "--no-open").exit_code == 1
    assert notes.read_text() == "# my notes\n"
    for fmt in ("html", "json", "graphml", "gexf"):      # its own file, and an empty one, are written again
        mine = tmp_path / f"memory.{fmt}"
        assert demo("export", "-d", "demo", "--format", fmt, "-o", str(mine)).exit_code == 0
        assert demo("export", "-d", "demo", "--format", fmt, "-o", str(mine)).exit_code == 0, fmt
    (tmp_path / "empty.html").write_bytes(b"")
    assert demo("export", "-d", "demo", "--format", "html", "-o", str(tmp_path / "empty.html")).exit_code == 0


def test_history_says_what_a_reassertion_changed(cli):
    assert cli("remember", "svc:Service --owned_by--> dana:Person", "--valid-from", "2025-01-01").exit_code == 0
    assert cli("remember", "svc --owned_by--> dana", "--valid-from", "2025-03-01").exit_code == 0
    [first, second] = [line.strip() for line in cli("history", "svc").output.splitlines() if ": current" in line]
    assert first.endswith(": current, valid 2025-01-01 → now")
    assert second.endswith(": current, valid 2025-03-01 → now (was 2025-01-01 → now)")


def test_the_site_names_contradictions_and_contested_facts_alike_everywhere(demo, tmp_path):
    assert demo("export", "-d", "demo", "--format", "site", "-o", str(tmp_path / "site")).exit_code == 0
    graph = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    page = (tmp_path / "site" / "contested.html").read_text(encoding="utf-8")
    assert re.search(r'href="contested.html"[^>]*>Contradictions\b', graph)          # the navigation
    assert re.search(r'<h1 class="page-title">Contradictions <span class="muted">1 open', page)
    assert "<title>Contradictions" in page and "<title>Contested" not in page
    assert re.search(r"<dt>contested facts</dt>\s*<dd>2</dd>", graph)                 # two facts, one pair
