"""Regenerating a site writes only what changed: every file whose bytes stay the same stays the very
file it was (memlens recorded writing it, and it is still as written), and the result is byte for
byte what a fresh build of the same snapshot gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlens.store.memory import Memory
from memlens.store.snapshot.diff import diff
from memlens.viewer.reading import carried_over
from memlens.viewer.site import site_models
from memlens.viewer.site.build import write_site
from memlens.viewer.site.folder import NotOurs


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def inodes(root: Path) -> dict[str, int]:
    return {p.relative_to(root).as_posix(): p.stat().st_ino for p in root.rglob("*") if p.is_file()}


def snapshot_of(store: Path) -> dict:
    memory = Memory(store)
    try:
        return memory.snapshot()
    finally:
        memory.close()


def regenerate(store: Path, site: Path, fresh: Path) -> set[str]:
    """Regenerate `site` from the store as `memlens maintain` does, and build the same snapshot,
    with the same changes, positions and colours, into the empty folder `fresh`; the regenerated
    site must be the fresh one, and it must have written exactly the files whose bytes changed
    (each other file stays the very file it was). Returns those files."""
    snapshot = snapshot_of(store)
    kept = carried_over(site, "site")
    assert kept.digest and kept.notes() == ()  # everything the old site holds is carried over
    arguments = {"changes": diff(kept.digest, snapshot), "previous_layout": kept.layout,
                 "previous_looks": kept.looks}
    before, before_inodes = tree(site), inodes(site)
    write_site(snapshot, site, **arguments)
    write_site(snapshot, fresh, **arguments)
    after = tree(site)
    assert after == tree(fresh)
    changed = {p for p in after if before.get(p) != after[p]}
    written = {p for p, inode in inodes(site).items() if before_inodes.get(p) != inode}
    assert written == changed
    return changed


def fact_id(store: Path, subject: str, relation: str) -> str:
    snapshot = snapshot_of(store)
    names = {e["id"]: e["name"] for e in snapshot["entities"]}
    [found] = [f["id"] for f in snapshot["facts"] if f.get("relation") == relation
               and names.get(f["subject"]) == subject and f["status"] == "current"]
    return found


@pytest.fixture
def demo(cli, tmp_path):
    store = tmp_path / "demo.sqlite"
    assert cli("demo", "--db", str(store)).exit_code == 0
    return store


def test_one_new_fact_writes_its_two_entities_pages_and_leaves_every_other_page(cli, demo, tmp_path):
    site = write_site(snapshot_of(demo), tmp_path / "site")
    assert cli("remember", "--db", str(demo), "Dana Okafor --uses--> Docker Compose", "-e", "user said so").exit_code == 0
    changed = regenerate(demo, site, tmp_path / "fresh")
    entity_pages = {p for p in changed if p.startswith("entities/") and p != "entities/index.html"}
    assert {p.split("/")[1].split("-")[0] for p in entity_pages} == {"dana", "docker"}
    assert changed - entity_pages <= {"index.html", "layout.json", "snapshot.json", "manifest.json", "changes.html",
                                      "entities/index.html", "ledger/index.html"} | {
        p for p in changed if p.startswith("ledger/page-")}


@pytest.mark.parametrize("write", ["describe", "contest", "retract", "another value", "merge", "forget", "new type"])
def test_after_each_kind_of_write_the_regenerated_site_is_a_fresh_build(cli, demo, tmp_path, write):
    site = write_site(snapshot_of(demo), tmp_path / "site")
    everyone = len(tree(site))
    db = ("--db", str(demo))
    commands = {
        "describe": lambda: [("describe", "PostgreSQL", "The primary database, version 16", *db)],
        "contest": lambda: [("contest", fact_id(demo, "Jin Park", "prefers"), fact_id(demo, "Dana Okafor", "works_on"),
                             "--reason", "cannot both hold", *db)],
        "retract": lambda: [("retract", fact_id(demo, "Dana Okafor", "reviews"), "--reason", "wrong person", *db)],
        "another value": lambda: [("remember", "api-gateway --listens_on--> port 9000:Config", "-e", "compose", *db)],
        "merge": lambda: [("merge", "PostgreSQL", "Redis", *db)],
        "forget": lambda: [("forget", "fact", fact_id(demo, "Dana Okafor", "reviews"), *db)],
        "new type": lambda: [("types", "add", "Meeting", *db),
                             ("remember", "Dana Okafor --attends--> Friday demo:Meeting", "-e", "calendar", *db)],
    }[write]()
    for command in commands:
        result = cli(*command)
        assert result.exit_code == 0, result.output
    changed = regenerate(demo, site, tmp_path / "fresh")
    assert 0 < len(changed) < everyone / 2   # some pages written again, not all of them


def test_a_damaged_old_page_is_written_fresh_never_kept(cli, demo, tmp_path):
    site = write_site(snapshot_of(demo), tmp_path / "site")
    snapshot = snapshot_of(demo)
    bob = next(p for p in (site / "entities").iterdir() if p.name.startswith("celery-"))
    good = bob.read_bytes()
    bob.write_bytes(good.replace(b"Celery", b"Celeri"))          # edited in place, same size
    (site / "contested.html").unlink()                           # and a page gone
    before = inodes(site)

    write_site(snapshot, site)                                   # the same snapshot: nothing else differs
    assert bob.read_bytes() == good
    assert (site / "contested.html").is_file()
    after = inodes(site)
    assert {p for p in after if before.get(p) != after[p]} == {bob.relative_to(site).as_posix(), "contested.html"}
    assert tree(site) == tree(write_site(snapshot, tmp_path / "fresh"))


def test_a_manifest_edited_since_is_refused_by_a_regeneration_and_replaced_by_an_export(cli, demo, tmp_path):
    """A file memlens wrote and someone changed since is no longer memlens's: a regeneration leaves
    the folder as it was, naming it; the user's own export writes the site whole again."""
    snapshot = snapshot_of(demo)
    site = write_site(snapshot, tmp_path / "site")
    assert write_site(snapshot, site, take_over=False) == site     # whole and memlens's: written again
    (site / "manifest.json").write_text("{not json", encoding="utf-8")
    before = tree(site)
    with pytest.raises(NotOurs, match="manifest.json is not the file memlens wrote there"):
        write_site(snapshot, site, take_over=False)
    assert tree(site) == before
    write_site(snapshot, site)
    assert tree(site) == tree(write_site(snapshot, tmp_path / "fresh"))


def test_a_new_write_changes_only_the_ledgers_last_page_and_index(cli, demo, tmp_path, monkeypatch):
    monkeypatch.setattr(site_models, "LEDGER_PAGE_SIZE", 20)   # the demo's ledger on several pages
    site = write_site(snapshot_of(demo), tmp_path / "site")
    pages = -(-len(snapshot_of(demo)["ledger"]) // 20)
    assert {p for p in tree(site) if p.startswith("ledger/")} == \
        {"ledger/index.html", *(f"ledger/page-{n}.html" for n in range(1, pages + 1))} and pages > 5
    assert cli("remember", "--db", str(demo), "Dana Okafor --uses--> Docker Compose", "-e", "user said so").exit_code == 0
    assert -(-len(snapshot_of(demo)["ledger"]) // 20) == pages   # the write's rows fit on the last page
    changed = regenerate(demo, site, tmp_path / "fresh")
    assert {p for p in changed if p.startswith("ledger/")} == {"ledger/index.html", f"ledger/page-{pages}.html"}


def test_a_ledger_page_that_gains_a_newer_one_is_rendered_again(cli, demo, tmp_path, monkeypatch):
    rows = len(snapshot_of(demo)["ledger"])
    monkeypatch.setattr(site_models, "LEDGER_PAGE_SIZE", rows)   # the old ledger fills its one page exactly
    site = write_site(snapshot_of(demo), tmp_path / "site")
    assert set(p for p in tree(site) if p.startswith("ledger/")) == {"ledger/index.html", "ledger/page-1.html"}

    assert cli("remember", "--db", str(demo), "Dana Okafor --uses--> Docker Compose", "-e", "user said so").exit_code == 0
    snapshot = snapshot_of(demo)
    write_site(snapshot, site)
    assert 'rel="next"' in (site / "ledger/page-1.html").read_text(encoding="utf-8")   # it links page 2 now
    assert (site / "ledger/page-2.html").is_file()
    assert tree(site) == tree(write_site(snapshot, tmp_path / "fresh"))
