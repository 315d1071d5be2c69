"""Viewer benchmark (opt-in): render, write and draw a generated 10,000-entity store.

    python benchmarks/bench_view.py [--entities 10000] [--keep report.html]

Prints a table beside memoose's reference figures. Needs /usr/bin/chromium for the draw timings.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from viewer_fixtures import CHROMIUM, CHROMIUM_ARGS, large_snapshot  # noqa: E402

from memlens.viewer.bundle import write_report  # noqa: E402

BUDGETS = {"render+write": 1.5, "first draw": 2.0, "redraw": 0.040}
MEMOOSE = {"render+write": "0.63 s", "file size": "10.2 MB", "first draw": "27.9 s", "redraw": "549 ms"}


def time_render(snapshot: dict, path: Path, runs: int) -> float:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        write_report(snapshot, path)
        timings.append(time.perf_counter() - started)
    return min(timings)


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="keep the report at this path")
    args = parser.parse_args()

    snapshot = large_snapshot(entity_count=args.entities)
    facts, ledger = len(snapshot["facts"]), len(snapshot["ledger"])
    with tempfile.TemporaryDirectory() as folder:
        path = args.keep.resolve() if args.keep else Path(folder) / "report.html"
        render = time_render(snapshot, path, args.runs)
        size = path.stat().st_size
        browser = time_browser(path, args.runs)

    print(f"memlens view: {args.entities:,} entities, {facts:,} facts, {ledger:,} ledger rows")
    print(f"{'measure':<14}{'memlens':>12}{'budget':>10}{'ok':>5}{'memoose':>12}")
    rows = [("render+write", f"{render:.2f} s", render, BUDGETS["render+write"], "s"),
            ("file size", f"{size / 1e6:.1f} MB", None, None, "")]
    if browser:
        first, redraw, drawn = browser
        rows += [("first draw", f"{first:.2f} s", first, BUDGETS["first draw"], "s"),
                 ("redraw", f"{redraw * 1000:.1f} ms", redraw, BUDGETS["redraw"], "ms")]
    for name, shown, value, budget, unit in rows:
        budget_text = "" if budget is None else (f"{budget * 1000:.0f} ms" if unit == "ms" else f"{budget} s")
        ok = "" if budget is None else ("yes" if value <= budget else "NO")
        print(f"{name:<14}{shown:>12}{budget_text:>10}{ok:>5}{MEMOOSE[name]:>12}")
    if browser:
        print(f"(nodes drawn at first: {browser[2]:,}; the rest is revealed by search or expansion)")
    else:
        print("(first draw and redraw skipped: no chromium at " + CHROMIUM + ")")


if __name__ == "__main__":
    main()
