"""An entity's pages in a site: its own page (header, each group of facts with its count and first
cards, timeline, the first rows of its history and provenance) and the pages of their own that
entity_plan.py gave what does not fit there.

Assembled here rather than in a template: 10,000 of them, and a template render call alone cost
more than the rest of a small page. The frame around it (head, header, footer) is a template,
rendered once per folder (site_pages.SitePages.page). Every value from the snapshot passes through
`escaped()`; file names come from entity_plan.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ..model.time_axis import short_record_time
from ..model.timeline import TimelineBuilder, facts_timeline
from ..model.timeline_svg import MemoEscape, timeline_svg
from .entity_plan import FORGOTTEN, OBSERVATIONS, PAGE_CARDS, TABLE_PAGE, TABLE_PREVIEW, table_pages
from .items import SiteItems, escaped
from .models import Card, EntityPage, Group

PAGER_SPREAD = 3               # page links either side of the current one
HISTORY_HEADINGS = ("from (UTC)", "fact", "status", "validity", "why")
LEDGER_HEADINGS = ("#", "time (UTC)", "actor", "action", "target")
TIMELINE_LEDE = ('<p class="panel-lede">Bars span valid time (when a value was true); a fact that states none has '
                 'no bar. Markers below each row show record time (when the store learned or changed its mind).</p>\n')


def plural(count: int, one: str, many: str) -> str:
    return f"{count:,} {one if count == 1 else many}"


def page_numbers(number: int, count: int, spread: int = PAGER_SPREAD) -> list[int | None]:
    """The page numbers a pager links to around `number` (1-based), None where some are left out."""
    shown = sorted({1, count} | set(range(max(1, number - spread), min(count, number + spread) + 1)))
    out: list[int | None] = []
    for previous, page in zip([0] + shown, shown):
        if page - previous > 1:
            out.append(None)
        out.append(page)
    return out


def pager(names: list[str], number: int, label: str) -> str:
    """Previous, some numbered pages and next, for page `number` (1-based) of `names`."""
    links = []
    previous = f'<a href="{escaped(names[number - 2])}" rel="prev">&larr; previous</a>' if number > 1 else \
        '<span class="muted">&larr; previous</span>'
    for page in page_numbers(number, len(names)):
        if page is None:
            links.append('<span class="muted">\u2026</span>')
        elif page == number:
            links.append(f'<a href="{escaped(names[page - 1])}" aria-current="page">{page}</a>')
        else:
            links.append(f'<a href="{escaped(names[page - 1])}">{page}</a>')
    following = f'<a href="{escaped(names[number])}" rel="next">next &rarr;</a>' if number < len(names) else \
        '<span class="muted">next &rarr;</span>'
    return f'<nav class="pager" aria-label="{escaped(label)}">{previous}{"".join(links)}{following}</nav>\n'


def all_pages(names: list[str]) -> str:
    return " ".join(f'<a href="{escaped(name)}">{n}</a>' for n, name in enumerate(names, start=1))


def _section(anchor: str, heading: str, note: str, body: str) -> str:
    return (f'<section class="entity-section" id="{anchor}" aria-labelledby="{anchor}-heading">\n'
            f'<h2 id="{anchor}-heading">{heading} <span class="muted">{note}</span></h2>\n{body}</section>\n')


def _table(kind: str, headings: tuple[str, ...], rows: str) -> str:
    head = "".join(f'<th scope="col">{name}</th>' for name in headings)
    return f'<div class="table-wrap"><table class="{kind}"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>\n'


def group_title(group: Group) -> str:
    if group.direction == FORGOTTEN:
        return "Forgotten"
    if group.direction == OBSERVATIONS:
        return "Observations"
    if group.direction == "out":
        return f'<span class="fact-relation">{escaped(group.relation)}</span> <span aria-hidden="true">\u2192</span>'
    return f'<span aria-hidden="true">\u2190</span> <span class="fact-relation">{escaped(group.relation)}</span>'


def group_label(group: Group) -> str:
    """The group in words, for a page title and for screen readers."""
    if group.direction in (FORGOTTEN, OBSERVATIONS):
        return group.direction
    return f"{'outgoing' if group.direction == 'out' else 'incoming'} {group.relation}"


@dataclass(frozen=True)
class EntityHead:
    """What every page of an entity starts with: its crumbs, and enough to name it."""

    entity: dict[str, Any]
    type_class: str         # the swatch's class in assets/types.css

    @property
    def name(self) -> str:
        return str(self.entity.get("name") or "")

    def crumbs(self, page: str | None = None) -> str:
        kind = escaped(self.entity.get("type"))
        tail = f' <span aria-hidden="true">/</span> <a href="{escaped(page)}">{escaped(self.name)}</a>' if page else ""
        return (f'<nav class="crumbs" aria-label="Breadcrumb"><a href="index.html">Entities</a> '
                f'<span aria-hidden="true">/</span> <span>{kind}</span>{tail}</nav>\n')


Observations = Callable[[tuple[Card, ...], int, int], str]   # SiteItems.observations


def entity_main(head: EntityHead, model: EntityPage, *, card: Callable[[Card], str], observations: Observations,
                graph_href: str,
                timeline_html: str, timeline_anchor: str, hidden_rows: int,
                history: list[str], history_pages: list[str], provenance: list[str],
                provenance_pages: list[str]) -> str:
    """The content of an entity's own page: header, observations, facts by group, timeline, history, provenance.

    `history` (oldest first) and `provenance` (newest first) are every row, as markup; when they
    have pages of their own (`*_pages`, see entity_plan.table_pages) this page shows TABLE_PREVIEW
    rows of each and links to those pages.
    """
    entity = head.entity
    eid = str(entity["id"])
    counts = {"current": 0, "retired": 0, FORGOTTEN: 0}
    observed = next((group for group in model.groups if group.direction == OBSERVATIONS), None)
    fact_groups = [group for group in model.groups if group is not observed]
    for group in fact_groups:
        for shown in group.cards:
            status = shown.fact.record.get("status")
            counts["current" if status == "current" else FORGOTTEN if group.direction == FORGOTTEN else "retired"] += 1
    total = sum(counts.values())
    summary = f"{plural(total, 'fact', 'facts')}: {counts['current']:,} current"
    if counts["retired"]:
        summary += f", {counts['retired']:,} superseded or retracted"
    if counts[FORGOTTEN]:
        summary += f", {counts[FORGOTTEN]:,} forgotten"
    if observed is not None:
        summary += f"; {plural(len(observed.cards), 'observation', 'observations')}"
    kind = escaped(entity.get("type"))
    out = [head.crumbs(), f'<header class="entity-head">\n<h1>{escaped(head.name)}</h1>\n<p class="detail-type">'
           f'<span class="swatch-dot {head.type_class}" aria-hidden="true"></span> {kind} '
           f'<code title="{escaped(eid)}">{escaped(eid[:8])}</code></p>\n']
    if entity.get("description"):
        out.append(f'<p class="detail-description">{escaped(entity["description"])}</p>\n')
    merged_into = model.merged_into
    if merged_into is not None:
        out.append(f'<p class="merged-note">Merged into <a class="ref" href="{escaped(merged_into.page)}">{escaped(merged_into.name)}</a>'
                   f' at {escaped(short_record_time(entity.get("merged_at")))}; its facts now belong there.</p>\n')
    out.append(f'<p class="fact-meta"><span>created {escaped(short_record_time(entity.get("created_at")))}</span>'
               f'<span>updated {escaped(short_record_time(entity.get("updated_at")))}</span><span>{summary}</span></p>\n'
               f'<p class="entity-actions"><a class="button-quiet" href="{escaped(graph_href)}">Show in the graph</a> '
               '<a class="button-quiet" href="#timeline">Timeline</a> <a class="button-quiet" href="#history">History</a> '
               '<a class="button-quiet" href="#provenance">Provenance</a></p>\n</header>\n')
    if observed is not None:
        out.append(_section("observations", "Observations", f"{len(observed.cards):,}",
                            observations(observed.cards, 0, observed.preview) + _more_pages(observed)))
    facts = []
    for group in fact_groups:
        count = len(group.cards)
        facts.append(f'<h3 id="{escaped(_anchor(group))}" aria-label="{escaped(plural(count, group_label(group) + " fact", group_label(group) + " facts"))}">'
                     f'{group_title(group)} <span class="muted">{count:,}</span></h3>\n'
                     f'<div class="fact-list">{"".join(card(c) for c in group.cards[:group.preview])}</div>\n'
                     + _more_pages(group))
    out.append(_section("facts", "Facts", f"{counts['current']:,} current",
                        "".join(facts) or '<p class="empty">No facts.</p>\n'))
    if timeline_html:
        more = (f'<p class="tl-more">{hidden_rows:,} older facts are not drawn here; they are listed above.</p>'
                if hidden_rows else "")
        drawn = f'{TIMELINE_LEDE}<figure class="timeline" id="{escaped(timeline_anchor)}">{timeline_html}{more}</figure>\n'
    else:
        drawn = '<p class="empty">No facts to draw.</p>\n'
    out.append(_section("timeline", "Timeline", "", drawn))
    out.append(_table_section("history", "History", "version", "versions", "oldest first", HISTORY_HEADINGS,
                              history, history[-TABLE_PREVIEW:], history_pages, "No versions recorded."))
    out.append(_table_section("provenance", "Provenance", "ledger row", "ledger rows", "newest first", LEDGER_HEADINGS,
                              provenance, provenance[:TABLE_PREVIEW], provenance_pages, "No ledger rows name it."))
    return "".join(out)


def _more_pages(group: Group) -> str:
    if not group.names:
        return ""
    return (f'<p class="group-pages">{group.preview:,} of {len(group.cards):,} shown; all of them, '
            f'{PAGE_CARDS} a page: {all_pages(group.names)}</p>\n')


def _anchor(group: Group) -> str:
    return "observations" if group.direction == OBSERVATIONS else "facts-" + group.key


def _table_section(anchor: str, heading: str, one: str, many: str, order: str, headings: tuple[str, ...],
                   rows: list[str], shown: list[str], pages: list[str], empty: str) -> str:
    if not rows:
        return _section(anchor, heading, f"0 {many}", f'<p class="empty">{empty}</p>\n')
    note = f"{plural(len(rows), one, many)}, {order}"
    if not pages:
        return _section(anchor, heading, note, _table(anchor, headings, "".join(rows)))
    which = "latest" if anchor == "history" else "newest"
    more = (f'<p class="group-pages">The {which} {len(shown):,} are shown; all {len(rows):,}, {order}, '
            f'{TABLE_PAGE} a page: {all_pages(pages)}</p>\n')
    return _section(anchor, heading, note, more + _table(anchor, headings, "".join(shown)))


def group_page(head: EntityHead, page: str, group: Group, number: int, card: Callable[[Card], str],
               observations: Observations) -> str:
    """Page `number` (1-based) of a group of facts that does not fit on the entity's page `page`."""
    start, end = group.pages[number - 1]
    listed = (observations(group.cards, start, end) if group.direction == OBSERVATIONS
              else f'<div class="fact-list">{"".join(card(c) for c in group.cards[start:end])}</div>\n')
    count = len(group.cards)
    nav = pager(group.names, number, f"Pages of {head.name}'s {group_label(group)} facts")
    return (head.crumbs(page) +
            f'<header class="entity-head">\n<h1>{escaped(head.name)} <span class="muted">{group_title(group)}</span></h1>\n'
            f'<p class="panel-lede">Facts {start + 1:,} to {end:,} of {count:,} ({escaped(group_label(group))}), '
            f'page {number:,} of {len(group.names):,}. <a href="{escaped(page)}#{escaped(_anchor(group))}">Back to '
            f'{escaped(head.name)}</a></p>\n</header>\n{nav}{listed}{nav}')


def table_page(head: EntityHead, page: str, anchor: str, heading: str, order: str,
               rows: list[str], names: list[str], number: int) -> str:
    """Page `number` (1-based) of an entity's history or provenance."""
    start = (number - 1) * TABLE_PAGE
    shown = rows[start:start + TABLE_PAGE]
    nav = pager(names, number, f"Pages of {head.name}'s {anchor}")
    headings = HISTORY_HEADINGS if anchor == "history" else LEDGER_HEADINGS
    return (head.crumbs(page) +
            f'<header class="entity-head">\n<h1>{escaped(head.name)} <span class="muted">{heading}</span></h1>\n'
            f'<p class="panel-lede">Rows {start + 1:,} to {start + len(shown):,} of {len(rows):,}, {order}, '
            f'page {number:,} of {len(names):,}. <a href="{escaped(page)}#{anchor}">Back to {escaped(head.name)}</a></p>\n'
            f'</header>\n{nav}{_table(anchor, headings, "".join(shown))}{nav}')


class CardTimelines(TimelineBuilder):
    """Timelines drawn from an entity page's model alone: each fact's other events and its object's
    colour come with its card."""

    def __init__(self, cards: dict[str, Card]) -> None:
        super().__init__(None)
        self.cards = cards

    def context(self, fact: dict[str, Any]) -> tuple[Iterable[tuple[str | None, str, str]], str]:
        card = self.cards[fact["id"]]
        return card.events, card.object.color


def entity_files(model: EntityPage, items: SiteItems, whole: Callable[[str, str], str], graph_href: str,
                 escape: MemoEscape) -> dict[str, str]:
    """Every file of an entity's pages (in entities/), drawn from its model: its own page, and the
    pages of their own that its plan gave what does not fit there. `whole(title, main)` is a whole
    page around `main`."""
    entity = model.entity.record
    name = str(entity.get("name") or "")
    head = EntityHead(entity, model.type_class)
    cards = {c.fact.record["id"]: c for group in model.groups for c in group.cards}
    # oldest first; versions from the same time in the order of their facts in the snapshot
    versions = [(when, rank, number, row) for rank, fid in enumerate(model.fact_order)
                for when, number, row in items.version_rows(cards[fid])]
    versions.sort(key=lambda version: version[:3])
    history = [version[3] for version in versions]
    provenance = [items.ledger_row(row) for row in model.provenance]
    history_pages = table_pages(model.page, "history", len(history))
    provenance_pages = table_pages(model.page, "provenance", len(provenance))
    names = {eid: ref.name for c in cards.values() for eid, ref in ((c.subject.id, c.subject), (c.object.id, c.object))}
    names[entity["id"]] = name
    # a fact a merge carried away is drawn as its copy, not beside it (timeline.entity_timeline)
    drawn = [cards[fid].fact.record for fid in model.fact_order if not (cards[fid].subject.merged or cards[fid].object.merged)]
    timeline = facts_timeline(CardTimelines(cards), entity["id"], drawn, lambda eid: names.get(eid, "(forgotten)"),
                              own_range=True)
    files = {model.page: whole(name, entity_main(
        head, model, card=items.fact_card, observations=items.observations, graph_href=graph_href,
        timeline_html=timeline_svg(timeline, escape) if timeline else "",
        timeline_anchor=timeline.anchor if timeline else "", hidden_rows=timeline.hidden_rows if timeline else 0,
        history=history, history_pages=history_pages, provenance=provenance, provenance_pages=provenance_pages))}
    for group in model.groups:
        for number, page in enumerate(group.names, start=1):
            files[page] = whole(f"{name}, {group_label(group)}, page {number}",
                                group_page(head, model.page, group, number, items.fact_card, items.observations))
    for anchor, heading, order_note, rows, pages in (
            ("history", "History", "oldest first", history, history_pages),
            ("provenance", "Provenance", "newest first", provenance, provenance_pages)):
        for number, page in enumerate(pages, start=1):
            files[page] = whole(f"{name}, {anchor}, page {number}",
                                table_page(head, model.page, anchor, heading, order_note, rows, pages, number))
    return files
