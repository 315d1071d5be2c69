"""Scale benchmark (opt-in): memlens against pyvis and memoose at 1,000 to 100,000 entities.

    python benchmarks/bench_scale.py [--sizes 1000,10000,100000] [--skip-browser]
                                     [--memoose-venv DIR] [--pyvis-max 10000] [--memoose-max 10000]
                                     [--runs 1] [--cap 120] [--work DIR] [--json-out FILE]

For each size N it generates a store with benchmarks/generate_store.py (N entities, 3N facts, ~2%
contested pairs, ~0.5% retracted, a few forgotten, with its ledger), supersedes a further share of
facts through the Memory API (the generator leaves none superseded), and then measures, in one run:

- memlens: ingest time (the generator's figure), `memlens export --format html` and `--format site`
  as whole child processes (wall time and peak RSS) and in process (Memory.snapshot() + the writer),
  the bundle's size, and in headless Chromium: first draw, redraw, a search and an as-of change;
- pyvis 0.3.2 on the same graph (networkx -> `Network.from_nx` -> `write_html`, resources inline):
  build time, peak RSS, size, first paint; skipped above --pyvis-max, where it would take hours;
- memoose 0.6.0's `memoose view` where memoose is installed (a venv given with --memoose-venv, or the
  current environment), after loading the same graph through its API: export time, peak RSS, size,
  first draw, redraw and its name filter; skipped above --memoose-max (loading is slow).

It prints one table per size with ratios (pyvis/memlens, memoose/memlens) beside the absolute
figures, because this machine is noisy and ratios taken in one run are what we compare, and the
budgets set for 100,000 entities. Pages open from file:// with every other request aborted; the
browser is Debian's /usr/bin/chromium, never a downloaded one.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

from compiled_memlens import compile_memlens

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from generate_store import generate  # noqa: E402
from viewer_fixtures import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

from memlens.store.memory import Memory  # noqa: E402

# The budgets, stated for 100,000 entities / 300,000 facts / their ledger on 2 cores.
BUDGETS = {"export_s": 10.0, "peak_mb": 1536.0, "first_draw_s": 3.0, "redraw_ms": 50.0,
           "search_ms": 50.0, "asof_ms": 50.0}
LINEAR_BOUND = 10.0  # 10,000 -> 100,000 entities: export may grow at most 10x
MEMOOSE_VIS = "vis-network-9.1.9.min.js"  # the file name `memoose view` looks for in its cache


# -- child processes ---------------------------------------------------------------------------

def run_measured(command: list[str], *, env: dict[str, str] | None = None,
                 timeout: float = 1800, stdin: Any = None) -> dict[str, Any]:
    """Run `command` to its end; its wall time, its CPU time, its peak memory and its output.

    The peak is read from /proc while it runs: the largest of the process's own high-water mark
    (VmHWM, which starts afresh at exec), read every 5 ms, and of what it and its forked workers
    hold together (see `tree_memory_kb`), read every 250 ms (reading it takes 10 ms a gigabyte
    of each process, which a 5 ms pace took from the process measured: 3.7 s of a 13.4 s export
    in three processes). The rusage of wait4 cannot serve: on Linux a child's
    ru_maxrss starts at its parent's resident size, so every child of this (large) benchmark
    process would read at least that much.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, env=env, stdin=stdin, stdout=out, stderr=err)
        deadline = started + timeout
        peak_kb, next_tree = 0, started
        while True:
            if time.perf_counter() >= next_tree:
                peak_kb = max(peak_kb, tree_memory_kb(process.pid))
                next_tree = time.perf_counter() + 0.25
            peak_kb = max(peak_kb, _status_kb(process.pid, "VmHWM"))
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                process.kill()
                pid, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.005)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)  # so Popen does not wait again
        out.seek(0)
        err.seek(0)
        # wait4's CPU times are the child's own and those of the children it waited for
        return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_mb": peak_kb / 1024,
                "rc": process.returncode, "timed_out": time.perf_counter() > deadline,
                "stdout": out.read().decode(errors="replace"), "stderr": err.read().decode(errors="replace")}


def _status_kb(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as listed:
            return [int(child) for child in listed.read().split()]
    except (OSError, ValueError):
        return []


def tree_memory_kb(pid: int) -> int:
    """max(VmHWM of `pid`, the memory `pid` and its descendants hold together), in kB; 0 once it is
    gone. Together is their proportional sizes (Pss) summed: a page a forked worker still shares
    with its parent counts once, where summing their resident sizes counted it in each (an export
    of 100,000 entities read 3.2 GB that way, three processes of about 1.1 GB sharing most of it).
    Pss costs a walk of the page tables, so a process without workers is read by its VmRSS.
    (Forking is not free: CPython's reference counts write to every object a worker reads, so the
    pages it reads are copied. A 100,000-entity report made in three processes held 2.4 GB, in
    one 1.5 GB.)"""
    tree, pending = [], [pid]
    while pending:
        current = pending.pop()
        tree.append(current)
        pending.extend(_children(current))
    if len(tree) == 1:
        together = _status_kb(pid, "VmRSS")
    else:
        together = sum(_pss_kb(member) for member in tree)
    return max(_status_kb(pid, "VmHWM"), together)


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def last_json_line(text: str) -> dict[str, Any]:
    for line in reversed(text.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise ValueError("no JSON line in the child's output")


def tree_size(path: Path) -> tuple[int, int]:
    """(bytes, files) of a file or a folder."""
    if path.is_file():
        return path.stat().st_size, 1
    files = [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


# -- the store ---------------------------------------------------------------------------------

def add_supersessions(store: Path, share: float, seed: int = 11) -> dict[str, Any]:
    """Supersede `share` of all facts, each by another current fact of the same subject.

    generate_store.py leaves nothing superseded (no subject repeats a functional relation), and a
    real memory carries a good share of replaced notes. Superseding within the subject keeps the
    store at exactly 3 facts per entity. The record clock continues after the generator's.
    """
    rng = random.Random(seed)
    with Memory(store, readonly=True) as memory:
        last = memory.conn.execute("SELECT max(at) FROM ledger").fetchone()[0]
        current = memory.facts()
        total = memory.stats()["facts"]
    moment = [datetime.strptime(last, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)]

    def clock() -> datetime:
        moment[0] += timedelta(seconds=30)
        return moment[0]

    by_subject: dict[str, list[str]] = {}
    for fact in current:
        by_subject.setdefault(fact["subject"], []).append(fact["id"])
    subjects = [s for s, ids in sorted(by_subject.items()) if len(ids) >= 2]
    wanted = min(len(subjects), round(share * total))
    started = time.perf_counter()
    done = 0
    with Memory(store, actor="agent:bench", clock=clock) as memory:
        for subject in rng.sample(subjects, wanted):
            old, new = rng.sample(by_subject[subject], 2)
            memory.supersede(old, new, "generated: a later note replaces this one")
            done += 1
    return {"superseded_added": done, "supersede_s": time.perf_counter() - started}


def prepare_store(work: Path, size: int, share: float) -> dict[str, Any]:
    """Generate (or reuse, from an earlier run with the same --work) the store of `size` entities."""
    store = work / f"store-{size}-{share:g}.sqlite"
    marker = store.with_suffix(".json")
    if store.exists() and marker.exists():
        figures = json.loads(marker.read_text())
        figures["reused"] = True
        return figures
    log(f"[{size:,}] generating the store ...")
    timings = generate(store, size)
    log(f"[{size:,}] generated in {timings['total_s']:.1f} s; superseding {share:.0%} of the facts ...")
    extra = add_supersessions(store, share)
    figures = {"store": str(store), "ingest_s": timings["ingest_s"], "generate_s": timings["total_s"],
               **extra, "store_mb": store.stat().st_size / 1e6, "reused": False}
    marker.write_text(json.dumps(figures))
    return figures


def graph_of(store: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The store's snapshot stats, and the graph pyvis and memoose get: live entities, current facts.

    Current facts are what memlens draws by default and what `memoose view` draws by default, so
    all three pages draw the same graph; memlens carries the history and the ledger besides.
    """
    with Memory(store, readonly=True) as memory:
        snapshot = memory.snapshot()
    live = {e["id"]: e for e in snapshot["entities"] if e["merged_into"] is None}
    facts = [f for f in snapshot["facts"] if f["status"] == "current" and f["subject"] in live
             and f["object"] in live]
    degree: dict[str, int] = {}
    for fact in facts:
        for end in (fact["subject"], fact["object"]):
            degree[end] = degree.get(end, 0) + 1
    graph = {
        "types": sorted({e["type"] for e in live.values()}),
        "entities": [{"id": e["id"], "name": e["name"], "type": e["type"], "description": e["description"] or "",
                      "degree": degree.get(e["id"], 0)} for e in live.values()],
        "facts": [{"source": live[f["subject"]]["name"], "relation": f["relation"],
                   "target": live[f["object"]]["name"], "description": f["description"] or "",
                   "evidence": "; ".join(f["evidence"] or []), "valid_from": f["valid_from"]} for f in facts],
    }
    stats = dict(snapshot["stats"], ledger_rows=len(snapshot["ledger"]))
    return stats, graph


# -- memlens exports ---------------------------------------------------------------------------

# Runs in a child so that its interpreter start and imports stay out of the figure.
IN_PROCESS = """
import gc, json, sys, time
from pathlib import Path
gc.disable()  # as every memlens command runs (viewer/cli/app.py)
from memlens.store.memory import Memory
from memlens.viewer.report.write import write_report
fmt, store, out = sys.argv[1:4]
if fmt == "site":
    from memlens.viewer.site.build import write_site
started = time.perf_counter()
with Memory(Path(store), readonly=True) as memory:
    snapshot = memory.snapshot()
snapped = time.perf_counter()
(write_report if fmt == "html" else write_site)(snapshot, out)
print(json.dumps({"snapshot_s": snapped - started, "write_s": time.perf_counter() - snapped}))
"""


def site_available() -> bool:
    return importlib.util.find_spec("memlens.viewer.site.build") is not None


def memlens_export(store: Path, fmt: str, out: Path, runs: int) -> dict[str, Any]:
    """`memlens export` as a whole process (best of `runs`), then the same export in process."""
    memlens = shutil.which("memlens")
    command = ([memlens] if memlens else [sys.executable, "-c", "from memlens.viewer.cli import main; main()"]) + ["export"]
    best: dict[str, Any] | None = None
    for _ in range(runs):
        remove(out)
        result = run_measured(command + ["--db", str(store), "--format", fmt, "-o", str(out), "--json"])
        if result["rc"] != 0:
            return {"error": ((result["stderr"] or result["stdout"]).strip().splitlines() or ["failed"])[-1]}
        if best is None or result["wall_s"] < best["wall_s"]:
            best = result
    size, files = tree_size(out)
    figures = {"process_s": best["wall_s"], "peak_mb": best["peak_mb"], "bytes": size, "files": files}
    timings: list[dict[str, Any]] = []
    for _ in range(runs):
        remove(out)
        child = run_measured([sys.executable, "-c", IN_PROCESS, fmt, str(store), str(out)])
        if child["rc"] != 0:
            figures["in_process_error"] = (child["stderr"].strip().splitlines() or ["failed"])[-1]
            break
        timings.append(dict(last_json_line(child["stdout"]), peak_mb=child["peak_mb"]))
    if timings:
        fastest = min(timings, key=lambda t: t["snapshot_s"] + t["write_s"])
        figures.update(snapshot_s=fastest["snapshot_s"], write_s=fastest["write_s"],
                       in_process_s=fastest["snapshot_s"] + fastest["write_s"],
                       in_process_peak_mb=fastest["peak_mb"])
    return figures


def remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()


# -- pyvis -------------------------------------------------------------------------------------

def pyvis_build(graph_file: str, out: str) -> dict[str, float]:
    """networkx graph -> pyvis Network.from_nx -> write_html with the library inline.

    directed=True because facts are directed, and because pyvis's undirected add_edge scans every
    edge for a duplicate, which would make pyvis look worse than it has to.
    """
    import networkx as nx
    from pyvis.network import Network

    graph = json.loads(Path(graph_file).read_text())
    started = time.perf_counter()
    g = nx.MultiDiGraph()
    for entity in graph["entities"]:
        g.add_node(entity["name"], label=entity["name"], group=entity["type"], title=entity["type"])
    for fact in graph["facts"]:
        g.add_edge(fact["source"], fact["target"], title=fact["relation"])
    built = time.perf_counter()
    network = Network(cdn_resources="in_line", directed=True)
    network.from_nx(g)
    converted = time.perf_counter()
    network.write_html(out)
    return {"networkx_s": built - started, "from_nx_s": converted - built,
            "write_s": time.perf_counter() - converted}


PYVIS_CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
from bench_scale import pyvis_build
print(json.dumps(pyvis_build(sys.argv[2], sys.argv[3])))
"""


def pyvis_export(graph_file: Path, out: Path, timeout: float) -> dict[str, Any]:
    result = run_measured([sys.executable, "-c", PYVIS_CHILD, str(HERE), str(graph_file), str(out)],
                          timeout=timeout)
    if result["rc"] != 0:
        return {"error": (result["stderr"].strip().splitlines() or [f"exit {result['rc']}"])[-1]}
    parts = last_json_line(result["stdout"])
    return {"process_s": result["wall_s"], "build_s": sum(parts.values()), **parts,
            "peak_mb": result["peak_mb"], "bytes": out.stat().st_size, "files": 1}


# -- memoose -----------------------------------------------------------------------------------

# Runs in memoose's own interpreter: loads the graph through its public API, in batches.
MEMOOSE_LOAD = """
import json, sys, time
from memoose import Engine, EntityIn, RelationIn
from memoose.store.embeddings import HashEmbedder
graph = json.load(open(sys.argv[1]))
batch = 2000
started = time.perf_counter()
engine = Engine(embedder=HashEmbedder())  # no model download: the hash embedder is built in
ds = engine.dataset(sys.argv[2])
for name in graph["types"]:
    if ds.ontology.get(name) is None:
        ds.add_entity_type(name, "memlens benchmark type")
entities = {e["name"]: e for e in graph["entities"]}
E = lambda e: EntityIn(name=e["name"], type=e["type"], description=e["description"])
linked = set()
facts = graph["facts"]
for start in range(0, len(facts), batch):
    chunk = facts[start:start + batch]
    ends = {n for f in chunk for n in (f["source"], f["target"])}
    linked |= ends
    ds.remember([E(entities[n]) for n in sorted(ends)],
                [RelationIn(source=f["source"], name=f["relation"], target=f["target"],
                            description=f["description"], evidence=f["evidence"] or None,
                            valid_from=f["valid_from"]) for f in chunk])
alone = [e for n, e in entities.items() if n not in linked]
for start in range(0, len(alone), batch):
    ds.remember([E(e) for e in alone[start:start + batch]], [])
engine.close()
print(json.dumps({"load_s": time.perf_counter() - started}))
"""


def find_memoose(venv: Path | None) -> tuple[list[str], str] | None:
    """(the command that runs memoose's interpreter, how it was found), or None."""
    if venv is not None:
        python = venv / "bin" / "python"
        if not python.exists():
            sys.exit(f"--memoose-venv {venv}: no bin/python there")
        return [str(python)], "venv"
    if importlib.util.find_spec("memoose") is not None:
        return [sys.executable], "current environment"
    return None


def vis_library() -> Path:
    """pyvis's vis-network build: what memoose needs in its cache to write a page that draws offline."""
    import pyvis

    return Path(pyvis.__file__).parent / "templates" / "lib" / "vis-9.1.2" / "vis-network.min.js"


def memoose_export(python: list[str], graph_file: Path, data_dir: Path, out: Path,
                   timeout: float) -> dict[str, Any]:
    """Load the graph into a fresh memoose data dir, then time `memoose view --no-open`."""
    remove(data_dir)
    (data_dir / "cache").mkdir(parents=True)
    shutil.copyfile(vis_library(), data_dir / "cache" / MEMOOSE_VIS)
    env = dict(os.environ, MEMOOSE_DATA_DIR=str(data_dir), HOME=str(data_dir / "home"))
    loaded = run_measured(python + ["-c", MEMOOSE_LOAD, str(graph_file), "bench"], env=env, timeout=timeout)
    if loaded["rc"] != 0:
        return {"error": "load: " + (loaded["stderr"].strip().splitlines() or ["failed"])[-1]}
    view = run_measured(python + ["-c", "import sys; from memoose.cli import main; sys.exit(main())",
                                  "-d", "bench", "view", "--no-open", "--out", str(out)], env=env, timeout=timeout)
    if view["rc"] != 0:
        return {"error": "view: " + (view["stderr"].strip().splitlines() or ["failed"])[-1]}
    return {"load_s": last_json_line(loaded["stdout"])["load_s"], "process_s": view["wall_s"],
            "peak_mb": view["peak_mb"], "bytes": out.stat().st_size, "files": 1,
            # without its cache memoose falls back to a CDN <script src>, and then draws nothing offline
            "self_contained": '<script src="https://' not in out.read_text(encoding="utf-8")}


# -- the browser -------------------------------------------------------------------------------

# Installed before any page script: window.vis is pre-set, so the vis-network bundle (which does
# `vis = vis || {}` and then `vis.Network = ...`) hands its Network class to our setter. We wrap its
# prototype's emit before any network exists, so no event is missed, even one fired inside the
# constructor. This times pyvis's and memoose's pages, which say nothing themselves.
PROBE = """
(() => {
  const probe = window.__bench = { firstDraw: null, stabilized: null, network: null };
  const holder = {};
  let Real;
  Object.defineProperty(holder, "Network", { configurable: true, enumerable: true,
    get() { return Real; },
    set(value) {
      Real = value;
      const emit = value.prototype.emit;
      value.prototype.emit = function (name, ...rest) {
        if (!probe.network) probe.network = this;
        const now = performance.now();
        if (name === "afterDrawing" && probe.firstDraw === null) probe.firstDraw = now;
        if ((name === "stabilizationIterationsDone" || name === "stabilized") && probe.stabilized === null)
          probe.stabilized = now;
        return emit.call(this, name, ...rest);
      };
    } });
  window.vis = holder;
})();
"""

NETWORK = "(window.memlens && window.memlens.network) || window.__bench.network"

# Where memlens's first draw goes: the file read (navigation timing), then the page's own marks.
LOAD_PHASES = """() => {
  const read = performance.getEntriesByType("navigation")[0].responseEnd;
  const marks = (window.memlens && window.memlens.timings) || {};
  return { file_read: read, script_start: marks.start, data_loaded: marks.dataLoaded,
           graph_built: marks.graphBuilt, first_draw: marks.firstDraw };
}"""

REDRAW = f"""() => {{
  const network = {NETWORK}, times = [];
  for (let i = 0; i < 15; i++) {{
    const started = performance.now();
    network.redraw();
    times.push(performance.now() - started);
  }}
  times.sort((a, b) => a - b);
  return times[7];
}}"""

# A promise for the next frame vis draws, or null if none comes within 5 s (nothing changed). A frame
# drawn inside the synchronous handlers (vis's selectNodes redraws at once) counts as drawn when they end.
NEXT_FRAME = f"""const network = {NETWORK};
  const drawn = new Promise((resolve) => {{
    network.once("afterDrawing", () => resolve(performance.now()));
    setTimeout(() => resolve(null), 5000);
  }});"""

# Types the whole name at once (as a paste does) and presses Enter, timed in the page: the input
# event ranks every entity, Enter picks the first match, reveals it if it was not drawn, selects
# it and starts the focus animation; all synchronous. Then the first frame drawn after it.
MEMLENS_SEARCH = f"""async ({{ name, id }}) => {{
  {NEXT_FRAME}
  const input = document.getElementById("search-input");
  const started = performance.now();
  input.focus();
  input.value = name;
  input.dispatchEvent(new Event("input", {{ bubbles: true }}));
  input.dispatchEvent(new KeyboardEvent("keydown", {{ key: "Enter", bubbles: true, cancelable: true }}));
  const done = performance.now();
  const frame = await drawn;
  return {{ sync: done - started, frame: frame === null ? null : Math.max(frame, done) - started,
           selected: network.getSelectedNodes().includes(id) }};
}}"""

# memoose's box filters (dims every node that does not match) rather than picking one.
MEMOOSE_SEARCH = f"""async ({{ name }}) => {{
  {NEXT_FRAME}
  const input = document.getElementById("q");
  const started = performance.now();
  input.value = name;
  input.dispatchEvent(new Event("input", {{ bubbles: true }}));
  const done = performance.now();
  const frame = await drawn;
  input.value = "";
  input.dispatchEvent(new Event("input", {{ bubbles: true }}));
  return {{ sync: done - started, frame: frame === null ? null : Math.max(frame, done) - started, selected: true }};
}}"""

# The record-time slider to `position` ("middle" or "end"), with the events a person's drag sends.
AS_OF = f"""async (position) => {{
  {NEXT_FRAME}
  const slider = document.getElementById("asof-record");
  if (!slider || slider.disabled) return null;
  const max = Number(slider.max);
  const started = performance.now();
  slider.value = String(position === "middle" ? Math.floor(max / 2) : max);
  slider.dispatchEvent(new Event("input", {{ bubbles: true }}));
  slider.dispatchEvent(new Event("change", {{ bubbles: true }}));
  const done = performance.now();
  const frame = await drawn;
  return {{ sync: done - started, frame: frame === null ? null : Math.max(frame, done) - started }};
}}"""


class Browser:
    """One headless Debian Chromium for the whole run; a fresh context per page."""

    def __init__(self) -> None:
        from playwright.sync_api import sync_playwright

        self._playwright = sync_playwright().start()
        self.browser = self._playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)

    def close(self) -> None:
        self.browser.close()
        self._playwright.stop()

    def open(self, path: Path, cap_s: float) -> tuple[Any, Any, list[str], float | None]:
        """(page, context, blocked requests, first draw in s or None past the cap)."""
        context = self.browser.new_context(viewport={"width": 1280, "height": 800})
        blocked: list[str] = []

        def route(route: Any) -> None:
            if route.request.url.startswith("file:"):
                route.continue_()
            else:
                blocked.append(route.request.url)
                route.abort()

        context.route("**/*", route)
        context.set_default_timeout(cap_s * 1000)
        page = context.new_page()
        page.add_init_script(PROBE)
        from playwright.sync_api import TimeoutError as PageTimeout

        try:
            page.goto(path.resolve().as_uri(), wait_until="commit", timeout=cap_s * 1000)
            # a function, not an expression: memlens's CSP refuses eval'd expressions
            page.wait_for_function("() => (window.memlens && window.memlens.ready) || window.__bench.firstDraw !== null"
                                   " || window.__bench.stabilized !== null", timeout=cap_s * 1000, polling=50)
        except PageTimeout:  # the page did not draw within the cap
            return page, context, blocked, None
        first = page.evaluate("""() => {
            if (window.memlens && typeof window.memlens.firstDrawMs === "number") return window.memlens.firstDrawMs;
            const p = window.__bench, seen = [p.firstDraw, p.stabilized].filter((t) => t !== null);
            return seen.length ? Math.min(...seen) : performance.now();
        }""")
        return page, context, blocked, first / 1000


def median_of(samples: list[float | None]) -> float | None:
    present = [s for s in samples if s is not None]
    return statistics.median(present) if present else None


def page_timings(browser: Browser, path: Path, kind: str, *, runs: int, cap_s: float,
                 searches: list[dict[str, str]]) -> dict[str, Any]:
    """First draw (best of `runs` loads), then redraw, search and as-of change on the last load."""
    firsts: list[float] = []
    figures: dict[str, Any] = {}
    for run in range(runs):
        page, context, blocked, first = browser.open(path, cap_s)
        figures["blocked_requests"] = len(blocked)
        if first is None:
            context.close()
            return {**figures, "first_draw_s": None, "over_cap_s": cap_s}
        firsts.append(first)
        if run < runs - 1:
            context.close()
    figures["first_draw_s"] = min(firsts)
    try:
        figures["redraw_ms"] = page.evaluate(REDRAW)
        figures["drawn_nodes"] = page.evaluate(f"() => ({NETWORK}).body.data.nodes.length")
        if kind in ("memlens", "memoose"):
            figures.update(search_timings(page, kind, searches))
        if kind == "memlens":
            figures["load_phases"] = page.evaluate(LOAD_PHASES)
            figures.update(as_of_timings(page))
    except Exception as exc:  # noqa: BLE001 - a page that breaks mid-way still reports what it drew
        figures["page_error"] = str(exc).splitlines()[0][:200]
    context.close()
    return figures


def search_timings(page: Any, kind: str, searches: list[dict[str, str]]) -> dict[str, Any]:
    script = MEMLENS_SEARCH if kind == "memlens" else MEMOOSE_SEARCH
    results = []
    for target in searches:
        results.append(page.evaluate(script, target))
        page.wait_for_timeout(500)  # let the 350 ms focus animation end before the next search
    return {"search_ms": median_of([r["sync"] for r in results]),
            "search_frame_ms": median_of([r["frame"] for r in results]),
            "search_first_ms": results[0]["sync"] if results else None,
            "search_selected": sum(1 for r in results if r["selected"]), "searches": len(results)}


def as_of_timings(page: Any) -> dict[str, Any]:
    """Alternate the record-time slider between its middle and its end; the median of each."""
    to_middle, to_end = [], []
    for _ in range(3):
        for position, bucket in (("middle", to_middle), ("end", to_end)):
            result = page.evaluate(AS_OF, position)
            if result is None:
                return {"asof_ms": None}
            bucket.append(result)
    return {"asof_ms": median_of([r["sync"] for r in to_middle]),
            "asof_frame_ms": median_of([r["frame"] for r in to_middle]),
            "asof_back_ms": median_of([r["sync"] for r in to_end])}


def search_targets(graph: dict[str, Any], count: int = 5) -> list[dict[str, str]]:
    """Long-tail entities (degree 1-2), spread over the list: the ones not drawn in the overview,
    so a search has to reveal them, which is the slow path."""
    tail = [e for e in graph["entities"] if 0 < e["degree"] <= 2] or graph["entities"]
    step = max(1, len(tail) // count)
    return [{"name": e["name"], "id": e["id"]} for e in tail[step // 2::step][:count]]


# -- the table ---------------------------------------------------------------------------------

def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} s"


def millis(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} ms"


def megabytes(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f} MB"


def size_text(figures: dict[str, Any]) -> str:
    if "bytes" not in figures:
        return "-"
    text = f"{figures['bytes'] / 1e6:.1f} MB"
    return text + (f", {figures['files']:,} files" if figures.get("files", 1) > 1 else "")


def ratio(other: float | None, ours: float | None) -> str:
    if other is None or ours is None or ours <= 0:
        return ""
    return f"{other / ours:.1f}x"


def row_for(measure: str, key: str, show, result: dict[str, Any], budget: str | None = None,
            other_keys: tuple[str, str] | None = None) -> list[str]:
    """One table row: memlens | pyvis | memoose | pyvis/memlens | memoose/memlens | budget."""
    mine = result["memlens"].get(key)
    py_key, moo_key = other_keys or (key, key)
    tools = [result[tool] if isinstance(result.get(tool), dict) else {} for tool in ("pyvis", "memoose")]
    theirs = [tool.get(k) for tool, k in zip(tools, (py_key, moo_key))]
    cells = [show(value) for value in theirs]
    ratios = [ratio(value, mine) for value in theirs]
    for i, tool in enumerate(tools):
        if key == "first_draw_s" and tool.get("over_cap_s"):  # it never drew: at least the cap
            cells[i] = f"> {tool['over_cap_s']:.0f} s"
            ratios[i] = "> " + ratio(tool["over_cap_s"], mine) if mine else ""
    budget_text = ""
    if budget:
        limit = BUDGETS[budget]
        unit = {"export_s": "s", "first_draw_s": "s", "peak_mb": "MB"}.get(budget, "ms")
        verdict = "" if mine is None else (" ok" if mine <= limit else " OVER")
        budget_text = f"<= {limit:g} {unit}{verdict}"
    return [measure, show(mine), *cells, *ratios, budget_text]


def tool_notes(result: dict[str, Any], tool: str) -> list[str]:
    """Why a column is empty: skipped, not installed, failed, or past the cap."""
    value = result.get(tool)
    if isinstance(value, str):
        return [f"{tool}: {value}"]
    notes = []
    for key, label in (("error", "error"), ("in_process_error", "in-process error"), ("page_error", "page error")):
        if isinstance(value, dict) and value.get(key):
            notes.append(f"{tool}: {label}: {value[key]}")
    if isinstance(value, dict) and value.get("over_cap_s"):
        notes.append(f"{tool}: no first draw within the {value['over_cap_s']:.0f} s cap (> cap)")
    return notes


def print_table(size: int, result: dict[str, Any]) -> None:
    store, m = result["store"], result["memlens"]
    print(f"\n== {size:,} entities: {store['facts']:,} facts ({store['current']:,} current, "
          f"{store['superseded']:,} superseded, {store['retracted']:,} retracted, {store['forgotten']:,} forgotten, "
          f"{store['contested']:,} contested), {store['ledger_rows']:,} ledger rows ==")
    print(f"store: generated in {store['generate_s']:.1f} s, then {store['superseded_added']:,} supersessions through"
          f" Memory.supersede in {store['supersede_s']:.1f} s; {store['store_mb']:.0f} MB"
          + (" (reused from an earlier run in --work)" if store.get("reused") else ""))
    site = result.get("site", {})
    rows = [
        ["ingest (generate_store)", seconds(store["ingest_s"]), "", "", "", "", ""],
        row_for("export html: process", "process_s", seconds, result, "export_s"),
        row_for("  in process", "in_process_s", seconds, result, other_keys=("build_s", None)),
        row_for("  of which snapshot", "snapshot_s", seconds, result),
        row_for("  peak RSS", "peak_mb", megabytes, result, "peak_mb"),
        row_for("bundle size", "bytes", lambda v: "-" if v is None else f"{v / 1e6:.1f} MB", result),
    ]
    if isinstance(site, dict) and "process_s" in site:
        rows += [
            ["export site: process", seconds(site["process_s"]), "", "", "", "", ""],
            ["  in process", seconds(site.get("in_process_s")), "", "", "", "", ""],
            ["  peak RSS", megabytes(site["peak_mb"]), "", "", "", "", ""],
            ["  size", size_text(site), "", "", "", "", ""],
        ]
    else:
        rows.append(["export site", "n/a" if isinstance(site, str) else "error", "", "", "", "", ""])
    if result.get("browser"):
        rows += [
            row_for("first draw", "first_draw_s", seconds, result, "first_draw_s"),
            row_for("redraw (median of 15)", "redraw_ms", millis, result, "redraw_ms"),
            row_for("search (in page)", "search_ms", millis, result, "search_ms"),
            row_for("  to the next frame", "search_frame_ms", millis, result),
            row_for("as-of change (in page)", "asof_ms", millis, result, "asof_ms"),
            row_for("  to the next frame", "asof_frame_ms", millis, result),
            row_for("nodes drawn at first", "drawn_nodes", lambda v: "-" if v is None else f"{v:,}", result),
            row_for("requests blocked", "blocked_requests", lambda v: "-" if v is None else str(v), result),
        ]
    header = ["measure", "memlens", "pyvis", "memoose", "pyvis/ml", "memoose/ml", "budget (100k)"]
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    for line in [header] + rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths))))
    notes = [n for tool in ("memlens", "site", "pyvis", "memoose") for n in tool_notes(result, tool)]
    if m.get("search_selected") is not None:
        notes.append(f"memlens search: {m['search_selected']}/{m['searches']} searched entities ended selected"
                     f"; the first (cold) search took {m['search_first_ms']:.0f} ms")
    phases = m.get("load_phases") or {}
    if all(isinstance(phases.get(k), (int, float)) for k in ("file_read", "data_loaded", "graph_built")):
        notes.append("memlens first draw, ms from navigation start: file read {file_read:.0f}, script start"
                     " {script_start:.0f}, data loaded {data_loaded:.0f}, graph built {graph_built:.0f},"
                     " drawn {first_draw:.0f}".format(**phases))
    if m.get("asof_back_ms") is not None:
        notes.append(f"memlens as-of back to now: {m['asof_back_ms']:.1f} ms")
    if isinstance(result.get("memoose"), dict) and "search_ms" in result["memoose"]:
        notes.append("memoose search = its name filter (dims every node that does not match); it selects nothing")
    if isinstance(result.get("memoose"), dict) and "load_s" in result["memoose"]:
        notes.append(f"memoose: loading the graph through its API took {result['memoose']['load_s']:.1f} s")
    for note in notes:
        print("  note: " + note)


def print_growth(results: dict[int, dict[str, Any]]) -> None:
    if 10_000 not in results or 100_000 not in results:
        return
    small, large = results[10_000]["memlens"], results[100_000]["memlens"]
    for key, label in (("in_process_s", "in process"), ("process_s", "whole process")):
        if small.get(key) and large.get(key):
            factor = large[key] / small[key]
            verdict = "within" if factor <= LINEAR_BOUND else "OVER"
            print(f"export growth 10,000 -> 100,000 entities ({label}): {factor:.1f}x "
                  f"({verdict} the linear bound of {LINEAR_BOUND:.0f}x)")


# -- one size ----------------------------------------------------------------------------------

def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_each(runs: list[tuple[str, Any]], bench: Callable[[Any], Any], show: Callable[[Any, Any], None],
             browser: Browser | None, temporary: tempfile.TemporaryDirectory | None) -> list[Any]:
    """`bench` each run in turn, its table shown as soon as it is done; the browser and the
    temporary folder are let go whatever happens. `runs`: (label, run) pairs."""
    results = []
    try:
        for label, run in runs:
            started = time.perf_counter()
            results.append(bench(run))
            log(f"[{label}] done in {time.perf_counter() - started:.0f} s")
            show(run, results[-1])
            sys.stdout.flush()
    finally:
        if browser is not None:
            browser.close()
        if temporary is not None:
            temporary.cleanup()
    return results


def bench_size(size: int, args: argparse.Namespace, work: Path, browser: Browser | None,
               memoose: tuple[list[str], str] | None) -> dict[str, Any]:
    store_figures = prepare_store(work, size, args.superseded_share)
    store = Path(store_figures["store"])
    stats, graph = graph_of(store)
    graph_file = work / f"graph-{size}.json"
    graph_file.write_text(json.dumps(graph))
    result: dict[str, Any] = {"store": {**store_figures, **stats}}

    log(f"[{size:,}] memlens export --format html ...")
    report = work / f"memlens-{size}.html"
    result["memlens"] = memlens_export(store, "html", report, args.runs)
    if site_available():
        log(f"[{size:,}] memlens export --format site ...")
        result["site"] = memlens_export(store, "site", work / f"memlens-{size}-site", args.runs)
    else:
        result["site"] = "n/a: memlens.viewer.site.build is not there yet"

    pyvis_page = work / f"pyvis-{size}.html"
    if size > args.pyvis_max:
        result["pyvis"] = f"skipped above --pyvis-max {args.pyvis_max:,} (from_nx is quadratic in nodes)"
    else:
        log(f"[{size:,}] pyvis build ...")
        result["pyvis"] = pyvis_export(graph_file, pyvis_page, timeout=args.cap * 10)

    memoose_page = work / f"memoose-{size}.html"
    if memoose is None:
        result["memoose"] = "memoose not installed (pip install memoose into a venv and pass --memoose-venv)"
    elif size > args.memoose_max:
        result["memoose"] = f"skipped above --memoose-max {args.memoose_max:,}"
    else:
        log(f"[{size:,}] memoose load + view ...")
        result["memoose"] = memoose_export(memoose[0], graph_file, work / f"memoose-data-{size}", memoose_page,
                                           timeout=args.cap * 10)

    if browser is not None:
        result["browser"] = True
        targets = search_targets(graph)
        log(f"[{size:,}] memlens page ...")
        if "error" not in result["memlens"]:
            result["memlens"].update(page_timings(browser, report, "memlens", runs=args.runs, cap_s=args.cap,
                                                  searches=targets))
        for tool, page in (("pyvis", pyvis_page), ("memoose", memoose_page)):
            if isinstance(result[tool], dict) and "error" not in result[tool]:
                log(f"[{size:,}] {tool} page (cap {args.cap:.0f} s) ...")
                result[tool].update(page_timings(browser, page, tool, runs=1, cap_s=args.cap, searches=targets))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000",
                        help="entity counts, comma-separated (3 facts per entity)")
    parser.add_argument("--skip-browser", action="store_true", help="no Chromium timings")
    parser.add_argument("--memoose-venv", type=Path, help="a venv with memoose installed (never this one)")
    parser.add_argument("--pyvis-max", type=int, default=10_000, help="skip pyvis above this many entities")
    parser.add_argument("--memoose-max", type=int, default=10_000,
                        help="skip memoose above this many entities (loading 10,000 through its API takes minutes)")
    parser.add_argument("--superseded-share", type=float, default=0.10,
                        help="share of facts superseded on top of the generator's store")
    parser.add_argument("--runs", type=int, default=1, help="memlens exports and page loads: best of this many")
    parser.add_argument("--cap", type=float, default=120.0, help="seconds to wait for a page's first draw")
    parser.add_argument("--work", type=Path, help="keep stores and pages here; stores found here are reused")
    parser.add_argument("--json-out", type=Path, help="write every figure as JSON here too")
    args = parser.parse_args()
    compile_memlens()
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]

    memoose = find_memoose(args.memoose_venv.resolve() if args.memoose_venv else None)
    browser = None
    if not args.skip_browser:
        if os.path.exists(CHROMIUM):
            browser = Browser()
        else:
            log(f"no Chromium at {CHROMIUM}: page timings skipped")
    temporary = None if args.work else tempfile.TemporaryDirectory(prefix="memlens-scale-")
    work = args.work.resolve() if args.work else Path(temporary.name)
    work.mkdir(parents=True, exist_ok=True)
    results = dict(zip(sizes, run_each([(f"{size:,}", size) for size in sizes],
                                        lambda size: bench_size(size, args, work, browser, memoose),
                                        print_table, browser, temporary)))
    print()
    print_growth(results)
    print("ratios: the other tool's figure over memlens's; above 1, the other tool takes longer or more.")
    print("memlens export = `memlens export` as a child process (interpreter start included); in process ="
          " Memory.snapshot() + write_report/write_site; peak RSS of that process.")
    print("pyvis = networkx MultiDiGraph -> Network(cdn_resources='in_line', directed=True).from_nx -> write_html,"
          " in a child process; the pyvis/ml ratio of 'in process' compares it with memlens's in-process export.")
    print("first draw = ms from navigation start to the first vis 'afterDrawing' (memlens: window.memlens.firstDrawMs;"
          " pyvis/memoose: the first drawing or the end of stabilization); search and as-of are timed in the page"
          " around the synchronous event handlers; 'to the next frame' waits for vis to draw.")
    if memoose is not None:
        print(f"memoose found in the {memoose[1]}; its vis cache is pyvis's vis-network 9.1.2 build.")
    if args.json_out:
        args.json_out.write_text(json.dumps({str(k): v for k, v in results.items()}, indent=1, default=str))


if __name__ == "__main__":
    main()
