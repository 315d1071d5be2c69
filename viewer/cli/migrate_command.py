"""`memlens migrate`: bring a store to this memlens's schema, the one step a read never takes."""
from __future__ import annotations

import click

from memlens.store import datasets
from memlens.store.opening import migrate_file

from .options import dataset_options, emit


@click.command()
@dataset_options
def migrate(db, dataset, as_json):
    """Bring the dataset's schema up to this memlens's version.

    Reads never change a store, so a store written by an older memlens is migrated by its next
    write or by this command. Each step is one transaction; the store must be intact.

    \b
    Examples:
      memlens migrate
      memlens migrate --db ~/.memlens/myproject-1a2b3c4d.sqlite --json
    """
    path = datasets.resolve(db, dataset)
    before, after = migrate_file(path)
    emit(as_json, {"path": str(path), "from": before, "to": after},
         f"{path}: schema version {before} -> {after}" if before != after
         else f"{path}: already at schema version {after}")


COMMANDS = [migrate]
