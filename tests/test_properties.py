"""Rules that hold for every input: functional ordering, and the ledger as proof of the versions."""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from datetime import date, timedelta
from pathlib import Path
from typing import Iterator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import replay
from memlens.store.errors import MemlensError
from memlens.store.facts import FactInput
from memlens.store.memory import Memory

from conftest import StepClock

SETTINGS = settings(max_examples=int(os.environ.get("MEMLENS_PROPERTY_EXAMPLES", "40")), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@contextmanager
def fresh_memory() -> Iterator[Memory]:
    """A new store per example, removed afterwards (hundreds of examples run per test session)."""
    with tempfile.TemporaryDirectory(prefix="memlens-prop-") as directory:
        with Memory(Path(directory) / "p.sqlite", actor="test:hypothesis", clock=StepClock()) as memory:
            yield memory


@SETTINGS
@given(st.lists(st.integers(0, 3000), min_size=1, max_size=7, unique=True).flatmap(st.permutations))
def test_the_current_value_is_the_one_with_the_latest_valid_from_in_any_arrival_order(offsets):
    start = date(2020, 1, 1)
    with fresh_memory() as memory:
        memory.declare_functional("owned_by")
        for offset in offsets:
            memory.remember([FactInput(
                "billing", "owned_by", f"owner-{offset}", "Service", "Person",
                valid_from=(start + timedelta(days=offset)).isoformat())])
        current = [f["object_name"] for f in memory.facts()]
        assert current == [f"owner-{max(offsets)}"]
        history = memory.facts(include_all=True)
        assert len(history) == len(offsets)
        # Every superseded value ends where the next later value begins.
        by_start = sorted(history, key=lambda f: f["valid_from"])
        for earlier, later in zip(by_start, by_start[1:]):
            assert earlier["superseded_by"] == later["id"]
            assert earlier["valid_to"] == later["valid_from"]


NAMES = ["a", "b", "c", "d"]
operations = st.lists(
    st.one_of(
        st.tuples(st.just("remember"), st.sampled_from(NAMES), st.sampled_from(NAMES), st.integers(0, 400)),
        st.tuples(st.just("functional"), st.sampled_from(["r0", "r1"])),
        st.tuples(st.just("supersede"), st.integers(0, 20), st.integers(0, 20)),
        st.tuples(st.just("restore"), st.integers(0, 20)),
        st.tuples(st.just("retract"), st.integers(0, 20)),
        st.tuples(st.just("contest"), st.integers(0, 20), st.integers(0, 20)),
        st.tuples(st.just("forget"), st.integers(0, 20)),
        st.tuples(st.just("merge"), st.sampled_from(NAMES), st.sampled_from(NAMES)),
        st.tuples(st.just("dismiss"), st.integers(0, 20)),
    ),
    min_size=1,
    max_size=25,
)


def apply(memory: Memory, op: tuple) -> bool:
    """Run one operation; False when there was nothing to run it on."""
    facts = [f["id"] for f in memory.facts(include_all=True) if f["relation"] is not None]
    pick = lambda i: facts[i % len(facts)]  # noqa: E731
    kind = op[0]
    if kind == "remember":
        _, s, o, day = op
        relation = "r0" if day % 2 else "r1"
        memory.remember([FactInput(s, relation, o, "Concept", "Concept",
                                   valid_from=(date(2025, 1, 1) + timedelta(days=day)).isoformat())])
    elif kind == "functional":
        memory.declare_functional(op[1])
    elif not facts:
        return False
    elif kind == "supersede":
        memory.supersede(pick(op[1]), pick(op[2]), "test")
    elif kind == "restore":
        memory.restore(pick(op[1]), "test")
    elif kind == "retract":
        memory.retract(pick(op[1]), "test")
    elif kind == "contest":
        memory.contest(pick(op[1]), pick(op[2]), "test", 0.5)
    elif kind == "forget":
        memory.forget_fact(pick(op[1]))
    elif kind == "merge":
        memory.merge(op[1], op[2])
    elif kind == "dismiss":
        candidates = memory.worklist()
        if not candidates:
            return False
        memory.dismiss(candidates[op[1] % len(candidates)].key, "test")
    return True


@SETTINGS
@given(operations)
def test_the_state_rebuilt_from_the_ledger_at_any_record_time_equals_as_of(ops):
    with fresh_memory() as memory:
        applied = 0
        for op in ops:
            try:
                applied += apply(memory, op)
            except MemlensError:
                pass  # refused operations must leave nothing behind; the comparison below checks it
        times = sorted({row["at"] for row in memory.ledger()})
        if applied:
            assert times
        for at in times:
            assert replay.from_ledger(memory.conn, at) == replay.from_versions(memory.conn, at)


@SETTINGS
@given(operations)
def test_a_snapshot_counts_what_the_store_counts(ops):
    """The snapshot's stats are counted from its own rows; the store's are counted in SQL."""
    with fresh_memory() as memory:
        for op in ops:
            try:
                apply(memory, op)
            except MemlensError:
                pass
        snapshot = memory.snapshot()
        assert snapshot["stats"] == memory.stats()
        assert snapshot["stats"]["facts"] == len(snapshot["facts"])


@SETTINGS
@given(st.text(max_size=60))
def test_the_fast_uuid5_is_the_standard_one(name):
    import uuid

    from memlens.store.ids import NAMESPACE, uuid5

    assert uuid5(name) == str(uuid.uuid5(NAMESPACE, name))


ledger_values = st.one_of(st.text(max_size=12), st.booleans(), st.integers(), st.none(), st.floats(allow_nan=False),
                          st.lists(st.text(max_size=5), max_size=2))


@SETTINGS
@given(st.lists(st.one_of(st.text(max_size=40), st.sampled_from(["3f2a-11", "a b", 'q"uote', "back\\slash", "é"])),
                max_size=4),
       st.dictionaries(st.text(max_size=10), ledger_values, max_size=4))
def test_the_ledgers_text_encoding_is_jsons(refs, payload):
    import json

    from memlens.store.ledger import encode_payload, encode_refs

    assert encode_refs(refs) == json.dumps(refs, separators=(",", ":"))
    assert encode_payload(payload) == json.dumps(payload, sort_keys=True, separators=(",", ":"))
