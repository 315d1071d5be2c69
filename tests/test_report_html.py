"""The rendered page, read back with an HTML parser: self-contained, locked down, complete."""

from __future__ import annotations

import re

import pytest
from viewer_fixtures import (HOSTILE_PAYLOADS, hostile_snapshot, inflated, parse_page, project_ids,
                             project_snapshot)

from memlens.store.errors import BundleError
from memlens.viewer.report import assets
from memlens.viewer.report.codec import BLOCK_TYPE, BLOCKS, LEDGER_BLOCK, MAIN_BLOCK, TEXTS_BLOCK, TIMELINES_BLOCK, parse_blocks
from memlens.viewer.report.csp import source_hash
from memlens.viewer.report.page import SnapshotFormatError, render_report

WEB_URL = re.compile(r"https?:", re.IGNORECASE)
CSS_URL = re.compile(r"url\(\s*['\"]?([^'\")]*)", re.IGNORECASE)


@pytest.fixture(scope="module")
def project_html() -> str:
    return render_report(project_snapshot())


@pytest.fixture(scope="module")
def hostile_html() -> str:
    return render_report(hostile_snapshot())


def csp_directives(page) -> dict[str, list[str]]:
    [meta] = page.find_all("meta", http_equiv="Content-Security-Policy")
    directives = {}
    for part in meta.attrs["content"].split(";"):
        name, *values = part.split()
        directives[name] = values
    return directives


def test_page_is_one_file_with_inline_scripts_and_styles_only(project_html):
    page = parse_page(project_html)
    scripts = page.find_all("script")
    assert len(scripts) == 9
    assert all("src" not in s.attrs for s in scripts)
    assert page.find_all("style") and not page.find_all("link")
    # the project has more timelines than the page draws at load: the rest wait in a block of their own
    assert [s.attrs.get("id") for s in scripts[:7]] == [*BLOCKS, TIMELINES_BLOCK, "memlens-page"]
    assert all(s.attrs["type"] == "application/gzip" for s in scripts[:7])
    assert scripts[7].text == assets.vis_network_script()
    assert "startReport" in scripts[8].text


def test_no_element_loads_from_the_web(project_html):
    page = parse_page(project_html)
    loading = [(e.tag, name, value) for e in page.elements for name, value in e.attrs.items()
               if name in ("src", "href", "action", "srcset", "poster", "data", "xlink:href")]
    assert loading, "expected at least the tabs' in-page links"
    assert all(value.startswith("#") for _, _, value in loading), loading
    assert not any(WEB_URL.search(value) for _, _, value in loading)


def test_inlined_css_loads_nothing_and_leaves_out_vis_icons_the_page_never_shows(project_html):
    page = parse_page(project_html)
    css = "".join(style.text for style in page.find_all("style"))
    shipped = (assets.VIS_DIR / "vis-network.css").read_text(encoding="utf-8")
    assert CSS_URL.findall(shipped), "vis-network's own css draws its buttons with data: images"
    assert CSS_URL.findall(css) == [] and "@import" not in css
    assert "div.vis-tooltip{" in css             # what the page does use of it is kept
    assert len(css) < len(shipped)


def test_vis_network_carries_no_source_map_or_remote_load():
    script = assets.vis_network_script()
    assert "Network" in script
    assert "sourceMappingURL" not in script
    assert not re.search(r"""(src|href)\s*=\s*["']https?:""", script)
    assert not re.search(r"""import\s*\(|importScripts|new\s+Worker|fetch\(|XMLHttpRequest""", script)


def test_csp_forbids_everything_but_hashed_inline_code(project_html):
    page = parse_page(project_html)
    directives = csp_directives(page)
    assert directives["default-src"] == ["'none'"]
    scripts = page.find_all("script")
    # a script element runs unless its type is a data type: only ours run, each one hashed
    executable = [s for s in scripts if s.attrs.get("type", "") in ("", "text/javascript", "module")]
    data = [s for s in scripts if s.attrs.get("type") == BLOCK_TYPE]
    assert len(executable) == 2 and len(data) == 7 and len(scripts) == 9
    assert sorted(directives["script-src"]) == sorted(source_hash(s.text) for s in executable)
    assert not any(source_hash(s.text) in directives["script-src"] for s in data)
    styles = page.find_all("style")
    assert sorted(directives["style-src"]) == sorted(source_hash(s.text) for s in styles)
    assert "'unsafe-inline'" not in directives["script-src"] + directives["style-src"]
    assert directives["img-src"] == ["data:"]


def test_csp_meta_comes_before_any_script_or_style(project_html):
    page = parse_page(project_html)
    tags = [e.tag if e.tag != "meta" else e.attrs.get("http-equiv", "meta") for e in page.elements]
    assert tags.index("Content-Security-Policy") < min(tags.index("style"), tags.index("script"))


def test_no_inline_event_handlers_or_style_attributes(hostile_html, project_html):
    for html in (project_html, hostile_html):
        page = parse_page(html)
        assert len(page.elements) > 100
        handlers = [(e.tag, a) for e in page.elements for a in e.attrs if a.startswith("on")]
        assert handlers == []
        assert [e.tag for e in page.elements if "style" in e.attrs] == []


def test_our_scripts_never_parse_markup():
    script = assets.app_script()
    assert "createElement" in script and "textContent" in script
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in script, sink


def test_data_blocks_are_base64_that_cannot_end_the_script_and_hold_the_hostile_text(hostile_html):
    page = parse_page(hostile_html)
    elements = {name: page.by_id(name) for name in BLOCKS}
    for element in elements.values():
        assert element.attrs["type"] == "application/gzip" and element.attrs["data-encoding"] == "base64"
        assert re.fullmatch(r"[A-Za-z0-9+/]+=*", element.text)
    blocks = parse_blocks(hostile_html.encode(), "hostile.html")
    names = [row[0] for row in blocks[MAIN_BLOCK]["entities"]]
    assert any("</script><script>alert(1)</script>" in name for name in names)
    assert any("\u2028" in name for name in names)
    assert blocks[MAIN_BLOCK]["meta"]["dataset"] == hostile_snapshot()["dataset"]
    assert any(d and "</script>" in d for d in blocks[TEXTS_BLOCK]["description"])
    assert blocks[LEDGER_BLOCK]["seqStep"]


def test_hostile_text_is_escaped_in_markup_and_shown_as_text(hostile_html):
    snapshot = hostile_snapshot()
    page = parse_page(hostile_html)
    assert [e.tag for e in page.elements if e.tag == "img"] == []
    assert len(page.find_all("script")) == 8    # five data blocks, what drew the page, vis-network and ours
    assert snapshot["dataset"] in page.text  # verbatim, so `{{ 7*7 }}` was not evaluated
    assert snapshot["dismissals"][0]["reason"] in page.text
    for payload in HOSTILE_PAYLOADS:
        assert payload in page.text, payload
    # a bare 49 would be `{{ 7*7 }}` evaluated; times like 09:49 are not bare
    assert not re.search(r"(?<![\d:.-])49(?!\d)", page.text.replace(snapshot["hash"], ""))


def test_header_shows_dataset_counts_time_and_hash(project_html):
    snapshot = project_snapshot()
    page = parse_page(project_html)
    assert snapshot["dataset"] in page.text
    assert snapshot["hash"] in page.text
    assert snapshot["generated_at"][:16].replace("T", " ") in page.text
    [meta] = page.find_all("meta", name="memlens-snapshot-hash")
    assert meta.attrs["content"] == snapshot["hash"]
    assert re.search(r"entities\s*21\b", " ".join(page.text.split()))


def test_legend_has_a_filter_per_type_with_a_stable_colour(project_html):
    page = parse_page(project_html)
    chips = page.find_all("button", **{"class": "type-chip"})
    assert {c.attrs["data-type"] for c in chips} == {"Concept", "Database", "Library", "Module",
                                                     "Organization", "Person", "Service", "Team"}
    assert all(c.attrs["aria-pressed"] == "true" for c in chips)


def test_maintenance_lists_worklist_and_dismissals_with_reasons(project_html):
    page = parse_page(project_html)
    assert "auth-service really uses both Redis and SQLAlchemy" in page.text
    assert "payments-api and ledger-service depend on each other" in page.text
    refs = [e for e in page.elements if e.attrs.get("data-ref-kind")]
    ids = project_ids()
    assert {ids.payments_needs_ledger, ids.ledger_needs_payments} <= {r.attrs["data-ref-id"] for r in refs}


def test_timelines_are_svg_drawn_at_build_time(project_html):
    page = parse_page(project_html)
    ids = project_ids()
    figure = page.by_id(f"timeline-key-{ids.alice}-works_at")
    assert figure.tag == "figure"
    rows = [e for e in page.elements if e.tag == "g" and e.attrs.get("data-fact")]
    assert {ids.alice_at_globex, ids.alice_at_acme, ids.alice_at_initech} <= {r.attrs["data-fact"] for r in rows}
    assert page.by_id(f"timeline-entity-{ids.alice}")


def test_forgotten_text_is_nowhere_in_the_page(project_html):
    ids = project_ids()
    everything = inflated(project_html)
    assert ids.forgotten_fact in everything  # the tombstone is there...
    assert "user said 2026-03-02" in everything  # ...and so is the evidence of facts still known
    assert "user said 2026-03-02" not in project_html  # (which only the compressed data holds)
    assert "carol's private note" not in everything
    assert "user said 2026-03-04" not in everything


def test_rendering_twice_gives_identical_bytes():
    first = render_report(project_snapshot()).encode()
    second = render_report(project_snapshot()).encode()
    assert first == second and len(first) > 100_000


def test_show_superseded_is_carried_into_the_page():
    page = parse_page(render_report(project_snapshot(), show_superseded=True))
    checkbox = page.by_id("show-superseded")
    assert "checked" in checkbox.attrs
    assert parse_blocks(render_report(project_snapshot(), show_superseded=True).encode(), "report")[MAIN_BLOCK][
        "showSuperseded"] is True
    assert "checked" not in parse_page(render_report(project_snapshot())).by_id("show-superseded").attrs


def test_unknown_snapshot_format_is_a_clear_error():
    snapshot = project_snapshot()
    snapshot["format"] = "memoose/9"
    with pytest.raises(SnapshotFormatError, match="memoose/9"):
        render_report(snapshot)
    blocks = parse_blocks(render_report(project_snapshot()).encode(), "report")  # the format it knows renders
    assert blocks[MAIN_BLOCK]["meta"]["format"] == "memlens-snapshot/1"


def test_the_page_is_built_only_with_the_vis_network_it_was_written_for(tmp_path, monkeypatch):
    assert f"@version {assets.VIS_VERSION}" in assets.vis_network_script()[:1000]
    other = tmp_path / f"vis-{assets.VIS_VERSION}"
    other.mkdir()
    (other / "vis-network.min.js").write_text("/**\n * vis-network\n * @version 10.0.0\n */\n")
    assets.vis_network_script.cache_clear()
    monkeypatch.setattr(assets, "VIS_DIR", other)
    try:
        with pytest.raises(BundleError, match=f"not vis-network {assets.VIS_VERSION}"):
            assets.vis_network_script()
        monkeypatch.setattr(assets, "VIS_DIR", tmp_path / "missing")
        with pytest.raises(BundleError, match="does not ship vis-network"):
            assets.vis_network_script()
    finally:
        assets.vis_network_script.cache_clear()
