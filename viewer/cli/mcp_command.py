"""`memlens mcp`: serve one dataset to an agent's host over MCP (stdio)."""
from __future__ import annotations

import gc

import click

from memlens.store import datasets

from . import fast_exit

INSTALL_HINT = "memlens mcp needs the MCP SDK, an optional part of memlens: pip install 'memlens[mcp]'"


@click.command()
@click.option("--db", "db", type=click.Path(dir_okay=False), help="Path of the store file.")
@click.option("-d", "--dataset", "dataset", help="A named dataset under $MEMLENS_HOME (default: this project's).")
def mcp(db, dataset):
    """Serve the dataset to a coding agent as an MCP server over stdio.

    The host (Claude Code, Cursor, ...) starts it and talks JSON-RPC on its standard input and
    output. The server is bound to this one dataset: no tool takes a dataset or a path. Writes
    are recorded in the ledger as mcp:<client name>.

    \b
    Examples:
      memlens mcp                         # the working directory's dataset
      memlens mcp -d demo
      claude mcp add memlens -- memlens mcp
    """
    path = datasets.resolve(db, dataset)
    try:
        from .mcp_server import serve
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] in ("mcp", "mcp_types", "pydantic", "anyio"):
            raise click.ClickException(INSTALL_HINT) from None
        raise
    # A server lives as long as the host's session and makes cyclic garbage as it goes (the
    # SDK's tasks and models): it needs the collector that the console script turns off for
    # one-shot commands (app.run).
    gc.enable()
    fast_exit.keep_nothing()
    try:
        serve(path)
    except KeyboardInterrupt:  # stopped by hand from a terminal
        pass
    # The host waits for the process to end once it closes the pipe: app.run's fast exit saves
    # the interpreter's teardown of the SDK (0.6-1.0 s after the last answer).


COMMANDS = [mcp]
