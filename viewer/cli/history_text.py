"""`memlens history` for people: the facts with their versions, then the ledger as a labelled table
naming what each row touched."""
from __future__ import annotations

import click

from memlens.store.ids import short

from .formatting import Times, entity_line, fact_line, printable, terminal_width


def echo_history(found: dict, *, full: bool = False) -> None:
    facts = found["facts"] if "entity" in found else [dict(found["fact"], history=found["history"])]
    times = Times.of(_times_shown(facts, found["ledger"]))
    width = terminal_width()
    if "entity" in found:
        click.echo(entity_line(found["entity"]))
        if found["merged"]:
            click.echo(f"  (with {len(found['merged']):,} merged into it)")
        click.echo(click.style(f"facts ({len(facts):,}):", bold=True) if facts else "no facts")
    for fact in facts:
        click.echo(fact_line(fact, times=times, full=full, width=width))
        _echo_versions(fact["history"], times)
    _echo_ledger(found, facts, times)


def _times_shown(facts: list[dict], ledger: list[dict]) -> list[str | None]:
    shown = [row["at"] for row in ledger]
    for fact in facts:
        shown += [fact.get("valid_from"), fact.get("valid_to")]
        shown += [t for version in fact["history"] for t in (version["recorded_at"], version["retired_at"])]
    return shown


def _echo_versions(versions: list[dict], times: Times) -> None:
    if len(versions) == 1 and versions[0]["status"] == "current" and not versions[0]["reason"]:
        click.echo(click.style(f"    recorded {times(versions[0]['recorded_at'])}", dim=True))
        return
    before = None
    for version in versions:
        status = version["status"]
        if version["superseded_by"]:
            status += f" by {short(version['superseded_by'])}"
        why = f" ({printable(version['reason'])})" if version["reason"] else ""
        held = f"{times(version['recorded_at'])} → {times(version['retired_at']) or 'now'}"
        click.echo(click.style(f"    {held}: {status}{why}{_validity_change(before, version, times)}", dim=True))
        before = version


def _validity_change(before: dict | None, version: dict, times: Times) -> str:
    """What a version says of valid time that the one before did not: a reassertion with other
    dates is a second "current" version, which without this would read as the first again."""
    def valid(v: dict) -> str:
        return f"{times(v['valid_from']) or '…'} → {times(v['valid_to']) or 'now'}"

    if version["valid_from"] is None and version["valid_to"] is None and before is None:
        return ""
    if before is None:
        return f", valid {valid(version)}"
    if (before["valid_from"], before["valid_to"]) == (version["valid_from"], version["valid_to"]):
        return ""
    return f", valid {valid(version)} (was {valid(before)})"


def _echo_ledger(found: dict, facts: list[dict], times: Times) -> None:
    """The ledger rows as a table; times are UTC, as the store keeps them."""
    rows = found["ledger"]
    if not rows:
        click.echo("no ledger rows")
        return
    names = _names(found, facts)
    at_width = max(len(times(row["at"])) for row in rows)
    actor_width = min(max(len("actor"), *(len(printable(row["actor"])) for row in rows)), 24)
    seq_width = max(len("seq"), *(len(str(row["seq"])) for row in rows))
    click.echo(click.style(f"ledger ({len(rows):,} rows):", bold=True))
    click.echo(click.style(f"  {'seq':>{seq_width}}  {'at (UTC)':<{at_width}}  {'actor':<{actor_width}}  "
                           f"{'action':<10}  touched", dim=True))
    for row in rows:
        touched = ", ".join(_touched(ref, names) for ref in _what_it_touched(row, names)) or printable(row["kind"])
        click.echo(f"  {row['seq']:>{seq_width}}  {times(row['at']):<{at_width}}  "
                   f"{printable(row['actor']):<{actor_width}}  {printable(row['action']):<10}  {touched}")


def _names(found: dict, facts: list[dict]) -> dict[str, str]:
    """How the table names each id it may meet: a fact by its triple, an entity by its name."""
    names = {}
    if "entity" in found:
        names[found["entity"]["id"]] = f"entity {found['entity']['name']}"
        for alias in found["merged"]:
            names[alias] = f"entity {short(alias)} (merged into {found['entity']['name']})"
    for fact in facts:
        if fact["relation"] is None:
            names[fact["id"]] = f"fact {short(fact['id'])} (forgotten)"
        else:
            names[fact["id"]] = (f"fact {short(fact['id'])} {fact['subject_name']} --{fact['relation']}--> "
                                 f"{fact['object_name']}")
            names.setdefault(fact["subject"], f"entity {fact['subject_name']}")
            names.setdefault(fact["object"], f"entity {fact['object_name']}")
    return names


def _what_it_touched(row: dict, names: dict[str, str]) -> list[str]:
    """A row's facts where it names any (an assert names its fact's ends too), else all it names."""
    if row["kind"] != "fact":
        return row["refs"]
    return [ref for ref in row["refs"] if not names.get(ref, "").startswith("entity ")] or row["refs"]


def _touched(ref: str, names: dict[str, str]) -> str:
    return printable(names.get(ref, short(ref)))
