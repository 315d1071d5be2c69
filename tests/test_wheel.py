"""The wheel: built, installed into a fresh virtual environment, run from another directory."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_wheel_installs_into_a_fresh_venv_and_runs_the_demo(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist), str(ROOT)],
        check=True, cwd=tmp_path,
    )
    [wheel] = dist.glob("memlens-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "memlens/store/memory.py" in names and "memlens/viewer/cli/app.py" in names
    assert any(n.startswith("memlens/templates/") and n.endswith(".html") for n in names)
    assert any(n.startswith("memlens/static/") and n.endswith(".js") for n in names)
    assert not any(n.startswith("tests/") for n in names)

    environment = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(environment)
    python = environment / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(wheel)], check=True, cwd=tmp_path)

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env["MEMLENS_HOME"] = str(tmp_path / "home")
    demo = subprocess.run([str(environment / "bin" / "memlens"), "demo", "--json"], cwd=elsewhere, env=env,
                          capture_output=True, text=True)
    assert demo.returncode == 0, demo.stderr
    assert json.loads(demo.stdout)["facts"] > 80
    report = elsewhere / "demo.html"
    view = subprocess.run([str(environment / "bin" / "memlens"), "view", "-d", "demo", "--no-open", "--out", str(report)],
                          cwd=elsewhere, env=env, capture_output=True, text=True)
    assert view.returncode == 0, view.stderr
    assert report.stat().st_size > 100_000  # vis-network and the data are inside

    # The MCP SDK is an extra the plain wheel does not bring: the server says how to get it.
    mcp = subprocess.run([str(environment / "bin" / "memlens"), "mcp", "-d", "demo"], cwd=elsewhere, env=env,
                         capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert mcp.returncode == 1 and "Traceback" not in mcp.stderr
    assert mcp.stderr.strip() == "Error: memlens mcp needs the MCP SDK, an optional part of memlens: " \
                                 "pip install 'memlens[mcp]'"
    listed = subprocess.run([str(environment / "bin" / "memlens"), "--help"], cwd=elsewhere, env=env,
                            capture_output=True, text=True, check=True).stdout
    assert "\n  mcp " in listed and "\n  view " in listed
