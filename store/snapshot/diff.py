"""What changed between two snapshots, by id and status only.

A diff is computed from a *digest* of the older snapshot (ids, statuses, contested flags, merges),
never its text, so a fact forgotten since then is reported as forgotten without saying what it was.
Names shown for the newer side come from the newer snapshot.
"""
from __future__ import annotations

from typing import Any

from ..errors import InvalidInput
from ..observations import is_observation
from ..schema import STATUSES

DIGEST_FORMAT = "memlens-digest/1"
CHANGE_KINDS = (
    "facts_added", "facts_superseded", "facts_restored", "facts_retracted", "facts_contested",
    "facts_resolved", "facts_forgotten", "entities_added", "entities_merged", "entities_removed",
    # read from the records and the ledger, so only when the older side is a snapshot, not a digest
    "facts_said_again", "ledger_rows_added",
)


# What diff reads of a snapshot's facts and entities, and what each may hold.
_TEXT_OR_NONE = (str, type(None))
_FACT_FIELDS: dict[str, tuple[type, ...]] = {
    "id": (str,), "status": (str,), "contested": (bool,), "relation": _TEXT_OR_NONE,
    "subject": _TEXT_OR_NONE, "object": _TEXT_OR_NONE, "superseded_by": _TEXT_OR_NONE,
}
_ENTITY_FIELDS: dict[str, tuple[type, ...]] = {"id": (str,), "name": (str,), "merged_into": _TEXT_OR_NONE}
_MAY_BE_ABSENT = {"merged_into"}  # read with .get: a snapshot may leave it out


def check_diffable(snapshot: Any, what: str) -> None:
    """Refuse in one line a snapshot or digest that diff could not read; `what` names it."""
    if not isinstance(snapshot, dict):
        raise InvalidInput(f"{what}: a snapshot is a JSON object")
    for key in ("hash", "generated_at"):
        if not isinstance(snapshot.get(key), str):
            raise InvalidInput(f"{what}: {key!r} is missing or not text")
    if snapshot.get("format") == DIGEST_FORMAT:
        _check_digest(snapshot, what)
        return
    for key, fields in (("facts", _FACT_FIELDS), ("entities", _ENTITY_FIELDS)):
        records = snapshot.get(key)
        if not isinstance(records, list):
            raise InvalidInput(f"{what}: {key!r} is missing or not a list")
        for number, record in enumerate(records):
            _check_record(record, fields, f"{what}: {key}[{number}]")
    for number, fact in enumerate(snapshot["facts"]):
        if fact["status"] not in STATUSES:
            raise InvalidInput(f"{what}: facts[{number}] has an unknown status {fact['status'][:40]!r}")


def _check_record(record: Any, fields: dict[str, tuple[type, ...]], where: str) -> None:
    if not isinstance(record, dict):
        raise InvalidInput(f"{where} is not a JSON object")
    for name, kinds in fields.items():
        if name not in record and name not in _MAY_BE_ABSENT:
            raise InvalidInput(f"{where} has no {name!r}")
        if not isinstance(record.get(name), kinds):
            raise InvalidInput(f"{where}: {name!r} is not {'text' if str in kinds else 'true or false'}")


def _check_digest(digest: dict[str, Any], what: str) -> None:
    facts, entities = digest.get("facts"), digest.get("entities")
    if not isinstance(facts, dict) or not isinstance(entities, dict):
        raise InvalidInput(f"{what}: a digest maps its facts and entities by id")
    for fact_id, state in facts.items():
        if not (isinstance(state, list) and len(state) == 2 and state[0] in STATUSES and isinstance(state[1], bool)):
            raise InvalidInput(f"{what}: fact {fact_id[:40]!r} is not [status, contested]")
    if not all(isinstance(into, _TEXT_OR_NONE) for into in entities.values()):
        raise InvalidInput(f"{what}: an entity is merged into something that is not an id")


def digest(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The part of a snapshot a later diff needs: no text at all."""
    return {
        "format": DIGEST_FORMAT,
        "hash": snapshot["hash"],
        "generated_at": snapshot["generated_at"],
        "facts": {f["id"]: [f["status"], bool(f["contested"])] for f in snapshot["facts"]},
        "entities": {e["id"]: e.get("merged_into") for e in snapshot["entities"]},
    }


def diff(old: dict[str, Any], new: dict[str, Any], *,
         names: tuple[str, str] = ("the older snapshot", "the newer snapshot"),
         newer_from_the_store: bool = False) -> dict[str, Any]:
    """Changes from `old` (a digest or a snapshot) to `new` (a snapshot); refused, saying which of
    `names` is at fault, if either is malformed. `newer_from_the_store`: `new` is the snapshot a
    store just made (a regeneration's), well-formed as it is made, and not checked again (0.6 s of
    a regeneration at 100,000 entities)."""
    check_diffable(old, names[0])
    if not newer_from_the_store:
        check_diffable(new, names[1])
    if new.get("format") == DIGEST_FORMAT:
        raise InvalidInput(f"{names[1]}: the newer side of a diff must be a snapshot, not a digest")
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

    # only what differs is walked (a regeneration after one write: 300,000 facts, one changed):
    # 2.15 -> 1.07 s at 100,000 entities
    old_facts, old_entities = before["facts"], before["entities"]
    for fact_id in sorted(f for f, state in after["facts"].items() if old_facts.get(f) != state):
        status, contested = after["facts"][fact_id]
        was = old_facts.get(fact_id)
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
    for fact_id in sorted(f for f in old_facts if f not in after["facts"]):
        if old_facts[fact_id][0] != "forgotten":
            changes["facts_forgotten"].append({"id": fact_id})
    # an observation is no entity: the fact that notes it on its entity says it came or went
    observed = {e["id"] for side in (old, new) if side.get("format") != DIGEST_FORMAT
                for e in side["entities"] if is_observation(e)}
    for entity_id in sorted(e for e, into in after["entities"].items()
                            if (e not in old_entities or old_entities[e] != into) and e not in observed):
        merged_into = after["entities"][entity_id]
        if entity_id not in old_entities:
            changes["entities_added"].append({"id": entity_id, "name": names[entity_id]})
        elif merged_into and not old_entities[entity_id]:
            changes["entities_merged"].append(
                {"id": entity_id, "name": names[entity_id], "into": merged_into, "into_name": names.get(merged_into, "")})
    changes["entities_removed"] = [
        {"id": entity_id} for entity_id in sorted(e for e in old_entities if e not in after["entities"] and e not in observed)
    ]
    same_memory = None
    if old.get("format") != DIGEST_FORMAT:
        changes["facts_said_again"] = [_said_again(fact_ref(fid), was, facts[fid]) for fid, was in _said_again_ids(old, facts)]
        ledger_before, ledger_after = _ledger(old), _ledger(new)
        same_memory = _one_history(ledger_before, ledger_after)
        if same_memory:
            changes["ledger_rows_added"] = [{key: row.get(key) for key in ("seq", "at", "actor", "action", "kind")}
                                            for row in ledger_after[len(ledger_before):]]
    return {
        "from": {"hash": before["hash"], "generated_at": before["generated_at"]},
        "to": {"hash": new["hash"], "generated_at": new["generated_at"]},
        # whether the older side's ledger is the start of the newer's (None: a digest cannot tell)
        "memories": {"from": old.get("dataset"), "to": new.get("dataset"), "same": same_memory},
        "counts": {kind: len(items) for kind, items in changes.items()},
        "changes": changes,
    }


def _said_again_ids(old: dict[str, Any], facts: dict[str, dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """Facts on both sides, with their text, whose evidence, description or reassertions differ."""
    found = []
    for was in old["facts"]:
        now = facts.get(was["id"])
        if now is None or now["relation"] is None or was["relation"] is None:
            continue
        if any(was.get(field) != now.get(field) for field in ("evidence", "description", "reassertions")):
            found.append((was["id"], was))
    return sorted(found, key=lambda pair: pair[0])


def _said_again(entry: dict[str, Any], was: dict[str, Any], now: dict[str, Any]) -> dict[str, Any]:
    before = was.get("evidence") if isinstance(was.get("evidence"), list) else []
    added = [e for e in now.get("evidence") or [] if e not in before]
    return entry | ({"evidence_added": added} if added else {})


def _ledger(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    rows = snapshot.get("ledger")
    return [row for row in rows if isinstance(row, dict)] if isinstance(rows, list) else []


def _one_history(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> bool:
    """Whether the older side's ledger is where the newer side's began: the same memory, later.
    Two memories (another dataset's report, a teammate's) share no first row."""
    if not before:
        return True
    return len(after) >= len(before) and after[0] == before[0] and after[len(before) - 1] == before[-1]
