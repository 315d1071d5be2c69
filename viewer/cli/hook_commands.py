"""`memlens hooks install|uninstall|status`: memlens wired into a coding agent's host."""
from __future__ import annotations

import os
from pathlib import Path

import click

from .formatting import printable
from .hosts import HOSTS, claude_code, rules
from .hosts.commands import memlens_executable
from .hosts.host import PROJECT, USER, Place
from .hosts.pieces import ABSENT, ADDED, PRESENT, REMOVED, THEIRS, UPDATED, Found, Piece, find, install, uninstall
from .hosts.status import check
from .options import emit, json_option

SAID = {
    ADDED: "added to", UPDATED: "updated (this memlens's path) in", PRESENT: "already in",
    THEIRS: "left alone: an entry of yours is in", REMOVED: "removed from", ABSENT: "not in",
}


@click.group()
def hooks():
    """Wire memlens into a coding agent's host: its MCP server, the memory brief at session start,
    and `memlens maintain` at session end, each where the host has a place for it.

    \b
    Examples:
      memlens hooks install --host claude-code            # .claude/settings.json and .mcp.json here
      memlens hooks install --host codex --user           # ~/.codex/config.toml and hooks.json
      memlens hooks install --host gemini                 # .gemini/settings.json here
      memlens hooks install --host cursor                 # .cursor/mcp.json and hooks.json here
      memlens hooks status
      memlens hooks uninstall --host claude-code
    """


def _host_option(required: bool = True):
    return click.option("--host", type=click.Choice(list(HOSTS)), required=required,
                        help="The agent host." if required else "Only this host (default: every host).")


def _scope_options(default: str | None = PROJECT):
    def decorate(command):
        command = click.option("--user", "scope", flag_value=USER, help="The user's settings (every project).")(command)
        return click.option("--project", "scope", flag_value=PROJECT, default=default,
                            help="This project's settings" + (" (the default)." if default else "."))(command)
    return decorate


def _place(scope: str) -> Place:
    return Place(scope, Path.cwd() if scope == PROJECT else Path.home(), memlens_executable())


def _report(host, place: Place, results: list[tuple[str, Path, str]], extra: list[str], as_json: bool) -> None:
    """Each piece's (label, file, outcome), and what the host asks of the user."""
    notes = host.notes(place) + extra
    data = {"host": host.name, "scope": place.scope, "memlens": str(place.memlens),
            "pieces": [{"piece": label, "file": str(path), "outcome": outcome} for label, path, outcome in results],
            "notes": notes}
    lines = [f"{host.title} ({place.scope}):"]
    lines += [f"  {label}: {SAID[outcome]} {path}" for label, path, outcome in results]
    lines += [f"note: {note}" for note in notes]
    emit(as_json, data, "\n".join(lines))


@hooks.command("install")
@_host_option()
@_scope_options()
@click.option("--rules-file", "rules_file", is_flag=True,
              help="Also keep the memory brief in a marked block of the host's project rules file (CLAUDE.md, "
                   "AGENTS.md, GEMINI.md, .cursor/rules/memlens.mdc), rewritten by every `memlens maintain`: for a "
                   "setup whose sessions take no session-start hook. Off unless asked: the file is one people commit.")
@click.option("--mcp-memory", "mcp_memory", is_flag=True,
              help="Claude Code: also import the MCP reference memory server's file into the dataset mcp-memory "
                   "at each session's end (its $MEMORY_FILE_PATH if set now, else found then), and rewrite that "
                   "dataset's report.")
@json_option
def hooks_install(host, scope, rules_file, mcp_memory, as_json):
    """Add memlens's MCP server and hooks to HOST's settings, keeping everything already there.

    Every command names the memlens that ran this (its absolute path), so the host finds it
    whatever PATH it gives hooks; running it again changes nothing, or updates that path. An
    entry of yours named memlens is left alone. For Claude Code's user scope, the MCP server is
    registered with Claude Code's own command, which this prints.

    \b
    Examples:
      memlens hooks install --host claude-code --project
      memlens hooks install --host gemini --user
      memlens hooks install --host claude-code --mcp-memory
      memlens hooks install --host codex --rules-file      # and the brief in AGENTS.md
    """
    host, place = HOSTS[host], _place(scope)
    pieces = host.pieces(place)
    if mcp_memory:
        if host.name != claude_code.NAME:
            raise click.UsageError("--mcp-memory is for --host claude-code")
        pieces.append(claude_code.mcp_memory_piece(place, _memory_file_path()))
    if rules_file and scope == USER:
        raise click.UsageError("--rules-file is for a project: the brief is this project's memory")
    extra = []
    if host.name == claude_code.NAME and scope == USER:
        extra.append(f"for the MCP server in every project, run: {claude_code.user_server_command(place.memlens)}")
    if rules_file:
        rules.check(host, place)
    results = _rows(install(pieces))
    if rules_file:
        results.append((rules.LABEL, *rules.install(host, place)))
    _report(host, place, results, extra, as_json)


def _rows(results: list[tuple[Piece, str]]) -> list[tuple[str, Path, str]]:
    return [(piece.label, piece.file.path, outcome) for piece, outcome in results]


def _memory_file_path() -> Path | None:
    """$MEMORY_FILE_PATH as the hook will need it (the hook's environment is Claude Code's, not the
    server's); None lets the import find the file beside the server each time."""
    given = os.environ.get("MEMORY_FILE_PATH")
    return Path(given).expanduser().resolve() if given and Path(given).expanduser().is_absolute() else None


@hooks.command("uninstall")
@_host_option()
@_scope_options()
@json_option
def hooks_uninstall(host, scope, as_json):
    """Remove exactly what `install` added (through any memlens), and nothing of yours.

    A file or folder that install created and that holds nothing else is removed too.

    \b
    Example:
      memlens hooks uninstall --host claude-code --project
    """
    host, place = HOSTS[host], _place(scope)
    pieces = host.pieces(place)
    if host.name == claude_code.NAME:
        pieces.append(claude_code.mcp_memory_piece(place, None))
    if place.scope == PROJECT:
        rules.check(host, place)
    results = _rows(uninstall(pieces))
    if place.scope == PROJECT:
        results.append((rules.LABEL, *rules.uninstall(host, place)))
    # the optional pieces are named only where they were there
    results = [row for row in results if not (row[2] == ABSENT and row[0] in (claude_code.MCP_MEMORY_LABEL, rules.LABEL))]
    _report(host, place, results, [], as_json)


@hooks.command("status")
@_host_option(required=False)
@_scope_options(default=None)
@json_option
def hooks_status(host, scope, as_json):
    """Say, for each host, what is installed and whether it works: the MCP server is started and
    asked for its tools, and the memlens each hook names is run.

    \b
    Examples:
      memlens hooks status
      memlens hooks status --host codex --user --json
    """
    rows = []
    for name in [host] if host else list(HOSTS):
        for where in [scope] if scope else [PROJECT, USER]:
            rows += _status_rows(HOSTS[name], _place(where))
    lines = []
    for row in rows:
        state = row["state"] if row["works"] is None else f"{row['state']}; {'works' if row['works'] else 'FAILS'}: " \
                                                         f"{row['check']}"
        lines.append(printable(f"{row['host']:<12} {row['scope']:<8} {row['piece']:<24} {state}  ({row['file']})"))
    emit(as_json, rows, "\n".join(lines))


def _status_rows(host, place: Place) -> list[dict]:
    pieces = host.pieces(place)
    if host.name == claude_code.NAME:
        pieces.append(claude_code.mcp_memory_piece(place, None))
        if place.scope == USER:
            pieces.insert(0, claude_code.user_server(place))
    rows = []
    for found in find(pieces):
        if found.state == ABSENT and found.piece.label == claude_code.MCP_MEMORY_LABEL:
            continue
        works, seen = (None, None) if found.state == ABSENT else check(found, place.folder, host.dialect)
        rows.append({"host": host.name, "scope": place.scope, "piece": found.piece.label,
                     "file": str(found.piece.file.path), "state": _state(found), "works": works, "check": seen})
    if place.scope == PROJECT:
        path, present, kept = rules.installed(host, place)
        if present:
            rows.append({"host": host.name, "scope": place.scope, "piece": rules.LABEL, "file": str(path),
                         "state": "installed", "works": kept,
                         "check": "rewritten by memlens maintain" if kept else "not kept current: run install again"})
    return rows


def _state(found: Found) -> str:
    return {PRESENT: "installed", UPDATED: "installed by another memlens", THEIRS: "yours (not memlens's)",
            ABSENT: "not installed"}[found.state]


COMMANDS = [hooks]
