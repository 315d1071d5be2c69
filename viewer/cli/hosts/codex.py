"""Codex CLI: MCP servers as `[mcp_servers.<name>]` tables in `config.toml`, hooks in `hooks.json`
beside it (the Claude Code shape), both in `~/.codex` ($CODEX_HOME) or a project's `.codex`.

Codex runs a hook only once the user has trusted it (it asks at start, or in /hooks), and reads a
project's `.codex` only in a project the user trusts: memlens trusts nothing on their behalf."""
from __future__ import annotations

import os
from pathlib import Path

from .commands import command_line
from .host import (BRIEF_TIMEOUT, PROJECT, SESSION_SOURCES, WINDOWS_CMD, Host, Place, brief_argv, maintain_argv,
                   piece, server_entry)
from .pieces import Piece

NAME = "codex"
# Codex gives a session-end hook at most 3 s ("clamping SessionEnd hook timeout to 3s" at every
# start otherwise): enough for maintenance, not for rewriting a large site, which then waits for
# the next session's end or `memlens maintain`.
SESSION_END_TIMEOUT = 3


def folder(place: Place) -> str:
    """The folder of Codex's files, relative to the place's folder."""
    if place.scope == PROJECT:
        return ".codex"
    home = os.environ.get("CODEX_HOME")
    return str(Path(home).expanduser()) if home else ".codex"


def pieces(place: Place) -> list[Piece]:
    dialect = HOST.dialect
    base = folder(place)
    hooks = place.file(f"{base}/hooks.json", "json")

    def group(argv: list[str], timeout: int, matcher: str | None = None) -> dict:
        handler = {"type": "command", "command": command_line(argv, dialect), "timeout": timeout}
        return ({} if matcher is None else {"matcher": matcher}) | {"hooks": [handler]}

    return [
        piece("MCP server", place.file(f"{base}/config.toml", "toml", skeleton=""), ("mcp_servers",), "memlens",
              server_entry(place.memlens), dialect),
        piece("session-start brief", hooks, ("hooks", "SessionStart"), None,
              group(brief_argv(place.memlens, NAME), BRIEF_TIMEOUT, SESSION_SOURCES), dialect),
        piece("session-end maintain", hooks, ("hooks", "SessionEnd"), None,
              group(maintain_argv(place.memlens), SESSION_END_TIMEOUT), dialect),
    ]


def notes(place: Place) -> list[str]:
    said = ["Codex runs a new or changed hook only after you trust it: start codex and accept it (or see /hooks)"]
    if place.scope == PROJECT:
        said.append("Codex reads a project's .codex folder only in a project you trust")
    return said


HOST = Host(NAME, "Codex CLI", pieces, notes, rules_file="AGENTS.md", dialects=WINDOWS_CMD)
