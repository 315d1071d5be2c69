"""The report's search in headless Chromium: its first use (reading every word into the index)
and each keystroke after it, at 10,000 and 100,000 entities; and what the search adds to a report.

    python benchmarks/bench_page_search.py [--entities 10000 100000] [--keep DIR]

The memory is tests/viewer_fixtures.large_snapshot (hubs and a long tail, three facts an entity)
with every fact given a description of 8-24 words drawn from a 6,000-word vocabulary (Zipf), as
notes are, besides its evidence. Budgets (issue 24): a keystroke at most 50 ms at 100,000 entities
after the first use, the first use at most 300 ms, and the 10,000-entity report at most 10% larger
for the search. The search's share of a report is the bytes of its code (the stop words, porter.js,
search_index.js, search.js): it ships no data of its own, and builds its index in the page.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from viewer_fixtures import CHROMIUM, CHROMIUM_ARGS, large_snapshot  # noqa: E402

from memlens.viewer.report import assets  # noqa: E402
from memlens.viewer.report.write import write_report  # noqa: E402

BUDGETS = {"keystroke_ms": 50.0, "first_use_ms": 300.0, "share": 0.10}
SEARCH_FILES = ("porter.js", "search_index.js", "search.js")

# One input event as typing sends it, timed in the page: rank and paint are synchronous.
KEYSTROKE = """(text) => {
  const input = document.getElementById("search-input");
  const started = performance.now();
  input.value = text;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  return performance.now() - started;
}"""

# The first input once the page has settled (the index is read in idle slices after load): timed
# to its answer. `build` is how long reading the words took, in slices, from the page's first idle.
FIRST_USE = """async (text) => {
  const input = document.getElementById("search-input");
  await window.memlens.search.indexed();
  input.focus();
  const started = performance.now();
  input.value = text;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  const built = await window.memlens.search.indexed();
  await null; // the search's own answer, queued before this one
  return { total: performance.now() - started, build: built,
           options: document.querySelectorAll("#search-results .search-option").length };
}"""


def vocabulary(rng: random.Random, size: int = 6000) -> list[str]:
    consonants, vowels = "bcdfghklmnprstvwz", "aeiou"
    words: set[str] = set()
    while len(words) < size:
        syllables = rng.randrange(1, 4)
        words.add("".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(syllables))
                  + rng.choice(["", "s", "ed", "ing", "er", "ation", "ly", "ment"]))
    return sorted(words)


def with_notes(snapshot: dict[str, Any], seed: int = 24) -> tuple[dict[str, Any], list[str]]:
    """Every current fact's description made a note of 8-24 words; returns the snapshot and some
    questions made of a note's words."""
    rng = random.Random(seed)
    words = vocabulary(rng)
    weights = [1 / (rank + 1) for rank in range(len(words))]
    questions = []
    for n, fact in enumerate(snapshot["facts"]):
        if fact.get("status") == "forgotten":
            continue
        note = rng.choices(words, weights, k=rng.randrange(8, 25))
        fact["description"] = " ".join(note)
        if n % 5000 == 7:
            questions.append(" ".join(sorted(set(note), key=note.index)[-3:]))
    return snapshot, questions


def search_share() -> int:
    """The bytes of the search's code in a report."""
    static = __import__("importlib.resources", fromlist=["files"]).files("memlens.static")
    return len(assets._stop_words_script().encode()) + sum(
        len(static.joinpath(name).read_text(encoding="utf-8").encode()) for name in SEARCH_FILES)


def measure(entities: int, folder: Path, browser: Any) -> dict[str, Any]:
    snapshot, questions = with_notes(large_snapshot(entity_count=entities))
    path = write_report(snapshot, folder / f"search-{entities}.html")
    size = path.stat().st_size
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
    page = context.new_page()
    page.goto(f"file://{path}")
    page.wait_for_function("() => Boolean(window.memlens && window.memlens.ready)", timeout=600_000)
    first = page.evaluate(FIRST_USE, questions[0].split()[0][:3])
    strokes = []
    for question in questions[1:]:
        for end in range(1, len(question) + 1):
            strokes.append(page.evaluate(KEYSTROKE, question[:end]))
        listed = page.evaluate("() => document.querySelectorAll('#search-results .search-fact').length")
        assert listed, f"no fact listed for {question!r}"
    context.close()
    strokes.sort()
    return {"entities": entities, "facts": len(snapshot["facts"]), "report_bytes": size,
            "first_use_ms": first["total"], "index_build_ms": first["build"],
            "keystroke_median_ms": statistics.median(strokes), "keystroke_p95_ms": strokes[int(len(strokes) * 0.95)],
            "keystroke_max_ms": strokes[-1], "keystrokes": len(strokes)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--keep", type=Path, help="write the reports here (default: a temporary folder)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    share = search_share()
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        print(f"{'entities':>9} {'facts':>8} {'report':>9} {'search':>7} {'first use':>10} {'(index)':>8} "
              f"{'key median':>11} {'key p95':>8} {'key max':>8}")
        for entities in args.entities:
            r = measure(entities, folder, browser)
            print(f"{r['entities']:>9,} {r['facts']:>8,} {r['report_bytes'] / 1e6:>7.1f}MB {share / r['report_bytes']:>6.1%} "
                  f"{r['first_use_ms']:>8.0f}ms {r['index_build_ms']:>6.0f}ms {r['keystroke_median_ms']:>9.1f}ms "
                  f"{r['keystroke_p95_ms']:>6.1f}ms {r['keystroke_max_ms']:>6.1f}ms   ({r['keystrokes']} keystrokes)")
        browser.close()
    print(f"search code: {share:,} bytes; budgets: keystroke {BUDGETS['keystroke_ms']:.0f} ms (100,000 entities), "
          f"first use {BUDGETS['first_use_ms']:.0f} ms, report growth {BUDGETS['share']:.0%} (10,000 entities)")


if __name__ == "__main__":
    main()
