"""Timeline models: each fact's value as a bar over valid time, with record-time markers.

Valid time (when it was true) and record time (when the store believed it) share one date axis,
so a late-arriving older value shows as a bar far left of the marker that says when it arrived.
The models hold finished SVG coordinates; templates/_timeline.html only draws them, which keeps
the page printable and readable without JavaScript.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from itertools import compress, count
from typing import Any, Callable, Iterable, NamedTuple

from memlens.store.reads import is_archived

from .snapshot_index import SnapshotIndex
from .text_width import char_widths, clip_to_width
from .time_axis import from_day_number, short_record_time, to_day_number

WIDTH = 760
LABEL_WIDTH = 200
PLOT_LEFT = LABEL_WIDTH + 12
PLOT_RIGHT = WIDTH - 16
ROW_HEIGHT = 30
TOP = 8
AXIS_HEIGHT = 26
MAX_ROWS = 40
MAX_FUNCTIONAL_TIMELINES = 200
MAX_SINGLE_VALUE_KEYS = 30     # a key with one value has no history to show; a few give the picture
MAX_ENTITY_TIMELINES = 100
LABEL_PX, LABEL_PX_TWO_LINES = 12, 11   # static/report.css .tl-label, .tl-label-2
LABEL_ROOM = LABEL_WIDTH - 6           # the label ends at x = LABEL_WIDTH, text-anchor end
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
    lines: tuple[str, ...] = ()   # the label as drawn: one line, or two smaller ones that fit
    # no validity given either way: no bar (a bar would say it held throughout), its lane says so
    unstated: bool = False


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


class _FactLine:
    """What a timeline row needs of a fact, worked out once per fact (it sits on two timelines)."""

    __slots__ = ("fact_id", "status", "contested", "valid_from", "valid_to", "validity", "events", "color", "days")

    def __init__(self, fact: dict[str, Any], valid_from: float | None, valid_to: float | None,
                 events: list[Event], color: str) -> None:
        self.fact_id = fact["id"]
        # an archived memory is drawn apart (the timeline key names it); its status stays current
        self.status = "archived" if is_archived(fact.get("status"), fact.get("reason")) else fact.get("status", "")
        self.contested = bool(fact.get("contested"))
        self.valid_from, self.valid_to = valid_from, valid_to
        self.validity = (f"valid {fact.get('valid_from') or '?'} \u2192 {fact.get('valid_to') or 'open'}"
                         if fact.get("valid_from") or fact.get("valid_to") else "validity not stated")
        self.events = events
        self.color = color
        # every day the row puts on the axis, for the timeline's range
        self.days = [d for d in (valid_from, valid_to) if d is not None] + [e[0] for e in events]


class TimelineBuilder:
    """Turns a snapshot into timeline models; one instance per snapshot (it keeps each fact's bar
    span and markers once worked out, since a fact sits on two entities' timelines)."""

    def __init__(self, index: SnapshotIndex | None, end_of_time: str | None = None) -> None:
        """`index`: the snapshot the facts are of, which `context` reads (a builder without one
        says a fact's context itself); `end_of_time`: where an axis ends without days of its own
        (the snapshot's time, by default)."""
        self.index = index
        self._days: dict[str | None, float | None] = {None: None}
        self._prepared: dict[str, _FactLine] = {}
        self.end_of_time = self.day(index.snapshot.get("generated_at") if index is not None else end_of_time) or 0.0

    def day(self, value: str | None) -> float | None:
        """`to_day_number`, remembered: the same few thousand times recur across 30,000 facts."""
        try:
            return self._days[value]
        except KeyError:
            day = self._days[value] = to_day_number(value)
            return day

    # -- events ---------------------------------------------------------------------------
    def _prepare(self, fact: dict[str, Any]) -> _FactLine:
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
        others, color = self.context(fact)
        for at, kind, reason in others:
            add(at, kind, f": {reason}" if kind == "contested" else "")
        if len(events) > 1:
            events.sort(key=lambda e: (e[0], MARKER_ORDER[e[1]]))
        line = _FactLine(fact, self.day(fact.get("valid_from")), self.day(fact.get("valid_to")), events, color)
        self._prepared[fact["id"]] = line
        return line

    def context(self, fact: dict[str, Any]) -> tuple[Iterable[tuple[str | None, str, str]], str]:
        """What a fact's line shows from beyond its record: its other record-time events as (when,
        "contested" or "reasserted", the contradiction's reason), and the colour of its object's type."""
        index = self.index
        assert index is not None
        fid = fact["id"]
        others = [(c.get("recorded_at"), "contested", c.get("reason") or "") for c in index.contradictions_of.get(fid, ())]
        others += [(at, "reasserted", "") for at in index.reassertions_of.get(fid, ())]
        return others, index.type_look(index.entities.get(fact.get("object") or "", {}).get("type")).color

    # -- assembly -------------------------------------------------------------------------
    def build(self, anchor: str, title: str, subtitle: str, rows: list[tuple[str, dict[str, Any]]],
              entity_id: str = "", hidden: int = 0, ends: dict[str, str] | None = None,
              own_range: bool = False) -> Timeline:
        """`rows` are (label, fact) pairs, already in display order; the last MAX_ROWS are drawn.
        `hidden` counts rows the caller already left out. `ends` (fact id -> valid time) ends the
        bars of facts that give no end of their own. The axis runs to the snapshot's time unless
        `own_range`: then it spans the rows' own days only (a site's entity page, whose bytes
        must not change with every write to the store)."""
        if len(rows) > MAX_ROWS:
            hidden += len(rows) - MAX_ROWS
            rows = rows[-MAX_ROWS:]
        lines = [self._prepare(fact) for _, fact in rows]
        days = [day for line in lines for day in line.days]
        if not own_range or not days:
            days.append(self.end_of_time)
        start, end = _padded_range(min(days), max(days))
        scale = (PLOT_RIGHT - PLOT_LEFT) / (end - start)
        offset = PLOT_LEFT - start * scale  # x = offset + day * scale

        def x_of(day: float) -> float:
            return round(offset + day * scale, 1)

        built: list[Row] = []
        y = TOP
        for (label, _), line in zip(rows, lines):
            status = line.status
            bar = None
            valid_from, valid_to = line.valid_from, line.valid_to
            if valid_to is None and ends and line.fact_id in ends:
                valid_to = self.day(ends[line.fact_id])
            unstated = status != "forgotten" and valid_from is None and valid_to is None
            if status != "forgotten" and not unstated:
                left = round(offset + valid_from * scale, 1) if valid_from is not None else float(PLOT_LEFT)
                right = round(offset + valid_to * scale, 1) if valid_to is not None else float(PLOT_RIGHT)
                bar = Bar(left, round(max(right - left, 2.0), 1), status, line.color, valid_from is None,
                          valid_to is None)
            markers = [Marker(round(offset + day * scale, 1), kind, text) for day, kind, text in line.events]
            built.append(Row(y, label, f"{label} ({status}; {line.validity})", line.fact_id, status,
                             line.contested, bar, markers, label_lines(label), unstated))
            y += ROW_HEIGHT
        height = TOP + len(built) * ROW_HEIGHT + AXIS_HEIGHT
        return Timeline(anchor=anchor, title=title, subtitle=subtitle, rows=built,
                        ticks=_ticks(start, end, x_of), start_day=round(start, 3), end_day=round(end, 3),
                        height=height, hidden_rows=hidden, entity_id=entity_id)


def label_lines(label: str) -> tuple[str, ...]:
    """A row's label in the room left of the plot: whole on one line if it fits, else on two
    smaller lines broken at the space that best balances them, the second cut if it must be.

    Each width is the sum of the characters' widths in the order `text_width` adds them, read once
    (long texts' 200-character names: 0.4 s of the export's CPU when every candidate break summed
    its characters from the start).
    """
    widths = char_widths(label)
    if LABEL_PX * sum(widths) <= LABEL_ROOM:
        return (label,)
    spaces = list(compress(count(), map(" ".__eq__, label)))
    # a longer first line is never narrower: the spaces that fit are the first ones, by bisection
    fitting = spaces[:bisect_right(spaces, LABEL_ROOM, key=lambda i: LABEL_PX_TWO_LINES * sum(widths[:i]))]
    if not fitting:
        return (clip_to_width(label, LABEL_PX, LABEL_ROOM, widths),)

    # the first line's excess over the second grows with each space, so the most balanced break is
    # one of the two around where it turns positive (min keeps the earlier of two as balanced)
    def excess(i: int) -> float:
        return sum(widths[:i]) - sum(widths[i + 1:])

    turn = bisect_left(fitting, 0.0, key=excess)
    cut = min(fitting[max(turn - 1, 0):turn + 1], key=lambda i: abs(excess(i)))
    return (label[:cut], clip_to_width(label[cut + 1:], LABEL_PX_TWO_LINES, LABEL_ROOM, widths[cut + 1:]))


def _padded_range(low: float, high: float) -> tuple[float, float]:
    span = max(high - low, 30.0)
    return low - span * 0.03, low + span * 1.03


def _ticks(start: float, end: float, x_of) -> list[Tick]:
    return [Tick(x=x_of(day), label=label) for day, label in _tick_marks(int(start // 1), int(end // 1))]


# The days a date can name (0001-01-01 to 9999-12-31): an axis padded past them is clamped, so a
# fact valid from 9999-12-31 is drawn, not refused.
_FIRST_DAY, _LAST_DAY = (date.min - date(1970, 1, 1)).days, (date.max - date(1970, 1, 1)).days
# Month steps for spans past 30 years, so that a 10,000-year axis still has a dozen ticks.
_LONG_STEPS = (24, 60, 120, 240, 600, 1200, 2400, 6000, 12000, 24000, 60000, 120000)


@lru_cache(maxsize=4096)
def _tick_marks(first_day: int, last_day: int) -> tuple[tuple[float, str], ...]:
    """(day, label) of the month starts between two days, every 1, 3, 6 or 12 months by the span
    (more years apart past 30 years); remembered, as most timelines of one store span the same
    months."""
    first_day, last_day = max(first_day, _FIRST_DAY), min(last_day, _LAST_DAY)
    if last_day < first_day:
        return ()
    first, last = from_day_number(first_day), from_day_number(last_day)
    span_days = last_day - first_day
    if span_days > 30 * 365:
        step_months = next((step for step in _LONG_STEPS if span_days / 30.4 / step <= 12), _LONG_STEPS[-1])
    elif span_days > 3 * 365:
        step_months = 12
    elif span_days > 365:
        step_months = 6
    elif span_days > 120:
        step_months = 3
    else:
        step_months = 1
    after_first = first.year * 12 + first.month   # the month after the first day's, counted from year 0
    months = -(-after_first // step_months) * step_months
    marks: list[tuple[float, str]] = []
    while months // 12 <= date.max.year:
        moment = date(months // 12, months % 12 + 1, 1)
        if moment > last:
            break
        day = float((moment - date(1970, 1, 1)).days)
        marks.append((day, str(moment.year) if step_months >= 12 else moment.strftime("%Y-%m")))
        months += step_months
    return tuple(marks)


def _value_order(fact: dict[str, Any]) -> tuple[str, str, str]:
    return (fact.get("valid_from") or "", fact.get("recorded_at") or "", fact["id"])


def functional_timelines(builder: TimelineBuilder) -> tuple[list[Timeline], int]:
    """One timeline per subject+functional relation: every key with history (up to the limit), then a
    few keys with a single value. Returns (shown, omitted)."""
    index = builder.index
    keys: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    columns = index.fact_columns
    for fact, functional, status, subject, relation in zip(
            index.snapshot["facts"], columns["functional"], columns["status"], columns["subject"], columns["relation"]):
        if functional and status != "forgotten" and subject and not index.moved_by_merge(fact):
            keys[(subject, relation)].append(fact)
    ordered = sorted(keys.items(), key=lambda item: (-len(item[1]), index.name(item[0][0]), item[0][1]))
    with_history = sum(1 for _, facts in ordered if len(facts) > 1)
    chosen = ordered[:min(MAX_FUNCTIONAL_TIMELINES, with_history + MAX_SINGLE_VALUE_KEYS)]
    # the busiest keys first, then by name ignoring case: the first ones drawn are the ones to read
    chosen.sort(key=lambda item: (-len(item[1]), index.name(item[0][0]).casefold(), item[0][1], item[0][0]))
    timelines = []
    for (subject, relation), facts in chosen:
        rows = [(index.name(f.get("object")), f) for f in sorted(facts, key=_value_order)]
        values = len(facts)
        timelines.append(builder.build(
            anchor=f"timeline-key-{subject}-{relation}", title=f"{index.name(subject)} \u00b7 {relation}",
            subtitle=f"{values} value{'s' if values != 1 else ''}", rows=rows, entity_id=subject,
            ends=replaced_at(facts, index.facts)))
    return timelines, len(ordered) - len(chosen)


def replaced_at(values: list[dict[str, Any]], facts: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Superseded values of one key that give no end date (an importer's rows often do not):
    each ends where the value that superseded it starts. A store of ours closes them itself."""
    ends = {}
    for fact in values:
        successor = facts.get(fact.get("superseded_by") or "")
        start = successor.get("valid_from") if successor else None
        if fact.get("status") == "superseded" and not fact.get("valid_to") and start \
                and start > (fact.get("valid_from") or ""):
            ends[fact["id"]] = start
    return ends


def entity_timeline(builder: TimelineBuilder, entity_id: str, own_range: bool = False) -> Timeline | None:
    """The timeline of one entity of the builder's snapshot (see `facts_timeline`); a fact a merge
    carried away is drawn as its copy, not beside it."""
    index = builder.index
    assert index is not None
    facts = [fact for fact in index.facts_of(entity_id) if not index.moved_by_merge(fact)]
    return facts_timeline(builder, entity_id, facts, index.name, own_range)


def facts_timeline(builder: TimelineBuilder, entity_id: str, facts: list[dict[str, Any]],
                   name: Callable[[Any], str], own_range: bool = False) -> Timeline | None:
    """The timeline of one entity: its `facts` (either way, in the snapshot's order), in value order;
    None without facts. `name`: an entity's name by id. `own_range`: scaled to the entity's own days
    (see `TimelineBuilder.build`)."""
    if not facts:
        return None
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
                         hidden=count - len(rows), own_range=own_range)


def entity_timelines(builder: TimelineBuilder, ranking: Iterable[str]) -> tuple[list[Timeline], int]:
    """One timeline per entity (its facts either way), for the best-connected entities first."""
    index = builder.index
    having_facts = index.facts_by_entity()
    with_facts = [eid for eid in ranking if eid in having_facts]
    # the busiest entities first (by facts), then by name ignoring case: the ones drawn unfolded
    # are the ones most worth reading
    chosen = sorted(with_facts[:MAX_ENTITY_TIMELINES],
                    key=lambda eid: (-len(having_facts[eid]), index.name(eid).casefold(), eid))
    timelines = [t for t in (entity_timeline(builder, eid) for eid in chosen) if t is not None]
    return timelines, len(with_facts) - len(chosen)
