"""The data block the page's script reads: the snapshot, indexed and compacted for the browser.

Rows are arrays whose field names are listed once in `columns`, references between rows are
array indexes, and record times are indexes into the sorted `times` list (so the browser compares
integers when it travels in record time). A fact whose history is one open version equal to the
fact itself (most facts) carries `history: null`. The page decodes this into objects once, at load.
"""

from __future__ import annotations

from typing import Any

from .evidence import is_web_link
from .layout import Layout
from .palette import type_color

DRAW_LIMIT = 1500   # nodes drawn at first; vis-network stays fluid below this, the rest is on demand
MERGED_OFFSET = 36.0

ENTITY_COLUMNS = ("id", "name", "type", "description", "createdAt", "updatedAt", "mergedInto",
                  "mergedAt", "x", "y", "degree")
FACT_COLUMNS = ("id", "subject", "relation", "object", "status", "supersededBy", "reason", "contested",
                "validFrom", "validTo", "recordedAt", "retiredAt", "actor", "description", "evidence",
                "links", "reassertions", "history", "contradictions")
HISTORY_COLUMNS = ("from", "to", "status", "supersededBy", "reason", "validFrom", "validTo")
CONTRADICTION_COLUMNS = ("id", "facts", "reason", "confidence", "actor", "recordedAt", "resolvedAt",
                         "resolution", "resolutionReason")
LEDGER_COLUMNS = ("seq", "at", "actor", "action", "kind", "refs")


class _Indexes:
    """Position lookups for everything a row can point at."""

    def __init__(self, snapshot: dict[str, Any]) -> None:
        self.entity = {e["id"]: i for i, e in enumerate(snapshot["entities"])}
        self.fact = {f["id"]: i for i, f in enumerate(snapshot["facts"])}
        self.contradiction = {c["id"]: i for i, c in enumerate(snapshot.get("contradictions", []))}
        self.types = sorted(set(snapshot.get("ontology", {}).get("types", []))
                            | {e["type"] for e in snapshot["entities"]})
        self.type = {name: i for i, name in enumerate(self.types)}
        functional = {r["name"]: bool(r.get("functional")) for r in snapshot.get("ontology", {}).get("relations", [])}
        for fact in snapshot["facts"]:
            if fact.get("relation") is not None:
                functional.setdefault(fact["relation"], bool(fact.get("functional")))
        self.relations = sorted(functional.items())
        self.relation = {name: i for i, (name, _) in enumerate(self.relations)}
        self.times = sorted(_record_times(snapshot))
        self.time = {t: i for i, t in enumerate(self.times)}

    def at(self, value: str | None) -> int:
        return -1 if value is None else self.time[value]

    def ref(self, value: str) -> int | str:
        """A ledger or maintenance reference: entity index, -(fact index + 1), or the id as given."""
        if value in self.entity:
            return self.entity[value]
        if value in self.fact:
            return -(self.fact[value] + 1)
        return value


def _record_times(snapshot: dict[str, Any]) -> set[str]:
    times: set[str] = set()
    for entity in snapshot["entities"]:
        times.update(t for t in (entity.get("created_at"), entity.get("updated_at"), entity.get("merged_at")) if t)
    for fact in snapshot["facts"]:
        times.update(t for t in (fact.get("recorded_at"), fact.get("retired_at")) if t)
        for version in fact.get("history") or []:
            times.update(t for t in (version.get("from"), version.get("to")) if t)
    for contradiction in snapshot.get("contradictions", []):
        times.update(t for t in (contradiction.get("recorded_at"), contradiction.get("resolved_at")) if t)
    times.update(row["at"] for row in snapshot.get("ledger", []) if row.get("at"))
    return times


def _entity_rows(snapshot: dict[str, Any], ix: _Indexes, layout: Layout) -> list[list[Any]]:
    rows = []
    for entity in snapshot["entities"]:
        target = entity.get("merged_into")
        if entity["id"] in layout.positions:
            x, y = layout.positions[entity["id"]]
        else:  # merged entities are only drawn in the past; put them beside what absorbed them
            tx, ty = layout.positions.get(target, (0.0, 0.0))
            x, y = round(tx + MERGED_OFFSET, 1), round(ty + MERGED_OFFSET, 1)
        rows.append([entity["id"], entity["name"], ix.type[entity["type"]], entity.get("description") or "",
                     ix.at(entity.get("created_at")), ix.at(entity.get("updated_at")),
                     ix.entity.get(target, -1) if target else -1, ix.at(entity.get("merged_at")),
                     x, y, layout.degree.get(entity["id"], 0)])
    return rows


def _fact_rows(snapshot: dict[str, Any], ix: _Indexes) -> list[list[Any]]:
    rows = []
    for fact in snapshot["facts"]:
        evidence = [str(e) for e in fact.get("evidence") or []]
        history = [[ix.at(v.get("from")), ix.at(v.get("to")), v.get("status"),
                    ix.fact.get(v.get("superseded_by") or "", -1), v.get("reason"),
                    v.get("valid_from"), v.get("valid_to")] for v in fact.get("history") or []]
        relation = fact.get("relation")
        recorded_at, superseded_by = ix.at(fact.get("recorded_at")), ix.fact.get(fact.get("superseded_by") or "", -1)
        unchanged = [recorded_at, -1, fact.get("status"), superseded_by, fact.get("reason"),
                     fact.get("valid_from"), fact.get("valid_to")]
        rows.append([
            fact["id"], ix.entity.get(fact.get("subject") or "", -1),
            ix.relation[relation] if relation is not None else -1, ix.entity.get(fact.get("object") or "", -1),
            fact.get("status"), superseded_by, fact.get("reason"),
            bool(fact.get("contested")), fact.get("valid_from"), fact.get("valid_to"),
            recorded_at, ix.at(fact.get("retired_at")), fact.get("actor"),
            fact.get("description"), evidence, [i for i, e in enumerate(evidence) if is_web_link(e)],
            int(fact.get("reassertions") or 0), None if history == [unchanged] else history,
            [ix.contradiction[c] for c in fact.get("contradictions") or [] if c in ix.contradiction],
        ])
    return rows


def _contradiction_rows(snapshot: dict[str, Any], ix: _Indexes) -> list[list[Any]]:
    return [[c["id"], [ix.fact.get(f, -1) for f in c.get("facts", [])], c.get("reason"), c.get("confidence"),
             c.get("actor"), ix.at(c.get("recorded_at")), ix.at(c.get("resolved_at")), c.get("resolution"),
             c.get("resolution_reason")] for c in snapshot.get("contradictions", [])]


def _overview(snapshot: dict[str, Any], ix: _Indexes, layout: Layout) -> list[int]:
    drawn = [ix.entity[eid] for eid in layout.ranking[:DRAW_LIMIT]]
    if len(snapshot["entities"]) <= DRAW_LIMIT:  # small stores: merged ones too, for past views
        drawn += [ix.entity[e["id"]] for e in snapshot["entities"] if e.get("merged_into")]
    return drawn


def _valid_times(snapshot: dict[str, Any]) -> list[str]:
    values = {v for f in snapshot["facts"] for v in (f.get("valid_from"), f.get("valid_to")) if v}
    return sorted(values)


def page_data(snapshot: dict[str, Any], layout: Layout, *, show_superseded: bool) -> dict[str, Any]:
    """Everything the page's script needs, as plain JSON-able data."""
    ix = _Indexes(snapshot)
    return {
        "meta": {"format": snapshot.get("format"), "dataset": snapshot.get("dataset"),
                 "generatedAt": snapshot.get("generated_at"), "hash": snapshot.get("hash"),
                 "stats": snapshot.get("stats", {})},
        "columns": {"entities": ENTITY_COLUMNS, "facts": FACT_COLUMNS, "history": HISTORY_COLUMNS,
                    "contradictions": CONTRADICTION_COLUMNS, "ledger": LEDGER_COLUMNS},
        "types": [{"name": name, "color": type_color(name)} for name in ix.types],
        "relations": [{"name": name, "functional": functional} for name, functional in ix.relations],
        "times": ix.times,
        "validTimes": _valid_times(snapshot),
        "entities": _entity_rows(snapshot, ix, layout),
        "facts": _fact_rows(snapshot, ix),
        "contradictions": _contradiction_rows(snapshot, ix),
        "ledger": [[row["seq"], ix.at(row.get("at")), row.get("actor"), row.get("action"), row.get("kind"),
                    [ix.ref(r) for r in row.get("refs") or []]] for row in snapshot.get("ledger", [])],
        "overview": _overview(snapshot, ix, layout),
        "drawLimit": DRAW_LIMIT,
        "showSuperseded": show_superseded,
    }
