"""Timeline models: each fact's value as a bar over valid time, with record-time markers.

Valid time (when it was true) and record time (when the store believed it) share one date axis,
so a late-arriving older value shows as a bar far left of the marker that says when it arrived.
The models hold finished SVG coordinates; templates/_timeline.html only draws them, which keeps
the page printable and readable without JavaScript.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from typing import Any, Iterable, NamedTuple

from .palette import type_color
from .timefmt import from_day_number, short_record_time, to_day_number

WIDTH = 760
LABEL_WIDTH = 200
PLOT_LEFT = LABEL_WIDTH + 12
PLOT_RIGHT = WIDTH - 16
ROW_HEIGHT = 30
TOP = 8
AXIS_HEIGHT = 26
MAX_ROWS = 40
MAX_FUNCTIONAL_TIMELINES = 200
MAX_ENTITY_TIMELINES = 150
MARKER_KINDS = ("asserted", "superseded", "retracted", "contested", "reasserted", "forgotten")
MARKER_ORDER = {kind: i for i, kind in enumerate(MARKER_KINDS)}


# Rows, bars and markers are named tuples, not dataclasses: a site draws a timeline for every
# entity, and a frozen dataclass costs several times a tuple to make.
class Tick(NamedTuple):
    x: float
    label: str


class Bar(NamedTuple):
    x: float
    width: float
    status: str
    color: str
    open_start: bool
    open_end: bool


class Marker(NamedTuple):
    x: float
    kind: str
    title: str


class Row(NamedTuple):
    y: float
    label: str
    title: str
    fact_id: str
    status: str
    contested: bool
    bar: Bar | None
    markers: list[Marker]


@dataclass(frozen=True)
class Timeline:
    anchor: str            # element id, e.g. timeline-entity-<uuid>
    title: str
    subtitle: str
    rows: list[Row]
    ticks: list[Tick]
    start_day: float       # axis range in days since 1970, for the browser's as-of cursor
    end_day: float
    height: float
    hidden_rows: int = 0
    entity_id: str = ""


Event = tuple[float, str, str]   # (day, marker kind, title)


class TimelineBuilder:
    """Turns a snapshot into timeline models; one instance per snapshot (it keeps lookups, and
    each fact's bar span and markers once worked out, since a fact sits on two entities' timelines)."""

    def __init__(self, snapshot: dict[str, Any]) -> None:
        self.snapshot = snapshot
        self.entities = {e["id"]: e for e in snapshot["entities"]}
        self.facts = {f["id"]: f for f in snapshot["facts"]}
        self.contradictions_of: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for contradiction in snapshot.get("contradictions", []):
            for fid in contradiction.get("facts", []):
                self.contradictions_of[fid].append(contradiction)
        self.reassertions_of: dict[str, list[str]] = defaultdict(list)
        for row in snapshot.get("ledger", []):
            if row.get("action") == "reassert" and row.get("refs"):
                self.reassertions_of[row["refs"][0]].append(row["at"])
        self._days: dict[str | None, float | None] = {None: None}
        self._prepared: dict[str, tuple[float | None, float | None, list[Event], str]] = {}
        self._facts_of: dict[str, list[dict[str, Any]]] | None = None
        self.end_of_time = self.day(snapshot.get("generated_at")) or 0.0

    # -- labels ---------------------------------------------------------------------------
    def name(self, entity_id: str | None) -> str:
        entity = self.entities.get(entity_id or "")
        return entity["name"] if entity else "(forgotten)"

    def fact_text(self, fact: dict[str, Any]) -> str:
        if fact.get("status") == "forgotten":
            return "forgotten fact (text erased)"
        return f"{self.name(fact.get('subject'))} {fact.get('relation')} {self.name(fact.get('object'))}"

    # -- lookups --------------------------------------------------------------------------
    def day(self, value: str | None) -> float | None:
        """`to_day_number`, remembered: the same few thousand times recur across 30,000 facts."""
        try:
            return self._days[value]
        except KeyError:
            day = self._days[value] = to_day_number(value)
            return day

    def facts_of(self, entity_id: str) -> list[dict[str, Any]]:
        """The facts with `entity_id` at either end, in snapshot order."""
        if self._facts_of is None:
            index: dict[str, list[dict[str, Any]]] = defaultdict(list)
            for fact in self.snapshot["facts"]:
                subject, obj = fact.get("subject"), fact.get("object")
                if subject:
                    index[subject].append(fact)
                if obj and obj != subject:
                    index[obj].append(fact)
            self._facts_of = index
        return self._facts_of.get(entity_id, [])

    # -- events ---------------------------------------------------------------------------
    def markers_of(self, fact: dict[str, Any]) -> list[Event]:
        """Record-time events of a fact as (day, kind, title)."""
        return self._prepare(fact)[2]

    def bar_span(self, fact: dict[str, Any]) -> tuple[float | None, float | None]:
        prepared = self._prepare(fact)
        return prepared[0], prepared[1]

    def _prepare(self, fact: dict[str, Any]) -> tuple[float | None, float | None, list[Event], str]:
        try:
            return self._prepared[fact["id"]]
        except KeyError:
            pass
        events: list[Event] = []

        def add(at: str | None, kind: str, title: str) -> None:
            day = self.day(at)
            if day is not None:
                events.append((day, kind, f"{kind} {short_record_time(at)}{title}"))

        add(fact.get("recorded_at"), "asserted", "")
        previous = None
        for version in fact.get("history") or []:
            status = version.get("status")
            if status != previous and status in ("superseded", "retracted", "forgotten"):
                add(version.get("from"), status, "")
            previous = status
        for contradiction in self.contradictions_of.get(fact["id"], ()):
            add(contradiction.get("recorded_at"), "contested", f": {contradiction.get('reason') or ''}")
        for at in self.reassertions_of.get(fact["id"], ()):
            add(at, "reasserted", "")
        if len(events) > 1:
            events.sort(key=lambda e: (e[0], MARKER_ORDER[e[1]]))
        color = type_color(self.entities.get(fact.get("object") or "", {}).get("type", ""))
        prepared = (self.day(fact.get("valid_from")), self.day(fact.get("valid_to")), events, color)
        self._prepared[fact["id"]] = prepared
        return prepared

    # -- assembly -------------------------------------------------------------------------
    def build(self, anchor: str, title: str, subtitle: str, rows: list[tuple[str, dict[str, Any]]],
              entity_id: str = "", hidden: int = 0) -> Timeline:
        """`rows` are (label, fact) pairs, already in display order; the last MAX_ROWS are drawn.
        `hidden` counts rows the caller already left out."""
        if len(rows) > MAX_ROWS:
            hidden += len(rows) - MAX_ROWS
            rows = rows[-MAX_ROWS:]
        prepared = [self._prepare(fact) for _, fact in rows]
        days = [d for valid_from, valid_to, _, _ in prepared for d in (valid_from, valid_to) if d is not None]
        days += [event[0] for _, _, events, _ in prepared for event in events]
        days.append(self.end_of_time)
        start, end = _padded_range(min(days), max(days))
        scale = (PLOT_RIGHT - PLOT_LEFT) / (end - start)

        def x_of(day: float) -> float:
            return round(PLOT_LEFT + (day - start) * scale, 1)

        built: list[Row] = []
        for index, ((label, fact), (valid_from, valid_to, events, color)) in enumerate(zip(rows, prepared)):
            status = fact.get("status", "")
            bar = None
            if status != "forgotten":
                left = x_of(valid_from) if valid_from is not None else float(PLOT_LEFT)
                right = x_of(valid_to) if valid_to is not None else float(PLOT_RIGHT)
                bar = Bar(left, round(max(right - left, 2.0), 1), status, color, valid_from is None, valid_to is None)
            markers = [Marker(x_of(day), kind, text) for day, kind, text in events]
            validity = f"valid {fact.get('valid_from') or '?'} \u2192 {fact.get('valid_to') or 'open'}"
            built.append(Row(TOP + index * ROW_HEIGHT, _clip(label, 30), f"{label} ({status}; {validity})",
                             fact["id"], status, bool(fact.get("contested")), bar, markers))
        height = TOP + len(built) * ROW_HEIGHT + AXIS_HEIGHT
        return Timeline(anchor=anchor, title=title, subtitle=subtitle, rows=built,
                        ticks=_ticks(start, end, x_of), start_day=round(start, 3), end_day=round(end, 3),
                        height=height, hidden_rows=hidden, entity_id=entity_id)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _padded_range(low: float, high: float) -> tuple[float, float]:
    span = max(high - low, 30.0)
    return low - span * 0.03, low + span * 1.03


def _ticks(start: float, end: float, x_of) -> list[Tick]:
    first, last = from_day_number(start), from_day_number(end)
    span_days = end - start
    if span_days > 3 * 365:
        step_months = 12
    elif span_days > 365:
        step_months = 6
    elif span_days > 120:
        step_months = 3
    else:
        step_months = 1
    months = first.year * 12 + first.month - 1 + 1
    ticks: list[Tick] = []
    while True:
        moment = date(months // 12, months % 12 + 1, 1)
        if moment > last:
            break
        if (moment.month - 1) % step_months == 0:
            day = float((moment - date(1970, 1, 1)).days)
            label = str(moment.year) if step_months == 12 else moment.strftime("%Y-%m")
            ticks.append(Tick(x=x_of(day), label=label))
        months += 1
    return ticks


def _value_order(fact: dict[str, Any]) -> tuple[str, str, str]:
    return (fact.get("valid_from") or "", fact.get("recorded_at") or "", fact["id"])


def functional_timelines(builder: TimelineBuilder) -> tuple[list[Timeline], int]:
    """One timeline per subject+functional relation; keys with history first. Returns (shown, omitted)."""
    keys: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for fact in builder.snapshot["facts"]:
        if fact.get("functional") and fact.get("status") != "forgotten" and fact.get("subject"):
            keys[(fact["subject"], fact["relation"])].append(fact)
    ordered = sorted(keys.items(), key=lambda item: (-len(item[1]), builder.name(item[0][0]), item[0][1]))
    chosen = ordered[:MAX_FUNCTIONAL_TIMELINES]
    chosen.sort(key=lambda item: (builder.name(item[0][0]), item[0][1], item[0][0]))
    timelines = []
    for (subject, relation), facts in chosen:
        rows = [(builder.name(f.get("object")), f) for f in sorted(facts, key=_value_order)]
        values = len(facts)
        timelines.append(builder.build(
            anchor=f"timeline-key-{subject}-{relation}", title=f"{builder.name(subject)} \u00b7 {relation}",
            subtitle=f"{values} value{'s' if values != 1 else ''}", rows=rows, entity_id=subject))
    return timelines, len(ordered) - len(chosen)


def entity_timeline(builder: TimelineBuilder, entity_id: str) -> Timeline | None:
    """The timeline of one entity: its facts either way, in value order; None without facts."""
    facts = builder.facts_of(entity_id)
    if not facts:
        return None
    name = builder.name
    # a hub has hundreds of facts and only the latest MAX_ROWS are drawn: sort just those
    latest = heapq.nlargest(MAX_ROWS, facts, key=_value_order)[::-1] if len(facts) > MAX_ROWS else \
        sorted(facts, key=_value_order)
    rows = []
    for fact in latest:
        if fact.get("status") == "forgotten":
            label = "forgotten fact"
        elif fact.get("subject") == entity_id:
            label = f"{fact['relation']} \u2192 {name(fact.get('object'))}"
        else:
            label = f"\u2190 {name(fact.get('subject'))} {fact['relation']}"
        rows.append((label, fact))
    count = len(facts)
    return builder.build(anchor=f"timeline-entity-{entity_id}", title=name(entity_id),
                         subtitle=f"{count} fact{'s' if count != 1 else ''}", rows=rows, entity_id=entity_id,
                         hidden=count - len(rows))


def entity_timelines(builder: TimelineBuilder, ranking: Iterable[str]) -> tuple[list[Timeline], int]:
    """One timeline per entity (its facts either way), for the best-connected entities first."""
    with_facts = [eid for eid in ranking if builder.facts_of(eid)]
    chosen = sorted(with_facts[:MAX_ENTITY_TIMELINES], key=lambda eid: (builder.name(eid), eid))
    timelines = [t for t in (entity_timeline(builder, eid) for eid in chosen) if t is not None]
    return timelines, len(with_facts) - len(chosen)
