"""Entity types: a default ontology every dataset starts with, extended per dataset."""
from __future__ import annotations

import re
import sqlite3

from .db import Tx
from .errors import InvalidInput, UnknownType
from .schema import migrate


# Relations whose name says a subject holds one value at a time, declared functional or not: where
# a subject holds several current values of one of these, maintenance asks which one holds.
# Compared as written in snake case, ignoring case.
SINGLE_VALUED_NAMES = frozenset({
    "owned_by", "owner", "maintained_by", "led_by", "lead", "works_at", "reports_to",
    "version", "current_version", "status", "state", "stage", "priority", "severity", "deadline", "due",
})


_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NOT_A_WORD = re.compile(r"\W+|_+")


def relation_name(written: str) -> str:
    """A relation as every write stores it: snake case in lower case. `owned by`, `Owned-By`,
    `ownedBy` and `OWNED_BY` are all `owned_by`; "" when nothing is left of it."""
    return _NOT_A_WORD.sub("_", _CAMEL_HUMP.sub("_", written.strip()).lower()).strip("_")


def sounds_single_valued(relation: str) -> bool:
    """Whether the ontology marks `relation`'s name as one value per subject."""
    return "_".join(relation.casefold().replace("-", " ").split()) in SINGLE_VALUED_NAMES


def default_types() -> list[str]:
    """The types every new dataset starts with, read from a new store made in memory."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        migrate(conn)
        return [row[0] for row in conn.execute("SELECT name FROM types ORDER BY name")]
    finally:
        conn.close()


def add_type(tx: Tx, name: str) -> str:
    name = name.strip()
    if not name:
        raise InvalidInput("a type needs a name")
    existing = tx.one("SELECT name FROM types WHERE lower(name) = lower(?)", (name,))
    if existing:
        return existing["name"]
    tx.conn.execute("INSERT INTO types (name, added_at) VALUES (?, ?)", (name, tx.at))
    tx.log("add_type", "type", [], type=name)
    return name


def resolve_type(tx: Tx, name: str) -> str:
    """The ontology's spelling of a type, matched case-insensitively; unknown types are refused."""
    row = tx.one("SELECT name FROM types WHERE lower(name) = lower(?)", (name.strip(),))
    if row is None:
        known = ", ".join(r["name"] for r in tx.all("SELECT name FROM types ORDER BY name"))
        raise UnknownType(
            f"unknown entity type {name!r}; known types: {known} "
            "(add one with `memlens types add NAME`)"
        )
    return row["name"]
