"""Generate a realistic large store for benchmarks: N entities, 3N facts, a share superseded,
contested, retracted and forgotten, with its ledger. Deterministic for a given N and seed.

    python benchmarks/generate_store.py 10000 /tmp/bench-10k.sqlite
"""
from __future__ import annotations

import random
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from memlens.store.facts import FactInput
from memlens.store.memory import Memory

TYPES = ["Person", "Service", "Module", "Library", "Config", "Task", "Bug", "Decision", "File", "Concept"]
RELATIONS = ["depends_on", "calls", "owned_by", "mentions", "part_of", "fixes", "configures", "uses"]


def generate(path: Path, entities: int, *, seed: int = 7, batch: int = 2000) -> dict[str, float]:
    """Write the store; returns timings in seconds."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    rng = random.Random(seed)
    moment = [datetime(2025, 1, 1, tzinfo=timezone.utc)]

    def clock() -> datetime:
        moment[0] += timedelta(seconds=30)
        return moment[0]

    names = [f"{TYPES[i % len(TYPES)].lower()}-{i:06d}" for i in range(entities)]
    kinds = {name: TYPES[i % len(TYPES)] for i, name in enumerate(names)}
    started = time.perf_counter()
    memory = Memory(path, actor="agent:bench", clock=clock)
    memory.declare_functional("owned_by")
    facts: list[FactInput] = []
    for i, name in enumerate(names):
        for k in range(3):
            # Preferential attachment: a few hubs, a long tail, as in real project memories.
            target = names[int(len(names) * rng.random() ** 3)] if k else names[(i * 7919 + 1) % len(names)]
            if target == name:
                target = names[(i + 1) % len(names)]
            relation = RELATIONS[(i + k) % len(RELATIONS)]
            day = (datetime(2024, 1, 1) + timedelta(days=rng.randrange(700))).date().isoformat()
            facts.append(FactInput(
                name, relation, target, kinds[name], kinds[target],
                description=f"{name} {relation.replace('_', ' ')} {target}",
                evidence=(f"repo://src/{name}.py#L{rng.randrange(1, 400)}",),
                valid_from=day if relation == "owned_by" else None,
            ))
    for start in range(0, len(facts), batch):
        memory.remember(facts[start:start + batch])
    ingested = time.perf_counter() - started
    current = [f["id"] for f in memory.facts()]
    for i in range(0, len(current) // 50):  # ~2% contested pairs, ~0.5% retracted, a few forgotten
        a, b = rng.sample(current, 2)
        try:
            memory.contest(a, b, "generated contradiction", round(rng.random(), 2))
        except Exception:
            pass
    for fid in rng.sample(current, len(current) // 200):
        try:
            memory.retract(fid, "generated retraction")
        except Exception:
            pass
    for fid in rng.sample(current, 5):
        try:
            memory.forget_fact(fid)
        except Exception:
            pass
    memory.close()
    return {"ingest_s": ingested, "total_s": time.perf_counter() - started}


if __name__ == "__main__":
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    target = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(f"/tmp/memlens-bench-{size}.sqlite")
    print(generate(target, size))
