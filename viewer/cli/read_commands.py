"""Commands that read: facts, history, recall, stats, datasets, maintain."""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import click

from memlens.store import datasets
from memlens.store.datasets import flag_for
from memlens.store.errors import StoreUnreadable
from memlens.store.memory import Memory

from ..model.worklist import next_command
from .formatting import (echo_candidates, echo_facts, entity_line, fact_line, fact_times, plural, printable,
                         stats_line, terminal_width)
from . import history_text
from .options import actor_option, dataset_options, emit, note, open_memory, read_memory

full_option = click.option("--full", is_flag=True, help="Show each description whole, not its first line cut to fit.")


@click.command()
@click.option("--all", "include_all", is_flag=True, help="Include superseded, retracted and forgotten facts.")
@click.option("--as-of-record", metavar="TIME", help="As the store believed it at TIME (ISO date or datetime).")
@click.option("--as-of-valid", metavar="DATE", help="What was true in the world on DATE (history included).")
@full_option
@dataset_options
def facts(include_all, as_of_record, as_of_valid, full, db, dataset, as_json):
    """List facts: current ones by default, each with the first line of what it says.

    \b
    Examples:
      memlens facts
      memlens facts --full                        # every description whole
      memlens facts --all --json
      memlens facts --as-of-record 2026-02-01     # what the store believed then
      memlens facts --as-of-valid 2025-06-01      # what was true in the world then
    """
    with read_memory(db, dataset) as memory:
        found = memory.facts(include_all=include_all, as_of_record=as_of_record, as_of_valid=as_of_valid)
    emit(as_json, found, lambda: echo_facts(found, full=full))


@click.command()
@click.argument("ref")
@full_option
@dataset_options
def history(ref, full, db, dataset, as_json):
    """The history of an entity (by name) or of a fact (by id): versions and ledger rows.

    \b
    Examples:
      memlens history billing-service
      memlens history 1a2b3c4d --json
    """
    with read_memory(db, dataset) as memory:
        found = memory.history(ref)
    emit(as_json, found, lambda: history_text.echo_history(found, full=full))


@click.command()
@click.argument("query")
@click.option("--superseded", "include_superseded", is_flag=True, help="Also search superseded and retracted facts.")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 1000))
@full_option
@dataset_options
def recall(query, include_superseded, limit, full, db, dataset, as_json):
    """Answer a question in plain words: the facts that hold its words (stems too: "owns" finds
    owned_by), best first, then the facts of the entities it names or describes; each says why.
    Superseded and retracted facts only with --superseded. The MCP tool `recall` answers the same.

    \b
    Example:
      memlens recall 'who owns the billing service'
    """
    with read_memory(db, dataset) as memory:
        found = memory.recall(query, include_superseded=include_superseded, limit=limit)

    def text() -> None:
        if "note" in found:
            click.echo(click.style(printable(found["note"]), fg="yellow"))
        for entity in found["entities"]:
            click.echo(entity_line(entity))
        if not found["facts"]:
            click.echo("no facts")
        times, width = fact_times(found["facts"]), terminal_width()
        for fact in found["facts"]:
            line, *description = fact_line(fact, times=times, full=full, width=width).split("\n")
            click.echo("\n".join([line + click.style(f"  ← {printable(fact['why'])}", dim=True), *description]))

    emit(as_json, found, text)


@click.command()
@dataset_options
def stats(db, dataset, as_json):
    """Counts of entities (merged ones apart, and the observations another tool keeps on them),
    facts by status (archived ones among the current), contradictions, dismissals and ledger rows.

    \b
    Example:
      memlens stats --json
    """
    with read_memory(db, dataset) as memory:
        counts = dict(memory.stats(), **memory.state_counts(), dataset=memory.name, path=str(memory.path),
                      hash=memory.content_hash())
    emit(as_json, counts, stats_line(counts))


@click.command("datasets")
@dataset_options
def datasets_command(db, dataset, as_json):
    """List the datasets under $MEMLENS_HOME (default ~/.memlens) with their counts.

    \b
    Example:
      memlens datasets
    """
    rows = []
    for path in datasets.listed():
        try:
            with Memory(path, readonly=True) as memory:
                rows.append(dict(name=memory.name, path=str(path), **memory.stats()))
        except (StoreUnreadable, sqlite3.DatabaseError) as exc:  # one bad file must not hide the others
            rows.append(dict(name=datasets.name_of(path), path=str(path), error=str(exc)))
    current = datasets.project_name()

    def text() -> None:
        if not rows:
            click.echo(f"no datasets in {datasets.home()}")
        for row in rows:
            mark = "*" if row["name"] == current else " "
            name = printable(row["name"])
            if "error" in row:
                click.echo(f"{mark} {name:<32} unreadable: {printable(row['error'])}")
            else:
                click.echo(f"{mark} {name:<32} {plural(row['entities'], 'entity', 'entities'):>16}  "
                           f"{plural(row['facts'], 'fact'):>14}")

    emit(as_json, rows, text)


@click.command()
@click.option("-q", "--quiet", is_flag=True, help="Print nothing unless something fails (for hooks).")
@click.option("--if-exists", "if_exists", is_flag=True,
              help="Do nothing, successfully, where the dataset has no store yet (a host's session-end hook "
                   "in a project that has no memory).")
@click.option("--repo", "repository", type=click.Path(file_okay=False, exists=True),
              help="The git work tree the evidence points into (default: this folder, for its project's dataset).")
@dataset_options
@actor_option
def maintain(quiet, if_exists, repository, db, dataset, as_json, actor):
    """Show the maintenance worklist, then run the after-maintenance hooks.

    The worklist holds hotspots (several current values of a relation that holds one per subject:
    declared functional, replaced before, or named like owned_by, version, status), open
    contradictions, names that may be one entity, relations written more than one way, facts whose
    evidence points into the repository at a file gone or at lines git says changed after the fact
    was recorded (in the project's folder, or with --repo), and facts without evidence, minus what
    was dismissed.
    It decides nothing, and ends with the next command to run. A failing hook is reported and makes the exit status 1; it never undoes
    maintenance.

    \b
    Examples:
      memlens maintain
      memlens maintain --quiet --if-exists    # as run by a host's session-end hook
    """
    if if_exists and not os.path.lexists(datasets.resolve(db, dataset)):
        return
    with open_memory(db, dataset, actor, must_exist=True) as memory:
        if repository is not None:
            memory.repository = Path(repository)
        candidates, results = memory.maintain()
        evidence_note = memory.evidence_note
        # what the first task's sentence and commands name: its refs are ids
        wanted = sorted({ref for c in candidates[:1] for ref in c.refs})
        names = dict(memory.conn.execute(
            f"SELECT id, name FROM entities WHERE id IN ({','.join('?' * len(wanted))})", wanted).fetchall())
        facts = {fid: (f["subject_name"], f["relation"], f["object_name"]) for fid, f in memory.facts_by_id(wanted).items()}
        flag = flag_for(memory.path)
    data = {"worklist": [c.as_dict() for c in candidates], "hooks": [r.as_dict() for r in results]}
    if evidence_note:
        data["evidence_note"] = evidence_note

    def text() -> None:
        echo_candidates(data["worklist"])
        if evidence_note:
            note(printable(evidence_note))
        for result in results:
            if result.ok and not result.message:   # a hook that had nothing to do says nothing
                continue
            note(printable(f"hook {result.name}: {'ok' if result.ok else 'FAILED'}: {result.message}"))
        for line in next_command(data["worklist"], names.get, facts.get, flag).splitlines():   # what to run now
            note(printable(line))

    if quiet:
        for result in results:
            if not result.ok:
                note(printable(f"hook {result.name}: FAILED: {result.message}"))
    else:
        emit(as_json, data, text)
    failed = [r.name for r in results if not r.ok]
    if failed:
        raise click.ClickException(f"after-maintenance hook(s) failed: {', '.join(failed)}")


COMMANDS = [facts, history, recall, stats, datasets_command, maintain]
