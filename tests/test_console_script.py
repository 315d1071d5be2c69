"""`memlens` run as its own process: commands that end the process early still say everything."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memlens.store.facts import FactInput
from memlens.store.memory import Memory


def console_script() -> str:
    beside_python = Path(sys.executable).with_name("memlens")
    found = str(beside_python) if beside_python.exists() else shutil.which("memlens")
    if found is None:
        pytest.fail("the memlens console script is not installed (pip install -e .)")
    return found


def run(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([console_script(), *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "MEMLENS_HOME": str(home)})


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "m.sqlite"
    with Memory(path) as memory:
        memory.remember([FactInput("alice", "works_at", "acme", "Person", "Organization", evidence=("said so",))])
    return path


def test_export_and_view_end_with_their_output_written_and_flushed(tmp_path, store):
    report = tmp_path / "r.html"
    done = run("export", "--db", str(store), "--format", "html", "-o", str(report), "--json", home=tmp_path)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said["path"] == str(report) and said["stats"]["facts"] == 1
    assert report.read_text(encoding="utf-8").rstrip().endswith("</html>")

    viewed = run("view", "--db", str(store), "--out", str(tmp_path / "v.html"), "--no-open", home=tmp_path)
    assert viewed.returncode == 0 and viewed.stdout.strip() == str(tmp_path / "v.html")
    as_json = run("export", "--db", str(store), "--format", "json", "-o", "-", home=tmp_path)
    assert json.loads(as_json.stdout)["stats"]["entities"] == 2  # the whole snapshot reached the pipe


def test_a_failing_command_still_exits_1_with_one_line(tmp_path):
    done = run("export", "--db", str(tmp_path / "missing.sqlite"), "--format", "html", "-o",
               str(tmp_path / "r.html"), home=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("Error: no store at") and "Traceback" not in done.stderr
    assert run("--version", home=tmp_path).returncode == 0  # and a plain command exits 0
