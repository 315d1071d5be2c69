"""HTML for the items a site repeats on many pages: fact cards, fact versions, ledger rows.

A site of 10,000 entities shows 30,000 facts twice (on the subject's and the object's page) and
40,000 ledger rows on the ledger pages and again on each entity page they name. Each item is
rendered once per folder its links are relative to, and reused; in Python rather than a template
macro, because a macro call costs more than the whole card. The rule that keeps this safe: every
value from the snapshot passes through `escaped()` (markupsafe's escape); hrefs are built from our own
file names and ids (escaped too) or, for evidence, admitted by `is_web_link` (http(s) only).
"""

from __future__ import annotations

from typing import Any

from memlens.store.reads import is_archived

from ..model.escaping import escape_text
from ..model.evidence import is_web_link
from ..model.fact_status import merged_from, shown_status
from ..model.ledger_targets import NAMED_IN_PAYLOAD, row_targets
from ..model.links import deep_link
from ..model.time_axis import short_record_time
from .models import Card, FactRef, LedgerRow, OpenContradiction, Ref, Target, fact_label

STATUS_ORDER = {"current": 0, "superseded": 1, "retracted": 2, "forgotten": 3}
VersionRow = tuple[str, int, str]   # (from when, which version of its fact, <tr>)


escaped = escape_text   # every value from the snapshot, in element content and quoted attribute values


def validity(valid_from: str | None, valid_to: str | None, unknown: str = "validity not stated") -> str:
    if valid_from and valid_to:
        return f"valid {valid_from} \u2192 {valid_to}"
    if valid_from:
        return f"valid since {valid_from}"
    if valid_to:
        return f"valid until {valid_to}"
    return unknown


# a fact's status as one mark (static/fact_text.js STATUS_MARKS)
STATUS_MARKS = {"current": "\u25cf", "superseded": "\u25cb", "retracted": "\u00d7", "candidate": "?"}


def observation_source(fact: dict[str, Any]) -> str:
    """What an observation's card would repeat, in words: its evidence (each import of a file cites
    the file's digest then), validity, who wrote it and when (static/detail_panel.js observationSource)."""
    evidence = fact.get("evidence") or []
    return " \u00b7 ".join((", ".join(map(str, evidence)) if evidence else "no evidence recorded",
                            validity(fact.get("valid_from"), fact.get("valid_to")), f"by {fact.get('actor') or 'unknown'}",
                            f"recorded {short_record_time(fact.get('recorded_at'))}"))


class SiteItems:
    """Renders and remembers the repeated items of a site (from their models, site/models.py), for
    pages in one folder.

    `entities` is the way from those pages to the entity pages ('' from entities/ itself,
    'entities/' from the top, '../entities/' from ledger/); `root` the way to the top.
    """

    def __init__(self, *, entities: str, root: str, anchors: bool, contested_boxes: bool = True) -> None:
        self.entities = entities
        self.root = root
        self.anchors = anchors      # cards carry id="fact-<id>" (on entity pages, where links land)
        self.contested_boxes = contested_boxes  # off where the page states the contradiction itself
        self._text: dict[str, str] = {}
        self._cards: dict[str, str] = {}
        self._versions: dict[str, list[VersionRow]] = {}
        self._ledger: dict[str, str] = {}

    def escaped_once(self, value: Any) -> str:
        """`escaped()`, remembered: names, actors, relations and times recur on thousands of pages."""
        key = value if type(value) is str else str("" if value is None else value)
        try:
            return self._text[key]
        except KeyError:
            text = self._text[key] = escaped(key)
            return text

    # -- links --------------------------------------------------------------------------------
    def fact_href(self, fact_id: str, page: str | None) -> str | None:
        return f"{self.entities}{page}#fact-{fact_id}" if page else None

    def graph_href(self, kind: str, ident: str) -> str:
        return f"{self.root}index.html{deep_link(kind, ident)}"

    # -- references ---------------------------------------------------------------------------
    def entity_ref(self, ref: Ref) -> str:
        if ref.page is None:
            return '<span class="muted">(forgotten entity)</span>'
        return f'<a href="{escaped(self.entities + ref.page)}">{self.escaped_once(ref.name)}</a>'

    def fact_ref(self, ref: FactRef) -> str:
        href = self.fact_href(ref.id, ref.page)
        label = escaped(ref.label)
        return f'<span class="ref-missing">{label}</span>' if href is None else f'<a href="{escaped(href)}">{label}</a>'

    def any_ref(self, target: Target) -> str:
        """A ledger or maintenance reference: entity, fact, contradiction, or an id that is gone."""
        if target.kind == "entity":
            return self.entity_ref(Ref(target.id, target.label, target.page, ""))
        if target.kind == "fact":
            return self.fact_ref(FactRef(target.id, target.label, target.page))
        if target.kind == "contradiction":
            label = f"contradiction {escaped(target.id[:8])}"
            href = self.fact_href(str(target.fact), target.page)
            return f'<span class="ref-missing">{label}</span>' if href is None else f'<a href="{escaped(href)}">{label}</a>'
        return f'<code class="ref-missing" title="{escaped(target.id)}">{escaped(target.id[:8])} (gone)</code>'

    # -- fact cards ---------------------------------------------------------------------------
    def fact_card(self, card: Card) -> str:
        fact = card.fact.record
        try:
            return self._cards[fact["id"]]
        except KeyError:
            html = self._tombstone(fact) if fact.get("relation") is None or fact.get("status") == "forgotten" \
                else self._card(card)
            self._cards[fact["id"]] = html
            return html

    def _anchor(self, fact_id: str) -> str:
        return f' id="fact-{escaped(fact_id)}"' if self.anchors else ""

    def _card(self, card: Card) -> str:
        once = self.escaped_once
        fact = card.fact.record
        fid, status = fact["id"], shown_status(fact)
        contested = bool(fact.get("contested"))
        archived = is_archived(status, fact.get("reason"))   # as the report's card marks it (detail_panel.js)
        parts = [f'<article class="fact fact-{"archived" if archived else once(status)}{" is-contested" if contested else ""}"'
                 f'{self._anchor(fid)}>'
                 f'<p class="fact-line">{self.entity_ref(card.subject)} <span class="fact-relation">'
                 f'{once(fact.get("relation"))}</span> {self.entity_ref(card.object)}</p>'
                 f'<p class="fact-badges"><span class="status status-{once(status)}">{once(status)}</span>']
        if archived:
            parts.append('<span class="status status-archived" title="kept, but left out of its tool\'s own reads">'
                         'archived</span>')
        if contested:
            parts.append('<strong class="tag tag-contested">contested</strong>')
        if card.evidence_changed:   # as the report's card marks it (detail_panel.js)
            parts.append('<strong class="tag tag-stale" title="the file it cites is gone, or git says the cited lines '
                         'changed after it was recorded">evidence changed since recorded</strong>')
        if fact.get("functional"):
            parts.append('<span class="status">functional</span>')
        if fact.get("reassertions"):
            parts.append(f'<span class="status">reasserted \u00d7{int(fact["reassertions"])}</span>')
        # the short id doubles as the fact's deep link into the graph
        parts.append(f'<a class="fact-id" href="{escaped(self.graph_href("fact", fid))}">{escaped(fid[:8])}</a></p>')
        if fact.get("description"):
            parts.append(f'<p class="fact-description">{escaped(fact["description"])}</p>')
        if status == "current" and fact.get("reason"):
            parts.append(f'<p class="fact-state-reason">{escaped(fact["reason"])}</p>')
        if contested and self.contested_boxes:
            parts.extend(self._contested_box(c) for c in card.open_contradictions)
        if card.withheld is not None:   # as the report's card says it (detail_panel.js withheldNote)
            parts.append(f'<p class="fact-withheld"><span class="status status-withheld">withheld from briefs</span> '
                         f'{escaped(card.withheld)}</p>')
        if status in ("superseded", "retracted"):
            parts.append(self._retired_box(fact, status, card.superseded_by))
        parts.append(self._evidence(fact.get("evidence") or []))
        retired = fact.get("retired_at") if status in ("superseded", "retracted") else None
        parts.append(f'<p class="fact-meta"><span>{once(validity(fact.get("valid_from"), fact.get("valid_to")))}</span>'
                     f'<span>by {once(fact.get("actor") or "unknown")}</span>'
                     f'<span>recorded {once(short_record_time(fact.get("recorded_at")))}</span>'
                     + (f'<span>retired {once(short_record_time(retired))}</span>' if retired else "")
                     + (f'<span class="fact-origin">{once(merged_from(origin))}</span>' if (origin := fact.get("origin")) else "")
                     + '</p></article>')
        return "".join(parts)

    # -- observations -------------------------------------------------------------------------
    def observations(self, cards: tuple[Card, ...], start: int, end: int) -> str:
        """An entity's observations `start` to `end` (of all, in their source's order): each source said
        once (what every card would repeat), then each observation's text, numbered among those its
        source still holds; one it no longer holds keeps its place, marked, without a number. The
        report's panel lists them the same way (static/detail_panel.js observationList)."""
        sources: dict[str, int] = {}
        numbered: list[tuple[Card, int | None, int]] = []
        held = 0
        for card in cards:
            fact = card.fact.record
            words = observation_source(fact)
            source = sources.setdefault(words, len(sources) + 1)
            retired = shown_status(fact) in ("superseded", "retracted")
            held += not retired
            numbered.append((card, None if retired else held, source))
        several = len(sources) > 1
        lines = "".join(f'<p class="observation-source fact-meta">'
                        + (f'<span class="source-number">source {number}</span>' if several else "")
                        + f'{escaped(words)}</p>' for words, number in sources.items())
        items = "".join(self._observation(card, number, source if several else None)
                        for card, number, source in numbered[start:end])
        return f'<div class="observation-sources">{lines}</div><ol class="observation-list">{items}</ol>'

    def _observation(self, card: Card, number: int | None, source: int | None) -> str:
        fact = card.fact.record
        fid, status = fact["id"], shown_status(fact)
        parts = [f'<li class="observation-item"{self._anchor(fid)}>']
        if number is None:   # no longer held: its status as its mark, and no number
            parts.append('<div class="fact-row observation-row is-retired"><span class="observation-number" aria-hidden="true">'
                         f'</span><span class="observation-text">{escaped(card.object.name)}</span>{self._mark(status)}')
        else:
            parts.append(f'<div class="fact-row observation-row"><span class="observation-number">{number}.</span>'
                         f'<span class="observation-text">{escaped(card.object.name)}</span>')
        if fact.get("contested"):
            parts.append(self._mark("contested", "\u26a0"))
        if source is not None:
            parts.append(f'<span class="source-number" title="source {source}">{source}</span>')
        parts.append(f'<a class="fact-id" href="{escaped(self.graph_href("fact", fid))}">{escaped(fid[:8])}</a></div></li>')
        return "".join(parts)

    def _mark(self, status: str, glyph: str | None = None) -> str:
        """A status as one mark, named for a screen reader and a tooltip (static/fact_text.js statusMark)."""
        named = self.escaped_once(status)
        glyph = glyph or STATUS_MARKS.get(status, STATUS_MARKS["current"])
        return (f'<span class="mark mark-{named}" title="{named}"><span aria-hidden="true">{glyph}</span>'
                f'<span class="visually-hidden">{named}</span></span>')

    def _contested_box(self, case: OpenContradiction) -> str:
        contradiction = case.record.record
        confidence = contradiction.get("confidence")
        shown = f"{confidence:.2f}" if isinstance(confidence, (int, float)) else "?"
        other = (f'<p class="contested-other">conflicts with {", ".join(self.fact_ref(f) for f in case.others)}</p>'
                 if case.others else "")
        return (f'<div class="contested-box"><p><span class="contested-label">why</span>'
                f'<span class="contested-reason">{escaped(contradiction.get("reason") or "(no reason given)")}</span></p>'
                f'<p class="fact-meta">confidence {escaped(shown)} \u00b7 raised by {self.escaped_once(contradiction.get("actor") or "?")} \u00b7 '
                f'{self.escaped_once(short_record_time(contradiction.get("recorded_at")))}</p>{other}</div>')

    def _retired_box(self, fact: dict[str, Any], status: str, by: FactRef | None) -> str:
        line = status + (" by " + self.fact_ref(by) if by else "")
        reason = f'<p class="retired-reason">reason: {escaped(fact["reason"])}</p>' if fact.get("reason") else ""
        return f'<div class="retired-box"><p>{line}</p>{reason}</div>'

    def _evidence(self, evidence: list[Any]) -> str:
        if not evidence:
            return '<p class="fact-evidence none">no evidence recorded</p>'
        items = []
        for item in evidence:
            text = str(item)
            if is_web_link(text):
                items.append(f'<li><a href="{escaped(text)}" target="_blank" rel="noopener noreferrer">{escaped(text)}</a></li>')
            else:
                items.append(f'<li class="evidence-text">{escaped(text)}</li>')
        return '<ul class="fact-evidence">' + "".join(items) + "</ul>"

    def _tombstone(self, fact: dict[str, Any]) -> str:
        fid = fact["id"]
        return (f'<article class="fact fact-forgotten"{self._anchor(fid)}><p class="fact-badges">'
                f'<span class="status status-forgotten">forgotten</span><code class="fact-id">{escaped(fid[:8])}</code></p>'
                '<p class="fact-description muted">The text of this fact was erased.</p>'
                f'<p class="fact-meta"><span>recorded {self.escaped_once(short_record_time(fact.get("recorded_at")))}</span>'
                f'<span>forgotten {self.escaped_once(short_record_time(fact.get("retired_at")))}</span></p></article>')

    # -- history ------------------------------------------------------------------------------
    def version_rows(self, card: Card) -> list[VersionRow]:
        """Each version of the card's fact as (from when, its number, table row); rows link to its card."""
        fact = card.fact.record
        fid = fact["id"]
        try:
            return self._versions[fid]
        except KeyError:
            pass
        once = self.escaped_once
        label = self.fact_ref(FactRef(fid, fact_label(fact, card.subject.name, card.object.name), card.page))
        by_id = {ref.id: ref for ref in card.versions_by}
        rows = []
        for index, version in enumerate(fact.get("history") or ()):
            status = str(version.get("status") or "")
            note = ""
            if version.get("superseded_by"):
                note = "by " + self.fact_ref(by_id[version["superseded_by"]])
            if version.get("reason"):
                note += (" \u00b7 " if note else "") + escaped(version["reason"])
            when = str(version.get("from") or "")
            valid = "" if status == "forgotten" else once(validity(version.get("valid_from"), version.get("valid_to"), ""))
            rows.append((when, index,
                         f'<tr><td class="time">{once(short_record_time(when))}</td><td>{label}</td>'
                         f'<td class="st-{once(status)}">{once(status)}</td><td class="validity">{valid}</td><td>{note}</td></tr>'))
        self._versions[fid] = rows
        return rows

    # -- ledger -------------------------------------------------------------------------------
    def ledger_row(self, model: LedgerRow) -> str:
        row = model.row.record
        key = model.row.digest
        try:
            return self._ledger[key]
        except KeyError:
            once = self.escaped_once
            action = once(row.get("action") or "")
            if row.get("refs"):
                refs = " ".join(self.any_ref(target) for target in model.targets)
            else:  # about a relation or a type: the name its payload gives
                kind = NAMED_IN_PAYLOAD.get(row.get("action"))
                refs = " ".join(f'<code class="ref-name">{kind} {escaped(name)}</code>'
                                for name in row_targets(row.get("action"), (), row.get("payload")))
            seq = row.get("seq")
            html = (f'<tr><td class="num">{seq if type(seq) is int else escaped(seq)}</td>'
                    f'<td class="time">{once(short_record_time(row.get("at")))}</td>'
                    f'<td class="actor">{once(row.get("actor"))}</td><td class="act-{action}">{action}</td>'
                    f'<td class="refs">{refs}</td></tr>')
            self._ledger[key] = html
            return html
