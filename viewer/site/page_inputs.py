"""One digest per entity (and per ledger page) of everything its pages are made from, so a
regeneration renders again only the pages that could differ: rendering is most of what a site
costs, and one new fact changes two entities' pages and the ledger's last page. A ledger page
shows its rows, each digested as an entity page's provenance rows are.

An entity's pages show its own record, its facts (each as a card, on its timeline and in its
history), the names and pages of what those facts and their supersessions and contradictions
point at, and the ledger rows that name it. The digest covers each of those as the snapshot
holds it (its JSON text) together with what the page resolves it to (names, page names, colours;
as `repr`, as exact as JSON and quicker: 2.5 -> 2.1 s for 10,000 entities), and the code that renders it: a memlens with other templates or page code renders everything
again. Whatever is not in the digest cannot be on an entity page; tests/test_site_incremental.py
holds a regeneration against a fresh build after each kind of write.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable

from memlens.store.snapshot import memlens_version

from ..model.snapshot_index import SnapshotIndex
from .entity_plan import EntityPlan

dumps = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode


@lru_cache(maxsize=1)
def renderer_digest() -> bytes:
    """The code and templates that draw a site's pages, and the memlens version."""
    digest = hashlib.sha256(memlens_version().encode())
    for package in ("memlens.viewer.site", "memlens.viewer.model", "memlens.templates"):
        for source in sorted(resources.files(package).iterdir(), key=lambda s: s.name):
            if source.name.endswith((".py", ".html")):
                digest.update(f"{package}/{source.name}\0".encode() + source.read_bytes())
    return digest.digest()


class PageInputs:
    """Digests of the entities' inputs; built once per site from the snapshot's JSON texts."""

    def __init__(self, snapshot: dict[str, Any], index: SnapshotIndex, texts: dict[str, list[str]],
                 entity_pages: dict[str, str], fact_pages: dict[str, str], fact_order: dict[str, int]) -> None:
        self.index = index
        self.texts = texts
        self.pages = entity_pages
        self.fact_pages = fact_pages
        self.fact_order = fact_order
        self.entity_order = {e["id"]: i for i, e in enumerate(snapshot["entities"])}
        self.contradictions = {c["id"]: c for c in snapshot.get("contradictions", [])}
        self.ledger = snapshot.get("ledger", [])
        self.base = renderer_digest() + dumps(str(snapshot.get("dataset") or "")).encode()
        self._facts: dict[str, bytes] = {}
        self._rows: dict[int, bytes] = {}

    def entity_ref(self, entity_id: Any) -> list[Any]:
        entity = self.index.entities.get(entity_id) if isinstance(entity_id, str) else None
        return [entity_id, self.index.name(entity_id), self.pages.get(entity_id),
                self.index.type_look(entity.get("type") if entity else None).color]

    def fact_ref(self, fact_id: Any) -> list[Any]:
        fact = self.index.facts.get(fact_id) if isinstance(fact_id, str) else None
        if fact is None:
            return [fact_id]
        return [fact_id, self.index.fact_text(fact), fact.get("relation") is None, self.fact_pages.get(fact_id),
                fact.get("subject"), fact.get("object")]

    def fact(self, fact: dict[str, Any]) -> bytes:
        fid = fact["id"]
        try:
            return self._facts[fid]
        except KeyError:
            pass
        referenced = {fact.get("superseded_by")} | {v.get("superseded_by") for v in fact.get("history") or ()}
        contradictions = sorted({str(c) for c in fact.get("contradictions") or ()}
                                | {c["id"] for c in self.index.contradictions_of.get(fid, ())})
        for cid in contradictions:
            referenced.update(self.contradictions.get(cid, {}).get("facts", ()))
        digest = hashlib.sha256((self.texts["facts"][self.fact_order[fid]] + repr((
            self.fact_pages.get(fid), self.entity_ref(fact.get("subject")), self.entity_ref(fact.get("object")),
            [self.fact_ref(r) for r in sorted(r for r in referenced if isinstance(r, str))],
            [self.contradictions.get(c) for c in contradictions],
            self.index.reassertions_of.get(fid, []),
        ))).encode()).digest()
        self._facts[fid] = digest
        return digest

    def ledger_row(self, index: int) -> bytes:
        try:
            return self._rows[index]
        except KeyError:
            pass
        refs = [str(r) for r in self.ledger[index].get("refs") or ()]
        resolved = [self.entity_ref(r) if r in self.index.entities else self.fact_ref(r) if r in self.index.facts
                    else [r, [self.fact_ref(f) for f in self.contradictions.get(r, {}).get("facts", ())]] for r in refs]
        digest = hashlib.sha256((self.texts["ledger"][index] + repr(resolved)).encode()).digest()
        self._rows[index] = digest
        return digest

    def ledger_page(self, number: int, pages: int, rows: Iterable[int]) -> str:
        """The digest of ledger page `number` of `pages`, which shows `rows` (its pager links
        the next page only when there is one)."""
        digest = hashlib.sha256(self.base + f"ledger page {number}{'' if number == pages else ' and newer'}".encode())
        for index in rows:
            digest.update(self.ledger_row(index))
        return digest.hexdigest()[:32]

    def entity(self, entity: dict[str, Any], plan: EntityPlan, ledger_rows: list[int]) -> str:
        """The digest of what the pages of `entity` (laid out by `plan`) are made from."""
        digest = hashlib.sha256(self.base)
        digest.update((self.texts["entities"][self.entity_order[entity["id"]]] + repr((
            self.entity_ref(entity.get("merged_into")),
            [(g.direction, g.relation, g.preview, g.pages, g.names) for g in plan.groups], plan.page))).encode())
        for group in plan.groups:
            for fact in group.facts:
                digest.update(self.fact(fact))
        for index in ledger_rows:
            digest.update(self.ledger_row(index))
        return digest.hexdigest()[:32]
