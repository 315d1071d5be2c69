"""`memlens view` and `memlens export`: the snapshot as a report, JSON, GraphML or GEXF."""
from __future__ import annotations

import os
import webbrowser
from pathlib import Path

import click

from memlens.store import datasets, importers
from memlens.store.snapshot.canonical import indented_json
from memlens.store.checked_folder import Way
from memlens.store.errors import BundleError
from memlens.store.bundle_merge import take_bundle
from memlens.store.importers.mcp_memory.history import import_memory_file
from memlens.store.memory import Memory
from memlens.store.snapshot.load import import_into
from memlens.store.snapshot.seal import check_seal, sealed_once

from memlens.viewer import regeneration
from memlens.viewer.atomic import write_named
from memlens.viewer.reading import read_bundle

from . import fast_exit
from memlens.viewer.model.printed_commands import flag_words, shell_quoted

from .bundle_commands import echo_changes
from .formatting import import_summary, merge_kept, merge_summary, printable
from .options import dataset_options, emit, note, read_memory
from .progress import Progress

FORMATS = ("json", "html", "site", "brief", "graphml", "gexf")


def is_standard_output(out: str) -> bool:
    """Whether `out` names this process's standard output: '-', /dev/stdout or the file it goes to
    (written through stdout, never opened again: that would truncate it, or not be a file at all)."""
    if out in ("-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"):
        return True
    try:
        return os.path.samestat(os.stat(out), os.fstat(1))
    except (OSError, ValueError):
        return False


def write_json(snapshot: dict, path: Path) -> None:
    """Written beside the target and moved into place, like every bundle, and sealed like one."""
    text = indented_json(sealed_once(snapshot))
    if is_standard_output(str(path)):
        click.echo(text, nl=False)
        return
    if path.exists() and not path.is_file():  # a device or a pipe: nothing to replace atomically
        with path.open("w", encoding="utf-8", newline="\n") as out:   # the bytes a file gets, on Windows too
            out.write(text)
        return
    write_named(path, text)


def write_format(snapshot: dict, fmt: str, path: Path, *, show_superseded: bool = False) -> None:
    if fmt == "json":
        write_json(snapshot, path)
    elif fmt in regeneration.FORMATS:
        regeneration.write_bundle(snapshot, path, fmt, show_superseded=show_superseded)
    else:
        from memlens.viewer.interchange import write_graph

        write_graph(snapshot, path, fmt)


def source_options(command):
    """--from TOOL [PATH]: read another tool's store instead of a memlens dataset."""
    command = click.argument("source_path", required=False, type=click.Path(dir_okay=False))(command)
    command = click.option("--deleted-text", is_flag=True,
                           help="With --from mnemo: show the text of soft-deleted memories.")(command)
    command = lenient_option(command)
    return click.option("--from", "source", type=click.Choice(importers.TOOLS),
                        help="Read a memoose, memware or mnemo store or the MCP memory server's file "
                             "(mcp-memory), read-only, instead.")(command)


def lenient_option(command):
    command = click.option("--allow-empty", is_flag=True,
                           help="With --from mcp-memory: take an empty file as a memory with nothing in it "
                                "(refused otherwise: the server leaves its file empty only mid-write).")(command)
    return click.option("--lenient", is_flag=True,
                        help="With --from mcp-memory: skip malformed lines (counted) instead of refusing the file.")(command)


def _refuse_memory_file_flags(source: str | None, lenient: bool, allow_empty: bool) -> None:
    for flag, given in (("--lenient", lenient), ("--allow-empty", allow_empty)):
        if given and source != importers.memory_file_format.TOOL:
            raise click.UsageError(f"{flag} goes with --from mcp-memory")


def read_snapshot(source: str | None, source_path: str | None, deleted_text: bool,
                  db: str | None, dataset: str | None, lenient: bool = False,
                  allow_empty: bool = False) -> tuple[dict, str]:
    """The snapshot to show, and a name for it: from --from TOOL [PATH], or from the dataset."""
    if source is None:
        if source_path or deleted_text:
            raise click.UsageError("PATH and --deleted-text go with --from")
        _refuse_memory_file_flags(source, lenient, allow_empty)
        with read_memory(db, dataset) as memory:
            return memory.sealed_snapshot(), datasets.report_name(memory.path)
    if db or dataset:
        raise click.UsageError("--from reads another tool's store: give its PATH, not --db or -d")
    _refuse_memory_file_flags(source, lenient, allow_empty)
    snapshot = importers.read_snapshot(source, source_path, include_deleted_text=deleted_text, lenient=lenient,
                                       allow_empty=allow_empty, note=note)
    return snapshot, snapshot["dataset"].replace(":", "-")


@click.command()
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="json", show_default=True)
@click.option("-o", "--out", "out", required=True, type=click.Path(allow_dash=True),
              help="The file (a folder for site) to write; '-' for standard output (json only).")
@click.option("--superseded", "show_superseded", is_flag=True, help="html: show superseded facts from the start.")
@source_options
@dataset_options
def export(fmt, out, show_superseded, source, lenient, allow_empty, deleted_text, source_path, db, dataset, as_json):
    """Export the dataset: the snapshot as JSON (memlens-snapshot/1), an HTML report, a static
    site (a folder), a brief (`memlens brief` as a file), GraphML or GEXF. With --from, export a memoose, memware or mnemo store, or
    the MCP reference memory server's file (mcp-memory).

    \b
    Examples:
      memlens export --format json -o snapshot.json
      memlens export --format json -o - | jq .stats
      memlens export --format html -o report.html
      memlens export --format site -o memory-site/
      memlens export --format brief -o docs/MEMORY.md   # what an agent reads at the start
      memlens export --format graphml -o memory.graphml   # for Gephi, Cytoscape
      memlens export --from memware --format html -o memware.html
    """
    to_stdout = is_standard_output(out)
    if to_stdout and fmt != "json":
        raise click.UsageError("only --format json can be written to standard output")
    _refuse_folder_for_a_file(out, fmt)
    path = Path(out)
    if not to_stdout:
        refuse_a_file_memlens_did_not_write(path, fmt)
    if fmt == "brief":
        _export_brief(source, path, db, dataset, as_json)
        return
    regeneration.load_writer(fmt)
    with Progress(2, enabled=not as_json) as progress:
        progress.stage("reading the store")
        snapshot, _ = read_snapshot(source, source_path, deleted_text, db, dataset, lenient, allow_empty)
        fast_exit.leave(snapshot)
        progress.advance()
        progress.stage(f"writing {fmt}")
        with progress.without_ticker():
            write_format(snapshot, fmt, path, show_superseded=show_superseded)
        progress.advance()
    if to_stdout:   # the data is what stdout holds
        return
    emit(as_json, {"format": fmt, "path": str(path), "hash": snapshot["hash"], "stats": snapshot["stats"]},
         f"wrote {path} ({fmt}, {snapshot['stats']['facts']} facts)")
    for message in regeneration.kept_note(Way.named(path).path, fmt):
        note(message)


def _export_brief(source: str | None, path: Path, db: str | None, dataset: str | None, as_json: bool) -> None:
    """The brief as a file (viewer/brief_file.py), made from the store itself."""
    from memlens.store.opening import open_for_reading
    from memlens.viewer.brief_file import write_brief_file

    if source is not None:
        raise click.UsageError("--format brief is made from a memlens dataset, not --from another tool's store")
    store = datasets.resolve(db, dataset)
    conn = open_for_reading(store)
    try:
        snapshot_hash = write_brief_file(conn, store, path)
    finally:
        conn.close()
    emit(as_json, {"format": "brief", "path": str(path), "hash": snapshot_hash}, f"wrote {path} (brief)")


# What every file of a format memlens writes holds (a report's generator tag, or an older report's
# snapshot-hash tag; a snapshot's format; the note GraphML and GEXF carry), looked for in the file a
# write would replace.
_WRITTEN_BY_MEMLENS = {
    "html": (b'<meta name="generator" content="memlens">', b'<meta name="memlens-snapshot-hash"'),
    "json": (b'"format": "memlens-snapshot/1"', b'"format":"memlens-snapshot/1"'),
    "brief": (b"<!-- memlens brief of ",),
    "graphml": (b"memlens export --format json",),
    "gexf": (b"memlens export --format json",),
    "brief": (b"<!-- memlens brief of ",),   # viewer/brief_file.py's first line
}
_SCANNED = 1 << 20


def refuse_a_file_memlens_did_not_write(path: Path, fmt: str) -> None:
    """An existing file is replaced only if it is what memlens writes in that format: `-o notes.md`
    never overwrites notes. (A site's folder is checked by the site's own writer.)"""
    marks = _WRITTEN_BY_MEMLENS.get(fmt)
    if marks is None or not path.exists() and not path.is_symlink():
        return
    if path.is_symlink() or not path.is_file():
        raise BundleError(f"{path} is not a regular file; memlens writes only its own files, never through a link")
    if path.stat().st_size == 0:
        return
    tail = b""
    with path.open("rb") as file:
        while chunk := file.read(_SCANNED):
            scanned = tail + chunk
            if any(mark in scanned for mark in marks):
                return
            tail = scanned[-64:]
    what = {"html": "report", "json": "snapshot", "brief": "brief file"}.get(fmt, f"{fmt} file")
    raise BundleError(f"{path} exists and is not a {what} memlens wrote; memlens replaces only its own files: "
                      "remove it, or write to another name")


def _refuse_folder_for_a_file(out: str, fmt: str) -> None:
    """Every format but site is one file: a folder given for it is said to be one, in the user's words."""
    if fmt == "site" or out == "-":
        return
    if Path(out).is_dir() or out.endswith(("/", "\\")):
        raise click.UsageError(
            f"{out} is a folder, and --format {fmt} writes one file: give the file's name "
            f"(e.g. -o {Path(out) / f'memory.{fmt}'}), or --format site to write a site into a folder")


@click.command()
@click.option("--out", "out", type=click.Path(dir_okay=False),
              help="Where to write the report (default: $MEMLENS_HOME/reports/<dataset>.html).")
@click.option("--no-open", is_flag=True, help="Write the report without opening a browser.")
@click.option("--superseded", "show_superseded", is_flag=True, help="Show superseded facts from the start.")
@click.option("--if-changed", is_flag=True, help="Write nothing if the report already shows the current store.")
@source_options
@dataset_options
def view(out, no_open, show_superseded, if_changed, source, lenient, allow_empty, deleted_text, source_path, db,
         dataset, as_json):
    """Write the dataset's report (one self-contained HTML file) and open it.

    The file works offline, from file://, and can be mailed to a teammate. With --from, the
    report of a memoose, memware or mnemo store or of the MCP memory server's file (found where
    that tool keeps it, or at PATH), read without changing a byte of it.

    \b
    Examples:
      memlens view
      memlens view -d demo --out demo.html --no-open
      memlens view --if-changed --no-open     # cheap when nothing changed
      memlens view --from memoose             # this project's memoose store
      memlens view --from mnemo ~/.mnemo-mcp/memories.db
      memlens view --from mcp-memory          # $MEMORY_FILE_PATH, or beside the server
    """
    if out:
        refuse_a_file_memlens_did_not_write(Path(out), "html")
    if source is None and if_changed:
        _refuse_memory_file_flags(source, lenient, allow_empty)
        with read_memory(db, dataset) as memory:
            path = Path(out) if out else default_report(datasets.report_name(memory.path))
            done = regeneration.regenerate(memory, regeneration.Bundle.named(path, "html"))
        for message in done.notes:
            note(message)
    else:
        regeneration.load_writer("html")
        with Progress(2, enabled=not as_json) as progress:
            progress.stage("reading the store")
            snapshot, name = read_snapshot(source, source_path, deleted_text, db, dataset, lenient, allow_empty)
            fast_exit.leave(snapshot)
            progress.advance()
            path = Path(out) if out else default_report(name)
            unchanged = if_changed and regeneration.holds(Way.named(path), "html", snapshot["hash"])
            if not unchanged:
                progress.stage("writing the report")
                write_format(snapshot, "html", path, show_superseded=show_superseded)
            progress.advance()
        done = regeneration.Regeneration(regeneration.Bundle(str(path), "html"), not unchanged, snapshot["hash"])
    emit(as_json, {"path": str(path), "hash": done.hash, "written": done.written},
         str(path) if done.written else f"unchanged: {path}")
    if not no_open and not webbrowser.open(path.resolve().as_uri()):
        note("no browser could be opened; open the file above")


def default_report(name: str) -> Path:
    return datasets.home() / "reports" / f"{name}.html"


@click.command("import")
@click.option("--from", "source", type=click.Choice((*importers.TOOLS, "memlens")), required=True,
              help="The tool whose store to copy (mcp-memory: the MCP memory server's file, whose changes "
                   "each import records), or memlens for a teammate's report, site or snapshot JSON.")
@click.argument("source_path", required=False, type=click.Path())
@click.option("--deleted-text", is_flag=True, help="With mnemo: keep the text of soft-deleted memories.")
@click.option("--unsealed", is_flag=True,
              help="With memlens: take a bundle that carries no seal, whose data nothing can check.")
@click.option("--dry-run", is_flag=True,
              help="With memlens: print what the import would change, as `memlens diff` prints changes, "
                   "and change nothing.")
@lenient_option
@dataset_options
def import_command(source, source_path, deleted_text, unsealed, dry_run, lenient, allow_empty, db, dataset, as_json):
    """Copy a memoose, memware or mnemo store, or a memlens bundle, into an empty memlens dataset;
    merge a teammate's memlens bundle into a dataset that holds memories; or record what the MCP
    memory server's file says now (mcp-memory), again and again.

    Ids, both time axes, statuses and history are kept (forgotten facts stay forgotten); the
    ledger records the import as `import:<tool>`. The source is only read. The MCP server keeps no
    history: importing its file again into the dataset made from it records what is new,
    retracts what vanished and restores what came back, which gives it a timeline.

    A memlens bundle's data is first checked against its seal and refused if it differs: that
    proves the data is whole and consistent (not edited by hand, not damaged), not who made it,
    since anyone can seal a bundle. A bundle without a seal (from a memlens before seals, or
    stripped of it) is refused unless --unsealed, which takes its data as it is, unchecked.

    Into a dataset that holds memories, a memlens bundle is merged: the same fact is one fact
    (its evidence gains theirs), the later judgement of a shared fact holds, a different current
    value of a functional relation is ordered by valid time or left as an open contradiction,
    their entity merges are made here; what the merge brings is recorded now, with where it came
    from. Nothing you hold is removed, and the same bundle again changes nothing.

    \b
    Examples:
      memlens import --from memoose -d from-memoose
      memlens import --from memware ~/.memware/memware.db --db imported.sqlite
      memlens import --from memlens teammate-report.html -d teammate
      memlens import --from memlens teammate-report.html --dry-run   # what merging it would change
      memlens import --from memlens teammate-report.html             # merge it into this project's memory
      memlens import --from mcp-memory -d mcp-memory   # run it again after each session
    """
    for flag, given in (("--unsealed", unsealed), ("--dry-run", dry_run)):
        if given and source != "memlens":
            raise click.UsageError(f"{flag} goes with --from memlens")
    path = datasets.resolve(db, dataset)
    name = datasets.name_of(path)
    if source == importers.memory_file_format.TOOL:
        _import_memory_file(source_path, lenient, allow_empty, deleted_text, path, name, as_json)
        return
    _refuse_memory_file_flags(source, lenient, allow_empty)
    with Progress(2, enabled=not as_json) as progress:
        progress.stage(f"reading the {source} {'bundle' if source == 'memlens' else 'store'}")
        snapshot = _source_snapshot(source, source_path, deleted_text, unsealed)
        progress.advance()
        progress.stage(f"{'trying' if dry_run else 'writing'} {name}")
        if source == "memlens":
            with Memory(path) as memory:
                counts, changes = take_bundle(memory, snapshot, bundle=_bundle_name(snapshot), dry_run=dry_run)
        else:
            counts, changes = import_into(path, snapshot, source=source), None
        progress.advance()
    if changes is not None:
        emit(as_json, {"dry_run": True, "dataset": name, "import": counts, "changes": changes},
             lambda: _echo_dry_run(name, path, counts, changes))
    elif counts.get("merged"):
        emit(as_json, dict(counts, dataset=name), lambda: _echo_merged(source_path, name, path, counts))
    else:
        emit(as_json, dict(counts, dataset=name), f"imported {source} into {name}: {import_summary(counts, snapshot)}")


def _bundle_name(snapshot: dict) -> str:
    """How the merge names the bundle it took (a ledger row, each fact it brought): its seal's hash."""
    return snapshot["seal"]["content"] if "seal" in snapshot else "unsealed:" + snapshot["hash"]


def _echo_merged(bundle: str, name: str, path: Path, counts: dict) -> None:
    click.echo(printable(f"merged {bundle} into {name}: {merge_summary(counts)}"))
    _echo_kept(path, counts)


def _echo_kept(path: Path, counts: dict) -> None:
    """What a merge left as it was, and the near misses it found, each with the command that makes
    the two one (shown, never run)."""
    for line in merge_kept(counts) + counts["notes"]:
        click.echo(printable(f"  {line}"))
    misses = counts["near_misses"]
    flag = flag_words(datasets.flag_for(path)) if misses else ""
    for miss in misses[:NEAR_MISSES_LISTED]:
        yours = miss["yours"][0]
        click.echo(printable(f"  near miss, kept apart: their {miss['name']!r} ({miss['type']}) and your "
                             f"{yours['name']!r} ({yours['type']}): {miss['why']}; if they are one: memlens merge "
                             f"{shell_quoted(yours['name'])} {shell_quoted(miss['id'])}{flag}"))
    if len(misses) > NEAR_MISSES_LISTED:
        click.echo(f"  and {len(misses) - NEAR_MISSES_LISTED:,} more near misses (--json lists them all)")


# Near misses listed one a line; more are counted (and all are in --json).
NEAR_MISSES_LISTED = 20


def _echo_dry_run(name: str, path: Path, counts: dict, changes: dict) -> None:
    what = f"merge: {merge_summary(counts)}" if counts.get("merged") else "import into an empty dataset"
    click.echo(click.style(f"dry run: nothing was changed. The {what}; in the words of `memlens diff`, from "
                           f"{name} as it is to what it would be:", bold=True))
    echo_changes(changes)
    if counts.get("merged"):
        _echo_kept(path, counts)


_CHANGES = (("asserted", "facts asserted"), ("superseded", "superseded"), ("retracted", "retracted"), ("restored", "restored"),
            ("entities_added", "new entities"), ("observations_added", "new observations"), ("retyped", "retyped"),
            ("placed", "observations placed in the file's order"), ("kept_forgotten", "kept forgotten"))


def _import_memory_file(source_path: str | None, lenient: bool, allow_empty: bool, deleted_text: bool, path: Path,
                        name: str, as_json: bool) -> None:
    if deleted_text:
        raise click.UsageError("--deleted-text goes with --from mnemo")
    memory = importers.memory_file(source_path, lenient=lenient, allow_empty=allow_empty)
    skipped = importers.skipped_note(memory)
    if skipped:
        note(skipped)
    counts = import_memory_file(path, memory)
    changed = ", ".join(f"{counts[key]} {what}" for key, what in _CHANGES if counts[key]) or "nothing changed"
    emit(as_json, dict(counts, dataset=name), f"imported {memory.path.name} into {name}: {changed}")


def _source_snapshot(source: str, source_path: str | None, deleted_text: bool, unsealed: bool) -> dict:
    if source != "memlens":
        if source_path and Path(source_path).is_dir():
            raise click.UsageError(f"{source_path} is a folder; --from {source} reads a store file")
        return importers.read_snapshot(source, source_path, include_deleted_text=deleted_text)
    if source_path is None or deleted_text:
        raise click.UsageError("--from memlens takes the PATH of a report, site or snapshot JSON (and no --deleted-text)")
    snapshot = read_bundle(source_path)
    if "seal" in snapshot:
        check_seal(snapshot, source_path)
    elif not unsealed:
        raise BundleError(f"{source_path} carries no seal, so nothing can check that its data is what memlens wrote "
                          "(a bundle from before seals, or one stripped of its seal); import it anyway, unchecked, "
                          "with --unsealed")
    else:
        note(f"{source_path} carries no seal: its data is imported as it is, unchecked")
    return snapshot


COMMANDS = [export, view, import_command]
