"""The status a reader is shown for a fact, where it differs from the stored one."""

from __future__ import annotations

from typing import Any


def shown_status(fact: dict[str, Any]) -> str:
    """A retracted fact that is still one side of an open contradiction is a candidate awaiting
    review (memware's review queue): a memlens store resolves a fact's contradictions when it
    retracts it, so only an import has these. static/timetravel.js `shownStatus` says the same."""
    status = str(fact.get("status") or "")
    return "candidate" if status == "retracted" and fact.get("contested") else status


def merged_from(origin: dict[str, Any]) -> str:
    """Where a merge brought a fact from (its `origin`): the teammate's dataset, the first digits of
    the bundle's seal, and when it was recorded there. static/detail_panel.js `mergedFrom` says the same."""
    recorded = str(origin.get("recorded_at") or "")[:16].replace("T", " ")
    return f"merged from {origin.get('dataset')} (bundle {str(origin.get('bundle'))[:15]}), recorded there {recorded}"
