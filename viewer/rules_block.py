"""The memory brief in a host's rules file (CLAUDE.md, AGENTS.md, GEMINI.md, a Cursor rule), for a
setup that takes no session-start hook: a block between two marked comments that memlens writes and
`memlens maintain` keeps current; every byte outside it is the user's and stays as it is.

The file is usually committed, so it is treated as any path that comes with the working tree: it
is reached from its project without passing through a link, and only a regular file of bounded
size is read.
"""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from memlens.store import brief, datasets
from memlens.store.brief_repo import repository_names
from memlens.store.confined import UntrustedFileError, read_inside
from memlens.store.errors import InvalidInput

from .atomic import atomic_write

BEGIN = "<!-- BEGIN memlens brief: rewritten by `memlens maintain`; edit outside this block -->"
END = "<!-- END memlens brief -->"
# Cursor's rule files start with front matter; memlens writes its own rule file
CURSOR_RULE = '---\ndescription: "What this project\'s memory holds (memlens)"\nalwaysApply: true\n---\n'
# a rules file is read whole into the agent's context: a few kilobytes, never this much
RULES_LIMIT = 4 << 20
NO_MEMORY = "This project has no memory yet: `memlens maintain` fills this block once it has one."


def block(body: str, dataset: str, snapshot_hash: str) -> str:
    """The block holding `body`, in which no line can pass for a marker: a comment opener in the
    memory's text is shown as text (`&lt;!--`), so a fact cannot close the block early. Its second
    line names the snapshot in the form `regeneration.bundle_hash` reads."""
    safe = body.replace("<!--", "&lt;!--").replace("-->", "--&gt;")
    return (f"{BEGIN}\n<!-- memlens brief of {dataset}; "
            f'<meta name="memlens-snapshot-hash" content="{snapshot_hash}"> -->\n{safe.rstrip()}\n{END}\n')


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


def project_root(path: Path) -> Path:
    """The project a rules file belongs to: its folder, or for a Cursor rule (.cursor/rules/x.mdc)
    the folder two above."""
    return path.parents[2] if path.suffix == ".mdc" else path.parent


def read_rules(path: Path) -> str | None:
    """The text of the rules file at `path` (None if there is none), reached from its project
    without passing through a link, and a regular file of bounded size."""
    root = project_root(path)
    relative = path.relative_to(root).as_posix()
    way = root
    for part in relative.split("/"):
        way = way / part
        if os.path.islink(way):
            raise UntrustedFileError(f"{path} passes through a link ({way}); memlens writes no rules file there")
    if not os.path.lexists(path):
        return None
    try:
        return read_inside(root, relative, RULES_LIMIT).decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"{path} is not UTF-8 text; fix it first") from None


def with_brief(conn: sqlite3.Connection | None, store: Path, path: Path, text: str | None) -> str:
    """`text` of the rules file at `path` with its block holding the store's brief now (a
    placeholder where there is no store yet)."""
    dataset = datasets.name_of(store)
    if conn is None:
        body, snapshot_hash = NO_MEMORY, "none"
    else:
        conn.execute("BEGIN")   # one read transaction: a file tells no changes since a last brief
        try:
            made = brief.compose(conn, dataset=dataset, named=repository_names(project_root(path)))
        finally:
            conn.execute("COMMIT")
        body, snapshot_hash = made.text, made.hash
    start = CURSOR_RULE if text is None and path.suffix == ".mdc" else text
    return with_block(start, block(body, dataset, snapshot_hash), path)


def write_rules_block(conn: sqlite3.Connection, store: Path, path: Path) -> bool:
    """Bring the block in the rules file at `path` up to date (`memlens maintain`, through the
    bundle `hooks install --rules-file` configured); False if it already was (nothing written)."""
    text = read_rules(path)
    new = with_brief(conn, store, path, text)
    if new == text:
        return False
    atomic_write(path, new)
    return True
