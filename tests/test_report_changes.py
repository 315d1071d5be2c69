"""The report's "changes since the last snapshot" panel, and what it embeds for the next diff."""

from __future__ import annotations

import json
import re

import pytest
from viewer_fixtures import changed_project, inflated, parse_page, project_snapshot

from memlens.store.snapshot.diff import diff, digest
from memlens.viewer.reading import read_digest
from memlens.viewer.model.changes import ChangesFormatError
from memlens.viewer.report.page import render_report
from memlens.viewer.report.write import write_report


@pytest.fixture(scope="module")
def changed():
    return changed_project()


@pytest.fixture(scope="module")
def changed_html(changed) -> str:
    return render_report(changed.new, changes=changed.changes)


def test_the_hash_meta_is_in_the_first_4_kb(changed_html, changed):
    head = changed_html.encode("utf-8")[:4096].decode("utf-8", "ignore")
    assert f'<meta name="memlens-snapshot-hash" content="{changed.new["hash"]}">' in head
    [meta] = parse_page(changed_html).find_all("meta", name="memlens-snapshot-hash")
    assert meta.attrs["content"] == changed.new["hash"]


def test_the_page_data_holds_what_the_next_diff_needs(tmp_path, changed):
    path = write_report(changed.new, tmp_path / "report.html")
    previous = read_digest(path, "html")
    assert previous == digest(changed.new)
    assert "carol's private note" not in json.dumps(previous)  # a digest carries no text at all
    page = parse_page(path.read_text(encoding="utf-8"))
    # the digest is read from the first two of the snapshot's five blocks; the sixth holds folded
    # timelines' drawings, the last what `memlens verify` draws the page again from
    assert [s.attrs["id"] for s in page.find_all("script", type="application/gzip")] == [
        "memlens-data", "memlens-facts", "memlens-texts", "memlens-ledger", "memlens-maintenance",
        "memlens-timelines", "memlens-page"]


def test_regeneration_reads_the_digest_back_and_diffs_against_it(tmp_path, changed):
    path = write_report(changed.old, tmp_path / "report.html")
    previous = read_digest(path, "html")
    assert previous == digest(changed.old)
    # all but what only the records and the ledger tell (evidence said again, ledger rows, one history)
    from_digest, from_snapshot = diff(previous, changed.new), dict(changed.changes)
    assert from_digest.pop("memories") == {"from": None, "to": changed.new["dataset"], "same": None}
    assert from_snapshot.pop("memories")["same"] is True
    for part in ("counts", "changes"):
        from_snapshot[part] = {**from_snapshot[part], "facts_said_again": from_digest[part]["facts_said_again"],
                               "ledger_rows_added": from_digest[part]["ledger_rows_added"]}
    assert from_digest == from_snapshot


def test_the_changes_panel_counts_and_lists_what_changed(changed_html, changed):
    page = parse_page(changed_html)
    panel = page.by_id("panel-changes")
    assert panel.attrs["role"] == "tabpanel" and page.by_id("tab-changes").attrs["href"] == "#panel-changes"
    text = " ".join(page.text.split())
    since = changed.old["generated_at"][:16].replace("T", " ")
    assert f"Changes since {since} UTC" in text
    assert re.search(r"added 2 superseded 1 restored 0 .*forgotten 1 new entities 1", text)
    assert f"5 changes since {since} UTC" in text  # the banner: 2 + 1 + 1 + 1
    items = {e.attrs["data-change-id"] for e in page.find_all("li") if "data-change-id" in e.attrs}
    assert {changed.added_fact, changed.superseded_fact, changed.forgotten_fact, changed.added_entity} <= items
    links = {e.attrs["data-ref-id"]: e.attrs["href"] for e in page.find_all("a") if "data-ref-id" in e.attrs}
    assert links[changed.added_fact] == f"#fact={changed.added_fact}"
    assert links[changed.added_entity] == f"#entity={changed.added_entity}"
    assert "ledger-service owned_by Payments Team by ledger-service owned_by Platform Team" in text


def test_forgotten_items_show_their_id_and_nothing_they_said(changed_html, changed):
    text = " ".join(parse_page(changed_html).text.split())
    assert f"forgotten fact {changed.forgotten_fact[:8]}" in text
    everything = inflated(changed_html)
    for said in changed.forgotten_texts:
        assert said in json.dumps(changed.old)  # it was there before...
        assert said not in everything           # ...and is nowhere now
    assert "repo://ledger/publish.py#L12" in everything  # what is remembered is there


def test_without_changes_nothing_of_the_kind_is_shown():
    page = parse_page(render_report(project_snapshot()))
    ids = {e.attrs.get("id") for e in page.elements}
    assert "panel-graph" in ids and "tab-maintenance" in ids
    assert not ids & {"panel-changes", "tab-changes"}
    assert "changes since" not in page.text.lower()
    assert not page.find_all("p", **{"class": "changes-banner"})


def test_changes_that_are_not_a_diff_are_a_clear_error():
    with pytest.raises(ChangesFormatError, match="snapshot.diff.diff"):
        render_report(project_snapshot(), changes={"added": 3})
    assert render_report(project_snapshot(), changes=diff(project_snapshot(), project_snapshot()))


def test_an_empty_diff_says_nothing_changed():
    snapshot = project_snapshot()
    page = parse_page(render_report(snapshot, changes=diff(snapshot, snapshot)))
    assert page.by_id("panel-changes")
    assert "Nothing changed." in page.text


def test_hostile_names_in_the_changes_are_shown_as_text(tmp_path):
    from viewer_fixtures import HOSTILE_PAYLOADS, hostile_snapshot

    from memlens.viewer.site.build import write_site

    snapshot = hostile_snapshot()
    empty = {**snapshot, "facts": [], "entities": [], "hash": "sha256:0", "generated_at": "2026-01-01T00:00:00.000000Z"}
    changes = diff(empty, snapshot)
    assert changes["counts"]["facts_added"] == 4 and changes["counts"]["entities_added"] == 3
    pages = [render_report(snapshot, changes=changes),
             (write_site(snapshot, tmp_path / "site", changes=changes) / "changes.html").read_text(encoding="utf-8")]
    for html, inline_scripts in zip(pages, (2, 0)):  # the report inlines vis-network and ours; the site none
        page = parse_page(html)
        assert page.find_all("img") == []
        scripts = page.find_all("script")
        code = [s for s in scripts if "src" not in s.attrs and s.attrs.get("type") != "application/gzip"]
        assert len(code) == inline_scripts and scripts
        listed = " ".join(page.text.split())
        assert "Entities added 3" in listed
        for payload in HOSTILE_PAYLOADS:
            if "\u2028" not in payload:
                assert payload in page.text, payload
