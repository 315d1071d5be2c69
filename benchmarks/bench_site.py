"""A site at scale: a full build, then a regeneration after one new fact, through the path
`memlens maintain` takes for a configured site (regeneration.regenerate); then a merge and a forget.

    python benchmarks/bench_site.py --store STORE --work DIR [--runs 2] [--on-hub]

STORE is copied into DIR (it is written to); the site goes to DIR/site. Each step runs in a
process of its own, so its peak memory is its alone. Prints
seconds, the site's size on disk and files, and the peak memory, beside the budgets.

The new fact links two entities the store already has, picked from it, so any store will do
(generate_store.py's, or a shape of bench_shapes.py's); with --on-hub its subject is the entity
with the most facts, whose cards then move between its pages.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from compiled_memlens import compile_memlens

BUDGETS = {"full_s": 25.0, "disk_gb": 1.0, "one_fact_s": 3.5}   # one_fact_s: issue 40, serial on the 2-core machine

# regenerate() as `memlens maintain` calls it: the snapshot, then the site (timed together), and
# without the cyclic collector, as the command runs
STEP = r"""
import gc, json, resource, sys, time
from pathlib import Path
from memlens.store.memory import Memory
from memlens.viewer import regeneration
store, site = sys.argv[1:3]
gc.disable()  # as every memlens command runs (viewer/cli/app.py), `memlens maintain` among them
regeneration.load_writer("site")
started = time.perf_counter()
with Memory(Path(store)) as memory:
    done = regeneration.regenerate(memory, regeneration.Bundle(site, "site"))
elapsed = time.perf_counter() - started
peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(json.dumps({"seconds": elapsed, "written": done.written, "peak_mb": peak / 1024}))
"""


def run_step(store: Path, site: Path) -> dict:
    # one BLAS thread, as the `memlens` command sets it (viewer/cli/app.py)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1")}
    out = subprocess.run([sys.executable, "-c", STEP, str(store), str(site)], check=True,
                         capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def fact_ends(store: Path, run: int, on_hub: bool) -> tuple[str, str]:
    """Two entities of the store, another pair each run; the subject the busiest one `on_hub`."""
    conn = sqlite3.connect(f"{store.resolve().as_uri()}?mode=ro", uri=True)
    try:
        names = [row[0] for row in conn.execute("SELECT name FROM entities WHERE merged_into IS NULL ORDER BY name")]
        hub = conn.execute("SELECT e.name FROM facts f JOIN entities e ON e.id IN (f.subject_id, f.object_id) "
                           "GROUP BY e.id ORDER BY count(*) DESC, e.name LIMIT 1").fetchone()[0]
    finally:
        conn.close()
    subject = hub if on_hub else names[(run * 7919 + 11) % len(names)]
    obj = next(name for name in names[(run * 104729 + 3) % len(names):] + names if name != subject)
    return subject, obj


def remember_one(store: Path, ends: tuple[str, str], run: int) -> None:
    """One new fact between two existing entities, as `memlens remember` writes it."""
    line = json.dumps({"subject": ends[0], "relation": "uses", "object": ends[1], "evidence": [f"bench run {run}"]})
    subprocess.run(["memlens", "remember", "--db", str(store), "--stdin"], input=line, text=True, check=True,
                   capture_output=True)


def disk(site: Path) -> tuple[float, int]:
    usage = subprocess.run(["du", "-sk", str(site)], check=True, capture_output=True, text=True).stdout
    files = sum(1 for p in site.rglob("*") if p.is_file())
    return int(usage.split()[0]) / 1024 / 1024, files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True, help="a store from generate_store.py")
    parser.add_argument("--work", type=Path, required=True, help="a folder for the copy and the site")
    parser.add_argument("--runs", type=int, default=2, help="one-fact regenerations to time")
    parser.add_argument("--on-hub", action="store_true", help="each new fact's subject: the entity with the most facts")
    args = parser.parse_args()
    compile_memlens()
    args.work.mkdir(parents=True, exist_ok=True)
    store, site = args.work / "store.sqlite", args.work / "site"
    shutil.copyfile(args.store, store)
    shutil.rmtree(site, ignore_errors=True)

    full = run_step(store, site)
    gb, files = disk(site)
    print(f"full site      {full['seconds']:7.1f} s  (budget {BUDGETS['full_s']} s)  peak {full['peak_mb']:,.0f} MB")
    print(f"site on disk   {gb:7.2f} GB (budget {BUDGETS['disk_gb']} GB)  {files:,} files")
    for run in range(args.runs):
        ends = fact_ends(store, run, args.on_hub)
        remember_one(store, ends, run)
        step = run_step(store, site)
        print(f"one new fact   {step['seconds']:7.1f} s  (budget {BUDGETS['one_fact_s']} s)  peak {step['peak_mb']:,.0f} MB"
              f"  ({ends[0]} uses {ends[1]})")
    for what, command in other_writes(store):
        subprocess.run(["memlens", *command, "--db", str(store)], check=True, capture_output=True)
        step = run_step(store, site)
        print(f"{what:<14} {step['seconds']:7.1f} s  peak {step['peak_mb']:,.0f} MB  (memlens {' '.join(command)})")


def other_writes(store: Path) -> list[tuple[str, list[str]]]:
    """A merge of two entities and a forgotten entity, each picked from the store."""
    names = fact_ends(store, 99, False) + fact_ends(store, 98, False)
    return [("a merge", ["merge", names[0], names[1]]), ("a forget", ["forget", "entity", names[2]])]


if __name__ == "__main__":
    main()
