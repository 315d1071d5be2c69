"""What each page of a site shows, as a model of plain values: the one thing that decides whether
a page is written again.

Every page but the graph page (index.html, which changes with every write) is a frozen model built
from the snapshot (site/page_models.py), and its renderer reads nothing else. A page's digest is
sha256 of the code that renders it, the dataset's name (every page's title) and the model's bytes
(`digest_of`): complete by construction, since what the renderer can read is what the digest
covers. A regeneration builds every model, and renders a page only when its digest is not the one
memlens recorded when it wrote the page (site/folder.py); every other page stays as it is.

Models are NamedTuples (a frozen dataclass costs several times a tuple to make, and there are
100,000 of them at 10,000 entities). A record of the snapshot sits in a model as a `Leaf`, whose
bytes in a digest are the digest the snapshot's seal gave the record (store/snapshot/seal.py),
never a second canonical text of it.
"""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

import orjson


class Leaf(NamedTuple):
    """A record of the snapshot (an entity, a fact, a contradiction, a ledger row) as a page shows it;
    `digest`: the full sha256 its seal was made from (a ledger row's: its chain hash)."""

    record: dict[str, Any]
    digest: str


class Ref(NamedTuple):
    """An entity as another page shows and links it."""

    id: str | None
    name: str
    page: str | None    # its page in entities/; None if it has none (forgotten)
    color: str          # its type's colour (a timeline's bars)
    merged: bool = False  # merged into another entity: its facts were carried there


def fact_label(fact: dict[str, Any], subject: str, object: str) -> str:
    """How a fact is named where it is linked: "subject relation object", unless forgotten."""
    if fact.get("relation") is None or fact.get("status") == "forgotten":
        return "forgotten fact (text erased)"
    return f"{subject} {fact['relation']} {object}"


class FactRef(NamedTuple):
    """A fact as another item names and links it."""

    id: str
    label: str          # "subject relation object", or that it was forgotten
    page: str | None    # the page in entities/ its card is on; None if no page shows it


class Target(NamedTuple):
    """What a ledger or worklist row names: an entity, a fact, a contradiction, or an id that is gone."""

    kind: str           # "entity" | "fact" | "contradiction" | "gone"
    id: str
    label: str          # an entity's name, a fact's label; "" otherwise
    page: str | None    # an entity's page, the page of a fact's card (a contradiction's first fact)
    fact: str | None    # the fact whose card a link lands on (a fact; a contradiction's first fact)


class OpenContradiction(NamedTuple):
    """An open contradiction on a contested fact's card, and the facts it pits it against."""

    record: Leaf
    others: tuple[FactRef, ...]


class Card(NamedTuple):
    """A fact as an entity's pages show it: its card, its line on a timeline, its rows of a history."""

    fact: Leaf
    subject: Ref
    object: Ref
    page: str | None                                # the page its links lead to (its history rows')
    open_contradictions: tuple[OpenContradiction, ...]
    superseded_by: FactRef | None
    versions_by: tuple[FactRef, ...]                # the facts its past versions were superseded by
    events: tuple[tuple[str, str, str], ...]        # (when, what, why): contested and reasserted, for its timeline
    evidence_changed: bool                          # the repository changed what its evidence cites since
    withheld: str | None                            # why briefs leave it out, if they do


class Group(NamedTuple):
    """The facts of one relation in one direction (or the forgotten ones) on an entity's pages."""

    direction: str
    relation: str | None
    key: str
    preview: int                                    # how many cards the entity's own page shows
    pages: tuple[tuple[int, int], ...]              # [start, end) of each page of its own
    names: tuple[str, ...]                          # their file names
    cards: tuple[Card, ...]


class LedgerRow(NamedTuple):
    row: Leaf
    targets: tuple[Target, ...]


class EntityPage(NamedTuple):
    """An entity's own page and the pages of its own (entities/<page>, <stem>--*)."""

    page: str
    entity: Leaf
    type_class: str
    merged_into: Ref | None
    groups: tuple[Group, ...]
    fact_order: tuple[str, ...]                     # its facts' ids in the snapshot's order (its history's)
    provenance: tuple[LedgerRow, ...]               # the ledger rows naming it, newest first


class EntityRow(NamedTuple):
    name: str
    type: str
    type_class: str
    page: str
    facts: int
    current: int
    contested: int
    updated_at: str | None
    merged: bool


class EntityListPage(NamedTuple):
    """entities/index.html, or index-N.html."""

    number: int
    names: tuple[str, ...]
    rows: tuple[EntityRow, ...]
    first: int
    live: int


class LedgerPage(NamedTuple):
    """ledger/page-N.html (`newest`: no newer page follows); ledger/index.html is `number` 0."""

    number: int
    newest: bool
    names: tuple[str, ...]                          # every page's file name (the index links them all)
    total: int
    per_page: int
    rows: tuple[LedgerRow, ...]


class ContestedCase(NamedTuple):
    record: Leaf
    cards: tuple[Card | str, ...]                   # its facts' cards; an id for a fact that is gone


class ResolvedRow(NamedTuple):
    record: Leaf
    facts: tuple[Target, ...]


class ContestedPage(NamedTuple):
    open: tuple[ContestedCase, ...]
    open_count: int
    resolved: tuple[ResolvedRow, ...]
    resolved_count: int


class TaskRow(NamedTuple):
    """A worklist row as a task (model/worklist.task_of), or a dismissal."""

    record: dict[str, Any]
    sentence: str
    commands: tuple[tuple[str, str], ...]
    targets: tuple[Target, ...]


class MaintenanceGroup(NamedTuple):
    which: str                                      # "open" (the worklist) or "dismissed"
    kind: str
    title: str
    count: int
    anchor: str
    names: tuple[str, ...]                          # its pages of its own in maintenance/
    rows: tuple[TaskRow, ...]                       # the rows maintenance.html shows


class MaintenancePage(NamedTuple):
    worklist: tuple[MaintenanceGroup, ...]
    worklist_count: int
    dismissals: tuple[MaintenanceGroup, ...]
    dismissals_count: int


class MaintenanceGroupPage(NamedTuple):
    """maintenance/<which>-<kind>-N.html."""

    which: str
    kind: str
    title: str
    count: int
    names: tuple[str, ...]
    number: int
    first: int
    rows: tuple[TaskRow, ...]


class Digests:
    """Page digests: sha256 of `base` (site_models.SiteModels.base: the renderer's and the dataset's)
    and the model's bytes, with each record as its seal's digest. A card or a ledger row sits on
    several pages: its own digest is worked out once and stands for it on each (0.8 -> 0.4 s at
    10,000 entities); the models live as long as this, so their identity finds it."""

    def __init__(self, base: bytes) -> None:
        self.base = base
        self._parts: dict[int, str] = {}

    def __call__(self, model: tuple) -> str:
        return hashlib.sha256(self.base + orjson.dumps(model, default=self._encoded, option=orjson.OPT_SORT_KEYS)
                              ).hexdigest()

    def _encoded(self, value: Any) -> Any:
        """How a model's parts go into its digest: a record as its seal's digest, a model as its values."""
        kind = type(value)
        if kind is Leaf:
            return value.digest
        if kind is Card or kind is LedgerRow:
            key = id(value)
            found = self._parts.get(key)
            if found is None:
                found = self._parts[key] = hashlib.sha256(orjson.dumps(
                    list(value), default=self._encoded, option=orjson.OPT_SORT_KEYS)).hexdigest()
            return found
        if isinstance(value, tuple):
            return list(value)
        raise TypeError(f"{kind.__name__} is no part of a page model")
