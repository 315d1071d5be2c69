"""What `snapshot_load.load_into` accepts: a `memlens-snapshot/1` snapshot (docs/snapshot-format.md)
whose every field has the type the store writes, whose references point at records it holds, and
whose record times are not in the future.

A snapshot read from a bundle is untrusted input, sealed or not (anyone can seal one): each wrong
shape is refused here in one line naming the record, before a row is written, instead of failing
in SQLite or in Python halfway through the transaction.
"""
from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Iterable

from .brief_record import FIELD_LIMIT
from .errors import InvalidInput
from .ids import usable_id
from .schema import STATUSES
from .snapshot import FORMAT
from .timefmt import record_time

RESOLUTIONS = ("superseded", "retracted", "dismissed", "forgotten", "merged")
# SQLite's INTEGER is 64 bits
_LARGEST_INTEGER = (1 << 63) - 1
# a record time as the store writes one (timefmt.RECORD_FORMAT); sorted as text, so nothing else
_RECORD_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")
# two machines' clocks may disagree by a little; a bundle from further ahead would pin the store's
# clock there (its record time never runs backwards: db.write)
CLOCK_SKEW = timedelta(minutes=5)


class _Shape:
    """Checks of one record, each raising InvalidInput naming it."""

    def __init__(self, record: Any, name: str, latest: str) -> None:
        if not isinstance(record, dict):
            raise InvalidInput(f"{name} is not a JSON object")
        self.record, self.name, self.latest = record, name, latest

    def _fail(self, field: str, wanted: str) -> None:
        found = f"is {_shown(self.record[field])}, not" if field in self.record else "is missing; it should be"
        raise InvalidInput(f"{self.name}: its {field!r} {found} {wanted}")

    def text(self, *fields: str, optional: bool = False, nonempty: bool = False) -> None:
        for field in fields:
            value = self.record.get(field)
            if value is None and optional:
                continue
            if not isinstance(value, str) or (nonempty and not value.strip()):
                self._fail(field, "text" if not nonempty else "text that is not empty")

    def ids(self, *fields: str, optional: bool = False) -> None:
        for field in fields:
            value = self.record.get(field)
            if not (usable_id(value) or (optional and value is None)):
                self._fail(field, "an id (text of 1-256 printable characters)")

    def times(self, *fields: str, optional: bool = False) -> None:
        for field in fields:
            value = self.record.get(field)
            if value is None and optional:
                continue
            if not (isinstance(value, str) and _RECORD_TIME.fullmatch(value)):
                self._fail(field, "a record time such as 2026-01-05T09:01:34.000000Z")
            if value > self.latest:
                raise InvalidInput(f"{self.name}: its {field!r} {value} is later than now ({self.latest[:19]}, five "
                                   "minutes of clock difference allowed); a bundle from the future would move this "
                                   "dataset's clock there for good, so it is not imported")

    def valid_times(self, *fields: str) -> None:
        for field in fields:
            value = self.record.get(field)
            if value is not None and not (isinstance(value, str) and len(value) <= 64):
                self._fail(field, "a date, a time or null")

    def count(self, field: str) -> None:
        value = self.record.get(field)
        if value is not None and not (type(value) is int and 0 <= value <= _LARGEST_INTEGER):
            self._fail(field, f"a count from 0 to {_LARGEST_INTEGER}")

    def flag(self, field: str) -> None:
        if not isinstance(self.record.get(field), bool):
            self._fail(field, "true or false")

    def one_of(self, field: str, values: Iterable[Any]) -> None:
        if self.record.get(field) not in tuple(values):
            self._fail(field, "one of " + ", ".join(str(v) for v in values))

    def texts(self, field: str, *, optional: bool = False) -> None:
        value = self.record.get(field)
        if value is None and optional:
            return
        if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            self._fail(field, "a list of text")

    def mapping(self, field: str) -> None:
        if not isinstance(self.record.get(field), dict):
            self._fail(field, "a JSON object")


def check_loadable(snapshot: Any, now: datetime) -> None:
    """Raise InvalidInput, in one line naming the record and field, unless `snapshot` is one that
    `load_into` can write whole; `now` is the importing store's clock."""
    if not isinstance(snapshot, dict) or snapshot.get("format") != FORMAT:
        raise InvalidInput(f"not a {FORMAT} snapshot")
    for key, kind in (("entities", list), ("facts", list), ("contradictions", list), ("dismissals", list),
                      ("ledger", list), ("ontology", dict), ("generated_at", str), ("hash", str), ("dataset", str)):
        if not isinstance(snapshot.get(key), kind):
            raise InvalidInput(f"the snapshot's {key!r} is missing or not a {'text' if kind is str else kind.__name__}")
    latest = record_time((now if now.tzinfo else now.replace(tzinfo=timezone.utc)) + CLOCK_SKEW)
    _Shape(snapshot, "the snapshot", latest).times("generated_at")
    _check_ontology(snapshot["ontology"], latest)
    entities = _check_all(snapshot["entities"], "entity", _check_entity, latest)
    facts = _check_all(snapshot["facts"], "fact", _check_fact, latest)
    for fact in snapshot["facts"]:
        for end in ("subject", "object"):
            if fact.get(end) is not None and fact[end] not in entities:
                raise InvalidInput(f"fact {_shown(fact['id'])}: its {end} {_shown(fact[end])} is no entity of the snapshot")
    for entity in snapshot["entities"]:
        if entity.get("merged_into") is not None and entity["merged_into"] not in entities:
            raise InvalidInput(f"entity {_shown(entity['id'])} is merged into {_shown(entity['merged_into'])}, "
                               "which is no entity of the snapshot")
    _check_all(snapshot["contradictions"], "contradiction", _check_contradiction, latest)
    for c in snapshot["contradictions"]:
        missing = [f for f in c["facts"] if f not in facts]
        if missing:
            raise InvalidInput(f"contradiction {_shown(c['id'])} names {_shown(missing[0])}, which is no fact of the snapshot")
    for number, d in enumerate(snapshot["dismissals"], start=1):
        shape = _Shape(d, f"dismissal {number}", latest)
        shape.text("key", "kind", "content", nonempty=True)
        shape.text("reason", "actor")
        shape.times("at")
    for number, row in enumerate(snapshot["ledger"], start=1):
        _check_ledger_row(_Shape(row, f"ledger row {number}", latest))
    briefs = snapshot.get("briefs", [])   # a snapshot from before briefs has none
    if not isinstance(briefs, list):
        raise InvalidInput("the snapshot's 'briefs' is not a list")
    for number, given in enumerate(briefs, start=1):
        _check_brief(_Shape(given, f"brief {number}", latest))


def _check_all(records: list[Any], kind: str, check: Callable[[_Shape], None], latest: str) -> set[str]:
    """Check each record (named by its id once that is known to be one); returns their ids."""
    ids = set()
    for number, record in enumerate(records, start=1):
        key = "key" if kind == "dismissal" else "id"
        named = record.get(key) if isinstance(record, dict) else None
        shape = _Shape(record, f"{kind} {_shown(named)}" if usable_id(named) else f"{kind} number {number}", latest)
        shape.ids(key)
        check(shape)
        ids.add(record[key])
    return ids


def _check_ontology(ontology: dict[str, Any], latest: str) -> None:
    shape = _Shape(ontology, "the snapshot's ontology", latest)
    shape.texts("types")
    relations = ontology.get("relations")
    if not isinstance(relations, list):
        shape._fail("relations", "a list")
    for number, relation in enumerate(relations, start=1):
        named = _Shape(relation, f"the ontology's relation {number}", latest)
        named.text("name", nonempty=True)
        named.flag("functional")


def _check_entity(shape: _Shape) -> None:
    shape.text("name", "type", nonempty=True)
    shape.text("description", optional=True)
    shape.times("created_at", "updated_at")
    shape.ids("merged_into", optional=True)
    shape.times("merged_at", optional=True)


def _check_fact(shape: _Shape) -> None:
    fact = shape.record
    shape.one_of("status", STATUSES)
    forgotten = fact["status"] == "forgotten"
    shape.ids("subject", optional=forgotten)
    shape.ids("object", "superseded_by", optional=True)
    shape.text("relation", nonempty=True, optional=forgotten)
    if not forgotten and fact.get("object") is None:
        shape._fail("object", "an entity id")
    shape.text("description", "reason", "actor", optional=True)
    shape.texts("evidence", optional=forgotten)
    shape.flag("contested")
    if not isinstance(fact.get("functional", False), bool):
        shape._fail("functional", "true or false")
    shape.texts("contradictions", optional=True)
    shape.valid_times("valid_from", "valid_to")
    shape.times("recorded_at")
    shape.times("retired_at", optional=True)
    shape.count("reassertions")
    history = fact.get("history")
    if not (isinstance(history, list) and history):
        shape._fail("history", "a list of at least one version")
    for number, version in enumerate(history, start=1):
        v = _Shape(version, f"{shape.name}, version {number}", shape.latest)
        v.times("from")
        v.times("to", optional=True)
        v.one_of("status", STATUSES)
        v.ids("superseded_by", optional=True)
        v.text("reason", optional=True)
        v.valid_times("valid_from", "valid_to")
    if history[-1].get("to") is not None or any(v.get("to") is None for v in history[:-1]):
        raise InvalidInput(f"{shape.name}: only its last version may be open")


def _check_contradiction(shape: _Shape) -> None:
    c = shape.record
    facts = c.get("facts")
    if not (isinstance(facts, list) and len(facts) == 2 and all(usable_id(f) for f in facts)):
        shape._fail("facts", "two fact ids")
    confidence = c.get("confidence")
    if not (type(confidence) in (int, float) and math.isfinite(confidence) and 0 <= confidence <= 1):
        shape._fail("confidence", "a number from 0 to 1")
    shape.text("reason", "actor", "resolution_reason", optional=True)
    shape.times("recorded_at")
    shape.times("resolved_at", optional=True)
    shape.one_of("resolution", (None, *RESOLUTIONS))


def _check_brief(shape: _Shape) -> None:
    shape.times("at")
    shape.text("host", "hash", "digest", nonempty=True)
    shape.text("session", "source", optional=True)
    if not all(len(shape.record.get(field) or "") <= FIELD_LIMIT for field in ("host", "session", "source")):
        raise InvalidInput(f"{shape.name}: its host, session or source is longer than {FIELD_LIMIT} characters")
    facts = shape.record.get("facts")
    if not (isinstance(facts, list) and all(usable_id(fact) for fact in facts)):
        shape._fail("facts", "a list of fact ids")
    shape.count("chars")


def _check_ledger_row(shape: _Shape) -> None:
    row = shape.record
    if not (type(row.get("seq")) is int and 0 < row["seq"] <= _LARGEST_INTEGER):
        shape._fail("seq", "a positive whole number")
    shape.times("at")
    shape.text("actor", "action", "kind", nonempty=True)
    refs = row.get("refs")
    if not (isinstance(refs, list) and all(usable_id(ref) for ref in refs)):
        shape._fail("refs", "a list of ids (text of 1-256 printable characters)")
    shape.mapping("payload")


def _shown(value: Any) -> str:
    """A value in an error message: repr'd, and cut short so a 10,000-character id stays one line."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
