"""Entities: found by name (through merges), created with a type from the ontology."""
from __future__ import annotations

import difflib
import re
import sqlite3

from . import search
from .db import Tx
from .errors import Ambiguous, Forgotten, InvalidInput, NotFound
from .ids import entity_id, normalize_name, short
from .ontology import resolve_type


def find(conn: sqlite3.Connection, name_or_id: str) -> sqlite3.Row | None:
    """The live entity a name or id refers to, following merges; None if there is none."""
    row = conn.execute("SELECT * FROM entities WHERE id = ?", (entity_id(name_or_id),)).fetchone()
    if row is None:  # an imported entity keeps its source's id: look for its name
        row = conn.execute(
            "SELECT * FROM entities WHERE name_key = ? ORDER BY merged_into IS NOT NULL, id LIMIT 1",
            (normalize_name(name_or_id),),
        ).fetchone()
    # Only a run of hex digits as long as a short id is read as an id: "cafe" stays a name.
    if row is None and re.fullmatch(r"[0-9a-f]{8}[0-9a-f-]{0,28}", name_or_id.lower()):
        matches = conn.execute(
            "SELECT * FROM entities WHERE id GLOB ? LIMIT 2", (name_or_id.lower() + "*",)
        ).fetchall()
        if len(matches) > 1:
            raise Ambiguous(f"{name_or_id!r} matches more than one entity id; give more of it")
        row = matches[0] if matches else None
    while row is not None and row["merged_into"]:
        row = conn.execute("SELECT * FROM entities WHERE id = ?", (row["merged_into"],)).fetchone()
    return row


def get(conn: sqlite3.Connection, name_or_id: str) -> sqlite3.Row:
    row = find(conn, name_or_id)
    if row is None:
        raise NotFound(not_found_message(conn, name_or_id))
    return row


def not_found_message(conn: sqlite3.Connection, name: str, *, what: str = "no entity named") -> str:
    """`no entity named 'x'`, with the names it may have meant."""
    near = near_names(conn, name)
    hint = f"; did you mean {' or '.join(near)}?" if near else ""
    return f"{what} {name!r}{hint}"


def _loose_key(name: str) -> str:
    """A name without case, spaces or punctuation: 'Billing Service' and 'billing-service' agree."""
    return re.sub(r"[\W_]+", "", name.casefold())


def near_names(conn: sqlite3.Connection, name: str, limit: int = 3) -> list[str]:
    """Live entity names close to `name`: the same but for case, spaces and punctuation first,
    then by spelling. Asked only when a name was not found, so a scan of the names is fine
    (about 50 ms at 100,000 entities)."""
    names = [r[0] for r in conn.execute("SELECT name FROM entities WHERE merged_into IS NULL AND name IS NOT NULL")]
    loose = _loose_key(name)
    same = sorted(n for n in names if _loose_key(n) == loose)
    if same:
        return same[:limit]
    by_key = {normalize_name(n): n for n in names}
    close = difflib.get_close_matches(normalize_name(name), list(by_key), n=limit, cutoff=0.75)
    return [by_key[key] for key in close]


def ensure(
    tx: Tx, name: str, type_name: str | None, description: str = "", *, override_forgotten: bool = False
) -> str:
    """The id of the entity called `name`, creating it (typed) if it does not exist yet."""
    name = name.strip()
    if not name:
        raise InvalidInput("an entity needs a name")
    existing = find(tx.conn, name)
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
    if not type_name:
        raise InvalidInput(f"{name!r} is a new entity: give its type, as {name}:Type")
    canonical_type = resolve_type(tx, type_name)
    tx.conn.execute(
        """INSERT INTO entities (id, name, name_key, type, description, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)""",
        (new_id, name, normalize_name(name), canonical_type, description, tx.at, tx.at),
    )
    search.index_entity(tx.conn, new_id)
    tx.log("entity", "entity", [new_id], type=canonical_type, override=override_forgotten or None)
    return new_id


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
