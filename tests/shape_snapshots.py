"""Memories of the shapes real agents leave, as `memlens-snapshot/1` dicts with the store's own ids.

The uniform benchmark store (benchmarks/generate_store.py) has evidence on every fact and no entity
with more than a few hundred facts. Real memories have hubs, facts without evidence, functional keys
with hundreds of values, thousands of contradictions and dismissals, long texts and long ledgers.
Each shape here is that uniform memory with one of those traits pushed to the size a real memory
reaches. Generators are deterministic for a given size and seed.

The ids are the store's (memlens.store.ids), and the worklist and stats are computed by the store's
own functions, so `store.snapshot.load.load_into` turns a shape into a real dataset whose snapshot
says what this one says (benchmarks/bench_shapes.py), and a test can use the dict as it is.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any, Callable

from viewer_fixtures import SnapshotBuilder

from memlens.store import ids
from memlens.store.maintenance import worklist_of_snapshot
from memlens.store.snapshot import stats_of

TYPES = ["Person", "Service", "Module", "Library", "Config", "Task", "Bug", "Decision", "File", "Concept"]
RELATIONS = ["depends_on", "calls", "mentions", "part_of", "fixes", "configures", "uses"]
HUB_NAMES = ["the project", "the user", "api-gateway", "billing-core", "auth-core"]


class StoreIdBuilder(SnapshotBuilder):
    """SnapshotBuilder with the ids the store itself gives names and triples."""

    def entity_id(self, name: str) -> str:
        return ids.entity_id(name)

    def fact_id(self, subject: str, relation: str, obj: str) -> str:
        return ids.fact_id(subject, relation, obj)


class Shape:
    """One memory under construction: entities, then facts, then whatever the shape adds."""

    def __init__(self, name: str, entities: int, seed: int, *, long_names: bool = False) -> None:
        self.rng = random.Random(seed)
        self.b = StoreIdBuilder(dataset=f"shape-{name}-{entities}", tick=timedelta(seconds=2),
                                types=list(TYPES))
        for relation in RELATIONS:
            self.b.declare_relation(relation, actor="agent:bench")
        self.b.declare_relation("owned_by", functional=True, actor="agent:bench")
        self.names: list[str] = []
        self.ids: list[str] = []
        for i in range(entities):
            kind = TYPES[i % len(TYPES)]
            name = f"{kind.lower()}-{i:06d}"
            if long_names:  # 200 characters, as agents write when they name a thing by describing it
                name = (name + " " + " ".join(f"{kind.lower()}-part-{i % 97}-{w}" for w in range(12)))[:200]
            self.names.append(name)
            self.ids.append(self.b.entity(name, kind, actor=("agent:bench", "cli:alice")[i % 2]))
        self.facts: list[str] = []

    def fact(self, subject: int, relation: str, obj: int, *, evidence: bool, description: str | None = None,
             valid_from: str | None = None) -> str | None:
        s, o = self.ids[subject], self.ids[obj]
        if s == o or self.b.fact_id(s, relation, o) in self.b.facts:
            return None
        fid = self.b.assert_fact(
            s, relation, o, description=description if description is not None else
            f"{self.names[subject][:40]} {relation.replace('_', ' ')} {self.names[obj][:40]}",
            evidence=[f"repo://src/{self.names[subject][:40]}.py#L{self.rng.randrange(1, 400)}"] if evidence else [],
            valid_from=valid_from, actor=("agent:bench", "cli:bob")[len(self.facts) % 2])
        self.facts.append(fid)
        return fid

    def links(self, per_entity: int, *, evidence: bool, hubs: int = 0) -> None:
        """`per_entity` facts from each entity: preferential attachment (a few well-linked entities and
        a long tail) and, with `hubs`, the first of them into one of that many hubs, most into the first."""
        n, rng = len(self.ids), self.rng
        for i in range(n):
            for k in range(per_entity):
                for _ in range(8):  # a few tries at a triple not yet used
                    if hubs and k == 0 and i >= hubs:
                        target = 0 if rng.random() < 0.6 else 1 + int((hubs - 1) * rng.random() ** 2)
                    else:
                        target = int(n * rng.random() ** 3) if k else (i * 7919 + 1) % n
                    relation = RELATIONS[(i + k) % len(RELATIONS)]
                    if self.fact(i, relation, target, evidence=evidence):
                        break

    def churn(self, *, superseded: float = 0.1, contested: float = 0.01, retracted: float = 0.005,
              forgotten: int = 5) -> None:
        """What maintenance and corrections leave: superseded, contested, retracted and forgotten facts."""
        rng, b = self.rng, self.b
        by_subject: dict[str, list[str]] = {}
        for fid in self.facts:
            by_subject.setdefault(b.facts[fid]["subject"], []).append(fid)
        subjects = sorted(s for s, facts in by_subject.items() if len(facts) >= 2)
        for subject in rng.sample(subjects, min(len(subjects), round(superseded * len(self.facts)))):
            old, new = rng.sample(by_subject[subject], 2)
            if b.facts[old]["status"] == "current" and b.facts[new]["status"] == "current":
                b.supersede(old, new, "a later note replaces this one", actor="agent:bench")
        self.contest(round(contested * len(self.facts)))
        current = [f for f in self.facts if b.facts[f]["status"] == "current"]
        for fid in rng.sample(current, round(retracted * len(self.facts))):
            if b.facts[fid]["status"] == "current":
                b.retract(fid, "not true after all")
        for fid in rng.sample(current, forgotten):
            if b.facts[fid]["status"] == "current":
                b.forget(fid)

    def contest(self, pairs: int) -> None:
        rng, b = self.rng, self.b
        current = [f for f in self.facts if b.facts[f]["status"] == "current" and not b.facts[f]["contested"]]
        rng.shuffle(current)
        for a, c in zip(current[0:2 * pairs:2], current[1:2 * pairs:2]):
            b.contest(a, c, "these cannot both hold", round(rng.random(), 2), actor="agent:bench")

    def build(self) -> dict[str, Any]:
        snapshot = self.b.build()
        snapshot["stats"] = stats_of(snapshot)
        snapshot["maintenance"] = [c.as_dict() for c in worklist_of_snapshot(snapshot)]
        return snapshot


def no_evidence(entities: int, seed: int) -> Shape:
    shape = Shape("no-evidence", entities, seed)
    shape.links(3, evidence=False)
    shape.churn()
    return shape


def hubs(entities: int, seed: int, *, evidence: bool = True) -> Shape:
    shape = Shape("hubs" if evidence else "hubs-no-evidence", entities, seed)
    for i, name in enumerate(HUB_NAMES):  # the first entities become the hubs, under their real names
        kind = shape.b.entities[shape.ids[i]]["type"]
        del shape.b.entities[shape.ids[i]]
        shape.names[i], shape.ids[i] = name, shape.b.entity(name, kind, actor="agent:bench")
    shape.links(3, evidence=evidence, hubs=len(HUB_NAMES))
    shape.churn()
    return shape


def hubs_no_evidence(entities: int, seed: int) -> Shape:
    return hubs(entities, seed, evidence=False)


def long_histories(entities: int, seed: int, *, subjects: int = 50, values: int = 500, longest: int = 1000) -> Shape:
    """One functional relation (`version`) whose keys collect hundreds of values over years: each new
    value supersedes the one before, its validity closing where the new one starts."""
    shape = Shape("long-histories", entities, seed)
    shape.links(3, evidence=True)
    shape.churn()
    b = shape.b
    b.declare_relation("version", functional=True, actor="agent:bench")
    releases = list(range(entities - longest, entities))  # the values: the last entities of the store
    for key in range(subjects + 1):
        count = longest if key == subjects else values
        previous = None
        for v in range(count):
            day = f"{2000 + v // 48:04d}-{1 + (v // 4) % 12:02d}-{1 + 7 * (v % 4):02d}"
            fid = shape.fact(key, "version", releases[v], evidence=True, valid_from=day)
            if previous is not None and fid is not None:
                b.supersede(previous, fid, "a newer version", actor="agent:bench")
            previous = fid or previous
    return shape


def contradictions(entities: int, seed: int, *, open_pairs: int = 5000) -> Shape:
    shape = Shape("contradictions", entities, seed)
    shape.links(3, evidence=True)
    shape.churn(contested=0)
    shape.contest(open_pairs)
    return shape


def near_duplicates(entities: int, seed: int, *, groups: int = 3000) -> Shape:
    """`groups` pairs of names maintenance takes for one entity (`service-000042`, `Service 000042`),
    every other group already dismissed with a reason."""
    shape = Shape("near-duplicates", entities, seed)
    b = shape.b
    for g in range(groups):
        twin = entities - groups + g
        kind = b.entities[shape.ids[twin]]["type"]
        del b.entities[shape.ids[twin]]
        name = shape.names[g].replace("-", " ").title()
        shape.names[twin], shape.ids[twin] = name, b.entity(name, kind, actor="agent:bench")
    shape.links(3, evidence=True)
    shape.churn()
    duplicates = [c for c in worklist_of_snapshot(shape.build()) if c.kind == "duplicate"]
    for candidate in duplicates[::2]:
        b.dismiss(candidate.key, candidate.kind, list(candidate.refs), "two different things that share a name")
    return shape


def long_texts(entities: int, seed: int, *, long_facts: int = 3000) -> Shape:
    """200-character names everywhere, and `long_facts` facts with descriptions of 5-20 KB."""
    shape = Shape("long-texts", entities, seed, long_names=True)
    shape.links(3, evidence=True)
    shape.churn()
    words = ["the", "service", "retries", "payments", "when", "ledger", "replies", "late", "because", "queue"]
    for fid in shape.rng.sample(shape.facts, long_facts):
        size = shape.rng.randrange(5_000, 20_000)
        text = " ".join(words[(i * 7 + size) % len(words)] for i in range(size // 5))
        shape.b.facts[fid]["description"] = text[:size]
    return shape


def big_ledger(entities: int, seed: int, *, writes: int = 50_000) -> Shape:
    """The uniform memory after `writes` more writes: agents saying again what they said before."""
    shape = Shape("big-ledger", entities, seed)
    shape.links(3, evidence=True)
    shape.churn()
    current = [f for f in shape.facts if shape.b.facts[f]["status"] == "current"]
    for _ in range(writes):
        shape.b.reassert(current[int(len(current) * shape.rng.random() ** 2)])
    return shape


SHAPES: dict[str, Callable[[int, int], Shape]] = {
    "no-evidence": no_evidence,
    "hubs": hubs,
    "long-histories": long_histories,
    "contradictions": contradictions,
    "near-duplicates": near_duplicates,
    "long-texts": long_texts,
    "big-ledger": big_ledger,
    "hubs-no-evidence": hubs_no_evidence,
}


def shape_snapshot(name: str, entities: int = 10_000, seed: int = 7) -> dict[str, Any]:
    """The memory of shape `name` (a key of SHAPES) with `entities` entities."""
    return SHAPES[name](entities, seed).build()
