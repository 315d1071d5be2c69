"""A fact as a snapshot says it: one builder for a store's facts and tombstones and an importer's."""
from __future__ import annotations

from typing import Any, Sequence


def fact_record(
    fact_id: str, subject: str, relation: str, obj: str, description: str, evidence: list, actor: str,
    functional: bool, history: list[dict[str, Any]], reassertions: int,
    contested: bool = False, contradictions: Sequence[str] = (), origin: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A fact that has its text; its status, reason and valid time are its newest version's. `origin`:
    where a merge brought it from ({bundle, dataset, recorded_at}), a field only such facts have."""
    state = history[-1]
    record = {
        "id": fact_id, "subject": subject, "relation": relation, "object": obj,
        "description": description, "evidence": evidence, "actor": actor, "functional": functional,
        "status": state["status"], "superseded_by": state["superseded_by"], "reason": state["reason"],
        "contested": contested, "contradictions": list(contradictions),
        "valid_from": state["valid_from"], "valid_to": state["valid_to"], "recorded_at": history[0]["from"],
        "retired_at": None if state["status"] == "current" else state["from"],
        "reassertions": reassertions, "history": history,
    }
    if origin is not None:
        record["origin"] = origin
    return record


def tombstone_record(
    fact_id: str, subject: str | None, history: list[dict[str, Any]], forgotten_at: str,
    contradictions: Sequence[str] = (),
) -> dict[str, Any]:
    """A forgotten fact: its id, subject, statuses and dates; no text, no reasons, no valid time."""
    history = [dict(version, reason=None, valid_from=None, valid_to=None) for version in history]
    return {
        "id": fact_id, "subject": subject, "relation": None, "object": None, "description": None,
        "evidence": [], "actor": None, "functional": False, "status": "forgotten", "superseded_by": None,
        "reason": None, "contested": False, "contradictions": list(contradictions),
        "valid_from": None, "valid_to": None,
        "recorded_at": history[0]["from"] if history else forgotten_at, "retired_at": forgotten_at,
        "reassertions": 0, "history": history,
    }
