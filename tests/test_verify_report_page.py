"""`memlens verify` of a report checks every byte: the page around the data is drawn again from the
report's own sealed data and compared, and the first place that differs is named."""
from __future__ import annotations

import base64
import re
import struct
import zlib
from pathlib import Path
from typing import Any, Callable

import orjson
import pytest

from memlens.store import demo
from memlens.store.facts import FactInput
from memlens.store.memory import Memory
from memlens.viewer.report.codec import _ELEMENT, _compressed, _decompressed, _json

TIMELINE_TITLE = re.compile(rb'<figure class="timeline"[^>]*data-entity="([^"]+)".*?<title>([^<]+)</title>', re.S)


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    demo.build(path).close()
    return path


@pytest.fixture
def report(cli, demo_store, tmp_path) -> Path:
    out = tmp_path / "report.html"
    result = cli("export", "--db", str(demo_store), "--format", "html", "-o", str(out))
    assert result.exit_code == 0, result.output
    return out


def edited(report: Path, at: int, name: str) -> Path:
    """A copy of the report with the byte at `at` changed."""
    data = report.read_bytes()
    changed = report.with_name(name)
    changed.write_bytes(data[:at] + (b"X" if data[at:at + 1] != b"X" else b"Y") + data[at + 1:])
    return changed


def with_block(report: Path, block: str, change: Callable[[dict[str, Any]], None], name: str) -> Path:
    """A copy of the report whose data block `block` says what `change` made of it, compressed again."""
    page = report.read_bytes()
    match = next(m for m in _ELEMENT.finditer(page) if m.group(1) == block.encode())
    data = orjson.loads(_decompressed(match.group(2), 1 << 30))
    change(data)
    copy = report.with_name(name)
    copy.write_bytes(page[:match.start(2)] + _compressed(_json(data)).encode() + page[match.end(2):])
    return copy


def without_block(report: Path, block: str, name: str) -> Path:
    page = report.read_bytes()
    match = next(m for m in _ELEMENT.finditer(page) if m.group(1) == block.encode())
    copy = report.with_name(name)
    copy.write_bytes(page[:match.start()] + page[match.end() + 1:])   # and its newline
    return copy


def failure(cli, path: Path) -> str:
    result = cli("verify", str(path))
    assert result.exit_code == 1, result.output
    assert len(result.output.splitlines()) == 1 and result.output.startswith(f"Error: {path}: ")
    return result.output


def test_the_untouched_report_passes_every_byte_of_it(cli, report):
    result = cli("verify", str(report))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith(f"ok: {report}: 51 entities (1 more merged into them), 93 facts, ") and "and every byte of the page match" in lines[0]
    assert lines[-1] == ("this proves integrity, not authorship: a seal is no signature, and anyone can write a "
                         "bundle that verifies")
    assert "note:" not in result.output


@pytest.mark.parametrize("part, find, named", [
    ("a maintenance row", lambda page: page.index(b"ask Dana which one production uses", page.index(b'class="worklist"')),
     ["table.worklist > tbody > tr > td", "kind 'contradiction'"]),
    ("the header", lambda page: page.index(b'class="dataset-name">') + len(b'class="dataset-name">'),
     ["header.masthead", "h1.dataset-name"]),
    ("a noscript part", lambda page: page.index(b"<noscript>") + len(b"<noscript><p"), ["noscript"]),
    ("the page's title", lambda page: page.index(b"<title>") + len(b"<title>"), ["head > title"]),
])
def test_an_edited_character_in_the_page_is_named_by_its_place(cli, report, part, find, named):
    changed = edited(report, find(report.read_bytes()), "edited.html")
    output = failure(cli, changed)
    assert "the page first differs from what memlens draws from the report's own data at line " in output
    assert all(words in output for words in named), (part, output)
    assert cli("verify", str(report)).exit_code == 0


def test_an_edited_character_in_a_timelines_drawing_names_the_timeline_and_its_entity(cli, report):
    page = report.read_bytes()
    drawn = TIMELINE_TITLE.search(page)
    entity = drawn.group(1).decode()
    output = failure(cli, edited(report, drawn.start(2), "svg.html"))
    assert "svg.timeline-svg" in output and f"entity '{entity}'" in output, output


def test_a_changed_fact_in_a_data_block_is_named_by_its_id(cli, report):
    def describe(block: dict[str, Any]) -> None:
        block["description"][0] += " (edited)"

    output = failure(cli, with_block(report, "memlens-texts", describe, "texts.html"))
    assert "fact '" in output and "differs from its seal" in output


def test_a_changed_drawing_in_a_data_block_outside_the_snapshot_is_named_by_the_block(cli, report):
    def reorder(block: dict[str, Any]) -> None:
        block["overview"] = block["overview"][::-1]

    output = failure(cli, with_block(report, "memlens-data", reorder, "overview.html"))
    assert "the data block 'memlens-data' (its 'overview')" in output


def test_a_damaged_data_block_is_one_line_naming_it(cli, report):
    page = report.read_bytes()
    block = next(m for m in _ELEMENT.finditer(page) if m.group(1) == b"memlens-ledger")
    output = failure(cli, edited(report, block.start(2) + 40, "damaged.html"))
    assert "memlens-ledger block" in output


def test_a_report_from_before_pages_were_checked_is_checked_as_far_as_its_data_and_says_so(cli, report):
    older = without_block(report, "memlens-page", "older.html")
    result = cli("verify", str(older))
    assert result.exit_code == 0, result.output
    assert "every byte of the page" not in result.output
    assert ("note: the page around the data was not checked: it is a memlens-page/2 report from before reports "
            "recorded what drew them") in result.output

    def describe(block: dict[str, Any]) -> None:
        block["description"][0] += " (edited)"

    assert "differs from its seal" in failure(cli, with_block(older, "memlens-texts", describe, "older-texts.html"))


def test_a_report_drawn_by_other_code_is_checked_as_far_as_its_data_and_says_so(cli, report):
    def other(block: dict[str, Any]) -> None:
        block.update(memlens="0.0.1", renderer="0" * 64)

    result = cli("verify", str(with_block(report, "memlens-page", other, "other.html")))
    assert result.exit_code == 0, result.output
    assert "note: the page around the data was not checked: it was drawn by memlens 0.0.1, which this memlens" in result.output
    assert cli("verify", "--json", str(report)).exit_code == 0


def regenerated_report(cli, demo_store: Path, tmp_path: Path) -> Path:
    """The demo's report, regenerated by `view --if-changed` after one new fact: it has a changes panel."""
    store = tmp_path / "store.sqlite"
    store.write_bytes(demo_store.read_bytes())
    out = tmp_path / "regenerated.html"
    assert cli("view", "--db", str(store), "--out", str(out), "--no-open").exit_code == 0
    with Memory(store) as memory:
        memory.remember([FactInput("billing-service", "uses", "redis", "Service", "Library", evidence=("x",))])
    assert cli("view", "--db", str(store), "--out", str(out), "--no-open", "--if-changed").exit_code == 0
    return out


def test_a_regenerated_report_with_its_changes_panel_passes_and_its_panel_is_checked(cli, demo_store, tmp_path):
    out = regenerated_report(cli, demo_store, tmp_path)
    page = out.read_bytes()
    assert b'id="panel-changes"' in page
    result = cli("verify", "--json", str(out))
    assert result.exit_code == 0, result.output
    assert '"page": true' in result.output
    panel = page.index(b'id="panel-changes"')
    output = failure(cli, edited(out, page.index(b"<li", panel) + 20, "changes.html"))
    assert "section#panel-changes" in output


def test_changes_since_that_name_a_record_otherwise_than_the_data_are_found(cli, demo_store, tmp_path):
    out = regenerated_report(cli, demo_store, tmp_path)
    assert cli("verify", str(out)).exit_code == 0

    def renamed(block: dict[str, Any]) -> None:
        added = block["changes"]["changes"]["facts_added"]
        assert added and added[0]["relation"] == "uses"
        added[0]["relation"] = "was paid by"

    output = failure(cli, with_block(out, "memlens-page", renamed, "renamed.html"))
    assert "its changes-since panel names facts added '" in output and "otherwise than its data does" in output

    def elsewhere(block: dict[str, Any]) -> None:
        block["changes"]["to"]["hash"] = "sha256:" + "0" * 64

    assert "its changes-since panel is not about this report's snapshot" in failure(
        cli, with_block(out, "memlens-page", elsewhere, "elsewhere.html"))


def test_a_memlens_page_1_report_is_checked_as_far_as_its_sealed_data_and_says_so(cli, report, tmp_path):
    """The first format kept the worklist, the dismissals and the seal in its main block."""
    from memlens.viewer.report.codec import Block, decode, parse_blocks

    page = report.read_bytes()
    blocks = parse_blocks(page, str(report))
    rows = decode(blocks)["maintenance"]
    main = blocks["memlens-data"]
    main.update((name, blocks["memlens-maintenance"][name]) for name in ("worklist", "dismissals", "maintenance"))
    main["worklist"]["content"] = [row["content"] for row in rows]   # /1 spelled every one out
    main["meta"] = {**main["meta"], "seal": blocks["memlens-seal"]["seal"]}
    older = {name: dict(block, version="memlens-page/1") for name, block in blocks.items()
             if name not in ("memlens-maintenance", "memlens-seal")}
    elements = "\n".join(Block(name, _compressed(_json(block))).__html__() for name, block in older.items())
    found = list(_ELEMENT.finditer(page))
    old = tmp_path / "page-1.html"
    old.write_bytes(page[:found[0].start()] + elements.encode() + page[found[-1].end():])
    result = cli("verify", str(old))
    assert result.exit_code == 0, result.output
    assert ("note: the page around the data was not checked: it is a memlens-page/1 report from before reports "
            "recorded what drew them") in result.output

    def describe(block: dict[str, Any]) -> None:
        block["description"][0] += " (edited)"

    assert "differs from its seal" in failure(cli, with_block(old, "memlens-texts", describe, "page-1-edited.html"))


def repacked(report: Path, block: str, pack: Callable[[bytes], bytes], name: str) -> Path:
    """A copy of the report whose data block `block` holds the same data, packed by `pack` (data ->
    the gzip stream, then base64 as memlens writes it)."""
    page = report.read_bytes()
    match = next(m for m in _ELEMENT.finditer(page) if m.group(1) == block.encode())
    data = _decompressed(match.group(2), 1 << 30)
    copy = report.with_name(name)
    copy.write_bytes(page[:match.start(2)] + base64.b64encode(pack(data)) + page[match.end(2):])
    return copy


def _gzip(data: bytes, *, level: int = 4, mtime: int = 0, comment: bytes = b"") -> bytes:
    """A gzip stream of `data`, with the header fields memlens leaves empty set as given."""
    flags = 0x10 if comment else 0
    header = b"\x1f\x8b\x08" + bytes([flags]) + struct.pack("<I", mtime) + b"\x00\xff"
    if comment:
        header += comment + b"\0"
    deflate = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = deflate.compress(data) + deflate.flush()
    return header + body + struct.pack("<II", zlib.crc32(data), len(data))


def test_the_report_repacked_as_memlens_packs_it_passes(cli, report):
    """The positive twin of the repacked blocks below: the same data packed the way memlens packs it
    is the very page, and verifies."""
    same = repacked(report, "memlens-data", _gzip, "same.html")
    assert same.read_bytes() == report.read_bytes()
    assert cli("verify", str(same)).exit_code == 0


@pytest.mark.parametrize("block, pack, why", [
    ("memlens-data", lambda data: _gzip(data, mtime=1_700_000_000), "its gzip header is not the one memlens writes"),
    ("memlens-facts", lambda data: _gzip(data, comment=b"hidden bytes"), "its gzip header is not the one memlens writes"),
    ("memlens-ledger", lambda data: _gzip(data, level=9), "the same data, packed otherwise than memlens packs it"),
])
def test_a_data_block_packed_otherwise_fails_though_its_data_is_the_same(cli, report, block, pack, why):
    changed = repacked(report, block, pack, "repacked.html")
    assert changed.read_bytes() != report.read_bytes()
    assert _decompressed(next(m for m in _ELEMENT.finditer(changed.read_bytes()) if m.group(1) == block.encode())
                         .group(2), 1 << 30) == _decompressed(next(m for m in _ELEMENT.finditer(report.read_bytes())
                                                                   if m.group(1) == block.encode()).group(2), 1 << 30)
    said = failure(cli, changed)
    assert f"the data block '{block}' ({why})" in said


def test_whitespace_in_the_page_record_fails(cli, report):
    page = report.read_bytes()
    match = next(m for m in _ELEMENT.finditer(page) if m.group(1) == b"memlens-page")
    record = orjson.loads(_decompressed(match.group(2), 1 << 30))
    spaced = report.with_name("spaced.html")
    spaced.write_bytes(page[:match.start(2)] + _compressed(orjson.dumps(record, option=orjson.OPT_INDENT_2)).encode()
                       + page[match.end(2):])
    said = failure(cli, spaced)
    assert "the data block 'memlens-page' (the same data, written otherwise than memlens writes it)" in said
