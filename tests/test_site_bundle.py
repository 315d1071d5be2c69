"""The static site: every link resolves, the manifest is true, builds are deterministic and atomic."""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from memlens.store.checked_folder import CheckedFolder
from viewer_fixtures import (HOSTILE_PAYLOADS, changed_project, entity_id, hostile_snapshot, inflated, parse_page,
                             project_ids, project_snapshot)

from memlens.viewer.report.codec import MAIN_BLOCK, read_blocks
from memlens.viewer.site.site_pages import SitePages
from memlens.viewer.site.build import write_site
from memlens.viewer.site.folder import SiteTargetError

LOADING_ATTRS = ("href", "src", "action", "srcset", "poster", "data", "xlink:href")
WEB = re.compile(r"^https?:", re.IGNORECASE)


@pytest.fixture(scope="module")
def changed():
    return changed_project()


@pytest.fixture(scope="module")
def site(tmp_path_factory, changed) -> Path:
    return write_site(changed.new, tmp_path_factory.mktemp("site") / "memory", changes=changed.changes)


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def pages(root: Path) -> dict[str, object]:
    return {p.relative_to(root).as_posix(): parse_page(p.read_text(encoding="utf-8"))
            for p in sorted(root.rglob("*.html"))}


def links_of(page) -> list[tuple[str, str, str]]:
    """(tag, attribute, value) of every attribute that makes the browser load or navigate."""
    return [(e.tag, name, value) for e in page.elements for name, value in e.attrs.items() if name in LOADING_ATTRS]


def ids_in(page) -> set[str]:
    return {e.attrs["id"] for e in page.elements if "id" in e.attrs}


def test_every_relative_link_resolves_to_a_file_in_the_bundle(site):
    parsed = pages(site)
    files = set(tree(site))
    kinds: dict[str, int] = {}
    for name, page in parsed.items():
        for tag, attr, value in links_of(page):
            if value.startswith("#"):
                kinds["in-page"] = kinds.get("in-page", 0) + 1
                continue
            if WEB.match(value):
                kinds["evidence"] = kinds.get("evidence", 0) + 1
                continue
            parts = urlsplit(value)
            assert not parts.scheme and not parts.netloc, (name, value)
            target = posixpath.normpath(posixpath.join(posixpath.dirname(name), unquote(parts.path)))
            assert target in files, f"{name}: {tag}[{attr}]={value!r} -> {target} is not in the bundle"
            if parts.fragment.startswith("fact-"):
                assert parts.fragment in ids_in(parsed[target]), f"{name}: {value} names no card in {target}"
                kinds["fact card"] = kinds.get("fact card", 0) + 1
            elif parts.fragment.startswith(("entity=", "fact=")):
                assert target == "index.html"
                kinds["graph deep link"] = kinds.get("graph deep link", 0) + 1
            kind = ("script" if tag == "script" else "stylesheet" if tag == "link" else
                    "entity page" if target.startswith("entities/") and target != "entities/index.html" else target)
            kinds[kind] = kinds.get(kind, 0) + 1
    for kind in ("script", "stylesheet", "entity page", "entities/index.html", "ledger/index.html",
                 "contested.html", "maintenance.html", "changes.html", "index.html", "fact card",
                 "graph deep link", "in-page", "evidence"):
        assert kinds.get(kind), f"no link of kind {kind!r}: {kinds}"


def test_web_links_are_only_evidence_anchors(site):
    for name, page in pages(site).items():
        for tag, attr, value in links_of(page):
            if WEB.match(value):
                assert (tag, attr) == ("a", "href"), (name, tag, attr, value)
        for style in page.find_all("style"):  # the site's pages carry no inline styles at all
            raise AssertionError(f"{name} has an inline <style>")
    css = "".join((site / "assets" / n).read_text(encoding="utf-8") for n in ("memlens.css", "vis-network.css"))
    assert "div.vis-tooltip{" in css and ".site-main" in css
    assert re.findall(r"url\(", css) == []      # the stylesheets load nothing, not even an image


def test_manifest_lists_every_file_with_its_sha256(site, changed):
    manifest = json.loads((site / "manifest.json").read_text(encoding="utf-8"))
    assert set(manifest) == {"memlens_version", "dataset", "format", "hash", "generated_at", "counts", "files"}
    snapshot = changed.new
    assert manifest["hash"] == snapshot["hash"] and manifest["dataset"] == snapshot["dataset"]
    assert manifest["format"] == "memlens-snapshot/1"
    assert manifest["generated_at"] == snapshot["generated_at"]
    assert manifest["counts"] == snapshot["stats"]
    files = tree(site)
    del files["manifest.json"]
    assert set(manifest["files"]) == set(files)
    for name, data in files.items():
        assert manifest["files"][name] == "sha256:" + hashlib.sha256(data).hexdigest(), name
    assert list(manifest["files"]) == sorted(manifest["files"])


def test_snapshot_json_is_the_snapshot_with_sorted_keys_a_line_a_record(site, changed):
    text = (site / "snapshot.json").read_text(encoding="utf-8")
    assert json.loads(text) == changed.new
    compact = lambda value: json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    lines = text.splitlines()
    assert lines[0] == "{" and lines[-1] == "}" and text.endswith("}\n")
    # every fact and ledger row is a line of its own, as the compact sorted encoder writes it
    for record in changed.new["facts"] + changed.new["ledger"]:
        assert compact(record) in lines or compact(record) + "," in lines
    keys = [line.split(":", 1)[0] for line in lines if line.startswith('"')]
    assert keys == [compact(key) for key in sorted(changed.new)]     # top-level fields, sorted, one a line
    assert text.replace("\n", "") == compact(changed.new)         # newlines are all that was added


def test_the_same_snapshot_gives_byte_identical_sites(tmp_path, changed):
    first = tree(write_site(changed.new, tmp_path / "a", changes=changed.changes))
    second = tree(write_site(changed.new, tmp_path / "b", changes=changed.changes))
    assert first == second and len(first) > 20
    again = tree(write_site(changed.new, tmp_path / "a", changes=changed.changes))  # rewritten in place
    assert again == first
    other = tree(write_site(changed.old, tmp_path / "c"))
    assert other != first


def test_entity_pages_are_named_by_slug_and_short_id(site, changed):
    files = set(tree(site))
    payments = entity_id("payments-api")
    assert f"entities/payments-api-{payments[:8]}.html" in files
    assert f"entities/acme-corp-{entity_id('Acme Corp')[:8]}.html" in files
    entity_pages = {f for f in files if f.startswith("entities/") and f != "entities/index.html"}
    assert len(entity_pages) == len(changed.new["entities"])  # merged ones too: ledger rows name them
    old_names = {p for p in tree(write_site(changed.old, site.parent / "old")) if p.startswith("entities/")}
    assert old_names <= files | {"entities/index.html"}  # pages keep their names across snapshots


def test_an_entity_page_holds_facts_timeline_history_and_provenance(site, changed):
    ids = project_ids()
    page = parse_page(next((site / "entities").glob(f"alice-{ids.alice[:8]}.html")).read_text(encoding="utf-8"))
    text = " ".join(page.text.split())
    cards = {e.attrs["id"]: e for e in page.find_all("article")}
    assert {f"fact-{ids.alice_at_acme}", f"fact-{ids.alice_at_globex}", f"fact-{ids.alice_at_initech}"} <= set(cards)
    assert "fact fact-current" in cards[f"fact-{ids.alice_at_acme}"].attrs["class"]
    assert "fact fact-superseded" in cards[f"fact-{ids.alice_at_globex}"].attrs["class"]
    assert "https://acme.example/team/alice" in text and "user said 2026-03-05" in text
    assert "valid since 2025-06-01" in text and "by agent:claude" in text
    assert "alice moved to Acme in June 2025" in text  # why the old value was superseded
    figure = page.by_id(f"timeline-entity-{ids.alice}")
    assert figure.tag == "figure" and page.find_all("svg", **{"class": "timeline-svg"})
    rows = [e for e in page.find_all("g") if e.attrs.get("data-fact")]
    assert {r.attrs["data-fact"] for r in rows} >= {ids.alice_at_acme, ids.alice_at_globex}
    versions = sum(len(f["history"]) for f in changed.new["facts"] if ids.alice in (f["subject"], f["object"]))
    history = page.by_id("history")
    assert history.tag == "section"
    assert re.search(rf"History {versions} versions", text)
    ledger_rows = [r for r in changed.new["ledger"] if ids.alice in r["refs"] or any(
        f["id"] in r["refs"] for f in changed.new["facts"] if ids.alice in (f["subject"], f["object"]))]
    assert re.search(rf"Provenance {len(ledger_rows)} ledger rows", text)
    assert "merge" not in {r["action"] for r in ledger_rows}  # the merge row is on payments-api's page


def test_a_forgotten_fact_is_a_tombstone_and_its_text_is_nowhere(site, changed):
    files = tree(site)
    payments = next(p for p in files if p.startswith("entities/payments-api-"))
    page = parse_page(files[payments].decode())
    tombstone = page.by_id(f"fact-{changed.forgotten_fact}")
    assert "fact-forgotten" in tombstone.attrs["class"]
    assert "The text of this fact was erased." in page.text
    assert "repo://payments/middleware.py#L14" in page.text  # what is remembered is still shown
    for name, data in files.items():
        readable = inflated(data.decode()).encode() if name.endswith(".html") else data
        for text in changed.forgotten_texts + ("carol's private note", "user said 2026-03-04"):
            assert text.encode() not in readable, (name, text)
    assert b"repo://payments/middleware.py#L14" in inflated(files["index.html"].decode()).encode()


def test_every_page_is_locked_down_by_its_csp(site):
    parsed = pages(site)
    assert len(parsed) > 20
    for name, page in parsed.items():
        [meta] = page.find_all("meta", http_equiv="Content-Security-Policy")
        policy = dict((part.split()[0], part.split()[1:]) for part in meta.attrs["content"].split(";"))
        assert policy["default-src"] == ["'none'"] and policy["script-src"] == ["'self'"], name
        assert policy["style-src"] == ["'self'"] and policy["img-src"] == ["data:"]
        tags = [e.tag if e.tag != "meta" else e.attrs.get("http-equiv", "meta") for e in page.elements]
        assert tags.index("Content-Security-Policy") < min(tags.index("link"), tags.index("script")), name
        for script in page.find_all("script"):
            assert "src" in script.attrs or script.attrs.get("type") == "application/gzip", name
            assert "src" not in script.attrs or not script.text.strip()
        assert [(e.tag, a) for e in page.elements for a in e.attrs if a.startswith("on")] == [], name
        assert [e.tag for e in page.elements if "style" in e.attrs] == [], name


def test_the_graph_page_links_each_entity_to_its_page(site):
    page = parse_page((site / "index.html").read_text(encoding="utf-8"))
    data = read_blocks(site / "index.html", (MAIN_BLOCK,))[MAIN_BLOCK]
    columns = data["columns"]["entities"]
    assert columns[-1] == "page"
    alice = next(dict(zip(columns, row)) for row in data["entities"] if row[0] == "alice")
    assert alice["page"] == f"entities/alice-{entity_id('alice')[:8]}.html" and (site / alice["page"]).is_file()
    assert [e.attrs["src"] for e in page.find_all("script") if "src" in e.attrs] == [
        "assets/vis-network.min.js", "assets/memlens.js"]
    assert not page.find_all("style")


def test_hostile_text_is_escaped_on_every_page(tmp_path):
    snapshot = hostile_snapshot()
    root = write_site(snapshot, tmp_path / "hostile")
    parsed = pages(root)
    entity_pages = [n for n in parsed if n.startswith("entities/") and n != "entities/index.html"]
    assert len(entity_pages) == 3
    for name, page in parsed.items():
        assert page.find_all("img") == [], name
        scripts = page.find_all("script")
        assert all("src" in s.attrs or s.attrs.get("type") == "application/gzip" for s in scripts), name
        for tag, attr, value in links_of(page):
            assert not value.lower().lstrip().startswith(("javascript:", "data:")), (name, value)
            if WEB.match(value):
                assert value.startswith("https://example.com/"), (name, value)
        assert not re.search(r"(?<![\d:.-])49(?!\d)", page.text.replace(snapshot["hash"], "")), name
    text = "".join(parsed[n].text for n in entity_pages)
    for payload in HOSTILE_PAYLOADS:
        assert payload in text, payload
    first = parsed[entity_pages[0]]
    evidence = [e for e in first.elements if e.tag == "li" and e.attrs.get("class") == "evidence-text"]
    assert evidence, "non-web evidence is shown as text"


def test_a_failure_mid_build_leaves_the_previous_site_whole_and_no_temp_dirs(tmp_path, monkeypatch, changed):
    target = write_site(changed.old, tmp_path / "memory")
    before = tree(target)

    def explode(self, *args):
        raise RuntimeError("disk gone half way")

    # entity pages are already written when the ledger pages fail
    monkeypatch.setattr(SitePages, "ledger", explode)
    with pytest.raises(RuntimeError, match="half way"):
        write_site(changed.new, target, changes=changed.changes)
    assert tree(target) == before
    assert [p.name for p in tmp_path.iterdir()] == ["memory"]
    monkeypatch.undo()
    write_site(changed.new, target, changes=changed.changes)
    assert tree(target) != before and [p.name for p in tmp_path.iterdir()] == ["memory"]


def test_a_site_whose_files_cannot_be_put_in_place_is_left_as_it_was_and_written_whole_next_time(
        tmp_path, monkeypatch, changed):
    target = write_site(changed.old, tmp_path / "memory")
    before = tree(target)

    def rename(folder, source, target):  # putting a new file in place
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(CheckedFolder, "rename", rename)
    with pytest.raises(OSError, match="No space"):
        write_site(changed.new, target)
    assert tree(target) == before   # no temporary left, nothing replaced
    assert [p.name for p in tmp_path.iterdir()] == ["memory"]
    monkeypatch.undo()
    write_site(changed.new, target)
    assert tree(target) == tree(write_site(changed.new, tmp_path / "fresh"))


def test_refuses_to_replace_a_folder_that_is_not_a_site(tmp_path, changed):
    precious = tmp_path / "notes"
    precious.mkdir()
    (precious / "todo.txt").write_text("keep me")
    with pytest.raises(SiteTargetError, match="manifest.json"):
        write_site(changed.new, precious)
    assert (precious / "todo.txt").read_text() == "keep me"
    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(SiteTargetError, match="not a directory"):
        write_site(changed.new, a_file)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert (write_site(changed.new, empty) / "manifest.json").is_file()


def test_without_changes_there_is_no_changes_page(tmp_path):
    root = write_site(project_snapshot(), tmp_path / "plain")
    assert not (root / "changes.html").exists()
    index = parse_page((root / "index.html").read_text(encoding="utf-8"))
    assert not [e for e in index.elements if e.attrs.get("id") in ("panel-changes", "tab-changes")]
    nav = [e.attrs["href"] for e in index.find_all("a") if e.attrs.get("href", "").endswith(".html")]
    assert "contested.html" in nav and "changes.html" not in nav


def test_the_changes_page_counts_and_links_what_changed(site, changed):
    page = parse_page((site / "changes.html").read_text(encoding="utf-8"))
    text = " ".join(page.text.split())
    assert f"Changes since {changed.old['generated_at'][:16].replace('T', ' ')} UTC" in text
    counts = {e.attrs["class"].split()[1]: e for e in page.find_all("div") if "change-count" in e.attrs.get("class", "")}
    assert set(counts) >= {"change-facts_added", "change-facts_superseded", "change-facts_forgotten"}
    assert re.search(r"added 2 superseded 1 .*forgotten 1 new entities 1", text)
    items = {e.attrs["data-change-id"] for e in page.find_all("li") if "data-change-id" in e.attrs}
    assert {changed.added_fact, changed.superseded_fact, changed.forgotten_fact, changed.added_entity} <= items
    hrefs = [e.attrs["href"] for e in page.find_all("a")]
    assert any(h.endswith(f"#fact-{changed.added_fact}") for h in hrefs)
    assert any(h.endswith(f"#fact-{changed.superseded_fact}") for h in hrefs)
    assert not any(changed.forgotten_fact in h for h in hrefs)  # nothing to link to
    assert f"forgotten fact {changed.forgotten_fact[:8]}" in text
    assert "ledger-service owned_by Payments Team" in text and "the ledger moved" not in text
