"""`memlens verify` of a report's page: draw the page again from the report's own data and compare
every byte, naming the first place that differs.

A report's page is drawn from its snapshot (checked against its seal before this runs), from what
its data blocks say of the drawing (each entity's position, each type's colour and shape, whether
superseded facts show at first) and from its PAGE_BLOCK record (the code that drew it and the
changes its panel shows). Those are handed to the writer as a regeneration hands them, and the page
it writes must be the page read, byte for byte, data blocks included: their gzip headers, whose
fields could carry other bytes, and their compression (the zlib that drew a report is part of what
drew it: renderer.renderer_id).

A report drawn by other code (another memlens version), or written before reports carried their
record, is not drawn again: the check says so, and only the data was checked.
"""
from __future__ import annotations

import base64
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

import orjson

from memlens.store.errors import MemlensError, SnapshotAltered
from memlens.store.snapshot import memlens_version

from ..model.palette import TypeLook
from .codec import _ELEMENT, _GZIP_HEADER, MAIN_BLOCK, PAGE_BLOCK, _decompressed, decode_layout, inflate_limit
from .renderer import renderer_id


@dataclass(frozen=True)
class PageCheck:
    """Whether every byte of the page around the data was checked; if not, `why` says why."""

    checked: bool
    why: str = ""


def check_page(page: bytes, path: str, blocks: dict[str, dict[str, Any]], snapshot: dict[str, Any]) -> PageCheck:
    """Raise SnapshotAltered naming the first place where `page` differs from the page memlens draws
    from `blocks` (read from it, with PAGE_BLOCK) and `snapshot` (decoded from them, seal checked)."""
    record = blocks.get(PAGE_BLOCK)
    why = drawn_by_other_code(record, f"a {blocks[MAIN_BLOCK].get('version')} report from before reports recorded "
                                      "what drew them")
    if why is not None:
        return PageCheck(False, why)
    check_changes(record.get("changes"), snapshot, path)
    expected = _drawn_again(blocks, snapshot, record, path)
    place = first_difference(page, expected, snapshot)
    if place is not None:
        raise SnapshotAltered(f"{path}: the page first differs from what memlens draws from the report's own "
                              f"data at {place}")
    return PageCheck(True)


def drawn_by_other_code(record: dict[str, Any] | None, without_record: str) -> str | None:
    """Why a bundle whose page carries `record` (PAGE_BLOCK) cannot be drawn again here byte for
    byte ("it is `without_record`" where it has none); None if it can."""
    if record is None:
        return f"it is {without_record}"
    if record.get("renderer") != renderer_id():
        drawn_by, ours = str(record.get("memlens"))[:40], memlens_version()
        other = f"memlens {drawn_by}" if drawn_by != ours else f"a memlens {ours} with other templates or page code"
        return f"it was drawn by {other}, which this memlens ({ours}) cannot draw again byte for byte"
    return None


def check_changes(changes: Any, snapshot: dict[str, Any], path: str) -> None:
    """The changes the panel shows name this snapshot's records as its data does: each item is what
    snapshot.diff.diff makes of its id from this snapshot (names, the superseding fact, the entity
    merged into), and the newer end is this snapshot. Which ids changed, and the older end, are the
    report's word about a snapshot it does not carry: no seal covers them."""
    if changes is None:
        return
    try:
        facts = {f["id"]: f for f in snapshot["facts"]}
        entities = {e["id"]: e for e in snapshot["entities"]}
        names = {entity_id: e["name"] for entity_id, e in entities.items()}
        if changes["to"] != {"hash": snapshot["hash"], "generated_at": snapshot["generated_at"]}:
            raise SnapshotAltered(f"{path}: its changes-since panel is not about this report's snapshot")
        for kind, entries in changes["changes"].items():
            for entry in entries:
                if entry != _change_entry(kind, entry["id"], facts, entities, names):
                    raise SnapshotAltered(f"{path}: its changes-since panel names {kind.replace('_', ' ')} "
                                          f"{str(entry.get('id'))[:40]!r} otherwise than its data does")
    except (KeyError, TypeError, AttributeError):
        raise SnapshotAltered(f"{path}: its changes-since record is not a diff memlens makes") from None


def _change_entry(kind: str, item: str, facts: dict[str, Any], entities: dict[str, Any],
                  names: dict[str, str]) -> dict[str, Any]:
    """What snapshot.diff.diff lists for `item` under `kind`, made from this snapshot."""
    if kind in ("facts_forgotten", "entities_removed"):
        return {"id": item}
    if kind.startswith("entities_"):
        entry = {"id": item, "name": names[item]}
        if kind == "entities_merged":
            into = entities[item]["merged_into"]
            entry.update(into=into, into_name=names.get(into, ""))
        return entry
    fact = facts.get(item)
    if fact is None or fact["relation"] is None:
        return {"id": item}
    entry = {"id": item, "subject": names.get(fact["subject"], ""), "relation": fact["relation"],
             "object": names.get(fact["object"], "")}
    if kind == "facts_superseded" and fact["status"] == "superseded" and fact["superseded_by"]:
        entry["by"] = fact["superseded_by"]
    return entry


def _drawn_again(blocks: dict[str, dict[str, Any]], snapshot: dict[str, Any], record: dict[str, Any],
                 path: str) -> bytes:
    from .page import report_chunks   # jinja2 and the layout: only once the data checked out

    layout, looks = drawing_of(blocks, path)
    try:
        chunks = report_chunks(snapshot, show_superseded=blocks[MAIN_BLOCK]["showSuperseded"],
                               changes=record.get("changes"), previous_layout=layout, previous_looks=looks)
        return "".join(chunks).encode("utf-8")
    except DRAWING_FAILS as exc:
        raise cannot_draw(path, exc) from None


DRAWING_FAILS = (MemlensError, KeyError, IndexError, TypeError, ValueError, AttributeError)


def cannot_draw(path: str, exc: Exception) -> SnapshotAltered:
    return SnapshotAltered(f"{path}: its page cannot be drawn again from its own data "
                           f"({f'{type(exc).__name__}: {exc}'[:200]})")


def drawing_of(blocks: dict[str, dict[str, Any]], path: str
               ) -> tuple[dict[str, tuple[float, float]], dict[str, TypeLook]]:
    """Where a page drew each entity and each type's look, from its main data block."""
    main = blocks[MAIN_BLOCK]
    try:
        return decode_layout(main), {t["name"]: TypeLook(t["color"], t["shape"]) for t in main["types"]}
    except DRAWING_FAILS as exc:
        raise cannot_draw(path, exc) from None


def first_difference(page: bytes, expected: bytes, snapshot: dict[str, Any]) -> str | None:
    """Where `page` first departs from `expected`, in words; None if they are the same page."""
    if page == expected:
        return None
    found, wanted = _ELEMENT.split(page), _ELEMENT.split(expected)
    offset = 0   # of the current text part in `expected`
    for start in range(0, max(len(found), len(wanted)), 3):
        text, want = _part(found, start), _part(wanted, start)
        if text != want:
            at = offset + _common_prefix(text or b"", want or b"")
            return _place_in_text(expected, at, snapshot)
        offset += len(want or b"")
        name, want_name = _part(found, start + 1), _part(wanted, start + 1)
        if name != want_name:
            return (f"the data block {_shown(name)}, where memlens writes {_shown(want_name)}," if name and want_name
                    else f"a data block {_shown(name)} memlens does not write" if name
                    else f"a missing data block {_shown(want_name)}")
        payload, want_payload = _part(found, start + 2), _part(wanted, start + 2)
        if payload != want_payload:
            where = _block_difference(payload or b"", want_payload or b"", inflate_limit(len(page)))
            return f"the data block {_shown(name)} ({where})"
        offset += _element_length(want_name, want_payload or b"")
    return None


def _part(parts: list[bytes], index: int) -> bytes | None:
    return parts[index] if index < len(parts) else None


def _element_length(name: bytes | None, payload: bytes) -> int:
    return len(b'<script type="application/gzip" id="" data-encoding="base64"></script>') + len(name or b"") + len(payload)


def _common_prefix(a: bytes, b: bytes) -> int:
    """The length of what `a` and `b` start with alike (halving: a page is megabytes)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _block_difference(payload: bytes, wanted: bytes, limit: int) -> str:
    """What differs between two data blocks: a block holds the very bytes memlens writes (its gzip
    header, whose time, system and optional fields could carry other bytes, its compression and
    its base64 included), so the same data packed otherwise differs too."""
    try:
        found = _decompressed(payload, limit)
    except ValueError as exc:
        return f"damaged: {exc}"
    expected = _decompressed(wanted, max(limit, len(wanted) * 1032))
    if found == expected:
        header = base64.b64decode(payload[:16], validate=False)[:len(_GZIP_HEADER)]
        return ("its gzip header is not the one memlens writes" if header != _GZIP_HEADER
                else "the same data, packed otherwise than memlens packs it")
    try:
        found_value, expected_value = orjson.loads(found), orjson.loads(expected)
    except ValueError:
        return "its data"
    if found_value == expected_value:
        return "the same data, written otherwise than memlens writes it"
    if isinstance(found_value, dict) and isinstance(expected_value, dict):
        keys = sorted(set(found_value) | set(expected_value))
        key = next(k for k in keys if found_value.get(k) != expected_value.get(k)
                   or (k in found_value) != (k in expected_value))
        return f"its {key[:40]!r}"
    return "its data"


def _shown(name: bytes | None) -> str:
    return repr((name or b"").decode("ascii", "replace")[:40])


# -- naming a place in the page --------------------------------------------------------------------------

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# attributes that name what an element shows: an entity, a fact, a change, a maintenance group
_NAMING = ("data-entity", "data-ref-id", "data-change-id", "data-kind", "data-list", "data-count")


class _OpenElements(HTMLParser):
    """The elements open at the end of what it was fed."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _VOID:
            self.open.append((tag, {k: v or "" for k, v in attrs}))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass   # `<path .../>` opens nothing

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.open) - 1, -1, -1):
            if self.open[depth][0] == tag:
                del self.open[depth:]
                return


def _place_in_text(expected: bytes, at: int, snapshot: dict[str, Any]) -> str:
    """"line L (in section#panel-maintenance > ... ; entity 'id' ("name"))": where offset `at` of the
    page memlens draws lies, and what the elements around it show."""
    before = expected[:at].decode("utf-8", "replace")
    line = before.count("\n") + 1
    parser = _OpenElements()
    parser.feed(before)
    stack = parser.open
    if not stack:
        return f"line {line} (outside the page's elements)"
    path = " > ".join(_element_name(tag, attrs) for tag, attrs in stack[-5:])
    named = _what_it_shows(stack, snapshot)
    return f"line {line} (in {path}{'; ' + named if named else ''})"


def _element_name(tag: str, attrs: dict[str, str]) -> str:
    if attrs.get("id"):
        return f"{tag}#{attrs['id'][:60]}"
    if attrs.get("class"):
        return f"{tag}.{attrs['class'].split()[0][:40]}"
    return tag


def _what_it_shows(stack: list[tuple[str, dict[str, str]]], snapshot: dict[str, Any]) -> str:
    """The innermost entity, fact or maintenance group an open element names."""
    for _, attrs in reversed(stack):
        for attribute in _NAMING:
            value = attrs.get(attribute)
            if value:
                return _named(attribute, value, snapshot)
    return ""


def _named(attribute: str, value: str, snapshot: dict[str, Any]) -> str:
    entities = {e.get("id"): e.get("name") for e in snapshot.get("entities", []) if isinstance(e, dict)}
    if value in entities:
        return f"entity {value[:40]!r} ({str(entities[value])[:60]!r})"
    if any(isinstance(f, dict) and f.get("id") == value for f in snapshot.get("facts", [])):
        return f"fact {value[:40]!r}"
    return f"{attribute.removeprefix('data-')} {value[:60]!r}"
