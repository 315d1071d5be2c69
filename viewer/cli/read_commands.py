"""Commands that read: facts, history, recall, stats, datasets, maintain."""
from __future__ import annotations

import sqlite3

import click

from memlens.store import datasets
from memlens.store.errors import StoreUnreadable
from memlens.store.memory import Memory

from .formatting import echo_candidates, echo_facts, fact_line, stats_line
from .options import actor_option, dataset_options, emit, note, open_memory, read_memory


@click.command()
@click.option("--all", "include_all", is_flag=True, help="Include superseded, retracted and forgotten facts.")
@click.option("--as-of-record", metavar="TIME", help="As the store believed it at TIME (ISO date or datetime).")
@click.option("--as-of-valid", metavar="DATE", help="What was true in the world on DATE (history included).")
@dataset_options
def facts(include_all, as_of_record, as_of_valid, db, dataset, as_json):
    """List facts: current ones by default.

    \b
    Examples:
      memlens facts
      memlens facts --all --json
      memlens facts --as-of-record 2026-02-01     # what the store believed then
      memlens facts --as-of-valid 2025-06-01      # what was true in the world then
    """
    with read_memory(db, dataset) as memory:
        found = memory.facts(include_all=include_all, as_of_record=as_of_record, as_of_valid=as_of_valid)
    emit(as_json, found, lambda: echo_facts(found))


@click.command()
@click.argument("ref")
@dataset_options
def history(ref, db, dataset, as_json):
    """The history of an entity (by name) or of a fact (by id): versions and ledger rows.

    \b
    Examples:
      memlens history billing-service
      memlens history 1a2b3c4d --json
    """
    with read_memory(db, dataset) as memory:
        found = memory.history(ref)
    emit(as_json, found, lambda: _echo_history(found))


def _echo_history(found: dict) -> None:
    if "entity" in found:
        entity = found["entity"]
        click.echo(click.style(f"{entity['name']} ({entity['type']})", bold=True) + f"  {entity['description']}")
        for fact in found["facts"]:
            click.echo(fact_line(fact))
            _echo_versions(fact["history"])
    else:
        click.echo(fact_line(found["fact"]))
        _echo_versions(found["history"])
    click.echo(click.style("ledger:", bold=True))
    for row in found["ledger"]:
        click.echo(f"  {row['seq']:>6}  {row['at']}  {row['actor']:<20} {row['action']:<10} {row['kind']}")


def _echo_versions(versions: list[dict]) -> None:
    for version in versions:
        until = version["retired_at"] or "now"
        status = version["status"]
        if version["superseded_by"]:
            status += f" by {version['superseded_by'][:8]}"
        why = f"  ({version['reason']})" if version["reason"] else ""
        click.echo(click.style(f"    {version['recorded_at']} → {until}: {status}{why}", dim=True))


@click.command()
@click.argument("query")
@click.option("--superseded", "include_superseded", is_flag=True, help="Also search superseded and retracted facts.")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 1000))
@dataset_options
def recall(query, include_superseded, limit, db, dataset, as_json):
    """Search facts and entities (full text). Superseded facts only with --superseded.

    \b
    Example:
      memlens recall 'billing owner'
    """
    with read_memory(db, dataset) as memory:
        found = memory.recall(query, include_superseded=include_superseded, limit=limit)

    def text() -> None:
        for entity in found["entities"]:
            click.echo(click.style(f"{entity['name']} ({entity['type']})", bold=True) + f"  {entity['description']}")
        echo_facts(found["facts"])

    emit(as_json, found, text)


@click.command()
@dataset_options
def stats(db, dataset, as_json):
    """Counts of entities, facts by status, contradictions, dismissals and ledger rows.

    \b
    Example:
      memlens stats --json
    """
    with read_memory(db, dataset) as memory:
        counts = dict(memory.stats(), dataset=memory.name, path=str(memory.path), hash=memory.content_hash())
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
            if "error" in row:
                click.echo(f"{mark} {row['name']:<32} unreadable: {row['error']}")
            else:
                click.echo(f"{mark} {row['name']:<32} {row['entities']:>7} entities {row['facts']:>8} facts")

    emit(as_json, rows, text)


@click.command()
@click.option("-q", "--quiet", is_flag=True, help="Print nothing unless something fails (for hooks).")
@dataset_options
@actor_option
def maintain(quiet, db, dataset, as_json, actor):
    """Show the maintenance worklist, then run the after-maintenance hooks.

    The worklist holds hotspots (several current values for one subject and relation), open
    contradictions, near-duplicate names and facts without evidence, minus what was dismissed.
    It decides nothing. A failing hook is reported and makes the exit status 1; it never undoes
    maintenance.

    \b
    Examples:
      memlens maintain
      memlens maintain --quiet     # as run by a host's session-end hook
    """
    with open_memory(db, dataset, actor, must_exist=True) as memory:
        candidates, results = memory.maintain()
    data = {"worklist": [c.as_dict() for c in candidates], "hooks": [r.as_dict() for r in results]}

    def text() -> None:
        echo_candidates(data["worklist"])
        for result in results:
            note(f"hook {result.name}: {'ok' if result.ok else 'FAILED'}: {result.message}")

    if quiet:
        for result in results:
            if not result.ok:
                note(f"hook {result.name}: FAILED: {result.message}")
    else:
        emit(as_json, data, text)
    failed = [r.name for r in results if not r.ok]
    if failed:
        raise click.ClickException(f"after-maintenance hook(s) failed: {', '.join(failed)}")


COMMANDS = [facts, history, recall, stats, datasets_command, maintain]
