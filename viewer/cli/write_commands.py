"""Commands that write: each is one transaction with its ledger rows."""
from __future__ import annotations

import sys
from collections import Counter

import click

from memlens.store import datasets, ontology
from memlens.store.datasets import flag_for
from memlens.store.errors import NearMiss
from memlens.store.ids import short
from memlens.store.triples import parse_jsonl, parse_triple

from ..model.printed_commands import flag_words
from .formatting import fact_line, plural
from .options import (actor_option, dataset_group, dataset_options, emit, json_option, note, open_memory,
                      read_memory)
from .progress import Progress


@click.command()
@click.argument("facts", nargs=-1)
@click.option("--stdin", "from_stdin", is_flag=True, help="Read JSON Lines from standard input, one fact a line.")
@click.option("--valid-from", help="When it became true in the world (ISO date).")
@click.option("--valid-to", help="When it stopped being true (ISO date).")
@click.option("-e", "--evidence", multiple=True, help="Where it comes from: repo://path#L1-L9, a URL, 'user said ...'.")
@click.option("--desc", "description", default="", help="A description of the fact.")
@click.option("--override", is_flag=True, help="Assert a forgotten fact or entity again, on purpose.")
@click.option("--new", "new", is_flag=True,
              help="Create the new entities named even where a name is close to an existing one's.")
@click.option("-v", "--verbose", is_flag=True, help="With --stdin, list every fact, not only the counts.")
@dataset_options
@actor_option
def remember(facts, from_stdin, valid_from, valid_to, evidence, description, override, new, verbose, db, dataset,
             as_json, actor):
    """Remember facts: 'subject:Type --relation--> object:Type'.

    Types are needed only for entities that are new. A name is found as it is written, then
    whatever its case and separators; a new name close to an existing one (a first name, a
    misspelling) is refused, naming it, unless --new. Relations are stored in snake case
    ('owned by' is owned_by). Several facts may be given at once; they are written together or not at all. Facts given as arguments are listed one a line; a --stdin batch
    is summed up by outcome (--verbose lists each fact, --json gives them all as data).

    \b
    Examples:
      memlens remember 'alice:Person --works_at--> acme:Organization' \\
          --valid-from 2025-01-01 -e 'user said 2025-01-02'
      echo '{"subject": "alice", "relation": "knows", "object": "bob", "object_type": "Person"}' \\
          | memlens remember --stdin
    """
    if from_stdin and facts:
        raise click.UsageError("give facts as arguments or with --stdin, not both")
    if not from_stdin and not facts:
        raise click.UsageError("give at least one fact, e.g. 'alice:Person --works_at--> acme:Organization'")
    if from_stdin:
        if valid_from or valid_to or evidence or description:
            raise click.UsageError("with --stdin, put valid_from, evidence, ... in each JSON line")
        items = parse_jsonl(sys.stdin.buffer)  # bytes: a line that is not UTF-8 is refused by number
    else:
        items = [
            parse_triple(text, description=description, evidence=tuple(evidence), valid_from=valid_from, valid_to=valid_to)
            for text in facts
        ]
    with open_memory(db, dataset, actor) as memory, Progress(len(items), enabled=not as_json) as progress:
        progress.stage(f"remembering {len(items)} facts")
        try:
            outcomes = memory.remember(items, override_forgotten=override, new=new, each=lambda _: progress.advance())
        except NearMiss as refused:
            raise refused.insisting(f"add --new to create {refused.name!r} anyway") from None
        listed = as_json or verbose or not from_stdin
        views = memory.facts_by_id([o.fact_id for o in outcomes]) if listed else {}

    def each_fact() -> None:
        for outcome in outcomes:
            click.echo(f"{outcome.outcome}: {fact_line(views[outcome.fact_id])}")
            for old in outcome.superseded:
                click.echo(f"  supersedes {short(old)}")

    def summary() -> None:
        counts = Counter(o.outcome for o in outcomes)
        click.echo(f"remembered {plural(len(outcomes), 'fact')}:")
        for outcome, count in sorted(counts.items(), key=lambda pair: (-pair[1], pair[0])):
            click.echo(f"{count:>12,}  {outcome}")
        superseded = sum(len(o.superseded) for o in outcomes)
        if superseded:
            click.echo(f"{superseded:>12,}  {'earlier value' if superseded == 1 else 'earlier values'} superseded by them")
        click.echo("(--verbose lists each fact; --json gives them as data)")

    data = [dict(o.as_dict(), fact=views[o.fact_id]) for o in outcomes] if as_json else None
    emit(as_json, data, each_fact if listed else summary)


@click.command()
@click.argument("relation")
@dataset_options
@actor_option
def functional(relation, db, dataset, as_json, actor):
    """Declare RELATION functional: one current value per subject.

    A newer value (by valid_from, then arrival) supersedes the old; an older value that arrives
    late is filed as history. Subjects that already hold several values are settled the same way.

    \b
    Example:
      memlens functional works_at
    """
    with open_memory(db, dataset, actor) as memory:
        superseded = memory.declare_functional(relation)
    emit(as_json, {"relation": relation, "superseded": superseded},
         f"{relation} is functional" + (f"; {plural(len(superseded), 'older value')} superseded" if superseded else ""))


@click.command()
@click.argument("old")
@click.argument("new")
@click.option("--reason", required=True, help="Why NEW replaces OLD.")
@dataset_options
@actor_option
def supersede(old, new, reason, db, dataset, as_json, actor):
    """Judge that fact NEW replaces fact OLD (ids or their first 8 characters).

    The judgement holds: asserting OLD again keeps it superseded. Only `restore` brings it back.

    \b
    Example:
      memlens supersede 1a2b3c4d 5e6f7a8b --reason 'PR #433 replaced pytz'
    """
    with open_memory(db, dataset, actor, must_exist=True) as memory:
        old_id, new_id = memory.supersede(old, new, reason)
        view = memory.fact(old_id)
    emit(as_json, {"superseded": old_id, "by": new_id}, lambda: click.echo(fact_line(view)))


@click.command()
@click.argument("fact")
@click.option("--reason", required=True, help="Why it is true again.")
@dataset_options
@actor_option
def restore(fact, reason, db, dataset, as_json, actor):
    """Make a superseded or retracted FACT current again, in its own place in valid time.

    On a functional relation the order places it: it is the present value unless a later one
    began after it. A value that a later one closed, while that one still holds, is refused
    (its time would run over the later one's): retract the later value if it was wrong (this
    one then holds again), or remember this one again with --valid-from for when it came back.

    \b
    Example:
      memlens restore 1a2b3c4d --reason 'the move to zoneinfo was reverted'
    """
    with open_memory(db, dataset, actor, must_exist=True) as memory:
        replaced = memory.restore(fact, reason)
        view = memory.fact(fact)
    emit(as_json, {"restored": view["id"], "status": view["status"], "superseded": replaced},
         lambda: click.echo(fact_line(view)))


@click.command()
@click.argument("fact")
@click.option("--reason", required=True, help="Why the fact was wrong.")
@dataset_options
@actor_option
def retract(fact, reason, db, dataset, as_json, actor):
    """Withdraw FACT as wrong. Unlike `forget`, it stays in the history.

    On a functional relation, the value it had replaced is reopened: it holds again in its place
    in time (up to the next value, if one began after it).

    \b
    Example:
      memlens retract 1a2b3c4d --reason 'never used Kafka'
    """
    with open_memory(db, dataset, actor, must_exist=True) as memory:
        fact_id, reopened = memory.retract(fact, reason)
        view, again = memory.fact(fact_id), [memory.fact(fid) for fid in reopened]

    def say() -> None:
        click.echo(fact_line(view))
        for value in again:
            click.echo(f"reopened: {fact_line(value)}")
    emit(as_json, {"retracted": fact_id, "reopened": reopened}, say)


@click.command()
@click.argument("fact_a")
@click.argument("fact_b")
@click.option("--reason", required=True, help="Why they cannot both be true.")
@click.option("--confidence", type=click.FloatRange(0, 1), default=0.5, show_default=True,
              help="How sure you are that they conflict.")
@dataset_options
@actor_option
def contest(fact_a, fact_b, reason, confidence, db, dataset, as_json, actor):
    """Mark two facts as contradicting each other.

    Both are shown as contested until the pair is resolved: supersede one of them, or dismiss the
    contradiction (`memlens dismiss contradiction:<id>`).

    \b
    Example:
      memlens contest 1a2b3c4d 5e6f7a8b --reason 'README says 8080, compose maps 8443' --confidence 0.7
    """
    with open_memory(db, dataset, actor, must_exist=True) as memory:
        contradiction = memory.contest(fact_a, fact_b, reason, confidence)
    emit(as_json, {"contradiction": contradiction}, f"contested: contradiction:{short(contradiction)}")


@click.command()
@click.argument("key")
@click.option("--reason", required=True, help="Why the candidate is fine as it is.")
@dataset_options
@actor_option
def dismiss(key, reason, db, dataset, as_json, actor):
    """Decline maintenance candidate KEY (as `memlens maintain` lists it).

    The dismissal covers what the candidate holds now: a new value re-opens the question.
    Dismissing a contradiction resolves it.

    \b
    Example:
      memlens dismiss hotspot:1a2b3c4d:depends_on --reason 'billing uses all three'
    """
    with open_memory(db, dataset, actor, must_exist=True) as memory:
        candidate = memory.dismiss(key, reason)
    emit(as_json, candidate.as_dict(), f"dismissed {candidate.key}: {candidate.summary}")


@click.group()
@dataset_group
def forget():
    """Erase a fact or an entity: its text leaves every table, the index and the file's bytes.

    A tombstone remains, so asserting it again is refused unless `remember --override` is given.

    \b
    Examples:
      memlens forget fact 1a2b3c4d
      memlens forget entity 'parental leave'
    """


@forget.command("fact")
@click.argument("fact")
@click.option("--with-orphans", is_flag=True,
              help="Also forget its subject and object if no other fact names them (their names are text too).")
@dataset_options
@actor_option
def forget_fact(fact, with_orphans, db, dataset, as_json, actor):
    """Forget one FACT (id or its first 8 characters).

    An entity that no other fact names keeps its name unless --with-orphans is given; the output
    says which names stay.

    \b
    Examples:
      memlens forget fact 1a2b3c4d
      memlens forget fact 1a2b3c4d --with-orphans
    """
    with open_memory(db, dataset, actor, must_exist=True) as memory:
        done = memory.forget_fact(fact, with_orphans=with_orphans)
        flag = flag_for(memory.path)
    text = f"forgot fact {short(done.fact_id)}"
    if done.holdings:  # the same value's other periods: one statement, forgotten whole
        text += f" and its other {plural(len(done.holdings), 'holding')} ({', '.join(short(i) for i in done.holdings)})"
    if done.orphans and with_orphans:  # a forgotten name is not said again
        text += (f" and {plural(len(done.orphans), 'entity', 'entities')} only it named: "
                 f"{', '.join(short(i) for i, _ in done.orphans)}")
    elif done.orphans:
        names = ", ".join(repr(name) for _, name in done.orphans)
        text += (f"; no fact names these entities any more, and their names stay: {names} "
                 f"(forget them with --with-orphans, or `memlens forget entity NAME{flag_words(flag)}`)")
    emit(as_json, done.as_dict(), text)


@forget.command("entity")
@click.argument("name")
@dataset_options
@actor_option
def forget_entity(name, db, dataset, as_json, actor):
    """Forget entity NAME, the names merged into it and every fact that mentions it.

    \b
    Example:
      memlens forget entity 'parental leave'
    """
    with open_memory(db, dataset, actor, must_exist=True) as memory:
        entity_id, fact_ids = memory.forget_entity(name)
    emit(as_json, {"forgotten": entity_id, "facts": fact_ids},
         f"forgot entity {short(entity_id)} and {plural(len(fact_ids), 'fact')}")


@click.command()
@click.argument("keep")
@click.argument("drop")
@dataset_options
@actor_option
def merge(keep, drop, db, dataset, as_json, actor):
    """Merge entity DROP into KEEP: its facts move to KEEP, its name becomes an alias.

    \b
    Example:
      memlens merge PostgreSQL Postgres
    """
    with open_memory(db, dataset, actor, must_exist=True) as memory:
        moved = memory.merge(keep, drop)
    emit(as_json, {"kept": keep, "dropped": drop, "moved": moved},
         f"merged {drop} into {keep}: {plural(len(moved), 'fact')} moved")


@click.command()
@click.argument("name")
@click.argument("description")
@dataset_options
@actor_option
def describe(name, description, db, dataset, as_json, actor):
    """Set the description of entity NAME.

    \b
    Example:
      memlens describe billing-service 'Invoices merchants monthly'
    """
    with open_memory(db, dataset, actor, must_exist=True) as memory:
        entity_id = memory.describe(name, description)
    emit(as_json, {"entity": entity_id, "description": description}, f"described {name}")


@click.group(invoke_without_command=True)
@json_option
@dataset_group
@click.pass_context
def types(ctx, as_json):
    """The entity types of the dataset's ontology; without a subcommand, lists them.

    \b
    Examples:
      memlens types -d demo
      memlens types add Runbook
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(types_list, as_json=as_json)


@types.command("list")
@dataset_options
def types_list(db, dataset, as_json):
    """List the known entity types.

    \b
    Example:
      memlens types list --json
    """
    path = datasets.resolve(db, dataset)
    if path.exists():
        with read_memory(db, dataset) as memory:
            names = memory.types()
    else:  # a read creates no store: these are the types a first `remember` will find
        names = ontology.default_types()
        note(f"no store at {path} yet; every new dataset starts with these types")
    emit(as_json, names, "\n".join(names))


@types.command("add")
@click.argument("name")
@dataset_options
@actor_option
def types_add(name, db, dataset, as_json, actor):
    """Add entity type NAME to the ontology.

    \b
    Example:
      memlens types add Runbook
    """
    with open_memory(db, dataset, actor) as memory:
        added = memory.add_type(name)
    emit(as_json, {"type": added}, f"type {added} is known")


COMMANDS = [remember, functional, supersede, restore, retract, contest, dismiss, forget, merge, describe, types]
