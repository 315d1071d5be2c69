"""Writers and readers as separate `memlens` processes on one store (opt-in): nothing lost, no error.

    python benchmarks/stress_open.py [--writers 6] [--writes 15] [--readers 3] [--reads 15]

Each writer runs `memlens remember` --writes times (every call opens the store for writing, with
its quick_check); each reader runs `memlens stats`, `recall` and `export --format json` in turn,
--reads times, while the writers work. Prints the processes run, the failures (any exit status but
0, with the first line of each distinct error), the facts the store holds against those written,
and the seconds it took.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, default=6)
    parser.add_argument("--writes", type=int, default=15)
    parser.add_argument("--readers", type=int, default=3)
    parser.add_argument("--reads", type=int, default=15)
    args = parser.parse_args()
    memlens = shutil.which("memlens") or sys.exit("memlens is not on PATH: pip install -e . first")
    with tempfile.TemporaryDirectory(prefix="memlens-stress-") as work:
        store = Path(work) / "shared.sqlite"
        env = dict(os.environ, MEMLENS_HOME=str(Path(work) / "home"))
        db = ["--db", str(store)]
        subprocess.run([memlens, "remember", "seed:Person --knows--> other:Person", *db], env=env, check=True,
                       capture_output=True)

        def writer(number: int) -> list[subprocess.CompletedProcess]:
            return [subprocess.run([memlens, "remember", f"w{number}-{i}:Task --written_by--> w{number}:Person", *db],
                                   env=env, capture_output=True, text=True) for i in range(args.writes)]

        def reader(number: int) -> list[subprocess.CompletedProcess]:
            commands = [["stats"], ["recall", "written"], ["export", "-o", str(Path(work) / f"r{number}.json")]]
            return [subprocess.run([memlens, *commands[i % 3], *db], env=env, capture_output=True, text=True)
                    for i in range(args.reads)]

        started = time.perf_counter()
        with ThreadPoolExecutor(args.writers + args.readers) as pool:
            jobs = [pool.submit(writer, n) for n in range(args.writers)]
            jobs += [pool.submit(reader, n) for n in range(args.readers)]
            done = [result for job in jobs for result in job.result()]
        seconds = time.perf_counter() - started
        failures = Counter((r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[0]
                           for r in done if r.returncode != 0)
        stats = json.loads(subprocess.run([memlens, "stats", "--json", *db], env=env, check=True,
                                          capture_output=True, text=True).stdout)
    written = 1 + args.writers * args.writes - sum(1 for r in done if r.returncode and "remember" in r.args)
    print(f"{len(done)} processes in {seconds:.1f} s; {sum(failures.values())} failed")
    for line, count in failures.most_common():
        print(f"  {count} x {line}")
    print(f"facts in the store: {stats['facts']} (written: {written})")


if __name__ == "__main__":
    main()
