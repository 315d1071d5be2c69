"""Entities: found by name (through merges), created with a type from the ontology."""
from __future__ import annotations

import sqlite3

from . import search
from .db import Tx
from .errors import Forgotten, InvalidInput, NearMiss, NotFound
from .ids import entity_id, normalize_name, short
from .ontology import resolve_type
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


def ensure(
    tx: Tx, name: str, type_name: str | None, description: str = "", *, override_forgotten: bool = False,
    new: bool = False,
) -> str:
    """The id of the entity called `name`, creating it (typed) if it does not exist yet."""
    name = name.strip()
    if not name:
        raise InvalidInput("an entity needs a name")
    found = resolve(tx.conn, name)
    existing = found.entity
    if existing is not None:
        if type_name and resolve_type(tx, type_name) != existing["type"]:
            raise InvalidInput(
                f"{existing['name']!r} is a {existing['type']}, not a {type_name.strip()}"
            )
        if description and description != existing["description"]:
            _set_description(tx, existing["id"], description)
        return existing["id"]
    new_id = entity_id(name)
    if tx.one("SELECT 1 FROM tombstones WHERE id = ?", (new_id,)):
        if not override_forgotten:
            raise Forgotten(
                f"the entity {name!r} was forgotten; re-create it only on purpose (--override)"
            )
        tx.conn.execute("DELETE FROM tombstones WHERE id = ?", (new_id,))
    check_new(name, type_name, found.candidates, confirmed=new)
    canonical_type = resolve_type(tx, type_name)
    tx.conn.execute(
        """INSERT INTO entities (id, name, name_key, type, description, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)""",
        (new_id, name, normalize_name(name), canonical_type, description, tx.at, tx.at),
    )
    search.index_entity(tx.conn, new_id)
    tx.log("entity", "entity", [new_id], type=canonical_type, override=override_forgotten or None)
    return new_id


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
    _set_description(tx, entity["id"], description.strip())
    return entity["id"]


def _set_description(tx: Tx, entity_id: str, description: str) -> None:
    tx.conn.execute(
        "UPDATE entities SET description = ?, updated_at = ? WHERE id = ?", (description, tx.at, entity_id)
    )
    search.index_entity(tx.conn, entity_id)
    tx.log("describe", "entity", [entity_id])
