"""Regeneration benchmark (opt-in): a no-op regeneration of an unchanged store's bundle, process
start included, against the issue's budget of 0.3 s.

    python benchmarks/bench_regeneration.py [--entities 10000]

Times `memlens view --if-changed` (the hand-run check) and `memlens maintain --quiet` (the hook,
which also builds the worklist) as whole processes, best of five, after one real write.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate_store import generate  # noqa: E402
from compiled_memlens import compile_memlens  # noqa: E402

BUDGET_S = 0.3


def best_of(command: list[str], env: dict[str, str], runs: int = 5) -> float:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, env=env, check=True, capture_output=True)
        timings.append(time.perf_counter() - started)
    return min(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=10_000)
    args = parser.parse_args()
    compile_memlens()
    memlens = shutil.which("memlens") or sys.exit("memlens is not on PATH: pip install -e . first")
    with tempfile.TemporaryDirectory(prefix="memlens-regen-") as work:
        store, report = Path(work) / "bench.sqlite", Path(work) / "bench.html"
        env = dict(os.environ, MEMLENS_HOME=str(Path(work) / "home"))
        print(f"generating {args.entities:,} entities ...", file=sys.stderr)
        generate(store, args.entities)
        subprocess.run([memlens, "bundles", "add", str(report), "--db", str(store)], env=env, check=True,
                       capture_output=True)
        started = time.perf_counter()
        subprocess.run([memlens, "maintain", "--quiet", "--db", str(store)], env=env, check=True)
        first = time.perf_counter() - started
        view = best_of([memlens, "view", "--if-changed", "--no-open", "--db", str(store), "--out", str(report)], env)
        maintain = best_of([memlens, "maintain", "--quiet", "--db", str(store)], env)
        baseline = best_of([sys.executable, "-c", "pass"], env)
    print(f"\nno-op regeneration, {args.entities:,} entities (best of 5, process start included)")
    print(f"{'measure':<42}{'seconds':>10}{'budget':>10}")
    print(f"{'first maintain (writes the report)':<42}{first:>10.2f}{'':>10}")
    print(f"{'memlens view --if-changed (unchanged)':<42}{view:>10.3f}{BUDGET_S:>10.1f}")
    print(f"{'memlens maintain --quiet (unchanged)':<42}{maintain:>10.3f}{'':>10}")
    print(f"{'python -c pass (interpreter start)':<42}{baseline:>10.3f}{'':>10}")


if __name__ == "__main__":
    main()
