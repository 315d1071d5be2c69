"""Every command memlens prints or offers to copy runs as printed, from any folder.

The demo's worklist (with a fact without evidence, two near-duplicate names and a hotspot added,
so that every kind of task is there) is read where memlens shows it: the end of `memlens
maintain`, the report's Maintenance tab, the site's maintenance page. Each command is then run
from another folder, on a fresh copy of the dataset, as a shell would split it.
"""
from __future__ import annotations

import html
import re
import shlex
import shutil
from pathlib import Path

import pytest

COMMAND = re.compile(r'<code class="task-command">(.*?)</code>', re.S)


def commands_in(page: Path) -> list[str]:
    return [html.unescape(found) for found in COMMAND.findall(page.read_text(encoding="utf-8"))]


def prepared(cli, flag: list[str]) -> None:
    assert cli("demo", *flag).exit_code == 0
    for said in (["billing-service --status--> live:Concept", "-e", "runbook"],
                 ["billing-service --status--> paused:Concept", "-e", "incident 12", "--valid-from", "2026-03-01"],
                 ["notification-service --depends_on--> billing-servce:Service", "--new"]):  # near miss, no evidence
        result = cli("remember", *said, *flag)
        assert result.exit_code == 0, result.output


@pytest.mark.parametrize("where", ["dataset", "path with a space"])
def test_every_command_of_the_demos_worklist_runs_as_printed_from_another_folder(cli, home, tmp_path, monkeypatch,
                                                                                   where):
    store = home / "demo.sqlite" if where == "dataset" else tmp_path / "my stores" / "demo.sqlite"
    flag = ["-d", "demo"] if where == "dataset" else ["--db", str(store)]
    store.parent.mkdir(parents=True, exist_ok=True)
    prepared(cli, flag)
    kinds = {c.split(":")[0] for c in re.findall(r"^(\S+)  ", cli("maintain", *flag).output, re.M)}
    assert {"contradiction", "hotspot", "similar", "unsupported"} <= kinds

    printed = cli("maintain", *flag).output.strip().splitlines()[-2:]     # "if ...: CMD" and "next, if ...: CMD"
    offered = [line.split(": ", 1)[1] for line in printed]
    assert cli("export", *flag, "--format", "html", "-o", str(tmp_path / "report.html")).exit_code == 0
    assert cli("export", *flag, "--format", "site", "-o", str(tmp_path / "site")).exit_code == 0
    offered += commands_in(tmp_path / "report.html")
    site = commands_in(tmp_path / "site" / "maintenance.html")
    assert sorted(site) == sorted(commands_in(tmp_path / "report.html"))    # the site offers the same
    assert len(set(offered)) >= 9

    kept = tmp_path / "kept.sqlite"
    shutil.copyfile(store, kept)
    elsewhere = tmp_path / "another project"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    for command in sorted(set(offered)):
        words = shlex.split(command)
        assert words[0] == "memlens" and words[-2:] == flag, command
        shutil.copyfile(kept, store)
        result = cli(*words[1:])
        assert result.exit_code == 0, (command, result.output)
    assert not list(elsewhere.iterdir())         # nothing was made where the commands ran


def test_an_errors_command_names_the_dataset_it_was_asked_about(cli):
    assert cli("demo").exit_code == 0
    refused = cli("dismiss", "hotspot:nothing", "--reason", "x", "-d", "demo")
    assert refused.exit_code == 1 and "`memlens maintain -d demo` lists them" in refused.output
    unknown = cli("remember", "a:Gadget --is--> b:Gadget", "-d", "demo")
    assert "`memlens types add NAME -d demo`" in unknown.output
