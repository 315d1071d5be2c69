"""Stale-evidence benchmark (opt-in): how long `maintain` spends checking 1,000 cited files
against their git repository (store/evidence.py), beside its budget of 2 s on a 2-core machine.

    python benchmarks/bench_evidence.py [--files 1000] [--changed 100] [--runs 3] [--work DIR]

Built here, deterministically: a git repository of N files of 40 lines (one commit, a year before
the facts were recorded), a store with one fact citing each file (half the whole file, half
`#L10-20`), then 20 commits after the facts were recorded touching --changed of the files: half
cited whole, a quarter on the cited lines, a quarter elsewhere (blamed, and found unchanged there). Times `maintenance.stale_evidence` in process,
the best and the median of --runs, and counts what it found.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from memlens.store import maintenance
from memlens.store.facts import FactInput
from memlens.store.memory import Memory

BUDGET = 2.0


def git(repo: Path, *args: str, at: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": at, "GIT_COMMITTER_DATE": at, "GIT_AUTHOR_NAME": "b",
           "GIT_AUTHOR_EMAIL": "b@example.com", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def build(work: Path, files: int, changed: int) -> tuple[Path, Path]:
    repo, store = work / "repo", work / "store.sqlite"
    for n in range(files):
        path = repo / f"pkg{n % 25}" / f"module_{n}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"value_{n}_{line} = {line}\n" for line in range(1, 41)))
    git(repo, "init", "-q", at="2025-01-01T00:00:00Z")
    git(repo, "add", ".", at="2025-01-01T00:00:00Z")
    git(repo, "commit", "-qm", "all files", at="2025-01-01T00:00:00Z")
    clock = lambda: datetime(2026, 1, 1, tzinfo=timezone.utc)  # noqa: E731
    with Memory(store, clock=clock) as memory:
        memory.remember([FactInput(f"module_{n}", "defines", f"value_{n}", "Module", "Concept",
                                   evidence=(f"repo://pkg{n % 25}/module_{n}.py" + ("#L10-20" if n % 2 else ""),))
                         for n in range(files)], new=True)
    step = max(1, changed // 20)
    for commit, first in enumerate(range(0, changed, step)):
        for n in range(first, min(first + step, changed)):
            # even files are cited whole, odd ones at #L10-20: half of those change there, half elsewhere
            spread = files // max(changed, 1)
            index = n * spread + (n % 2 if spread > 1 else 0)
            path = repo / f"pkg{index % 25}" / f"module_{index}.py"
            lines = path.read_text().splitlines(keepends=True)
            lines[14 if n % 4 == 1 else 35] = f"value_{index} = 'changed'\n"
            path.write_text("".join(lines))
        git(repo, "commit", "-qam", f"change {commit}", at=f"2026-02-{commit + 1:02d}T00:00:00Z")
    return repo, store


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--changed", type=int, default=100, help="at most --files")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--work", type=Path)
    args = parser.parse_args()
    args.changed = min(args.changed, args.files)
    if shutil.which("git") is None:
        sys.exit("git is not on PATH")
    work = args.work or Path(tempfile.mkdtemp(prefix="memlens-bench-evidence-"))
    print(f"building {args.files:,} files and their facts in {work} ...", file=sys.stderr)
    repo, store = build(work, args.files, args.changed)
    timings = []
    with Memory(store, readonly=True) as memory:
        for _ in range(args.runs):
            start = time.perf_counter()
            stale, note = maintenance.stale_evidence(memory.conn, repo)
            timings.append(time.perf_counter() - start)
    print(f"stale evidence, {args.files:,} cited files ({args.changed} changed since; "
          f"{args.changed * 3 // 4} of them stale)")
    print(f"{'check: best':<44}{min(timings):>8.2f} s   budget {BUDGET:.1f} s")
    print(f"{'check: median':<44}{statistics.median(timings):>8.2f} s")
    print(f"{'facts found stale':<44}{len(stale):>8,}")
    print(f"{'note':<44}{note or '-':>8}")


if __name__ == "__main__":
    main()
