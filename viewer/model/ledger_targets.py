"""What a ledger row is about, for the tables that list it."""

from __future__ import annotations

from typing import Any

# Rows about a name rather than a record: their refs are empty (a relation or a type has no id)
# and the payload names it. static/refs.js NAMING_ACTIONS says how each is shown.
NAMED_IN_PAYLOAD = {"declare_functional": "relation", "add_type": "type"}


def row_targets(action: Any, refs: Any, payload: Any) -> list[Any]:
    """The row's refs; for a row about a relation or a type, the name its payload gives."""
    if refs:
        return list(refs)
    key = NAMED_IN_PAYLOAD.get(action)
    name = payload.get(key) if key and isinstance(payload, dict) else None
    return [str(name)] if name else []
