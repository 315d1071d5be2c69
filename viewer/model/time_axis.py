"""Parsing the snapshot's ISO times into numbers a timeline axis can use."""

from __future__ import annotations

from datetime import date, datetime, timezone

from memlens.store.timefmt import is_date, parse_iso

EPOCH = date(1970, 1, 1)


def to_day_number(value: str | None) -> float | None:
    """Days since 1970-01-01 for an ISO date or datetime; None for null or unparseable text."""
    if not value:
        return None
    try:
        moment = parse_iso(value.strip())
    except ValueError:
        return None
    if is_date(moment):
        return float((moment - EPOCH).days)
    return (moment - datetime(1970, 1, 1, tzinfo=timezone.utc)).total_seconds() / 86400.0


def from_day_number(day: float) -> date:
    return date.fromordinal(EPOCH.toordinal() + int(day // 1))


def short_record_time(value: str | None) -> str:
    """`2026-03-04T10:15:00.000000Z` -> `2026-03-04 10:15` for people."""
    if not value:
        return ""
    return value[:16].replace("T", " ")
