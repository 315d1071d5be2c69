"""Options every command shares, and how a command opens its dataset and prints its result."""
from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from memlens.store import datasets
from memlens.store.errors import MemlensError

if TYPE_CHECKING:
    from memlens.store.memory import Memory


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts instead of text.")


# Where a group (`memlens types -d demo ...`) leaves the dataset its subcommands read by default.
_GROUP_DATASET = "memlens.group_dataset"
# Where a command leaves the flag naming its dataset (datasets.flag_for), for the error it may end in.
DATASET_FLAG = "memlens.dataset_flag"


def _where(command: Callable) -> Callable:
    """--db PATH and -d NAME."""
    command = click.option("-d", "--dataset", "dataset",
                           help="A named dataset under $MEMLENS_HOME (default: this project's).")(command)
    return click.option("--db", "db", type=click.Path(dir_okay=False), help="Path of the store file.")(command)


def dataset_options(command: Callable) -> Callable:
    """--db PATH, -d NAME and --json, the same on every command; given to the group instead
    (`memlens types -d demo list`), --db and -d hold for its subcommand."""

    @functools.wraps(command)
    def with_group_dataset(*args, **kwargs):
        context = click.get_current_context()
        inherited = context.meta.get(_GROUP_DATASET)
        if inherited and kwargs.get("db") is None and kwargs.get("dataset") is None:
            kwargs["db"], kwargs["dataset"] = inherited
        try:   # what the commands an error names must carry to run from any folder (app.MemlensGroup)
            context.meta[DATASET_FLAG] = datasets.flag_for(datasets.resolve(kwargs.get("db"), kwargs.get("dataset")))
        except MemlensError:   # a name no dataset can have: the command says so itself
            pass
        return command(*args, **kwargs)

    return _where(json_option(with_group_dataset))


def dataset_group(group: Callable) -> Callable:
    """--db PATH and -d NAME on a command group, for whichever of its subcommands is run."""

    @functools.wraps(group)
    def remembering_dataset(*args, db=None, dataset=None, **kwargs):
        if db is not None or dataset is not None:
            click.get_current_context().meta[_GROUP_DATASET] = (db, dataset)
        return group(*args, **kwargs)

    return _where(remembering_dataset)


def actor_option(command: Callable) -> Callable:
    return click.option(
        "--actor", help="Who is writing, recorded in the ledger (default: cli:<your user name>)."
    )(command)


def open_memory(db: str | None, dataset: str | None, actor: str | None = None, *, must_exist: bool = False) -> "Memory":
    """The dataset opened for a write (and migrated); made on the way unless `must_exist`."""
    from memlens.store.memory import Memory   # here: `memlens brief` starts without it (app.MemlensGroup)

    return _in_its_repository(Memory(datasets.resolve(db, dataset), actor=actor, create=not must_exist))


def read_memory(db: str | None, dataset: str | None) -> "Memory":
    """The dataset opened read-only: never created, migrated or written."""
    from memlens.store.memory import Memory

    return _in_its_repository(Memory(datasets.resolve(db, dataset), readonly=True))


def _in_its_repository(memory: "Memory") -> "Memory":
    """The project's dataset, opened in its folder, checks its evidence against the work tree there."""
    memory.repository = datasets.repository_of(memory.path)
    return memory


def emit(as_json: bool, data: Any, text: Callable[[], None] | str | None = None) -> None:
    """Data on stdout: JSON when asked (text exactly as stored), else the text form, in which a
    given string's lines are shown `printable` (a callable prints through formatting's own)."""
    if as_json:
        click.echo(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False))
    elif callable(text):
        text()
    elif text is not None:
        from .formatting import printable

        click.echo("\n".join(printable(line) for line in text.split("\n")))


def note(message: str) -> None:
    """Messages go to stderr so stdout stays data."""
    click.echo(message, err=True)
