"""The HTML of a site's pages, each drawn from its model (site/models.py) and nothing else, and the
frame every page but the graph page has around its content (site_base.html's pieces).

Entity pages are drawn in site/entity_page.py; the items many pages repeat (fact cards, ledger
rows) in site/items.py; the graph page is the report's page in its site form (report/page.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from ..model.changes import changes_view
from ..model.links import SiteLinks
from ..model.snapshot_index import SnapshotIndex
from ..model.time_axis import short_record_time
from ..report.page import NavLink, environment
from .entity_page import all_pages, pager
from .items import SiteItems, h
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


def ledger_pager(names: list[str] | tuple[str, ...], number: int) -> str:
    """Newer and older neighbours of ledger page `number` and the way to all of them; no count of
    the pages, which would change every page whenever one is added."""
    newer = f'<a href="{h(names[number])}" rel="next">&larr; newer</a>' if number < len(names) else \
        '<span class="muted">&larr; newer</span>'
    older = f'<a href="{h(names[number - 2])}" rel="prev">older &rarr;</a>' if number > 1 else \
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

    def page(self, frame: PageFrame, main: str) -> str:
        """A whole site page around `main`: what site_base.html renders, without a template call."""
        return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
                f'<meta http-equiv="Content-Security-Policy" content="{h(frame.csp)}">\n'
                f'<title>{h(frame.title)} \u00b7 {h(frame.dataset)} \u00b7 memlens</title>\n'
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
            rows.append(f'<tr data-filter="{h((row.name + " " + row.type).lower())}">'
                        f'<td><a class="ref" href="{h(row.page)}">{h(row.name)}</a>{note}</td>'
                        f'<td><span class="swatch-dot {row.type_class}" aria-hidden="true"></span> {h(row.type)}</td>'
                        f'<td class="num">{row.facts:,}</td><td class="num">{row.current:,}</td>'
                        f'<td class="num">{contested}</td>'
                        f'<td class="time">{h(short_record_time(row.updated_at))}</td></tr>')
        count, number = len(model.names), model.number
        title = "Entities" if number == 1 else f"Entities, page {number}"
        return self.render(
            "site_entities.html", page=self.frame("../", title, "entities"), rows=Markup("".join(rows)),
            count=model.live, pager=Markup(pager(list(model.names), number, "Pages of the entity list") if count > 1 else ""),
            number=number, pages=count, first=model.first + 1, last=model.first + len(model.rows))

    # -- ledger -----------------------------------------------------------------------------------
    def ledger(self, model: LedgerPage) -> str:
        """ledger/index.html (number 0) or one of its pages."""
        rows = model.rows
        first_seq = rows[-1].row.record.get("seq") if rows else 0
        last_seq = rows[0].row.record.get("seq") if rows else 0
        html = Markup("".join(map(self.items.ledger_row, rows)))
        if model.number == 0:
            return self.render("site_ledger.html", page=self.frame("../", "Ledger", "ledger"), number=0,
                               total=model.total, per_page=model.per_page, pages=Markup(all_pages(list(model.names))),
                               pager=Markup(""), first_seq=first_seq, last_seq=last_seq, rows=html)
        number = model.number
        names = [ledger_page_name(n) for n in range(1, number + (1 if model.newest else 2))]
        return self.render("site_ledger.html", page=self.frame("../", f"Ledger, page {number}", "ledger"), number=number,
                           per_page=model.per_page, pager=Markup(ledger_pager(names, number)),
                           first_seq=first_seq, last_seq=last_seq, rows=html)

    # -- contested, maintenance, changes -----------------------------------------------------------
    def contested(self, model: ContestedPage) -> str:
        items = self.top_items
        open_views = []
        for case in model.open:
            c = case.record.record
            confidence = c.get("confidence")
            cards = [items.fact_card(card) if not isinstance(card, str)
                     else f'<p class="ref-missing">fact {h(card[:8])} (gone)</p>' for card in case.cards]
            open_views.append({"id": c["id"], "reason": c.get("reason") or "(no reason given)",
                               "confidence": f"{confidence:.2f}" if isinstance(confidence, (int, float)) else "?",
                               "actor": c.get("actor") or "?", "recorded_at": c.get("recorded_at"),
                               "cards": Markup("".join(cards))})
        rows = []
        for resolved in model.resolved:
            c = resolved.record.record
            facts = " ".join(map(items.fact_ref, resolved.facts))
            why = h(c.get("resolution") or "") + (f' <span class="muted">{h(c["resolution_reason"])}</span>'
                                                     if c.get("resolution_reason") else "")
            rows.append(f'<tr><td class="refs">{facts}</td><td>{h(c.get("reason"))}</td><td>{why}</td>'
                        f'<td class="time">{h(short_record_time(c.get("resolved_at")))}</td></tr>')
        return self.render("site_contested.html", page=self.frame("", "Contested", "contested"), open=open_views,
                           open_count=model.open_count, more_open=model.open_count - len(open_views),
                           resolved=Markup("".join(rows)), resolved_count=model.resolved_count,
                           more_resolved=max(0, model.resolved_count - len(model.resolved)))

    def maintenance_row(self, which: str, row: TaskRow, items: SiteItems) -> str:
        if which == "open":   # a task, as the report's Maintenance tab words it
            refs = "".join(map(items.any_ref, row.targets))
            commands = "".join(f'<li><span class="task-when">If {h(when)}: </span><code class="task-command">{h(command)}'
                               f'</code></li>' for when, command in row.commands)
            return (f'<tr><td><p class="task-sentence">{h(row.sentence)}</p><ul class="task-commands">{commands}</ul>'
                    f'</td><td class="refs">{refs}</td></tr>')
        record = row.record
        at = str(record.get("at") or "")
        return (f'<tr><td><div class="key-text">{h(record.get("key"))}</div></td><td>{h(record.get("reason") or "")}</td>'
                f'<td class="actor">{h(record.get("actor") or "")}</td>'
                f'<td class="time"><time datetime="{h(at)}">{h(short_record_time(at))}</time></td></tr>')

    def maintenance(self, model: MaintenancePage) -> str:
        views = {which: [{"kind": g.kind, "title": g.title, "count": g.count, "anchor": g.anchor,
                          "shown": min(g.count, MAINTENANCE_PREVIEW),
                          "pages": ["maintenance/" + name for name in g.names],
                          "rows": Markup("".join(self.maintenance_row(which, row, self.top_items) for row in g.rows))}
                         for g in groups] for which, groups in (("open", model.worklist), ("dismissed", model.dismissals))}
        return self.render("site_maintenance.html", page=self.frame("", "Maintenance", "maintenance"),
                           worklist=views["open"], worklist_count=model.worklist_count,
                           dismissals=views["dismissed"], dismissals_count=model.dismissals_count,
                           per_page=MAINTENANCE_PAGE, headings=MAINTENANCE_HEADINGS)

    def maintenance_group(self, model: MaintenanceGroupPage) -> str:
        number, names = model.number, list(model.names)
        return self.render(
            "site_maintenance_group.html", page=self.frame("../", f"{model.title}, page {number}", "maintenance"),
            group={"kind": model.kind, "title": model.title, "count": model.count, "pages": names},
            number=number, first=model.first + 1, last=model.first + len(model.rows),
            table="worklist" if model.which == "open" else "dismissals", headings=MAINTENANCE_HEADINGS[model.which],
            pager=Markup(pager(names, number, model.title)),
            rows=Markup("".join(self.maintenance_row(model.which, row, self.items) for row in model.rows)))

    def changes_page(self, snapshot: dict[str, Any], links: SiteLinks, index: SnapshotIndex) -> str:
        assert self.changes is not None
        view = changes_view(self.changes, snapshot, links, index)
        return self.render("site_changes.html", page=self.frame("", "Changes", "changes"), changes=view)
