"""The HTML of a site's pages, each drawn from its model (site/models.py) and nothing else, and the
frame every page but the graph page has around its content (`SitePages.page`: the one place it is
written; its head and foot come from _site_top.html and _site_bottom.html, once per folder).

Entity pages are drawn in site/entity_page.py; the items many pages repeat (fact cards, ledger
rows) in site/items.py; the graph page is the report's page in its site form (report/page.py).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from markupsafe import Markup

from ..model.changes import ChangesView, changes_view
from ..model.links import SiteLinks
from ..model.snapshot_index import SnapshotIndex
from ..model.time_axis import short_record_time
from ..report.maintenance_rows import dismissal_cells, task_cell
from ..report.page import NavLink, environment
from .entity_page import all_pages, pager
from .items import SiteItems, escaped
from .models import ContestedPage, EntityListPage, LedgerPage, MaintenanceGroupPage, MaintenancePage, TaskRow
from .site_models import MAINTENANCE_PAGE, MAINTENANCE_PREVIEW, ledger_page_name

SITE_CSP = "; ".join([
    "default-src 'none'",
    "script-src 'self'",       # our files only; no inline script runs (the data blocks are JSON)
    "style-src 'self'",
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
])
# each maintenance table's columns, on maintenance.html and on a group's pages of its own
MAINTENANCE_HEADINGS = {"open": ("what to decide, and the command for each answer", "concerns"),
                        "dismissed": ("candidate", "reason", "by", "when (UTC)")}


@dataclass(frozen=True)
class PageFrame:
    """What every page of the site but index.html has around its content (site_base.html).
    `top` and `bottom` are rendered once per folder and section, not once per page."""

    title: str
    dataset: str
    top: Markup
    bottom: Markup
    csp: str = SITE_CSP


# -- what each template of a site page is given (its page's content; the frame is `SitePages.page`) --

@dataclass(frozen=True)
class EntitiesContext:
    """site_entities.html: one page of the entity list."""

    rows: Markup            # its rows, <tr> each
    count: int              # live entities, in all
    pager: Markup           # the way to the list's other pages ("" when it has one)
    number: int             # this page's number, of `pages`
    pages: int
    first: int              # the rows it shows, counted from 1
    last: int


@dataclass(frozen=True)
class LedgerContext:
    """site_ledger.html: the ledger's index (`number` 0: its newest rows and every page), or a page."""

    number: int
    per_page: int
    pager: Markup
    first_seq: Any
    last_seq: Any
    rows: Markup
    total: int = 0          # the index: every row, counted
    pages: Markup = Markup("")   # the index: a link to each page


@dataclass(frozen=True)
class OpenCase:
    """An open contradiction on contested.html, with its facts' cards."""

    id: str
    reason: str
    confidence: str
    actor: str
    recorded_at: str | None
    cards: Markup


@dataclass(frozen=True)
class ContestedContext:
    """site_contested.html."""

    open: list[OpenCase]
    open_count: int
    more_open: int          # open ones past those shown
    resolved: Markup        # resolved ones' rows
    resolved_count: int
    more_resolved: int


@dataclass(frozen=True)
class GroupView:
    """A kind of worklist row or dismissal on maintenance.html: its first rows, and its own pages."""

    kind: str
    title: str
    count: int
    anchor: str
    shown: int
    pages: list[str]
    rows: Markup


@dataclass(frozen=True)
class MaintenanceContext:
    """site_maintenance.html."""

    worklist: list[GroupView]
    worklist_count: int
    dismissals: list[GroupView]
    dismissals_count: int
    per_page: int
    headings: dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class MaintenanceGroupContext:
    """site_maintenance_group.html: a page of one kind's rows."""

    group: dict[str, Any]   # its kind, title, count and pages
    number: int
    first: int
    last: int
    table: str              # "worklist" or "dismissals"
    headings: tuple[str, ...]
    pager: Markup
    rows: Markup


@dataclass(frozen=True)
class ChangesContext:
    """site_changes.html."""

    changes: ChangesView


def ledger_pager(names: list[str] | tuple[str, ...], number: int) -> str:
    """Newer and older neighbours of ledger page `number` and the way to all of them; no count of
    the pages, which would change every page whenever one is added."""
    newer = f'<a href="{escaped(names[number])}" rel="next">&larr; newer</a>' if number < len(names) else \
        '<span class="muted">&larr; newer</span>'
    older = f'<a href="{escaped(names[number - 2])}" rel="prev">older &rarr;</a>' if number > 1 else \
        '<span class="muted">older &rarr;</span>'
    return (f'<nav class="pager" aria-label="Ledger pages">{newer}<a href="index.html">all pages</a>'
            f'<span aria-current="page">page {number:,}</span>{older}</nav>\n')


class SitePages:
    """Draws the pages of one site: `dataset` names it in every title; `changes`, whether it has a
    changes page (its graph page's navigation links it, and counts what it lists)."""

    def __init__(self, dataset: str, changes: dict[str, Any] | None) -> None:
        self.dataset = dataset
        self.changes = changes
        self.env = environment()
        # one item renderer per folder the links start from: entities/ and ledger/ share the
        # nested one (both one folder down), the top-level pages have theirs
        self.items = SiteItems(entities="../entities/", root="../", anchors=True)
        self.top_items = SiteItems(entities="entities/", root="", anchors=False, contested_boxes=False)
        self._frames: dict[tuple[str, str], tuple[Markup, Markup]] = {}

    # -- frame --------------------------------------------------------------------------------
    def nav(self, root: str, current: str, counts: tuple[int | None, ...] | None = None) -> list[NavLink]:
        """The site's sections. Only the graph page gives their `counts` (entities, ledger rows, open
        contradictions, worklist) and links the changes: the other pages carry nothing that changes
        with every write."""
        shown = counts or (None,) * 4
        links = [NavLink("Graph", root + "index.html", current == "graph"),
                 NavLink("Entities", root + "entities/index.html", current == "entities", shown[0]),
                 NavLink("Ledger", root + "ledger/index.html", current == "ledger", shown[1]),
                 NavLink("Contradictions", root + "contested.html", current == "contested", shown[2]),
                 NavLink("Maintenance", root + "maintenance.html", current == "maintenance", shown[3])]
        if self.changes is not None and (counts is not None or current == "changes"):
            links.append(NavLink("Changes", root + "changes.html", current == "changes",
                                 int(sum((self.changes.get("counts") or {}).values())) if counts is not None else None))
        return links

    def frame(self, root: str, title: str, current: str) -> PageFrame:
        key = (root, current)
        if key not in self._frames:
            context = {"root": root, "dataset": self.dataset,
                       "nav_html": self.env.get_template("_site_nav.html").module.site_nav(self.nav(root, current))}
            self._frames[key] = (Markup(self.render("_site_top.html", **context)),
                                 Markup(self.render("_site_bottom.html", **context)))
        top, bottom = self._frames[key]
        return PageFrame(title=title, dataset=self.dataset, top=top, bottom=bottom)

    def render(self, template: str, **context: Any) -> str:
        return self.env.get_template(template).render(**context)

    def whole(self, template: str, context: Any, root: str, title: str, current: str) -> str:
        """A whole page: its frame around what `template` makes of `context` (one of the *Context
        dataclasses above)."""
        main = self.render(template, **{f.name: getattr(context, f.name) for f in fields(context)})
        return self.page(self.frame(root, title, current), main)

    def page(self, frame: PageFrame, main: str) -> str:
        """A whole site page around `main`: the frame every page but the graph page has."""
        return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
                f'<meta http-equiv="Content-Security-Policy" content="{escaped(frame.csp)}">\n'
                f'<title>{escaped(frame.title)} \u00b7 {escaped(frame.dataset)} \u00b7 memlens</title>\n'
                f'{frame.top}\n{main}\n{frame.bottom}')

    def entity_page(self, title: str, main: str) -> str:
        """A whole page in entities/ around `main`."""
        return self.page(self.frame("../", title, "entities"), main)

    # -- entities/index ------------------------------------------------------------------------
    def entity_list(self, model: EntityListPage) -> str:
        rows = []
        for row in model.rows:
            note = ' <span class="muted">(merged)</span>' if row.merged else ""
            contested = f'<strong class="contested-count">{row.contested:,}</strong>' if row.contested else "0"
            rows.append(f'<tr data-filter="{escaped((row.name + " " + row.type).lower())}">'
                        f'<td><a class="ref" href="{escaped(row.page)}">{escaped(row.name)}</a>{note}</td>'
                        f'<td><span class="swatch-dot {row.type_class}" aria-hidden="true"></span> {escaped(row.type)}</td>'
                        f'<td class="num">{row.facts:,}</td><td class="num">{row.current:,}</td>'
                        f'<td class="num">{contested}</td>'
                        f'<td class="time">{escaped(short_record_time(row.updated_at))}</td></tr>')
        count, number = len(model.names), model.number
        title = "Entities" if number == 1 else f"Entities, page {number}"
        return self.whole("site_entities.html", EntitiesContext(
            rows=Markup("".join(rows)), count=model.live,
            pager=Markup(pager(list(model.names), number, "Pages of the entity list") if count > 1 else ""),
            number=number, pages=count, first=model.first + 1, last=model.first + len(model.rows)),
            "../", title, "entities")

    # -- ledger -----------------------------------------------------------------------------------
    def ledger(self, model: LedgerPage) -> str:
        """ledger/index.html (number 0) or one of its pages."""
        rows = model.rows
        first_seq = rows[-1].row.record.get("seq") if rows else 0
        last_seq = rows[0].row.record.get("seq") if rows else 0
        html = Markup("".join(map(self.items.ledger_row, rows)))
        if model.number == 0:
            return self.whole("site_ledger.html", LedgerContext(
                number=0, per_page=model.per_page, pager=Markup(""), first_seq=first_seq, last_seq=last_seq, rows=html,
                total=model.total, pages=Markup(all_pages(list(model.names)))), "../", "Ledger", "ledger")
        number = model.number
        names = [ledger_page_name(n) for n in range(1, number + (1 if model.newest else 2))]
        return self.whole("site_ledger.html", LedgerContext(
            number=number, per_page=model.per_page, pager=Markup(ledger_pager(names, number)), first_seq=first_seq,
            last_seq=last_seq, rows=html), "../", f"Ledger, page {number}", "ledger")

    # -- contested, maintenance, changes -----------------------------------------------------------
    def contested(self, model: ContestedPage) -> str:
        items = self.top_items
        open_views = []
        for case in model.open:
            c = case.record.record
            confidence = c.get("confidence")
            cards = [items.fact_card(card) if not isinstance(card, str)
                     else f'<p class="ref-missing">fact {escaped(card[:8])} (gone)</p>' for card in case.cards]
            open_views.append(OpenCase(c["id"], c.get("reason") or "(no reason given)",
                                       f"{confidence:.2f}" if isinstance(confidence, (int, float)) else "?",
                                       c.get("actor") or "?", c.get("recorded_at"), Markup("".join(cards))))
        rows = []
        for resolved in model.resolved:
            c = resolved.record.record
            facts = " ".join(map(items.fact_ref, resolved.facts))
            why = escaped(c.get("resolution") or "") + (f' <span class="muted">{escaped(c["resolution_reason"])}</span>'
                                                     if c.get("resolution_reason") else "")
            rows.append(f'<tr><td class="refs">{facts}</td><td>{escaped(c.get("reason"))}</td><td>{why}</td>'
                        f'<td class="time">{escaped(short_record_time(c.get("resolved_at")))}</td></tr>')
        return self.whole("site_contested.html", ContestedContext(
            open=open_views, open_count=model.open_count, more_open=model.open_count - len(open_views),
            resolved=Markup("".join(rows)), resolved_count=model.resolved_count,
            more_resolved=max(0, model.resolved_count - len(model.resolved))), "", "Contradictions", "contested")

    def maintenance_row(self, which: str, row: TaskRow, items: SiteItems) -> str:
        """A worklist task or a dismissal, as the report's Maintenance tab draws it (report/maintenance_rows.py)."""
        if which == "open":
            return f'<tr>{task_cell(row.sentence, row.commands)}<td class="refs">{"".join(map(items.any_ref, row.targets))}</td></tr>'
        record = row.record
        return f'<tr>{dismissal_cells(record.get("key"), record.get("reason"), record.get("actor"), record.get("at"))}</tr>'


    def maintenance(self, model: MaintenancePage) -> str:
        views = {which: [GroupView(g.kind, g.title, g.count, g.anchor, min(g.count, MAINTENANCE_PREVIEW),
                                   ["maintenance/" + name for name in g.names],
                                   Markup("".join(self.maintenance_row(which, row, self.top_items) for row in g.rows)))
                         for g in groups] for which, groups in (("open", model.worklist), ("dismissed", model.dismissals))}
        return self.whole("site_maintenance.html", MaintenanceContext(
            worklist=views["open"], worklist_count=model.worklist_count, dismissals=views["dismissed"],
            dismissals_count=model.dismissals_count, per_page=MAINTENANCE_PAGE, headings=MAINTENANCE_HEADINGS),
            "", "Maintenance", "maintenance")

    def maintenance_group(self, model: MaintenanceGroupPage) -> str:
        number, names = model.number, list(model.names)
        return self.whole("site_maintenance_group.html", MaintenanceGroupContext(
            group={"kind": model.kind, "title": model.title, "count": model.count, "pages": names},
            number=number, first=model.first + 1, last=model.first + len(model.rows),
            table="worklist" if model.which == "open" else "dismissals", headings=MAINTENANCE_HEADINGS[model.which],
            pager=Markup(pager(names, number, model.title)),
            rows=Markup("".join(self.maintenance_row(model.which, row, self.items) for row in model.rows))),
            "../", f"{model.title}, page {number}", "maintenance")

    def changes_page(self, snapshot: dict[str, Any], links: SiteLinks, index: SnapshotIndex) -> str:
        assert self.changes is not None
        return self.whole("site_changes.html", ChangesContext(changes_view(self.changes, snapshot, links, index)),
                          "", "Changes", "changes")
