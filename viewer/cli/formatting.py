"""Text forms of facts, candidates and stats for people at a terminal."""
from __future__ import annotations

import click

from memlens.store.ids import short
from memlens.viewer.model.fact_status import shown_status

_STATUS_COLOURS = {"current": "green", "superseded": "yellow", "retracted": "red", "forgotten": "magenta",
                   "candidate": "cyan"}


def fact_line(fact: dict) -> str:
    if fact["relation"] is None:
        return f"{click.style(short(fact['id']), dim=True)}  [forgotten: its text was erased]"
    parts = [
        click.style(short(fact["id"]), dim=True),
        f"{fact['subject_name']} --{fact['relation']}--> {fact['object_name']}",
    ]
    if fact["status"] != "current":
        shown = shown_status(fact)
        status = "candidate awaiting review" if shown == "candidate" else shown
        if fact.get("superseded_by"):
            status += f" by {short(fact['superseded_by'])}"
        parts.append(click.style(f"[{status}]", fg=_STATUS_COLOURS[shown]))
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


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count:,} {word if count == 1 else many or word + 's'}"


def stats_line(stats: dict) -> str:
    return (
        f"{plural(stats['entities'], 'entity', 'entities')}, {plural(stats['facts'], 'fact')} "
        f"({stats['current']:,} current, {stats['superseded']:,} superseded, {stats['retracted']:,} retracted, "
        f"{stats['forgotten']:,} forgotten), {stats['contested']:,} contested, "
        f"{plural(stats['open_contradictions'], 'open contradiction')}, {plural(stats['dismissals'], 'dismissal')}, "
        f"{plural(stats['ledger'], 'ledger row')}"
    )


def import_summary(counts: dict, snapshot: dict) -> str:
    """What an import copied, counted as `memlens stats` counts: merged entities apart."""
    merged = sum(1 for e in snapshot["entities"] if e.get("merged_into") is not None)
    entities = plural(counts["entities"] - merged, "entity", "entities")
    if merged:
        entities += f" ({merged:,} more merged into them)"
    forgotten = f" and {counts['forgotten']:,} forgotten" if counts["forgotten"] else ""
    return (f"{entities}, {plural(counts['facts'], 'fact')}{forgotten}, "
            f"{plural(counts['contradictions'], 'contradiction')}, {plural(counts['dismissals'], 'dismissal')}, "
            f"{plural(counts['types_added'], 'type')} added, {plural(counts['source_ledger'], 'row')} of its history")
