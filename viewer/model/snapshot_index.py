"""`SnapshotIndex`: one snapshot's records by id, each entity's facts, names and fact labels."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from memlens.store.observations import OBSERVATION_POSITION, is_observation

from .columns import FACT_FIELDS, Columns
from .palette import PALETTE, TypeLook, assign_looks, type_counts

UNKNOWN_LOOK = TypeLook(PALETTE[-1])   # the grey: an entity that is gone has no type to show


class SnapshotIndex:
    """Lookups over one snapshot, built once and shared by everything that renders it."""

    def __init__(self, snapshot: dict[str, Any], previous_looks: dict[str, TypeLook] | None = None) -> None:
        """`previous_looks` (type -> look, from the bundle being regenerated) keeps those types' looks."""
        self.snapshot = snapshot
        self.type_looks = assign_looks(type_counts(snapshot), previous_looks)
        # the facts' fields as columns, also handed to the graph and the page data (see build_context)
        self.fact_columns = Columns(snapshot["facts"], FACT_FIELDS)
        self.entities = {e["id"]: e for e in snapshot["entities"]}
        self.merged_away = frozenset(e["id"] for e in snapshot["entities"] if e.get("merged_into"))
        # the observations (notes on an entity, listed under it: store/observations.py) and their places
        self.observation_places: dict[str, int] = {
            e["id"]: e[OBSERVATION_POSITION] for e in snapshot["entities"] if is_observation(e)}
        self.facts = dict(zip(self.fact_columns["id"], snapshot["facts"]))
        self.contradictions_of: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for contradiction in snapshot.get("contradictions", []):
            for fid in contradiction.get("facts", []):
                self.contradictions_of[fid].append(contradiction)
        self.reassertions_of: dict[str, list[str]] = defaultdict(list)
        for row in snapshot.get("ledger", []):
            if row.get("action") == "reassert" and row.get("refs"):
                self.reassertions_of[row["refs"][0]].append(row["at"])
        self._facts_of: dict[str, list[dict[str, Any]]] | None = None

    def type_look(self, type_name: str | None) -> TypeLook:
        return self.type_looks.get(type_name or "", UNKNOWN_LOOK)

    def name(self, entity_id: str | None) -> str:
        entity = self.entities.get(entity_id or "")
        return entity["name"] if entity else "(forgotten)"

    def fact_text(self, fact: dict[str, Any]) -> str:
        if fact.get("status") == "forgotten":
            return "forgotten fact (text erased)"
        return f"{self.name(fact.get('subject'))} {fact.get('relation')} {self.name(fact.get('object'))}"

    def moved_by_merge(self, fact: dict[str, Any]) -> bool:
        """Whether a merge carried the fact to the entity its end was merged into: its copy there is
        the value (store/reads.py, static/timetravel.js `movedByMerge`)."""
        return fact.get("subject") in self.merged_away or fact.get("object") in self.merged_away

    def facts_of(self, entity_id: str) -> list[dict[str, Any]]:
        """The facts with `entity_id` at either end, in snapshot order."""
        return self.facts_by_entity().get(entity_id, [])

    def facts_by_entity(self) -> dict[str, list[dict[str, Any]]]:
        """Entity id -> its facts (either end), for every entity that has any."""
        if self._facts_of is None:
            index: dict[str, list[dict[str, Any]]] = defaultdict(list)
            columns = self.fact_columns
            for fact, subject, obj in zip(self.snapshot["facts"], columns["subject"], columns["object"]):
                if subject:
                    index[subject].append(fact)
                if obj and obj != subject:
                    index[obj].append(fact)
            self._facts_of = dict(index)
        return self._facts_of
