"""Shapes benchmark (opt-in): the export, the page and the store on memories shaped like real ones.

    python benchmarks/bench_shapes.py [--shapes no-evidence,hubs,...] [--entities 10000]
                                      [--large 100000] [--skip-browser] [--skip-ingest]
                                      [--ingest-cap 120] [--cap 120] [--work DIR] [--json-out FILE]

Each shape (tests/shape_snapshots.py: no evidence, hubs, long functional histories, 5,000 open
contradictions, 3,000 near-duplicate groups half dismissed, long texts, a big ledger) is generated
at --entities, and "hubs-no-evidence" also at --large, then written into a real memlens dataset
through the store's snapshot loader (quicker than `remember`, whose functional settling makes long
histories take minutes). Then, per shape, one table beside the budgets:

- export: `memlens export --format html` as a child process: wall time, CPU time, peak memory;
  the file's size;
- the page in Debian's Chromium: DOM elements at load, first draw, redraw, a search, selecting the
  entity with the most facts (as vis reports a click on it, to the frame after the next
  requestAnimationFrame, so the panel's layout counts), an as-of change with it selected;
- the site: `memlens export --format site` as a process, and its largest page;
- the store: `memlens maintain --quiet` as a process, one `dismiss` in process (on a copy), and
  ingest: `memlens remember --stdin` of the shape's facts, in the order they were written, into an
  empty dataset, as a process (past --ingest-cap it is stopped and shown as "> cap").

Then one matrix of every shape's figures. The machine has 2 cores and is shared: read ratios.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from compiled_memlens import compile_memlens

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from bench_scale import (AS_OF, CHROMIUM, MEMLENS_SEARCH, REDRAW, Browser, log, median_of, remove,  # noqa: E402
                         run_each, run_measured)
from shape_snapshots import SHAPES  # noqa: E402

from memlens.store.memory import Memory  # noqa: E402
from memlens.store.snapshot.load import load_into  # noqa: E402

# The budgets on this 2-core machine: (10,000 entities, 100,000 entities); None: no budget.
BUDGETS: dict[str, tuple[float | None, float | None]] = {
    "export_cpu_s": (1.5, None), "export_s": (None, 10.0), "peak_mb": (None, 1536.0),
    "dom_nodes": (20_000, 20_000), "first_draw_s": (2.0, 3.0), "redraw_ms": (50.0, 50.0),
    "search_ms": (50.0, 50.0), "select_ms": (100.0, 200.0), "asof_ms": (50.0, 50.0),
    "site_page_mb": (1.0, 1.0), "dismiss_ms": (50.0, None), "ingest_s": (3.0, None),
}
# Source ledger rows the import's own rows already say (one per entity and fact): kept, they would
# double the ledger of every shape; the rest (supersede, contest, reassert, ...) are history.
SAID_BY_IMPORT = {"entity", "assert"}

# A click on a node, as vis emits it, then the frame after the next animation frame: the detail
# panel's style and layout are done by then.
SELECT = """async ({ id }) => {
  const network = window.memlens.network;
  const started = performance.now();
  network.selectNodes([id]);
  network.emit("click", { nodes: [id], edges: [], items: [], event: {},
                          pointer: { DOM: { x: 0, y: 0 }, canvas: { x: 0, y: 0 } } });
  const done = performance.now();
  const painted = await new Promise((resolve) => requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve(performance.now());
    channel.port2.postMessage(0);
  }));
  return { sync: done - started, frame: painted - started,
           selected: window.memlens.view.selected && window.memlens.view.selected.id === id,
           panel: document.getElementById("detail").getElementsByTagName("*").length,
           dom: document.getElementsByTagName("*").length };
}"""

DOM_NODES = "() => document.getElementsByTagName('*').length"


# -- the store -----------------------------------------------------------------------------------

def prepare_store(work: Path, name: str, entities: int, seed: int) -> tuple[Path, dict[str, Any]]:
    """The shape's dataset (reused from an earlier run with the same --work) and its facts as JSONL."""
    store = work / f"{name}-{entities}.sqlite"
    marker = store.with_suffix(".json")
    if store.exists() and marker.exists():
        return store, dict(json.loads(marker.read_text()), reused=True)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{store}{suffix}").unlink(missing_ok=True)
    started = time.perf_counter()
    snapshot = SHAPES[name](entities, seed).build()
    generated = time.perf_counter() - started
    snapshot["ledger"] = [row for row in snapshot["ledger"] if row["action"] not in SAID_BY_IMPORT]
    started = time.perf_counter()
    with Memory(store, actor="agent:bench") as memory:
        load_into(memory, snapshot, source="bench")
    loaded = time.perf_counter() - started
    (work / f"{name}-{entities}.jsonl").write_text(facts_jsonl(snapshot), encoding="utf-8")
    functional = sorted(r["name"] for r in snapshot["ontology"]["relations"] if r["functional"])
    figures = {"generate_s": generated, "load_s": loaded, "store_mb": store.stat().st_size / 1e6,
               "functional": functional, "reused": False}
    marker.write_text(json.dumps(figures))
    return store, figures


def facts_jsonl(snapshot: dict[str, Any]) -> str:
    """Every fact that still has its text, as `remember --stdin` reads them, in the order written."""
    entities = {e["id"]: e for e in snapshot["entities"]}
    lines = []
    for fact in sorted(snapshot["facts"], key=lambda f: (f["recorded_at"], f["id"])):
        if fact["status"] == "forgotten":
            continue
        subject, obj = entities[fact["subject"]], entities[fact["object"]]
        lines.append(json.dumps({"subject": subject["name"], "subject_type": subject["type"],
                                 "relation": fact["relation"], "object": obj["name"], "object_type": obj["type"],
                                 "description": fact["description"] or "", "evidence": fact["evidence"],
                                 "valid_from": fact["valid_from"], "valid_to": None}))
    return "\n".join(lines) + "\n"


def store_facts(store: Path) -> dict[str, Any]:
    """The snapshot's stats, the entity with most facts, a few long-tail names to search, and the
    first worklist key, read from the dataset itself."""
    with Memory(store, readonly=True) as memory:
        snapshot = memory.snapshot()
    count: dict[str, int] = {}
    for fact in snapshot["facts"]:
        for end in {fact["subject"], fact["object"]} - {None}:
            count[end] = count.get(end, 0) + 1
    names = {e["id"]: e["name"] for e in snapshot["entities"]}
    largest = max(count, key=lambda e: (count[e], e))
    # the least connected entities: the overview does not draw them, so a search has to reveal them
    tail = sorted(names, key=lambda e: (count.get(e, 0), names[e]))[:max(3, len(names) // 10)]
    tail.sort(key=lambda e: names[e])
    step = max(1, len(tail) // 3)
    kinds: dict[str, int] = {}
    for item in snapshot["maintenance"]:
        kinds[item["kind"]] = kinds.get(item["kind"], 0) + 1
    return {"stats": dict(snapshot["stats"]), "worklist": kinds, "dismissals": len(snapshot["dismissals"]),
            "largest": {"id": largest, "name": names[largest], "facts": count[largest]},
            "searches": [{"id": e, "name": names[e]} for e in tail[step // 2::step][:3]],
            "dismiss_key": snapshot["maintenance"][0]["key"] if snapshot["maintenance"] else None}


# -- commands ------------------------------------------------------------------------------------

def memlens_command(*args: str) -> list[str]:
    found = shutil.which("memlens")
    return ([found] if found else [sys.executable, "-c", "from memlens.viewer.cli import main; main()"]) + list(args)


def run_memlens(args: list[str], env: dict[str, str], timeout: float = 1800, stdin: Path | None = None) -> dict[str, Any]:
    if stdin is None:
        return run_measured(memlens_command(*args), env=env, timeout=timeout, stdin=subprocess.DEVNULL)
    with stdin.open("rb") as feed:
        return run_measured(memlens_command(*args), env=env, timeout=timeout, stdin=feed)


def failed(result: dict[str, Any]) -> str | None:
    if result["rc"] == 0:
        return None
    return ((result["stderr"] or result["stdout"]).strip().splitlines() or [f"exit {result['rc']}"])[-1][:200]


def export_figures(store: Path, work: Path, name: str, env: dict[str, str]) -> dict[str, Any]:
    report = work / f"{name}.html"
    remove(report)
    result = run_memlens(["export", "--db", str(store), "--format", "html", "-o", str(report), "--json"], env)
    if failed(result):
        return {"export_error": failed(result)}
    figures = {"export_s": result["wall_s"], "export_cpu_s": result["cpu_s"], "peak_mb": result["peak_mb"],
               "report_mb": report.stat().st_size / 1e6}
    site = work / f"{name}-site"
    remove(site)
    result = run_memlens(["export", "--db", str(store), "--format", "site", "-o", str(site), "--json"], env)
    if failed(result):
        return {**figures, "site_error": failed(result)}
    # index.html is the graph page: it carries the whole memory's data, as the report does
    pages = [(p.stat().st_size, p.relative_to(site).as_posix()) for p in site.rglob("*.html")
             if p.relative_to(site).as_posix() != "index.html"]
    biggest = max(pages)
    figures.update(site_s=result["wall_s"], site_cpu_s=result["cpu_s"], site_files=sum(1 for p in site.rglob("*") if p.is_file()),
                   site_page_mb=biggest[0] / 1e6, site_page=biggest[1])
    return figures


def store_figures(store: Path, work: Path, name: str, facts: dict[str, Any], functional: list[str],
                  env: dict[str, str], ingest: bool, ingest_cap: float) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    result = run_memlens(["maintain", "--quiet", "--db", str(store)], env)
    figures["maintain_s"] = None if failed(result) else result["wall_s"]
    if facts["dismiss_key"]:
        copy = work / f"{name}-dismiss.sqlite"
        # a consistent copy, whatever the WAL holds (a read-only store connection cannot VACUUM INTO)
        source, target = sqlite3.connect(f"file:{store}?mode=ro", uri=True), sqlite3.connect(copy)
        try:
            source.backup(target)
        finally:
            source.close()
            target.close()
        try:
            with Memory(copy, actor="agent:bench") as memory:
                started = time.perf_counter()
                memory.dismiss(facts["dismiss_key"], "benchmark: judged fine")
                figures["dismiss_ms"] = (time.perf_counter() - started) * 1000
        finally:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{copy}{suffix}").unlink(missing_ok=True)
    if ingest:
        fresh = work / f"{name}-ingest.sqlite"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{fresh}{suffix}").unlink(missing_ok=True)
        for relation in functional:
            run_memlens(["functional", relation, "--db", str(fresh)], env)
        result = run_memlens(["remember", "--stdin", "--db", str(fresh), "--json"], env, timeout=ingest_cap,
                             stdin=work / f"{name}.jsonl")
        if result["timed_out"]:
            figures["ingest_over_s"] = ingest_cap
        elif not failed(result):
            figures["ingest_s"] = result["wall_s"]
        else:
            figures["ingest_error"] = failed(result)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{fresh}{suffix}").unlink(missing_ok=True)
    return figures


# -- the page ------------------------------------------------------------------------------------

def page_figures(browser: Browser, report: Path, facts: dict[str, Any], cap_s: float) -> dict[str, Any]:
    page, context, _, first = browser.open(report, cap_s)
    if first is None:
        context.close()
        return {"first_draw_over_s": cap_s}
    figures: dict[str, Any] = {"first_draw_s": first}
    try:
        figures["dom_nodes"] = page.evaluate(DOM_NODES)
        figures["redraw_ms"] = page.evaluate(REDRAW)
        searches = []
        for target in facts["searches"]:
            searches.append(page.evaluate(MEMLENS_SEARCH, target))
            page.wait_for_timeout(500)  # the focus animation ends before the next one
        figures["search_ms"] = median_of([s["sync"] for s in searches])
        selections = []
        for _ in range(3):  # select something else in between, so each is a new selection
            page.evaluate("() => window.memlens.selectEntityById(null)")
            page.wait_for_timeout(200)
            selections.append(page.evaluate(SELECT, facts["largest"]))
        figures["select_ms"] = median_of([s["frame"] for s in selections])
        figures["select_script_ms"] = median_of([s["sync"] for s in selections])
        figures["select_ok"] = all(s["selected"] for s in selections)
        figures["panel_nodes"] = selections[-1]["panel"]
        figures["dom_after_select"] = selections[-1]["dom"]
        as_of = []
        for _ in range(3):
            for position in ("middle", "end"):
                result = page.evaluate(AS_OF, position)
                if result is not None and position == "middle":
                    as_of.append(result)
        figures["asof_ms"] = median_of([r["sync"] for r in as_of])
        figures["asof_frame_ms"] = median_of([r["frame"] for r in as_of])
    except Exception as exc:  # noqa: BLE001 - a page that breaks mid-way still reports what it did
        figures["page_error"] = str(exc).splitlines()[0][:200]
    context.close()
    return figures


# -- one shape -----------------------------------------------------------------------------------

def bench_shape(name: str, entities: int, args: argparse.Namespace, browser: Browser | None) -> dict[str, Any]:
    work = args.work
    label = f"{name}-{entities}"
    env = dict(os.environ, MEMLENS_HOME=str(work / "home"))
    log(f"[{label}] store ...")
    store, built = prepare_store(work, name, entities, args.seed)
    facts = store_facts(store)
    log(f"[{label}] exports ...")
    result: dict[str, Any] = {"shape": name, "entities": entities, "store": built, **facts}
    result.update(export_figures(store, work, label, env))
    if browser is not None and "export_error" not in result:
        log(f"[{label}] page ...")
        result.update(page_figures(browser, work / f"{label}.html", facts, args.cap))
    log(f"[{label}] maintain, dismiss, ingest ...")
    result.update(store_figures(store, work, label, facts, built["functional"], env, not args.skip_ingest,
                                args.ingest_cap))
    return result


# -- the tables ----------------------------------------------------------------------------------

MEASURES: list[tuple[str, str, str]] = [  # (label, key, unit)
    ("export: process", "export_s", "s"),
    ("export: CPU", "export_cpu_s", "s"),
    ("export: peak memory", "peak_mb", "MB"),
    ("file size", "report_mb", "MB"),
    ("DOM elements at load", "dom_nodes", "n"),
    ("first draw", "first_draw_s", "s"),
    ("redraw", "redraw_ms", "ms"),
    ("search", "search_ms", "ms"),
    ("select largest (next frame)", "select_ms", "ms"),
    ("  of which script", "select_script_ms", "ms"),
    ("  DOM elements in the panel", "panel_nodes", "n"),
    ("as-of with it selected", "asof_ms", "ms"),
    ("  to the next frame", "asof_frame_ms", "ms"),
    ("site export: process", "site_s", "s"),
    ("largest site page (not index.html)", "site_page_mb", "MB"),
    ("maintain: process", "maintain_s", "s"),
    ("one dismiss", "dismiss_ms", "ms"),
    ("ingest: remember --stdin", "ingest_s", "s"),
]
OVER = {"first_draw_s": "first_draw_over_s", "ingest_s": "ingest_over_s"}


def shown(value: Any, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "n":
        return f"{value:,}"
    if unit == "MB":
        return f"{value:.2f} MB" if value < 10 else f"{value:.0f} MB"
    return f"{value:.2f} s" if unit == "s" else f"{value:.0f} ms"


def cell(result: dict[str, Any], key: str, unit: str) -> str:
    if result.get(key) is None and result.get(OVER.get(key, "")):
        return f"> {result[OVER[key]]:.0f} s"
    return shown(result.get(key), unit)


def budget_cell(result: dict[str, Any], key: str, unit: str) -> str:
    limits = BUDGETS.get(key)
    if limits is None:
        return ""
    limit = limits[0] if result["entities"] <= 10_000 else limits[1]
    if limit is None:
        return ""
    value = result.get(key)
    over = value is None and result.get(OVER.get(key, ""))
    verdict = " OVER" if over or (value is not None and value > limit) else (" ok" if value is not None else "")
    return f"<= {shown(limit, unit)}{verdict}"


def print_shape(result: dict[str, Any]) -> None:
    s, store = result["stats"], result["store"]
    largest = result["largest"]
    worklist = ", ".join(f"{count:,} {kind}" for kind, count in sorted(result["worklist"].items())) or "empty"
    print(f"\n== {result['shape']} at {result['entities']:,} entities: {s['facts']:,} facts ({s['current']:,} current,"
          f" {s['superseded']:,} superseded), {s['open_contradictions']:,} open contradictions,"
          f" {s['dismissals']:,} dismissals, {s['ledger']:,} ledger rows ==")
    print(f"worklist: {worklist}; largest entity: {largest['name'][:40]!r} with {largest['facts']:,} facts;"
          f" store {store['store_mb']:.0f} MB" + (" (reused)" if store.get("reused") else
                                                 f", generated in {store['generate_s']:.0f} s, loaded in {store['load_s']:.0f} s"))
    rows = [[label, cell(result, key, unit), budget_cell(result, key, unit)] for label, key, unit in MEASURES]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for row in rows:
        print("  ".join([row[0].ljust(widths[0]), row[1].rjust(widths[1]), row[2]]).rstrip())
    for key in ("export_error", "site_error", "page_error", "ingest_error"):
        if result.get(key):
            print(f"  note: {key}: {result[key]}")
    if result.get("site_page"):
        print(f"  note: largest site page: {result['site_page']}")
    if result.get("select_ok") is False:
        print("  note: the largest entity did not end selected")


def print_matrix(results: list[dict[str, Any]]) -> None:
    """Every shape's figures side by side; a figure over its budget is marked with !."""
    header = ["measure"] + [f"{r['shape']}@{r['entities'] // 1000}k" for r in results]
    rows = []
    for label, key, unit in MEASURES:
        cells = []
        for result in results:
            text = cell(result, key, unit)
            cells.append(text + ("!" if budget_cell(result, key, unit).endswith("OVER") else ""))
        rows.append([label.strip()] + cells)
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    print()
    for row in [header] + rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    print("! = over its budget (10,000 entities: export CPU 1.5 s, first draw 2 s, DOM 20,000, select 100 ms,"
          " search/as-of/redraw 50 ms, site page 1 MB, dismiss 50 ms, ingest 3 s;"
          " 100,000: export 10 s, peak 1.5 GB, first draw 3 s, select 200 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=",".join(n for n in SHAPES if n != "hubs-no-evidence") + ",hubs-no-evidence",
                        help="comma-separated names from tests/shape_snapshots.py")
    parser.add_argument("--entities", type=int, default=10_000)
    parser.add_argument("--large", type=int, default=100_000, help="hubs-no-evidence also at this size (0: not)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--skip-browser", action="store_true")
    parser.add_argument("--skip-ingest", action="store_true")
    parser.add_argument("--ingest-cap", type=float, default=120.0, help="seconds before an ingest is stopped")
    parser.add_argument("--cap", type=float, default=120.0, help="seconds to wait for a page's first draw")
    parser.add_argument("--work", type=Path, help="keep stores and bundles here; stores found here are reused")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    compile_memlens()
    names = [n.strip() for n in args.shapes.split(",") if n.strip()]
    unknown = [n for n in names if n not in SHAPES]
    if unknown:
        sys.exit(f"unknown shapes: {', '.join(unknown)} (known: {', '.join(SHAPES)})")
    runs = [(n, args.entities) for n in names]
    if args.large and "hubs-no-evidence" in names:
        runs.append(("hubs-no-evidence", args.large))
    temporary = None if args.work else tempfile.TemporaryDirectory(prefix="memlens-shapes-")
    args.work = (args.work or Path(temporary.name)).resolve()
    args.work.mkdir(parents=True, exist_ok=True)
    browser = None if args.skip_browser or not os.path.exists(CHROMIUM) else Browser()
    results = run_each([(f"{name}-{entities}", (name, entities)) for name, entities in runs],
                       lambda run: bench_shape(*run, args, browser), lambda _, result: print_shape(result),
                       browser, temporary)
    print_matrix(results)
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=1, default=str))


if __name__ == "__main__":
    main()
