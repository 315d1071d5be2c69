"""Merge benchmark (opt-in): a teammate's bundle of N entities merged into a dataset of N entities,
beside the budget (10 s at 10,000 entities on the 2-core machine).

    python benchmarks/bench_bundle_merge.py [--entities 10000] [--format json|html|site] [--work DIR] [--runs 3]

Both memories come from generate_store.py with different seeds: the same N entity names (so every
entity is shared), each subject's first fact the same on both sides (a third of the facts shared,
with other evidence and their own valid times), the rest different (two thirds of theirs new), owners
with valid dates on both sides (the functional order at work), contradictions, retractions and a few
forgotten facts on each. Their memory is exported as a bundle (JSON by default; a report or a
site with --format), and then, each on a fresh copy of ours:
- `memlens import --from memlens BUNDLE --db OURS` as a whole process: reading the bundle, checking
  its seal and shape, the merge, the commit (wall and CPU of the child); the budget is for this;
- the merge alone, in process (`bundle_merge.take_bundle` on the snapshot read once);
- the same bundle again (nothing changes), as a whole process;
- `--dry-run` as a whole process (the merge, two snapshots and their diff, rolled back).
The best of --runs of each. What the merge did (its counts) is printed beside the figures.
"""
from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from compiled_memlens import compile_memlens

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate_store import generate  # noqa: E402

from memlens.store.bundle_merge import take_bundle  # noqa: E402
from memlens.store.memory import Memory  # noqa: E402
from memlens.viewer.reading import read_bundle  # noqa: E402

BUDGET_S = 10.0


def fresh_copy(source: Path, work: Path) -> Path:
    target = work / "ours-copy.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(source, target)
    return target


def child(args: list[str]) -> tuple[float, float, str]:
    """A whole `memlens` process: wall seconds, CPU seconds of the child, its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    memlens = shutil.which("memlens") or sys.exit("memlens is not on PATH: pip install -e . first")
    done = subprocess.run([memlens, *args], capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"memlens {' '.join(args)} failed: {done.stderr or done.stdout}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entities", type=int, default=10_000)
    parser.add_argument("--format", dest="fmt", choices=("json", "html", "site"), default="json")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    compile_memlens()
    work = options.work or Path(tempfile.mkdtemp(prefix="memlens-merge-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    ours, theirs = work / f"ours-{options.entities}.sqlite", work / f"theirs-{options.entities}.sqlite"
    for path, seed in ((ours, 7), (theirs, 11)):
        if not path.exists():
            print(f"generating {path.name}: {generate(path, options.entities, seed=seed)}", flush=True)
    bundle = work / {"json": "theirs.json", "html": "theirs.html", "site": "theirs-site"}[options.fmt]
    if not bundle.exists():
        child(["export", "--db", str(theirs), "--format", options.fmt, "-o", str(bundle)])

    timings: dict[str, list[tuple[float, float]]] = {"import": [], "again": [], "dry_run": [], "merge_in_process": []}
    counts: dict = {}
    snapshot = read_bundle(bundle)
    for _ in range(options.runs):
        copy = fresh_copy(ours, work)
        wall, cpu, out = child(["import", "--from", "memlens", str(bundle), "--db", str(copy), "--json"])
        timings["import"].append((wall, cpu))
        counts = json.loads(out)
        timings["again"].append(child(["import", "--from", "memlens", str(bundle), "--db", str(copy), "--json"])[:2])
        copy = fresh_copy(ours, work)
        timings["dry_run"].append(child(["import", "--from", "memlens", str(bundle), "--db", str(copy), "--dry-run",
                                         "--json"])[:2])
        copy = fresh_copy(ours, work)
        with Memory(copy) as memory:
            started, cpu_started = time.perf_counter(), time.process_time()
            take_bundle(memory, snapshot, bundle=snapshot["seal"]["content"])
            timings["merge_in_process"].append((time.perf_counter() - started, time.process_time() - cpu_started))

    print(f"\n{options.entities:,} entities into {options.entities:,}, a {options.fmt} bundle "
          f"({sum(p.stat().st_size for p in ([bundle] if bundle.is_file() else bundle.rglob('*'))) / 1e6:.1f} MB); "
          f"best of {options.runs}")
    for name, runs in timings.items():
        wall, cpu = min(runs)
        budget = f"  (budget {BUDGET_S:.0f} s: {'within' if wall <= BUDGET_S else 'OVER'})" if name == "import" else ""
        print(f"  {name:<17} {wall:6.2f} s wall  {cpu:6.2f} s CPU{budget}")
    changed = {k: v for k, v in counts.items() if isinstance(v, int) and not isinstance(v, bool) and v}
    print(f"  merge counts: {changed}; near misses {len(counts.get('near_misses', []))}")


if __name__ == "__main__":
    main()
