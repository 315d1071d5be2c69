"""The memory brief in a host's rules file (CLAUDE.md, AGENTS.md, GEMINI.md, a Cursor rule), for a
setup that takes no session-start hook: a block between two marked comments that memlens writes and
`memlens maintain` keeps current; every byte outside it is the user's and stays as it is.

The file is usually committed, so it is treated as any path that comes with the working tree: a
link leading out of the project is refused, and only a regular file of bounded size is read.
"""
from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from memlens.store.errors import InvalidInput

BEGIN = "<!-- BEGIN memlens brief: rewritten by `memlens maintain`; edit outside this block -->"
END = "<!-- END memlens brief -->"
# Cursor's rule files start with front matter; memlens writes its own rule file
CURSOR_RULE = '---\ndescription: "What this project\'s memory holds (memlens)"\nalwaysApply: true\n---\n'
_HASH = re.compile(r'<!-- memlens snapshot ([0-9a-f]+) -->')


def block(body: str, snapshot_hash: str) -> str:
    """The block holding `body`, in which no line can pass for a marker: a comment opener in the
    memory's text is shown as text (`&lt;!--`), so a fact cannot close the block early."""
    safe = body.replace("<!--", "&lt;!--").replace("-->", "--&gt;")
    return f"{BEGIN}\n<!-- memlens snapshot {snapshot_hash} -->\n{safe.rstrip()}\n{END}\n"


def _span(text: str, shown: Path) -> tuple[int, int] | None:
    starts, ends = text.count(BEGIN), text.count(END)
    if starts == ends == 0:
        return None
    start, end = text.find(BEGIN), text.find(END)
    if starts != 1 or ends != 1 or end < start:
        raise InvalidInput(f"{shown} holds memlens's block markers {starts} and {ends} times, or out of order; "
                           "keep one BEGIN and one END line (or neither) and run again")
    end += len(END)
    return start, end + 1 if text.startswith("\n", end) else end


def with_block(text: str | None, new_block: str, shown: Path) -> str:
    """`text` (None: a new file) with memlens's block replaced, or appended after a blank line."""
    if text is None:
        return new_block
    span = _span(text, shown)
    if span is not None:
        return text[:span[0]] + new_block + text[span[1]:]
    separator = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
    return text + separator + new_block


def without_block(text: str, shown: Path) -> str | None:
    """`text` without memlens's block (the inverse of `with_block`); None if it held no block."""
    span = _span(text, shown)
    if span is None:
        return None
    start, end = span
    if text[:start].endswith("\n\n"):
        start -= 1
    return text[:start] + text[end:]


def snapshot_of(text: str) -> str | None:
    """The snapshot hash the block in `text` was written from."""
    span = text.find(BEGIN)
    match = _HASH.search(text, span) if span != -1 else None
    return match.group(1) if match else None
