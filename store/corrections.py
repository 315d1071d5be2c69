"""Explicit judgements on facts: supersede, restore, retract."""
from __future__ import annotations

import sqlite3

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
    """Make a superseded or retracted fact current again, in its own place in valid time; returns
    the values the functional order superseded on the way (the fact itself is not among them).

    On a functional relation the order places it: a value that began after it closes it as
    before, and it closes the values before it. A value the order closed, whose successor still
    holds, is refused: restoring it would stretch its interval over the successor's. Retracting
    the successor, if it was wrong, makes the value hold again; a value that held again later is a
    new holding (remember it with its valid_from)."""
    reason = _require_reason(reason)
    fact = get_fact(tx.conn, ref)
    if fact["status"] == "current":
        raise Conflict(f"fact {short(fact['id'])} is already current")
    is_functional = functional.is_functional(tx.conn, fact["relation"])
    successor = _successor_set_by_the_order(tx, fact)
    if successor is not None:
        if is_functional and _stands(successor):
            began = f" ({successor['valid_from']})" if successor["valid_from"] else ""
            raise Conflict(
                f"fact {short(fact['id'])} ended when {short(successor['fact_id'])} began{began}, "
                f"which still holds: restoring it would stretch it over that value's time. If "
                f"{short(successor['fact_id'])} was wrong, retract it: this value then holds again in its place; "
                "if this value held again later, remember it again with --valid-from, as a holding of its own")
    valid_to = functional.said_end(tx, fact, successor["valid_from"] if successor is not None else None)
    change_state(tx, fact["id"], status="current", superseded_by=None, reason=reason, valid_to=valid_to)
    tx.log("restore", "fact", [fact["id"]])
    if not is_functional:
        return []
    return [fid for fid in functional.settle(tx, fact["subject_id"], fact["relation"]) if fid != fact["id"]]


def _successor_set_by_the_order(tx: Tx, fact: sqlite3.Row) -> sqlite3.Row | None:
    """The open version of the value the functional order superseded `fact` with, if it did."""
    if not (fact["superseded_by"] and fact["automatic"]):
        return None
    return tx.one("SELECT * FROM fact_versions WHERE fact_id = ? AND retired_at IS NULL", (fact["superseded_by"],))


def _stands(version: sqlite3.Row) -> bool:
    """Whether a value is still in the functional order: current, or closed by the order itself."""
    return version["status"] == "current" or (version["status"] == "superseded" and bool(version["automatic"]))


def retract(tx: Tx, ref: str, reason: str, *, reopen: bool = True) -> tuple[str, list[str]]:
    """Withdraw a fact as wrong; unlike forget, it stays readable as history. Returns its id and
    the values of a functional relation it had replaced by the order, which are reopened (unless
    not `reopen`: a fact withdrawn because it is no longer said, not because it was wrong)."""
    reason = _require_reason(reason)
    fact = get_fact(tx.conn, ref)
    if fact["status"] == "retracted":
        raise Conflict(f"fact {short(fact['id'])} is already retracted")
    change_state(tx, fact["id"], status="retracted", superseded_by=None, reason=reason)
    tx.log("retract", "fact", [fact["id"]])
    contradictions.resolve_all_of(tx, fact["id"], "retracted", reason)
    if not reopen:
        return fact["id"], []
    # the reason names the retraction, never quotes it: forgetting the retracted fact erases its text
    reopened = functional.reopen_closed_by(tx, fact["id"], fact["subject_id"], fact["relation"], fact["valid_from"],
                                           f"{short(fact['id'])}, which replaced it, was retracted")
    return fact["id"], reopened
