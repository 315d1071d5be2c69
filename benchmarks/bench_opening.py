"""What opening a store costs (opt-in): PRAGMA quick_check against the commands it guards.

    python benchmarks/bench_opening.py [--entities 100000] [--store PATH] [--runs 3]

Generates a store with generate_store.py (or uses --store, which is only read: writes go to a
copy), then prints the file's size, quick_check's time (the first run, then the best of --runs),
and whole-process times, best of --runs, of `memlens stats`, `memlens recall`, `memlens remember`
(one fact, into the copy) and `memlens export --format json`. Writes always run quick_check; reads
run it when the file is at most store/opening.py's QUICK_CHECK_ON_READ_MAX_BYTES, and the script
says which applies.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_regeneration import best_of as process_seconds  # noqa: E402
from generate_store import generate  # noqa: E402

from memlens.store.opening import QUICK_CHECK_ON_READ_MAX_BYTES  # noqa: E402
from compiled_memlens import compile_memlens  # noqa: E402


def quick_check_seconds(store: Path) -> float:
    conn = sqlite3.connect(f"{store.resolve().as_uri()}?mode=ro", uri=True)
    try:
        started = time.perf_counter()
        assert conn.execute("PRAGMA quick_check(3)").fetchone()[0] == "ok"
        return time.perf_counter() - started
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--store", type=Path, help="an existing store (only read)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    compile_memlens()
    memlens = shutil.which("memlens") or sys.exit("memlens is not on PATH: pip install -e . first")
    with tempfile.TemporaryDirectory(prefix="memlens-opening-") as work:
        store = args.store
        if store is None:
            store = Path(work) / "bench.sqlite"
            print(f"generating {args.entities:,} entities ...", file=sys.stderr)
            generate(store, args.entities)
        copy = Path(work) / "copy.sqlite"
        shutil.copyfile(store, copy)
        env = dict(os.environ, MEMLENS_HOME=str(Path(work) / "home"))
        size = store.stat().st_size
        first = quick_check_seconds(store)
        best = min(quick_check_seconds(store) for _ in range(args.runs))
        db = ["--db", str(store)]
        rows = [
            ("PRAGMA quick_check, first run", first),
            (f"PRAGMA quick_check, best of {args.runs}", best),
            ("memlens stats", process_seconds([memlens, "stats", *db], env, args.runs)),
            ("memlens recall service", process_seconds([memlens, "recall", "service", *db], env, args.runs)),
            ("memlens remember (one fact, a write)", process_seconds(
                [memlens, "remember", "bench-subject:Concept --mentions--> bench-object:Concept", "--db", str(copy)],
                env, args.runs)),
            ("memlens export --format json", process_seconds(
                [memlens, "export", "-o", str(Path(work) / "s.json"), *db], env, 1)),
        ]
    checked = size <= QUICK_CHECK_ON_READ_MAX_BYTES
    print(f"\nstore {size / 2**20:,.0f} MB; reads {'run' if checked else 'skip'} quick_check "
          f"(bound {QUICK_CHECK_ON_READ_MAX_BYTES / 2**20:.0f} MB), writes always run it")
    print(f"{'measure':<42}{'seconds':>10}")
    for name, seconds in rows:
        print(f"{name:<42}{seconds:>10.3f}")


if __name__ == "__main__":
    main()
