"""The status a reader is shown for a fact, where it differs from the stored one."""

from __future__ import annotations

from typing import Any


def shown_status(fact: dict[str, Any]) -> str:
    """A retracted fact that is still one side of an open contradiction is a candidate awaiting
    review (memware's review queue): a memlens store resolves a fact's contradictions when it
    retracts it, so only an import has these. static/timetravel.js `shownStatus` says the same."""
    status = str(fact.get("status") or "")
    return "candidate" if status == "retracted" and fact.get("contested") else status
