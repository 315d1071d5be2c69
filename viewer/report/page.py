"""Snapshot -> one self-contained HTML page (every script, style and datum inline)."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Callable, Iterator

import jinja2
from markupsafe import Markup

from memlens.store.errors import InvalidInput
from memlens.store.snapshot import FORMAT as SUPPORTED_FORMAT

from ..model.about import About, about
from ..model.changes import ChangesView, changes_view
from ..model.layout import Layout, compute_layout
from ..model.link_graph import counted_entities, link_graph
from ..model.links import Links, ReportLinks
from ..model.palette import TypeLook
from ..model.time_axis import short_record_time
from ..model.snapshot_index import SnapshotIndex
from ..model.timeline import Timeline, TimelineBuilder, entity_timelines, functional_timelines
from ..model.timeline_svg import timeline_svg
from ..model.printed_commands import dataset_flag
from ..model.worklist import KindGroup, Task, dismissal_groups, task_of, worklist_groups
from . import assets
from .csp import content_security_policy
from .codec import Block, drawings_block, page_blocks, page_record_block
from .maintenance_rows import dismissal_cells, task_cell
from .renderer import page_record

MAINTENANCE_PREVIEW = 10   # rows of each maintenance group in the HTML; the page's script pages in the rest
TIMELINES_DRAWN = 12       # timelines of each kind drawn at load; the others wait in a data block


class SnapshotFormatError(InvalidInput):
    """The snapshot is not in a format this viewer reads."""


@dataclass(frozen=True)
class TypeEntry:
    name: str
    color: str
    shape: str
    count: int


@dataclass(frozen=True)
class RefView:
    """A link from a table cell to an entity or fact of the page."""

    kind: str      # "entity" | "fact" | "other"
    id: str
    label: str
    href: str = ""  # empty for "other": nothing to link to


@dataclass(frozen=True)
class WorkItem:
    key: str
    kind: str
    summary: str
    refs: list[RefView]
    task: Task


@dataclass(frozen=True)
class Dismissal:
    key: str
    kind: str
    reason: str
    actor: str
    at: str


@dataclass(frozen=True)
class GroupView:
    """One kind of the worklist or of the dismissals: its count in words and its first rows."""

    kind: str
    title: str
    count: int
    rows: list[Any]   # WorkItem or Dismissal

    @property
    def more(self) -> int:
        return self.count - len(self.rows)


@dataclass(frozen=True)
class NavLink:
    label: str
    href: str
    current: bool = False
    count: int | None = None


@dataclass(frozen=True)
class ReportContext:
    """What templates/report.html can use. Inline assets are Markup: inserted byte for byte.

    The single file inlines `scripts` and `styles`; a site's graph page instead names
    `script_files` and `stylesheets` (relative URLs) and carries a `site_nav`.
    """

    dataset: str
    generated_at: str
    snapshot_hash: str
    stats: dict[str, Any]
    types: list[TypeEntry]
    functional_timelines: list[Timeline]
    functional_omitted: int
    entity_timelines: list[Timeline]
    entity_omitted: int
    worklist: list[GroupView]
    worklist_count: int
    dismissals: list[GroupView]
    dismissals_count: int
    show_superseded: bool
    csp: str
    timelines_drawn: int
    data_blocks: list[Block]               # the page's data elements, see codec.page_blocks
    links: Links
    about: About
    changes: ChangesView | None = None
    briefs_count: int = 0                  # briefs given (the snapshot's `briefs`): the Briefs tab, if any
    scripts: list[Markup] = field(default_factory=list)
    styles: list[Markup] = field(default_factory=list)
    script_files: list[str] = field(default_factory=list)
    stylesheets: list[str] = field(default_factory=list)
    site_nav: list[NavLink] = field(default_factory=list)


def _template_source(name: str) -> str:
    # importlib.resources works the same from an editable install and from a wheel
    return resources.files("memlens.templates").joinpath(name).read_text(encoding="utf-8")


_OPTIONS: dict[str, Any] = {"autoescape": True, "undefined": jinja2.StrictUndefined, "keep_trailing_newline": True}


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FunctionLoader(_template_source), **_OPTIONS)
    env.filters["short_time"] = short_record_time
    env.filters["thousands"] = lambda n: f"{n:,}" if isinstance(n, int) else n
    env.filters["timeline_svg"] = timeline_svg
    env.filters["short_id"] = lambda value: str(value)[:8]
    env.filters["short_hash"] = lambda value: str(value).removeprefix("sha256:")[:12]
    env.globals.update(task_cell=task_cell, dismissal_cells=dismissal_cells)
    return env


_ENV: jinja2.Environment | None = None


def environment() -> jinja2.Environment:
    global _ENV
    if _ENV is None:
        _ENV = _environment()
    return _ENV


def ref_view(ref: str, index: SnapshotIndex, links: Links, contradictions: dict[str, dict[str, Any]]) -> RefView:
    """A maintenance reference, labelled and linked (a contradiction to its first fact, as the page's
    script links the rows it pages in); unknown ids stay plain text."""
    if ref in index.entities:
        href = links.entity(ref)
        return RefView("entity", ref, index.entities[ref]["name"], href or "") if href else RefView("other", ref, ref[:8])
    if ref in index.facts:
        href = links.fact(ref)
        label = index.fact_text(index.facts[ref])
        return RefView("fact", ref, label, href) if href else RefView("other", ref, label)
    if ref in contradictions:
        first = next((f for f in contradictions[ref].get("facts", []) if links.fact(f)), None)
        if first is not None:
            return RefView("fact", first, f"contradiction {ref[:8]}", links.fact(first) or "")
    return RefView("other", ref, ref[:8])


def work_items(rows: list[dict[str, Any]], index: SnapshotIndex, links: Links) -> list[WorkItem]:
    contradictions = {c["id"]: c for c in index.snapshot.get("contradictions", [])}
    return [WorkItem(str(i.get("key")), str(i.get("kind")), str(i.get("summary") or ""),
                     [ref_view(r, index, links, contradictions) for r in i.get("refs") or []],
                     task_of(i, index.name, fact_words_in(index), dataset_flag(index.snapshot)))
            for i in rows]


def fact_words_in(index: SnapshotIndex) -> Callable[[str], tuple[str, str, str] | None]:
    """A fact's (subject, relation, object) names by its id; None if it or an end is forgotten."""
    def fact_words(fact_id: str) -> tuple[str, str, str] | None:
        fact = index.facts.get(fact_id)
        if not fact or fact.get("status") == "forgotten" or fact.get("subject") not in index.entities \
                or fact.get("object") not in index.entities:
            return None
        return index.name(fact["subject"]), str(fact["relation"]), index.name(fact["object"])
    return fact_words


def dismissal_rows(rows: list[dict[str, Any]]) -> list[Dismissal]:
    return [Dismissal(str(d.get("key")), str(d.get("kind")), str(d.get("reason") or ""),
                      str(d.get("actor") or ""), str(d.get("at") or ""))
            for d in rows]


def worklist_views(snapshot: dict[str, Any], index: SnapshotIndex, links: Links, shown: int) -> list[GroupView]:
    """The worklist by kind, each group with its first `shown` rows."""
    return [_group_view(g, work_items(g.rows[:shown], index, links)) for g in worklist_groups(snapshot)]


def dismissal_views(snapshot: dict[str, Any], shown: int) -> list[GroupView]:
    return [_group_view(g, dismissal_rows(g.rows[:shown])) for g in dismissal_groups(snapshot)]


def _group_view(group: KindGroup, rows: list[Any]) -> GroupView:
    return GroupView(group.kind, group.title, group.count, rows)


def check_format(snapshot: dict[str, Any]) -> None:
    if snapshot.get("format") != SUPPORTED_FORMAT:
        raise SnapshotFormatError(f"expected format {SUPPORTED_FORMAT!r}, got {snapshot.get('format')!r}")


def _type_entries(snapshot: dict[str, Any], looks: dict[str, TypeLook]) -> list[TypeEntry]:
    counts: dict[str, int] = {}
    for entity in counted_entities(snapshot):
        counts[entity["type"]] = counts.get(entity["type"], 0) + 1
    return [TypeEntry(name, looks[name].color, looks[name].shape, count) for name, count in sorted(counts.items())]


@dataclass(frozen=True)
class SiteMode:
    """How the graph page differs when it is a site's index.html."""

    links: Links
    entity_pages: dict[str, str]          # entity id -> path relative to index.html
    script_files: list[str]
    stylesheets: list[str]
    nav: list[NavLink]
    csp: str


def build_context(snapshot: dict[str, Any], *, show_superseded: bool = False,
                  changes: dict[str, Any] | None = None, site: SiteMode | None = None,
                  timelines: TimelineBuilder | None = None, layout: Layout | None = None,
                  previous_layout: dict[str, tuple[float, float]] | None = None,
                  previous_looks: dict[str, TypeLook] | None = None) -> ReportContext:
    """`previous_layout` (entity id -> position, from the bundle being regenerated) keeps those
    entities where they were; see `compute_layout`. Ignored when `layout` is given. Likewise
    `previous_looks` (type -> look) keeps each type's colour and shape; ignored with `timelines`."""
    check_format(snapshot)
    timelines = timelines or TimelineBuilder(SnapshotIndex(snapshot, previous_looks))
    index = timelines.index
    layout = layout or compute_layout(link_graph(snapshot, index.fact_columns), previous=previous_layout)
    # first: the blocks are compressed in a worker thread while the rest of the page is built
    blocks = page_blocks(snapshot, layout, show_superseded=show_superseded,
                         entity_pages=site.entity_pages if site else None, fact_columns=index.fact_columns,
                         type_looks=index.type_looks)
    functional, functional_omitted = functional_timelines(timelines)
    # a site draws every entity's timeline on the entity's own page
    per_entity, entity_omitted = ([], 0) if site else entity_timelines(timelines, layout.ranking)
    folded = functional[TIMELINES_DRAWN:] + per_entity[TIMELINES_DRAWN:]
    if folded:
        drawing = environment().get_template("_timeline.html").module.timeline_drawing
        blocks = [*blocks, drawings_block({t.anchor: str(drawing(t)) for t in folded})]
    # what `memlens verify` draws the page (a site: every page) again with
    blocks = [*blocks, page_record_block(page_record(changes))]
    links: Links = site.links if site else ReportLinks(index.entities, index.facts)
    common = dict(
        dataset=str(snapshot.get("dataset") or ""),
        generated_at=str(snapshot.get("generated_at") or ""),
        snapshot_hash=str(snapshot.get("hash") or ""),
        stats=dict(snapshot.get("stats") or {}),
        about=about(snapshot, layout.degree),
        types=_type_entries(snapshot, index.type_looks),
        functional_timelines=functional, functional_omitted=functional_omitted,
        entity_timelines=per_entity, entity_omitted=entity_omitted,
        worklist=worklist_views(snapshot, index, links, MAINTENANCE_PREVIEW),
        worklist_count=len(snapshot.get("maintenance") or []),
        dismissals=dismissal_views(snapshot, MAINTENANCE_PREVIEW),
        dismissals_count=len(snapshot.get("dismissals") or []),
        show_superseded=show_superseded,
        timelines_drawn=TIMELINES_DRAWN,
        data_blocks=blocks,
        links=links,
        changes=changes_view(changes, snapshot, links, index) if changes is not None else None,
        briefs_count=len(snapshot.get("briefs") or []),
    )
    if site is not None:
        return ReportContext(**common, csp=site.csp, script_files=site.script_files,
                             stylesheets=site.stylesheets, site_nav=site.nav)
    scripts = [assets.vis_network_script(), assets.app_script()]
    styles = [assets.vis_network_style(), assets.app_style()]
    return ReportContext(**common, csp=content_security_policy(scripts, styles),
                         scripts=[Markup(s) for s in scripts], styles=[Markup(s) for s in styles])


def report_chunks(snapshot: dict[str, Any], *, show_superseded: bool = False,
                  changes: dict[str, Any] | None = None,
                  previous_layout: dict[str, tuple[float, float]] | None = None,
                  previous_looks: dict[str, TypeLook] | None = None) -> Iterator[str]:
    """The single-file HTML report for `snapshot` (a `memlens-snapshot/1` dict), in pieces that
    concatenate to the page: a writer streams them, so a 100 MB page is never one string.

    `changes` is `memlens.store.snapshot.diff.diff(old, snapshot)`: the page then has a
    "Changes since ..." panel. None shows nothing of the kind. `previous_layout` (entity id ->
    position, as `reading.read_layout` reads it from the old page) keeps the map stable,
    and `previous_looks` (type -> look, `reading.read_looks`) the types' colours.
    Everything is built before the first piece is yielded: bad input fails before a file is touched.
    """
    context = build_context(snapshot, show_superseded=show_superseded, changes=changes,
                            previous_layout=previous_layout, previous_looks=previous_looks)
    return environment().get_template("report.html").generate(report=context)


def render_report(snapshot: dict[str, Any], **options: Any) -> str:
    """The whole report as one string; see `report_chunks` for the options."""
    return "".join(report_chunks(snapshot, **options))
