"""What changed since the last snapshot, as the pages show it.

The input is the dict `memlens.store.snapshot.diff.diff(old, new)` returns. Items are labelled
from the newer snapshot when their fact or entity is still readable there; forgotten facts and
removed entities carry only an id, and are shown as that id and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memlens.store.errors import InvalidInput

from .links import Links
from .snapshot_index import SnapshotIndex

ITEMS_PER_GROUP = 200
GROUPS = (  # (diff key, heading, what one item is)
    ("facts_added", "Facts added", "fact"),
    ("facts_superseded", "Facts superseded", "fact"),
    ("facts_restored", "Facts restored", "fact"),
    ("facts_retracted", "Facts retracted", "fact"),
    ("facts_contested", "Facts contested", "fact"),
    ("facts_resolved", "Contradictions resolved", "fact"),
    ("facts_forgotten", "Facts forgotten", "forgotten"),
    ("entities_added", "Entities added", "entity"),
    ("entities_merged", "Entities merged", "entity"),
    ("entities_removed", "Entities removed", "removed"),
)
SHORT_LABELS = {"facts_added": "added", "facts_superseded": "superseded", "facts_restored": "restored",
                "facts_retracted": "retracted", "facts_contested": "contested", "facts_resolved": "resolved",
                "facts_forgotten": "forgotten", "entities_added": "new entities",
                "entities_merged": "merged", "entities_removed": "removed entities"}


class ChangesFormatError(InvalidInput):
    """The changes are not the dict snapshot.diff.diff() returns."""


@dataclass(frozen=True)
class ChangeItem:
    """One changed fact or entity. `href` is set only when the newer snapshot still has something
    to link to (`ref_kind`/`ref_id` say what, for the graph page's script); `label` never holds
    forgotten text."""

    id: str
    label: str
    note: str = ""
    href: str = ""
    ref_kind: str = ""
    ref_id: str = ""


@dataclass(frozen=True)
class ChangeGroup:
    key: str
    heading: str
    short: str
    count: int
    items: list[ChangeItem]
    more: int          # items counted but not listed


@dataclass(frozen=True)
class ChangesView:
    since: str         # the older snapshot's generated_at
    from_hash: str
    to_hash: str
    total: int
    groups: list[ChangeGroup]      # every kind, in GROUPS order, empty ones included
    matches_snapshot: bool         # the diff was made against this very snapshot

    @property
    def nonempty(self) -> list[ChangeGroup]:
        return [g for g in self.groups if g.count]


def _fact_item(entry: dict[str, Any], index: SnapshotIndex, links: Links) -> ChangeItem:
    fact_id = str(entry.get("id") or "")
    fact = index.facts.get(fact_id)
    if fact is not None and fact.get("status") != "forgotten" and fact.get("relation") is not None:
        note = ""
        if entry.get("by") in index.facts:
            note = "by " + index.fact_text(index.facts[entry["by"]])
        return ChangeItem(fact_id, index.fact_text(fact), note, links.fact(fact_id) or "", "fact", fact_id)
    if entry.get("relation"):  # not in this snapshot, but the diff names it
        return ChangeItem(fact_id, f"{entry.get('subject', '')} {entry['relation']} {entry.get('object', '')}")
    return ChangeItem(fact_id, f"fact {fact_id[:8]}")


def _entity_item(entry: dict[str, Any], index: SnapshotIndex, links: Links) -> ChangeItem:
    entity_id = str(entry.get("id") or "")
    known = entity_id in index.entities
    name = index.entities[entity_id]["name"] if known else str(entry.get("name") or entity_id[:8])
    note = ""
    into = entry.get("into")
    if into:
        into_name = index.entities[into]["name"] if into in index.entities else str(entry.get("into_name") or into[:8])
        note = "into " + into_name
    href = links.entity(entity_id) if known else None
    return ChangeItem(entity_id, name, note, href or "", "entity" if href else "", entity_id if href else "")


def _bare_item(entry: dict[str, Any], what: str) -> ChangeItem:
    """Forgotten facts and removed entities: their id, never a lookup of their text."""
    item_id = str(entry.get("id") or "")
    return ChangeItem(item_id, f"{what} {item_id[:8]}")


def shown_changes(changes: dict[str, Any]) -> dict[str, Any]:
    """The part of a diff that `changes_view` reads (its ends, every count, each group's first
    ITEMS_PER_GROUP items): what a report keeps to be drawn again by `memlens verify`."""
    if not isinstance(changes, dict) or not isinstance(changes.get("changes"), dict):
        raise ChangesFormatError("changes must be the dict returned by snapshot.diff.diff(old, new)")
    listed, counts = changes["changes"], changes.get("counts") or {}
    return {"from": changes.get("from"), "to": changes.get("to"),
            "counts": {key: int(counts.get(key, len(listed.get(key) or []))) for key, _, _ in GROUPS},
            "changes": {key: (listed.get(key) or [])[:ITEMS_PER_GROUP] for key, _, _ in GROUPS}}


def changes_view(changes: dict[str, Any], snapshot: dict[str, Any], links: Links,
                 index: SnapshotIndex | None = None) -> ChangesView:
    """The page model of a diff against `snapshot` (the newer side), linked with `links`."""
    if not isinstance(changes, dict) or not isinstance(changes.get("changes"), dict):
        raise ChangesFormatError("changes must be the dict returned by snapshot.diff.diff(old, new)")
    index = index or SnapshotIndex(snapshot)
    listed = changes["changes"]
    counts = changes.get("counts") or {}
    groups = []
    for key, heading, what in GROUPS:
        entries = listed.get(key) or []
        count = int(counts.get(key, len(entries)))
        shown = entries[:ITEMS_PER_GROUP]
        if what == "fact":
            items = [_fact_item(e, index, links) for e in shown]
        elif what == "entity":
            items = [_entity_item(e, index, links) for e in shown]
        else:
            items = [_bare_item(e, "forgotten fact" if what == "forgotten" else "entity") for e in shown]
        groups.append(ChangeGroup(key, heading, SHORT_LABELS[key], count, items, max(0, count - len(items))))
    since = changes.get("from") or {}
    until = changes.get("to") or {}
    return ChangesView(since=str(since.get("generated_at") or ""), from_hash=str(since.get("hash") or ""),
                       to_hash=str(until.get("hash") or ""), total=sum(g.count for g in groups),
                       groups=groups, matches_snapshot=until.get("hash") == snapshot.get("hash"))
