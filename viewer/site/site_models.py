"""Every page model of a site (site/models.py), built from one snapshot.

What a page shows of something that is not its own (an entity it links to, a fact a ledger row
names) is resolved here, once per thing, and shared by every model that shows it: a name, the page
a link leads to, a colour. Records go in as leaves carrying their seal's digests. Nothing is
rendered here: a regeneration builds every model, and renders only the pages whose models changed.
"""

from __future__ import annotations

import hashlib
from typing import Any, Iterator

from memlens.store.snapshot.seal import record_digests

from ..model.evidence import evidence_changed
from ..model.links import file_key
from ..model.printed_commands import dataset_flag
from ..model.snapshot_index import SnapshotIndex
from ..model.worklist import dismissal_groups, task_of, worklist_groups
from ..report.page import fact_words_in
from ..report.renderer import renderer_id
from .entity_plan import SitePlans, card_size
from .models import (Card, ContestedCase, ContestedPage, EntityListPage, EntityPage, EntityRow, FactRef, Group,
                     LedgerPage, LedgerRow, Leaf, MaintenanceGroup, MaintenanceGroupPage, MaintenancePage,
                     OpenContradiction, Ref, ResolvedRow, Target, TaskRow, Digests, fact_label)

LEDGER_PAGE_SIZE = 500
CONTESTED_LIMIT = 200          # open contradictions shown with both facts; the rest are counted (and listed
RESOLVED_LIMIT = 1000          # on the maintenance pages); both keep contested.html under 1 MB,
CONTESTED_BYTES = 500_000      # and so does a bound on the open ones' cards' text (long descriptions)
MAINTENANCE_PREVIEW = 50       # rows of each maintenance group on maintenance.html
MAINTENANCE_PAGE = 500         # rows on each of a group's pages of its own
ENTITY_INDEX_PAGE = 1000       # entities on each page of entities/index
_NONE: tuple = ()


def ledger_page_name(number: int) -> str:
    return f"page-{number}.html"


class SiteModels:
    """The page models of the site of `snapshot`; `index`, `pages` (entity id -> its page) and
    `plans` are the build's. `base` starts every page's digest: the code that renders the site and
    the dataset's name, which every page's title shows."""

    def __init__(self, snapshot: dict[str, Any], index: SnapshotIndex, pages: dict[str, str], plans: SitePlans,
                 type_class: dict[str, str]) -> None:
        self.snapshot, self.index, self.pages, self.plans, self.type_class = snapshot, index, pages, plans, type_class
        self.base = hashlib.sha256(f"{renderer_id()}\0{snapshot.get('dataset') or ''}\0".encode()).digest()
        digests = record_digests(snapshot)
        self._entities = {e["id"]: Leaf(e, d) for e, d in zip(snapshot["entities"], digests.records["entities"])}
        self._facts = {f["id"]: Leaf(f, d) for f, d in zip(snapshot["facts"], digests.records["facts"])}
        contradictions = snapshot.get("contradictions", [])
        self._contradictions = {c["id"]: Leaf(c, d) for c, d in zip(contradictions, digests.records["contradictions"])}
        self.ledger = snapshot.get("ledger", [])
        self._rows_leaves = [Leaf(row, chain) for row, chain in zip(self.ledger, digests.chains)]
        self._refs: dict[Any, Ref] = {}
        self._fact_refs: dict[Any, FactRef] = {}
        self._cards: dict[str, Card] = {}
        self._rows: dict[int, LedgerRow] = {}
        self._targets: dict[str, Target] = {}
        self._by_entity: dict[Any, list[int]] | None = None
        self.fact_words = fact_words_in(index)
        self.dataset_flag = dataset_flag(snapshot)   # what every printed command carries
        self.evidence_changed = frozenset(evidence_changed(snapshot))
        self.withheld = snapshot.get("withheld_from_briefs") or {}   # fact id -> why briefs leave it out
        self.digest = Digests(self.base)

    # -- what other pages show of a thing ----------------------------------------------------------
    def ref(self, entity_id: Any) -> Ref:
        try:
            return self._refs[entity_id]
        except (KeyError, TypeError):
            pass
        index = self.index
        entity = index.entities.get(entity_id) if isinstance(entity_id, str) else None
        page = (self.pages.get(entity_id) or self._observation_page(entity_id)) if entity else None
        ref = Ref(entity_id if isinstance(entity_id, str) else None, index.name(entity_id) if entity else
                  "(forgotten)", page, index.type_look(entity.get("type") if entity else None).color,
                  entity_id in index.merged_away)
        if isinstance(entity_id, str) or entity_id is None:
            self._refs[entity_id] = ref
        return ref

    def _observation_page(self, entity_id: str) -> str | None:
        """Where an observation is listed: at the fact that notes it, on its entity's page."""
        if entity_id not in self.index.observation_places:
            return None
        for fact in self.index.facts_of(entity_id):
            page = self.plans.get(fact["id"]) if fact.get("object") == entity_id else None
            if page is not None:
                return f"{page}#fact-{fact['id']}"
        return None

    def fact_ref(self, fact_id: Any) -> FactRef:
        try:
            return self._fact_refs[fact_id]
        except (KeyError, TypeError):
            pass
        fact = self.index.facts.get(fact_id) if isinstance(fact_id, str) else None
        name = self.index.name
        label = fact_label(fact, name(fact.get("subject")), name(fact.get("object"))) if fact is not None else \
            fact_label({}, "", "")
        ref = FactRef(str(fact_id), label, self.plans.get(fact_id))
        if isinstance(fact_id, str):
            self._fact_refs[fact_id] = ref
        return ref

    def target(self, ref: str) -> Target:
        """A ledger or worklist reference: an entity, a fact, a contradiction, or an id that is gone
        (each made once: the rows naming a fact or an entity name it again and again)."""
        found = self._targets.get(ref)
        if found is None:
            found = self._targets[ref] = self._target(ref)
        return found

    def _target(self, ref: str) -> Target:
        index = self.index
        if ref in index.entities:
            entity = self.ref(ref)
            return Target("entity", ref, entity.name, entity.page, None)
        if ref in index.facts:
            fact = self.fact_ref(ref)
            return Target("fact", ref, fact.label, fact.page, ref)
        contradiction = self._contradictions.get(ref)
        if contradiction is not None:
            first = next((f for f in contradiction.record.get("facts", []) if self.plans.get(f)), None)
            return Target("contradiction", ref, "", self.plans.get(first) if first else None, first)
        return Target("gone", ref, "", None, None)

    # -- facts -----------------------------------------------------------------------------------------
    def card(self, fact: dict[str, Any]) -> Card:
        fid = fact["id"]
        try:
            return self._cards[fid]
        except KeyError:
            pass
        status = fact.get("status")
        opened: tuple[OpenContradiction, ...] = _NONE
        if fact.get("contested"):
            found = [self._contradictions[c] for c in fact.get("contradictions") or () if c in self._contradictions]
            opened = tuple(OpenContradiction(c, tuple(self.fact_ref(f) for f in c.record.get("facts", []) if f != fid))
                           for c in found if c.record.get("resolved_at") is None)
        by = fact.get("superseded_by")
        history = fact.get("history")
        events: tuple[tuple[str, str, str], ...] = _NONE
        index = self.index
        if fid in index.contradictions_of or fid in index.reassertions_of:
            events = (*((c.get("recorded_at"), "contested", c.get("reason") or "") for c in index.contradictions_of.get(fid, ())),
                      *((at, "reasserted", "") for at in index.reassertions_of.get(fid, ())))
        card = self._cards[fid] = Card(
            self._facts[fid], self.ref(fact.get("subject")), self.ref(fact.get("object")), self.fact_ref(fid).page, opened,
            self.fact_ref(by) if by and status in ("superseded", "retracted") else None,
            tuple(self.fact_ref(f) for f in dict.fromkeys(v.get("superseded_by") for v in history) if f)
            if history else _NONE, events, fid in self.evidence_changed, self.withheld.get(fid))
        return card

    # -- the ledger ---------------------------------------------------------------------------------
    def ledger_row(self, number: int) -> LedgerRow:
        row = self._rows.get(number)
        if row is None:
            refs = self.ledger[number].get("refs")
            row = self._rows[number] = LedgerRow(self._rows_leaves[number], tuple(map(self.target, self._shown_refs(refs)))
                                                 if refs else _NONE)
        return row

    def _shown_refs(self, refs: Any) -> list[str]:
        """A row's references, less entities that a fact of the same row already names (an assert
        row refers to the fact and both its ends; the fact's label says all three)."""
        refs = [r if type(r) is str else str(r) for r in refs]
        if len(refs) < 2:
            return refs
        facts, named = self.index.facts, set()
        for ref in refs:
            fact = facts.get(ref)
            if fact is not None and fact.get("relation") is not None:
                named.add(fact.get("subject"))
                named.add(fact.get("object"))
        return [r for r in refs if r not in named or r in facts] if named else refs

    def rows_naming(self, entity_id: str) -> list[int]:
        """The ledger rows an entity's page shows, newest first: those naming it, one of its facts,
        or a contradiction of one of them."""
        if self._by_entity is None:
            self._by_entity = self._rows_by_entity()
        return self._by_entity.get(entity_id, _NONE)[::-1]

    def _rows_by_entity(self) -> dict[Any, list[int]]:
        """Entity id -> the rows naming it, one of its facts or a contradiction of one, oldest first:
        one pass over the ledger (a row's numbers go in ascending, so a repeat is the list's last)."""
        index = self.index
        entities, facts, contradictions = index.entities, index.facts, self._contradictions
        by_entity: dict[Any, list[int]] = {}

        def add(entity_id: Any, number: int) -> None:
            if entity_id in entities:
                rows = by_entity.get(entity_id)
                if rows is None:
                    by_entity[entity_id] = [number]
                elif rows[-1] != number:
                    rows.append(number)

        for number, row in enumerate(self.ledger):
            for ref in row.get("refs") or ():
                if ref in entities:
                    add(ref, number)
                fact = facts.get(ref)
                if fact is not None:
                    add(fact.get("subject"), number)
                    add(fact.get("object"), number)
                contradiction = contradictions.get(ref)
                if contradiction is not None:
                    for fid in contradiction.record.get("facts", ()):
                        fact = facts.get(fid)
                        if fact is not None:
                            add(fact.get("subject"), number)
                            add(fact.get("object"), number)
        return by_entity

    # -- the pages ----------------------------------------------------------------------------------
    def entity_pages(self) -> Iterator[EntityPage]:
        pages, plans, card = self.pages, self.plans, self.card
        for entity in self.snapshot["entities"]:
            eid = entity["id"]
            if eid not in pages:   # an observation: listed on its entity's page
                continue
            plan = plans[eid]
            target = entity.get("merged_into")
            yield EntityPage(
                plan.page, self._entities[eid], self.type_class[entity["type"]],
                self.ref(target) if target in pages else None,
                tuple(Group(g.direction, g.relation, g.key, g.preview, tuple(g.pages), tuple(g.names),
                            tuple(map(card, g.facts))) for g in plan.groups),
                tuple([f["id"] for f in self.index.facts_of(eid)]),
                tuple(map(self.ledger_row, self.rows_naming(eid))))

    def entity_list_pages(self) -> Iterator[EntityListPage]:
        """entities/index.html onwards: every entity (live ones by name, then merged ones; observations
        are listed on their entities' pages), a page of ENTITY_INDEX_PAGE rows each."""
        facts_of, observations = self.index.facts_of, self.index.observation_places
        by_name = sorted((e for e in self.snapshot["entities"] if e["id"] in self.pages),
                         key=lambda e: (str(e.get("name") or "").casefold(), e["id"]))
        live = [e for e in by_name if e.get("merged_into") is None]
        rows = []
        for entity in live + [e for e in by_name if e.get("merged_into") is not None]:
            facts = facts_of(entity["id"])
            if observations:   # its facts as its page counts them: those noting its observations apart
                facts = [f for f in facts if f.get("object") not in observations]
            rows.append(EntityRow(str(entity.get("name") or ""), str(entity.get("type")),
                                  self.type_class[entity["type"]], self.pages[entity["id"]], len(facts),
                                  sum(1 for f in facts if f.get("status") == "current"),
                                  sum(1 for f in facts if f.get("contested")), entity.get("updated_at"),
                                  entity.get("merged_into") is not None))
        count = max(1, -(-len(rows) // ENTITY_INDEX_PAGE))
        names = ("index.html", *(f"index-{n}.html" for n in range(2, count + 1)))
        for number in range(1, count + 1):
            first = (number - 1) * ENTITY_INDEX_PAGE
            yield EntityListPage(number, names, tuple(rows[first:first + ENTITY_INDEX_PAGE]), first, len(live))

    def ledger_pages(self) -> Iterator[LedgerPage]:
        """ledger/index.html (number 0: the newest rows, and every page), then each page: fixed runs
        of the ledger counted from its first row, so a write changes only the last page and the index."""
        ledger, row = self.ledger, self.ledger_row
        count = max(1, -(-len(ledger) // LEDGER_PAGE_SIZE))
        names = tuple(ledger_page_name(n) for n in range(1, count + 1)) if ledger else _NONE
        newest = range(len(ledger) - 1, max(-1, len(ledger) - 1 - LEDGER_PAGE_SIZE), -1)
        yield LedgerPage(0, True, names, len(ledger), LEDGER_PAGE_SIZE, tuple(map(row, newest)))
        for number in range(1, len(names) + 1):
            chunk = range(min(len(ledger), number * LEDGER_PAGE_SIZE) - 1, (number - 1) * LEDGER_PAGE_SIZE - 1, -1)
            yield LedgerPage(number, number == len(names), _NONE, 0, LEDGER_PAGE_SIZE, tuple(map(row, chunk)))

    def contested_page(self) -> ContestedPage:
        index = self.index
        contradictions = self.snapshot.get("contradictions", [])
        opened = [c for c in contradictions if c.get("resolved_at") is None]
        cases = []
        size, used = card_size(index.name), 0
        for c in opened[:CONTESTED_LIMIT]:
            used += sum(size(index.facts[f]) for f in c.get("facts", []) if f in index.facts)
            if cases and used > CONTESTED_BYTES:
                break
            cases.append(ContestedCase(self._contradictions[c["id"]],
                                       tuple(self.card(index.facts[f]) if f in index.facts else str(f)
                                             for f in c.get("facts", []))))
        resolved = [c for c in contradictions if c.get("resolved_at") is not None]
        return ContestedPage(tuple(cases), len(opened),
                             tuple(ResolvedRow(self._contradictions[c["id"]], tuple(map(self.fact_ref, c.get("facts", []))))
                                   for c in resolved[:RESOLVED_LIMIT]), len(resolved))

    def maintenance_groups(self) -> dict[str, list[tuple[MaintenanceGroup, list[dict[str, Any]]]]]:
        """Each kind of worklist row and of dismissal, with all its rows: the first ones shown on
        maintenance.html, every one on its pages of its own when there are more (a worklist of a
        memory without evidence is 30,000 rows)."""
        found: dict[str, list[tuple[MaintenanceGroup, list[dict[str, Any]]]]] = {}
        for which, groups in (("open", worklist_groups(self.snapshot)), ("dismissed", dismissal_groups(self.snapshot))):
            found[which] = []
            for group in groups:
                count = -(-group.count // MAINTENANCE_PAGE) if group.count > MAINTENANCE_PREVIEW else 0
                names = tuple(f"{which}-{file_key(group.kind)}-{n}.html" for n in range(1, count + 1))
                shown = tuple(self.task_row(which, row) for row in group.rows[:MAINTENANCE_PREVIEW])
                found[which].append((MaintenanceGroup(which, group.kind, group.title, group.count,
                                                      f"{which}-{file_key(group.kind)}", names, shown), group.rows))
        return found

    def task_row(self, which: str, row: dict[str, Any]) -> TaskRow:
        if which != "open":
            return TaskRow(row, "", _NONE, _NONE)
        task = task_of(row, self.index.name, self.fact_words, self.dataset_flag)
        return TaskRow(row, task.sentence, tuple(task.commands), tuple(self.target(str(r)) for r in row.get("refs") or ()))

    def maintenance_pages(self) -> tuple[MaintenancePage, list[MaintenanceGroupPage]]:
        groups = self.maintenance_groups()
        page = MaintenancePage(tuple(g for g, _ in groups["open"]), len(self.snapshot.get("maintenance") or []),
                               tuple(g for g, _ in groups["dismissed"]), len(self.snapshot.get("dismissals") or []))
        own = []
        for which in ("open", "dismissed"):
            for group, rows in groups[which]:
                for number in range(1, len(group.names) + 1):
                    first = (number - 1) * MAINTENANCE_PAGE
                    own.append(MaintenanceGroupPage(which, group.kind, group.title, group.count, group.names, number,
                                                    first, tuple(self.task_row(which, r)
                                                                 for r in rows[first:first + MAINTENANCE_PAGE])))
        return page, own
