"""`memlens hooks install` against the real hosts: Claude Code 2.1.197, Codex CLI 0.171.0 and Gemini CLI
0.61.0 read the files memlens writes, start its server, and run its hooks (no account needed).

Opt-in (MEMLENS_REAL_TOOLS=1): the three are installed from npm into a temporary prefix (or taken
from MEMLENS_HOST_CLIS, a folder holding their commands) and run with a private HOME, so nothing
is left in this environment. Cursor has no command-line build to install: its shapes are covered
by test_host_hooks.py only.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from memlens.viewer.cli.hosts.commands import memlens_executable

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("MEMLENS_REAL_TOOLS") != "1",
                       reason="installs Claude Code, Codex CLI and Gemini CLI from npm into a temporary prefix; "
                              "set MEMLENS_REAL_TOOLS=1 to run"),
]
PACKAGES = ["@anthropic-ai/claude-code@2.1.197", "@openai/codex@0.171.0", "@google/gemini-cli@0.61.0"]
MEMLENS = str(memlens_executable())


@pytest.fixture(scope="module")
def clis(tmp_path_factory) -> Path:
    given = os.environ.get("MEMLENS_HOST_CLIS")
    if given:
        return Path(given)
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    prefix = tmp_path_factory.mktemp("npm")
    subprocess.run(["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", *PACKAGES], check=True,
                   capture_output=True, timeout=1200)
    return prefix / "node_modules" / ".bin"


class World:
    """A private HOME holding a git project, and a way to run commands as a user there would."""

    def __init__(self, root: Path, clis: Path) -> None:
        self.home, self.project = root / "home", root / "home" / "project"
        self.project.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(self.project)], check=True)
        self.env = {"PATH": os.pathsep.join([str(clis), os.environ["PATH"]]), "HOME": str(self.home),
                    "MEMLENS_HOME": str(root / "memlens-home"), "LANG": "C.UTF-8", "NO_COLOR": "1"}

    def run(self, *argv: str, timeout: int = 180, **env: str) -> subprocess.CompletedProcess:
        """`argv` run to its end, or, past `timeout` (an agent retrying a network it cannot reach),
        stopped as a user's Ctrl-C would stop it, so it still ends its session."""
        with subprocess.Popen(list(argv), cwd=self.project, env={**self.env, **env}, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True) as process:
            try:
                out, err = process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.send_signal(signal.SIGINT)
                try:
                    out, err = process.communicate(timeout=60)
                except subprocess.TimeoutExpired:
                    process.kill()
                    out, err = process.communicate()
            return subprocess.CompletedProcess(argv, process.returncode, out, err)

    def memlens(self, *args: str) -> dict:
        done = self.run(MEMLENS, "hooks", *args, "--json")
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)


@pytest.fixture
def world(tmp_path, clis) -> World:
    return World(tmp_path, clis)


def brief_command_exists(world: World) -> bool:
    return world.run(MEMLENS, "brief", "--help").returncode == 0


@pytest.mark.parametrize("scope", ["project", "user"])
def test_claude_code_lists_memlens_and_connects_to_it(world, scope):
    installed = world.memlens("install", "--host", "claude-code", f"--{scope}")
    if scope == "user":   # the server goes in through Claude Code's own command, which install names
        command = installed["notes"][-1].split("run: ", 1)[1]
        assert world.run("sh", "-c", command).returncode == 0
    else:                 # a project's servers run once approved
        (world.project / ".claude" / "settings.local.json").write_text('{"enabledMcpjsonServers": ["memlens"]}')
    listed = world.run("claude", "mcp", "list")
    assert f"memlens: {MEMLENS} mcp - ✔ Connected" in listed.stdout, listed.stdout + listed.stderr
    if scope == "project":
        world.memlens("uninstall", "--host", "claude-code")
        assert "memlens" not in world.run("claude", "mcp", "list").stdout


def claude_debug_log(world: World) -> str:
    world.run("claude", "-p", "hi", "--debug")   # not logged in: it answers nothing, but runs its hooks
    return "\n".join(path.read_text() for path in (world.home / ".claude" / "debug").glob("*.txt"))


def test_claude_code_runs_the_session_end_hook_quietly_in_a_project_without_memory(world):
    world.memlens("install", "--host", "claude-code")
    log = claude_debug_log(world)
    assert f"SessionEnd:other [{MEMLENS} maintain --quiet --if-exists] completed with status 0" in log, log[-3000:]


def test_claude_code_takes_the_brief_at_session_start(world):
    if not brief_command_exists(world):
        pytest.skip("memlens has no brief command in this build")
    world.run(MEMLENS, "remember", "billing-service:Service --owned_by--> priya:Person")
    world.memlens("install", "--host", "claude-code")
    log = claude_debug_log(world)
    said = f"Hook SessionStart ({MEMLENS} brief --for-host claude-code) provided additionalContext ("
    assert said in log, log[-3000:]


@pytest.mark.parametrize("scope", ["project", "user"])
def test_codex_lists_memlens(world, scope):
    world.memlens("install", "--host", "codex", f"--{scope}")
    if scope == "project":   # Codex reads a project's .codex only where the user trusts the project
        (world.home / ".codex").mkdir()
        (world.home / ".codex" / "config.toml").write_text(f'[projects."{world.project}"]\ntrust_level = "trusted"\n')
    listed = world.run("codex", "mcp", "list")
    assert any(line.split()[:4] == ["memlens", MEMLENS, "mcp", "-"] and "enabled" in line
               for line in listed.stdout.splitlines()), listed.stdout + listed.stderr


def test_codex_runs_the_session_start_hook(world):
    if not brief_command_exists(world):
        pytest.skip("memlens has no brief command in this build")
    world.memlens("install", "--host", "codex", "--user")
    ran = world.run("codex", "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", "hi",
                    timeout=60, OPENAI_API_KEY="not-a-key")
    said = ran.stdout + ran.stderr
    assert "hook: SessionStart" in said and "hook: SessionStart Failed" not in said, said[-3000:]
    assert "clamping" not in said   # the timeouts memlens writes are ones Codex accepts


@pytest.mark.parametrize("scope", ["project", "user"])
def test_gemini_lists_memlens_and_connects_to_it(world, scope):
    world.memlens("install", "--host", "gemini", f"--{scope}")
    (world.home / ".gemini").mkdir(exist_ok=True)
    (world.home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(world.project): "TRUST_FOLDER"}))
    listed = world.run("gemini", "mcp", "list")
    said = listed.stdout + listed.stderr   # Gemini CLI lists on stderr
    assert f"✓ memlens: {MEMLENS} mcp (stdio) - Connected" in said, said


def test_gemini_runs_the_hooks(world):
    world.memlens("install", "--host", "gemini", "--user")
    (world.home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(world.project): "TRUST_FOLDER"}))
    ran = world.run("gemini", "-p", "hi", "-d", timeout=60, GEMINI_API_KEY="not-a-key")
    said = ran.stdout + ran.stderr
    assert "Hook execution for SessionEnd: 1 hooks executed successfully" in said, said[-3000:]
    if brief_command_exists(world):
        assert "Hook execution for SessionStart: 1 hooks executed successfully" in said, said[-3000:]
