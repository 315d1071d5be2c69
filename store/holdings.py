"""Which holding of a triple a statement is about: a value may hold, end and hold again.

`svc owned_by alice` from 2025-01, bob from 2025-06, alice again from 2026-01: alice's two periods
are two facts of one triple (the second named by ids.holding_id), each with its own interval,
status and history, so the functional order, time travel and supersession treat them as any two
values. A statement joins the holding its valid time falls in (or overlaps); one that starts after
every holding of its triple ended is a new holding, and so is one that starts before a holding
where stretching that holding back would run over another value's time (a functional relation
has one value at a time). The batch writer (ingest.py) and a merge's move ask here.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Held:
    """One holding of a triple as the rule reads it: its interval now, and its place in the order."""

    id: str
    valid_from: str | None   # None: since always, as `facts --as-of-valid` reads it
    valid_to: str | None     # None: still holding
    starts: str              # valid_from, or when it was first recorded (the functional order's key)
    arrival: int
    current: bool = False    # the present value, whose dates a statement may move (asked only with others_held)


# Whether another value of the key stands (current, or closed by the order) somewhere in [start, end).
OthersHeld = Callable[[str, str], bool]


def holding_of(held: Sequence[Held], valid_from: str | None, valid_to: str | None,
               others_held: OthersHeld | None = None) -> str | None:
    """The id of the holding a statement [valid_from, valid_to) is about, or None for a new holding.

    Undated, it is about the latest holding (supersession holds: saying a replaced value again
    does not bring it back). Dated, it is about the holding its start falls in, else the first it
    overlaps; a statement that overlaps no holding (it starts after they ended, or ends before
    they began) is a holding of its own. So is one that starts before the present holding it
    overlaps where `others_held` (a functional relation's) says another value stood between the two
    starts: the holding moved back would hold at once with that value."""
    if not held:
        return None
    ordered = sorted(held, key=lambda h: (h.starts, h.arrival, h.id))
    if valid_from is None:
        return ordered[-1].id

    def ends_after(h: Held) -> bool:
        return h.valid_to is None or valid_from < h.valid_to   # type: ignore[operator]

    # a holding that starts that very day is the one it is about, even one the order left no time
    containing = [h for h in ordered if h.valid_from == valid_from
                  or ((h.valid_from is None or h.valid_from <= valid_from) and ends_after(h))]
    if containing:
        return containing[-1].id
    overlapping = [h for h in ordered if ends_after(h) and (valid_to is None or h.valid_from is None
                                                             or h.valid_from < valid_to)]
    if not overlapping:
        return None
    later = overlapping[0]   # not containing the start: it begins after it, on a stated day
    if later.current and others_held is not None and others_held(valid_from, str(later.valid_from)):
        return None
    return later.id
