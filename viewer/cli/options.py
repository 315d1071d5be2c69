"""Options every command shares, and how a command opens its dataset and prints its result."""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from memlens.store import datasets
from memlens.store.memory import Memory


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts instead of text.")


def dataset_options(command: Callable) -> Callable:
    """--db PATH, -d NAME and --json, the same on every command."""

    command = json_option(command)
    command = click.option("-d", "--dataset", "dataset",
                           help="A named dataset under $MEMLENS_HOME (default: this project's).")(command)
    return click.option("--db", "db", type=click.Path(dir_okay=False), help="Path of the store file.")(command)


def actor_option(command: Callable) -> Callable:
    return click.option(
        "--actor", help="Who is writing, recorded in the ledger (default: cli:<your user name>)."
    )(command)


def open_memory(db: str | None, dataset: str | None, actor: str | None = None, *, must_exist: bool = False) -> Memory:
    """The dataset opened for a write (and migrated); made on the way unless `must_exist`."""
    return Memory(datasets.resolve(db, dataset), actor=actor, create=not must_exist)


def read_memory(db: str | None, dataset: str | None) -> Memory:
    """The dataset opened read-only: never created, migrated or written."""
    return Memory(datasets.resolve(db, dataset), readonly=True)


def emit(as_json: bool, data: Any, text: Callable[[], None] | str | None = None) -> None:
    """Data on stdout: JSON when asked, else the text form."""
    if as_json:
        click.echo(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False))
    elif callable(text):
        text()
    elif text is not None:
        click.echo(text)


def note(message: str) -> None:
    """Messages go to stderr so stdout stays data."""
    click.echo(message, err=True)
