"""Stable identifiers: the same name or triple always gets the same id."""
from __future__ import annotations

import re
import uuid

# A fixed namespace so ids agree across machines and versions.
NAMESPACE = uuid.UUID("6f1c2a4e-9b7d-5e3a-8c41-2d0f6b9e7a15")
SHORT = 8


def normalize_name(name: str) -> str:
    """Case-folded, whitespace-collapsed form under which two names are the same entity."""
    return re.sub(r"\s+", " ", name).strip().casefold()


def entity_id(name: str) -> str:
    return str(uuid.uuid5(NAMESPACE, "entity:" + normalize_name(name)))


def fact_id(subject_id: str, relation: str, object_id: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"fact:{subject_id}|{relation}|{object_id}"))


def derived_id(*parts: str) -> str:
    """An id for a record made of other records (a contradiction, a merge)."""
    return str(uuid.uuid5(NAMESPACE, "|".join(parts)))


def short(id_: str | None) -> str:
    return (id_ or "")[:SHORT]
