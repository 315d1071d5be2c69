"""Text forms of facts, candidates and stats for people at a terminal."""
from __future__ import annotations

import click

from memlens.store.ids import short

_STATUS_COLOURS = {"current": "green", "superseded": "yellow", "retracted": "red", "forgotten": "magenta"}


def fact_line(fact: dict) -> str:
    if fact["relation"] is None:
        return f"{click.style(short(fact['id']), dim=True)}  [forgotten: its text was erased]"
    parts = [
        click.style(short(fact["id"]), dim=True),
        f"{fact['subject_name']} --{fact['relation']}--> {fact['object_name']}",
    ]
    if fact["status"] != "current":
        status = fact["status"]
        if fact.get("superseded_by"):
            status += f" by {short(fact['superseded_by'])}"
        parts.append(click.style(f"[{status}]", fg=_STATUS_COLOURS[fact["status"]]))
    if fact.get("contested"):
        parts.append(click.style("[contested]", fg="red", bold=True))
    if fact.get("valid_from") or fact.get("valid_to"):
        parts.append(f"valid {fact.get('valid_from') or '…'} → {fact.get('valid_to') or 'now'}")
    line = "  ".join(parts)
    if fact.get("evidence"):
        line += click.style(f"  ({'; '.join(fact['evidence'])})", dim=True)
    return line


def echo_facts(facts: list[dict]) -> None:
    if not facts:
        click.echo("no facts")
    for fact in facts:
        click.echo(fact_line(fact))


def echo_candidates(candidates: list[dict]) -> None:
    if not candidates:
        click.echo("nothing to review")
    for candidate in candidates:
        click.echo(f"{click.style(candidate['key'], bold=True)}  {candidate['summary']}")


def stats_line(stats: dict) -> str:
    return (
        f"{stats['entities']} entities, {stats['facts']} facts ({stats['current']} current, "
        f"{stats['superseded']} superseded, {stats['retracted']} retracted, {stats['forgotten']} forgotten), "
        f"{stats['contested']} contested, {stats['open_contradictions']} open contradictions, "
        f"{stats['dismissals']} dismissals, {stats['ledger']} ledger rows"
    )
