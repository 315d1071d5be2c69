"""A committed site arrives through teammates' commits, so a regeneration treats the old site as
untrusted: whatever its manifest names and whatever links its folders hold, nothing outside the
site changes; a site doctored where memlens writes is refused as it is, and one memlens writes is
the one a fresh build gives."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from memlens.store.confined import UntrustedFileError, confined_name, read_inside
from memlens.store.memory import Memory
from memlens.store.triples import FactInput
from memlens.viewer import regeneration
from memlens.viewer.site.folder import NotOurs

PAYLOAD = b"ssh-ed25519 AAAA attacker@example\n"
VICTIM = b"ssh-ed25519 BBBB you@laptop\n"


def sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def listed(site: Path) -> dict[str, bytes]:
    """The files the site's manifest lists, with the manifest itself."""
    manifest = json.loads((site / "manifest.json").read_text(encoding="utf-8"))
    return {"manifest.json": (site / "manifest.json").read_bytes(),
            **{name: (site / name).read_bytes() for name in manifest["files"]}}


def remember(store: Path, *facts: tuple[str, str, str]) -> None:
    with Memory(store, actor="test:pytest") as memory:
        memory.remember([FactInput(s, r, o, "Person", "Service", evidence=("test",)) for s, r, o in facts])


def regenerate(store: Path, site: Path) -> None:
    with Memory(store, actor="test:pytest") as memory:
        regeneration.regenerate(memory, regeneration.Bundle(str(site), "site"))


@pytest.fixture
def world(tmp_path):
    """A store, its site, a clean copy of that site, and a file outside both that must not change."""
    store = tmp_path / "memory.sqlite"
    remember(store, ("bob", "owns", "billing"), ("alice", "owns", "auth"), ("carol", "uses", "billing"))
    site = tmp_path / "repo" / "site"
    regenerate(store, site)
    clean = tmp_path / "clean"
    regenerate(store, clean)
    victim = tmp_path / "home" / ".ssh" / "authorized_keys"
    victim.parent.mkdir(parents=True)
    victim.write_bytes(VICTIM)
    return store, site, clean, victim


def page_of(site: Path, name: str) -> str:
    [page] = [p for p in json.loads((site / "manifest.json").read_text())["files"]
              if p.startswith(f"entities/{name}-") and "--" not in p]
    return page


def doctor_manifest(site: Path, files: dict[str, str]) -> None:
    manifest = json.loads((site / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"].update(files)
    (site / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def after_a_new_fact(store: Path, site: Path, clean: Path) -> None:
    """One new fact, then both sites regenerated as `memlens maintain` does."""
    remember(store, ("dave", "uses", "auth"))
    regenerate(store, site)
    regenerate(store, clean)


def refused_after_a_new_fact(store: Path, site: Path, clean: Path, words: str) -> None:
    """One new fact: the doctored site is refused and left exactly as it was; the clean one is written."""
    remember(store, ("dave", "uses", "auth"))
    before = state(site)
    with pytest.raises(NotOurs, match=words):
        regenerate(store, site)
    assert state(site) == before
    regenerate(store, clean)


def state(root: Path) -> dict[str, object]:
    found: dict[str, object] = {}
    for folder, folders, files in os.walk(root, followlinks=False):
        for name in folders + files:
            path = Path(folder, name)
            found[str(path.relative_to(root))] = os.readlink(path) if path.is_symlink() else \
                "folder" if path.is_dir() else path.read_bytes() if path.is_file() else "special"
    return found


def taken_over(site: Path, store: Path) -> None:
    """The user's decision on a refused site: their own export writes memlens's files there again."""
    from memlens.store.snapshot.diff import diff
    from memlens.viewer.reading import carried_over

    with Memory(store, actor="test:pytest") as memory:
        snapshot = memory.sealed_snapshot()
    kept = carried_over(site, "site")
    changes = diff(kept.digest, snapshot, newer_from_the_store=True) if kept.digest else None
    regeneration.write_bundle(snapshot, site, "site", changes=changes, previous_layout=kept.layout,
                              previous_looks=kept.looks)


def plant_the_attack(site: Path, victim: Path) -> None:
    """The reported attack. A manifest entry `entities/<bob>--x/../../…/home/.ssh/authorized_keys`
    with the payload's sha256, and `entities/<bob>--x` a link n folders deep into the site's own
    payload folder: in the old site the name climbs back to the payload (so the old site seems to
    hold the file), while in the build folder, where `entities/<bob>--x` is a real folder, the same
    climb leaves the build and reaches the victim."""
    stem = page_of(site, "bob").removesuffix(".html")
    building = site.parent / ".site.memlens-1-00000000.tmp" / "entities" / "bob--x"   # as deep as the build
    climb = os.path.relpath(victim, building).replace(os.sep, "/")
    ups = climb.split("/").count("..")
    deep = "/".join(str(n) for n in range(ups))
    (site / "payload" / deep).mkdir(parents=True)
    held = site / "payload" / climb.replace("../", "")
    held.parent.mkdir(parents=True)
    held.write_bytes(PAYLOAD)
    os.symlink(f"../payload/{deep}", f"{site}/{stem}--x")
    doctor_manifest(site, {f"{stem}--x/{climb}": sha(PAYLOAD)})


def test_a_symlinked_folder_and_a_climbing_name_write_nothing_outside(world):
    store, site, clean, victim = world
    plant_the_attack(site, victim)

    refused_after_a_new_fact(store, site, clean, "manifest.json is not the file memlens wrote there")
    assert victim.read_bytes() == VICTIM

    taken_over(site, store)
    assert victim.read_bytes() == VICTIM
    assert listed(site) == listed(clean)          # the site is the one memlens writes
    assert (site / "payload").is_dir()            # what memlens did not write is left alone


def test_the_same_attack_through_memlens_maintain(world, cli):
    store, site, clean, victim = world
    plant_the_attack(site, victim)
    assert cli("bundles", "add", str(site), "--format", "site", "--db", str(store)).exit_code == 0
    remember(store, ("dave", "uses", "auth"))

    result = cli("maintain", "--db", str(store))

    assert result.exit_code == 1 and "regenerate-bundles: FAILED" in result.output, result.output
    assert "manifest.json is not the file memlens wrote there" in result.output, result.output
    assert victim.read_bytes() == VICTIM


def test_a_page_that_is_a_link_out_is_neither_followed_nor_linked_in(world):
    store, site, clean, victim = world
    page = page_of(site, "bob")
    victim.write_bytes((site / page).read_bytes())     # so the manifest's sha256 matches what it reaches
    (site / page).unlink()
    os.symlink(victim, site / page)
    held = victim.read_bytes()

    refused_after_a_new_fact(store, site, clean, "is a link, where the site writes a file of its own")

    assert victim.read_bytes() == held
    (site / page).unlink()
    regenerate(store, site)
    assert listed(site) == listed(clean)


def test_a_page_with_a_hard_link_out_is_never_written_through(world):
    """memlens never writes into a file: a page changes by a new file renamed over it, so another
    name of the old one (a hard link made outside the site) keeps the old bytes."""
    store, site, clean, victim = world
    page, untouched = page_of(site, "bob"), page_of(site, "carol")
    outside = victim.parent / "page.html"
    os.link(site / page, outside)
    old = outside.read_bytes()
    before = (site / untouched).stat().st_ino

    remember(store, ("bob", "uses", "auth"))
    regenerate(store, site)
    regenerate(store, clean)

    assert outside.read_bytes() == old and (site / page).read_bytes() != old
    assert listed(site) == listed(clean)
    assert (site / untouched).stat().st_ino == before   # a page no write reached stays, the same file


@pytest.mark.parametrize("name", ["/etc/passwd", "entities/../../x.html", "entities\\..\\x.html", "a\0b.html",
                                  "C:/x.html", "entities/con.html", "entities/x.html.", "./index.html", "", "a//b"])
def test_names_not_of_a_site_are_never_used(world, name):
    store, site, clean, victim = world
    doctor_manifest(site, {name: sha(VICTIM)})
    refused_after_a_new_fact(store, site, clean, "manifest.json is not the file memlens wrote there")
    taken_over(site, store)
    assert victim.read_bytes() == VICTIM
    assert listed(site) == listed(clean)


def test_a_fifo_in_the_old_site_is_refused_without_waiting(world):
    store, site, clean, victim = world
    page = page_of(site, "bob")
    (site / page).unlink()
    os.mkfifo(site / page)
    done = threading.Event()
    worker = threading.Thread(target=lambda: (refused_after_a_new_fact(store, site, clean, "is not a file"),
                                              done.set()), daemon=True)
    worker.start()
    worker.join(60)
    assert done.is_set(), "the regeneration waited on a FIFO"
    (site / page).unlink()
    regenerate(store, site)
    assert listed(site) == listed(clean)


names = st.lists(st.sampled_from(["..", ".", "", "entities", "x--y", "/", "\\", "C:", "con", "a b ", "\0",
                                  "index.html", "assets", "ledger"]), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=names)
def test_every_name_a_manifest_can_hold_is_confined_or_refused(tmp_path, parts):
    """Property: a name that is accepted is a path inside its folder, reached part by part."""
    name = "/".join(parts)
    accepted = confined_name(name)
    if accepted is None:
        return
    resolved = (tmp_path / "root" / accepted).resolve()
    assert resolved.is_relative_to((tmp_path / "root").resolve())
    assert ".." not in accepted.split("/") and "\\" not in accepted and "\0" not in accepted


def test_read_inside_reads_regular_files_and_refuses_links_and_special_files(tmp_path):
    (tmp_path / "site" / "entities").mkdir(parents=True)
    (tmp_path / "site" / "entities" / "a.html").write_bytes(b"page")
    (tmp_path / "outside").write_bytes(b"secret")
    os.symlink(tmp_path / "outside", tmp_path / "site" / "entities" / "b.html")
    os.symlink(tmp_path, tmp_path / "site" / "up")
    os.mkfifo(tmp_path / "site" / "fifo")
    site = tmp_path / "site"
    assert read_inside(site, "entities/a.html", 100) == b"page"
    for name in ("entities/b.html", "up/outside", "fifo", "../outside"):
        with pytest.raises(UntrustedFileError):
            read_inside(site, name, 100)
    with pytest.raises(UntrustedFileError, match="more than"):
        read_inside(site, "entities/a.html", 3)


def test_the_portable_path_refuses_the_same_links(tmp_path, monkeypatch):
    """Where the system cannot open relative to a folder's descriptor (Windows), lstat checks do it."""
    from memlens.store import confined
    monkeypatch.setattr(confined, "_DIRECTORY", 0)
    (tmp_path / "site" / "entities").mkdir(parents=True)
    (tmp_path / "site" / "entities" / "a.html").write_bytes(b"page")
    (tmp_path / "outside").write_bytes(b"secret")
    os.symlink(tmp_path / "outside", tmp_path / "site" / "entities" / "b.html")
    os.symlink(tmp_path, tmp_path / "site" / "up")
    assert read_inside(tmp_path / "site", "entities/a.html", 100) == b"page"
    for name in ("entities/b.html", "up/outside"):
        with pytest.raises(UntrustedFileError):
            read_inside(tmp_path / "site", name, 100)


def test_a_doctored_site_regenerated_on_the_portable_path_changes_nothing_outside(world, monkeypatch):
    from memlens.store import confined
    monkeypatch.setattr(confined, "_DIRECTORY", 0)
    monkeypatch.setattr(os, "supports_dir_fd", set())   # no folder descriptors: every part checked by lstat
    store, site, clean, victim = world
    plant_the_attack(site, victim)
    refused_after_a_new_fact(store, site, clean, "manifest.json is not the file memlens wrote there")
    taken_over(site, store)
    assert victim.read_bytes() == VICTIM
    assert listed(site) == listed(clean)


# -- export must not wipe folders that are not memlens sites -------------------------------------


def test_export_refuses_a_folder_whose_manifest_is_a_web_apps(cli, tmp_path):
    store = tmp_path / "memory.sqlite"
    remember(store, ("bob", "owns", "billing"))
    app = tmp_path / "public"
    app.mkdir()
    (app / "manifest.json").write_text('{"name": "My PWA", "start_url": "/"}', encoding="utf-8")
    (app / "app.js").write_text("console.log(1)", encoding="utf-8")
    result = cli("export", "--db", str(store), "--format", "site", "-o", str(app))
    assert result.exit_code == 1 and "not a memlens site's" in result.output
    assert sorted(p.name for p in app.iterdir()) == ["app.js", "manifest.json"]
    (app / "manifest.json").write_text("", encoding="utf-8")   # even an empty one
    assert cli("export", "--db", str(store), "--format", "site", "-o", str(app)).exit_code == 1
    assert (app / "app.js").exists()
    # the positive case: a new folder is written, and written again over itself
    for _ in range(2):
        result = cli("export", "--db", str(store), "--format", "site", "-o", str(tmp_path / "memory"))
        assert result.exit_code == 0, result.output
    assert (tmp_path / "memory" / "index.html").is_file()


def test_a_regeneration_keeps_what_memlens_did_not_write(world):
    """A CNAME, a gh-pages worktree's .git and a note added by hand survive every regeneration."""
    store, site, clean, victim = world
    (site / "CNAME").write_text("memory.example.org\n")
    (site / ".git" / "objects").mkdir(parents=True)
    (site / ".git" / "objects" / "ab").write_bytes(b"object")
    (site / ".git" / "HEAD").write_text("ref: refs/heads/gh-pages\n")
    os.symlink("HEAD", site / ".git" / "head-link")
    (site / "entities" / "notes.txt").write_text("mine")

    after_a_new_fact(store, site, clean)

    assert (site / "CNAME").read_text() == "memory.example.org\n"
    assert (site / ".git" / "objects" / "ab").read_bytes() == b"object"
    assert os.readlink(site / ".git" / "head-link") == "HEAD"
    assert (site / "entities" / "notes.txt").read_text() == "mine"
    assert listed(site) == listed(clean)                  # and the site is still the one memlens writes
    assert regeneration.kept_note(site, "site") == ("kept what memlens did not write: .git, CNAME, entities/notes.txt",)
    assert regeneration.kept_note(clean, "site") == ()


def test_a_page_memlens_no_longer_writes_is_removed(world):
    """The positive side of keeping: what memlens wrote and writes no more is not kept."""
    store, site, clean, victim = world
    page = page_of(site, "carol")
    with Memory(store, actor="test:pytest") as memory:
        memory.forget_entity("carol")
    regenerate(store, site)
    assert not (site / page).exists()
    assert regeneration.kept_note(site, "site") == ()


def test_a_damaged_manifest_is_not_taken_for_a_site(world):
    store, site, clean, victim = world
    (site / "manifest.json").write_text('{"files": {}}')
    refused_after_a_new_fact(store, site, clean, "manifest.json is not the file memlens wrote there")
    assert (site / "index.html").exists()


def test_export_says_what_it_kept(world, cli):
    store, site, clean, victim = world
    (site / "CNAME").write_text("memory.example.org\n")
    result = cli("export", "--db", str(store), "--format", "site", "-o", str(site))
    assert result.exit_code == 0, result.output
    assert "kept what memlens did not write: CNAME" in result.output
    result = cli("export", "--db", str(store), "--format", "site", "-o", str(clean))
    assert result.exit_code == 0 and "kept what" not in result.output


def test_view_of_a_store_elsewhere_never_takes_a_datasets_report(cli, home, tmp_path):
    """`view --db other/alpha.sqlite` wrote $MEMLENS_HOME/reports/alpha.html, the report of the
    unrelated dataset alpha."""
    remember(home / "alpha.sqlite", ("bob", "owns", "billing"))
    remember(tmp_path / "other" / "alpha.sqlite", ("mallory", "owns", "nothing"))
    mine = cli("view", "-d", "alpha", "--no-open")
    assert mine.exit_code == 0, mine.output
    report = Path(mine.output.strip().splitlines()[-1])
    assert report == home / "reports" / "alpha.html"
    before = report.read_bytes()
    other = cli("view", "--db", str(tmp_path / "other" / "alpha.sqlite"), "--no-open")
    assert other.exit_code == 0, other.output
    written = Path(other.output.strip().splitlines()[-1])
    assert written != report and written.name.startswith("alpha-") and "mallory" in written.read_text()
    assert report.read_bytes() == before
    # the dataset named by --db in the home is the same dataset, and the same report
    again = cli("view", "--db", str(home / "alpha.sqlite"), "--no-open")
    assert Path(again.output.strip().splitlines()[-1]) == report


def test_a_regeneration_with_nothing_to_write_still_sweeps_a_killed_ones_debris(world):
    """What a killed write left (a site an older memlens built beside it, half a page inside it),
    which runs that found the site unchanged never swept."""
    store, site, clean, victim = world
    debris = site.parent / f".site.memlens-{2**22 + 7}-0123abcd.tmp"   # a process that is gone
    shutil.copytree(site, debris)
    half = site / "entities" / f".x.html.memlens-{2**22 + 7}-0123abcd.tmp"
    half.write_text("half a page")
    busy = site.parent / f".site.memlens-{os.getpid()}-0123abcd.tmp"    # one still running: kept
    busy.mkdir()
    regenerate(store, site)                     # unchanged: nothing written
    assert not debris.exists() and not half.exists() and busy.exists()
    assert (site / "index.html").exists()
