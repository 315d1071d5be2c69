"""Store benchmark (opt-in): bulk ingest, a write into a long functional key, one dismiss, and
`view --from memoose` against memoose's own export, each beside its budget.

    python benchmarks/bench_store.py [--entities 10000] [--memoose-venv DIR] [--work DIR]
                                     [--cap 900] [--skip-shapes] [--skip-memoose | --only-memoose] [--runs 3]

Every input is built here, deterministically (fixed seeds):
- ingest: `memlens remember --stdin` of N entities / 3N facts as a whole process (wall and CPU of
  the child), for the uniform shape (evidence on every fact, `owned_by` functional with valid dates)
  and, unless --skip-shapes, for shapes it was not tuned on: no evidence on any fact; hubs (every
  other fact points at one of three entities, the largest holding N/2 facts); 50 subjects x 500
  values of one functional relation, in random order.
- functional write: one subject with 1,000 values of a functional relation, then 100 single-fact
  writes into that key at random valid dates (most of them late), timed in process.
- dismiss: the no-evidence store (3N open candidates) plus contradictions, hotspots and duplicate
  names; `Memory.dismiss` of candidates of each kind timed in process, and one `memlens dismiss`
  as a whole process for scale.
- view --from memoose: the uniform store's graph loaded into memoose 0.6.0 through its API (about 4
  minutes at 10,000 entities; kept in --work and reused), then `memlens view --from memoose PATH`
  and `memoose view` of that one file, whole processes taken in turns, the best of --runs of each:
  wall and CPU, and their ratios. memoose is found as in bench_scale.py (--memoose-venv, or
  installed here); without it the row says so. --only-memoose runs this part alone.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

from compiled_memlens import compile_memlens

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_scale import MEMOOSE_LOAD, MEMOOSE_VIS, find_memoose, graph_of, last_json_line, vis_library  # noqa: E402

from memlens.store.facts import FactInput  # noqa: E402
from memlens.store.memory import Memory  # noqa: E402

BUDGETS = {"ingest_s": 3.0, "functional_write_ms": 5.0, "dismiss_ms": 50.0, "memoose_ratio": 1.5}
TYPES = ["Person", "Service", "Module", "Library", "Config", "Task", "Bug", "Decision", "File", "Concept"]
RELATIONS = ["depends_on", "calls", "owned_by", "mentions", "part_of", "fixes", "configures", "uses"]


# -- inputs ------------------------------------------------------------------------------------

def _line(subject: str, subject_type: str, relation: str, object_: str, object_type: str, *,
          evidence: list[str], valid_from: str | None = None, description: str = "") -> str:
    return json.dumps({"subject": subject, "subject_type": subject_type, "relation": relation, "object": object_,
                       "object_type": object_type, "description": description, "evidence": evidence,
                       "valid_from": valid_from})


def uniform(n: int, *, evidence: bool = True, seed: int = 7) -> list[str]:
    """generate_store.py's graph as JSON Lines: 3 facts per entity, preferential attachment."""
    rng = random.Random(seed)
    names = [f"{TYPES[i % len(TYPES)].lower()}-{i:06d}" for i in range(n)]
    kinds = {name: TYPES[i % len(TYPES)] for i, name in enumerate(names)}
    lines = []
    for i, name in enumerate(names):
        for k in range(3):
            target = names[int(n * rng.random() ** 3)] if k else names[(i * 7919 + 1) % n]
            if target == name:
                target = names[(i + 1) % n]
            relation = RELATIONS[(i + k) % len(RELATIONS)]
            day = (date(2024, 1, 1) + timedelta(days=rng.randrange(700))).isoformat()
            lines.append(_line(name, kinds[name], relation, target, kinds[target],
                               evidence=[f"repo://src/{name}.py#L{rng.randrange(1, 400)}"] if evidence else [],
                               valid_from=day if relation == "owned_by" else None,
                               description=f"{name} {relation.replace('_', ' ')} {target}"))
    return lines


def hubs(n: int, seed: int = 11) -> list[str]:
    """3 facts per entity; every other one points at one of three hubs (the largest gets N/2)."""
    rng = random.Random(seed)
    names = [f"{TYPES[i % len(TYPES)].lower()}-{i:06d}" for i in range(n)]
    kinds = {name: TYPES[i % len(TYPES)] for i, name in enumerate(names)}
    centre = [("the-project", "Concept"), ("the-user", "Person"), ("core-service", "Service")]
    lines = []
    for i, name in enumerate(names):
        for k in range(3):
            if (i * 3 + k) % 2 == 0:
                hub, hub_type = centre[0] if k == 0 else centre[1 + (i % 2)]
                lines.append(_line(name, kinds[name], RELATIONS[(i + k) % 8], hub, hub_type,
                                   evidence=[f"repo://src/{name}.py#L{k}"]))
            else:
                target = names[rng.randrange(n)]
                lines.append(_line(name, kinds[name], RELATIONS[(i + k) % 8], target, kinds[target],
                                   evidence=[f"repo://src/{name}.py#L{k}"]))
    return lines


def long_histories(subjects: int = 50, values: int = 500, seed: int = 13) -> list[str]:
    """`version` (functional) of each subject over `values` dated values, arriving in random order."""
    rng = random.Random(seed)
    lines = [
        _line(f"package-{s:03d}", "Library", "version", f"package-{s:03d}@{v}", "Config",
              evidence=[f"changelog {v}"], valid_from=(date(2015, 1, 1) + timedelta(days=3 * v)).isoformat())
        for s in range(subjects) for v in range(values)
    ]
    rng.shuffle(lines)
    return lines


# -- child processes ---------------------------------------------------------------------------

def run_timed(command: list[str], *, env: dict[str, str], stdin: Path | None = None,
              timeout: float = 900) -> dict[str, Any]:
    """Run `command` to its end: wall time, the child's CPU time (user + system) and its status."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            (open(stdin, "rb") if stdin else open(os.devnull, "rb")) as given:
        started = time.perf_counter()
        process = subprocess.Popen(command, env=env, stdin=given, stdout=out, stderr=err)
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - started > timeout:
                process.kill()
                os.wait4(process.pid, 0)
                return {"timeout": True, "wall_s": timeout}
            time.sleep(0.002)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "rc": process.returncode,
                "stdout": out.read().decode(errors="replace"), "stderr": err.read().decode(errors="replace")}


def memlens_command() -> list[str]:
    return [shutil.which("memlens") or sys.exit("memlens is not on PATH: pip install -e . first")]


def ingest(name: str, lines: list[str], work: Path, env: dict[str, str], cap: float,
           functional: tuple[str, ...] = ()) -> dict[str, Any]:
    """`memlens remember --stdin` of `lines` into a new store; the store is kept for what follows."""
    store, source = work / f"{name}.sqlite", work / f"{name}.jsonl"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{store}{suffix}").unlink(missing_ok=True)
    source.write_text("\n".join(lines) + "\n")
    for relation in functional:
        subprocess.run(memlens_command() + ["functional", relation, "--db", str(store)], env=env, check=True,
                       capture_output=True)
    result = run_timed(memlens_command() + ["remember", "--stdin", "--db", str(store)], env=env, stdin=source,
                       timeout=cap)
    if result.get("timeout"):
        return {"store": store, "error": f"> {cap:.0f} s (stopped)"}
    if result["rc"] != 0:
        return {"store": store, "error": (result["stderr"].strip().splitlines() or ["failed"])[-1]}
    return {"store": store, "wall_s": result["wall_s"], "cpu_s": result["cpu_s"], "facts": len(lines),
            "output_lines": len(result["stdout"].splitlines())}


# -- in-process figures ------------------------------------------------------------------------

class Clock:
    """A clock a minute apart per reading, from a start; writes get distinct record times."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=1)
        return self.now


def functional_write(work: Path, env: dict[str, str], cap: float, writes: int = 100) -> dict[str, Any]:
    """100 single-fact writes into a functional key that already holds 1,000 values."""
    rng = random.Random(17)
    lines = [_line("billing", "Service", "owned_by", f"owner-{v:04d}", "Person", evidence=[f"note {v}"],
                   valid_from=(date(2020, 1, 1) + timedelta(days=2 * v)).isoformat()) for v in range(1000)]
    rng.shuffle(lines)
    built = ingest("functional-1000", lines, work, env, cap, functional=("owned_by",))
    if "error" in built:
        return {"error": "building the key: " + built["error"]}
    timings, fresh = [], []
    with Memory(built["store"], actor="bench:store", clock=Clock(datetime(2030, 1, 1, tzinfo=timezone.utc))) as memory:
        for k in range(writes):
            day = (date(2020, 1, 1) + timedelta(days=rng.randrange(2200))).isoformat()
            item = FactInput("billing", "owned_by", f"late-{k:03d}", "Service", "Person", valid_from=day,
                             evidence=(f"bench {k}",))
            started = time.perf_counter()
            memory.remember([item])
            timings.append((time.perf_counter() - started) * 1000)
            item = FactInput(f"subject-{k:03d}", "owned_by", "owner-0001", "Service", "Person", valid_from=day)
            started = time.perf_counter()
            memory.remember([item])
            fresh.append((time.perf_counter() - started) * 1000)
    timings.sort()
    return {"median_ms": statistics.median(timings), "p95_ms": timings[int(len(timings) * 0.95) - 1],
            "fresh_median_ms": statistics.median(fresh)}


def dismiss_figures(store: Path, env: dict[str, str]) -> dict[str, Any]:
    """Dismiss candidates of every kind from a 10,000-entity store with 30,000 open candidates."""
    rng = random.Random(19)
    later = Clock(datetime(2031, 1, 1, tzinfo=timezone.utc))
    with Memory(store, actor="bench:store", clock=later) as memory:
        current = sorted(f["id"] for f in memory.facts())
        for a, b in zip(rng.sample(current, 20), rng.sample(current, 20)):
            if a != b:
                try:
                    memory.contest(a, b, "bench contradiction", 0.5)
                except Exception:  # noqa: BLE001 - a pair already contested is fine to skip
                    pass
        later.now += timedelta(days=2)  # recorded apart from the first values: hotspots
        memory.remember([FactInput(f"service-{i:06d}", "calls", f"module-{i + 1:06d}", "Service", "Module",
                                   evidence=("bench",)) for i in range(1, 200, 10)])
        memory.remember([FactInput(f"Service {i:06d}", "mentions", "concept-000009", "Service", "Concept",
                                   evidence=("bench",)) for i in range(1, 200, 10)])
        by_kind: dict[str, list[str]] = {}
        for candidate in memory.worklist():
            by_kind.setdefault(candidate.kind, []).append(candidate.key)
        timings: dict[str, list[float]] = {}
        for kind, keys in sorted(by_kind.items()):
            for key in rng.sample(keys, min(5, len(keys))):
                started = time.perf_counter()
                memory.dismiss(key, "bench: fine as it is")
                timings.setdefault(kind, []).append((time.perf_counter() - started) * 1000)
        remaining = memory.worklist()
    key = next(c.key for c in remaining if c.kind == "unsupported")
    process = run_timed(memlens_command() + ["dismiss", key, "--reason", "bench", "--db", str(store)], env=env)
    baseline = run_timed(memlens_command() + ["--help"], env=env)
    every = [t for values in timings.values() for t in values]
    return {"median_ms": statistics.median(every), "max_ms": max(every),
            "by_kind": {kind: statistics.median(values) for kind, values in timings.items()},
            "candidates": {kind: len(keys) for kind, keys in by_kind.items()},
            "process_s": process["wall_s"], "help_s": baseline["wall_s"]}


# -- memoose -----------------------------------------------------------------------------------

def memoose_figures(store: Path, work: Path, venv: Path | None, env: dict[str, str], runs: int = 3) -> dict[str, Any]:
    found = find_memoose(venv)
    if found is None:
        return {"error": "memoose not installed (pip install memoose==0.6.0 into a venv; pass --memoose-venv)"}
    python = found[0]
    data_dir = work / "memoose-data"
    tool_env = dict(env, MEMOOSE_DATA_DIR=str(data_dir), HOME=str(data_dir / "home"))
    marker = data_dir / "loaded.json"
    if not marker.exists():
        shutil.rmtree(data_dir, ignore_errors=True)
        (data_dir / "cache").mkdir(parents=True)
        shutil.copyfile(vis_library(), data_dir / "cache" / MEMOOSE_VIS)
        _stats, graph = graph_of(store)
        graph_file = work / "memoose-graph.json"
        graph_file.write_text(json.dumps(graph))
        print("loading the graph into memoose (minutes) ...", file=sys.stderr)
        loaded = run_timed(python + ["-c", MEMOOSE_LOAD, str(graph_file), "bench"], env=tool_env, timeout=3600)
        if loaded.get("rc") != 0:
            return {"error": "memoose load failed: " + loaded.get("stderr", "timeout")[-300:]}
        marker.write_text(json.dumps(last_json_line(loaded["stdout"])))
    files = sorted(p for p in data_dir.glob("*.sqlite"))
    if len(files) != 1:
        return {"error": f"expected one memoose store in its data dir, found {len(files)}"}
    theirs, ours = [], []
    for _ in range(runs):  # taken in turns, so a busy moment on the machine falls on both
        theirs.append(run_timed(python + ["-c", "import sys; from memoose.cli import main; sys.exit(main())", "-d",
                                          "bench", "view", "--no-open", "--out", str(work / "memoose.html")],
                                env=tool_env))
        ours.append(run_timed(memlens_command() + ["view", "--from", "memoose", str(files[0]), "--no-open", "--out",
                                                   str(work / "memlens-from-memoose.html")], env=env))
    for result in theirs + ours:
        if result["rc"] != 0:
            return {"error": "view failed: " + result["stderr"][-300:]}
    memoose_s, memlens_s = min(r["wall_s"] for r in theirs), min(r["wall_s"] for r in ours)
    memoose_cpu_s, memlens_cpu_s = min(r["cpu_s"] for r in theirs), min(r["cpu_s"] for r in ours)
    return {"memoose_s": memoose_s, "memlens_s": memlens_s, "ratio": memlens_s / memoose_s,
            "memoose_cpu_s": memoose_cpu_s, "memlens_cpu_s": memlens_cpu_s, "cpu_ratio": memlens_cpu_s / memoose_cpu_s,
            "found": found[1]}


# -- the table ---------------------------------------------------------------------------------

def row(measure: str, value: str, budget: str = "") -> str:
    return f"{measure:<58}{value:>18}{budget:>12}"


def ingest_rows(label: str, result: dict[str, Any], budget: bool) -> list[str]:
    if "error" in result:
        return [row(f"ingest {label}", result["error"], "3.0 s" if budget else "")]
    return [row(f"ingest {label}: whole process", f"{result['wall_s']:.2f} s", "3.0 s" if budget else ""),
            row(f"ingest {label}: CPU", f"{result['cpu_s']:.2f} s"),
            row(f"ingest {label}: lines printed", f"{result['output_lines']:,}")]


def store_figures(args: argparse.Namespace, work: Path, env: dict[str, str], lines: list[str],
                  log: Callable[[str], None]) -> dict[str, Any]:
    """Ingest of every shape, the functional write and dismiss; rows go to `lines`. The uniform
    store's result is returned: memoose loads its graph."""
    n = args.entities
    log(f"ingest, uniform: {n:,} entities / {3 * n:,} facts ...")
    uniform_result = ingest("uniform", uniform(n), work, env, args.cap, functional=("owned_by",))
    lines += ingest_rows(f"{3 * n:,} facts, uniform", uniform_result, True)
    log("ingest, no evidence ...")
    bare = ingest("no-evidence", uniform(n, evidence=False), work, env, args.cap, functional=("owned_by",))
    lines += ingest_rows(f"{3 * n:,} facts, no evidence", bare, True)
    if not args.skip_shapes:
        log("ingest, hubs ...")
        lines += ingest_rows(f"{3 * n:,} facts, hubs (largest {3 * n // 2:,})", ingest("hubs", hubs(n), work, env,
                                                                                       args.cap), True)
        log("ingest, 50 x 500 functional values in random order ...")
        lines += ingest_rows("25,000 facts, 50 subjects x 500 functional values",
                             ingest("histories", long_histories(), work, env, args.cap, functional=("version",)), False)
    log("functional writes ...")
    written = functional_write(work, env, args.cap)
    if "error" in written:
        lines.append(row("write into a 1,000-value functional key", written["error"], "5 ms"))
    else:
        lines += [row("write into a 1,000-value functional key: median", f"{written['median_ms']:.1f} ms", "5 ms"),
                  row("write into a 1,000-value functional key: p95", f"{written['p95_ms']:.1f} ms", "5 ms"),
                  row("write, new subject (for scale): median", f"{written['fresh_median_ms']:.1f} ms")]
    if "error" not in bare:
        log("dismiss ...")
        dismissed = dismiss_figures(bare["store"], env)
        lines += [row(f"dismiss at {n:,} entities: median (in process)", f"{dismissed['median_ms']:.1f} ms", "50 ms"),
                  row(f"dismiss at {n:,} entities: slowest (in process)", f"{dismissed['max_ms']:.1f} ms", "50 ms")]
        lines += [row(f"  dismiss {kind} ({dismissed['candidates'][kind]:,} open): median", f"{ms:.1f} ms")
                  for kind, ms in dismissed["by_kind"].items()]
        lines += [row("memlens dismiss: whole process", f"{dismissed['process_s']:.2f} s"),
                  row("memlens --help: whole process (for scale)", f"{dismissed['help_s']:.2f} s")]
    return uniform_result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=10_000)
    parser.add_argument("--memoose-venv", type=Path)
    parser.add_argument("--work", type=Path, help="keep stores here (the memoose store is reused)")
    parser.add_argument("--cap", type=float, default=900, help="stop an ingest after this many seconds")
    parser.add_argument("--skip-shapes", action="store_true")
    parser.add_argument("--skip-memoose", action="store_true")
    parser.add_argument("--runs", type=int, default=3, help="runs of each view (the best is shown)")
    parser.add_argument("--only-memoose", action="store_true",
                        help="only view --from memoose against memoose view (the stores in --work are reused)")
    args = parser.parse_args()
    compile_memlens()
    work = args.work or Path(tempfile.mkdtemp(prefix="memlens-bench-store-"))
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, MEMLENS_HOME=str(work / "home"))
    n = args.entities
    lines: list[str] = []

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    uniform_result: dict[str, Any] = {"store": work / "uniform.sqlite"}
    if not args.only_memoose:
        uniform_result = store_figures(args, work, env, lines, log)
    elif not (work / "memoose-data" / "loaded.json").exists():
        log(f"ingest, uniform: {n:,} entities / {3 * n:,} facts (to load into memoose) ...")
        uniform_result = ingest("uniform", uniform(n), work, env, args.cap, functional=("owned_by",))
    if not args.skip_memoose and "error" not in uniform_result:
        log("view --from memoose ...")
        compared = memoose_figures(uniform_result["store"], work, args.memoose_venv, env, args.runs)
        if "error" in compared:
            lines.append(row("view --from memoose vs memoose view", compared["error"][:60]))
        else:
            best = f"(best of {args.runs})"
            lines += [row(f"memoose view: whole process {best}", f"{compared['memoose_s']:.2f} s"),
                      row("  its CPU", f"{compared['memoose_cpu_s']:.2f} s"),
                      row(f"memlens view --from memoose: whole process {best}", f"{compared['memlens_s']:.2f} s"),
                      row("  its CPU", f"{compared['memlens_cpu_s']:.2f} s"),
                      row("memlens / memoose, whole process", f"{compared['ratio']:.2f}x", "1.5x"),
                      row("memlens / memoose, CPU", f"{compared['cpu_ratio']:.2f}x")]
    print(f"\nstore benchmark, {n:,} entities (2-core machine: compare ratios taken in one run)")
    print(row("measure", "figure", "budget"))
    print("\n".join(lines))
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
