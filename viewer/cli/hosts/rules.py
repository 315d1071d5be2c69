"""`hooks install --rules-file`: the memory brief in the host's project rules file, in a marked
block (viewer/rules_block.py) that `memlens maintain` keeps current, as a bundle of format `rules`
configured for the project's dataset. Off unless asked: the file is one people commit."""
from __future__ import annotations

import os
from pathlib import Path

from memlens.store import datasets
from memlens.store.errors import NotFound
from memlens.store.opening import open_for_reading
from memlens.viewer import regeneration, rules_block

from . import settings_files
from .host import Host, Place
from .pieces import ABSENT, ADDED, PRESENT, REMOVED, UPDATED

LABEL = "brief in the rules file"


def path_of(host: Host, place: Place) -> Path:
    return place.folder / host.rules_file


def check(host: Host, place: Place) -> None:
    """Refuse a rules file that cannot take the block before any other file is written."""
    path = path_of(host, place)
    settings_files.locate(path, place.folder)
    text = rules_block.read_rules(path)
    if text is not None:
        rules_block.without_block(text, path)   # its markers, if any, are memlens's one block


def install(host: Host, place: Place) -> tuple[Path, str]:
    """Write the block now (a placeholder where the project has no memory yet) and have every
    `memlens maintain` rewrite it."""
    path = path_of(host, place)
    real = settings_files.locate(path, place.folder)
    text = rules_block.read_rules(path)
    store = datasets.resolve(None, None)
    if os.path.lexists(store):
        conn = open_for_reading(store)
        try:
            new = rules_block.with_brief(conn, store, path, text)
        finally:
            conn.close()
    else:
        new = rules_block.with_brief(None, store, path, text)
    outcome = ADDED if text is None or rules_block.BEGIN not in text else (PRESENT if new == text else UPDATED)
    if new != text:
        settings_files.write_text(real, new)
    regeneration.add(store, path, "rules")
    return path, outcome


def uninstall(host: Host, place: Place) -> tuple[Path, str]:
    """Take the block out (and the file, if memlens made it and it holds nothing else), and stop
    regenerating it."""
    path = path_of(host, place)
    real = settings_files.locate(path, place.folder)
    text = rules_block.read_rules(path)
    try:
        regeneration.remove(datasets.resolve(None, None), path)
    except NotFound:
        pass
    rest = None if text is None else rules_block.without_block(text, path)
    if rest is None:
        return path, ABSENT
    if settings_files.created_by_memlens(real) and rest in ("", rules_block.CURSOR_RULE):
        settings_files.remove_created(real)
    else:
        settings_files.write_text(real, rest)
    return path, REMOVED


def installed(host: Host, place: Place) -> tuple[Path, bool, bool]:
    """(the rules file, whether it holds the block, whether maintain keeps it current)."""
    path = path_of(host, place)
    text = rules_block.read_rules(path)
    kept = any(bundle.path == str(path.resolve()) and bundle.format == "rules"
               for bundle in regeneration.configured(datasets.resolve(None, None)))
    return path, text is not None and rules_block.BEGIN in text, kept
