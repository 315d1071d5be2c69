"""Viewer benchmark (opt-in): export a generated store as a report and as a site, and draw it.

    python benchmarks/bench_view.py [--entities 10000] [--store PATH] [--keep DIR]

Generates a store with benchmarks/generate_store.py (N entities, 3N facts, their ledger), then
measures the real export path: `Memory.snapshot()`, `write_report` and `write_site`, each the
best of --runs; the report's size; and its first draw and redraw in /usr/bin/chromium. Prints a
table beside memoose's reference figures and the budgets.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from compiled_memlens import compile_memlens

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from generate_store import generate  # noqa: E402
from viewer_fixtures import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

from memlens.store.memory import Memory  # noqa: E402
from memlens.viewer.report.write import write_report  # noqa: E402
from memlens.viewer.site.build import write_site  # noqa: E402

RAM_DISK = Path("/dev/shm")
BUDGETS = {"export": 1.5, "first draw": 2.0, "redraw": 0.040, "site export": 6.0}
MEMOOSE = {"export": "0.63 s", "file size": "10.2 MB", "first draw": "27.9 s", "redraw": "549 ms"}


def best_of(runs: int, action: Callable[[], Any]) -> tuple[float, Any]:
    """The shortest of `runs` timings (what the code costs, not what else the machine did)."""
    timings, result = [], None
    for _ in range(runs):
        started = time.perf_counter()
        result = action()
        timings.append(time.perf_counter() - started)
    return min(timings), result


def snapshot_of(store: Path) -> dict:
    with Memory(store, readonly=True) as memory:
        return memory.snapshot()


def time_export(store: Path, report: Path, site: Path, runs: int) -> dict[str, Any]:
    snapshot_s, snapshot = best_of(runs, lambda: snapshot_of(store))
    report_s, _ = best_of(runs, lambda: write_report(snapshot, report))
    export_s, _ = best_of(runs, lambda: write_report(snapshot_of(store), report))
    site_s, _ = best_of(runs, lambda: write_site(snapshot_of(store), site))
    site_files = sum(1 for p in site.rglob("*") if p.is_file())
    site_bytes = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    # the same into RAM: what the build itself costs, without the disk's file-creation latency
    ram_s = None
    if RAM_DISK.is_dir():
        with tempfile.TemporaryDirectory(dir=RAM_DISK) as ram:
            ram_s, _ = best_of(runs, lambda: write_site(snapshot_of(store), Path(ram) / "site"))
    return {"snapshot": snapshot_s, "write_report": report_s, "export": export_s, "site export": site_s,
            "site export (RAM)": ram_s,
            "file size": report.stat().st_size, "site files": site_files, "site size": site_bytes,
            "facts": len(snapshot["facts"]), "ledger": len(snapshot["ledger"]),
            "entities": len(snapshot["entities"])}


def time_browser(path: Path, runs: int) -> tuple[float, float, int] | None:
    """(first draw s, median redraw s, drawn nodes), or None without chromium."""
    if not os.path.exists(CHROMIUM):
        return None
    from playwright.sync_api import sync_playwright

    first_draws, redraws, drawn = [], [], 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(runs):
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                          else route.abort())
            page = context.new_page()
            page.goto(path.as_uri())
            page.wait_for_function("() => Boolean(window.memlens && window.memlens.ready)", timeout=60_000)
            first_draws.append(page.evaluate("window.memlens.firstDrawMs") / 1000)
            samples = page.evaluate("""() => {
                const network = window.memlens.network, times = [];
                for (let i = 0; i < 15; i++) {
                    const started = performance.now();
                    network.redraw();
                    times.push(performance.now() - started);
                }
                return times;
            }""")
            redraws.append(statistics.median(samples) / 1000)
            drawn = page.evaluate("window.memlens.network.body.data.nodes.length")
            context.close()
        browser.close()
    return min(first_draws), statistics.median(redraws), drawn


def print_table(entities: int, figures: dict[str, Any], browser: tuple[float, float, int] | None) -> None:
    print(f"memlens export: {figures['entities']:,} entities, {figures['facts']:,} facts, "
          f"{figures['ledger']:,} ledger rows")
    rows: list[tuple[str, str, str, str, str]] = []

    def add(name: str, shown: str, value: float | None = None, budget: float | None = None,
            unit: str = "s") -> None:
        budget_text = "" if budget is None else (f"<= {budget * 1000:.0f} ms" if unit == "ms" else f"<= {budget} s")
        ok = "" if budget is None or value is None else ("yes" if value <= budget else "NO")
        rows.append((name, shown, budget_text, ok, MEMOOSE.get(name, "")))

    add("snapshot", f"{figures['snapshot']:.2f} s")
    add("write_report", f"{figures['write_report']:.2f} s")
    add("export", f"{figures['export']:.2f} s", figures["export"], BUDGETS["export"])
    add("file size", f"{figures['file size'] / 1e6:.1f} MB")
    if browser:
        first, redraw, _ = browser
        add("first draw", f"{first:.2f} s", first, BUDGETS["first draw"])
        add("redraw", f"{redraw * 1000:.1f} ms", redraw, BUDGETS["redraw"], "ms")
    add("site export", f"{figures['site export']:.2f} s", figures["site export"], BUDGETS["site export"])
    if figures["site export (RAM)"] is not None:
        add("site export (RAM)", f"{figures['site export (RAM)']:.2f} s")
    add("site size", f"{figures['site size'] / 1e6:.0f} MB, {figures['site files']:,} files")
    widths = [max(len(r[i]) for r in rows + [("measure", "memlens", "budget", "ok", "memoose")]) for i in range(5)]
    header = ("measure", "memlens", "budget", "ok", "memoose")
    for row in [header] + rows:
        print("  ".join(cell.ljust(width) if i == 0 else cell.rjust(width)
                        for i, (cell, width) in enumerate(zip(row, widths))))
    print("export = Memory.snapshot() + write_report (render and atomic write), interpreter start excluded;")
    print("site export = Memory.snapshot() + write_site; (RAM) = the same into /dev/shm, so without the")
    print("disk's per-file creation cost (10,000 files). Every figure is the best of the runs.")
    if browser:
        print(f"(nodes drawn at first: {browser[2]:,}; the rest is revealed by search or expansion)")
    else:
        print("(first draw and redraw skipped: no chromium at " + CHROMIUM + ")")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--store", type=Path, help="reuse (or generate once at) this store path")
    parser.add_argument("--keep", type=Path, help="keep report.html and site/ in this directory")
    args = parser.parse_args()
    compile_memlens()

    with tempfile.TemporaryDirectory() as folder:
        store = args.store.resolve() if args.store else Path(folder) / "bench.sqlite"
        if not store.exists():
            print(f"generating a store of {args.entities:,} entities ...", file=sys.stderr)
            generate(store, args.entities)
        out = args.keep.resolve() if args.keep else Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        figures = time_export(store, out / "report.html", out / "site", args.runs)
        browser = time_browser(out / "report.html", args.runs)
    print_table(args.entities, figures, browser)


if __name__ == "__main__":
    main()
