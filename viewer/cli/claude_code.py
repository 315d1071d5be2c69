"""Wiring memlens into Claude Code: run `memlens maintain` when a session ends, and serve the
project's memory to it over MCP; optionally also import the MCP reference memory server's file at
each session's end, which gives that memory the history it does not keep.

The settings file is JSON with `hooks.<Event>` lists of `{"matcher", "hooks": [{"type", "command"}]}`
groups. We add one group of our own and remove exactly that group, whatever else is there. The
project's `.mcp.json` maps server names to `{"type", "command", "args"}`; we add `memlens` and remove
it only while it is still the entry we wrote.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memlens.store.errors import InvalidInput
from memlens.viewer.atomic import atomic_write

EVENT = "SessionEnd"
COMMAND = "memlens maintain --quiet"
OUR_GROUP = {"matcher": "", "hooks": [{"type": "command", "command": COMMAND, "timeout": 120}]}
# The MCP memory server's file, imported into one dataset of its own and its report rewritten.
MCP_MEMORY_DATASET = "mcp-memory"
MCP_MEMORY_IMPORT = "memlens import --from mcp-memory"
SERVER_NAME = "memlens"
OUR_SERVER = {"type": "stdio", "command": "memlens", "args": ["mcp"]}
# Claude Code keeps user-scoped servers in its own state file, which it rewrites while it runs;
# its own command is the safe way to write there.
USER_SERVER_COMMAND = "claude mcp add --scope user memlens -- memlens mcp"


def settings_path(scope: str, project_dir: Path | None = None) -> Path:
    if scope == "user":
        return Path.home() / ".claude" / "settings.json"
    return (project_dir or Path.cwd()) / ".claude" / "settings.json"


def _read_object(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        content = json.loads(path.read_text(encoding="utf-8") or "{}")
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); fix it first") from None
    if not isinstance(content, dict):
        raise InvalidInput(f"{path} does not hold a JSON object")
    return content


def _read(path: Path) -> dict[str, Any]:
    settings = _read_object(path)
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict) or not isinstance(hooks.get(EVENT, []), list):
        raise InvalidInput(f"{path}: 'hooks.{EVENT}' is not a list; fix it first")
    return settings


def _write(path: Path, settings: dict[str, Any]) -> None:
    atomic_write(path, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")


def _is_ours(group: Any) -> bool:
    return isinstance(group, dict) and group.get("hooks") == OUR_GROUP["hooks"]


def _imports_mcp_memory(group: Any) -> bool:
    hooks = group.get("hooks") if isinstance(group, dict) else None
    return (isinstance(hooks, list) and len(hooks) == 1 and isinstance(hooks[0], dict)
            and str(hooks[0].get("command", "")).startswith(MCP_MEMORY_IMPORT + " "))


def mcp_memory_group(memory_file: Path | None) -> dict[str, Any]:
    """The hook that imports the MCP memory server's file (at `memory_file`, or where the server
    keeps it when None) into its dataset, then rewrites that dataset's report if it changed."""
    source = f' "{memory_file}"' if memory_file is not None else ""
    command = (f"{MCP_MEMORY_IMPORT}{source} -d {MCP_MEMORY_DATASET} --json"
               f" && memlens view -d {MCP_MEMORY_DATASET} --if-changed --no-open --json")
    return {"matcher": "", "hooks": [{"type": "command", "command": command, "timeout": 120}]}


def install(path: Path, *, mcp_memory: dict[str, Any] | None = None) -> bool:
    """Add our hook group (and, if given, the MCP memory import's); False if nothing was added."""
    settings = _read(path)
    groups = settings.setdefault("hooks", {}).setdefault(EVENT, [])
    added = False
    if not any(_is_ours(group) for group in groups):
        groups.append(json.loads(json.dumps(OUR_GROUP)))
        added = True
    if mcp_memory is not None and not any(_imports_mcp_memory(group) for group in groups):
        groups.append(json.loads(json.dumps(mcp_memory)))
        added = True
    if added:
        _write(path, settings)
    return added


def uninstall(path: Path) -> bool:
    """Remove our hook groups and nothing else; False if none was there."""
    settings = _read(path)
    hooks = settings.get("hooks", {})
    groups = hooks.get(EVENT, [])
    kept = [group for group in groups if not (_is_ours(group) or _imports_mcp_memory(group))]
    if len(kept) == len(groups):
        return False
    if kept:
        hooks[EVENT] = kept
    else:
        del hooks[EVENT]
        if not hooks:
            del settings["hooks"]
    _write(path, settings)
    return True


def installed(path: Path) -> bool:
    return any(_is_ours(group) for group in _read(path).get("hooks", {}).get(EVENT, []))


def servers_path(project_dir: Path | None = None) -> Path:
    """The project's MCP servers, shared with everyone who works on it: `.mcp.json` at its root."""
    return (project_dir or Path.cwd()) / ".mcp.json"


def _read_servers(path: Path) -> dict[str, Any]:
    config = _read_object(path)
    if not isinstance(config.get("mcpServers", {}), dict):
        raise InvalidInput(f"{path}: 'mcpServers' is not an object; fix it first")
    return config


def check(settings: Path, servers: Path | None) -> None:
    """Refuse a broken file before either is written, so an install is all or nothing."""
    _read(settings)
    if servers is not None:
        _read_servers(servers)


def register_server(path: Path) -> bool:
    """Add our server; False if a `memlens` server is there already (ours, or one of the user's)."""
    config = _read_servers(path)
    servers = config.setdefault("mcpServers", {})
    if SERVER_NAME in servers:
        return False
    servers[SERVER_NAME] = dict(OUR_SERVER)
    _write(path, config)
    return True


def unregister_server(path: Path) -> bool:
    """Remove our server and nothing else; False if it is not there as we wrote it."""
    config = _read_servers(path)
    servers = config.get("mcpServers", {})
    if servers.get(SERVER_NAME) != OUR_SERVER:
        return False
    del servers[SERVER_NAME]
    if not servers:
        del config["mcpServers"]
    _write(path, config)
    return True
