"""MCP benchmark (opt-in): remember and recall through `memlens mcp` on a warm server, against the
issue's budget of 20 ms each.

    python benchmarks/bench_mcp.py [--entities 10000] [--calls 200] [--store PATH]

Generates a store (or reuses --store; it is written to), starts `memlens mcp --db STORE` through the
SDK's stdio client, warms it up, then times each call from the client's side: the whole round trip,
JSON-RPC framing and both processes' validation included. remember writes one new fact per call
(half of them with a new entity); recall asks for a long-tail name, a hub's name, a relation word
that matches an eighth of the facts, and two words. Prints the median and the 95th percentile, and
the floor: a call the server refuses before it touches the store (the protocol's own cost).
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import Implementation

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate_store import TYPES, generate  # noqa: E402

BUDGET_MS = 20.0
# A long-tail entity, the biggest hub, a relation in an eighth of the facts, two words, an id-like word.
QUERIES = ["module-000042", "person-000000", "depends", "module owned", "config-000984 configures", "000777"]


def percentile(timings: list[float], share: float) -> float:
    ordered = sorted(timings)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def measure(memlens: str, store: Path, home: Path, calls: int) -> dict[str, list[float]]:
    params = StdioServerParameters(command=memlens, args=["mcp", "--db", str(store)], env={"MEMLENS_HOME": str(home)})
    timings: dict[str, list[float]] = {"remember": [], "recall": [], "floor": []}
    async with Client(params, client_info=Implementation(name="bench", version="1")) as client:

        async def timed(kind: str, tool: str, arguments: dict) -> None:
            started = time.perf_counter()
            result = await client.call_tool(tool, arguments)
            elapsed = (time.perf_counter() - started) * 1000
            if result.is_error != (kind == "floor"):
                raise SystemExit(f"{tool} failed: {result.content[0].text}")
            if kind:
                timings[kind].append(elapsed)

        for i in range(20):  # warm up: the store's pages, the SDK's validators
            await timed("", "recall", {"query": QUERIES[i % len(QUERIES)]})
            await timed("", "remember", {"facts": [_fact(-1 - i)]})
        for i in range(calls):
            await timed("remember", "remember", {"facts": [_fact(i)]})
            await timed("recall", "recall", {"query": QUERIES[i % len(QUERIES)]})
            await timed("floor", "no-such-tool", {})
    return timings


def _fact(i: int) -> dict:
    """A new fact each call; every other one names a new entity, the rest link existing ones."""
    known = (i * 7919) % 10000
    subject = f"bench-task-{i}" if i % 2 else f"{TYPES[known % len(TYPES)].lower()}-{known:06d}"
    return {"subject": subject, "subject_type": "Task" if i % 2 else None, "relation": "mentions",
            "object": f"person-{(i * 37) % 1000 * 10:06d}", "evidence": [f"bench call {i}"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--store", type=Path, help="A store to reuse (it is written to).")
    args = parser.parse_args()
    memlens = shutil.which("memlens") or sys.exit("memlens is not on PATH: pip install -e '.[mcp]' first")
    with tempfile.TemporaryDirectory(prefix="memlens-mcp-") as work:
        store = args.store or Path(work) / "bench.sqlite"
        if args.store is None:
            print(f"generating {args.entities:,} entities ...", file=sys.stderr)
            generate(store, args.entities)
        timings = anyio.run(measure, memlens, store, Path(work) / "home", args.calls)
    print(f"\nmemlens mcp, warm server, {args.calls} calls each (client round trip, ms)")
    print(f"{'tool':<12}{'median':>10}{'p95':>10}{'max':>10}{'budget':>10}")
    for tool, values in timings.items():
        print(f"{tool:<12}{statistics.median(values):>10.1f}{percentile(values, 0.95):>10.1f}"
              f"{max(values):>10.1f}{BUDGET_MS:>10.0f}")


if __name__ == "__main__":
    main()
