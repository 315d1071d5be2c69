"""What the writes since the previous site can have changed on its pages, read from the ledger rows
written since, so that a regeneration digests and renders only the entities and ledger pages those
writes reach, instead of digesting every record of the store to find them (at 100,000 entities
that was 15 s of CPU in a 35 s regeneration after one new fact).

The previous site's manifest names the ledger head it was built from (its `hash`) and how many
rows the ledger held (`counts.ledger`). When the new snapshot's ledger still holds that head at
that place (its seal gives every row's chain), the rows after it are the writes since, and each
names what it changed: facts, entities, contradictions. An entity page shows its own record, its
facts, the names, pages and colours of what they link to, and the ledger rows naming it
(page_inputs.py); so the pages a write can change are those of:

- the ends of every fact it names (and of a contradiction's facts), and every entity it names;
- for an entity it created (a new name or type on other pages): every entity linked to it;
- for a group of an entity's cards (one relation, one direction) that has, or had, pages of its
  own and holds a fact the write names (or a fact naming a created entity, whose name sizes its
  card): every entity linked to one of the group's facts, since its cards can move between those
  pages and other pages link to them;

where "linked" is: at the other end of the fact, or of a fact that supersedes, is superseded by,
or contradicts it. A ledger page may change when a row on it is new, or names an entity created
or a fact whose card can have moved; so may every entity page that shows such a row.

A merge is followed as the rows it writes: one `move` per fact of the dropped entity (naming the
old fact and the new one under the kept entity), the `merge` naming both entities, and the
supersessions and contradictions it settles. Neither entity's name, page or colour changes on other
pages, only the facts linking to them, which those rows name.

A new type names nothing: no entity has it yet, and the pages that list every type (the graph
page, the entity lists, the types' colours) are written on every regeneration. A relation declared
functional names no record either, but changes every card of the relation: its facts count as
named (the supersessions that settle its keys are rows of their own).

A forgotten fact keeps its id and subject but loses its relation and object with its text. Its
ends are those the row that asserted it names; every row naming it, or a contradiction of it,
reads otherwise now; and each group of its ends' cards counts as one it left (the snapshot no
longer says which). A fact with no such row (moved by a merge, brought by an import) is not
followed: nothing would say which page still shows its text. A forgotten entity is no longer in
the snapshot at all: its facts are forgotten in rows of their own before it, every row naming it
(or a fact forgotten before whose subject it was) reads otherwise now, and its own pages are not
written again.

Only writes whose reach this covers are followed; anything else (an import, an action this does
not know) means every page is digested as before (`writes_since` returns None). So does a
different renderer or dataset name, a previous site without its ledger head, or a snapshot
without a seal. tests/test_site_delta.py holds regenerations through this to fresh builds over
random sequences of writes, one at a time and several together.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from collections.abc import Container, Mapping
from typing import Any, Callable, Iterable

from memlens.store.snapshot_seal import sealed_chain

from ..model.snapshot_index import SnapshotIndex
from .entity_plan import group_key

# the writes whose reach is followed (store/*.py's tx.log actions)
FOLLOWED = frozenset({"assert", "reassert", "supersede", "restore", "retract", "contest", "resolve", "dismiss",
                      "entity", "describe", "move", "merge", "add_type", "declare_functional", "forget"})
# ... and those that can change what other pages show of an entity they name (its name, its type)
NAMING = frozenset({"entity"})


@dataclass(frozen=True)
class Previous:
    """What a regeneration needs of the previous site's manifest."""

    hash: str | None            # the snapshot hash it was built from: "sha256:" + its ledger head's chain
    ledger_rows: int | None     # how many rows its ledger held
    inputs_base: str | None     # page_inputs.PageInputs.base_digest() it was built with


@dataclass(frozen=True)
class Reach:
    """The entities whose pages, and the ledger rows whose pages, the writes since may have changed."""

    entities: frozenset[str]
    ledger_rows: frozenset[int]   # indexes into the snapshot's ledger


@dataclass(frozen=True)
class Writes:
    """The writes since the previous site, as the ledger rows after its head name them."""

    first_row: int                  # the index of the first row written since
    touched: frozenset[str]         # entities they name
    named: frozenset[str]           # ... of which those they made (a name or type new to other pages)
    changed_facts: frozenset[str]   # facts they name, and the facts of contradictions they name
    forgotten: frozenset[str] = frozenset()   # facts they forgot: every row naming one reads otherwise
    forgotten_ends: frozenset[str] = frozenset()   # ... and their ends, whose groups of cards lost one
    erased: frozenset[str] = frozenset()   # entities they forgot: every row naming one names it no more
    unowned: frozenset[str] = frozenset()   # facts forgotten before, whose subject went with an erased entity


def writes_since(snapshot: dict[str, Any], index: SnapshotIndex, previous: Previous, inputs_base: str,
                 kept_looks: Iterable[str] | None) -> Writes | None:
    """The writes since `previous`, read from the ledger rows after its head; None when they cannot
    be followed (see the module's doc). Cheap: it reads the rows written since, and each entity's
    type once. `kept_looks`: the types whose colours the previous site gave (None: none kept)."""
    rows = _rows_before(snapshot, previous, inputs_base)
    if rows is None or kept_looks is None:
        return None
    reading = _Reading(snapshot, index, snapshot["ledger"][rows:])
    if not reading.followed():
        return None
    ends: set[str] = set()
    if reading.forgotten:
        found = _asserted_ends(snapshot["ledger"], reading.forgotten)
        if found is None:
            return None
        ends = {e for e in found if e in index.entities}
        reading.touched.update(ends)
    # an entity's colour is its type's, which the previous site's looks keep; only an entity made
    # since (and so named) can have a type they do not give
    kept = set(kept_looks)
    if any(e.get("type") not in kept for entity_id, e in index.entities.items() if entity_id not in reading.named):
        return None
    return Writes(rows, frozenset(reading.touched), frozenset(reading.named), frozenset(reading.changed_facts),
                  frozenset(reading.forgotten), frozenset(ends), frozenset(reading.erased),
                  frozenset(reading.unowned() - reading.forgotten))


def _rows_before(snapshot: dict[str, Any], previous: Previous, inputs_base: str) -> int | None:
    """How many rows the ledger held when the previous site was built, if it was built from an earlier
    state of this ledger by this renderer."""
    ledger = snapshot.get("ledger") or []
    seal = snapshot.get("seal") if isinstance(snapshot.get("seal"), dict) else {}
    rows = previous.ledger_rows
    if (previous.inputs_base != inputs_base or seal.get("hash_of") != "ledger"
            or not isinstance(rows, int) or not 0 < rows <= len(ledger)
            or not isinstance(previous.hash, str) or not previous.hash.startswith("sha256:")):
        return None
    sealed = sealed_chain(seal, rows - 1)
    if not sealed or not previous.hash.removeprefix("sha256:").startswith(sealed):
        return None
    return rows


class _Reading:
    """What the rows written since name, read a row at a time."""

    def __init__(self, snapshot: dict[str, Any], index: SnapshotIndex, rows: list[dict[str, Any]]) -> None:
        self.rows, self.facts, self.entities = rows, index.facts, index.entities
        self.contradictions = {c["id"]: c for c in snapshot.get("contradictions") or []}
        self.touched: set[str] = set()
        self.named: set[str] = set()
        self.changed_facts: set[str] = set()
        self.forgotten: set[str] = set()
        # entities forgotten since, no longer in the snapshot: rows since may name them before they went
        self.erased = {ref for row in rows if row.get("action") == "forget" and row.get("kind") == "entity"
                       for ref in row.get("refs") or ()}

    def followed(self) -> bool:
        """Read every row; False at the first this cannot follow."""
        if any(ref in self.entities for ref in self.erased):
            return False
        return all(self._row(row) for row in self.rows)

    def _row(self, row: dict[str, Any]) -> bool:
        action = row.get("action")
        if action not in FOLLOWED:
            return False
        if action == "forget":
            if row.get("kind") == "entity":
                return True   # its facts are forgotten in rows of their own, before this one
            if row.get("kind") != "fact" or not all(
                    (self.facts.get(ref) or {}).get("status") == "forgotten" for ref in row.get("refs") or ()):
                return False
            self.forgotten.update(row.get("refs") or ())
        if action == "declare_functional":   # every card of the relation now says "functional"
            payload = row.get("payload") if isinstance(row.get("payload"), dict) else {}
            self.changed_facts.update(fid for fid, fact in self.facts.items()
                                      if fact.get("relation") == payload.get("relation"))
        return all(self._ref(ref, action) for ref in row.get("refs") or ())

    def _ref(self, ref: Any, action: str) -> bool:
        if ref in self.entities:
            self.touched.add(ref)
            if action in NAMING:
                self.named.add(ref)
        elif ref in self.facts:
            self.changed_facts.add(ref)
        elif ref in self.contradictions:
            self.changed_facts.update(f for f in self.contradictions[ref].get("facts") or () if f in self.facts)
        elif ref not in self.erased:
            return False   # a reference this cannot follow
        return True

    def unowned(self) -> set[str]:
        """Facts forgotten before whose subject went with an entity forgotten since: every row naming
        one reads otherwise now."""
        if not self.erased:
            return set()
        return {fid for fid, fact in self.facts.items() if fact.get("status") == "forgotten" and not fact.get("subject")}


def _asserted_ends(ledger: list[dict[str, Any]], forgotten: set[str]) -> set[str] | None:
    """The subjects and objects of the forgotten facts, as the rows that asserted them name them; None
    if one has no such row (a fact a merge moved or an import brought names no object anywhere, and
    a page still showing it would still show its text)."""
    ends: set[str] = set()
    found: set[str] = set()
    for row in ledger:
        refs = row.get("refs") or ()
        if row.get("action") == "assert" and len(refs) == 3 and refs[0] in forgotten:
            found.add(refs[0])
            ends.update(refs[1:])
    return ends if found == forgotten else None


def reach_of(writes: Writes, snapshot: dict[str, Any], index: SnapshotIndex, rows_shown: RowsShown,
             spilling: Callable[[str], set[str]]) -> Reach:
    """The pages `writes` can have changed. `spilling(entity)`: the keys (entity_plan.FactGroup.key)
    of its groups of cards that have pages of their own, now or in the previous site."""
    ledger = snapshot.get("ledger") or []
    contradictions = {c["id"]: c for c in snapshot.get("contradictions") or []}
    named, changed_facts = set(writes.named), set(writes.changed_facts)
    links = _Links(index, contradictions)
    touched = set(writes.touched) | links.ends(changed_facts) | links.ends(links.linked(changed_facts))
    near_named: set[str] = set()
    for entity_id in named:
        near_named |= links.around(entity_id)
    touched |= near_named
    moved = _movable_cards(touched, near_named, named, changed_facts, writes.forgotten_ends, index, spilling)
    moved_ends = links.ends(moved)
    reach = touched | moved_ends | links.ends(links.linked(moved))
    # the previous last page too: it gains a link to a newer one
    rows = writes.first_row
    rows_reached = set(range(rows - 1, len(ledger))) if len(ledger) > rows else set()
    for entity_id in writes.erased:
        rows_reached.update(rows_shown.naming(entity_id))
    for fact_id in writes.forgotten | writes.unowned:   # each row naming one, or a contradiction of one, reads otherwise
        rows_reached.update(rows_shown.naming(fact_id))
        for contradiction in index.contradictions_of.get(fact_id, ()):
            rows_reached.update(rows_shown.naming(contradiction["id"]))
    for entity_id in named:
        rows_reached.update(rows_shown.get(entity_id, ()))
    for entity_id in moved_ends:
        rows_reached.update(i for i in rows_shown.get(entity_id, ()) if links.names_any(ledger[i], moved))
    for row_index in rows_reached:   # and every page showing one of those rows
        reach |= shown_with(ledger[row_index].get("refs") or (), index.entities, index.facts, links.contradiction_facts)
    return Reach(frozenset(reach), frozenset(rows_reached))


def _movable_cards(touched: set[str], near_named: set[str], named: set[str], changed_facts: set[str],
                   forgotten_ends: frozenset[str], index: SnapshotIndex,
                   spilling: Callable[[str], set[str]]) -> set[str]:
    """The facts whose cards can have moved between an entity's pages: those of each group with
    pages of its own that a changed fact is in, or whose cards name an entity created. A forgotten
    fact's card left a group the snapshot no longer names (its relation went with its text): every
    such group of its ends counts."""
    moved: set[str] = set()
    for entity_id in touched:
        spilled = spilling(entity_id)
        if not spilled:
            continue
        facts = index.facts_of(entity_id)
        if entity_id in forgotten_ends:
            keys = set(spilled)
        elif entity_id in near_named:
            keys = {group_key(entity_id, f) for f in facts
                    if f["id"] in changed_facts or f.get("subject") in named or f.get("object") in named}
        else:
            keys = {group_key(entity_id, f) for f in facts if f["id"] in changed_facts}
        keys &= spilled
        if keys:
            moved.update(f["id"] for f in facts if group_key(entity_id, f) in keys)
    return moved


class _Links:
    """Which entities a fact links to: its ends, and those of the facts it is linked with by a
    supersession (either way) or a contradiction."""

    def __init__(self, index: SnapshotIndex, contradictions: dict[str, dict[str, Any]]) -> None:
        self.index = index
        self.contradictions = contradictions
        self.contradiction_facts = {cid: c.get("facts") or [] for cid, c in contradictions.items()}
        self._superseding: dict[str, list[str]] | None = None

    def superseding(self) -> dict[str, list[str]]:
        """Fact id -> the facts that name it as their successor, now or in a past version."""
        if self._superseding is None:
            found: dict[str, list[str]] = defaultdict(list)
            for fact in self.index.snapshot["facts"]:
                # a fact of one version names a successor only as its own superseded_by: most name none
                if len(fact.get("history") or ()) > 1 or fact.get("superseded_by"):
                    for successor in _successors(fact):
                        found[successor].append(fact["id"])
            self._superseding = found
        return self._superseding

    def linked(self, fact_ids: Iterable[str]) -> set[str]:
        facts, found = self.index.facts, set()
        for fid in fact_ids:
            fact = facts.get(fid)
            if fact is None:
                continue
            found.update(_successors(fact))
            found.update(self.superseding().get(fid, ()))
            for cid in {*(str(c) for c in fact.get("contradictions") or ()),
                        *(c["id"] for c in self.index.contradictions_of.get(fid, ()))}:
                found.update(self.contradictions.get(cid, {}).get("facts") or ())
        return found

    def ends(self, fact_ids: Iterable[str]) -> set[str]:
        facts, found = self.index.facts, set()
        for fid in fact_ids:
            fact = facts.get(fid)
            if fact is not None:
                found.update(e for e in (fact.get("subject"), fact.get("object")) if isinstance(e, str))
        return found

    def names_any(self, row: dict[str, Any], fact_ids: set[str]) -> bool:
        """Whether a ledger row names one of the facts, or a contradiction of one."""
        for ref in row.get("refs") or ():
            if ref in fact_ids or any(f in fact_ids for f in self.contradictions.get(ref, {}).get("facts") or ()):
                return True
        return False

    def around(self, entity_id: str) -> set[str]:
        """The entity and every entity linked to it."""
        own = [f["id"] for f in self.index.facts_of(entity_id)]
        return {entity_id} | self.ends(own) | self.ends(self.linked(own))


def shown_with(refs: Iterable[Any], entities: Container[Any], facts: Mapping[Any, dict[str, Any]],
               contradiction_facts: Mapping[Any, list[str]]) -> set[str]:
    """The entities on whose pages a ledger row naming `refs` is shown (its provenance): those it
    names, the ends of the facts it names and of the facts of the contradictions it names."""
    found: set[str] = set()
    for ref in refs:
        if ref in entities:
            found.add(ref)
            continue
        for fid in contradiction_facts.get(ref, (ref,)):
            fact = facts.get(fid)
            if fact is not None:
                found.update(e for e in (fact.get("subject"), fact.get("object")) if e in entities)
    return found


class RowsShown:
    """Entity id -> the indexes of the ledger rows its page shows (`shown_with`'s rule, inverted),
    newest first, found for an entity when first asked. A regeneration after a few writes asks
    for a few entities, a full build for each in the process writing its page: indexing the rows
    by the ids they name costs 0.7 s at 100,000 entities, where applying the rule to every row up
    front, in one process, cost 1.7."""

    def __init__(self, ledger: list[dict[str, Any]], index: SnapshotIndex) -> None:
        self.index = index
        self._by_ref: dict[Any, list[int]] = {}
        for number, row in enumerate(ledger):
            for ref in row.get("refs") or ():
                self._by_ref.setdefault(ref, []).append(number)
        self._found: dict[str, list[int]] = {}

    def naming(self, ref: Any) -> list[int]:
        """The rows that name `ref` (an entity, a fact or a contradiction) among their refs."""
        return self._by_ref.get(ref, [])

    def get(self, entity_id: str, default: Any = ()) -> Any:
        found = self._found.get(entity_id)
        if found is None:
            by_ref, rows = self._by_ref, set(self._by_ref.get(entity_id, ()))
            for fact in self.index.facts_of(entity_id):
                rows.update(by_ref.get(fact["id"], ()))
                for contradiction in self.index.contradictions_of.get(fact["id"], ()):
                    rows.update(by_ref.get(contradiction["id"], ()))
            found = self._found[entity_id] = sorted(rows, reverse=True)
        return found or default


def _successors(fact: dict[str, Any]) -> set[str]:
    found = {fact.get("superseded_by"), *(v.get("superseded_by") for v in fact.get("history") or ())}
    return {f for f in found if isinstance(f, str)}
