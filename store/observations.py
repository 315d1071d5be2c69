"""Observations: notes another tool keeps on one entity (the MCP memory server's), which memlens
stores as entities of their own, each the object of its entity's `observation` fact, so that each
has its own history. They are marked by their place in their entity's list (the entities table's
`observation_position`, a snapshot entity's field of that name) and are counted, ranked, drawn
and matched apart from the entities (docs/snapshot-format.md)."""
from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

from .schema import has_column

OBSERVATION_POSITION = "observation_position"
OBSERVATION_TYPE = "Observation"   # the type every observation has (not every entity of that type is one)


def is_observation(entity: Mapping[str, Any]) -> bool:
    """Whether a snapshot's entity record is an observation: it says its place in a list."""
    return entity.get(OBSERVATION_POSITION) is not None


def not_an_observation(conn: sqlite3.Connection, table: str = "entities") -> str:
    """An SQL condition on `table` (a name or an alias of the entities table) that keeps the
    entities and leaves out observations; always true in a store from before observations."""
    return f"{table}.{OBSERVATION_POSITION} IS NULL" if has_column(conn, "entities", OBSERVATION_POSITION) else "1"


def may_hold_observations(conn: sqlite3.Connection) -> bool:
    """Whether the store may hold observations: it has the column and an entity of their type (the
    entities_type index answers; most memories have none, and a reader then asks nothing more)."""
    return has_column(conn, "entities", OBSERVATION_POSITION) and conn.execute(
        "SELECT 1 FROM entities WHERE type = ? LIMIT 1", (OBSERVATION_TYPE,)).fetchone() is not None
