"""Evidence that points into the repository is checked against it: a file gone, or lines git says
changed after the fact was recorded, is a worklist row and a mark on the fact's card."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memlens.store import maintenance
from memlens.store.evidence import Cited, check, citation
from memlens.store.facts import FactInput
from memlens.store.memory import Memory
from memlens.viewer.reading import read_bundle

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str, at: str = "2025-01-01T12:00:00Z") -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": at, "GIT_COMMITTER_DATE": at, "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    (root / "billing.py").write_text("".join(f"line {n}\n" for n in range(1, 21)))
    (root / "CODEOWNERS").write_text("* @dana\n")
    (root / "docs" / "ports.md").write_text("8080\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "first")
    return root


class At:
    def __init__(self, when: datetime) -> None:
        self.now = when

    def __call__(self) -> datetime:
        return self.now


def said(memory: Memory, relation: str, evidence: str) -> str:
    [outcome] = memory.remember([FactInput("billing", relation, evidence.split("#")[0][-12:] or "x", "Service",
                                           "Concept", evidence=(evidence,))], new=True)
    return outcome.fact_id


def test_a_citation_is_a_repository_path_and_never_leaves_it():
    assert citation("repo://src/a.py#L12-30").lines == citation("repo://src/a.py#L12-L30").lines == (12, 30)
    assert citation("repo://src/a.py#L7").lines == (7, 7)
    assert citation("repo://CODEOWNERS#L4 (2026-02 edit)").path == "CODEOWNERS"
    assert citation("docs/notes.md").lines is None and citation("README.md").path == "README.md"
    for not_one in ("user said 2026-03-02", "https://example.com/a.py", "repo://../../etc/passwd", "/etc/passwd",
                    "~/.ssh/id_rsa", "v1.2", "e.g", "repo://a.py#L9-3", "..\\secret.txt"):
        assert citation(not_one) is None, not_one


def test_files_gone_and_lines_changed_after_recording_are_stale_and_the_rest_is_not(repo, tmp_path):
    clock = At(datetime(2025, 6, 1, tzinfo=timezone.utc))
    with Memory(tmp_path / "m.sqlite", clock=clock) as memory:
        changed_lines = said(memory, "handles", "repo://billing.py#L2-3")
        other_lines = said(memory, "logs", "repo://billing.py#L15-16")
        owners = said(memory, "owned_by", "repo://CODEOWNERS")
        ports = said(memory, "listens_on", "docs/ports.md")
        said(memory, "said", "user said 2025-05-30")
        (repo / "billing.py").write_text("".join(f"line {n}{' changed' if n == 2 else ''}\n" for n in range(1, 21)))
        (repo / "docs" / "ports.md").unlink()
        git(repo, "commit", "-qam", "later", at="2025-09-01T12:00:00Z")
        (repo / "CODEOWNERS").write_text("* @priya\n")            # not committed yet

        stale, note = maintenance.stale_evidence(memory.conn, repo)

        assert note is None
        assert {c.refs[0]: c.summary.split(": ", 1)[1] for c in stale} == {
            changed_lines: "repo://billing.py#L2-3 changed after it was recorded (commit "
                           f"{subprocess.run(['git', '-C', str(repo), 'rev-parse', 'HEAD'], capture_output=True, text=True).stdout[:8]}, 2025-09-01)",
            owners: "repo://CODEOWNERS changed after it was recorded (not committed yet)",
            ports: "docs/ports.md is gone"}
        assert other_lines not in {c.refs[0] for c in stale}        # its lines are as they were
        assert {c.key for c in memory.worklist()} & {c.key for c in stale} == set()   # no repository: no check
        memory.repository = repo
        assert {c.key for c in stale} <= {c.key for c in memory.worklist()}
        snapshot = memory.snapshot()
        assert snapshot["evidence_check"]["changed"] == sorted([changed_lines, owners, ports])

        # "it still holds": dismissed, from anywhere (a dismissal needs no repository)
        memory.repository = None
        memory.dismiss(f"stale:{ports[:8]}", "the ports moved to the compose file, the fact stands")
        memory.repository = repo
        assert ports not in memory.snapshot()["evidence_check"]["changed"]


def test_nothing_is_checked_outside_a_git_work_tree_or_without_git(tmp_path, monkeypatch):
    facts = [Cited("f1", "2025-06-01T00:00:00.000000Z", ("repo://a.py#L1-2",))]
    outside = tmp_path / "plain"
    outside.mkdir()
    result = check(facts, outside)
    assert result.stale == () and "not in a git work tree" in result.note
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    result = check(facts, outside)
    assert result.stale == () and result.note == "evidence not checked against the repository: git is not on PATH"
    assert check([Cited("f2", "2025-06-01T00:00:00.000000Z", ("user said so",))], outside).note is None


def test_the_projects_maintain_lists_them_and_its_report_and_site_mark_the_cards(cli, repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)          # the project's dataset, in its folder: its evidence is checked there
    assert cli("remember", "billing:Service --owned_by--> dana:Person", "-e", "repo://CODEOWNERS#L1").exit_code == 0
    assert cli("remember", "billing --listens_on--> port-8080:Config", "-e", "docs/ports.md").exit_code == 0
    assert cli("maintain").output.count("stale:") == 0
    (repo / "CODEOWNERS").write_text("* @priya\n")
    git(repo, "commit", "-qam", "new owner", at=datetime.now(timezone.utc).replace(year=datetime.now().year + 1).isoformat())

    shown = cli("maintain")
    worklist = json.loads(cli("maintain", "--json").output)["worklist"]
    [row] = [item for item in worklist if item["kind"] == "stale"]
    assert row["summary"].startswith("billing --owned_by--> dana: repo://CODEOWNERS#L1 changed after it was recorded")
    assert "stale:" in shown.output
    assert cli("export", "--format", "site", "-o", str(tmp_path / "site")).exit_code == 0
    assert cli("export", "--format", "json", "-o", str(tmp_path / "s.json")).exit_code == 0
    assert json.loads((tmp_path / "s.json").read_text())["evidence_check"] == {"changed": [row["refs"][0]]}
    pages = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "site" / "entities").glob("billing-*.html"))
    assert pages.count("evidence changed since recorded</strong>") == 1
    # named with -d from elsewhere, the same dataset is checked only with --repo
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    project = json.loads(cli("stats", "--json").output)["dataset"]
    monkeypatch.chdir(elsewhere)
    assert "stale:" not in cli("maintain", "-d", project).output
    assert "stale:" in cli("maintain", "-d", project, "--repo", str(repo)).output


def test_maintain_checks_the_evidence_once_and_the_bundle_it_writes_marks_what_it_found(cli, repo, tmp_path,
                                                                                      monkeypatch):
    monkeypatch.chdir(repo)
    assert cli("remember", "billing:Service --owned_by--> dana:Person", "-e", "repo://CODEOWNERS#L1").exit_code == 0
    assert cli("remember", "billing --listens_on--> port-8080:Config", "-e", "docs/ports.md").exit_code == 0
    assert cli("bundles", "add", str(tmp_path / "memory.html"), "--format", "html").exit_code == 0
    (repo / "CODEOWNERS").write_text("* @priya\n")
    git(repo, "commit", "-qam", "new owner", at=datetime.now(timezone.utc).replace(year=datetime.now().year + 1).isoformat())
    checks = []
    real_check = maintenance.evidence.check
    monkeypatch.setattr(maintenance.evidence, "check", lambda *a, **k: checks.append(1) or real_check(*a, **k))

    shown = cli("maintain")
    assert shown.exit_code == 0, shown.output
    assert "stale:" in shown.output and "wrote" in shown.output
    assert len(checks) == 1   # git ran for the worklist; the report took what it found
    [owner] = [f["id"] for f in json.loads(cli("facts", "--json").output) if f["relation"] == "owned_by"]
    assert read_bundle(tmp_path / "memory.html")["evidence_check"] == {"changed": [owner]}
    # the next maintenance, with nothing written since, checks again: the repository may have moved on
    (repo / "docs" / "ports.md").unlink()
    again = json.loads(cli("maintain", "--json").output)["worklist"]
    assert len(checks) == 2
    assert sorted(row["summary"].split(":")[0] for row in again if row["kind"] == "stale") == \
        ["billing --listens_on--> port-8080", "billing --owned_by--> dana"]
