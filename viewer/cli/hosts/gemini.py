"""Gemini CLI: MCP servers and hooks both in `settings.json` (`~/.gemini` or a project's
`.gemini`), which may hold comments. Its hooks' timeouts are in milliseconds, and a lifecycle
hook's matcher is the exact source, so `*` takes every session start. Gemini asks before it runs a
project's hooks it has not seen."""
from __future__ import annotations

from .commands import command_line
from .host import (BRIEF_TIMEOUT, MAINTAIN_TIMEOUT, PROJECT, WINDOWS_POWERSHELL, Host, Place, brief_argv,
                   maintain_argv, piece, server_entry)
from .pieces import Piece

NAME = "gemini"


def pieces(place: Place) -> list[Piece]:
    dialect = HOST.dialect
    settings = place.file(".gemini/settings.json", "jsonc")

    def group(name: str, argv: list[str], timeout: int) -> dict:
        return {"matcher": "*", "hooks": [{"name": name, "type": "command", "command": command_line(argv, dialect),
                                           "timeout": timeout * 1000}]}

    return [
        piece("MCP server", settings, ("mcpServers",), "memlens", server_entry(place.memlens), dialect),
        piece("session-start brief", settings, ("hooks", "SessionStart"), None,
              group("memlens-brief", brief_argv(place.memlens, NAME), BRIEF_TIMEOUT), dialect),
        piece("session-end maintain", settings, ("hooks", "SessionEnd"), None,
              group("memlens-maintain", maintain_argv(place.memlens), MAINTAIN_TIMEOUT), dialect),
    ]


def notes(place: Place) -> list[str]:
    if place.scope == PROJECT:
        return ["Gemini CLI asks you to trust a project's new hooks before it runs them"]
    return []


HOST = Host(NAME, "Gemini CLI", pieces, notes, rules_file="GEMINI.md", dialects=WINDOWS_POWERSHELL)
