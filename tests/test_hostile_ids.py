"""Ids are data, never paths: whatever an id holds, the site writes only inside its own folder."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest
from import_fixtures import build_memoose
from viewer_fixtures import SnapshotBuilder

from memlens.store.errors import InvalidInput
from memlens.store.ids import all_usable, derived_id, usable_id
from memlens.store.importers import read_snapshot
from memlens.store.memory import Memory
from memlens.store.snapshot.load import load_into
from memlens.viewer.model.links import entity_page_names
from memlens.viewer.site.build import write_site
from memlens.store.checked_folder import CheckedFolder
from memlens.viewer.site.folder import SiteFolder, SiteTargetError

HOSTILE_IDS = [
    "x/../../../PWNED-1", "../PWNED-2", "/etc/PWNED-3", "..", ".", "a\\..\\..\\PWNED-4",
    "x" * 10_000, "CON", "nul", "aux.html", "COM1", "Lpt1",
    "Case-Collides", "case-collides", "CASE-COLLIDES", "index", "index.html", "entities",
]
PAGE_NAME = re.compile(r"[a-z0-9-]+\.html")


def hostile_snapshot_with_ids(ids: list[str]) -> dict:
    """A consistent snapshot whose entities (all named 'a', one type) carry the given ids."""
    builder = SnapshotBuilder("hostile-ids")
    made = [builder.entity(f"entity {n}", "Service") for n in range(len(ids))]
    for first, second in zip(made, made[1:]):
        builder.assert_fact(first, "depends_on", second, evidence=["repo://x"])
    snapshot = builder.build()
    renamed = dict(zip(made, ids))
    text = json.dumps(snapshot)
    for old, new in renamed.items():
        text = text.replace(json.dumps(old), json.dumps(new))
    snapshot = json.loads(text)
    for entity in snapshot["entities"]:
        entity["name"] = "a"
    return snapshot


def test_page_names_are_lowercase_slugs_and_hashes_whatever_the_id():
    entities = [{"id": i + suffix, "name": name} for i in HOSTILE_IDS
                for suffix, name in (("", "a"), ("/", "../x"), ("\0", "CON"))]
    entities.append({"id": "1a2b3c4d-0000-5000-8000-000000000001", "name": "Billing"})
    names = entity_page_names(entities)
    assert len(names) == len(entities)
    assert all(PAGE_NAME.fullmatch(n) for n in names.values()), [n for n in names.values() if not PAGE_NAME.fullmatch(n)]
    # unique even on a case-insensitive disk, and never the listing's own page
    assert len({n.casefold() for n in names.values()}) == len(entities)
    assert "index.html" not in names.values()
    # a memlens id (a uuid) keeps the page name it always had
    assert names["1a2b3c4d-0000-5000-8000-000000000001"] == "billing-1a2b3c4d.html"


def test_a_site_of_hostile_ids_writes_nothing_outside_its_folder(tmp_path):
    snapshot = hostile_snapshot_with_ids(HOSTILE_IDS)
    base = tmp_path / "a" / "b"
    site = write_site(snapshot, base / "site")
    # the only thing beside the site is the site itself; nothing above it either
    assert sorted(p.name for p in base.iterdir()) == ["site"]
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["b"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"]
    pages = sorted(p.name for p in (site / "entities").iterdir())
    assert len(pages) == len(HOSTILE_IDS) + 1  # one per entity, and the listing
    assert all(PAGE_NAME.fullmatch(name) for name in pages)
    manifest = json.loads((site / "manifest.json").read_text())
    assert all(not name.startswith(("/", "..")) and "/../" not in name for name in manifest["files"])


def test_the_site_writer_refuses_a_path_that_leaves_its_folder(tmp_path):
    folder = SiteFolder(CheckedFolder.open_anchor(tmp_path))
    folder.emit("entities/ok.html", "fine")
    folder.commit(None)
    assert (tmp_path / "entities" / "ok.html").read_text() == "fine"
    for path in ("../escape.html", "entities/../../escape.html", "/tmp/escape.html", "a//b.html",
                 "entities\\..\\escape.html", "a\0b.html", "./x.html"):
        with pytest.raises(SiteTargetError):
            folder.emit(path, "no")
    assert not (tmp_path.parent / "escape.html").exists()


def test_usable_ids_are_printable_text_of_bounded_length():
    for good in ("6f1c2a4e-9b7d-5e3a-8c41-2d0f6b9e7a15", "ent_42", "x/../y", "émile", "x" * 256):
        assert usable_id(good), good
    for bad in ("", "a\0b", "tab\there", "\ud800", "\ufffe", "x" * 257, None, 42):
        assert not usable_id(bad), bad


def test_ids_checked_all_at_once_agree_with_checking_each():
    good = ["6f1c2a4e-9b7d-5e3a-8c41-2d0f6b9e7a15", "ent_42", "x/../y", "émile", "x" * 256]
    assert all_usable(good + [None]) and all_usable([None]) and all_usable([])
    for bad in ("", "a\0b", "tab\there", "\ud800", "\ufffe", "x" * 257, 42):
        assert not all_usable(good + [bad] + good), bad


def test_loading_a_snapshot_with_an_unusable_id_is_refused_and_writes_nothing(tmp_path):
    good = hostile_snapshot_with_ids(["plain-1", "x/../../PWNED", "plain-3"])
    with Memory(tmp_path / "good.sqlite") as memory:
        counts = load_into(memory, good, source="memlens")
        assert counts["entities"] == 3
        assert {e["id"] for e in memory.snapshot()["entities"]} == {"plain-1", "x/../../PWNED", "plain-3"}
    for bad_id in ("a\0b", "x" * 300, ""):
        bad = hostile_snapshot_with_ids(["plain-1", bad_id, "plain-3"])
        with Memory(tmp_path / "bad.sqlite") as memory:
            with pytest.raises(InvalidInput, match="not an id"):
                load_into(memory, bad, source="memlens")
            assert memory.stats()["entities"] == 0


def test_an_importer_gives_an_unusable_source_id_a_stable_derived_one(tmp_path):
    path = tmp_path / "memoose.sqlite"
    build_memoose(path)
    conn = sqlite3.connect(path)
    (old,) = conn.execute("SELECT id FROM entities ORDER BY name LIMIT 1").fetchone()
    hostile = "evil\0/../" + "x" * 400
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("UPDATE entities SET id = ? WHERE id = ?", (hostile, old))
    for column in ("source_id", "target_id"):
        conn.execute(f"UPDATE relations SET {column} = ? WHERE {column} = ?", (hostile, old))
    conn.commit()
    conn.close()
    first = read_snapshot("memoose", path)
    ids = {e["id"] for e in first["entities"]}
    assert hostile not in ids and all(usable_id(i) for i in ids)
    source_ids = {row[0] for row in sqlite3.connect(path).execute("SELECT id FROM entities")}
    derived = derived_id("memoose", "id", hostile)
    assert derived in ids
    assert source_ids - {hostile} <= ids  # the others keep the source's own ids
    # the entity keeps its facts, under the same derived id every time the file is read
    assert any(derived in (f["subject"], f["object"]) for f in first["facts"])
    assert read_snapshot("memoose", path)["hash"] == first["hash"]
