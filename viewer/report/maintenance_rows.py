"""A maintenance row's cells as HTML: the one rendering of a worklist task and of a dismissal that
the report's Maintenance tab (templates/_maintenance.html) and a site's maintenance pages
(site/site_pages.py) share. static/maintenance.js draws the rows the report pages in the same way;
tests/test_bounded_hub.py holds the two to each other."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from markupsafe import Markup

from ..model.escaping import escape_text
from ..model.time_axis import short_record_time


def task_cell(sentence: str, commands: Iterable[tuple[str, str]]) -> Markup:
    """A worklist task: its sentence, then each answer's command on a line of its own."""
    listed = "".join(f'<li><span class="task-when">If {escape_text(when)}: </span><code class="task-command">'
                     f'{escape_text(command)}</code></li>' for when, command in commands)
    return Markup(f'<td><p class="task-sentence">{escape_text(sentence)}</p><ul class="task-commands">{listed}</ul></td>')


def dismissal_cells(key: Any, reason: Any, actor: Any, at: Any) -> Markup:
    """A dismissal: the candidate's key, why it was declined, by whom and when."""
    at = str(at or "")
    return Markup(f'<td><div class="key-text">{escape_text(key)}</div></td><td>{escape_text(reason or "")}</td>'
                  f'<td class="actor">{escape_text(actor or "")}</td>'
                  f'<td class="time"><time datetime="{escape_text(at)}">{escape_text(short_record_time(at))}</time></td>')
