"""Explicit judgements on facts: supersede, restore, retract."""
from __future__ import annotations

from . import contradictions, functional
from .db import Tx
from .errors import Conflict, InvalidInput
from .ids import short
from .versions import change_state, get_fact


def _require_reason(reason: str) -> str:
    if not reason or not reason.strip():
        raise InvalidInput("say why (--reason): the next reader will want to know")
    return reason.strip()


def supersede(tx: Tx, old_ref: str, new_ref: str, reason: str) -> tuple[str, str]:
    reason = _require_reason(reason)
    old, new = get_fact(tx.conn, old_ref), get_fact(tx.conn, new_ref)
    if old["id"] == new["id"]:
        raise InvalidInput("a fact cannot supersede itself")
    if new["status"] != "current":
        raise Conflict(f"fact {short(new['id'])} is {new['status']}; restore it before it can replace another")
    if old["status"] == "superseded" and old["superseded_by"] == new["id"]:
        raise Conflict(f"fact {short(old['id'])} is already superseded by {short(new['id'])}")
    change_state(tx, old["id"], status="superseded", superseded_by=new["id"], reason=reason)
    tx.log("supersede", "fact", [old["id"], new["id"]])
    contradictions.resolve_all_of(tx, old["id"], "superseded", reason)
    return old["id"], new["id"]


def restore(tx: Tx, ref: str, reason: str) -> list[str]:
    """Make a superseded or retracted fact current again; returns what that superseded."""
    reason = _require_reason(reason)
    fact = get_fact(tx.conn, ref)
    if fact["status"] == "current":
        raise Conflict(f"fact {short(fact['id'])} is already current")
    replaced_by = fact["superseded_by"]
    valid_to = fact["valid_to"]
    if replaced_by and fact["automatic"]:
        # The end date was set by the value that replaced it, not by the writer: lift it.
        successor = tx.one("SELECT valid_from FROM fact_versions WHERE fact_id = ? AND retired_at IS NULL", (replaced_by,))
        if successor and successor["valid_from"] == valid_to:
            valid_to = None
    change_state(tx, fact["id"], status="current", superseded_by=None, reason=reason, valid_to=valid_to)
    tx.log("restore", "fact", [fact["id"]])
    if not functional.is_functional(tx.conn, fact["relation"]):
        return []
    # The restored value is the judged present: every other current value gives way to it.
    others = tx.all(
        """SELECT f.id FROM facts f JOIN fact_versions v ON v.fact_id = f.id AND v.retired_at IS NULL
           WHERE f.subject_id = ? AND f.relation = ? AND v.status = 'current' AND f.id != ? ORDER BY f.id""",
        (fact["subject_id"], fact["relation"], fact["id"]),
    )
    replaced = []
    for other in others:
        note = f"replaced by restored fact {short(fact['id'])}: {reason}"
        change_state(tx, other["id"], status="superseded", superseded_by=fact["id"], reason=note)
        tx.log("supersede", "fact", [other["id"], fact["id"]])
        contradictions.resolve_all_of(tx, other["id"], "superseded", note)
        replaced.append(other["id"])
    return replaced


def retract(tx: Tx, ref: str, reason: str) -> str:
    """Withdraw a fact as wrong; unlike forget, it stays readable as history."""
    reason = _require_reason(reason)
    fact = get_fact(tx.conn, ref)
    if fact["status"] == "retracted":
        raise Conflict(f"fact {short(fact['id'])} is already retracted")
    change_state(tx, fact["id"], status="retracted", superseded_by=None, reason=reason)
    tx.log("retract", "fact", [fact["id"]])
    contradictions.resolve_all_of(tx, fact["id"], "retracted", reason)
    return fact["id"]
