"""Cursor: MCP servers in `mcp.json`, hooks in `hooks.json` (`{"version": 1, "hooks": {"sessionStart":
[{"command": ...}]}}`), in `~/.cursor` or a project's `.cursor`. Cursor cannot be installed here,
so these shapes follow its documentation and were not tried against Cursor itself."""
from __future__ import annotations

from .commands import command_line
from .host import WINDOWS_POWERSHELL, Host, Place, brief_argv, maintain_argv, piece, server_entry
from .pieces import Piece

NAME = "cursor"
HOOKS_SKELETON = '{\n  "version": 1\n}\n'


def pieces(place: Place) -> list[Piece]:
    dialect = HOST.dialect
    hooks = place.file(".cursor/hooks.json", "jsonc", HOOKS_SKELETON)
    return [
        piece("MCP server", place.file(".cursor/mcp.json", "jsonc"), ("mcpServers",), "memlens",
              server_entry(place.memlens), dialect),
        piece("session-start brief", hooks, ("hooks", "sessionStart"), None,
              {"command": command_line(brief_argv(place.memlens, NAME), dialect)}, dialect),
        piece("session-end maintain", hooks, ("hooks", "sessionEnd"), None,
              {"command": command_line(maintain_argv(place.memlens), dialect)}, dialect),
    ]


HOST = Host(NAME, "Cursor", pieces, rules_file=".cursor/rules/memlens.mdc", dialects=WINDOWS_POWERSHELL)
