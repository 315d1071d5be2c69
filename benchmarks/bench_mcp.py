"""MCP benchmark (opt-in): remember and recall through `memlens mcp` on a warm server, against the
issue's budget of 20 ms each.

    python benchmarks/bench_mcp.py [--entities 10000] [--calls 200] [--store PATH]

Generates a store (or reuses --store; it is written to), starts `memlens mcp --db STORE` through the
SDK's stdio client, warms it up, then times each call from the client's side: the whole round trip,
JSON-RPC framing and both processes' validation included. remember writes one new fact per call
(half of them with a new entity); recall asks in turn for a long-tail name, the biggest hub's name,
a relation word that matches an eighth of the facts, two words, an id-like word and a
question in plain words. The floor is a
call the server refuses before it touches the store: the protocol's own cost. Besides the wall
clock (median, 95th percentile, maximum), it prints the CPU time the server and the client spent
per call (Linux /proc), which a machine shared with other work does not inflate.
"""
from __future__ import annotations

import argparse
import glob
import os
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
from compiled_memlens import compile_memlens  # noqa: E402

BUDGET_MS = 20.0
# A long-tail entity, the biggest hub, a relation in an eighth of the facts, two words, an id-like word,
# a question as an agent asks it.
QUERIES = ["module-000042", "person-000000", "depends", "module owned", "config-000984 configures", "000777",
           "who owns the service-000042 service and what does it depend on"]


def percentile(timings: list[float], share: float) -> float:
    ordered = sorted(timings)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def children_cpu_ms() -> float:
    """CPU time (user + system) of this process's children: the server."""
    total = 0
    for listing in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
        for pid in open(listing).read().split():
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total * 1000 / os.sysconf("SC_CLK_TCK")


def arguments(tool: str, i: int) -> dict:
    if tool == "remember":
        return {"facts": [_fact(i)]}
    if tool == "recall":
        return {"query": QUERIES[i % len(QUERIES)]}
    return {}


async def measure(memlens: str, store: Path, home: Path, calls: int) -> dict[str, dict]:
    params = StdioServerParameters(command=memlens, args=["mcp", "--db", str(store)], env={"MEMLENS_HOME": str(home)})
    measured: dict[str, dict] = {}
    async with Client(params, client_info=Implementation(name="bench", version="1")) as client:
        for i in range(20):  # warm up: the store's pages, the SDK's validators
            await client.call_tool("recall", arguments("recall", i))
            await client.call_tool("remember", arguments("remember", -1 - i))
        for tool in ("remember", "recall", "floor"):
            wall: list[float] = []
            server, client_cpu = children_cpu_ms(), time.process_time()
            for i in range(calls):
                started = time.perf_counter()
                result = await client.call_tool("no-such-tool" if tool == "floor" else tool, arguments(tool, i))
                wall.append((time.perf_counter() - started) * 1000)
                if result.is_error != (tool == "floor"):
                    raise SystemExit(f"{tool} failed: {result.content[0].text}")
            measured[tool] = {"wall": wall, "server_cpu": (children_cpu_ms() - server) / calls,
                              "client_cpu": (time.process_time() - client_cpu) * 1000 / calls}
    return measured


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
    compile_memlens()
    memlens = shutil.which("memlens") or sys.exit("memlens is not on PATH: pip install -e '.[mcp]' first")
    with tempfile.TemporaryDirectory(prefix="memlens-mcp-") as work:
        store = args.store or Path(work) / "bench.sqlite"
        if args.store is None:
            print(f"generating {args.entities:,} entities ...", file=sys.stderr)
            generate(store, args.entities)
        measured = anyio.run(measure, memlens, store, Path(work) / "home", args.calls)
    print(f"\nmemlens mcp, warm server, {args.calls} calls each (ms per call)")
    print(f"{'tool':<10}{'median':>8}{'p95':>8}{'max':>8}{'server CPU':>12}{'client CPU':>12}{'budget':>8}")
    for tool, m in measured.items():
        wall = m["wall"]
        print(f"{tool:<10}{statistics.median(wall):>8.1f}{percentile(wall, 0.95):>8.1f}{max(wall):>8.1f}"
              f"{m['server_cpu']:>12.2f}{m['client_cpu']:>12.2f}{'' if tool == 'floor' else BUDGET_MS:>8}")


if __name__ == "__main__":
    main()
