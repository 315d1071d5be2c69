"""The bulk path (store/ingest.py) writes what asserting the facts one at a time writes, to the byte."""
from __future__ import annotations

import os
import sqlite3
import tempfile
from contextlib import contextmanager
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference_writer
from memlens.store.db import write
from memlens.store.errors import MemlensError
from memlens.store.facts import FactInput, Outcome
from memlens.store.functional import KeyHistory
from memlens.store.memory import Memory

from conftest import StepClock

SETTINGS = settings(max_examples=int(os.environ.get("MEMLENS_PROPERTY_EXAMPLES", "40")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

# Every table, in a stable order: the FTS tables by rowid, the rest by key.
TABLES = {
    "types": "SELECT * FROM types ORDER BY name", "relations": "SELECT * FROM relations ORDER BY name",
    "entities": "SELECT * FROM entities ORDER BY n", "facts": "SELECT * FROM facts ORDER BY n",
    "fact_versions": "SELECT * FROM fact_versions ORDER BY fact_id, version",
    "tombstones": "SELECT * FROM tombstones ORDER BY id", "contradictions": "SELECT * FROM contradictions ORDER BY id",
    "dismissals": "SELECT * FROM dismissals ORDER BY n", "ledger": "SELECT * FROM ledger ORDER BY seq",
    "sqlite_sequence": "SELECT * FROM sqlite_sequence ORDER BY name",
    "fact_search": "SELECT rowid, text FROM fact_search ORDER BY rowid",
    "entity_search": "SELECT rowid, name, about FROM entity_search ORDER BY rowid",
}


def dump(conn: sqlite3.Connection) -> dict[str, list[tuple]]:
    return {table: [tuple(row) for row in conn.execute(sql)] for table, sql in TABLES.items()}


class FrozenClock:
    """Every write at the same instant: versions written earlier at that time are amended, not closed."""

    def __call__(self) -> datetime:
        return datetime(2026, 1, 1, 9, 0, tzinfo=timezone.utc)


@contextmanager
def twin_stores(frozen: bool) -> Iterator[tuple[Memory, Memory]]:
    with tempfile.TemporaryDirectory(prefix="memlens-ingest-") as directory:
        clocks = (FrozenClock(), FrozenClock()) if frozen else (StepClock(), StepClock())
        with Memory(Path(directory) / "bulk.sqlite", actor="test:bulk", clock=clocks[0]) as bulk, \
                Memory(Path(directory) / "one.sqlite", actor="test:bulk", clock=clocks[1]) as one:
            yield bulk, one


def one_by_one(memory: Memory, items: list[FactInput], override: bool) -> list[Outcome]:
    """The reference: reference_writer.assert_fact for each item, in one transaction."""
    with write(memory.conn, memory.actor, memory.clock) as tx:
        return [reference_writer.assert_fact(tx, item, override_forgotten=override) for item in items]


def outcome_of(run) -> tuple:
    """(outcomes as dicts, None) or (None, the error's type and message)."""
    try:
        return [o.as_dict() for o in run()], None
    except MemlensError as exc:
        return None, (type(exc).__name__, str(exc))


NAMES = ["alpha", "Alpha", " beta ", "Émile", "émile", "ÉMILE", "gamma", "1a2b3c4d"]
DAYS = st.one_of(st.none(), st.integers(0, 6).map(lambda d: (date(2025, 1, 1) + timedelta(days=30 * d)).isoformat()))
items = st.builds(
    FactInput,
    subject=st.sampled_from(NAMES), relation=st.sampled_from(["owned_by", "version", "uses"]),
    object=st.sampled_from(NAMES),
    # Mostly typed: one new entity without a type (or of another type) fails the whole batch.
    subject_type=st.sampled_from(["Concept"] * 12 + [None, "concept", "Person"]),
    object_type=st.sampled_from(["Concept"] * 12 + [None]),
    description=st.sampled_from(["", "", "said twice"]),
    evidence=st.lists(st.sampled_from(["e1", "e2", " "]), max_size=2).map(tuple),
    valid_from=DAYS, valid_to=st.one_of(st.none(), st.just("2025-08-01")),
    subject_description=st.sampled_from(["", "", "described"]),
)
batches = st.lists(items, min_size=1, max_size=12)
judgements = st.lists(st.one_of(
    st.tuples(st.just("remember"), batches, st.booleans()),
    st.tuples(st.just("forget fact"), st.integers(0, 30)),
    st.tuples(st.just("forget entity"), st.sampled_from(NAMES)),
    st.tuples(st.just("supersede"), st.integers(0, 30), st.integers(0, 30)),
    st.tuples(st.just("contest"), st.integers(0, 30), st.integers(0, 30)),
    st.tuples(st.just("restore"), st.integers(0, 30)),
    st.tuples(st.just("merge"), st.sampled_from(NAMES), st.sampled_from(NAMES)),
), max_size=6)


def prepare(memory: Memory, steps: list[tuple]) -> list:
    """Bring a store into a state with history: what each step did, or the error it raised."""
    memory.declare_functional("owned_by")
    memory.declare_functional("version")
    done = []
    for step in steps:
        ids = [f["id"] for f in memory.facts(include_all=True) if f["relation"] is not None]
        pick = lambda i: ids[i % len(ids)] if ids else "none"  # noqa: E731
        try:
            if step[0] == "remember":
                result = [o.as_dict() for o in memory.remember(step[1], override_forgotten=step[2])]
            elif step[0] == "forget fact":
                result = memory.forget_fact(pick(step[1]))
            elif step[0] == "forget entity":
                result = memory.forget_entity(step[1])
            elif step[0] == "supersede":
                result = memory.supersede(pick(step[1]), pick(step[2]), "judged")
            elif step[0] == "contest":
                result = memory.contest(pick(step[1]), pick(step[2]), "cannot both hold", 0.5)
            elif step[0] == "restore":
                result = memory.restore(pick(step[1]), "judged again")
            else:
                result = memory.merge(step[1], step[2])
        except MemlensError as exc:
            result = str(exc)
        done.append(result)
    return done


@SETTINGS
@given(history=judgements, batch=batches, override=st.booleans(), frozen=st.booleans())
def test_a_batch_writes_what_asserting_its_facts_one_by_one_writes(history, batch, override, frozen):
    with twin_stores(frozen) as (bulk, one):
        assert prepare(bulk, history) == prepare(one, history)
        assert dump(bulk.conn) == dump(one.conn)
        by_batch = outcome_of(lambda: bulk.remember(batch, override_forgotten=override))
        by_fact = outcome_of(lambda: one_by_one(one, batch, override))
        assert by_batch == by_fact
        assert dump(bulk.conn) == dump(one.conn)


@pytest.mark.parametrize("page, whole_after", [(16, 3), (1, 10_000)], ids=["as-shipped", "never-whole"])
@SETTINGS
@given(arrivals=st.lists(st.tuples(st.integers(0, 40), st.one_of(st.none(), st.integers(0, 12)), st.integers(1, 4)),
                         min_size=2, max_size=30))
def test_settling_a_new_value_among_its_neighbours_equals_settling_the_whole_key(page, whole_after, arrivals):
    """Values of one functional key in random order (some undated, some sharing a date, some said
    again with another date), in batches of one to four: the neighbourhood settle, reading stored
    values page by page or the whole key, and the full one agree."""
    with pytest.MonkeyPatch.context() as patch, twin_stores(frozen=False) as (bulk, one):
        patch.setattr(KeyHistory, "CHAIN_PAGE", page)
        patch.setattr(KeyHistory, "WHOLE_AFTER", whole_after)
        for memory in (bulk, one):
            memory.declare_functional("owned_by")
        batch: list[FactInput] = []
        for value, month, size in arrivals:
            batch.append(FactInput("billing", "owned_by", f"owner-{value}", "Service", "Person",
                                   valid_from=None if month is None else f"2025-{month % 12 + 1:02d}-01"))
            if len(batch) < size:
                continue
            assert [o.as_dict() for o in bulk.remember(batch)] == [o.as_dict() for o in one_by_one(one, batch, False)]
            assert dump(bulk.conn) == dump(one.conn)
            batch = []
        current = [f for f in bulk.facts() if f["relation"] == "owned_by"]
        assert len(current) == (1 if len(bulk.facts(include_all=True)) else 0)


def test_a_batch_with_a_duplicate_a_late_value_and_a_forgotten_triple(memory):
    """The cases the property test draws, spelled out once: what each fact of a batch came to."""
    memory.declare_functional("owned_by")
    [old] = memory.remember([FactInput("billing", "owned_by", "dana", "Service", "Person", valid_from="2025-01-01")])
    [gone] = memory.remember([FactInput("billing", "uses", "kafka", None, "Library")])
    memory.forget_fact(gone.fact_id)
    batch = [
        FactInput("billing", "owned_by", "priya", None, "Person", valid_from="2026-01-01"),
        FactInput("billing", "owned_by", "sam", None, "Person", valid_from="2025-06-01"),
        FactInput("billing", "owned_by", "priya", None, None, evidence=("said again",)),
        FactInput("billing", "uses", "postgres", None, "Library"),
    ]
    outcomes = memory.remember(batch)
    assert [o.outcome for o in outcomes] == ["asserted", "filed as history", "reasserted", "asserted"]
    assert outcomes[0].superseded == [old.fact_id]
    try:
        memory.remember([*batch, FactInput("billing", "uses", "kafka", None, None)])
    except MemlensError as exc:
        assert "was forgotten" in str(exc)
    else:
        raise AssertionError("a forgotten triple was asserted again without --override")
    assert [f["object_name"] for f in memory.facts() if f["relation"] == "owned_by"] == ["priya"]


def test_a_contradiction_between_two_values_a_batch_supersedes_is_resolved_once():
    with twin_stores(frozen=False) as (bulk, one):
        for memory in (bulk, one):
            memory.declare_functional("owned_by")
            first = memory.remember([FactInput("billing", "owned_by", "dana", "Service", "Person", valid_from="2025-01-01"),
                                     FactInput("ledger", "owned_by", "sam", "Service", "Person", valid_from="2025-01-01")])
            memory.contest(first[0].fact_id, first[1].fact_id, "one owner for both?", 0.4)
        batch = [FactInput("billing", "owned_by", "priya", None, "Person", valid_from="2026-01-01"),
                 FactInput("ledger", "owned_by", "priya", None, None, valid_from="2026-01-01")]
        assert [o.as_dict() for o in bulk.remember(batch)] == [o.as_dict() for o in one_by_one(one, batch, False)]
        assert dump(bulk.conn) == dump(one.conn)
        resolves = [row for row in bulk.ledger() if row["action"] == "resolve"]
        assert len(resolves) == 1 and resolves[0]["payload"] == {"resolution": "superseded"}
        assert bulk.facts() and all(not f["contested"] for f in bulk.facts())
