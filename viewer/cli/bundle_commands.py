"""Bundles kept up to date after maintenance, and snapshot diffs (verify, diff)."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import click

from memlens.store import datasets
from memlens.store.errors import InvalidInput, SnapshotAltered
from memlens.store.confined import head_of_regular_file
from memlens.store.snapshot.seal import check_seal, first_record_difference
from memlens.store.memory import Memory
from memlens.store.snapshot.diff import diff as snapshot_diff
from memlens.viewer import regeneration
from memlens.viewer.reading import read_bundle
from memlens.viewer.verification import PROVES, verify_bundle

from .formatting import Times, entity_count, plural, printable
from .options import dataset_group, dataset_options, emit, json_option, note, read_memory


@click.group()
@dataset_group
def bundles():
    """Reports and sites that `memlens maintain` regenerates for this dataset.

    \b
    Examples:
      memlens bundles add docs/memory.html
      memlens bundles add public/memory --format site
      memlens bundles list
      memlens bundles remove docs/memory.html
    """


@bundles.command("add")
@click.argument("path", type=click.Path())
@click.option("--format", "fmt", type=click.Choice(regeneration.FORMATS), default="html", show_default=True)
@dataset_options
def bundles_add(path, fmt, db, dataset, as_json):
    """Regenerate the bundle at PATH after every maintenance.

    \b
    Example:
      memlens bundles add docs/memory.html
    """
    bundle = regeneration.add(datasets.resolve(db, dataset), Path(path), fmt)
    emit(as_json, bundle.as_dict(), f"after maintenance: {bundle.path} ({bundle.format})")


@bundles.command("list")
@dataset_options
def bundles_list(db, dataset, as_json):
    """List the bundles configured for the dataset.

    \b
    Example:
      memlens bundles list --json
    """
    found = regeneration.configured(datasets.resolve(db, dataset))
    emit(as_json, [b.as_dict() for b in found],
         "\n".join(f"{b.format:<5} {b.path}" for b in found) or "no bundles configured")


@bundles.command("remove")
@click.argument("path", type=click.Path())
@dataset_options
def bundles_remove(path, db, dataset, as_json):
    """Stop regenerating the bundle at PATH (the files stay).

    \b
    Example:
      memlens bundles remove docs/memory.html
    """
    bundle = regeneration.remove(datasets.resolve(db, dataset), Path(path))
    emit(as_json, bundle.as_dict(), f"no longer regenerated: {bundle.path}")


def load_snapshot(reference: str) -> dict:
    """A snapshot from a memlens store, or from a bundle (a site folder, a snapshot JSON file or a
    report) whose data is checked against its seal: an altered bundle is refused, one without a
    seal is compared as it is, and said so."""
    path = Path(reference)
    if not path.exists():
        raise InvalidInput(f"{reference}: no such snapshot, report, site or store")
    if path.is_file() and head_of_regular_file(path, 16).startswith(b"SQLite format 3"):
        with Memory(path, readonly=True) as memory:
            return memory.snapshot()
    snapshot = read_bundle(path)   # its shape checked: what is wrong with it says more than its seal would
    if "seal" in snapshot:
        check_seal(snapshot, reference)
    else:
        note(f"{reference} carries no seal: its data is compared as it is, unchecked")
    return snapshot


@click.command()
@click.argument("old")
@click.argument("new", required=False)
@dataset_options
def diff(old, new, db, dataset, as_json):
    """What changed from OLD to NEW: each a report, a site folder, a snapshot JSON or a store.
    Without NEW, to the dataset (--db, -d, or this project's).

    Facts added, superseded, restored, retracted, contested, resolved and forgotten (forgotten
    ones by id only: their text is gone), entities added, merged and removed. A bundle's data is
    first checked against its seal (as `memlens verify` does), and two sides claiming the same
    snapshot hash must hold the same records: "no changes" is never said of a bundle that only
    carries the other side's hash.

    \b
    Examples:
      memlens diff last-week.json ~/.memlens/myproject-1a2b3c4d.sqlite
      memlens diff teammate-report.html -d demo      # what my memory has that theirs had not
    """
    if new is not None and (db or dataset):
        raise click.UsageError("give NEW or --db/-d, not both")
    older = load_snapshot(old)
    if new is None:
        with read_memory(db, dataset) as memory:
            newer, new = memory.snapshot(), memory.name
    else:
        newer = load_snapshot(new)
    changes = snapshot_diff(older, newer, names=(old, new))
    if older.get("hash") == newer.get("hash"):
        differs = first_record_difference(older, newer)
        if differs is not None:
            raise SnapshotAltered(f"{old} and {new} carry the same snapshot hash but not the same data ({differs} "
                                  "differs): one was not written from that state of the memory")
    emit(as_json, changes, lambda: echo_changes(changes))


# More new ledger rows than this are counted by action, not listed.
LEDGER_ROWS_LISTED = 20


def echo_changes(changes: dict) -> None:
    """A diff as `memlens diff` prints it (and `import --dry-run`)."""
    times = Times.of([changes["from"]["generated_at"], changes["to"]["generated_at"]])
    click.echo(f"from {times(changes['from']['generated_at'])} to {times(changes['to']['generated_at'])} (UTC)")
    memories = changes.get("memories") or {}
    if memories.get("same") is False:
        names = " and ".join(printable(str(memories.get(end) or "?")) for end in ("from", "to"))
        click.echo(click.style(f"these are two different memories ({names}): their ledgers share no history, so "
                               "what one holds and the other does not is listed as added or removed", fg="yellow"))
    if not any(changes["counts"].values()):
        click.echo("no changes")
    for kind, items in changes["changes"].items():
        if not items:
            continue
        click.echo(click.style(f"{kind.replace('_', ' ')} ({len(items)})", bold=True))
        if kind == "ledger_rows_added" and len(items) > LEDGER_ROWS_LISTED:
            actions = Counter(item["action"] for item in items)
            click.echo("  " + ", ".join(f"{action} {count}" for action, count in sorted(actions.items())))
            continue
        for item in items:
            if kind == "ledger_rows_added":
                click.echo(printable(f"  #{item['seq']}  {item['at']}  {item['actor']}  {item['action']} {item['kind']}"))
            elif "relation" in item:
                click.echo(printable(f"  {item['id'][:8]}  {item['subject']} --{item['relation']}--> {item['object']}"))
                for evidence in item.get("evidence_added", []):
                    click.echo(printable(f"      + evidence {evidence}"))
            else:
                click.echo(printable(f"  {item['id'][:8]}  {item.get('name', '')}".rstrip()))


@click.command()
@click.argument("bundle")
@json_option
def verify(bundle, as_json):
    """Check every byte of BUNDLE (a report, a site folder or a snapshot JSON) against what memlens
    writes from the bundle's own sealed data.

    Recomputes the digest of every entity, fact, contradiction and dismissal, the ledger's hash
    chain and the snapshot's hash (the seal); for a report, draws its page again from that data
    and compares every byte; for a site, writes every file again from that data and compares
    every byte (what else its folder holds, a CNAME or a .git, is named). Exits 1 naming the
    first thing that differs: an entity, a fact, a ledger row, a file or a place in the page.

    It proves integrity, not authorship: the bundle is what memlens writes from the data it
    carries, but anyone can write a bundle that verifies. It is no signature.

    \b
    Examples:
      memlens verify teammate-report.html
      memlens verify docs/memory-site/
    """
    checked = verify_bundle(bundle)
    if "files" in checked:
        what = f", {checked['files']} files{' (every byte)' if checked.get('page') else ''}"
    elif checked.get("page"):
        what = " and every byte of the page"
    else:
        what = ""
    emit(as_json, dict(checked, bundle=bundle, ok=True, proves=PROVES),
         lambda: _echo_verified(bundle, checked, what))


def _echo_verified(bundle: str, checked: dict, what: str) -> None:
    click.echo(printable(f"ok: {bundle}: {entity_count(checked['entities'], checked['merged'], checked['observations'])}, "
                         f"{plural(checked['facts'], 'fact')}, {plural(checked['ledger'], 'ledger row')}{what} "
                         f"match its sealed data; hash {checked['hash'][:19]}"))
    if "unchecked" in checked:
        click.echo(printable(f"note: {checked['unchecked']}"))
    if checked.get("not_ours"):
        shown = checked["not_ours"]
        click.echo(printable(f"note: the folder also holds what is not the site's, not checked: {', '.join(shown[:5])}"
                             + (f" and {len(shown) - 5} more" if len(shown) > 5 else "")))
    click.echo(f"this proves {PROVES}")


COMMANDS = [bundles, diff, verify]
