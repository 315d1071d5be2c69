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
from a static server alike. The same snapshot gives the same bytes.

One path writes a site, the first time and every time after: every page but the graph page is a
model first (site/models.py, built by site/site_models.py), and is drawn (site/site_pages.py,
site/entity_page.py) only when its model's digest is not the one memlens recorded when it wrote the
page there (site/folder.py); every other page stays as it is. The graph page, snapshot.json and
layout.json change with every write and are written each time; the assets only when they differ.
"""

from __future__ import annotations

import json
import os
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Protocol

from memlens.store.snapshot.canonical import canonical_text
from memlens.store.checked_folder import Way
from memlens.store.snapshot import memlens_version

from ..model.changes import shown_changes
from ..model.layout import Layout, compute_layout
from ..model.link_graph import link_graph
from ..model.links import SiteLinks, entity_page_names, file_key
from ..model.palette import TypeLook
from ..model.snapshot_index import SnapshotIndex
from ..model.timeline import TimelineBuilder
from ..model.timeline_svg import MemoEscape
from ..report import assets
from ..report.page import SiteMode, build_context, check_format
from ..written import Written
from .entity_page import entity_files
from .entity_plan import SitePlans, card_size
from .folder import Emit, SiteFolder, site_folder
from .site_models import SiteModels
from .site_pages import SITE_CSP, SitePages

SCRIPT_FILES = ("assets/vis-network.min.js", "assets/memlens.js")
STYLESHEETS = ("assets/vis-network.css", "assets/memlens.css")


class Pages(Protocol):
    """Where a site's pages go: `page(path, digest, draw)` keeps the page at `path` if its model's
    `digest` is the one recorded there, else writes what `draw()` gives (path -> content); `emit`
    writes one file (SiteFolder; or, to draw every page, `Drawn`)."""

    def page(self, path: str, digest: str, draw: Callable[[], dict[str, str]]) -> None: ...

    def emit(self, path: str, content: str | bytes) -> None: ...


class Drawn:
    """Every page drawn, each file handed to `emit` (`memlens verify` draws a site again so)."""

    def __init__(self, emit: Emit) -> None:
        self.emit = emit

    def page(self, path: str, digest: str, draw: Callable[[], dict[str, str]]) -> None:
        for name, content in draw().items():
            self.emit(name, content)


class SiteBuild:
    """Every file of one site from one snapshot."""

    def __init__(self, snapshot: dict[str, Any], changes: dict[str, Any] | None,
                 previous_layout: dict[str, tuple[float, float]] | None = None,
                 previous_looks: dict[str, TypeLook] | None = None) -> None:
        check_format(snapshot)
        self.snapshot = snapshot
        self.changes = changes
        self.index = SnapshotIndex(snapshot, previous_looks)
        self.previous_layout = previous_layout
        places = self.index.observation_places   # an observation is listed on its entity's page, with no page of its own
        self.pages = entity_page_names([e for e in snapshot["entities"] if e["id"] not in places])
        fact_order = {f["id"]: i for i, f in enumerate(snapshot["facts"])}
        self.plans = SitePlans(self.pages, self.index.facts_of, self.index.facts, fact_order, card_size(self.index.name),
                               places)
        self.types = sorted({e["type"] for e in snapshot["entities"]} | set(snapshot.get("ontology", {}).get("types", [])))
        # a class per type named after it, not its place in the list: adding a type renames no other
        self.type_class = {name: "t-" + file_key(name) for name in self.types}
        self.models = SiteModels(snapshot, self.index, self.pages, self.plans, self.type_class)
        self.drawing = SitePages(str(snapshot.get("dataset") or ""), changes)
        self.links = SiteLinks(self.pages, self.plans, root="")
        self.escape = MemoEscape()

    @cached_property
    def layout(self) -> Layout:
        return compute_layout(link_graph(self.snapshot, self.index.fact_columns), previous=self.previous_layout)

    def write(self, pages: Pages) -> None:
        """Every file of the site into `pages`: each page whose model changed drawn, the rest kept."""
        for path, content in self.asset_files().items():
            pages.emit(path, content)
        pages.emit("index.html", self.index_page())
        pages.emit("layout.json", self.layout_json())
        models, drawing, digest = self.models, self.drawing, self.models.digest
        nested = SiteLinks(self.pages, self.plans, root="../")
        for model in models.entity_pages():
            pages.page("entities/" + model.page, digest(model), lambda: {
                "entities/" + name: html for name, html in entity_files(
                    model, drawing.items, drawing.entity_page, nested.graph("entity", model.entity.record["id"]),
                    self.escape).items()})
        for listed in models.entity_list_pages():
            pages.page("entities/" + listed.names[listed.number - 1], digest(listed),
                       lambda: {"entities/" + listed.names[listed.number - 1]: drawing.entity_list(listed)})
        for ledger in models.ledger_pages():
            path = "ledger/" + ("index.html" if ledger.number == 0 else f"page-{ledger.number}.html")
            pages.page(path, digest(ledger), lambda: {path: drawing.ledger(ledger)})
        contested = models.contested_page()
        pages.page("contested.html", digest(contested), lambda: {"contested.html": drawing.contested(contested)})
        maintenance, groups = models.maintenance_pages()
        pages.page("maintenance.html", digest(maintenance), lambda: {"maintenance.html": drawing.maintenance(maintenance)})
        for group in groups:
            path = f"maintenance/{group.names[group.number - 1]}"
            pages.page(path, digest(group), lambda: {path: drawing.maintenance_group(group)})
        if self.changes is not None:
            pages.emit("changes.html", drawing.changes_page(self.snapshot, self.links, self.index))
        pages.emit("snapshot.json", self.snapshot_json())

    def snapshot_json(self) -> str:
        """The snapshot as JSON, keys sorted, a line for each top-level field and for each record of
        its lists: `git diff` of a site after a write then shows the records that changed, not the
        one line that was the whole store."""
        parts = []
        for key, value in sorted(self.snapshot.items()):
            if isinstance(value, list) and value:
                parts.append(canonical_text(key) + ":[\n" + ",\n".join(map(canonical_text, value)) + "\n]")
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
        s = self.snapshot
        counts = (sum(1 for e in s["entities"] if e.get("merged_into") is None), len(s.get("ledger", [])),
                  # open contradictions: pairs of facts, not the contested facts the header counts
                  sum(1 for c in s.get("contradictions", []) if c.get("resolved_at") is None),
                  len(s.get("maintenance", [])))
        site = SiteMode(links=self.links, entity_pages={eid: "entities/" + page for eid, page in self.pages.items()},
                        script_files=list(SCRIPT_FILES), stylesheets=list(STYLESHEETS),
                        nav=self.drawing.nav("", "graph", counts), csp=SITE_CSP)
        context = build_context(s, changes=self.changes, site=site, timelines=TimelineBuilder(self.index),
                                layout=self.layout)
        return self.drawing.env.get_template("report.html").render(report=context)

    def manifest(self, files: dict[str, str]) -> str:
        """What the site is, and each file's sha256 (`files`, every file but the manifest)."""
        s = self.snapshot
        return json.dumps({
            "memlens_version": memlens_version(), "dataset": s.get("dataset"), "format": s.get("format"),
            "hash": s.get("hash"), "generated_at": s.get("generated_at"), "counts": s.get("stats") or {},
            "files": dict(sorted(files.items())),
        }, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def write_site(snapshot: dict[str, Any], directory: str | os.PathLike[str] | Way, *,
               changes: dict[str, Any] | None = None,
               previous_layout: dict[str, tuple[float, float]] | None = None,
               previous_looks: dict[str, TypeLook] | None = None,
               take_over: bool = True) -> Path:
    """Write `snapshot` as a static site in the folder `directory` (as the user names it, or the way
    to a configured one); returns its path. Only memlens's own files are written, replaced or
    removed, and only those it recorded writing (site/folder.py); everything else stays.

    `changes` (from `memlens.store.snapshot.diff.diff`) adds changes.html and a panel on the graph;
    `previous_layout` (entity id -> position, the old site's layout.json) keeps those entities
    where they were, and `previous_looks` (type -> look) those types' colours and shapes.
    `take_over`: a file memlens did not write at a place the site writes may be replaced (an
    export the user asked for); otherwise it is refused (a regeneration), and nothing is written.
    """
    way = directory if isinstance(directory, Way) else Way.named(directory)
    written = Written.of(way.path, "site")
    with way.folder(create=True) as parent, site_folder(parent, way.name, written) as root:
        folder = SiteFolder(root, written, take_over=take_over)
        try:
            site = SiteBuild(snapshot, shown_changes(changes) if changes is not None else None,
                             previous_layout, previous_looks)
            site.write(folder)
            folder.emit("manifest.json", site.manifest(dict(folder.hashes)))
            folder.commit(snapshot.get("hash"))
        except BaseException:
            folder.abandon()
            raise
        finally:
            folder.close()
    return way.path
