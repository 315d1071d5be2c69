"""Every as-of answer about a functional key agrees with a plain model of the key.

The model is a list of holdings (a value over an interval) changed by the rules as a person states
them, with a copy kept after every write: "which value held at valid time v, as recorded at record
time r" is then a look at the copy of time r. Random sequences of writes (values that return,
late arrivals, values said with an end, said again inside their interval), judgements
(supersede, retract, restore) and forgetting are run on a store and on the model, and `facts` with
--as-of-record, --as-of-valid and both must answer what the model answers, at every record time
and at every month boundary.
"""
from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memlens.store.errors import MemlensError
from memlens.store.facts import FactInput
from memlens.store.ids import entity_id, fact_id, new_holding_id
from memlens.store.memory import Memory
from memlens.store.timefmt import record_time

# a few seconds for 150: the sequences that break an interval are long ones
SETTINGS = settings(max_examples=int(os.environ.get("MEMLENS_PROPERTY_EXAMPLES", "150")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
VALUES = ("alice", "bob", "carol")
SUBJECT = entity_id("svc")
FIRST_WRITE = datetime(2025, 1, 3, 12, 0, tzinfo=timezone.utc)
WRITE_STEP = timedelta(days=23)   # record times fall between the valid dates: undated values interleave


def month(index: int) -> str:
    return date(2025 + index // 12, index % 12 + 1, 1).isoformat()


# -- the model -----------------------------------------------------------------------------------

@dataclass
class Holding:
    id: str
    value: str
    valid_from: str | None
    valid_to: str | None
    first_recorded: str
    arrival: int
    status: str = "current"
    by: str | None = None
    automatic: bool = False
    held: bool = False               # current at the end of some write
    held_to: str | None = None       # its end then, the last time
    said_to: str | None = None       # the end it was said with

    @property
    def place(self) -> tuple[str, int]:
        return (self.valid_from or self.first_recorded, self.arrival)

    def stands(self) -> bool:
        """In the order: current, or closed by the order (not by a judgement)."""
        return self.status == "current" or (self.status == "superseded" and self.automatic)

    def holds_at(self, valid: str) -> bool:
        return ((self.valid_from is None or self.valid_from <= valid)
                and (self.valid_to is None or valid < self.valid_to))


def ended_by(valid_to: str | None, next_starts: str | None) -> str | None:
    if next_starts is None:
        return valid_to
    return next_starts if valid_to is None else min(valid_to, next_starts)


class Refused(Exception):
    pass


class Key:
    """One subject's owned_by values, and the key as it stood after each write."""

    def __init__(self) -> None:
        self.holdings: list[Holding] = []
        self.forgotten: set[str] = set()   # values
        self.arrivals = 0
        self.recorded: list[tuple[str, list[Holding]]] = []

    def by_id(self, id_: str) -> Holding:
        return next(h for h in self.holdings if h.id == id_)

    def say(self, value: str, valid_from: str | None, valid_to: str | None, at: str) -> str:
        if value in self.forgotten:
            raise Refused    # a forgotten value is said again only on purpose
        same = sorted((h for h in self.holdings if h.value == value), key=lambda h: h.place)
        target = None
        if same and valid_from is None:
            target = same[-1]           # undated: the latest holding, judged as it was
        elif same:
            def ends_after(h: Holding) -> bool:
                return h.valid_to is None or valid_from < h.valid_to
            inside = [h for h in same if h.valid_from == valid_from
                      or ((h.valid_from is None or h.valid_from <= valid_from) and ends_after(h))]
            overlapping = [h for h in same if ends_after(h)
                           and (valid_to is None or h.valid_from is None or h.valid_from < valid_to)]
            target = inside[-1] if inside else overlapping[0] if overlapping else None
            if target is not None and not inside and target.status == "current" \
                    and self.others_stand(value, valid_from, target.valid_from):
                target = None   # moved back, it would hold at once with another value: a holding of its own
        if target is not None:
            if target.status == "current" and ((valid_from and valid_from != target.valid_from)
                                               or (valid_to and valid_to != target.valid_to)):
                # the present value's dates corrected: it moves in the order, over no other value's time
                target.valid_from = valid_from or target.valid_from
                target.valid_to = valid_to or target.valid_to
                self.settle()
            return target.id
        triple = (SUBJECT, "owned_by", entity_id(value))
        new_id = new_holding_id(*triple, valid_from, {h.id for h in same}) if same else fact_id(*triple)  # type: ignore[arg-type]
        self.arrivals += 1
        self.holdings.append(Holding(new_id, value, valid_from, valid_to, at, self.arrivals, said_to=valid_to))
        self.settle()
        return new_id

    def others_stand(self, value: str, start: str, end: str) -> bool:
        """Whether another value stands (in the order) somewhere in [start, end)."""
        return any(h.value != value and h.stands() and (h.valid_from is None or h.valid_from < end)
                   and (h.valid_to is None or h.valid_to > start) for h in self.holdings)

    def settle(self) -> None:
        """All but the latest current value give way: each ends where the next standing value
        begins, and a value a late one now follows ends where the late one begins."""
        values = sorted((h for h in self.holdings if h.status in ("current", "superseded")), key=lambda h: h.place)
        for loser in [h for h in values if h.status == "current"][:-1]:
            successor = next(h for h in values[values.index(loser) + 1:] if h.stands())
            for earlier in [h for h in values if h.status == "superseded" and h.automatic and h.by == successor.id]:
                if earlier.place < loser.place:
                    earlier.by, earlier.valid_to = loser.id, ended_by(earlier.valid_to, loser.valid_from)
            loser.status, loser.by, loser.automatic = "superseded", successor.id, True
            loser.valid_to = ended_by(loser.valid_to, successor.valid_from)

    def supersede(self, old: Holding, new: Holding) -> None:
        if old is new or new.status != "current" or (old.status == "superseded" and old.by == new.id):
            raise Refused
        old.status, old.by, old.automatic = "superseded", new.id, False

    def retract(self, fact: Holding) -> None:
        if fact.status == "retracted":
            raise Refused
        fact.status, fact.by, fact.automatic = "retracted", None, False
        self.reopen_closed_by(fact)

    def forget(self, fact: Holding) -> None:
        """Every holding of its value erased, at every record time; each reopens what it closed."""
        self.forgotten.add(fact.value)
        for gone in sorted((h for h in self.holdings if h.value == fact.value),
                           key=lambda h: (h is not fact, h.arrival)):
            self.holdings.remove(gone)
            for _, held in self.recorded:
                held[:] = [h for h in held if h.id != gone.id]
            self.reopen_closed_by(gone)

    def reopen_closed_by(self, withdrawn: Holding) -> None:
        """The values the order closed with a withdrawn value hold again, with the ends said of
        them, and the order settles."""
        for fact in [h for h in self.holdings if h.status == "superseded" and h.automatic and h.by == withdrawn.id]:
            fact.status, fact.by, fact.automatic, fact.valid_to = "current", None, False, self.said_end(fact)
        self.settle()

    @staticmethod
    def said_end(fact: Holding) -> str | None:
        """The end it had when it last held; one closed in the write that said it never held: the
        end it was said with."""
        return fact.held_to if fact.held else fact.said_to

    def restore(self, fact: Holding) -> None:
        if fact.status == "current":
            raise Refused
        successor = self.by_id(fact.by) if fact.by and fact.automatic else None
        if successor is not None and successor.stands():
            raise Refused    # it would run over a value that still holds
        fact.status, fact.by, fact.automatic = "current", None, False
        fact.valid_to = self.said_end(fact)
        self.settle()

    def keep(self, at: str) -> None:
        for h in self.holdings:
            if h.status == "current":
                h.held, h.held_to = True, h.valid_to
        self.recorded.append((at, copy.deepcopy(self.holdings)))

    def answer(self, as_of_record: str | None, as_of_valid: str | None) -> set[str]:
        holdings = self.holdings
        if as_of_record is not None:
            kept = [held for at, held in self.recorded if at <= as_of_record]
            holdings = kept[-1] if kept else []
        if as_of_valid is None:
            return {h.id for h in holdings if h.status == "current"}
        return {h.id for h in holdings if h.status in ("current", "superseded") and h.holds_at(as_of_valid)}


# -- the run ---------------------------------------------------------------------------------------

class SetClock:
    def __init__(self) -> None:
        self.now = FIRST_WRITE

    def __call__(self) -> datetime:
        return self.now


says = st.tuples(st.just("say"), st.integers(0, 2), st.one_of(st.none(), st.integers(0, 23)),
                 st.one_of(st.none(), st.none(), st.integers(1, 8)))
operations = st.lists(st.one_of(
    says, says, says, says,
    st.tuples(st.just("supersede"), st.integers(0, 9), st.integers(0, 9)),
    st.tuples(st.just("retract"), st.integers(0, 9)),
    st.tuples(st.just("restore"), st.integers(0, 9)), st.tuples(st.just("restore"), st.integers(0, 9)),
    st.tuples(st.just("forget"), st.integers(0, 9)),
), min_size=1, max_size=16)


def run(memory: Memory, key: Key, clock: SetClock, op: tuple) -> bool:
    """One write on both; whether it was made (the store refuses exactly what the model refuses)."""
    at = record_time(clock.now)
    if op[0] == "say":
        _, value, start, length = op
        valid_from = None if start is None else month(start)
        valid_to = None if start is None or length is None else month(start + length)
        said = FactInput("svc", "owned_by", VALUES[value], "Service", "Person", valid_from=valid_from, valid_to=valid_to)
        try:
            expected = key.say(VALUES[value], valid_from, valid_to, at)
        except Refused:
            with pytest.raises(MemlensError, match="forgotten"):
                memory.remember([said])
            return False
        [outcome] = memory.remember([said])
        assert outcome.fact_id == expected, (op, outcome)
        return True
    if not key.holdings:
        return False
    fact, *other = [key.holdings[i % len(key.holdings)] for i in op[1:]]   # chosen before the model changes
    on_model, on_store = {
        "supersede": (lambda: key.supersede(fact, other[0]), lambda: memory.supersede(fact.id, other[0].id, "judged")),
        "retract": (lambda: key.retract(fact), lambda: memory.retract(fact.id, "wrong")),
        "restore": (lambda: key.restore(fact), lambda: memory.restore(fact.id, "right after all")),
        "forget": (lambda: key.forget(fact), lambda: memory.forget_fact(fact.id)),
    }[op[0]]
    try:
        on_model()
    except Refused:
        with pytest.raises(MemlensError):
            on_store()
        return False
    on_store()
    return True


@SETTINGS
@given(ops=operations)
# a restore after two retractions, which must end where the next standing value begins
@example(ops=[("say", 0, 0, None), ("say", 1, 2, None), ("say", 2, 4, None), ("say", 0, 6, None),
              ("retract", 1), ("retract", 3), ("restore", 0)])
# a value said with an end past the next value's start gives way to it
@example(ops=[("say", 0, 0, 8), ("say", 1, 3, None), ("say", 0, 10, None), ("say", 2, 1, None)])
# the present value said to start back over another value's time: a holding of its own
@example(ops=[("say", 0, 0, None), ("say", 1, 5, None), ("say", 2, 12, None), ("say", 2, 2, None)])
# a judged value said to start earlier stays as it was judged
@example(ops=[("say", 1, 0, None), ("say", 0, 1, None), ("retract", 1), ("say", 0, 0, None)])
# a value said again from the day of a holding the order left no time (it is that holding)
@example(ops=[("say", 2, 0, 1), ("say", 2, 1, None), ("say", 0, 1, None), ("say", 2, 1, None)])
# a value whose successor is retracted reopened: a value said from its day then closes it
@example(ops=[("say", 1, 0, 1), ("say", 1, 1, None), ("retract", 1), ("say", 0, 0, None)])
# a value said from the day a holding of it was named by, after that holding's start moved (its id)
@example(ops=[("say", 1, 0, 1), ("say", 1, 1, None), ("say", 1, 2, None), ("say", 0, 0, None), ("say", 1, 1, None)])
# two values from the same day: the one that came first ends where the later one begins
@example(ops=[("say", 0, 1, None), ("say", 0, 0, 1), ("say", 1, 0, None)])
def test_every_as_of_answer_agrees_with_the_plain_model(tmp_path_factory, ops):
    clock, key = SetClock(), Key()
    with Memory(tmp_path_factory.mktemp("oracle") / "m.sqlite", actor="test:oracle", clock=clock) as memory:
        memory.declare_functional("owned_by")
        written, judged_apart, undated = [], False, False
        for op in ops:
            clock.now += WRITE_STEP
            if run(memory, key, clock, op):
                written.append(record_time(clock.now))
                key.keep(written[-1])
                judged_apart |= op[0] == "supersede"
                undated |= op[0] == "say" and op[2] is None
        records = [None, *written, *(record_time(clock.now - WRITE_STEP / 2) for _ in written[:1])]
        records += [record_time(FIRST_WRITE + WRITE_STEP * n + WRITE_STEP / 2) for n in range(len(ops) + 1)]
        valid_times = [None, *(month(m) for m in range(0, 34)), "2025-03-15", "2026-07-20"]
        for as_of_record in records:
            for as_of_valid in valid_times:
                stored = {f["id"] for f in memory.facts(as_of_record=as_of_record, as_of_valid=as_of_valid)
                          if f["relation"] == "owned_by"}
                assert stored == key.answer(as_of_record, as_of_valid), (as_of_record, as_of_valid)
                if as_of_valid is not None and not (judged_apart or undated):
                    # no two values of the key hold at once, restores and returns included
                    assert len(stored) <= 1, (as_of_record, as_of_valid, stored)


@SETTINGS
@given(ops=operations)
# the typo replaced the right name: the present value stays (it was left with none)
@example(ops=[("say", 0, None, None), ("say", 2, None, None)])
# the typo held before the right name: that time stays held (it was folded into the later holding)
@example(ops=[("say", 2, None, None), ("say", 0, 1, None)])
# a retracted holding of the right name is no twin of the typo's present value
@example(ops=[("say", 0, None, None), ("retract", 0), ("say", 2, 1, None)])
def test_merging_a_value_into_another_renames_it_and_changes_nothing_else_at_any_time(tmp_path_factory, ops):
    """carol was a typo of alice: after the merge, whoever held at every valid time is who held
    before, carol read as alice; the current value too; and a value said afterwards inside any
    holding's time still leaves one value at a time (the order's chain runs through the copies)."""
    clock, key = SetClock(), Key()
    with Memory(tmp_path_factory.mktemp("merge") / "m.sqlite", actor="test:oracle", clock=clock) as memory:
        memory.declare_functional("owned_by")
        judged_apart, undated = False, False
        for op in ops:
            clock.now += WRITE_STEP
            if run(memory, key, clock, op):
                key.keep(record_time(clock.now))
                judged_apart |= op[0] == "supersede"
                undated |= op[0] == "say" and op[2] is None
        if not {"alice", "carol"} <= {h.value for h in key.holdings}:
            return
        valid_times = [None, *(month(m) for m in range(0, 34))]

        def owners(as_of_valid: str | None) -> set[str]:
            return {f["object_name"] for f in memory.facts(as_of_valid=as_of_valid) if f["relation"] == "owned_by"}

        before = {v: {"alice" if name == "carol" else name for name in owners(v)} for v in valid_times}
        clock.now += WRITE_STEP
        memory.merge("alice", "carol")
        assert {v: owners(v) for v in valid_times} == before
        if judged_apart or undated:
            return
        clock.now += WRITE_STEP
        memory.remember([FactInput("svc", "owned_by", "dave", "Service", "Person", valid_from=month(1))])
        for valid in valid_times[1:]:
            assert len([f for f in memory.facts(as_of_valid=valid) if f["relation"] == "owned_by"]) <= 1, valid


@SETTINGS
@given(ops=operations.filter(lambda ops: all(op[0] != "supersede" and (op[0] != "say" or op[2] is not None)
                                           for op in ops)),
       pick=st.integers(0, 9))
def test_retracting_a_value_and_restoring_it_changes_no_answer(tmp_path_factory, ops, pick):
    """Retract a current or superseded value (the order reopens what it closed), restore it (the order
    closes them again): every valid time answers as before, ends included. Dated values only: an
    undated value's place is when it was recorded, which a later date said of another may pass;
    and no judged supersession, which a restore does not bring back (the order places the value)."""
    clock, key = SetClock(), Key()
    with Memory(tmp_path_factory.mktemp("round") / "m.sqlite", actor="test:oracle", clock=clock) as memory:
        memory.declare_functional("owned_by")
        for op in ops:
            clock.now += WRITE_STEP
            if run(memory, key, clock, op):
                key.keep(record_time(clock.now))
        standing = [f["id"] for f in memory.facts(include_all=True)
                    if f["relation"] == "owned_by" and f["status"] in ("current", "superseded")]
        if not standing:
            return
        valid_times = [None, *(month(m) for m in range(0, 34))]

        def answers() -> dict[str | None, list[tuple]]:
            return {v: sorted((f["object_name"], f["status"], f["valid_from"], f["valid_to"])
                              for f in memory.facts(as_of_valid=v) if f["relation"] == "owned_by")
                    for v in valid_times}

        before = answers()
        target = standing[pick % len(standing)]
        clock.now += WRITE_STEP
        memory.retract(target, "wrong")
        assert memory.fact(target)["status"] == "retracted"
        clock.now += WRITE_STEP
        memory.restore(target, "right after all")
        assert answers() == before


@SETTINGS
@given(says=st.lists(st.tuples(st.sampled_from(["billing", "payments"]), st.integers(0, 2), st.integers(0, 23),
                               st.one_of(st.none(), st.integers(1, 8))), min_size=1, max_size=10))
# a carried holding of alice widened over bob's time (two owners at once)
@example(says=[("billing", 0, 0, None), ("billing", 1, 5, None), ("payments", 0, 2, None), ("payments", 2, 8, None)])
# and one whose chain ran through a holding that began before it
@example(says=[("billing", 0, 0, None), ("payments", 0, 1, None), ("payments", 1, 0, None)])
def test_merging_two_subjects_leaves_one_owner_at_a_time_and_a_present_one_where_one_subject_has_one(tmp_path_factory, says):
    """payments was billing under another name: after the merge billing has one owner at a time (two
    histories became one: the order closes each value where the next begins), and a present owner
    where a store told everything of billing, in the same order, has one."""
    def told(path, merged: bool) -> Memory:
        clock = SetClock()
        memory = Memory(path, actor="test:oracle", clock=clock)
        memory.declare_functional("owned_by")
        for subject, value, start, length in says:
            clock.now += WRITE_STEP
            memory.remember([FactInput(subject if merged else "billing", "owned_by", VALUES[value], "Service",
                                       "Person", valid_from=month(start),
                                       valid_to=None if length is None else month(start + length))])
        if merged:
            clock.now += WRITE_STEP
            memory.merge("billing", "payments")
        return memory

    def owners(memory: Memory, valid: str | None) -> list[str]:
        return sorted(f["object_name"] for f in memory.facts(as_of_valid=valid)
                      if f["relation"] == "owned_by" and f["subject_name"] == "billing")

    if not {"billing", "payments"} <= {subject for subject, *_ in says}:
        return
    directory = tmp_path_factory.mktemp("subjects")
    with told(directory / "merged.sqlite", True) as merged, told(directory / "one.sqlite", False) as one:
        for valid in [None, *(month(m) for m in range(0, 34))]:
            assert len(owners(merged, valid)) <= 1, valid
        assert bool(owners(merged, None)) == bool(owners(one, None))   # a present owner if either side had one
