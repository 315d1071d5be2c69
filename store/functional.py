"""Functional relations: one current value per subject, ordered by valid time, then arrival."""
from __future__ import annotations

import sqlite3
from bisect import bisect_left, insort
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass

from . import contradictions
from .db import Tx
from .errors import InvalidInput
from .ontology import relation_name
from .schema import AUTO_REASON
from .versions import change_state, get_fact


def is_functional(conn: sqlite3.Connection, relation: str) -> bool:
    row = conn.execute("SELECT functional FROM relations WHERE name = ?", (relation,)).fetchone()
    return bool(row and row[0])


def declare(tx: Tx, relation: str) -> list[str]:
    """Make `relation` functional and settle every subject that now holds several values."""
    relation = relation_name(relation)
    if not relation:
        raise InvalidInput("a relation needs a name")
    tx.conn.execute(
        """INSERT INTO relations (name, functional, declared_at) VALUES (?, 1, ?)
           ON CONFLICT (name) DO UPDATE SET functional = 1, declared_at = excluded.declared_at""",
        (relation, tx.at),
    )
    tx.log("declare_functional", "relation", [], relation=relation)
    superseded: list[str] = []
    subjects = tx.all("SELECT DISTINCT subject_id FROM facts WHERE relation = ? ORDER BY subject_id", (relation,))
    for row in subjects:
        superseded += settle(tx, row[0], relation)
    return superseded


def _values(conn: sqlite3.Connection, subject_id: str, relation: str) -> list[sqlite3.Row]:
    """The subject's current and superseded values, in the order the world saw them."""
    return conn.execute(
        """SELECT f.id, f.arrival, v.status, v.superseded_by, v.automatic, v.valid_from, v.valid_to,
                  coalesce(v.valid_from, (SELECT recorded_at FROM fact_versions
                                          WHERE fact_id = f.id ORDER BY version LIMIT 1)) AS starts
           FROM facts f JOIN fact_versions v ON v.fact_id = f.id AND v.retired_at IS NULL
           WHERE f.subject_id = ? AND f.relation = ? AND v.status IN ('current', 'superseded')
           ORDER BY starts, f.arrival""",
        (subject_id, relation),
    ).fetchall()


def settle(tx: Tx, subject_id: str, relation: str) -> list[str]:
    """Supersede all but the latest current value; returns the ids it superseded.

    An undated value counts as valid from when it was first recorded. A value that arrives late
    with an older valid_from is filed as history: superseded by the next later value, slotted
    between its neighbours, and the present stays.
    """
    if not is_functional(tx.conn, relation):
        return []
    values = _values(tx.conn, subject_id, relation)
    current = [v for v in values if v["status"] == "current"]
    superseded = []
    for loser in current[:-1]:
        successor = _next_in_chain(values, loser)
        _slot_in(tx, values, loser, successor)
        change_state(
            tx, loser["id"], status="superseded", superseded_by=successor["id"], reason=AUTO_REASON, automatic=1,
            valid_to=ends_by(loser["valid_to"], successor["valid_from"]),
        )
        tx.log("supersede", "fact", [loser["id"], successor["id"]], automatic=True)
        contradictions.resolve_all_of(tx, loser["id"], "superseded", AUTO_REASON)
        superseded.append(loser["id"])
    return superseded


def rechain(tx: Tx, subject_id: str, relation: str) -> list[str]:
    """`settle` for a key two histories became (a merge of two subjects): every value that stands in
    the order, up to the latest current one, is closed by the very next one, where that one begins
    or sooner, so no two hold at once. A key that was one chain already is left as it is. Returns
    the ids it closed or re-pointed."""
    if not is_functional(tx.conn, relation):
        return []
    standing = [v for v in _values(tx.conn, subject_id, relation) if v["status"] == "current" or v["automatic"]]
    last = max((i for i, v in enumerate(standing) if v["status"] == "current"), default=None)
    if last is None:
        return []
    changed = []
    for value, successor in zip(standing[:last], standing[1:last + 1]):
        valid_to = ends_by(value["valid_to"], successor["valid_from"])
        if (value["status"], value["superseded_by"], value["valid_to"]) == ("superseded", successor["id"], valid_to):
            continue
        change_state(tx, value["id"], status="superseded", superseded_by=successor["id"], reason=AUTO_REASON,
                     automatic=1, valid_to=valid_to)
        tx.log("supersede", "fact", [value["id"], successor["id"]], automatic=True)
        contradictions.resolve_all_of(tx, value["id"], "superseded", AUTO_REASON)
        changed.append(value["id"])
    return changed


def ends_by(valid_to: str | None, next_starts: str | None) -> str | None:
    """Where a value closed by the order ends: where the next value begins, or sooner if it was
    said to end sooner. A later end said of it gives way, so the key's intervals never overlap."""
    if next_starts is None or (valid_to is not None and valid_to < next_starts):
        return valid_to
    return next_starts


def _next_in_chain(values: list[sqlite3.Row], value: sqlite3.Row) -> sqlite3.Row:
    """The next later value that is current or was replaced by this ordering (not by a judgement)."""
    later = values[values.index(value) + 1:]
    return next(v for v in later if v["status"] == "current" or v["automatic"])


def _place(value: sqlite3.Row) -> tuple[str, int]:
    """Where a value stands in the order: by when it starts, then (on the same day) by arrival."""
    return value["starts"], value["arrival"]


def _slot_in(tx: Tx, values: list[sqlite3.Row], late: sqlite3.Row, successor: sqlite3.Row) -> None:
    """An earlier value that was automatically closed by `successor` now ends where `late` begins."""
    for earlier in values:
        if (earlier["status"] == "superseded" and earlier["superseded_by"] == successor["id"]
                and earlier["automatic"] and _place(earlier) < _place(late)):
            change_state(tx, earlier["id"], superseded_by=late["id"],
                         valid_to=ends_by(earlier["valid_to"], late["valid_from"]))
            tx.log("supersede", "fact", [earlier["id"], late["id"]], automatic=True)


def said_end(tx: Tx, fact: sqlite3.Row, successor_began: str | None) -> str | None:
    """Where a value ends by what was said of it, before the order closed it: the end it had when it
    last held (the order only ever shortens an end, and the settle that follows shortens it
    again up to the next standing value). A value closed in the very write that said it never held:
    the end its assertion said (the ledger keeps it); for one copied from another tool's store,
    with no such row, an end at its successor's start came from that successor and is lifted."""
    # since it was last asserted: a fact forgotten and asserted again on purpose starts afresh
    held = tx.one("""SELECT valid_to FROM fact_versions WHERE fact_id = ? AND status = 'current'
                       AND version > (SELECT coalesce(max(version), 0) FROM fact_versions
                                      WHERE fact_id = ? AND status = 'forgotten')
                     ORDER BY version DESC LIMIT 1""", (fact["id"], fact["id"]))
    if held is not None:
        return held["valid_to"]
    said = tx.one("""SELECT json_extract(l.payload, '$.valid_to') FROM ledger_refs r JOIN ledger l ON l.seq = r.seq
                     WHERE r.ref = ? AND l.action = 'assert' ORDER BY l.seq DESC LIMIT 1""", (fact["id"],))
    if said is not None:
        return said[0]
    return None if fact["valid_to"] == successor_began else fact["valid_to"]


def reopen_closed_by(tx: Tx, withdrawn: str, subject_id: str, relation: str, began: str | None,
                     why: str) -> list[str]:
    """The values the order closed with `withdrawn` (a value retracted or forgotten, which began at
    `began`) hold again in their places, with the ends said of them, and the order settles;
    returns the ids reopened. So every value the order closed has a successor in the order. A
    value a judgement superseded stays as judged."""
    if not is_functional(tx.conn, relation):
        return []
    reopened = sorted(value.id for value in StoredKey(tx.conn, subject_id, relation).closed_by(withdrawn))
    for fid in reopened:
        change_state(tx, fid, status="current", superseded_by=None, reason=why,
                     valid_to=said_end(tx, get_fact(tx.conn, fid), began))
        tx.log("restore", "fact", [fid], automatic=True)
    if reopened:
        settle(tx, subject_id, relation)
    return reopened


# -- one key in memory: the neighbourhood settle ------------------------------------------------

@dataclass
class Value:
    """One value of a functional key, as the ordering sees it."""

    id: str
    arrival: int
    status: str
    superseded_by: str | None
    automatic: int
    valid_from: str | None
    valid_to: str | None
    starts: str  # valid_from, or when the fact was first recorded

    @property
    def place(self) -> tuple[str, int, str]:
        return (self.starts, self.arrival, self.id)

    @property
    def stands(self) -> bool:
        """In the order: current, or closed by the order itself (not by a judgement)."""
        return self.status == "current" or (self.status == "superseded" and bool(self.automatic))


@dataclass(frozen=True)
class Move:
    """One change the ordering makes: `fact` is now superseded by `by`, valid until `valid_to`.

    `slotted` moves re-point an earlier value at a late one (`_slot_in`); the others retire a
    current value (`settle`'s losers)."""

    fact: str
    by: str
    valid_to: str | None
    slotted: bool


class StoredKey:
    """Reads one key's stored values by what the settle asks for, each query a scan of the key in SQLite."""

    _VALUES = """
        SELECT f.id, f.arrival, v.status, v.superseded_by, v.automatic, v.valid_from, v.valid_to,
               coalesce(v.valid_from, (SELECT recorded_at FROM fact_versions
                                       WHERE fact_id = f.id ORDER BY version LIMIT 1)) AS starts
        FROM facts f JOIN fact_versions v ON v.fact_id = f.id AND v.retired_at IS NULL
        WHERE f.subject_id = ? AND f.relation = ? AND v.status IN ('current', 'superseded')"""

    def __init__(self, conn: sqlite3.Connection, subject_id: str, relation: str) -> None:
        self.conn, self.key = conn, (subject_id, relation)

    def _read(self, where: str, params: tuple = ()) -> list[Value]:
        return [Value(*row) for row in self.conn.execute(self._VALUES + where, (*self.key, *params))]

    def current(self) -> list[Value]:
        return self._read(" AND v.status = 'current'")

    def chain_after(self, place: tuple[str, int, str], limit: int) -> list[Value]:
        """The first current or automatically superseded values after `place`, in order."""
        return self._read(" AND (v.status = 'current' OR v.automatic) AND (starts, f.arrival, f.id) > (?, ?, ?)"
                          " ORDER BY starts, f.arrival, f.id LIMIT ?", (*place, limit))

    def closed_by(self, successor: str) -> list[Value]:
        # Led by fact_versions_closed_by (the + keeps the planner off the key's index): ~1 ms less
        # than a scan of a 1,000-value key.
        return [Value(*row) for row in self.conn.execute(
            """SELECT f.id, f.arrival, v.status, v.superseded_by, v.automatic, v.valid_from, v.valid_to,
                      coalesce(v.valid_from, (SELECT recorded_at FROM fact_versions
                                              WHERE fact_id = f.id ORDER BY version LIMIT 1))
               FROM fact_versions v JOIN facts f ON f.id = v.fact_id
               WHERE v.superseded_by = ? AND v.retired_at IS NULL AND v.automatic = 1
                 AND v.status = 'superseded' AND +f.subject_id = ? AND +f.relation = ?""", (successor, *self.key))]

    def all(self) -> list[Value]:
        return self._read("")


class KeyHistory:
    """One subject's current and superseded values of a functional relation, kept in order and
    indexed, so that settling a new value touches its neighbours and not the whole history.

    Values held here are the truth for the batch; a key with stored values reads from `stored`
    only the values the settle reaches (its current values, the next value in the chain, the
    values a successor closed), until it has been settled often enough that reading it whole is
    cheaper. `settle` makes exactly the changes `settle` above makes on the same values
    (tests/test_ingest.py holds them together).
    """

    # Settles of one stored key in one batch before the whole key is read: each partial settle
    # scans the key in SQLite three times, reading it whole costs about as much as three settles.
    WHOLE_AFTER = 3
    CHAIN_PAGE = 16  # stored chain values read at a time when looking for the next one

    def __init__(self, values: list[Value], stored: StoredKey | None = None) -> None:
        self.values: dict[str, Value] = {}
        self.order: list[tuple[str, int, str]] = []
        self.current: set[str] = set()
        self.automatic_by: dict[str, set[str]] = defaultdict(set)  # successor -> values it closed
        self.stored, self.settles = stored, 0
        for value in values:
            self.add(value)
        if stored is not None:
            for value in stored.current():
                self.add(value)

    @classmethod
    def read(cls, conn: sqlite3.Connection, subject_id: str, relation: str) -> KeyHistory:
        """A key with stored values, read as the settle needs them."""
        return cls([], StoredKey(conn, subject_id, relation))

    def add(self, value: Value) -> None:
        self.values[value.id] = value
        insort(self.order, value.place)
        if value.status == "current":
            self.current.add(value.id)
        elif value.status == "superseded" and value.automatic:
            self.automatic_by[value.superseded_by].add(value.id)  # type: ignore[index]

    def _take(self, stored: list[Value]) -> list[Value]:
        """Stored values, as this history holds them (the batch may have changed them)."""
        for value in stored:
            if value.id not in self.values:
                self.add(value)
        return [self.values[value.id] for value in stored]

    def stands_between(self, start: str, end: str, besides: Collection[str]) -> bool:
        """Whether a value not in `besides` stands (current, or closed by the order) somewhere in
        [start, end): a question asked rarely, so the key is read whole to answer it."""
        if self.stored is not None:
            self._take(self.stored.all())
            self.stored = None
        return any(value.id not in besides and value.stands
                   and (value.valid_from is None or value.valid_from < end)
                   and (value.valid_to is None or value.valid_to > start) for value in self.values.values())

    def revalue(self, fid: str, valid_from: str | None, valid_to: str | None, first_recorded: str) -> None:
        """A current value said again with other dates: it may move in the order."""
        value = self.values[fid]
        self.order.pop(bisect_left(self.order, value.place))
        value.valid_from, value.valid_to = valid_from, valid_to
        value.starts = valid_from or first_recorded
        insort(self.order, value.place)

    def settle(self) -> list[Move]:
        """Supersede all but the latest current value; the moves in the order `settle` logs them."""
        if len(self.current) < 2:
            return []
        self.settles += 1
        if self.stored is not None and self.settles > self.WHOLE_AFTER:
            self._take(self.stored.all())
            self.stored = None
        losers = sorted((self.values[fid] for fid in self.current), key=lambda v: v.place)[:-1]
        moves: list[Move] = []
        for loser in losers:
            successor = self._next_in_chain(loser)
            if self.stored is not None:
                self._take(self.stored.closed_by(successor.id))
            closed = sorted((self.values[fid] for fid in self.automatic_by.get(successor.id, ())),
                            key=lambda v: v.place)
            for earlier in closed:
                if earlier.place < loser.place:   # on the same day, the one that came first
                    moves.append(self._close(earlier, loser, ends_by(earlier.valid_to, loser.valid_from), slotted=True))
            moves.append(self._close(loser, successor, ends_by(loser.valid_to, successor.valid_from), slotted=False))
        return moves

    def _next_in_chain(self, value: Value) -> Value:
        held = self._next_held(value.place)
        if self.stored is None:
            assert held is not None, "a loser always has a later current value"
            return held
        place = value.place
        while True:  # the first stored chain value after `place` that the batch has not changed
            batch = self.stored.chain_after(place, self.CHAIN_PAGE)
            fresh = [v for v in batch if v.id not in self.values]
            if fresh or len(batch) < self.CHAIN_PAGE:
                break
            place = batch[-1].place
        stored = fresh[0] if fresh else None
        if stored is not None and (held is None or stored.place < held.place):
            self._take([stored])
            return stored
        assert held is not None, "a loser always has a later current value"
        return held

    def _next_held(self, place: tuple[str, int, str]) -> Value | None:
        for index in range(bisect_left(self.order, place) + 1, len(self.order)):
            later = self.values[self.order[index][2]]
            if later.stands:
                return later
        return None

    def _close(self, value: Value, by: Value, valid_to: str | None, *, slotted: bool) -> Move:
        if value.status == "superseded" and value.automatic:
            self.automatic_by[value.superseded_by].discard(value.id)  # type: ignore[index]
        self.current.discard(value.id)
        value.status, value.superseded_by, value.automatic, value.valid_to = "superseded", by.id, 1, valid_to
        self.automatic_by[by.id].add(value.id)
        return Move(value.id, by.id, valid_to, slotted)
