"""One digest per entity (and per ledger page) of everything its pages are made from, so a
regeneration renders again only the pages that could differ: rendering is most of what a site
costs, and one new fact changes two entities' pages and the ledger's last page. A ledger page
shows its rows, each digested as an entity page's provenance rows are.

An entity's pages show its own record, its facts (each as a card, on its timeline and in its
history), the names and pages of what those facts and their supersessions and contradictions
point at, and the ledger rows that name it. The digest covers each of those as the snapshot
holds it (its canonical JSON text, the line snapshot.json gives it) together with what the page
resolves it to (names, page names, colours; as `repr`, as exact as JSON and quicker: 2.5 -> 2.1 s
for 10,000 entities), and the code that renders it: a memlens with other templates or page code
renders everything again. Whatever is not in the digest cannot be on an entity page;
tests/test_site_incremental.py holds a regeneration against a fresh build after each kind of write.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import resources
from typing import Any, Callable, Iterable, Sequence

from memlens.store.canonical import canonical_json, canonical_text
from memlens.store.snapshot import memlens_version

from ..model.evidence import evidence_changed
from ..model.printed_commands import dataset_flag
from ..model.snapshot_index import SnapshotIndex
from .entity_plan import EntityPlan

InHalves = Callable[[Sequence[Any], Callable[[Sequence[Any]], list[Any]], str], list[Any]]


@lru_cache(maxsize=1)
def renderer_digest() -> bytes:
    """The code and templates that draw a site's pages, and the memlens version."""
    digest = hashlib.sha256(memlens_version().encode())
    for package in ("memlens.viewer.site", "memlens.viewer.model", "memlens.templates"):
        for source in sorted(resources.files(package).iterdir(), key=lambda s: s.name):
            if source.name.endswith((".py", ".html")):
                digest.update(f"{package}/{source.name}\0".encode() + source.read_bytes())
    return digest.digest()


class RecordTexts:
    """Each record's canonical JSON text: its line of snapshot.json, and what its digest hashes.
    Each is made when first asked for, so that in a site build the processes digesting the records
    make them in parallel, and the one writing snapshot.json only the rest (100,000 entities: the
    build's serial start 8.6 -> 7.7 s)."""

    def __init__(self, snapshot: dict[str, Any], lists: Iterable[str]) -> None:
        self.snapshot = snapshot
        self._made: dict[str, list[str | None]] = {key: [None] * len(snapshot.get(key, [])) for key in lists}

    def __contains__(self, key: str) -> bool:
        return key in self._made

    def text(self, key: str, index: int) -> str:
        made = self._made[key]
        found = made[index]
        if found is None:
            found = made[index] = canonical_text(self.snapshot[key][index])
        return found

    def all(self, key: str) -> list[str]:
        made, records = self._made[key], self.snapshot[key]
        for index, found in enumerate(made):
            if found is None:
                made[index] = canonical_text(records[index])
        return made  # type: ignore[return-value]   # every one made now


class PageInputs:
    """Digests of the entities' inputs; built once per site from the snapshot's JSON texts."""

    def __init__(self, snapshot: dict[str, Any], index: SnapshotIndex, texts: RecordTexts,
                 entity_pages: dict[str, str], fact_pages: dict[str, str], fact_order: dict[str, int]) -> None:
        self.index = index
        self.texts = texts
        self.pages = entity_pages
        self.fact_pages = fact_pages
        self.fact_order = fact_order
        self.entity_order = {e["id"]: i for i, e in enumerate(snapshot["entities"])}
        self.contradictions = {c["id"]: c for c in snapshot.get("contradictions", [])}
        self.ledger = snapshot.get("ledger", [])
        # the dataset's name, the flag its maintenance commands carry (printed_commands.dataset_flag)
        # and the facts whose cards are marked for evidence changed since (evidence.evidence_changed)
        self.base = renderer_digest() + canonical_json([str(snapshot.get("dataset") or ""),
                                                        list(dataset_flag(snapshot)),
                                                        sorted(evidence_changed(snapshot))])
        self._facts: dict[str, bytes] = {}
        self._rows: dict[int, bytes] = {}
        # each entity and fact a page links to, resolved once (a fact's ends and a ledger row's
        # targets name the same few again and again): 0.83 -> 0.74 s of digests at 10,000 entities
        self._entity_refs: dict[Any, str] = {}
        self._fact_refs: dict[Any, str] = {}

    def base_digest(self) -> str:
        """What every digest starts from (the renderer and the dataset's name), for the manifest: a
        regeneration follows the writes since the previous site only if it was made the same way."""
        return hashlib.sha256(self.base).hexdigest()[:32]

    def digest_records(self, in_halves: InHalves) -> None:
        """Digest every fact and ledger row now, the work shared as `in_halves` shares it (see
        SiteFolder.in_halves), so that the entities' digests only gather them."""
        facts, rows = self.index.snapshot["facts"], len(self.ledger)

        def digests(part: Sequence[int]) -> list[bytes]:
            return [self.fact(facts[n]) if n < len(facts) else self.ledger_row(n - len(facts)) for n in part]

        found = in_halves(range(len(facts) + rows), digests, "digesting the records")
        self._facts.update((fact["id"], digest) for fact, digest in zip(facts, found))
        self._rows.update(enumerate(found[len(facts):]))

    def entity_ref(self, entity_id: Any) -> str:
        """What a page shows of an entity it links to: its name, page and colour (as `repr`)."""
        try:
            return self._entity_refs[entity_id]
        except KeyError:
            pass
        except TypeError:   # not an id at all (a damaged snapshot): shown as it is
            return repr(entity_id)
        entity = self.index.entities.get(entity_id) if isinstance(entity_id, str) else None
        ref = repr((entity_id, self.index.name(entity_id), self.pages.get(entity_id),
                    self.index.type_look(entity.get("type") if entity else None).color))
        self._entity_refs[entity_id] = ref
        return ref

    def fact_ref(self, fact_id: Any) -> str:
        """What a page shows of a fact it links to: its text and the page of its card."""
        try:
            return self._fact_refs[fact_id]
        except KeyError:
            pass
        except TypeError:
            return repr(fact_id)
        fact = self.index.facts.get(fact_id) if isinstance(fact_id, str) else None
        ref = repr((fact_id,) if fact is None else (
            fact_id, self.index.fact_text(fact), fact.get("relation") is None, self.fact_pages.get(fact_id),
            fact.get("subject"), fact.get("object")))
        self._fact_refs[fact_id] = ref
        return ref

    def fact(self, fact: dict[str, Any]) -> bytes:
        fid = fact["id"]
        try:
            return self._facts[fid]
        except KeyError:
            pass
        parts = [repr(self.fact_pages.get(fid)), self.entity_ref(fact.get("subject")), self.entity_ref(fact.get("object"))]
        # most facts have no supersession, contradiction or reassertion: each part only when there is one
        referenced = {fact.get("superseded_by"), *(v.get("superseded_by") for v in fact.get("history") or ())}
        contradictions = sorted({str(c) for c in fact.get("contradictions") or ()}
                                | {c["id"] for c in self.index.contradictions_of.get(fid, ())})
        if contradictions:
            for cid in contradictions:
                referenced.update(self.contradictions.get(cid, {}).get("facts", ()))
            parts.append("c" + repr([self.contradictions.get(c) for c in contradictions]))
        parts.extend(self.fact_ref(r) for r in sorted(r for r in referenced if isinstance(r, str)))
        reassertions = self.index.reassertions_of.get(fid)
        if reassertions:
            parts.append("r" + repr(reassertions))
        resolved = "\x1f".join(parts)
        digest = hashlib.sha256((self.texts.text("facts", self.fact_order[fid]) + resolved).encode()).digest()
        self._facts[fid] = digest
        return digest

    def ledger_row(self, index: int) -> bytes:
        try:
            return self._rows[index]
        except KeyError:
            pass
        resolved = "\x1f".join(self._ledger_ref(str(r)) for r in self.ledger[index].get("refs") or ())
        digest = hashlib.sha256((self.texts.text("ledger", index) + resolved).encode()).digest()
        self._rows[index] = digest
        return digest

    def _ledger_ref(self, ref: str) -> str:
        """What a provenance row shows of what it names: an entity, a fact, or a contradiction's facts."""
        if ref in self.index.entities:
            return self.entity_ref(ref)
        if ref in self.index.facts:
            return self.fact_ref(ref)
        return repr(ref) + "".join(self.fact_ref(f) for f in self.contradictions.get(ref, {}).get("facts", ()))

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
        digest.update((self.texts.text("entities", self.entity_order[entity["id"]]) + self.entity_ref(entity.get("merged_into")) + repr((
            [(g.direction, g.relation, g.preview, g.pages, g.names) for g in plan.groups], plan.page))).encode())
        for group in plan.groups:
            for fact in group.facts:
                digest.update(self.fact(fact))
        for index in ledger_rows:
            digest.update(self.ledger_row(index))
        return digest.hexdigest()[:32]
