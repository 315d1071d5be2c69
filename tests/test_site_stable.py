"""A site regenerated after a small write changes only the pages that show what was written, so a
teammate's `git diff` of a committed site is the write, not the whole site."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlens.viewer.site.site_models import LEDGER_PAGE_SIZE


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def entity_page(site: Path, name: str) -> str:
    """The site path of the entity called `name`, from the graph page's map of entity pages."""
    snapshot = json.loads((site / "snapshot.json").read_text(encoding="utf-8"))
    [entity] = [e for e in snapshot["entities"] if e["name"] == name]
    found = [p for p in tree(site) if p.startswith("entities/") and p.endswith(f"-{entity['id'][:8]}.html")]
    assert len(found) == 1, found
    return found[0]


def last_ledger_page(site: Path) -> str:
    rows = len(json.loads((site / "snapshot.json").read_text(encoding="utf-8"))["ledger"])
    return f"ledger/page-{-(-rows // LEDGER_PAGE_SIZE)}.html"


@pytest.fixture
def demo_site(cli, tmp_path):
    """The demo memory with a site registered and written by `memlens maintain`."""
    store, site = tmp_path / "demo.sqlite", tmp_path / "site"
    assert cli("demo", "--db", str(store)).exit_code == 0
    assert cli("bundles", "add", str(site), "--format", "site", "--db", str(store)).exit_code == 0
    assert cli("maintain", "--db", str(store), "--quiet").exit_code == 0
    return store, site


def test_one_new_fact_changes_only_the_pages_that_show_it(cli, demo_site):
    store, site = demo_site
    before = tree(site)
    assert cli("remember", "--db", str(store), "Dana Okafor --uses--> Docker Compose",
               "-e", "user said so").exit_code == 0
    assert cli("maintain", "--db", str(store), "--quiet").exit_code == 0
    after = tree(site)

    named = {entity_page(site, "Dana Okafor"), entity_page(site, "Docker Compose"),
             "entities/index.html",           # lists both, with their fact counts
             last_ledger_page(site), "ledger/index.html",
             "index.html", "manifest.json", "snapshot.json"}
    changed = {p for p in before.keys() & after.keys() if before[p] != after[p]}
    assert changed == named
    assert after.keys() - before.keys() == {"changes.html"}   # the first regeneration that has a previous snapshot
    assert before.keys() - after.keys() == set()
    unchanged = before.keys() - named
    assert len(unchanged) > 50 and all(before[p] == after[p] for p in unchanged)
    # snapshot.json has a line a record: its diff is the write (a fact, the ledger rows, the figures)
    old_lines = before["snapshot.json"].decode().splitlines()
    new_lines = after["snapshot.json"].decode().splitlines()
    removed, added = set(old_lines) - set(new_lines), set(new_lines) - set(old_lines)
    assert len(new_lines) > 300 and len(removed) <= 6 and len(added) <= 12, (removed, added)
    assert any('"Dana Okafor uses Docker Compose"' in line or "user said so" in line for line in added)
    assert json.loads(after["snapshot.json"])["stats"]["facts"] == json.loads(before["snapshot.json"])["stats"]["facts"] + 1


def test_a_new_type_recolours_no_other_entity_page(cli, demo_site):
    store, site = demo_site
    before = tree(site)
    assert cli("types", "add", "Meeting", "--db", str(store)).exit_code == 0   # sorts between Library and Module
    assert cli("remember", "--db", str(store), "Dana Okafor --attends--> Friday demo:Meeting",
               "-e", "calendar").exit_code == 0
    assert cli("maintain", "--db", str(store), "--quiet").exit_code == 0
    after = tree(site)

    assert ".t-meeting-" not in before["assets/types.css"].decode() and ".t-meeting-" in after["assets/types.css"].decode()
    assert 'class="swatch-dot t-meeting-' in after[entity_page(site, "Friday demo")].decode()
    new_page = entity_page(site, "Friday demo")
    assert after.keys() - before.keys() == {new_page, "changes.html"}
    changed = {p for p in before.keys() & after.keys() if before[p] != after[p]}
    assert entity_page(site, "Dana Okafor") in changed and "assets/types.css" in changed
    other_entities = {p for p in before if p.startswith("entities/") and p != "entities/index.html"
                      and p != entity_page(site, "Dana Okafor")}
    assert len(other_entities) > 20 and not other_entities & changed
