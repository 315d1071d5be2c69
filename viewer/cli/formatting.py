"""Text forms of facts, candidates and stats for people at a terminal.

Stored text comes from transcripts and other tools and may be hostile: every piece of it goes
through `printable` before it reaches a terminal, so no escape sequence in it is ever run.
"""
from __future__ import annotations

import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass

import click

from memlens.store.ids import short
from memlens.store.observations import is_observation
from memlens.viewer.model.fact_status import shown_status

_STATUS_COLOURS = {"current": "green", "superseded": "yellow", "retracted": "red", "forgotten": "magenta",
                   "candidate": "cyan"}

# C0 and C1 controls, DEL, the Unicode line and paragraph separators, and the marks that reorder
# text right to left (which can make a line read as something else than what it holds).
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")

# Without a terminal to measure (a pipe, a file), a description is cut at this many columns.
DEFAULT_WIDTH = 100
DESCRIPTION_INDENT = "    "


def printable(text: object) -> str:
    """Stored text as a terminal may show it: every control character written as its escape
    (`\\x1b`, `\\n`, `\\u2028`), so no escape sequence in it reaches the terminal."""
    return _CONTROLS.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), str(text))


def terminal_width() -> int:
    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns


def cut(text: str, width: int) -> str:
    """`text` in at most `width` characters, an ellipsis ending what was cut."""
    return text if len(text) <= width else text[:max(width - 1, 0)].rstrip() + "…"


@dataclass(frozen=True)
class Times:
    """How one command's output shows times: to the minute, or to the second where two of the
    times it shows fall in the same minute (so their order stays visible); dates stay dates."""

    seconds: bool = False

    @classmethod
    def of(cls, times: Iterable[str | None]) -> "Times":
        seen: dict[str, str] = {}
        for time in times:
            if time and len(time) > 10 and seen.setdefault(time[:16], time[:19]) != time[:19]:
                return cls(seconds=True)
        return cls()

    def __call__(self, time: str | None) -> str:
        if not time or len(time) <= 10:
            return printable(time or "")
        return printable(f"{time[:10]} {time[11:19 if self.seconds else 16]}")


def fact_times(facts: Iterable[dict]) -> Times:
    return Times.of(t for fact in facts for t in (fact.get("valid_from"), fact.get("valid_to")))


def fact_line(fact: dict, *, times: Times | None = None, full: bool = False, width: int | None = None) -> str:
    """The fact on one line (id, triple, state, validity, evidence), and under it what it says:
    its description, cut to the terminal's width unless `full`."""
    if fact["relation"] is None:
        return f"{click.style(short(fact['id']), dim=True)}  [forgotten: its text was erased]"
    times = times or fact_times([fact])
    parts = [
        click.style(short(fact["id"]), dim=True),
        printable(f"{fact['subject_name']} --{fact['relation']}--> {fact['object_name']}"),
    ]
    if fact["status"] != "current":
        shown = shown_status(fact)
        status = "candidate awaiting review" if shown == "candidate" else shown
        if fact.get("superseded_by"):
            status += f" by {short(fact['superseded_by'])}"
        parts.append(click.style(f"[{status}]", fg=_STATUS_COLOURS[shown]))
    elif fact.get("reason"):  # a current fact's state has a reason: archived, imported as ..., restored
        parts.append(click.style(f"[{printable(fact['reason'])}]", fg="cyan"))
    if fact.get("contested"):
        parts.append(click.style("[contested]", fg="red", bold=True))
    if fact.get("valid_from") or fact.get("valid_to"):
        parts.append(f"valid {times(fact.get('valid_from')) or '…'} → {times(fact.get('valid_to')) or 'now'}")
    line = "  ".join(parts)
    if fact.get("evidence"):
        line += click.style(f"  ({printable('; '.join(fact['evidence']))})", dim=True)
    description = description_lines(fact.get("description") or "", full=full, width=width)
    return "\n".join([line, *description])


def description_lines(description: str, *, full: bool = False, width: int | None = None) -> list[str]:
    """A description as the lines under its fact: the first line cut to the width, or (`full`) all
    of it, line by line."""
    lines = [printable(line) for line in description.strip().splitlines() if line.strip()]
    if not lines:
        return []
    if full:
        return [DESCRIPTION_INDENT + line for line in lines]
    room = (width or terminal_width()) - len(DESCRIPTION_INDENT)
    first = lines[0] + (" …" if len(lines) > 1 else "")
    return [DESCRIPTION_INDENT + cut(first, room)]


def echo_facts(facts: list[dict], *, full: bool = False) -> None:
    if not facts:
        click.echo("no facts")
    times, width = fact_times(facts), terminal_width()
    for fact in facts:
        click.echo(fact_line(fact, times=times, full=full, width=width))


def entity_line(entity: dict) -> str:
    head = click.style(printable(f"{entity['name']} ({entity['type']})"), bold=True)
    return head + (f"  {printable(entity['description'])}" if entity.get("description") else "")


def echo_candidates(candidates: list[dict]) -> None:
    if not candidates:
        click.echo("nothing to review")
    for candidate in candidates:
        click.echo(f"{click.style(printable(candidate['key']), bold=True)}  {printable(candidate['summary'])}")


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count:,} {word if count == 1 else many or word + 's'}"


def entity_count(live: int, merged: int, observations: int = 0) -> str:
    """Entities as every command counts them: the live ones, and those merged into them apart; the
    observations another tool keeps on them (store/observations.py), which are no entities, apart too."""
    counted = plural(live, "entity", "entities")
    observed = f" with {plural(observations, 'observation')}" if observations else ""
    return counted + observed + (f" ({merged:,} more merged into them)" if merged else "")


def stats_line(stats: dict) -> str:
    archived = f" ({stats['archived']:,} archived)" if stats.get("archived") else ""  # archived ones are current
    return (
        f"{entity_count(stats['entities'], stats.get('merged', 0), stats.get('observations', 0))}, "
        f"{plural(stats['facts'], 'fact')} "
        f"({stats['current']:,} current{archived}, {stats['superseded']:,} superseded, "
        f"{stats['retracted']:,} retracted, {stats['forgotten']:,} forgotten), {stats['contested']:,} contested, "
        f"{plural(stats['open_contradictions'], 'open contradiction')}, {plural(stats['dismissals'], 'dismissal')}, "
        f"{plural(stats['ledger'], 'ledger row')}"
    )


# what a merge changed and what it kept, as the merge counts them (store/bundle_merge.py)
_MERGED = (("entities_added", "entity", "entities", "added"), ("entities_described", "entity", "entities", "described"),
           ("entities_merged", "entity merge", None, "made"), ("facts_added", "fact", None, "added"),
           ("facts_judged", "later judgement", None, "taken"),
           ("facts_with_more_evidence", "fact", None, "with more evidence"),
           ("facts_described", "fact", None, "described"), ("facts_carried", "fact", None, "carried to a merged entity"),
           ("facts_ordered", "value", None, "ordered by valid time"),
           ("contradictions_added", "contradiction", None, "brought"),
           ("contradictions_opened", "open contradiction", None, "for a person"),
           ("contradictions_resolved", "contradiction", None, "resolved"),
           ("dismissals_added", "dismissal", None, "brought"), ("types_added", "type", None, "added"),
           ("relations_added", "relation", None, "added"),
           ("relations_made_functional", "relation", None, "made functional"))
_KEPT = (("facts_yours_only", "{} of your facts they do not hold: kept"),
         ("facts_yours_judged_later", "{} of your judgements later than theirs: kept"),
         ("facts_kept_forgotten", "{} of their facts you forgot (or that name what you forgot): not brought back"),
         ("entities_kept_forgotten", "{} of their entities you forgot: not brought back"),
         ("descriptions_differ", "{} descriptions they wrote differently: yours kept"),
         ("types_differ", "{} entities they typed differently: your types kept"),
         ("merges_differ", "{} of their entity merges that differ from yours: yours kept"))


def merge_summary(counts: dict) -> str:
    """What a merge changed, in one line; its bundle named by the first digits of its seal."""
    parts = [f"{plural(counts[key], one, many)} {done}" for key, one, many, done in _MERGED if counts[key]]
    return f"{', '.join(parts) or 'nothing changed'} (bundle {counts['bundle'][:15]})"


def merge_kept(counts: dict) -> list[str]:
    """What a merge left as it was, a line each."""
    return [text.format(f"{counts[key]:,}") for key, text in _KEPT if counts[key]]


def import_summary(counts: dict, snapshot: dict) -> str:
    """What an import copied, counted as `memlens stats` counts: merged entities apart."""
    merged = sum(1 for e in snapshot["entities"] if e.get("merged_into") is not None)
    observations = sum(1 for e in snapshot["entities"] if e.get("merged_into") is None and is_observation(e))
    forgotten = f" and {counts['forgotten']:,} forgotten" if counts["forgotten"] else ""
    return (f"{entity_count(counts['entities'] - merged - observations, merged, observations)}, "
            f"{plural(counts['facts'], 'fact')}{forgotten}, "
            f"{plural(counts['contradictions'], 'contradiction')}, {plural(counts['dismissals'], 'dismissal')}, "
            f"{plural(counts['types_added'], 'type')} added, {plural(counts['source_ledger'], 'row')} of its history")
