"""`memlens hooks install|uninstall --host claude-code` against real settings files."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

THEIRS = {
    "permissions": {"allow": ["Bash(git status)"]},
    "hooks": {
        "SessionEnd": [{"matcher": "", "hooks": [{"type": "command", "command": "echo bye >> ~/.log"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}],
    },
}


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(THEIRS, indent=2))
    return settings


def test_install_adds_one_hook_keeps_the_others_and_uninstall_removes_exactly_it(cli, project):
    result = cli("hooks", "install", "--host", "claude-code", "--project")
    assert result.exit_code == 0 and "installed in" in result.output
    settings = json.loads(project.read_text())
    session_end = settings["hooks"]["SessionEnd"]
    assert session_end[0] == THEIRS["hooks"]["SessionEnd"][0]
    assert [h["command"] for g in session_end for h in g["hooks"]] == ["echo bye >> ~/.log", "memlens maintain --quiet"]
    assert settings["permissions"] == THEIRS["permissions"]
    assert settings["hooks"]["PreToolUse"] == THEIRS["hooks"]["PreToolUse"]

    again = cli("hooks", "install", "--host", "claude-code")
    assert "already installed" in again.output
    assert json.loads(project.read_text()) == settings  # idempotent

    assert "removed from" in cli("hooks", "uninstall", "--host", "claude-code").output
    assert json.loads(project.read_text()) == THEIRS
    assert "not installed" in cli("hooks", "uninstall", "--host", "claude-code").output


def test_install_creates_the_settings_file_and_uninstall_leaves_it_empty(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli("hooks", "install", "--host", "claude-code").exit_code == 0
    settings = tmp_path / ".claude" / "settings.json"
    assert json.loads(settings.read_text())["hooks"]["SessionEnd"][0]["hooks"][0]["command"] == "memlens maintain --quiet"
    cli("hooks", "uninstall", "--host", "claude-code")
    assert json.loads(settings.read_text()) == {}


def test_user_scope_writes_the_home_settings(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cli("hooks", "install", "--host", "claude-code", "--user").exit_code == 0
    assert (tmp_path / "home" / ".claude" / "settings.json").exists()


def test_a_broken_settings_file_is_a_clear_error_and_is_left_alone(cli, project):
    project.write_text("{ not json")
    result = cli("hooks", "install", "--host", "claude-code")
    assert result.exit_code == 1 and "not valid JSON" in result.output
    assert project.read_text() == "{ not json"
    project.write_text(json.dumps(THEIRS))
    assert cli("hooks", "install", "--host", "claude-code").exit_code == 0


THEIR_SERVERS = {"mcpServers": {"sentry": {"command": "npx", "args": ["@sentry/mcp-server"]}}}


def test_install_registers_the_mcp_server_in_the_projects_mcp_json_and_uninstall_removes_only_it(cli, project):
    servers = project.parent.parent / ".mcp.json"
    servers.write_text(json.dumps(THEIR_SERVERS))
    result = cli("hooks", "install", "--host", "claude-code")
    assert result.exit_code == 0 and f"MCP server registered in {servers}" in result.output
    assert json.loads(servers.read_text())["mcpServers"] == {
        **THEIR_SERVERS["mcpServers"], "memlens": {"type": "stdio", "command": "memlens", "args": ["mcp"]}}

    again = cli("hooks", "install", "--host", "claude-code", "--json")
    assert json.loads(again.output)["mcp"] == {"config": str(servers), "added": False}
    assert "memlens" in json.loads(servers.read_text())["mcpServers"]

    assert "MCP server removed from" in cli("hooks", "uninstall", "--host", "claude-code").output
    assert json.loads(servers.read_text()) == THEIR_SERVERS
    assert "MCP server not registered in" in cli("hooks", "uninstall", "--host", "claude-code").output


def test_a_memlens_server_the_user_wrote_is_left_as_it_is(cli, project):
    servers = project.parent.parent / ".mcp.json"
    theirs = {"mcpServers": {"memlens": {"command": "memlens", "args": ["mcp", "-d", "team"]}}}
    servers.write_text(json.dumps(theirs))
    assert "MCP server already registered in" in cli("hooks", "install", "--host", "claude-code").output
    assert "MCP server not registered in" in cli("hooks", "uninstall", "--host", "claude-code").output
    assert json.loads(servers.read_text()) == theirs
    assert json.loads(project.read_text()) == THEIRS  # the hook itself came and went


def test_a_broken_mcp_json_stops_the_install_before_anything_is_written(cli, project):
    servers = project.parent.parent / ".mcp.json"
    servers.write_text('{"mcpServers": [')
    result = cli("hooks", "install", "--host", "claude-code")
    assert result.exit_code == 1 and ".mcp.json is not valid JSON" in result.output
    assert json.loads(project.read_text()) == THEIRS and servers.read_text() == '{"mcpServers": ['
    servers.unlink()
    assert cli("hooks", "install", "--host", "claude-code").exit_code == 0
    assert "memlens" in json.loads(servers.read_text())["mcpServers"]


def test_user_scope_leaves_projects_alone_and_names_claude_codes_own_command(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    result = cli("hooks", "install", "--host", "claude-code", "--user", "--json")
    assert json.loads(result.output)["mcp"] == {
        "config": None, "added": None, "command": "claude mcp add --scope user memlens -- memlens mcp"}
    assert (tmp_path / "home" / ".claude" / "settings.json").exists()
    assert not (tmp_path / ".mcp.json").exists() and not (tmp_path / "home" / ".claude.json").exists()


def test_the_mcp_memory_hook_imports_the_servers_file_at_each_sessions_end(cli, project, home, tmp_path, monkeypatch):
    import os
    import shutil
    import subprocess
    import sys

    from mcp_memory_server import FIXTURES

    memory_file = tmp_path / "server files" / "memory.jsonl"
    memory_file.parent.mkdir()
    shutil.copyfile(FIXTURES / "state-1.jsonl", memory_file)
    monkeypatch.setenv("MEMORY_FILE_PATH", str(memory_file))
    assert cli("hooks", "install", "--host", "claude-code", "--mcp-memory").exit_code == 0
    session_end = json.loads(project.read_text())["hooks"]["SessionEnd"]
    commands = [h["command"] for g in session_end for h in g["hooks"]]
    assert commands[:2] == ["echo bye >> ~/.log", "memlens maintain --quiet"] and len(commands) == 3
    assert cli("hooks", "install", "--host", "claude-code", "--mcp-memory").output.startswith("already installed")

    # the hook as Claude Code runs it: a shell, without the server's environment
    env = {**os.environ, "MEMLENS_HOME": str(home), "PATH": os.pathsep.join([str(Path(sys.executable).parent),
                                                                            os.environ.get("PATH", "")])}
    env.pop("MEMORY_FILE_PATH")
    for state in ("state-1.jsonl", "state-2.jsonl"):
        shutil.copyfile(FIXTURES / state, memory_file)
        ran = subprocess.run(commands[2], shell=True, env=env, capture_output=True, text=True, timeout=300)
        assert ran.returncode == 0, ran.stderr
    from memlens.store import datasets
    from memlens.store.memory import Memory

    with Memory(datasets.resolve(None, "mcp-memory"), readonly=True) as memory:
        stats = memory.stats()
    assert (stats["current"], stats["retracted"]) == (9, 4)
    assert (home / "reports" / "mcp-memory.html").stat().st_size > 100_000

    assert cli("hooks", "uninstall", "--host", "claude-code").exit_code == 0
    left = json.loads(project.read_text())["hooks"]["SessionEnd"]
    assert left == THEIRS["hooks"]["SessionEnd"]
