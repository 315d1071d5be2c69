"""A snapshot as a static site: a folder to mail, commit or put on any static host.

    index.html                   the graph, as in the single-file report (its data inline)
    entities/index.html, index-N every entity, by name, ENTITY_INDEX_PAGE a page
    entities/<slug>-<id8>.html   one page per entity: facts by relation, timeline, history, provenance
    entities/<slug>-<id8>--*     what does not fit on it, on pages of their own (entity_plan.py)
    ledger/index.html, page-N    the ledger, newest first: its newest rows and every page; page-N holds
                                 rows (N-1)*LEDGER_PAGE_SIZE+1 to N*LEDGER_PAGE_SIZE, counted from the first
    contested.html               open contradictions with both facts; resolved ones
    maintenance.html             the worklist and past dismissals by kind, with their reasons
    maintenance/                 each kind's rows past MAINTENANCE_PREVIEW, MAINTENANCE_PAGE a page
    changes.html                 changes since the previous snapshot (only when given)
    assets/                      our CSS and JS, vis-network from the installed pyvis
    snapshot.json                the memlens-snapshot/1 data (what the next regeneration diffs)
    layout.json                  {entity id: [x, y]}: the map's positions, which the next regeneration keeps
    manifest.json                version, dataset, format, hash, counts and every file's sha256

Every link is relative and every page readable with scripts off; scripts only add interaction.
No page grows with the memory: long lists are counted on the page and continued on pages of their own.
Pages load nothing but the bundle's own files (CSP `'self'`), so the site opens from file:// and
from a static server alike. The same snapshot gives the same bytes, and the site is built beside
the target and swapped in, so a failure leaves the previous site whole. Whatever of the previous
site would come out the same (by its manifest's sha256s, checked against its bytes) is carried
over rather than written, and entities whose pages' inputs did not change are not even rendered;
after writes it can follow, only what they reached is even digested (delta.py).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Callable

from markupsafe import Markup

from memlens.store.canonical import canonical_text
from memlens.store.snapshot import memlens_version

from memlens.store.temporaries import remove
from ..model.changes import changes_view
from ..model.layout import Layout, compute_layout
from ..model.link_graph import link_graph
from ..model.links import SiteLinks, entity_page_names, file_key
from ..model.palette import TypeLook
from ..model.time_axis import short_record_time
from ..model.snapshot_index import SnapshotIndex
from ..model.timeline import TimelineBuilder, entity_timeline
from ..model.timeline_svg import MemoEscape, timeline_svg
from ..model.printed_commands import dataset_flag
from ..model.worklist import KindGroup, dismissal_groups, task_of, worklist_groups
from ..report import assets
from ..report.page import NavLink, SiteMode, build_context, check_format, environment, fact_words_in
from .entity_page import EntityHead, all_pages, entity_main, group_label, group_page, pager, table_page
from .delta import Reach, RowsShown, Writes, reach_of, writes_since
from .entity_plan import SitePlans, card_size, group_pages_prefix, table_pages
from .folder import Carry, Emit, SiteFolder, building_folder, check_target, keep_not_ours, swap_in
from .items import SiteItems, h
from .page_inputs import PageInputs, RecordTexts
from .previous import CheckedFiles, PreviousSite

LEDGER_PAGE_SIZE = 500
CONTESTED_LIMIT = 200          # open contradictions shown with both facts; the rest are counted (and listed
RESOLVED_LIMIT = 1000          # on the maintenance pages); both keep contested.html under 1 MB,
CONTESTED_BYTES = 500_000      # and so does a bound on the open ones' cards' text (long descriptions)
MAINTENANCE_PREVIEW = 50       # rows of each maintenance group on maintenance.html
MAINTENANCE_PAGE = 500         # rows on each of a group's pages of its own
# each maintenance table's columns, on maintenance.html and on a group's pages of its own
MAINTENANCE_HEADINGS = {"open": ("what to decide, and the command for each answer", "concerns"),
                        "dismissed": ("candidate", "reason", "by", "when (UTC)")}
ENTITY_INDEX_PAGE = 1000       # entities on each page of entities/index
SITE_CSP = "; ".join([
    "default-src 'none'",
    "script-src 'self'",       # our files only; no inline script runs (the data blocks are JSON)
    "style-src 'self'",
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
])
SCRIPT_FILES = ("assets/vis-network.min.js", "assets/memlens.js")
STYLESHEETS = ("assets/vis-network.css", "assets/memlens.css")

Reuse = Callable[[str, str], bool]
ITEM_LISTS = ("entities", "facts", "ledger")


@dataclass(frozen=True)
class PageFrame:
    """What every page of the site but index.html has around its content (site_base.html).
    `top` and `bottom` are rendered once per folder and section, not once per page."""

    title: str
    dataset: str
    top: Markup
    bottom: Markup
    csp: str = SITE_CSP


@dataclass(frozen=True)
class MaintenanceGroup:
    which: str              # "open" (the worklist) or "dismissed"
    group: KindGroup
    names: list[str]        # its pages of its own in maintenance/, when it has more than fit

    @property
    def anchor(self) -> str:
        return f"{self.which}-{file_key(self.group.kind)}"


def _ledger_page_name(number: int) -> str:
    return f"page-{number}.html"


def ledger_pager(names: list[str], number: int) -> str:
    """Newer and older neighbours of ledger page `number` and the way to all of them; no count of
    the pages, which would change every page whenever one is added."""
    newer = f'<a href="{h(names[number])}" rel="next">&larr; newer</a>' if number < len(names) else \
        '<span class="muted">&larr; newer</span>'
    older = f'<a href="{h(names[number - 2])}" rel="prev">older &rarr;</a>' if number > 1 else \
        '<span class="muted">older &rarr;</span>'
    return (f'<nav class="pager" aria-label="Ledger pages">{newer}<a href="index.html">all pages</a>'
            f'<span aria-current="page">page {number:,}</span>{older}</nav>\n')


class SiteBuild:
    """Renders every file of one site from one snapshot; `emit(path, content)` receives them."""

    def __init__(self, snapshot: dict[str, Any], changes: dict[str, Any] | None,
                 previous_layout: dict[str, tuple[float, float]] | None = None,
                 previous_looks: dict[str, TypeLook] | None = None) -> None:
        check_format(snapshot)
        self.snapshot = snapshot
        self.changes = changes
        self.kept_looks = list(previous_looks) if previous_looks is not None else None
        self.env = environment()
        self.index = SnapshotIndex(snapshot, previous_looks)
        self.timelines = TimelineBuilder(self.index)
        self.previous_layout = previous_layout
        self.pages = entity_page_names(snapshot["entities"])
        self.fact_order = {f["id"]: i for i, f in enumerate(snapshot["facts"])}
        self.plans = SitePlans(self.pages, self.index.facts_of, self.index.facts, self.fact_order,
                               card_size(self.index.name))
        fact_pages = self.plans   # fact id -> the page its links lead to (see SitePlans.get)
        self.top = SiteLinks(self.pages, fact_pages, root="")
        self.nested = self.top.relative_to("../")
        # one item renderer per folder the links start from: entities/ and ledger/ share the
        # nested one (both one folder down), the top-level pages have theirs
        self.items = SiteItems(snapshot, self.index, fact_pages, entity_pages=self.pages, entities="../entities/",
                               root="../", anchors=True)
        self.top_items = SiteItems(snapshot, self.index, fact_pages, entity_pages=self.pages, entities="entities/",
                                   root="", anchors=False, contested_boxes=False)
        self.escape = MemoEscape()
        self.types = sorted({e["type"] for e in snapshot["entities"]} | set(snapshot.get("ontology", {}).get("types", [])))
        # a class per type named after it, not its place in the list: adding a type renames no other
        self.type_class = {name: "t-" + file_key(name) for name in self.types}
        ledger = snapshot.get("ledger", [])
        self.ledger_pages = max(1, -(-len(ledger) // LEDGER_PAGE_SIZE))
        self.open_contradictions = [c for c in snapshot.get("contradictions", []) if c.get("resolved_at") is None]
        # each entity, fact and ledger row as snapshot.json writes it: also what the page inputs hash
        self.texts = RecordTexts(snapshot, ITEM_LISTS)
        self.inputs = PageInputs(snapshot, self.index, self.texts, self.pages, fact_pages, self.fact_order)
        self._navs: dict[tuple[str, str, bool], list[NavLink]] = {}
        self._frames: dict[tuple[str, str], tuple[Markup, Markup]] = {}

    @cached_property
    def layout(self) -> Layout:
        """The graph page's positions, worked out in the process that writes that page (0.7 s at
        100,000 entities, which the entity pages do not need)."""
        return compute_layout(link_graph(self.snapshot, self.index.fact_columns), previous=self.previous_layout)

    @cached_property
    def fact_words(self):
        """A fact's (subject, relation, object) names by id, for the maintenance tasks' sentences."""
        return fact_words_in(self.index)

    # -- frame --------------------------------------------------------------------------------
    def nav(self, root: str, current: str, counted: bool = False) -> list[NavLink]:
        """The site's sections. Only the graph page (`counted`) gives their counts and links the
        changes: the other pages carry nothing that changes with every write."""
        key = (root, current, counted)
        if key not in self._navs:
            self._navs[key] = self._nav(root, current, counted)
        return self._navs[key]

    def _nav(self, root: str, current: str, counted: bool) -> list[NavLink]:
        s = self.snapshot
        counts = (sum(1 for e in s["entities"] if e.get("merged_into") is None), len(s.get("ledger", [])),
                  # open contradictions: pairs of facts, not the contested facts the header counts
                  len(self.open_contradictions), len(s.get("maintenance", []))) if counted else (None,) * 4
        links = [NavLink("Graph", root + "index.html", current == "graph"),
                 NavLink("Entities", root + "entities/index.html", current == "entities", counts[0]),
                 NavLink("Ledger", root + "ledger/index.html", current == "ledger", counts[1]),
                 NavLink("Contradictions", root + "contested.html", current == "contested", counts[2]),
                 NavLink("Maintenance", root + "maintenance.html", current == "maintenance", counts[3])]
        if self.changes is not None and (counted or current == "changes"):
            links.append(NavLink("Changes", root + "changes.html", current == "changes",
                                 int(sum((self.changes.get("counts") or {}).values())) if counted else None))
        return links

    def frame(self, root: str, title: str, current: str) -> PageFrame:
        key = (root, current)
        if key not in self._frames:
            context = {"root": root, "dataset": str(self.snapshot.get("dataset") or ""),
                       "nav_html": self.env.get_template("_site_nav.html").module.site_nav(self.nav(root, current))}
            self._frames[key] = (Markup(self.render("_site_top.html", **context)),
                                 Markup(self.render("_site_bottom.html", **context)))
        top, bottom = self._frames[key]
        return PageFrame(title=title, dataset=str(self.snapshot.get("dataset") or ""), top=top, bottom=bottom)

    def render(self, template: str, **context: Any) -> str:
        return self.env.get_template(template).render(**context)

    # -- the whole site -----------------------------------------------------------------------
    def write(self, emit: Emit, folder: SiteFolder | None = None) -> None:
        """Emit every file. With a `folder` (see SiteFolder), the work is shared among processes (the
        records' input digests, the entity pages, the other pages), and an entity or ledger page
        whose inputs did not change is carried over instead of rendered; after writes it can
        follow (delta.py), only what they reached is even digested."""
        for path, content in self.asset_files().items():
            emit(path, content)
        if folder is None:
            self.write_entity_pages(self.snapshot["entities"], emit)
            self.write_graph_page(emit)
            self.write_other_pages(emit)
            return
        writes = self.writes_since(folder.previous)
        if writes is None:
            # digested here, each record once, or each half of the entities would digest nearly
            # all of them (a fact has two ends, a ledger row names two or three entities)
            self.inputs.digest_records(folder.in_halves)
            self.rows_shown   # indexed here, once, before the work is shared out

            def graph_and_other_pages(emit: Emit) -> None:
                self.write_graph_page(emit)
                self.write_other_pages(emit, folder.reuse)

            folder.split(self.snapshot["entities"], lambda entities, emit: self.write_entity_pages(
                entities, emit, folder.reuse), [(graph_and_other_pages, "the graph, list and ledger pages")])
            return

        def the_rest() -> None:
            # the entity pages are mostly carried over: the graph page, begun first, is half of what is left
            reach = self.reach(writes, folder.previous)
            folder.split(self.snapshot["entities"], lambda entities, emit: self.write_entity_pages(
                entities, emit, folder.reuse, folder.carry, reach),
                [(lambda emit: self.write_other_pages(emit, folder.reuse, folder.carry, reach), "the list and ledger pages")])

        folder.alongside(self.write_graph_page, "the graph page", the_rest, len(self.snapshot["entities"]))

    def write_graph_page(self, emit: Emit) -> None:
        emit("index.html", self.index_page())
        emit("layout.json", self.layout_json())

    def writes_since(self, previous: PreviousSite | None) -> Writes | None:
        """The writes since the previous site, when they can be followed (see delta.py)."""
        if previous is None:
            return None
        return writes_since(self.snapshot, self.index, previous.built_from, self.inputs.base_digest(), self.kept_looks)

    def reach(self, writes: Writes, previous: PreviousSite) -> Reach:
        """The pages `writes` may have changed (see delta.py)."""

        def spilling(entity_id: str) -> set[str]:
            page = self.pages.get(entity_id)
            if page is None:
                return set()
            now = {group.key for group in self.plans[entity_id].groups if group.pages}
            before = {group.key for group in self.plans[entity_id].groups
                      if previous.has_files_starting("entities/" + group_pages_prefix(page, group.key))}
            return now | before

        return reach_of(writes, self.snapshot, self.index, self.rows_shown, spilling)

    def write_other_pages(self, emit: Emit, reuse: Reuse | None = None, carry: Carry | None = None,
                          reach: Reach | None = None) -> None:
        """Every file but the assets, the entity pages and the graph page."""
        self.write_entity_index(emit)
        self.write_ledger_pages(emit, reuse, carry, reach)
        emit("contested.html", self.contested_page())
        self.write_maintenance_pages(emit)
        if self.changes is not None:
            emit("changes.html", self.changes_page())
        emit("snapshot.json", self.snapshot_json())

    def snapshot_json(self) -> str:
        """The snapshot as JSON, keys sorted, a line for each top-level field and for each record of
        its lists (the long ones' text from `texts`): `git diff` of a site after a write then shows
        the records that changed, not the one line that was the whole store."""
        parts = []
        for key, value in sorted(self.snapshot.items()):
            if isinstance(value, list) and value:
                records = self.texts.all(key) if key in self.texts else [canonical_text(item) for item in value]
                parts.append(canonical_text(key) + ":[\n" + ",\n".join(records) + "\n]")
            else:
                parts.append(canonical_text(key) + ":" + canonical_text(value))
        return "{\n" + ",\n".join(parts) + "\n}\n"

    def layout_json(self) -> str:
        """Every live entity's position on the graph page (rounded as in its data block), sorted."""
        positions = {node: [x, y] for node, (x, y) in sorted(self.layout.positions.items())}
        return json.dumps(positions, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"

    def asset_files(self) -> dict[str, str]:
        look = self.index.type_look
        type_rules = "".join(f".{self.type_class[name]} {{ background-color: {look(name).color}; }}\n" for name in self.types)
        return {
            "assets/vis-network.min.js": assets.vis_network_script(),
            "assets/vis-network.css": assets.vis_network_style(),
            "assets/memlens.js": assets.app_script(),
            "assets/memlens.css": assets.site_style(),
            "assets/site.js": assets.site_script(),
            # swatch colours as classes: the CSP allows no style attributes
            "assets/types.css": "/* entity type colours, t-<the type's file key> */\n" + type_rules,
        }

    def index_page(self) -> str:
        site = SiteMode(links=self.top, entity_pages={eid: "entities/" + page for eid, page in self.pages.items()},
                        script_files=list(SCRIPT_FILES), stylesheets=list(STYLESHEETS), nav=self.nav("", "graph", counted=True),
                        csp=SITE_CSP)
        context = build_context(self.snapshot, changes=self.changes, site=site, timelines=self.timelines,
                                layout=self.layout)
        return self.env.get_template("report.html").render(report=context)

    # -- entities -----------------------------------------------------------------------------
    def write_entity_index(self, emit: Emit) -> None:
        """entities/index.html, and index-2.html onwards when there are more than a page holds."""
        rows, live = self.entity_rows()
        count = max(1, -(-len(rows) // ENTITY_INDEX_PAGE))
        names = ["index.html"] + [f"index-{n}.html" for n in range(2, count + 1)]
        for number, name in enumerate(names, start=1):
            first = (number - 1) * ENTITY_INDEX_PAGE
            shown = rows[first:first + ENTITY_INDEX_PAGE]
            title = "Entities" if number == 1 else f"Entities, page {number}"
            emit("entities/" + name, self.render(
                "site_entities.html", page=self.frame("../", title, "entities"), rows=Markup("".join(shown)),
                count=live, pager=Markup(pager(names, number, "Pages of the entity list") if count > 1 else ""),
                number=number, pages=count, first=first + 1, last=first + len(shown)))

    def entity_rows(self) -> tuple[list[str], int]:
        """Every entity's row in the entity list (live ones by name, then merged ones), and how many live."""
        facts_of, rows = self.index.facts_of, []
        by_name = sorted(self.snapshot["entities"], key=lambda e: (str(e.get("name") or "").casefold(), e["id"]))
        live = [e for e in by_name if e.get("merged_into") is None]
        merged = [e for e in by_name if e.get("merged_into") is not None]
        for entity in live + merged:
            facts = facts_of(entity["id"])
            current = sum(1 for f in facts if f.get("status") == "current")
            contested = sum(1 for f in facts if f.get("contested"))
            name = str(entity.get("name") or "")
            note = ' <span class="muted">(merged)</span>' if entity.get("merged_into") else ""
            contested_cell = f'<strong class="contested-count">{contested:,}</strong>' if contested else "0"
            rows.append(f'<tr data-filter="{h((name + " " + str(entity.get("type"))).lower())}">'
                        f'<td><a class="ref" href="{h(self.pages[entity["id"]])}">{h(name)}</a>{note}</td>'
                        f'<td><span class="swatch-dot {self.type_class[entity["type"]]}" aria-hidden="true"></span> {h(entity.get("type"))}</td>'
                        f'<td class="num">{len(facts):,}</td><td class="num">{current:,}</td>'
                        f'<td class="num">{contested_cell}</td>'
                        f'<td class="time">{h(short_record_time(entity.get("updated_at")))}</td></tr>')
        return rows, len(live)

    @cached_property
    def rows_shown(self) -> RowsShown:
        """Entity id -> the ledger rows its page shows. Indexed once, before the entity pages' work
        is shared out (each process writing them would otherwise index for itself), but after the
        graph page's process is started, which needs none; each entity's are found by the process
        writing its page."""
        return RowsShown(self.snapshot.get("ledger", []), self.index)

    def write_entity_pages(self, entities: list[dict[str, Any]], emit: Emit, reuse: Reuse | None = None,
                           carry: Carry | None = None, reach: Reach | None = None) -> None:
        """Each entity's own page and the pages of its own that its plan gives what does not fit;
        an entity whose pages `reuse` carried over from the previous site is not rendered, and one
        the writes since did not `reach` is carried by `carry` without even digesting its inputs."""
        ledger = self.snapshot.get("ledger", [])
        named = self.rows_shown
        order, items = self.fact_order, self.items
        for entity in entities:
            eid = entity["id"]
            if reach is not None and eid not in reach.entities and carry is not None \
                    and carry("entities/" + self.pages[eid]):
                continue
            plan = self.plans[eid]
            if reuse is not None and reuse("entities/" + plan.page, self.inputs.entity(entity, plan, named.get(eid, []))):
                continue
            name = str(entity.get("name") or "")
            head = EntityHead(entity, self.type_class[entity["type"]])
            facts = [fact for group in plan.groups for fact in group.facts]
            versions = [row for fact in facts for row in items.version_rows(fact, order[fact["id"]])]
            versions.sort(key=lambda row: row[0])
            history = [row[1] for row in versions]
            provenance = [items.ledger_row(i, ledger[i]) for i in named.get(eid, ())]
            history_pages = table_pages(plan.page, "history", len(history))
            provenance_pages = table_pages(plan.page, "provenance", len(provenance))
            timeline = entity_timeline(self.timelines, eid, own_range=True)
            target = entity.get("merged_into")
            main = entity_main(
                head, plan, card=items.fact_card, graph_href=self.nested.graph("entity", eid),
                merged_into=(self.pages[target], self.index.name(target)) if target in self.pages else None,
                timeline_html=timeline_svg(timeline, self.escape) if timeline else "",
                timeline_anchor=timeline.anchor if timeline else "", hidden_rows=timeline.hidden_rows if timeline else 0,
                history=history, history_pages=history_pages, provenance=provenance, provenance_pages=provenance_pages)
            emit("entities/" + plan.page, self.page(self.frame("../", name, "entities"), main))
            for group in plan.groups:
                for number, page in enumerate(group.names, start=1):
                    frame = self.frame("../", f"{name}, {group_label(group)}, page {number}", "entities")
                    emit("entities/" + page, self.page(frame, group_page(head, plan, group, number, items.fact_card)))
            for anchor, heading, order_note, rows, pages in (
                    ("history", "History", "oldest first", history, history_pages),
                    ("provenance", "Provenance", "newest first", provenance, provenance_pages)):
                for number, page in enumerate(pages, start=1):
                    frame = self.frame("../", f"{name}, {anchor}, page {number}", "entities")
                    emit("entities/" + page, self.page(frame, table_page(head, plan, anchor, heading, order_note, rows,
                                                                         pages, number)))

    def page(self, frame: PageFrame, main: str) -> str:
        """A whole site page around `main`: what site_base.html renders, without a template call."""
        return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
                f'<meta http-equiv="Content-Security-Policy" content="{h(frame.csp)}">\n'
                f'<title>{h(frame.title)} \u00b7 {h(frame.dataset)} \u00b7 memlens</title>\n'
                f'{frame.top}\n{main}\n{frame.bottom}')

    # -- ledger -------------------------------------------------------------------------------
    # Pages are fixed runs of the ledger counted from its first row, so a write changes only the
    # last page (and the index, which shows the newest rows and links every page).
    def write_ledger_pages(self, emit: Emit, reuse: Reuse | None = None, carry: Carry | None = None,
                           reach: Reach | None = None) -> None:
        """The ledger's index and its pages; a page whose rows' inputs did not change is carried
        over by `reuse`, not rendered (a write changes the last page only; at 100,000 entities the
        878 pages took 12 s of a profiled one-fact regeneration), and one that the writes since
        did not `reach` is carried by `carry` without even digesting its rows."""
        ledger = self.snapshot.get("ledger", [])
        row = self.items.ledger_row
        names = [_ledger_page_name(number) for number in range(1, self.ledger_pages + 1)] if ledger else []
        newest = range(len(ledger) - 1, max(-1, len(ledger) - 1 - LEDGER_PAGE_SIZE), -1)
        emit("ledger/index.html", self.render(
            "site_ledger.html", page=self.frame("../", "Ledger", "ledger"), number=0, total=len(ledger),
            per_page=LEDGER_PAGE_SIZE, pages=Markup(all_pages(names)), pager=Markup(""),
            first_seq=ledger[newest[-1]].get("seq") if ledger else 0, last_seq=ledger[-1].get("seq") if ledger else 0,
            rows=Markup("".join(row(i, ledger[i]) for i in newest))))
        reached = {i // LEDGER_PAGE_SIZE + 1 for i in reach.ledger_rows} if reach is not None else None
        for number, name in enumerate(names, start=1):
            if reached is not None and number not in reached and carry is not None and carry("ledger/" + name):
                continue
            chunk = range(min(len(ledger), number * LEDGER_PAGE_SIZE) - 1, (number - 1) * LEDGER_PAGE_SIZE - 1, -1)
            if reuse is not None and reuse("ledger/" + name, self.inputs.ledger_page(number, len(names), chunk)):
                continue
            emit("ledger/" + name, self.render(
                "site_ledger.html", page=self.frame("../", f"Ledger, page {number}", "ledger"), number=number,
                per_page=LEDGER_PAGE_SIZE, pager=Markup(ledger_pager(names, number)),
                first_seq=ledger[chunk[-1]].get("seq"), last_seq=ledger[chunk[0]].get("seq"),
                rows=Markup("".join(row(i, ledger[i]) for i in chunk))))

    # -- contested, maintenance, changes ---------------------------------------------------------
    def contested_page(self) -> str:
        items = self.top_items
        open_views = []
        size, used = card_size(self.index.name), 0
        for c in self.open_contradictions[:CONTESTED_LIMIT]:
            used += sum(size(self.index.facts[f]) for f in c.get("facts", []) if f in self.index.facts)
            if open_views and used > CONTESTED_BYTES:
                break
            confidence = c.get("confidence")
            cards = [items.fact_card(self.index.facts[f]) if f in self.index.facts
                     else f'<p class="ref-missing">fact {h(str(f)[:8])} (gone)</p>' for f in c.get("facts", [])]
            open_views.append({"id": c["id"], "reason": c.get("reason") or "(no reason given)",
                               "confidence": f"{confidence:.2f}" if isinstance(confidence, (int, float)) else "?",
                               "actor": c.get("actor") or "?", "recorded_at": c.get("recorded_at"),
                               "cards": Markup("".join(cards))})
        resolved = [c for c in self.snapshot.get("contradictions", []) if c.get("resolved_at") is not None]
        rows = []
        for c in resolved[:RESOLVED_LIMIT]:
            facts = " ".join(items.fact_ref(f) for f in c.get("facts", []))
            why = h(c.get("resolution") or "") + (f' <span class="muted">{h(c["resolution_reason"])}</span>'
                                                     if c.get("resolution_reason") else "")
            rows.append(f'<tr><td class="refs">{facts}</td><td>{h(c.get("reason"))}</td><td>{why}</td>'
                        f'<td class="time">{h(short_record_time(c.get("resolved_at")))}</td></tr>')
        return self.render("site_contested.html", page=self.frame("", "Contradictions", "contested"), open=open_views, open_count=len(self.open_contradictions),
                           more_open=len(self.open_contradictions) - len(open_views),
                           resolved=Markup("".join(rows)), resolved_count=len(resolved),
                           more_resolved=max(0, len(resolved) - RESOLVED_LIMIT))

    # The worklist of a memory without evidence is 30,000 rows: each kind shows its first rows here
    # and the rest on pages of their own in maintenance/.
    def maintenance_groups(self) -> dict[str, list[MaintenanceGroup]]:
        found: dict[str, list[MaintenanceGroup]] = {}
        for which, groups in (("open", worklist_groups(self.snapshot)), ("dismissed", dismissal_groups(self.snapshot))):
            found[which] = []
            for group in groups:
                count = -(-group.count // MAINTENANCE_PAGE) if group.count > MAINTENANCE_PREVIEW else 0
                names = [f"{which}-{file_key(group.kind)}-{n}.html" for n in range(1, count + 1)]
                found[which].append(MaintenanceGroup(which, group, names))
        return found

    def maintenance_row(self, group: MaintenanceGroup, row: dict[str, Any], items: SiteItems) -> str:
        if group.which == "open":   # a task, as the report's Maintenance tab words it
            refs = "".join(items.any_ref(str(r)) for r in row.get("refs") or ())
            task = task_of(row, self.index.name, self.fact_words, dataset_flag(self.snapshot))
            commands = "".join(f'<li><span class="task-when">If {h(when)}: </span><code class="task-command">{h(command)}'
                               f'</code></li>' for when, command in task.commands)
            return (f'<tr><td><p class="task-sentence">{h(task.sentence)}</p><ul class="task-commands">{commands}</ul>'
                    f'</td><td class="refs">{refs}</td></tr>')
        at = str(row.get("at") or "")
        return (f'<tr><td><div class="key-text">{h(row.get("key"))}</div></td><td>{h(row.get("reason") or "")}</td>'
                f'<td class="actor">{h(row.get("actor") or "")}</td>'
                f'<td class="time"><time datetime="{h(at)}">{h(short_record_time(at))}</time></td></tr>')

    def maintenance_page(self) -> str:
        views = {which: [{"kind": g.group.kind, "title": g.group.title, "count": g.group.count, "anchor": g.anchor,
                          "shown": min(g.group.count, MAINTENANCE_PREVIEW),
                          "pages": ["maintenance/" + name for name in g.names],
                          "rows": Markup("".join(self.maintenance_row(g, row, self.top_items)
                                                 for row in g.group.rows[:MAINTENANCE_PREVIEW]))}
                         for g in groups] for which, groups in self.maintenance_groups().items()}
        return self.render("site_maintenance.html", page=self.frame("", "Maintenance", "maintenance"),
                           worklist=views["open"], worklist_count=len(self.snapshot.get("maintenance") or []),
                           dismissals=views["dismissed"], dismissals_count=len(self.snapshot.get("dismissals") or []),
                           per_page=MAINTENANCE_PAGE, headings=MAINTENANCE_HEADINGS)

    def write_maintenance_pages(self, emit: Emit) -> None:
        emit("maintenance.html", self.maintenance_page())
        for which, groups in self.maintenance_groups().items():
            for g in groups:
                for number, name in enumerate(g.names, start=1):
                    first = (number - 1) * MAINTENANCE_PAGE
                    rows = g.group.rows[first:first + MAINTENANCE_PAGE]
                    html = self.render(
                        "site_maintenance_group.html", page=self.frame("../", f"{g.group.title}, page {number}", "maintenance"),
                        group={"kind": g.group.kind, "title": g.group.title, "count": g.group.count, "pages": g.names},
                        number=number, first=first + 1, last=first + len(rows),
                        table="worklist" if which == "open" else "dismissals", headings=MAINTENANCE_HEADINGS[which],
                        pager=Markup(pager(g.names, number, g.group.title)),
                        rows=Markup("".join(self.maintenance_row(g, row, self.items) for row in rows)))
                    emit("maintenance/" + name, html)

    def changes_page(self) -> str:
        assert self.changes is not None
        view = changes_view(self.changes, self.snapshot, self.top, self.index)
        return self.render("site_changes.html", page=self.frame("", "Changes", "changes"), changes=view)

    def manifest(self, files: dict[str, str], inputs: dict[str, str]) -> str:
        """`inputs`: each entity and ledger page's input digest (see page_inputs.py), which the
        next regeneration compares to skip rendering it."""
        s = self.snapshot
        return json.dumps({
            "memlens_version": memlens_version(), "dataset": s.get("dataset"), "format": s.get("format"),
            "hash": s.get("hash"), "generated_at": s.get("generated_at"), "counts": s.get("stats") or {},
            "inputs_base": self.inputs.base_digest(),
            "files": dict(sorted(files.items())), "inputs": dict(sorted(inputs.items())),
        }, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def write_site(snapshot: dict[str, Any], directory: str | os.PathLike[str], *,
               changes: dict[str, Any] | None = None,
               previous_layout: dict[str, tuple[float, float]] | None = None,
               previous_looks: dict[str, TypeLook] | None = None,
               previous_files: CheckedFiles | None = None) -> Path:
    """Write `snapshot` as a static site at `directory` (replaced atomically); returns its path.

    `changes` (from `memlens.store.snapshot_diff.diff`) adds changes.html and a panel on the graph;
    `previous_layout` (entity id -> position, the old site's layout.json) keeps those entities
    where they were, and `previous_looks` (type -> look) those types' colours and shapes;
    `previous_files`, the old site's files as checked beforehand (previous.checked_files).
    """
    target = Path(directory).resolve()
    check_target(target)
    building = building_folder(target)
    try:
        folder = SiteFolder(building, PreviousSite.read(target, previous_files))
        site = SiteBuild(snapshot, changes, previous_layout, previous_looks)
        site.write(folder.emit, folder)
        manifest = site.manifest(folder.hashes, folder.inputs)
        (building / "manifest.json").write_bytes(manifest.encode("utf-8"))   # "\n" on Windows too
        keep_not_ours(target, building, set(folder.hashes))
        swap_in(building, target)
    except BaseException:
        remove(building)
        raise
    return target
