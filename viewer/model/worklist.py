"""The maintenance worklist and the dismissals, grouped by kind with exact counts.

A memory without evidence has a worklist of 30,000 rows; what a page shows of it is one group per
kind, its count said in words, and its first rows; the rest is paged in (the report) or on pages of
their own (the site).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable

from .printed_commands import flag_words, shell_quoted

# The store's order (store/maintenance.py); a kind it adds later comes after these, by name.
KIND_ORDER = ("hotspot", "contradiction", "duplicate", "similar", "relation", "stale", "unsupported")
_OPEN_TITLES = {
    "hotspot": ("subject has several current values for one relation",
                "subjects have several current values for one relation"),
    "contradiction": ("open contradiction", "open contradictions"),
    "duplicate": ("group of names may be one entity", "groups of names may be one entity"),
    "similar": ("pair of names may be one entity", "pairs of names may be one entity"),
    "relation": ("relation is written more than one way", "relations are written more than one way"),
    "stale": ("fact's evidence changed since it was recorded", "facts' evidence changed since they were recorded"),
    "unsupported": ("fact has no evidence", "facts have no evidence"),
}


@dataclass(frozen=True)
class KindGroup:
    kind: str
    title: str                  # "30,000 facts have no evidence"
    rows: list[dict[str, Any]]  # every row of this kind, in the store's order

    @property
    def count(self) -> int:
        return len(self.rows)


def _counted(count: int, one: str, many: str) -> str:
    return f"{count:,} {one if count == 1 else many}"


def open_title(kind: str, count: int) -> str:
    one, many = _OPEN_TITLES.get(kind, (f"{kind} candidate", f"{kind} candidates"))
    return _counted(count, one, many)


def dismissed_title(kind: str, count: int) -> str:
    return _counted(count, f"{kind} candidate dismissed", f"{kind} candidates dismissed")


def _by_kind(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(str(row.get("kind")), []).append(row)
    order = {kind: i for i, kind in enumerate(KIND_ORDER)}
    return dict(sorted(groups.items(), key=lambda item: (order.get(item[0], len(order)), item[0])))


def worklist_groups(snapshot: dict[str, Any]) -> list[KindGroup]:
    return [KindGroup(kind, open_title(kind, len(rows)), rows)
            for kind, rows in _by_kind(snapshot.get("maintenance") or []).items()]


def dismissal_groups(snapshot: dict[str, Any]) -> list[KindGroup]:
    return [KindGroup(kind, dismissed_title(kind, len(rows)), rows)
            for kind, rows in _by_kind(snapshot.get("dismissals") or []).items()]


# -- a worklist row as a task: a plain sentence and the commands that settle it ----------------------
# static/maintenance.js says the same for the rows the report pages in; tests hold one to the other.
REASON = "'...'"   # the reader writes the reason in: the rest of each command is exact


@dataclass(frozen=True)
class Task:
    sentence: str
    commands: tuple[tuple[str, str], ...]   # (when to run it, the command): act first, dismiss last


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


# the store's summary of a contradiction; snapshots before "confidence" was written say "(0.70)"
_CONTRADICTION = re.compile(r"^\S+ vs \S+ \((?:confidence )?([0-9.]+)\): (.*)$", re.DOTALL)
_WHY = re.compile(r"\(([^()]*)\)$")


def task_of(row: dict[str, Any], entity_name: Callable[[str], str],
            fact_words: Callable[[str], tuple[str, str, str] | None], flag: Sequence[str] = ()) -> Task:
    """`entity_name(id)`: its name; `fact_words(id)`: its (subject, relation, object), None if
    forgotten; `flag`: the dataset's (`dataset_flag`), which every command carries, so it runs
    as printed from any folder."""
    kind, key, refs = str(row.get("kind")), str(row.get("key")), [str(r) for r in row.get("refs") or []]
    summary = str(row.get("summary") or "")
    def run(command: str) -> str:
        return f"memlens {command}{flag_words(flag)}"

    dismiss = run(f"dismiss {shell_quoted(key)} --reason {REASON}")

    def said(fact_id: str) -> str:
        words = fact_words(fact_id)
        return " ".join(words) if words else "a forgotten fact"

    if kind == "hotspot" and len(refs) >= 3:
        relation = key.split(":", 2)[2] if key.count(":") >= 2 else "?"
        values = [(fact_words(f) or ("", "", "(forgotten)"))[2] for f in refs[1:]]
        sentence = f"{entity_name(refs[0])} has {len(values)} current {relation} values at once: {_listed(values)}."
        return Task(sentence, ((f"{values[1]} replaced {values[0]}", run(f"supersede {refs[1][:8]} {refs[2][:8]} --reason {REASON}")),
                               ("all of them hold", dismiss)))
    if kind == "contradiction" and len(refs) >= 3:
        found = _CONTRADICTION.match(summary)
        confidence, reason = (found[1], found[2]) if found else ("?", summary)
        sentence = f"\u201c{said(refs[1])}\u201d and \u201c{said(refs[2])}\u201d cannot both hold (confidence {confidence}): {reason}"
        return Task(sentence, (("the second holds", run(f"supersede {refs[1][:8]} {refs[2][:8]} --reason {REASON}")),
                               ("the first holds", run(f"supersede {refs[2][:8]} {refs[1][:8]} --reason {REASON}")),
                               ("both hold", dismiss)))
    if kind == "duplicate" and len(refs) >= 2:
        names = [entity_name(r) for r in refs]
        return Task(f"{_listed(names)} may be one entity.",
                    ((f"they are one: keep {names[0]}", run(f"merge {shell_quoted(names[0])} {shell_quoted(names[1])}")),
                     ("they differ", dismiss)))
    if kind == "similar" and len(refs) >= 2:
        first, second = entity_name(refs[0]), entity_name(refs[1])
        why = _WHY.search(summary)
        return Task(f"{first} and {second} may be one entity{f' ({why[1]})' if why else ''}.",
                    ((f"they are one: keep {first}", run(f"merge {shell_quoted(first)} {shell_quoted(second)}")),
                     (f"they are one: keep {second}", run(f"merge {shell_quoted(second)} {shell_quoted(first)}")),
                     ("they differ", dismiss)))
    if kind == "relation":
        relation = key.split(":", 1)[1] if ":" in key else "?"
        return Task(f"{summary}: each spelling is a relation of its own to queries and to the order of values; "
                    f"every write now stores {relation}.", (("they may stay as they are", dismiss),))
    if kind == "stale" and refs:
        cited = summary.split(": ", 1)[1] if ": " in summary else summary
        return Task(f"\u201c{said(refs[0])}\u201d: evidence changed since recorded: {cited}.",
                    (("it no longer holds", run(f"retract {refs[0][:8]} --reason {REASON}")), ("it still holds", dismiss)))
    if kind == "unsupported" and refs:
        return Task(f"\u201c{said(refs[0])}\u201d has no evidence: nobody can check where it came from.",
                    (("it is wrong", run(f"retract {refs[0][:8]} --reason {REASON}")), ("it is right", dismiss)))
    return Task(summary, (("it is fine", dismiss),))


def next_command(worklist: list[dict[str, Any]], entity_name: Callable[[str], str],
                 fact_words: Callable[[str], tuple[str, str, str] | None], flag: Sequence[str] = ()) -> str:
    """The command to run after reading the worklist: the first task's first answer, and how to
    dismiss it; with nothing to review, the report to look at."""
    if not worklist:
        return f"next: memlens view{flag_words(flag)}    (nothing to review)"
    commands = task_of(worklist[0], entity_name, fact_words, flag).commands
    (when, command), (other, dismiss) = commands[0], commands[-1]
    if len(commands) == 1:
        return f"next: {command}"
    return f"if {other}: {dismiss}\nnext, if {when}: {command}"
