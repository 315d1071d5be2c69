"""A small memory named as people name things (services, files, people, decisions, bugs), of any
size up to a few hundred entities: what the graph's first view must name in full."""
from __future__ import annotations

import random
from typing import Any

from viewer_fixtures import SnapshotBuilder

TYPES = ["Service", "Library", "Person", "Module", "File", "Decision", "Bug", "Team", "Config",
         "Endpoint", "Document", "Tool"]
WORDS = ["billing", "ledger", "payments", "search", "tracking", "auth", "gateway", "notify", "inventory",
         "catalog", "orders", "refunds", "shipping", "pricing", "reports", "export", "import", "queue"]
PEOPLE = ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Dana Okafor", "Sam Lee", "Priya Natarajan", "Jin Park",
          "Marco Ruiz", "Lena Vogel", "Omar Haddad", "Yuki Tanaka", "Ines Costa"]
LIBRARIES = ["FastAPI", "SQLAlchemy", "Pydantic", "Celery", "Redis", "PostgreSQL", "Kafka", "pytest", "httpx",
             "Alembic", "NumPy", "structlog", "boto3", "Stripe", "Twilio"]


def _name(kind: str, rng: random.Random, taken: set[str]) -> str:
    for attempt in range(1000):
        word = rng.choice(WORDS)
        name = {
            "Service": f"{word}-service",
            "Library": rng.choice(LIBRARIES),
            "Person": rng.choice(PEOPLE),
            "Module": f"{word}/{rng.choice(WORDS)}.py",
            "File": f"docs/{word}.md",
            "Decision": f"ADR-{rng.randint(1, 60):03d} {word.title()} in {rng.choice(LIBRARIES)}",
            "Bug": f"BUG-{rng.randint(100, 999)} {word} {rng.choice(['timeout', 'double charge', 'lost event'])}",
            "Team": f"{word.title()} Team",
            "Config": f"{word.upper()}_URL",
            "Endpoint": f"POST /v1/{word}",
            "Document": f"runbook: {word}",
            "Tool": f"{word}-cli",
        }[kind]
        if attempt > 20:
            name = f"{name} {attempt}"
        if name not in taken:
            taken.add(name)
            return name
    raise AssertionError("no free name")


def named_memory(count: int, seed: int = 41) -> dict[str, Any]:
    """`count` entities, about 1.8 facts each, a few hubs (preferential attachment), one project."""
    rng = random.Random(seed)
    builder = SnapshotBuilder(dataset=f"named-{count}", types=TYPES + ["Project"])
    taken: set[str] = set()
    project = builder.entity("shopfront", "Project", "An online shop: storefront, payments and shipping.")
    ids = [project]
    weights = [3]
    for i in range(count - 1):
        kind = TYPES[min(len(TYPES) - 1, int(rng.expovariate(0.35)))]
        ids.append(builder.entity(_name(kind, rng, taken), kind))
        weights.append(1)
    for i, subject in enumerate(ids[1:], 1):
        for _ in range(1 if rng.random() < 0.3 else 2):
            obj = rng.choices(ids[:i] or ids, weights=weights[:i] or weights)[0]
            if obj == subject:
                continue
            builder.assert_fact(subject, rng.choice(["depends_on", "owned_by", "uses", "part_of", "calls"]), obj,
                                evidence=[f"repo://src/{i}.py#L1"])
            weights[ids.index(obj)] += 1
    return builder.build()
