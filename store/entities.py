"""Entities: found by name (through merges); a new one's name checked against near misses."""
from __future__ import annotations

import sqlite3

from . import search
from .db import Tx
from .errors import InvalidInput, NearMiss, NotFound
from .ids import short
from .resolve import Candidate, resolve


def find(conn: sqlite3.Connection, name_or_id: str) -> sqlite3.Row | None:
    """The live entity a name or id refers to (store/resolve.py), following merges; None if it
    refers to none for sure. Two entities it names alike (case twins) are Ambiguous."""
    return resolve(conn, name_or_id).entity


def get(conn: sqlite3.Connection, name_or_id: str) -> sqlite3.Row:
    found = resolve(conn, name_or_id)
    if found.entity is None:
        raise NotFound(f"no entity named {name_or_id!r}{found.meant()}")
    return found.entity


def check_new(name: str, type_name: str | None, candidates: tuple[Candidate, ...], *, confirmed: bool) -> None:
    """A new entity needs a type, and a name that is no near miss of an existing one's unless
    `confirmed` (--new): refused otherwise, naming what it may have meant."""
    if not type_name:
        meant = f"; or did you mean {' or '.join(c.shown() for c in candidates)}?" if candidates else ""
        raise InvalidInput(f"{name!r} is a new entity: give its type, as {name}:Type{meant}")
    close = [c for c in candidates if c.type.casefold() == type_name.strip().casefold()]
    if close and not confirmed:
        raise NearMiss(name, tuple(close))


def label(conn: sqlite3.Connection, id_: str) -> str:
    row = conn.execute("SELECT name FROM entities WHERE id = ?", (id_,)).fetchone()
    return row["name"] if row else f"<{short(id_)}>"


def describe(tx: Tx, name_or_id: str, description: str) -> str:
    entity = get(tx.conn, name_or_id)
    set_description(tx, entity["id"], description.strip())
    return entity["id"]


def set_description(tx: Tx, entity_id: str, description: str) -> None:
    tx.conn.execute(
        "UPDATE entities SET description = ?, updated_at = ? WHERE id = ?", (description, tx.at, entity_id)
    )
    search.index_entity(tx.conn, entity_id)
    tx.log("describe", "entity", [entity_id])
