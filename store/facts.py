"""A fact as a writer states it (names, not ids), checked; and what asserting it did.

store/ingest.py asserts them; tests/reference_writer.py is the one-at-a-time writer it is held to."""
from __future__ import annotations

from dataclasses import dataclass, field

from .errors import InvalidInput
from .ontology import relation_name
from .timefmt import parse_valid_time


@dataclass(frozen=True)
class FactInput:
    """One fact as a writer states it: names, not ids."""

    subject: str
    relation: str
    object: str
    subject_type: str | None = None
    object_type: str | None = None
    description: str = ""
    evidence: tuple[str, ...] = ()
    valid_from: str | None = None
    valid_to: str | None = None
    subject_description: str = ""
    object_description: str = ""


@dataclass
class Outcome:
    """What one assertion did."""

    fact_id: str
    outcome: str  # asserted | reasserted | kept superseded | kept retracted | filed as history
    superseded: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"fact": self.fact_id, "outcome": self.outcome, "superseded": self.superseded}


def validate(item: FactInput) -> FactInput:
    relation = relation_name(item.relation)
    if not relation:
        raise InvalidInput(f"a fact needs a relation: {item.relation.strip()!r} has no letters or digits"
                           if item.relation.strip() else "a fact needs a relation")
    valid_from = parse_valid_time(item.valid_from, what="valid_from")
    valid_to = parse_valid_time(item.valid_to, what="valid_to")
    if valid_from and valid_to and valid_to <= valid_from:
        raise InvalidInput(f"valid_to {valid_to} is not after valid_from {valid_from}")
    evidence = tuple(e.strip() for e in item.evidence if e and e.strip())
    return FactInput(
        item.subject, relation, item.object, item.subject_type, item.object_type,
        item.description.strip(), evidence, valid_from, valid_to,
        item.subject_description.strip(), item.object_description.strip(),
    )
