"""Where an entity's facts, versions and ledger rows go in a site, so that no page grows with it.

A hub holds tens of thousands of facts. Its page shows each group of facts (one relation in one
direction) with its exact count and its first cards; a group that does not fit continues on pages
of its own, and so do the entity's history and provenance past their first rows. Every such page
is named after the entity's page (`<its name>--<what>-<n>.html`, in entities/ beside it: an entity
page's slug never holds `--`, so the names cannot meet), and all of them are linked from it.

The plan is made for every entity before any page is rendered: a fact's card is linked to from
other pages, and the link must name the page the card is on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..model.links import file_key
from .items import STATUS_ORDER

PREVIEW_CARDS = 10          # cards of a group on the entity's own page
PREVIEW_BYTES = 60_000      # ... and about this much text at most (long descriptions run to 20 KB)
PAGE_CARDS = 200            # cards on one page of a group
PAGE_BYTES = 500_000        # ... and about this much text at most: a page stays well under 1 MB
CARD_BYTES = 900            # a card's markup around its text
TABLE_PREVIEW = 100         # history versions or ledger rows on the entity's own page
TABLE_PAGE = 500            # rows on one page of their own
FORGOTTEN = "forgotten"
OBSERVATIONS = "observations"   # the entity's observations: listed first, in their source's order
_DIRECTION_ORDER = {OBSERVATIONS: -1, "out": 0, "in": 1, FORGOTTEN: 2}


@dataclass
class FactGroup:
    """The facts of one relation in one direction (or the forgotten ones), in card order."""

    direction: str                      # "out" | "in" | FORGOTTEN | OBSERVATIONS
    relation: str | None
    facts: list[dict[str, Any]]
    preview: int = 0                    # how many of `facts` the entity's page shows
    pages: list[tuple[int, int]] = field(default_factory=list)   # [start, end) of each page of its own
    names: list[str] = field(default_factory=list)               # and their file names

    @property
    def key(self) -> str:
        """What names the group in its anchor and its pages' file names."""
        return _key(self.direction, self.relation)

    @property
    def anchor(self) -> str:
        return "facts-" + self.key


@dataclass
class EntityPlan:
    page: str                           # the entity's page, a file name in entities/
    groups: list[FactGroup]

    def fact_page(self, position: int, group: FactGroup) -> str:
        """The page that shows the card at `position` of `group` (the entity's page first)."""
        if position < group.preview:
            return self.page
        for (start, end), name in zip(group.pages, group.names):
            if start <= position < end:
                return name
        raise IndexError(position)


def stem(page: str) -> str:
    return page.removesuffix(".html")


def group_pages_prefix(page: str, key: str) -> str:
    """How the file names of a group's pages of its own begin (`key`: FactGroup.key)."""
    return f"{stem(page)}--{key}-"


def _group_of(entity_id: str, fact: dict[str, Any], places: dict[str, int]) -> tuple[str, str | None]:
    """(direction, relation) of the group that holds `fact` on the entity's pages; `places`: the
    snapshot's observations and their places (a fact noting one is among the entity's observations)."""
    relation = fact.get("relation")
    if relation is None or fact.get("status") == FORGOTTEN:
        return FORGOTTEN, None
    if fact.get("subject") != entity_id:
        return "in", relation
    return (OBSERVATIONS, None) if fact.get("object") in places else ("out", relation)


def _key(direction: str, relation: str | None) -> str:
    if direction in (FORGOTTEN, OBSERVATIONS):
        return direction
    return f"{direction}-{file_key(relation or '')}"


def table_pages(page: str, what: str, rows: int) -> list[str]:
    """The file names of the pages of its own a table of `rows` rows needs (none when it fits)."""
    if rows <= TABLE_PREVIEW:
        return []
    return [f"{stem(page)}--{what}-{n}.html" for n in range(1, -(-rows // TABLE_PAGE) + 1)]


def chunks(sizes: list[int], most: int, budget: int) -> list[tuple[int, int]]:
    """Consecutive [start, end) runs of at most `most` items and about `budget` bytes (never empty)."""
    runs, start, used = [], 0, 0
    for i, size in enumerate(sizes):
        if i > start and (i - start >= most or used + size > budget):
            runs.append((start, i))
            start, used = i, 0
        used += size
    if start < len(sizes):
        runs.append((start, len(sizes)))
    return runs


def plan_entity(entity_id: str, page: str, facts: list[dict[str, Any]], order: dict[str, int],
                size: Callable[[dict[str, Any]], int], fits: bool = False,
                places: dict[str, int] | None = None) -> EntityPlan:
    """Group `facts` (those naming the entity) and decide which page each card is on; `fits`: all
    of them are known to fit on its own page (then no card is measured); `places`: observation id
    -> its place in its entity's list, for every observation of the snapshot."""
    places = places or {}
    groups: dict[tuple[str, str | None], FactGroup] = {}
    for fact in facts:
        place = _group_of(entity_id, fact, places)
        if place not in groups:
            groups[place] = FactGroup(*place, [])
        groups[place].facts.append(fact)
    # outgoing, then incoming, each by relation; the forgotten last
    ordered = [groups[place] for place in sorted(groups, key=lambda p: (_DIRECTION_ORDER[p[0]], p[1] or ""))]
    for group in ordered:
        if group.direction == OBSERVATIONS:   # the source's order: those it no longer holds where they were
            group.facts.sort(key=lambda f: (places[f["object"]], order[f["id"]]))
        elif len(group.facts) > 1:
            group.facts.sort(key=lambda f: (STATUS_ORDER.get(f.get("status"), 9), order[f["id"]]))
        if fits:
            group.preview = len(group.facts)
            continue
        sizes = [size(f) for f in group.facts]
        if len(sizes) <= PREVIEW_CARDS and sum(sizes) <= PREVIEW_BYTES:
            group.preview = len(sizes)   # all of it fits, as it does for nearly every group
            continue
        group.preview = chunks(sizes, PREVIEW_CARDS, PREVIEW_BYTES)[0][1]
        if group.preview < len(sizes):
            group.pages = chunks(sizes, PAGE_CARDS, PAGE_BYTES)
            group.names = [f"{group_pages_prefix(page, group.key)}{n}.html" for n in range(1, len(group.pages) + 1)]
    return EntityPlan(page, ordered)


def card_size(names: Callable[[Any], str]) -> Callable[[dict[str, Any]], int]:
    """About how many bytes a fact's card takes: its text, its ends' names and the markup (each
    fact measured once, though both its ends plan it)."""
    sizes: dict[str, int] = {}

    def size(fact: dict[str, Any]) -> int:
        try:
            return sizes[fact["id"]]
        except KeyError:
            pass
        evidence = fact.get("evidence") or ()
        sizes[fact["id"]] = found = (CARD_BYTES + len(fact.get("description") or "") + sum(len(str(e)) for e in evidence)
                                     + len(names(fact.get("subject"))) + len(names(fact.get("object"))))
        return found
    return size


class SitePlans:
    """Every entity's plan, and the page of every fact's card, each worked out when first asked for
    and then remembered: a site's processes plan the entities they digest and render, at the same
    time, where planning all of them first held up the start of every build (100,000 entities: the
    build's serial start 7.7 -> 3.6 s).

    A fact's links lead to its subject's card (on the subject's page or one of its pages of its
    own); to its object's, when the subject has no page; and a fact without a relation (forgotten)
    to the card of whichever of its ends comes first among the pages.
    """

    def __init__(self, pages: dict[str, str], facts_of: Callable[[str], list[dict[str, Any]]],
                 facts: dict[str, dict[str, Any]], order: dict[str, int], size: Callable[[dict[str, Any]], int],
                 places: dict[str, int] | None = None) -> None:
        self.pages = pages              # entity id -> its page, in the order the pages were named
        self._places = places or {}     # observation id -> its place in its entity's list (no page of its own)
        self._facts_of = facts_of
        self._facts = facts             # fact id -> fact
        self._order = order             # fact id -> its place in the snapshot
        self._size = size
        self._rank = {entity_id: rank for rank, entity_id in enumerate(pages)}
        self._plans: dict[str, EntityPlan] = {}
        self._cards: dict[str, dict[str, tuple[int, FactGroup]]] = {}
        self._on_its_page: dict[str, bool] = {}
        self._fit: dict[str, bool] = {}

    def __getitem__(self, entity_id: str) -> EntityPlan:
        try:
            return self._plans[entity_id]
        except KeyError:
            plan = self._plans[entity_id] = plan_entity(entity_id, self.pages[entity_id], self._facts_of(entity_id),
                                                        self._order, self._size, self._fits(entity_id), self._places)
            return plan

    def _fits(self, entity_id: str) -> bool:
        """Whether all of the entity's cards fit in one group's preview (so on its own page, whatever
        its groups), as for nearly every entity."""
        try:
            return self._fit[entity_id]
        except KeyError:
            facts = self._facts_of(entity_id)
            fits = self._fit[entity_id] = len(facts) <= PREVIEW_CARDS and sum(map(self._size, facts)) <= PREVIEW_BYTES
            return fits

    def get(self, fact_id: Any) -> str | None:
        """The page (in entities/) that the links to a fact lead to; None for a fact no page shows."""
        fact = self._facts.get(fact_id) if isinstance(fact_id, str) else None
        if fact is None:
            return None
        subject = fact.get("subject")
        subject_has_page = subject in self.pages
        # the rule's usual end, without planning anyone: a live fact's card on its subject's page
        if subject_has_page and fact.get("relation") is not None and fact.get("status") != FORGOTTEN \
                and self._all_on_its_page(subject):
            return self.pages[subject]
        ends = [end for end in dict.fromkeys((subject, fact.get("object"))) if end in self.pages]
        for entity_id in sorted(ends, key=self._rank.__getitem__):
            position, group = self._card(entity_id, fact_id)
            if group.direction == "out" or group.relation is None or not subject_has_page:
                return self[entity_id].fact_page(position, group)
        return None

    def _all_on_its_page(self, entity_id: str) -> bool:
        """Whether every card of the entity is on its own page, as for nearly every entity: few
        and short enough for one group's preview, whatever the groups (then the plan need not be
        made to know; half of a site's record digests went into planning for this)."""
        try:
            return self._on_its_page[entity_id]
        except KeyError:
            pass
        fits = self._fits(entity_id) or not any(group.pages for group in self[entity_id].groups)
        self._on_its_page[entity_id] = fits
        return fits

    def _card(self, entity_id: str, fact_id: str) -> tuple[int, FactGroup]:
        """Where an entity's plan puts a fact's card: its place in its group, and the group."""
        cards = self._cards.get(entity_id)
        if cards is None:
            cards = self._cards[entity_id] = {}
            for group in self[entity_id].groups:
                for position, fact in enumerate(group.facts):
                    cards.setdefault(fact["id"], (position, group))
        return cards[fact_id]
