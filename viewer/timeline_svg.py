"""A timeline model drawn as SVG markup, for the report's and the site's pages.

Written as Python string building rather than a template macro because a site draws one for every
entity: the macro spent most of its time escaping numbers. Every text from the snapshot goes
through `escape`; everything else is a number or a constant of this module.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from .timeline import PLOT_LEFT, PLOT_RIGHT, WIDTH, Timeline

_MARKER_SHAPES = {
    "asserted": lambda x, y: f'<circle cx="{x}" cy="{y}" r="3.5"/>',
    "superseded": lambda x, y: f'<path d="M{x} {y - 4.5}l4.5 4.5l-4.5 4.5l-4.5 -4.5z"/>',
    "retracted": lambda x, y: f'<path d="M{round(x - 3.5, 1)} {y - 3.5}l7 7m0 -7l-7 7"/>',
    "contested": lambda x, y: f'<path d="M{x} {y - 5}l4.8 8.5h-9.6z"/>',
    "forgotten": lambda x, y: f'<rect x="{round(x - 3.5, 1)}" y="{y - 3.5}" width="7" height="7"/>',
}


def _reasserted(x: float, y: float) -> str:
    return f'<circle cx="{x}" cy="{y}" r="3"/>'


def timeline_svg(timeline: Timeline) -> Markup:
    """The `<svg>` element of one timeline: axis, one row per fact, and the valid-time cursor."""
    t = timeline
    axis_y = t.height - 22
    out = [f'<svg class="timeline-svg" viewBox="0 0 {WIDTH} {t.height}" preserveAspectRatio="xMinYMin meet" '
           f'role="img" aria-label="Timeline of {escape(t.title)}" data-start="{t.start_day}" '
           f'data-end="{t.end_day}" data-plot-left="{PLOT_LEFT}" data-plot-right="{PLOT_RIGHT}">\n<g class="tl-axis">']
    for tick in t.ticks:
        out.append(f'<line class="tl-gridline" x1="{tick.x}" x2="{tick.x}" y1="0" y2="{axis_y}"/>'
                   f'<text class="tl-tick" x="{tick.x}" y="{axis_y + 15}">{escape(tick.label)}</text>')
    out.append(f'<line class="tl-baseline" x1="{PLOT_LEFT}" x2="{PLOT_RIGHT}" y1="{axis_y}" y2="{axis_y}"/></g>\n')
    for row in t.rows:
        y = row.y
        contested = " tl-is-contested" if row.contested else ""
        out.append(f'<g class="tl-row tl-{escape(row.status)}{contested}" data-fact="{escape(row.fact_id)}">'
                   f'<title>{escape(row.title)}</title><text class="tl-label" x="200" y="{y + 14}">{escape(row.label)}</text>')
        bar = row.bar
        if bar is not None:
            color = escape(bar.color)
            out.append(f'<rect class="tl-bar tl-bar-{escape(bar.status)}" x="{bar.x}" y="{y + 4}" '
                       f'width="{bar.width}" height="13" rx="3" fill="{color}"/>')
            if bar.open_end:
                out.append(f'<path class="tl-open" d="M{round(bar.x + bar.width, 1)} {y + 4}l6 6.5l-6 6.5z" fill="{color}"/>')
            if bar.open_start:
                out.append(f'<line class="tl-open-start" x1="{bar.x}" x2="{bar.x}" y1="{y + 2}" y2="{y + 19}"/>')
        marker_y = y + 25
        for marker in row.markers:
            shape = _MARKER_SHAPES.get(marker.kind, _reasserted)(marker.x, marker_y)
            out.append(f'<g class="tl-marker tl-m-{escape(marker.kind)}"><title>{escape(marker.title)}</title>{shape}</g>')
        out.append("</g>\n")
    out.append(f'<line class="tl-cursor" x1="-10" x2="-10" y1="0" y2="{axis_y}"/></svg>')
    return Markup("".join(out))
