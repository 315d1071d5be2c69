"""What changed between two snapshots, by id and status only.

A diff is computed from a *digest* of the older snapshot (ids, statuses, contested flags, merges),
never its text, so a fact forgotten since then is reported as forgotten without saying what it was.
Names shown for the newer side come from the newer snapshot.
"""
from __future__ import annotations

from typing import Any

DIGEST_FORMAT = "memlens-digest/1"
CHANGE_KINDS = (
    "facts_added", "facts_superseded", "facts_restored", "facts_retracted", "facts_contested",
    "facts_resolved", "facts_forgotten", "entities_added", "entities_merged", "entities_removed",
)


def digest(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The part of a snapshot a later diff needs: no text at all."""
    return {
        "format": DIGEST_FORMAT,
        "hash": snapshot["hash"],
        "generated_at": snapshot["generated_at"],
        "facts": {f["id"]: [f["status"], bool(f["contested"])] for f in snapshot["facts"]},
        "entities": {e["id"]: e.get("merged_into") for e in snapshot["entities"]},
    }


def diff(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Changes from `old` (a digest or a snapshot) to `new` (a snapshot)."""
    before = old if old.get("format") == DIGEST_FORMAT else digest(old)
    after = digest(new)
    names = {e["id"]: e["name"] for e in new["entities"]}
    facts = {f["id"]: f for f in new["facts"]}
    changes: dict[str, list[dict[str, Any]]] = {kind: [] for kind in CHANGE_KINDS}

    def fact_ref(fact_id: str) -> dict[str, Any]:
        fact = facts.get(fact_id)
        if fact is None or fact["relation"] is None:
            return {"id": fact_id}
        return {"id": fact_id, "subject": names.get(fact["subject"], ""), "relation": fact["relation"],
                "object": names.get(fact["object"], "")}

    for fact_id, (status, contested) in sorted(after["facts"].items()):
        was = before["facts"].get(fact_id)
        if status == "forgotten":
            if was is not None and was[0] != "forgotten":
                changes["facts_forgotten"].append({"id": fact_id})
            continue
        if was is None:
            changes["facts_added"].append(fact_ref(fact_id))
        elif was[0] != status:
            kind = {"superseded": "facts_superseded", "retracted": "facts_retracted", "current": "facts_restored"}[status]
            entry = fact_ref(fact_id)
            if status == "superseded" and facts[fact_id]["superseded_by"]:
                entry["by"] = facts[fact_id]["superseded_by"]
            changes[kind].append(entry)
        if contested and not (was and was[1]):
            changes["facts_contested"].append(fact_ref(fact_id))
        if was and was[1] and not contested:
            changes["facts_resolved"].append(fact_ref(fact_id))
    for fact_id, was in sorted(before["facts"].items()):
        if fact_id not in after["facts"] and was[0] != "forgotten":
            changes["facts_forgotten"].append({"id": fact_id})
    for entity_id, merged_into in sorted(after["entities"].items()):
        if entity_id not in before["entities"]:
            changes["entities_added"].append({"id": entity_id, "name": names[entity_id]})
        elif merged_into and not before["entities"][entity_id]:
            changes["entities_merged"].append(
                {"id": entity_id, "name": names[entity_id], "into": merged_into, "into_name": names.get(merged_into, "")})
    changes["entities_removed"] = [
        {"id": entity_id} for entity_id in sorted(before["entities"]) if entity_id not in after["entities"]
    ]
    return {
        "from": {"hash": before["hash"], "generated_at": before["generated_at"]},
        "to": {"hash": new["hash"], "generated_at": new["generated_at"]},
        "counts": {kind: len(items) for kind, items in changes.items()},
        "changes": changes,
    }
