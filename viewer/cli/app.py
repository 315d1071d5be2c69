"""The command group: where every error becomes `Error: ...` instead of a traceback."""
from __future__ import annotations

import gc
import os
import sqlite3
import sys

import click

from memlens.store.errors import MemlensError

from ..model.printed_commands import with_flag
from . import fast_exit
from .options import DATASET_FLAG


def error_line(exc: Exception) -> str:
    """The one line memlens reports (after `Error: `) for an error that reached a command or a tool."""
    if isinstance(exc, MemlensError):
        return one_line(str(exc))
    if isinstance(exc, sqlite3.DatabaseError):
        return f"the store could not be read or written: {exc}"
    if isinstance(exc, OSError):
        return one_line(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "))
    if isinstance(exc, UnicodeEncodeError):
        # An argument holding bytes that are not UTF-8 arrives as lone surrogates, which no file,
        # index or terminal can take; a write it reached was rolled back.
        shown = exc.object[exc.start:exc.end] if isinstance(exc.object, str) else ""
        return f"text that is not valid Unicode cannot be used ({shown!r}: not UTF-8 or a lone surrogate)"
    if isinstance(exc, UnicodeDecodeError):  # a damaged store can hold bytes that are not text
        return f"the store holds text that is not UTF-8 ({exc.reason}); is it damaged?"
    return f"internal error ({type(exc).__name__}: {exc}); set MEMLENS_DEBUG=1 for details and please report it"


def is_a_bug(exc: Exception) -> bool:
    """Whether no person could have caused `exc`: then MEMLENS_DEBUG=1 shows its traceback."""
    return not isinstance(exc, (MemlensError, sqlite3.DatabaseError, OSError, UnicodeError))


def one_line(message: str) -> str:
    """An error message as one line: a name or path that holds a line break is shown escaped."""
    from .formatting import printable   # here, not above: `memlens brief` starts without it (MemlensGroup)

    return printable(message)


class MemlensGroup(click.Group):
    """Turns store errors into exit status 1 with one line; usage errors stay exit status 2.

    Commands are imported when asked for: `memlens brief` runs in a host's session-start hook, whose
    budget (150 ms at 10,000 entities, process start included) importing every command (0.19 s)
    would spend alone; it imports its own module only."""

    _all = False

    @property
    def commands(self) -> dict[str, click.Command]:  # type: ignore[override]
        """Every command, imported on first use (what `memlens --help` and the tests read)."""
        if not self._all:
            self._all = True
            _register()
        return self._commands

    @commands.setter
    def commands(self, value: dict[str, click.Command]) -> None:
        self._commands = value

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in _LIGHT:
            _register(_LIGHT[cmd_name])
            return self._commands.get(cmd_name)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            # The reader went away (`memlens facts | head`): stop quietly, like any Unix tool.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort, KeyboardInterrupt):
            raise
        except Exception as exc:
            if is_a_bug(exc) and os.environ.get("MEMLENS_DEBUG"):
                raise
            raise click.ClickException(with_flag(error_line(exc), ctx.meta.get(DATASET_FLAG, ()))) from None


@click.group(cls=MemlensGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="memlens")
def main() -> None:
    """memlens: see what your coding agent remembers.

    A memory store (a typed graph of entities and facts with history) and a viewer that turns it
    into an offline HTML report.

    \b
    Start here:
      memlens demo                 build the demo memory and show what it holds
      memlens view -d demo         open its report
      memlens remember 'alice:Person --works_at--> acme:Organization'
    """


def run() -> None:
    """The `memlens` console script: one short process, so the process-wide switches that make it
    fast are set here, and only here (in-process callers, the tests among them, keep theirs).

    - No cyclic collector: a command builds large acyclic structures (a snapshot of a 100,000-entity
      store is millions of objects) that the collector would walk over and over -- a quarter of an
      export's time -- finding nothing; reference counting frees them.
    - A fast exit: freeing a 100,000-entity snapshot object by object, and the interpreter's
      teardown after it, took most of a second once the work was done and the file written; the
      operating system takes the memory back at once. Every command has closed its store and files
      by the time it returns; output is flushed here. A command hands what it is done with to
      `fast_exit.leave`, which keeps it until then.
    - One OpenBLAS thread (unless the environment says otherwise): the layout's arrays are small,
      and the pool of threads numpy starts when imported cost an export of 10,000 entities about
      0.1 s of CPU (1.70-1.77 -> 1.58-1.65 s).
    """
    gc.disable()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    fast_exit.enable()
    try:
        main()  # standalone mode: it always ends by raising SystemExit
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:  # a reader that went away: nothing left to tell it
            pass
    os._exit(code or 0)


# Commands imported alone when run (see MemlensGroup): the name and its module.
_LIGHT = {"brief": "brief_command"}
_MODULES = ("write_commands", "read_commands", "brief_command", "phrase_commands", "export_commands", "bundle_commands",
            "hook_commands", "demo_command", "mcp_command", "migrate_command")


def _register(only: str | None = None) -> None:
    """Add the commands of module `only`, or of every module, to the group (once each)."""
    import importlib

    for name in (only,) if only else _MODULES:
        for command in importlib.import_module(f"{__package__}.{name}").COMMANDS:
            main._commands.setdefault(command.name, command)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
