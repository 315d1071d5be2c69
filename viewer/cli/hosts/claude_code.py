"""Claude Code: hooks in `.claude/settings.json` (the user's: `~/.claude/settings.json`), the
project's MCP servers in `.mcp.json`. Its user-scoped servers live in `~/.claude.json`, its own
state file, which it rewrites while it runs: memlens only reads that one, and says the `claude mcp
add` command that writes there."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .commands import POSIX, command_line, is_memlens_path, split_line
from .host import (BRIEF_TIMEOUT, MAINTAIN_TIMEOUT, PROJECT, SESSION_SOURCES, Host, Place, brief_argv,
                   maintain_argv, piece, server_entry)
from .pieces import Piece, SettingsFile

NAME = "claude-code"
# What memlens up to 0.x wrote: recognised, so installing again replaces them and uninstall removes them.
OLDER_SERVER = {"type": "stdio", "command": "memlens", "args": ["mcp"]}
OLDER_MAINTAIN = {"matcher": "", "hooks": [{"type": "command", "command": "memlens maintain --quiet", "timeout": 120}]}
_OLDER_MCP_MEMORY = re.compile(r'memlens import --from mcp-memory(?: "[^"]*")? -d mcp-memory --json'
                               r' && memlens view -d mcp-memory --if-changed --no-open --json')
MCP_MEMORY_DATASET = "mcp-memory"
MCP_MEMORY_LABEL = "session-end mcp-memory import"


def _group(matcher: str, command: str, timeout: int) -> dict[str, Any]:
    return {"matcher": matcher, "hooks": [{"type": "command", "command": command, "timeout": timeout}]}


def settings(place: Place) -> SettingsFile:
    return place.file(".claude/settings.json", "json")


def pieces(place: Place) -> list[Piece]:
    found = []
    if place.scope == PROJECT:
        found.append(piece("MCP server", place.file(".mcp.json", "json"), ("mcpServers",), "memlens",
                           server_entry(place.memlens, type="stdio"), POSIX, OLDER_SERVER))
    found.append(piece("session-start brief", settings(place), ("hooks", "SessionStart"), None,
                       _group(SESSION_SOURCES, command_line(brief_argv(place.memlens, NAME), POSIX), BRIEF_TIMEOUT),
                       POSIX))
    found.append(piece("session-end maintain", settings(place), ("hooks", "SessionEnd"), None,
                       _group("", command_line(maintain_argv(place.memlens), POSIX), MAINTAIN_TIMEOUT),
                       POSIX, OLDER_MAINTAIN))
    return found


def user_server(place: Place) -> Piece:
    """The user-scoped server, read from Claude Code's own state file (never written)."""
    return piece("MCP server", SettingsFile(place.folder / ".claude.json", "json", None), ("mcpServers",),
                 "memlens", server_entry(place.memlens, type="stdio"), POSIX, OLDER_SERVER)


def user_server_command(memlens: Path) -> str:
    """Claude Code's own command that registers the server for every project."""
    return command_line(["claude", "mcp", "add", "--scope", "user", "memlens", "--", str(memlens), "mcp"], POSIX)


def mcp_memory_piece(place: Place, memory_file: Path | None) -> Piece:
    """The hook that imports the MCP memory server's file (at `memory_file`, or where the server
    keeps it when None) into its own dataset at each session's end, then rewrites that dataset's
    report if it changed."""
    def group(memlens: str, file: str | None) -> dict[str, Any]:
        source = [] if file is None else [file]
        return _group("", command_line([memlens, "import", "--from", "mcp-memory", *source, "-d", MCP_MEMORY_DATASET,
                                        "--json"], POSIX) + " && " +
                      command_line([memlens, "view", "-d", MCP_MEMORY_DATASET, "--if-changed", "--no-open", "--json"],
                                   POSIX), MAINTAIN_TIMEOUT)

    def recognise(found: Any) -> bool:
        """This hook as any memlens wrote it, for any memory file."""
        try:
            line = found["hooks"][0]["command"]
            words = split_line(line.split(" && ")[0], POSIX)
        except (KeyError, IndexError, TypeError, AttributeError):
            return False
        if words and is_memlens_path(words[0]):
            return found == group(words[0], words[4] if len(words) > 4 and words[4] != "-d" else None)
        return found == {"matcher": "", "hooks": [{"type": "command", "command": line, "timeout": 120}]} and \
            _OLDER_MCP_MEMORY.fullmatch(line) is not None

    return Piece(MCP_MEMORY_LABEL, settings(place), ("hooks", "SessionEnd"), None,
                 group(str(place.memlens), None if memory_file is None else str(memory_file)), recognise)


HOST = Host(NAME, "Claude Code", pieces, rules_file="CLAUDE.md")
