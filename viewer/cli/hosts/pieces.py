"""Adding, removing and finding the pieces memlens puts in a host's settings files.

A piece is one entry: an MCP server (a member of an object, such as `mcpServers.memlens`) or a
hook (an element of a list, such as `hooks.SessionEnd`). memlens knows its own entries by their
shape, whatever memlens path they name (`recognise`), so installing again updates the path and
uninstalling removes exactly them; a user's own entry of another shape is never touched, even when
it runs memlens too. A file is read whole and checked before anything is written, and written in
one rename; an install followed by an uninstall leaves its bytes as they were.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from memlens.store.errors import InvalidInput

from . import settings_files
from .jsonedit import JsonText, Node

ADDED, UPDATED, PRESENT, THEIRS, REMOVED, ABSENT = "added", "updated", "present", "theirs", "removed", "absent"


@dataclass(frozen=True)
class SettingsFile:
    path: Path
    syntax: str                   # "json", "jsonc" (JSON with comments) or "toml"
    project: Path | None          # the project it comes with; None: the user's own
    skeleton: str = "{}\n"        # the text of a file memlens creates, before its pieces


@dataclass(frozen=True)
class Piece:
    label: str                        # what it is, as the CLI names it
    file: SettingsFile
    where: tuple[str, ...]            # the object (member `key`) or the list that holds it
    key: str | None
    value: Any
    recognise: Callable[[Any], bool]  # an entry memlens wrote, through any memlens, of any version


@dataclass(frozen=True)
class Found:
    piece: Piece
    state: str            # PRESENT (as this memlens would write it), UPDATED (ours, another path), THEIRS, ABSENT
    value: Any = None     # the entry as found


def install(pieces: Iterable[Piece]) -> list[tuple[Piece, str]]:
    return _apply(pieces, _install_json, _install_toml)


def uninstall(pieces: Iterable[Piece]) -> list[tuple[Piece, str]]:
    return _apply(pieces, _uninstall_json, _uninstall_toml)


def find(pieces: Iterable[Piece]) -> list[Found]:
    """What each piece's file holds in its place (nothing is written)."""
    found = []
    for file, group in _by_file(pieces):
        real = settings_files.locate(file.path, file.project)
        text = settings_files.read_text(real, file.path)
        for piece in group:
            entry = None if text is None else (_entry_toml(text, piece) if file.syntax == "toml"
                                               else _entry_json(_parse(text, file), piece))
            if entry is None:
                found.append(Found(piece, ABSENT))
            elif entry == piece.value:
                found.append(Found(piece, PRESENT, entry))
            else:
                found.append(Found(piece, UPDATED if piece.recognise(entry) else THEIRS, entry))
    return found


def _by_file(pieces: Iterable[Piece]) -> list[tuple[SettingsFile, list[Piece]]]:
    groups: dict[SettingsFile, list[Piece]] = {}
    for piece in pieces:
        groups.setdefault(piece.file, []).append(piece)
    return list(groups.items())


def _apply(pieces, edit_json, edit_toml) -> list[tuple[Piece, str]]:
    """Every file read and every edit made in memory first, so a broken or hostile file stops
    the whole command before any file is written."""
    results, writes = [], []
    for file, group in _by_file(pieces):
        real = settings_files.locate(file.path, file.project)
        before = settings_files.read_text(real, file.path)
        text = before
        for piece in group:
            text, outcome = (edit_toml if file.syntax == "toml" else edit_json)(text, piece)
            results.append((piece, outcome))
        if text != before:
            writes.append((file, real, text))
    for file, real, text in writes:
        if text is None:
            settings_files.remove_created(real)
        else:
            settings_files.write_text(real, text)
    return results


def _gone_if_as_made(text: str, file: SettingsFile) -> str | None:
    """None (remove the file) when memlens created it and it is back to the skeleton it had then."""
    created = settings_files.created_by_memlens(settings_files.locate(file.path, file.project))
    return None if created and text == file.skeleton else text


# --- JSON ---------------------------------------------------------------------------------------

def _parse(text: str, file: SettingsFile) -> JsonText:
    # an empty file is taken as an empty object, as the hosts do
    return JsonText(text if text.strip() else "{}", name=str(file.path), comments=file.syntax == "jsonc")


def _entry_json(doc: JsonText, piece: Piece) -> Any:
    node = doc.find(piece.where)
    if node is None:
        return None
    if piece.key is not None:
        _expect(doc, node, "object", piece)
        child = doc.find(piece.where + (piece.key,))
        return None if child is None else child.value
    _expect(doc, node, "array", piece)
    ours = [child.value for _, child in node.children if piece.recognise(child.value)]
    return next((value for value in ours if value == piece.value), ours[0] if ours else None)


def _expect(doc: JsonText, node: Node, kind: str, piece: Piece) -> None:
    if node.kind != kind:
        what = "an object" if kind == "object" else "a list"
        raise InvalidInput(f"{doc.name}: {'.'.join(piece.where)} is not {what}; fix it first")


def _install_json(text: str | None, piece: Piece) -> tuple[str, str]:
    text = piece.file.skeleton if text is None else text
    doc = _parse(text, piece.file)
    node = doc.find(piece.where)
    if node is None:
        return _create(doc, piece), ADDED
    if piece.key is not None:
        _expect(doc, node, "object", piece)
        child = doc.find(piece.where + (piece.key,))
        if child is None:
            return doc.add(node, piece.value, piece.key), ADDED
        if child.value == piece.value:
            return text, PRESENT
        if not piece.recognise(child.value):
            return text, THEIRS
        return doc.replace(child, piece.value), UPDATED
    _expect(doc, node, "array", piece)
    ours = [index for index, (_, child) in enumerate(node.children) if piece.recognise(child.value)]
    if not ours:
        return doc.add(node, piece.value), ADDED
    if len(ours) == 1 and node.children[ours[0]][1].value == piece.value:
        return text, PRESENT
    for index in reversed(ours[1:]):   # one entry of ours is enough: the first stays, updated
        text = doc.remove(node, index)
        doc = _parse(text, piece.file)
        node = doc.find(piece.where)
    first = node.children[ours[0]][1]
    return (text, UPDATED) if first.value == piece.value else (doc.replace(first, piece.value), UPDATED)


def _create(doc: JsonText, piece: Piece) -> str:
    """The piece added with the objects and list on its way that are missing."""
    depth = len(piece.where)
    while doc.find(piece.where[:depth - 1]) is None:
        depth -= 1
    parent = doc.find(piece.where[:depth - 1])   # an object: find refuses a path through anything else
    inner: Any = {piece.key: piece.value} if piece.key is not None else [piece.value]
    for part in reversed(piece.where[depth:]):
        inner = {part: inner}
    return doc.add(parent, inner, piece.where[depth - 1])


def _uninstall_json(text: str | None, piece: Piece) -> tuple[str | None, str]:
    if text is None:
        return None, ABSENT
    doc = _parse(text, piece.file)
    node = doc.find(piece.where)
    if node is None:
        return text, ABSENT
    if piece.key is not None:
        _expect(doc, node, "object", piece)
        child = doc.find(piece.where + (piece.key,))
        if child is None:
            return text, ABSENT
        if not piece.recognise(child.value):
            return text, THEIRS
        ours = [index for index, (key, _) in enumerate(node.children) if key == piece.key]
    else:
        _expect(doc, node, "array", piece)
        ours = [index for index, (_, child) in enumerate(node.children) if piece.recognise(child.value)]
        if not ours:
            return text, ABSENT
    for index in reversed(ours):
        text = doc.remove(node, index)
        doc = _parse(text, piece.file)
        node = doc.find(piece.where)
    # the objects and list on the way that held only what memlens removed go with it
    for depth in range(len(piece.where), 0, -1):
        node = doc.find(piece.where[:depth])
        if node.children:
            break
        parent = doc.find(piece.where[:depth - 1])
        text = doc.remove(parent, [key for key, _ in parent.children].index(piece.where[depth - 1]))
        doc = _parse(text, piece.file)
    return _gone_if_as_made(text, piece.file), REMOVED


# --- TOML (Codex CLI's config.toml) -------------------------------------------------------------
# tomlkit reads and checks the file; the edit itself is a block of text memlens appends and later
# takes out again ([mcp_servers.memlens] and its lines), which keeps the rest byte for byte.

def _toml(text: str, file: SettingsFile) -> dict[str, Any]:
    try:
        return tomlkit.parse(text).unwrap()
    except TOMLKitError as error:
        raise InvalidInput(f"{file.path} is not valid TOML ({error}); fix it first") from None


def _toml_table(data: dict[str, Any], piece: Piece) -> dict[str, Any] | None:
    for part in piece.where:
        data = data.get(part) if isinstance(data, dict) else None
    if data is not None and not isinstance(data, dict):
        raise InvalidInput(f"{piece.file.path}: {'.'.join(piece.where)} is not a table; fix it first")
    return data


def _entry_toml(text: str, piece: Piece) -> Any:
    table = _toml_table(_toml(text, piece.file), piece)
    return None if table is None else table.get(piece.key)


def _block(piece: Piece) -> str:
    nested: Any = {piece.key: piece.value}
    for part in reversed(piece.where):
        nested = {part: nested}
    return tomlkit.dumps(nested)


def _block_span(text: str, piece: Piece) -> tuple[int, int] | None:
    """Where the block memlens writes for the piece is ([table] header to the next header)."""
    header = re.escape(".".join((*piece.where, piece.key)))
    match = re.search(rf"^\[{header}\][ \t]*\r?$", text, re.MULTILINE)
    if match is None:
        return None
    following = re.search(r"^[ \t]*\[", text[match.end():], re.MULTILINE)
    return match.start(), match.end() + following.start() if following else len(text)


def _checked(new: str, expected: dict[str, Any], piece: Piece) -> str:
    """`new` if it reads as `expected` (the edit changed nothing but the piece), else an error."""
    if _toml(new, piece.file) != expected:
        raise InvalidInput(f"{piece.file.path}: memlens cannot edit this file's {'.'.join(piece.where)} without "
                           "changing something else (an inline table?); add or remove the entry by hand")
    return new


def _install_toml(text: str | None, piece: Piece) -> tuple[str, str]:
    text = piece.file.skeleton if text is None else text
    data = _toml(text, piece.file)
    table = _toml_table(data, piece) or {}
    expected = _toml(text, piece.file)
    target = expected
    for part in piece.where:
        target = target.setdefault(part, {})
    target[piece.key] = piece.value
    existing = table.get(piece.key)
    if existing == piece.value:
        return text, PRESENT
    if existing is None:
        separator = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        return _checked(text + separator + _block(piece), expected, piece), ADDED
    span = _block_span(text, piece)
    if not piece.recognise(existing) or span is None:
        return text, THEIRS
    start, end = span
    return _checked(text[:start] + _block(piece) + ("\n" if end < len(text) else "") + text[end:],
                    expected, piece), UPDATED


def _uninstall_toml(text: str | None, piece: Piece) -> tuple[str | None, str]:
    if text is None:
        return None, ABSENT
    data = _toml(text, piece.file)
    table = _toml_table(data, piece)
    existing = None if table is None else table.get(piece.key)
    if existing is None:
        return text, ABSENT
    span = _block_span(text, piece)
    if not piece.recognise(existing) or span is None:
        return text, THEIRS
    start, end = span
    if text[:start].endswith("\n\n"):
        start -= 1
    elif end < len(text) and text[start:end].endswith("\n\n"):
        end -= 1
    expected = _toml(text, piece.file)
    target = expected
    for part in piece.where:
        target = target[part]
    del target[piece.key]
    if not target and piece.where and _toml_table(_toml(text[:start] + text[end:], piece.file), piece) is None:
        del expected[piece.where[0]]
    return _gone_if_as_made(_checked(text[:start] + text[end:], expected, piece), piece.file), REMOVED
