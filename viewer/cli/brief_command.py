"""`memlens brief`: the memory as an agent about to work needs it, and as a session-start hook gives it.

The hook form (`--for-host HOST`) runs at every session start, within the host's timeout and a
150 ms budget at 10,000 entities: this module imports the store's brief and nothing of the viewer,
and the command group imports it alone (app.py). It never breaks a session start: a project with
no memory gives nothing, quietly; anything else that goes wrong gives nothing and one line on stderr.
"""
from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import click

from memlens.store import brief as briefs
from memlens.store import datasets
from memlens.store.brief_repo import repository_names
from memlens.store.errors import MemlensError
from memlens.store.opening import open_for_reading, open_for_recording

from .host_output import HOSTS, session_start_output
from .options import dataset_options, emit, note

# What a host's hook input may take, at most: its JSON is a few hundred bytes.
HOOK_INPUT_LIMIT = 1 << 20
# How long a hook waits for another writer's lock before giving the brief unrecorded.
RECORD_WAIT_MS = 2_000


@click.command()
@click.option("--max-chars", default=briefs.DEFAULT_MAX_CHARS, show_default=True, type=int,
              help=f"The most characters the brief may hold (up to {briefs.MAX_CHARS:,}).")
@click.option("--for-host", "host", type=click.Choice(HOSTS),
              help="Print the brief as HOST's session-start hook gives it (reading the hook's JSON input "
                   "from stdin), and record it as given.")
@click.option("--record", is_flag=True, help="Record this brief as given (what --for-host always does).")
@dataset_options
def brief(max_chars, host, record, db, dataset, as_json):
    """The memory as an agent about to work needs it: what the project is, what changed since the
    last brief, open contradictions and the current facts that matter most now, each with its id,
    in whole lines within --max-chars. Text that reads as instructions or looks like a secret is
    left out. The last line says it is memory, not instructions.

    \b
    Examples:
      memlens brief -d demo
      memlens brief --max-chars 2000 --json
      memlens brief --for-host claude-code      # as the SessionStart hook runs it
    """
    briefs.check_max_chars(max_chars)
    if host is not None:
        if as_json:
            raise click.UsageError("--for-host prints what the host reads; --json goes without it")
        _hook(host, max_chars, db, dataset)
        return
    path = datasets.resolve(db, dataset)
    conn = open_for_recording(path, ("briefs",)) if record else open_for_reading(path)
    try:
        made = briefs.read(conn, dataset=datasets.name_of(path), max_chars=max_chars,
                           named=repository_names(Path.cwd()))
        if record:
            briefs.record_given(conn, made, host="cli")
    finally:
        conn.close()
    emit(as_json, dict(made.as_dict(), recorded=record), lambda: click.echo(made.text))


def _hook(host: str, max_chars: int, db: str | None, dataset: str | None) -> None:
    """Give the brief to `host`'s session-start hook; whatever happens, the session starts."""
    given = _hook_input()
    directory = _directory(given.get("cwd"))
    try:
        path = datasets.resolve(db, dataset) if db or dataset else datasets.path_for(datasets.project_name(directory))
        if not path.exists():
            return   # no memory yet: nothing to tell, and nothing to complain of
        text = _given_brief(path, host, max_chars, directory, given)
    except Exception as exc:   # noqa: BLE001 -- a hook must never break a session start
        from .app import error_line

        note(f"memlens: no brief given: {error_line(exc)}")
        return
    output = session_start_output(host, text)
    if output:
        click.echo(output)


def _given_brief(path: Path, host: str, max_chars: int, directory: Path, given: dict[str, str]) -> str:
    """The brief's text, recorded as given; given unrecorded (with a line on stderr) if the store
    cannot take the record; "" for a memory that holds nothing yet."""
    try:
        conn = open_for_recording(path, ("briefs",))
        conn.execute(f"PRAGMA busy_timeout = {RECORD_WAIT_MS}")
        recording = True
    except (MemlensError, sqlite3.Error, OSError) as exc:
        conn, recording = open_for_reading(path), False
        note(f"memlens: the brief is given but not recorded: {exc}")
    try:
        if conn.execute("SELECT 1 FROM entities LIMIT 1").fetchone() is None:
            return ""
        made = briefs.read(conn, dataset=datasets.name_of(path), max_chars=max_chars,
                           named=repository_names(directory))
        if recording:
            try:
                briefs.record_given(conn, made, host=host, session=given.get("session_id"),
                                    source=given.get("source"))
            except sqlite3.OperationalError as exc:   # locked by a long write past RECORD_WAIT_MS
                note(f"memlens: the brief is given but not recorded: {exc}")
        return made.text
    finally:
        conn.close()


def _hook_input() -> dict[str, str]:
    """The host's hook input (JSON on stdin): its string fields; {} for none, too much or not JSON."""
    stream = getattr(sys.stdin, "buffer", None)
    try:
        if stream is None or stream.isatty():
            return {}
        data = stream.read(HOOK_INPUT_LIMIT + 1)
        given = json.loads(data) if data and len(data) <= HOOK_INPUT_LIMIT else {}
    except (OSError, ValueError):
        return {}
    return {key: value for key, value in given.items() if isinstance(value, str)} if isinstance(given, dict) else {}


def _directory(cwd: str | None) -> Path:
    """The session's working directory as the host gives it, else this process's."""
    if cwd:
        try:
            if Path(cwd).is_dir():
                return Path(cwd)
        except (OSError, ValueError):
            pass
    return Path.cwd()


COMMANDS = [brief]
