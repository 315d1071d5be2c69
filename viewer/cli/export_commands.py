"""`memlens view` and `memlens export`: the snapshot as a report, JSON, GraphML or GEXF."""
from __future__ import annotations

import json
import os
import tempfile
import webbrowser
from pathlib import Path

import click

from memlens.store import datasets
from memlens.store.errors import MemlensError

from memlens.viewer import regeneration

from .options import dataset_options, emit, note, open_memory

FORMATS = ("json", "html", "site", "graphml", "gexf")


def write_json(snapshot: dict, path: Path) -> None:
    """Written beside the target and moved into place, like every bundle."""
    text = json.dumps(snapshot, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if str(path) == "-":
        click.echo(text, nl=False)
        return
    if path.exists() and not path.is_file():  # a device or a pipe: nothing to replace atomically
        with path.open("w", encoding="utf-8") as out:
            out.write(text)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_format(snapshot: dict, fmt: str, path: Path, *, show_superseded: bool = False) -> None:
    try:
        _write_format(snapshot, fmt, path, show_superseded=show_superseded)
    except ValueError as exc:  # the viewer's word for a snapshot it cannot read
        raise MemlensError(f"cannot write {fmt}: {exc}") from None


def _write_format(snapshot: dict, fmt: str, path: Path, *, show_superseded: bool) -> None:
    if fmt == "json":
        write_json(snapshot, path)
    elif fmt in regeneration.FORMATS:
        regeneration.write_bundle(snapshot, path, fmt, show_superseded=show_superseded)
    else:
        from memlens.viewer.graphformats import write_graph

        write_graph(snapshot, path, fmt)


@click.command()
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="json", show_default=True)
@click.option("-o", "--out", "out", required=True, type=click.Path(allow_dash=True),
              help="The file (a folder for site) to write; '-' for standard output (json only).")
@click.option("--superseded", "show_superseded", is_flag=True, help="html: show superseded facts from the start.")
@dataset_options
def export(fmt, out, show_superseded, db, dataset, as_json):
    """Export the dataset: the snapshot as JSON (memlens-snapshot/1), an HTML report, a static
    site (a folder), GraphML or GEXF.

    \b
    Examples:
      memlens export --format json -o snapshot.json
      memlens export --format json -o - | jq .stats
      memlens export --format html -o report.html
      memlens export --format site -o memory-site/
      memlens export --format graphml -o memory.graphml   # for Gephi, Cytoscape
    """
    with open_memory(db, dataset, must_exist=True) as memory:
        snapshot = memory.snapshot()
    path = Path(out)
    if out == "-" and fmt != "json":
        raise click.UsageError("only --format json can be written to standard output")
    write_format(snapshot, fmt, path, show_superseded=show_superseded)
    if out == "-":
        return
    emit(as_json, {"format": fmt, "path": str(path), "hash": snapshot["hash"], "stats": snapshot["stats"]},
         f"wrote {path} ({fmt}, {snapshot['stats']['facts']} facts)")


@click.command()
@click.option("--out", "out", type=click.Path(dir_okay=False),
              help="Where to write the report (default: $MEMLENS_HOME/reports/<dataset>.html).")
@click.option("--no-open", is_flag=True, help="Write the report without opening a browser.")
@click.option("--superseded", "show_superseded", is_flag=True, help="Show superseded facts from the start.")
@click.option("--if-changed", is_flag=True, help="Write nothing if the report already shows the current store.")
@dataset_options
def view(out, no_open, show_superseded, if_changed, db, dataset, as_json):
    """Write the dataset's report (one self-contained HTML file) and open it.

    The file works offline, from file://, and can be mailed to a teammate.

    \b
    Examples:
      memlens view
      memlens view -d demo --out demo.html --no-open
      memlens view --if-changed --no-open     # cheap when nothing changed
    """
    with open_memory(db, dataset, must_exist=True) as memory:
        path = Path(out) if out else datasets.home() / "reports" / f"{memory.name}.html"
        bundle = regeneration.Bundle(str(path), "html")
        if if_changed:
            done = regeneration.regenerate(memory, bundle)
        else:
            snapshot = memory.snapshot()
            write_format(snapshot, "html", path, show_superseded=show_superseded)
            done = regeneration.Regeneration(bundle, True, snapshot["hash"])
    emit(as_json, {"path": str(path), "hash": done.hash, "written": done.written},
         str(path) if done.written else f"unchanged: {path}")
    if not no_open and not webbrowser.open(path.resolve().as_uri()):
        note("no browser could be opened; open the file above")


COMMANDS = [export, view]
