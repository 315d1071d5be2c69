"""`memlens hooks install|uninstall|status` for each host, against settings files as people have them:
other servers and hooks, comments where the host allows them, and odd but valid content."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomlkit

from memlens.viewer.cli.hosts.commands import memlens_executable
from memlens.viewer.cli.hosts.jsonedit import JsonText

MEMLENS = str(memlens_executable())

# What each host's files hold before memlens comes: (path relative to the project or home, text).
CLAUDE_SETTINGS = """{
  "permissions": {"allow": ["Bash(git status)"]},
  "big": 1e400,
  "naïve": "✓ tab\\t",
  "hooks": {
    "SessionEnd": [{"matcher": "", "hooks": [{"type": "command", "command": "echo bye >> ~/.log"}]}],
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
    ]
  }
}
"""
THEIR_SERVERS = """{
    "mcpServers": {
        "sentry": {"command": "npx", "args": ["@sentry/mcp-server"], "env": {"N": -0.5e-7}}
    }
}
"""
CODEX_CONFIG = """# my codex settings
model = "o3"  # the one I like
big = 9_223_372_036_854_775_807
notes = '''
two lines'''

[mcp_servers.sentry]
command = "npx"
args = ["-y", "@sentry/mcp-server"]
env = { TOKEN_ENV = "SENTRY" }

[projects."/somewhere"]
trust_level = "trusted"
"""
CODEX_HOOKS = """{
  "hooks": {
    "PreToolUse": [{"matcher": "^Bash$", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}]}]
  }
}
"""
GEMINI_SETTINGS = """// Gemini CLI settings
{
  /* the look */
  "ui": {"theme": "GitHub"},
  "big": 1e400,
  "mcpServers": {
    "sentry": {"command": "npx", "args": ["@sentry/mcp-server"]} // theirs
  },
  "hooks": {
    "BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 5000}]}]
  }
}
"""
CURSOR_MCP = """{
  // my servers
  "mcpServers": {"sentry": {"url": "https://mcp.sentry.dev/mcp"}}
}
"""
CURSOR_HOOKS = """{
  "version": 1,
  "hooks": {
    "afterFileEdit": [{"command": "./format.sh"}]
  }
}
"""
SEEDS = {
    "claude-code": {".claude/settings.json": CLAUDE_SETTINGS, ".mcp.json": THEIR_SERVERS},
    "codex": {".codex/config.toml": CODEX_CONFIG, ".codex/hooks.json": CODEX_HOOKS},
    "gemini": {".gemini/settings.json": GEMINI_SETTINGS},
    "cursor": {".cursor/mcp.json": CURSOR_MCP, ".cursor/hooks.json": CURSOR_HOOKS},
}


def group(command: str, timeout: int, matcher: str | None = None) -> dict:
    return ({} if matcher is None else {"matcher": matcher}) | {
        "hooks": [{"type": "command", "command": command, "timeout": timeout}]}


BRIEF = f"{MEMLENS} brief --for-host"
MAINTAIN = f"{MEMLENS} maintain --quiet --if-exists"
SERVER = {"command": MEMLENS, "args": ["mcp"]}
# Each host's pieces as its documentation and the host itself read them: (file, path, entry).
SHAPES = {
    "claude-code": [
        (".mcp.json", ("mcpServers", "memlens"), {"type": "stdio", **SERVER}),
        (".claude/settings.json", ("hooks", "SessionStart", -1),
         group(f"{BRIEF} claude-code", 30, "startup|resume|clear|compact")),
        (".claude/settings.json", ("hooks", "SessionEnd", -1), group(MAINTAIN, 60, "")),
    ],
    "codex": [
        (".codex/config.toml", ("mcp_servers", "memlens"), SERVER),
        (".codex/hooks.json", ("hooks", "SessionStart", -1), group(f"{BRIEF} codex", 30, "startup|resume|clear|compact")),
        (".codex/hooks.json", ("hooks", "SessionEnd", -1), group(MAINTAIN, 3)),   # Codex allows no more
    ],
    "gemini": [
        (".gemini/settings.json", ("mcpServers", "memlens"), SERVER),
        (".gemini/settings.json", ("hooks", "SessionStart", -1), {"matcher": "*", "hooks": [
            {"name": "memlens-brief", "type": "command", "command": f"{BRIEF} gemini", "timeout": 30000}]}),
        (".gemini/settings.json", ("hooks", "SessionEnd", -1), {"matcher": "*", "hooks": [
            {"name": "memlens-maintain", "type": "command", "command": MAINTAIN, "timeout": 60000}]}),
    ],
    "cursor": [
        (".cursor/mcp.json", ("mcpServers", "memlens"), SERVER),
        (".cursor/hooks.json", ("hooks", "sessionStart", -1), {"command": f"{BRIEF} cursor"}),
        (".cursor/hooks.json", ("hooks", "sessionEnd", -1), {"command": MAINTAIN}),
    ],
}


@pytest.fixture
def places(tmp_path, monkeypatch):
    """A project (the working folder) and a home folder, both empty."""
    project, user = tmp_path / "project", tmp_path / "user home"
    project.mkdir()
    user.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return {"project": project, "user": user}


def read(path: Path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".toml":
        return tomlkit.parse(text).unwrap()
    return JsonText(text, name=str(path), comments=True).value


def at(data, path):
    for part in path:
        data = data[part]
    return data


def files_under(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def seed(folder: Path, host: str) -> dict[str, bytes]:
    for name, text in SEEDS[host].items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return files_under(folder)


@pytest.mark.parametrize("scope", ["project", "user"])
@pytest.mark.parametrize("host", list(SHAPES))
def test_each_host_gets_its_pieces_in_its_own_format_and_uninstall_gives_the_bytes_back(cli, places, host, scope):
    folder = places[scope]
    before = seed(folder, host)
    shapes = [shape for shape in SHAPES[host] if not (host == "claude-code" and scope == "user" and shape[0] == ".mcp.json")]
    originals = {name: read(folder / name) for name in SEEDS[host]}

    result = cli("hooks", "install", "--host", host, f"--{scope}", "--json")
    assert result.exit_code == 0, result.output
    assert {p["outcome"] for p in json.loads(result.output)["pieces"]} == {"added"}
    for name, path, entry in shapes:
        assert at(read(folder / name), path) == entry, (name, path)
    for name, original in originals.items():   # everything of theirs is still there, as it was
        installed = read(folder / name)
        for key, value in original.items():
            if key not in ("hooks", "mcpServers", "mcp_servers"):
                assert installed[key] == value
        for key in ("mcpServers", "mcp_servers"):
            for server, value in original.get(key, {}).items():
                assert installed[key][server] == value
        for event, groups in original.get("hooks", {}).items():
            assert installed["hooks"][event][:len(groups)] == groups
    for name, text in SEEDS[host].items():   # numbers keep their text
        assert ("1e400" in text) == ("1e400" in (folder / name).read_text())
    installed = files_under(folder)

    again = cli("hooks", "install", "--host", host, f"--{scope}", "--json")
    assert {p["outcome"] for p in json.loads(again.output)["pieces"]} == {"present"}
    assert files_under(folder) == installed   # idempotent, to the byte

    assert cli("hooks", "uninstall", "--host", host, f"--{scope}").exit_code == 0
    assert files_under(folder) == before


@pytest.mark.parametrize("host", ["claude-code", "gemini"])
def test_a_file_with_windows_line_ends_keeps_them(cli, places, host):
    project = places["project"]
    for name, text in SEEDS[host].items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_bytes(text.replace("\n", "\r\n").encode())
    before = files_under(project)
    assert cli("hooks", "install", "--host", host).exit_code == 0
    for name in SEEDS[host]:
        data = (project / name).read_bytes()
        assert b"memlens" in data and data.count(b"\n") == data.count(b"\r\n")
    assert cli("hooks", "uninstall", "--host", host).exit_code == 0
    assert files_under(project) == before


@pytest.mark.parametrize("host", list(SHAPES))
def test_files_memlens_created_are_removed_by_uninstall_and_kept_when_they_hold_more(cli, places, host):
    project = places["project"]
    assert cli("hooks", "install", "--host", host).exit_code == 0
    made = files_under(project)
    assert made and all(name.startswith(".") for name in made)
    assert cli("hooks", "uninstall", "--host", host).exit_code == 0
    assert list(project.iterdir()) == []   # folders too

    assert cli("hooks", "install", "--host", host).exit_code == 0
    name = next(iter(made))
    path = project / name
    if path.suffix == ".toml":
        path.write_text(path.read_text() + "\n[profiles.fast]\nmodel = \"o4-mini\"\n")
    else:
        doc = JsonText(path.read_text(), name=name, comments=True)
        path.write_text(doc.add(doc.root, "mine", "user-key"))
    assert cli("hooks", "uninstall", "--host", host).exit_code == 0
    assert path.exists() and "memlens" not in path.read_text().replace("user-key", "")


def test_a_users_own_memlens_entries_are_never_taken_for_memlens_s(cli, places):
    project = places["project"]
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    theirs = {"hooks": {"SessionEnd": [
        group("memlens import --from mcp-memory ~/m.jsonl -d mcp-memory --json", 120, ""),
        group("/usr/local/bin/memlens maintain --quiet", 60, ""),
        group(f"{MEMLENS} maintain --verbose", 60, ""),
    ]}}
    settings.write_text(json.dumps(theirs, indent=2))
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"memlens": {"command": "memlens",
                                                                              "args": ["mcp", "-d", "team"]}}}))
    before = files_under(project)
    result = cli("hooks", "install", "--host", "claude-code", "--mcp-memory", "--json")
    outcomes = {p["piece"]: p["outcome"] for p in json.loads(result.output)["pieces"]}
    assert outcomes == {"MCP server": "theirs", "session-start brief": "added", "session-end maintain": "added",
                        "session-end mcp-memory import": "added"}
    assert at(read(settings), ("hooks", "SessionEnd"))[:3] == theirs["hooks"]["SessionEnd"]
    assert "left alone: an entry of yours" in cli("hooks", "install", "--host", "claude-code").output
    assert cli("hooks", "uninstall", "--host", "claude-code").exit_code == 0
    assert files_under(project) == before


def test_installing_from_another_memlens_updates_the_path_and_older_entries_are_replaced(cli, places, tmp_path,
                                                                                         monkeypatch):
    import memlens.viewer.cli.hook_commands as hook_commands

    project = places["project"]
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    older = {"matcher": "", "hooks": [{"type": "command", "command": "memlens maintain --quiet", "timeout": 120}]}
    settings.write_text(json.dumps({"hooks": {"SessionEnd": [older]}}))
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"memlens": {"type": "stdio", "command": "memlens",
                                                                              "args": ["mcp"]}}}))
    result = cli("hooks", "install", "--host", "claude-code", "--json")
    outcomes = {p["piece"]: p["outcome"] for p in json.loads(result.output)["pieces"]}
    assert outcomes["session-end maintain"] == outcomes["MCP server"] == "updated"
    assert at(read(settings), ("hooks", "SessionEnd")) == [group(MAINTAIN, 60, "")]

    elsewhere = tmp_path / "other venv" / "bin" / "memlens"
    monkeypatch.setattr(hook_commands, "memlens_executable", lambda: elsewhere)
    result = cli("hooks", "install", "--host", "claude-code", "--json")
    assert {p["outcome"] for p in json.loads(result.output)["pieces"]} == {"updated"}
    assert at(read(settings), ("hooks", "SessionEnd")) == [group(f"'{elsewhere}' maintain --quiet --if-exists", 60, "")]
    assert at(read(project / ".mcp.json"), ("mcpServers", "memlens"))["command"] == str(elsewhere)
    monkeypatch.setattr(hook_commands, "memlens_executable", lambda: Path(MEMLENS))
    assert cli("hooks", "uninstall", "--host", "claude-code").exit_code == 0   # through any memlens
    assert not settings.exists() or "memlens" not in settings.read_text()


HOSTILE_PATHS = ["a b", "it's", 'say "hi"', "$(touch PWNED)", "`touch PWNED`", "semi;touch PWNED", "back\\slash",
                 "star*", "new\nline"]


@pytest.mark.parametrize("odd", HOSTILE_PATHS)
def test_hook_commands_run_as_written_whatever_the_paths_hold(cli, places, tmp_path, monkeypatch, odd):
    """The memlens path and the memory file's path are one word each to the shell, never code."""
    import memlens.viewer.cli.hook_commands as hook_commands

    folder = tmp_path / odd / "bin"
    folder.mkdir(parents=True)
    shim = folder / "memlens"
    shim.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" >> {json.dumps(str(tmp_path / 'ran'))}\n")
    shim.chmod(0o755)
    monkeypatch.setattr(hook_commands, "memlens_executable", lambda: shim)
    memory_file = tmp_path / odd / "memory.jsonl"
    monkeypatch.setenv("MEMORY_FILE_PATH", str(memory_file))
    assert cli("hooks", "install", "--host", "claude-code", "--mcp-memory").exit_code == 0
    session_end = at(read(places["project"] / ".claude" / "settings.json"), ("hooks", "SessionEnd"))
    for entry in session_end:
        subprocess.run(["/bin/sh", "-c", entry["hooks"][0]["command"]], check=True, cwd=tmp_path, timeout=60)
    ran = (tmp_path / "ran").read_text().split("\n")
    assert ran[:4] == ["maintain", "--quiet", "--if-exists", "import"]
    assert str(memory_file) in (tmp_path / "ran").read_text()
    assert not list(tmp_path.rglob("PWNED"))


def test_windows_command_lines_quote_for_the_shell_each_host_uses():
    from memlens.viewer.cli.hosts.commands import CMD, POWERSHELL, command_line, split_line

    argv = [r"C:\Users\Ann Lee\it's\Scripts\memlens.exe", "brief", "--for-host", "gemini"]
    assert command_line(argv, POWERSHELL) == r"& 'C:\Users\Ann Lee\it''s\Scripts\memlens.exe' brief --for-host gemini"
    assert command_line(argv, CMD) == r'"C:\Users\Ann Lee\it' + "'" + r's\Scripts\memlens.exe" brief --for-host gemini'
    for dialect in (POWERSHELL, CMD):
        assert split_line(command_line(argv, dialect), dialect) == argv
    from memlens.store.errors import InvalidInput
    with pytest.raises(InvalidInput, match="cmd.exe"):
        command_line([r"C:\100%\memlens.exe"], CMD)
    from memlens.viewer.cli.hosts.commands import is_memlens_path
    assert is_memlens_path(argv[0]) and is_memlens_path("/opt/x/memlens") and is_memlens_path("D:/x/MEMLENS.EXE")
    assert not any(map(is_memlens_path, ["memlens", r"bin\memlens.exe", "/opt/x/memlens-old", "C:memlens.exe"]))


def test_each_host_writes_for_its_windows_shell(cli, places, monkeypatch):
    from memlens.viewer.cli.hosts import HOSTS

    monkeypatch.setattr(os, "name", "nt")
    try:
        assert {name: host.dialect for name, host in HOSTS.items()} == {
            "claude-code": "posix", "codex": "cmd", "gemini": "powershell", "cursor": "powershell"}
    finally:
        monkeypatch.undo()
    assert {host.dialect for host in HOSTS.values()} == {"posix"}


# --- hostile and broken files: one Error line, nothing written ---------------------------------

def error_and_nothing_written(cli, places, args, *, fix=None):
    snapshot = {scope: files_under(folder) for scope, folder in places.items()}
    result = cli("hooks", "install", *args)
    assert result.exit_code == 1
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1, result.output
    assert {scope: files_under(folder) for scope, folder in places.items()} == snapshot
    if fix is not None:
        fix()
        assert cli("hooks", "install", *args).exit_code == 0
    return result.output


def test_a_project_settings_file_linked_out_of_the_project_is_refused(cli, places, tmp_path):
    user_settings = places["user"] / ".claude" / "settings.json"
    user_settings.parent.mkdir()
    user_settings.write_text('{"env": {"API_KEY": "secret"}}\n')
    project_settings = places["project"] / ".claude" / "settings.json"
    project_settings.parent.mkdir()
    project_settings.symlink_to(user_settings)
    said = error_and_nothing_written(cli, places, ["--host", "claude-code"],
                                     fix=lambda: project_settings.unlink())
    assert "leads out of the project" in said
    assert "secret" not in project_settings.read_text() and not project_settings.is_symlink()


def test_a_project_folder_linked_out_of_the_project_is_refused(cli, places, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (places["project"] / ".gemini").symlink_to(outside)
    said = error_and_nothing_written(cli, places, ["--host", "gemini"])
    assert "leads out of the project" in said and list(outside.iterdir()) == []


def test_a_link_inside_the_project_is_followed(cli, places):
    project = places["project"]
    (project / "config").mkdir()
    (project / "config" / "mcp.json").write_text(THEIR_SERVERS)
    (project / ".mcp.json").symlink_to("config/mcp.json")
    assert cli("hooks", "install", "--host", "claude-code").exit_code == 0
    assert (project / ".mcp.json").is_symlink()
    assert "memlens" in read(project / "config" / "mcp.json")["mcpServers"]


def test_the_users_dotfiles_link_is_edited_where_it_points(cli, places, tmp_path):
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text(CLAUDE_SETTINGS)
    link = places["user"] / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(dotfiles)
    assert cli("hooks", "install", "--host", "claude-code", "--user").exit_code == 0
    assert link.is_symlink() and os.readlink(link) == str(dotfiles)
    assert at(read(dotfiles), ("hooks", "SessionEnd", -1)) == group(MAINTAIN, 60, "")
    assert cli("hooks", "uninstall", "--host", "claude-code", "--user").exit_code == 0
    assert link.is_symlink() and dotfiles.read_text() == CLAUDE_SETTINGS


def test_a_fifo_a_device_and_a_folder_are_refused_without_waiting(cli, places):
    settings = places["project"] / ".claude" / "settings.json"
    settings.parent.mkdir()
    os.mkfifo(settings)
    assert "not a regular file" in error_and_nothing_written(cli, places, ["--host", "claude-code"])
    settings.unlink()
    settings.symlink_to("/dev/zero")
    assert "leads out of the project" in error_and_nothing_written(cli, places, ["--host", "claude-code"])
    user = places["user"] / ".gemini" / "settings.json"
    user.parent.mkdir()
    user.symlink_to("/dev/zero")
    assert "not a regular file" in error_and_nothing_written(cli, places, ["--host", "gemini", "--user"])
    user.unlink()
    user.mkdir()
    error_and_nothing_written(cli, places, ["--host", "gemini", "--user"], fix=lambda: user.rmdir())


BROKEN = {
    "claude-code": (".claude/settings.json", ['{"hooks": ', '{"hooks": []}', '{"hooks": {"SessionEnd": {}}}',
                                              '[1, 2]', '{"a": 1} // no comments in Claude Code', "\xff",
                                              '{"hooks": {"SessionStart": 1}}', '{"a": 1, "a": 2, "hooks": {"SessionEnd": [], '
                                              '"SessionEnd": []}}', "[" * 5000 + "]" * 5000]),
    "codex": (".codex/config.toml", ["model = ", "mcp_servers = 3", "mcp_servers = [1]\n",
                                     "mcp_servers = { sentry = { command = 'x' } }\n"]),
    "gemini": (".gemini/settings.json", ["{/* never ends", '{"hooks": {"SessionStart": "x"}}', "{} trailing"]),
    "cursor": (".cursor/hooks.json", ['{"version": 1, "hooks": {"sessionStart": [1,]}}']),
}


@pytest.mark.parametrize("host,name,text", [(host, name, text) for host, (name, texts) in BROKEN.items()
                                            for text in texts])
def test_a_broken_or_odd_file_is_one_error_line_and_nothing_changes(cli, places, host, name, text):
    path = places["project"] / name
    path.parent.mkdir(parents=True)
    path.write_bytes(text.encode("utf-8", "surrogateescape") if text != "\xff" else b"\xff")
    said = error_and_nothing_written(cli, places, ["--host", host], fix=lambda: path.unlink())
    assert str(path) in said


def test_a_file_where_a_settings_folder_should_be_is_one_error_line(cli, places):
    (places["project"] / ".claude").write_text("not a folder")   # the second file claude-code writes
    said = error_and_nothing_written(cli, places, ["--host", "claude-code"],
                                     fix=lambda: (places["project"] / ".claude").unlink())
    assert "cannot be written" in said


def test_a_huge_settings_file_is_refused(cli, places):
    path = places["project"] / ".mcp.json"
    path.write_text('{"x": "' + "a" * (17 << 20) + '"}')
    assert "more than" in error_and_nothing_written(cli, places, ["--host", "claude-code"])


# --- the session-end hook in a project without memory, and status ------------------------------

def test_maintain_if_exists_is_a_quiet_no_op_without_a_store_and_maintains_with_one(cli, places):
    quiet = cli("maintain", "--quiet", "--if-exists")
    assert quiet.exit_code == 0 and quiet.output == ""
    assert cli("maintain", "--quiet").exit_code == 1   # without it, a missing store is still an error
    assert cli("remember", "alice:Person --works_at--> acme:Organization").exit_code == 0
    done = cli("maintain", "--if-exists", "--json")
    assert done.exit_code == 0 and "worklist" in json.loads(done.output)


def test_the_session_end_hook_as_a_host_runs_it_is_silent_in_a_project_without_memory(cli, places, home):
    assert cli("hooks", "install", "--host", "claude-code").exit_code == 0
    command = at(read(places["project"] / ".claude" / "settings.json"), ("hooks", "SessionEnd", -1))["hooks"][0]
    env = {"PATH": "/usr/bin:/bin", "MEMLENS_HOME": str(home), "HOME": os.environ["HOME"]}   # no venv on PATH
    ran = subprocess.run(["/bin/sh", "-c", command["command"]], cwd=places["project"], env=env,
                         capture_output=True, text=True, timeout=120)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "")


def test_status_says_what_is_installed_and_whether_it_works(cli, places):
    result = cli("hooks", "status", "--host", "gemini", "--project", "--json")
    assert {row["state"] for row in json.loads(result.output)} == {"not installed"}
    assert cli("hooks", "install", "--host", "gemini").exit_code == 0
    rows = {row["piece"]: row for row in json.loads(cli("hooks", "status", "--host", "gemini", "--project",
                                                        "--json").output)}
    assert rows["MCP server"]["state"] == "installed" and rows["MCP server"]["works"] is True
    assert "starts and lists" in rows["MCP server"]["check"]
    assert rows["session-end maintain"]["works"] is True
    assert rows["session-start brief"]["works"] is True and "no memory" in rows["session-start brief"]["check"]
    assert cli("remember", "alice:Person --works_at--> acme:Organization").exit_code == 0
    rows = {row["piece"]: row for row in json.loads(cli("hooks", "status", "--host", "gemini", "--project",
                                                        "--json").output)}
    assert rows["session-start brief"]["works"] is True and "the brief runs" in rows["session-start brief"]["check"]

    settings = places["project"] / ".gemini" / "settings.json"
    settings.write_text(settings.read_text().replace(MEMLENS, "/nowhere/memlens"))
    rows = {row["piece"]: row for row in json.loads(cli("hooks", "status", "--host", "gemini", "--project",
                                                        "--json").output)}
    assert rows["MCP server"]["state"] == "installed by another memlens" and rows["MCP server"]["works"] is False
    assert "does not exist" in rows["MCP server"]["check"]
    text = cli("hooks", "status", "--host", "gemini", "--project").output
    assert "FAILS" in text and "/nowhere/memlens does not exist" in text


def test_the_user_scoped_claude_code_server_is_read_from_its_state_file_never_written(cli, places):
    state = places["user"] / ".claude.json"
    state.write_text(json.dumps({"numStartups": 3, "mcpServers": {"memlens": {"type": "stdio", "command": MEMLENS,
                                                                              "args": ["mcp"]}}}))
    before = state.read_bytes()
    result = cli("hooks", "install", "--host", "claude-code", "--user", "--json")
    assert any("claude mcp add --scope user memlens -- " in note for note in json.loads(result.output)["notes"])
    rows = json.loads(cli("hooks", "status", "--host", "claude-code", "--user", "--json").output)
    assert rows[0]["piece"] == "MCP server" and rows[0]["state"] == "installed"
    assert rows[0]["works"] is True, rows[0]["check"]
    assert state.read_bytes() == before


def test_the_mcp_memory_hook_imports_the_servers_file_at_each_sessions_end(cli, places, home, tmp_path, monkeypatch):
    from mcp_memory_server import FIXTURES

    memory_file = tmp_path / "server files" / "memory.jsonl"
    memory_file.parent.mkdir()
    shutil.copyfile(FIXTURES / "state-1.jsonl", memory_file)
    monkeypatch.setenv("MEMORY_FILE_PATH", str(memory_file))
    assert cli("hooks", "install", "--host", "claude-code", "--mcp-memory").exit_code == 0
    session_end = at(read(places["project"] / ".claude" / "settings.json"), ("hooks", "SessionEnd"))
    commands = [h["command"] for g in session_end for h in g["hooks"]]
    assert len(commands) == 2 and commands[0] == MAINTAIN
    again = cli("hooks", "install", "--host", "claude-code", "--mcp-memory", "--json")
    assert {p["outcome"] for p in json.loads(again.output)["pieces"]} == {"present"}

    # the hook as Claude Code runs it: a shell, without the server's environment or the venv on PATH
    env = {"PATH": "/usr/bin:/bin", "MEMLENS_HOME": str(home), "HOME": os.environ["HOME"]}
    for state in ("state-1.jsonl", "state-2.jsonl"):
        shutil.copyfile(FIXTURES / state, memory_file)
        ran = subprocess.run(["/bin/sh", "-c", commands[1]], env=env, capture_output=True, text=True, timeout=300)
        assert ran.returncode == 0, ran.stderr
    from memlens.store import datasets
    from memlens.store.memory import Memory

    with Memory(datasets.resolve(None, "mcp-memory"), readonly=True) as memory:
        stats = memory.stats()
    assert (stats["current"], stats["retracted"]) == (9, 4)
    assert (home / "reports" / "mcp-memory.html").stat().st_size > 100_000
    assert cli("hooks", "uninstall", "--host", "claude-code").exit_code == 0
    assert not (places["project"] / ".claude").exists()


def test_the_memlens_command_is_found_beside_this_python_when_started_otherwise(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["/usr/lib/python3/dist-packages/pytest.py"])
    assert memlens_executable() == Path(sys.executable).parent / "memlens"
    monkeypatch.setattr(sys, "argv", [MEMLENS, "hooks"])
    assert str(memlens_executable()) == MEMLENS


# --- the session-start brief, as each host reads it ---------------------------------------------

def context_for(host: str, output: str) -> str:
    """What `host` takes from a session-start hook's standard output, as its source reads it."""
    shape = json.loads(output)
    if host == "cursor":
        return shape["additional_context"]
    assert shape["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    return shape["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("host", list(SHAPES))
def test_each_hosts_session_start_hook_gives_the_brief_in_the_form_it_reads(cli, places, home, host):
    from memlens.store import brief, datasets, demo

    assert cli("hooks", "install", "--host", host).exit_code == 0
    [(name, path, entry)] = [shape for shape in SHAPES[host] if "brief" in json.dumps(shape[2])]
    command = at(read(places["project"] / name), path)
    command = command["hooks"][0]["command"] if "hooks" in command else command["command"]
    env = {"PATH": "/usr/bin:/bin", "MEMLENS_HOME": str(home), "HOME": os.environ["HOME"]}
    hook_input = json.dumps({"session_id": "s-1", "hook_event_name": "SessionStart", "source": "startup",
                             "cwd": str(places["project"])})

    def start_a_session() -> subprocess.CompletedProcess:
        return subprocess.run(["/bin/sh", "-c", command], input=hook_input, cwd=places["project"], env=env,
                              capture_output=True, text=True, timeout=120)

    quiet = start_a_session()   # a project without memory: nothing to give, nothing said
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")
    demo.build(datasets.resolve(None, None)).close()
    given = start_a_session()
    assert given.returncode == 0 and given.stderr == ""
    context = context_for(host, given.stdout)
    assert "billing-service owned_by Priya Natarajan" in context and context.splitlines()[-1] == brief.DISCLAIMER


# --- --rules-file: the brief in a marked block of the host's rules file -------------------------

RULES = {"claude-code": "CLAUDE.md", "codex": "AGENTS.md", "gemini": "GEMINI.md", "cursor": ".cursor/rules/memlens.mdc"}
THEIR_RULES = "# Working here\n\n- tabs, not spaces\n- <!-- a comment of theirs -->\n"


def block_of(text: str) -> str:
    from memlens.viewer.rules_block import BEGIN, END

    assert text.count(BEGIN) == text.count(END) == 1
    return text[text.index(BEGIN):text.index(END)]


@pytest.mark.parametrize("host", list(RULES))
def test_the_rules_file_block_is_kept_current_by_maintain_and_taken_out_to_the_byte(cli, places, host):
    project = places["project"]
    rules = project / RULES[host]
    if host != "cursor":   # Cursor's rule is a file of memlens's own
        rules.write_text(THEIR_RULES)
    before = files_under(project)
    result = cli("hooks", "install", "--host", host, "--rules-file", "--json")
    assert json.loads(result.output)["pieces"][-1] == {"piece": "brief in the rules file", "file": str(rules),
                                                       "outcome": "added"}
    assert "no memory yet" in block_of(rules.read_text())
    if host != "cursor":
        assert rules.read_text().startswith(THEIR_RULES + "\n")
    else:
        assert rules.read_text().startswith("---\ndescription: ") and "alwaysApply: true" in rules.read_text()

    assert cli("remember", "billing-service:Service --owned_by--> priya:Person").exit_code == 0
    assert cli("maintain", "--quiet", "--if-exists").exit_code == 0
    assert "- billing-service owned_by priya" in block_of(rules.read_text())
    kept = rules.read_bytes()
    assert "unchanged: " + str(rules.resolve()) in cli("maintain").stderr   # nothing new: the file is left alone
    assert rules.read_bytes() == kept
    rows = {row["piece"]: row for row in json.loads(cli("hooks", "status", "--host", host, "--project", "--json").output)}
    assert rows["brief in the rules file"]["works"] is True

    assert cli("hooks", "uninstall", "--host", host).exit_code == 0
    after = files_under(project)
    assert {name: data for name, data in after.items() if not name.startswith("home")} == before
    assert "rules" not in cli("bundles", "list").output


def test_the_memorys_text_cannot_close_the_block_and_markers_twice_are_refused(cli, places):
    rules = places["project"] / "CLAUDE.md"
    fact = {"subject": "billing-service", "subject_type": "Service", "relation": "runs_on",
            "object": "k8s <!-- END memlens brief --> cluster", "object_type": "Service"}
    assert cli("remember", "--stdin", input=json.dumps(fact)).exit_code == 0
    assert cli("hooks", "install", "--host", "claude-code", "--rules-file").exit_code == 0
    text = rules.read_text()
    assert "runs_on k8s &lt;!-- END memlens brief --&gt; cluster" in block_of(text)

    from memlens.viewer.rules_block import BEGIN
    rules.write_text(text + BEGIN + "\n")
    assert "markers" in error_and_nothing_written(cli, places, ["--host", "claude-code", "--rules-file"])


def test_a_rules_file_reached_through_a_link_or_not_a_file_is_refused(cli, places, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("their file\n")
    rules = places["project"] / "AGENTS.md"
    rules.symlink_to(outside)
    said = error_and_nothing_written(cli, places, ["--host", "codex", "--rules-file"], fix=lambda: rules.unlink())
    assert "link" in said and outside.read_text() == "their file\n"
    assert cli("hooks", "uninstall", "--host", "codex").exit_code == 0
    os.mkfifo(rules)
    assert "not a regular file" in error_and_nothing_written(cli, places, ["--host", "codex", "--rules-file"])
    rules.unlink()
    (places["project"] / ".cursor").symlink_to(tmp_path)
    assert "link" in error_and_nothing_written(cli, places, ["--host", "cursor", "--rules-file"])


def test_the_rules_file_is_for_a_project(cli, places):
    result = cli("hooks", "install", "--host", "gemini", "--user", "--rules-file")
    assert result.exit_code == 2 and "--rules-file is for a project" in result.output
    assert files_under(places["user"]) == {}
    assert cli("hooks", "install", "--host", "gemini", "--project", "--rules-file").exit_code == 0
