"""The maintenance worklist and the dismissals, grouped by kind with exact counts.

A memory without evidence has a worklist of 30,000 rows; what a page shows of it is one group per
kind, its count said in words, and its first rows; the rest is paged in (the report) or on pages of
their own (the site).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# The store's order (store/maintenance.py); a kind it adds later comes after these, by name.
KIND_ORDER = ("hotspot", "contradiction", "duplicate", "unsupported")
_OPEN_TITLES = {
    "hotspot": ("subject has several current values for one relation",
                "subjects have several current values for one relation"),
    "contradiction": ("open contradiction", "open contradictions"),
    "duplicate": ("group of names may be one entity", "groups of names may be one entity"),
    "unsupported": ("fact has no evidence", "facts have no evidence"),
}


@dataclass(frozen=True)
class KindGroup:
    kind: str
    title: str                  # "30,000 facts have no evidence"
    rows: list[dict[str, Any]]  # every row of this kind, in the store's order

    @property
    def count(self) -> int:
        return len(self.rows)


def _counted(count: int, one: str, many: str) -> str:
    return f"{count:,} {one if count == 1 else many}"


def open_title(kind: str, count: int) -> str:
    one, many = _OPEN_TITLES.get(kind, (f"{kind} candidate", f"{kind} candidates"))
    return _counted(count, one, many)


def dismissed_title(kind: str, count: int) -> str:
    return _counted(count, f"{kind} candidate dismissed", f"{kind} candidates dismissed")


def _by_kind(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(str(row.get("kind")), []).append(row)
    order = {kind: i for i, kind in enumerate(KIND_ORDER)}
    return dict(sorted(groups.items(), key=lambda item: (order.get(item[0], len(order)), item[0])))


def worklist_groups(snapshot: dict[str, Any]) -> list[KindGroup]:
    return [KindGroup(kind, open_title(kind, len(rows)), rows)
            for kind, rows in _by_kind(snapshot.get("maintenance") or []).items()]


def dismissal_groups(snapshot: dict[str, Any]) -> list[KindGroup]:
    return [KindGroup(kind, dismissed_title(kind, len(rows)), rows)
            for kind, rows in _by_kind(snapshot.get("dismissals") or []).items()]
