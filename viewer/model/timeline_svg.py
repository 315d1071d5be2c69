"""A timeline model drawn as SVG markup, for the report's and the site's pages.

Written as Python string building rather than a template macro because a site draws one for every
entity: the macro spent most of its time escaping numbers. Every text from the snapshot goes
through `escape`; everything else is a number or a constant of this module.
"""

from __future__ import annotations

from typing import Callable

from markupsafe import Markup

from .escaping import escape_text

from .timeline import LABEL_WIDTH, PLOT_LEFT, PLOT_RIGHT, ROW_HEIGHT, WIDTH, Timeline

Escape = Callable[[str], str]


class MemoEscape:
    """`escape`, remembering its answers: a site draws 10,000 timelines whose statuses, colours
    and marker titles repeat. One per build; it grows with the distinct strings seen."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        try:
            return self._seen[text]
        except KeyError:
            escaped = self._seen[text] = escape_text(text)
            return escaped


# Each marker is one shape holding its tooltip, drawn at (x, y).
_MARKER_SHAPES = {
    "asserted": '<circle class="tl-m tl-m-asserted" cx="{x}" cy="{y}" r="3.5"><title>{t}</title></circle>',
    "superseded": '<path class="tl-m tl-m-superseded" d="M{x} {top}l4.5 4.5l-4.5 4.5l-4.5 -4.5z"><title>{t}</title></path>',
    "retracted": '<path class="tl-m tl-m-retracted" d="M{left} {corner}l7 7m0 -7l-7 7"><title>{t}</title></path>',
    "contested": '<path class="tl-m tl-m-contested" d="M{x} {peak}l4.8 8.5h-9.6z"><title>{t}</title></path>',
    "forgotten": '<rect class="tl-m tl-m-forgotten" x="{left}" y="{corner}" width="7" height="7"><title>{t}</title></rect>',
    "reasserted": '<circle class="tl-m tl-m-reasserted" cx="{x}" cy="{y}" r="3"><title>{t}</title></circle>',
}


def _marker(kind: str, x: float, y: int, title: str) -> str:
    shape = _MARKER_SHAPES.get(kind, _MARKER_SHAPES["reasserted"])
    return shape.format(x=x, y=y, top=y - 4.5, peak=y - 5, left=round(x - 3.5, 1), corner=y - 3.5, t=title)


def _label(row) -> str:
    x, y = LABEL_WIDTH, row.y
    if len(row.lines) == 1:
        return f'<text class="tl-label" x="{x}" y="{y + 14}">{escape_text(row.lines[0])}</text>'
    first, second = (escape_text(line) for line in row.lines)
    return (f'<text class="tl-label tl-label-2" x="{x}" y="{y + 11}">{first}'
            f'<tspan x="{x}" dy="12">{second}</tspan></text>')


def timeline_svg(timeline: Timeline, esc: Escape = escape_text) -> Markup:
    """The `<svg>` element of one timeline: axis, one row per fact, and the valid-time cursor.

    `esc` escapes the strings that repeat (statuses, ids, colours, marker titles); a row's own
    label and title are escaped directly.
    """
    t = timeline
    axis_y = t.height - 22
    out = [f'<svg class="timeline-svg" viewBox="0 0 {WIDTH} {t.height}" preserveAspectRatio="xMinYMin meet" '
           f'role="img" aria-label="Timeline of {escape_text(t.title)}" data-start="{t.start_day}" '
           f'data-end="{t.end_day}" data-plot-left="{PLOT_LEFT}" data-plot-right="{PLOT_RIGHT}">\n<g class="tl-axis">']
    for tick in t.ticks:
        x = tick.x
        out.append(f'<line class="tl-gridline" x1="{x}" x2="{x}" y1="0" y2="{axis_y}"/>'
                   f'<text class="tl-tick" x="{x}" y="{axis_y + 15}">{esc(tick.label)}</text>')
    out.append(f'<line class="tl-baseline" x1="{PLOT_LEFT}" x2="{PLOT_RIGHT}" y1="{axis_y}" y2="{axis_y}"/></g>\n')
    for row in t.rows:
        y = row.y
        # the whole row answers a click (it selects its fact), whatever it draws: a row without a bar is mostly empty
        parts = [f'<g class="tl-row tl-{esc(row.status)}{" tl-is-contested" if row.contested else ""}" '
                 f'data-fact="{esc(row.fact_id)}"><title>{escape_text(row.title)}</title>'
                 f'<rect class="tl-hit" x="0" y="{y}" width="{WIDTH}" height="{ROW_HEIGHT}" fill="transparent"/>', _label(row)]
        bar = row.bar
        if row.unstated:   # nobody said when it held: no bar, which would claim all of time
            parts.append(f'<text class="tl-unstated" x="{PLOT_LEFT + 4}" y="{y + 14}">validity not stated</text>')
        elif bar is not None:
            color, x = esc(bar.color), bar.x
            parts.append(f'<rect class="tl-bar" x="{x}" y="{y + 4}" width="{bar.width}" height="13" rx="3" fill="{color}"/>')
            if bar.open_end:
                parts.append(f'<path class="tl-open" d="M{round(x + bar.width, 1)} {y + 4}l6 6.5l-6 6.5z" fill="{color}"/>')
            if bar.open_start:
                parts.append(f'<path class="tl-open-start" d="M{x} {y + 2}v17"/>')
        marker_y = y + 25
        parts.extend(_marker(m.kind, m.x, marker_y, esc(m.title)) for m in row.markers)
        parts.append("</g>\n")
        out.append("".join(parts))
    out.append(f'<line class="tl-cursor" x1="-10" x2="-10" y1="0" y2="{axis_y}"/></svg>')
    return Markup("".join(out))
