"""`memlens demo`: build the demo memory and show what it holds."""
from __future__ import annotations

import click

from memlens.store import datasets, demo as demo_memory

from memlens.store.datasets import flag_for

from ..model.printed_commands import flag_words
from .formatting import echo_candidates, fact_line, fact_times, printable, stats_line
from .options import emit


@click.command()
@click.option("--db", "db", type=click.Path(dir_okay=False), help="Where to write it (default: the dataset 'demo').")
@click.option("--json", "as_json", is_flag=True, help="Print its statistics as JSON.")
@click.option("-d", "--dataset", "dataset", default="demo", show_default=True, help="The dataset to build.")
@click.option("--force", is_flag=True, help="Rebuild it from scratch if the dataset exists (what it holds is lost).")
def demo(db, as_json, dataset, force):
    """Build the demo memory (a small shipping service's project) and print what it holds.

    An existing dataset of that name is left alone unless --force is given; your other
    datasets are never touched.

    \b
    Examples:
      memlens demo && memlens view -d demo
      memlens demo --force          # start the demo over
    """
    path = datasets.resolve(db, None if db else dataset)
    if path.exists() and not force:
        raise click.ClickException(printable(
            f"a dataset is already at {path}; `memlens demo --force` rebuilds it from scratch, and what it "
            "holds now is lost"))
    with demo_memory.build(path) as memory:
        stats = dict(memory.stats(), **memory.state_counts(), dataset=memory.name, path=str(path),
                     hash=memory.content_hash())
        judged = [f for f in memory.facts(include_all=True) if f["status"] != "current" or f["contested"]]
        worklist = [c.as_dict() for c in memory.worklist()]

    def text() -> None:
        click.echo(click.style(f"demo memory written to {path}", bold=True))
        click.echo(stats_line(stats))
        click.echo(click.style("\nhistory and judgements:", bold=True))
        times = fact_times(judged)
        for fact in judged:
            click.echo(fact_line(fact, times=times))
        click.echo(click.style(f"\nmaintenance worklist ({len(worklist)}):", bold=True))
        echo_candidates(worklist[:6])
        named = flag_words(flag_for(path))
        if len(worklist) > 6:
            click.echo(f"… and {len(worklist) - 6} more (memlens maintain{named})")
        click.echo(f"\nnext: memlens facts{named}   memlens view{named}")

    emit(as_json, stats, text)


COMMANDS = [demo]
