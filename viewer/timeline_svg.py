"""A timeline model drawn as SVG markup, for the report's and the site's pages.

Written as Python string building rather than a template macro because a site draws one for every
entity: the macro spent most of its time escaping numbers. Every text from the snapshot goes
through `escape`; everything else is a number or a constant of this module.
"""

from __future__ import annotations

from typing import Callable

from markupsafe import Markup, escape

from .timeline import PLOT_LEFT, PLOT_RIGHT, WIDTH, Timeline

Escape = Callable[[str], str]


def _escape(text: str) -> str:
    return str(escape(text))


class MemoEscape:
    """`escape`, remembering its answers: a site draws 10,000 timelines whose statuses, colours
    and marker titles repeat. One per build; it grows with the distinct strings seen."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        try:
            return self._seen[text]
        except KeyError:
            escaped = self._seen[text] = str(escape(text))
            return escaped


# Each marker is one shape holding its tooltip: (x, y, class, title) -> markup.
_MARKER_SHAPES = {
    "asserted": lambda x, y, c, t: f'<circle class="{c}" cx="{x}" cy="{y}" r="3.5">{t}</circle>',
    "superseded": lambda x, y, c, t: f'<path class="{c}" d="M{x} {y - 4.5}l4.5 4.5l-4.5 4.5l-4.5 -4.5z">{t}</path>',
    "retracted": lambda x, y, c, t: f'<path class="{c}" d="M{round(x - 3.5, 1)} {y - 3.5}l7 7m0 -7l-7 7">{t}</path>',
    "contested": lambda x, y, c, t: f'<path class="{c}" d="M{x} {y - 5}l4.8 8.5h-9.6z">{t}</path>',
    "forgotten": lambda x, y, c, t: f'<rect class="{c}" x="{round(x - 3.5, 1)}" y="{y - 3.5}" width="7" height="7">{t}</rect>',
}


def _reasserted(x: float, y: float, c: str, t: str) -> str:
    return f'<circle class="{c}" cx="{x}" cy="{y}" r="3">{t}</circle>'


def timeline_svg(timeline: Timeline, esc: Escape = _escape) -> Markup:
    """The `<svg>` element of one timeline: axis, one row per fact, and the valid-time cursor."""
    t = timeline
    axis_y = t.height - 22
    out = [f'<svg class="timeline-svg" viewBox="0 0 {WIDTH} {t.height}" preserveAspectRatio="xMinYMin meet" '
           f'role="img" aria-label="Timeline of {esc(t.title)}" data-start="{t.start_day}" '
           f'data-end="{t.end_day}" data-plot-left="{PLOT_LEFT}" data-plot-right="{PLOT_RIGHT}">\n<g class="tl-axis">']
    for tick in t.ticks:
        x = tick.x
        out.append(f'<line class="tl-gridline" x1="{x}" x2="{x}" y1="0" y2="{axis_y}"/>'
                   f'<text class="tl-tick" x="{x}" y="{axis_y + 15}">{esc(tick.label)}</text>')
    out.append(f'<line class="tl-baseline" x1="{PLOT_LEFT}" x2="{PLOT_RIGHT}" y1="{axis_y}" y2="{axis_y}"/></g>\n')
    for row in t.rows:
        y = row.y
        contested = " tl-is-contested" if row.contested else ""
        out.append(f'<g class="tl-row tl-{esc(row.status)}{contested}" data-fact="{esc(row.fact_id)}">'
                   f'<title>{esc(row.title)}</title><text class="tl-label" x="200" y="{y + 14}">{esc(row.label)}</text>')
        bar = row.bar
        if bar is not None:
            color, x = esc(bar.color), bar.x
            out.append(f'<rect class="tl-bar" x="{x}" y="{y + 4}" width="{bar.width}" height="13" rx="3" fill="{color}"/>')
            if bar.open_end:
                out.append(f'<path class="tl-open" d="M{round(bar.x + bar.width, 1)} {y + 4}l6 6.5l-6 6.5z" fill="{color}"/>')
            if bar.open_start:
                out.append(f'<path class="tl-open-start" d="M{x} {y + 2}v17"/>')
        marker_y = y + 25
        for marker in row.markers:
            kind = esc(marker.kind)
            draw = _MARKER_SHAPES.get(marker.kind, _reasserted)
            out.append(draw(marker.x, marker_y, f"tl-m tl-m-{kind}", f"<title>{esc(marker.title)}</title>"))
        out.append("</g>\n")
    out.append(f'<line class="tl-cursor" x1="-10" x2="-10" y1="0" y2="{axis_y}"/></svg>')
    return Markup("".join(out))
