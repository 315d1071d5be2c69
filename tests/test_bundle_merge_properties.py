"""Merging teammates' bundles, for every history of writes on both sides: idempotent, convergent,
and the ledger still the proof of the versions."""
from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import replay
from memlens.store.bundle_merge import take_bundle
from memlens.store.errors import MemlensError
from memlens.store.facts import FactInput
from memlens.store.memory import Memory

from conftest import StepClock
from test_properties import apply

SETTINGS = settings(max_examples=int(os.environ.get("MEMLENS_PROPERTY_EXAMPLES", "40")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

NAMES = ["a", "b", "c", "d"]
SIDES = st.sampled_from("AB")
# a valid_from day, or None: a value said without one
DAYS = st.one_of(st.none(), st.integers(0, 400))
# owned_by is functional on both sides from the start; r0 may be declared so on one side
REMEMBER = st.tuples(SIDES, st.just("remember"), st.sampled_from(NAMES[:2]), st.sampled_from(["owned_by", "r0", "r1"]),
                     st.sampled_from(NAMES), DAYS, st.integers(0, 2))
WRITES = st.one_of(
    REMEMBER, REMEMBER, REMEMBER,
    st.tuples(SIDES, st.just("functional"), st.just("r0")),
    st.tuples(SIDES, st.just("supersede"), st.integers(0, 20), st.integers(0, 20)),
    st.tuples(SIDES, st.just("restore"), st.integers(0, 20)),
    st.tuples(SIDES, st.just("retract"), st.integers(0, 20)),
    st.tuples(SIDES, st.just("contest"), st.integers(0, 20), st.integers(0, 20)),
    st.tuples(SIDES, st.just("forget"), st.integers(0, 20)),
    st.tuples(SIDES, st.just("merge"), st.sampled_from(NAMES), st.sampled_from(NAMES)),
    st.tuples(SIDES, st.just("dismiss"), st.integers(0, 20)),
    st.tuples(SIDES, st.just("take")),   # this side merges the other's bundle as it is now
    st.tuples(SIDES, st.just("take")),
)
HISTORIES = st.lists(WRITES, min_size=1, max_size=30)


@contextmanager
def two_memories() -> Iterator[dict[str, Memory]]:
    """Two teammates' stores on one clock, so that what is later is later on both."""
    clock = StepClock()
    with tempfile.TemporaryDirectory(prefix="memlens-merge-") as directory:
        with Memory(Path(directory) / "a.sqlite", actor="cli:ann", clock=clock) as a, \
                Memory(Path(directory) / "b.sqlite", actor="cli:ben", clock=clock) as b:
            for memory in (a, b):
                memory.declare_functional("owned_by")
            yield {"A": a, "B": b}


def write(memory: Memory, op: tuple) -> None:
    """A teammate's write: a fact with or without a valid time and with evidence of its own, or
    any other write of test_properties.apply."""
    if op[0] != "remember":
        apply(memory, op)
        return
    _, s, relation, o, day, evidence = op
    memory.remember([FactInput(s, relation, o, "Concept", "Concept", evidence=(f"{memory.actor} {evidence}",),
                               valid_from=None if day is None else (date(2025, 1, 1) + timedelta(days=day)).isoformat())])


def take(into: Memory, other: Memory) -> dict:
    bundle = other.sealed_snapshot()
    done, _ = take_bundle(into, bundle, bundle=bundle["seal"]["content"])
    return done


def state(memory: Memory) -> tuple[dict, dict, set[str]]:
    """Every fact's state and evidence, every contradiction's openness, and what this memory forgot."""
    snapshot = memory.snapshot()
    facts = {f["id"]: (f["status"], f["superseded_by"], f["valid_from"], f["valid_to"], frozenset(f["evidence"]))
             for f in snapshot["facts"] if f["status"] != "forgotten"}
    questions = {c["id"]: (frozenset(c["facts"]), c["resolved_at"] is None) for c in snapshot["contradictions"]}
    forgotten = {row[0] for row in memory.conn.execute("SELECT id FROM tombstones")}
    return facts, questions, forgotten


@SETTINGS
@given(HISTORIES)
def test_two_memories_that_exchange_bundles_converge_and_a_bundle_taken_twice_changes_nothing(history):
    with two_memories() as sides:
        for side, *op in history:
            mine, theirs = sides[side], sides["B" if side == "A" else "A"]
            if op[0] == "take":
                take(mine, theirs)   # never refused: a sealed bundle of a memory that holds together
                continue
            try:
                write(mine, tuple(op))
            except MemlensError:
                pass   # a refused write leaves nothing behind
        a, b = sides["A"], sides["B"]
        for _ in range(3):   # rounds until each has taken all the other holds
            take(a, b)
            take(b, a)
        heads = (a.content_hash(), b.content_hash())
        assert not take(a, b).get("facts_added") and not take(b, a).get("facts_added")
        assert (a.content_hash(), b.content_hash()) == heads, "a bundle taken again changed the memory"
        (facts_a, questions_a, forgot_a), (facts_b, questions_b, forgot_b) = state(a), state(b)
        forgotten = forgot_a | forgot_b
        # what only one side holds, the other forgot (or forgot an entity it names)
        for only, other in ((facts_a.keys() - facts_b.keys(), b), (facts_b.keys() - facts_a.keys(), a)):
            for fact_id in only:
                fact = (a if other is b else b).fact(fact_id)
                assert {fact_id, fact["subject"], fact["object"]} & forgotten, fact
        shared = facts_a.keys() & facts_b.keys()
        assert {f: facts_a[f] for f in shared} == {f: facts_b[f] for f in shared}
        asked = {c for c in questions_a.keys() & questions_b.keys()}
        assert {c: questions_a[c] for c in asked} == {c: questions_b[c] for c in asked}
        for only, questions in ((questions_a.keys() - asked, questions_a), (questions_b.keys() - asked, questions_b)):
            for cid in only:
                assert questions[cid][0] & forgotten or not questions[cid][0] <= shared, cid
        for memory in (a, b):
            for at in sorted({row["at"] for row in memory.ledger()}):
                assert replay.from_ledger(memory.conn, at) == replay.from_versions(memory.conn, at)
