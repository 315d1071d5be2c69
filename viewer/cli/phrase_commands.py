"""`memlens phrases`: how this dataset's people word its relations, which recall reads questions with."""
from __future__ import annotations

import click

from memlens.store import phrases

from .options import actor_option, dataset_group, dataset_options, emit, json_option, open_memory, read_memory


@click.group("phrases", invoke_without_command=True)
@json_option
@dataset_group
@click.pass_context
def phrases_group(ctx, as_json):
    """Wordings of relations that recall reads questions with, beside its own ("responsible for" ->
    owned_by, "reports to" -> manages, ...); without a subcommand, lists the dataset's own.

    \b
    Examples:
      memlens phrases add 'looks after' owned_by
      memlens phrases add 'answers to' '~manages'   # named from the other end: B manages A
      memlens phrases -d demo
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(phrases_list, as_json=as_json)


@phrases_group.command("list")
@dataset_options
def phrases_list(db, dataset, as_json):
    """List the dataset's own phrases and the relations each names.

    \b
    Example:
      memlens phrases list --json
    """
    with read_memory(db, dataset) as memory:
        given = phrases.listed(memory.conn)
    emit(as_json, given, "\n".join(f"{phrase} -> {', '.join(relations)}" for phrase, relations in given.items())
         or "no phrases of this dataset's own")


@phrases_group.command("add")
@click.argument("phrase")
@click.argument("relation")
@dataset_options
@actor_option
def phrases_add(phrase, relation, db, dataset, as_json, actor):
    """Say that PHRASE, in a question, names RELATION (a leading ~: named from its other end).

    \b
    Example:
      memlens phrases add 'looks after' owned_by
    """
    with open_memory(db, dataset, actor) as memory, memory.writing() as tx:
        added = phrases.add(tx, phrase, relation)
    emit(as_json, added, "\n".join(f"{p} -> {', '.join(r)}" for p, r in added.items()))


@phrases_group.command("remove")
@click.argument("phrase")
@dataset_options
@actor_option
def phrases_remove(phrase, db, dataset, as_json, actor):
    """Remove the dataset's phrase PHRASE.

    \b
    Example:
      memlens phrases remove 'looks after'
    """
    with open_memory(db, dataset, actor, must_exist=True) as memory, memory.writing() as tx:
        removed = phrases.remove(tx, phrase)
    emit(as_json, {"removed": removed}, f"removed {removed}")


COMMANDS = [phrases_group]
