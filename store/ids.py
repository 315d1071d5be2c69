"""Stable identifiers: the same name or triple always gets the same id."""
from __future__ import annotations

import re
import uuid

# A fixed namespace so ids agree across machines and versions.
NAMESPACE = uuid.UUID("6f1c2a4e-9b7d-5e3a-8c41-2d0f6b9e7a15")
SHORT = 8
MAX_ID_LENGTH = 256
# C0/C1 controls, lone surrogates and the two noncharacters XML and most file systems refuse.
_UNUSABLE_IN_ID = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


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


def usable_id(value: object) -> bool:
    """Whether `value` can be an id: text of 1-256 printable characters. Ids are data, never paths."""
    return (isinstance(value, str) and 0 < len(value) <= MAX_ID_LENGTH
            and _UNUSABLE_IN_ID.search(value) is None)


def short(id_: str | None) -> str:
    return (id_ or "")[:SHORT]
