"""A configured bundle's path lives in the working tree and arrives with `git pull`: it is untrusted.
Each attack of issue 35 (items 1 to 4) as a committer could mount it, beside its honest twin: a
link at a report's path or on the way to it, a site folder committed as a link, a doctored manifest
naming a user's files, an edited page behind an updated manifest. memlens refuses the bundle (one
`Error:` line, the hook reports it FAILED, the other bundles are written) and changes nothing; an
honest site regenerates and keeps everything that is not memlens's."""
from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

from memlens.store.memory import Memory
from memlens.store.triples import FactInput

VICTIM = b"ssh-ed25519 BBBB you@laptop\n"
ENV = b"SECRET_TOKEN=do-not-leak\n"


def remember(store: Path, *facts: tuple[str, str, str]) -> None:
    with Memory(store, actor="test:pytest") as memory:
        memory.remember([FactInput(s, r, o, "Person", "Service", evidence=("test",)) for s, r, o in facts])


def state(root: Path) -> dict[str, tuple]:
    """Everything under `root` as it is on disk, links never followed: a file's bytes and inode, a
    link's target, a folder's inode."""
    found: dict[str, tuple] = {}
    for folder, folders, files in os.walk(root, followlinks=False):
        for name in folders + files:
            path = Path(folder, name)
            status = os.lstat(path)
            key = path.relative_to(root).as_posix()
            if stat.S_ISLNK(status.st_mode):
                found[key] = ("link", os.readlink(path))
            elif stat.S_ISDIR(status.st_mode):
                found[key] = ("folder", status.st_ino)
            else:
                found[key] = ("file", path.read_bytes(), status.st_ino)
    return found


def failed_line(result) -> str:
    """The hook's FAILED report, asserting the run's one Error: line."""
    lines = result.output.splitlines()
    errors = [line for line in lines if line.startswith("Error:")]
    assert result.exit_code == 1 and errors == ["Error: after-maintenance hook(s) failed: regenerate-bundles"], lines
    assert "Traceback" not in result.output and "internal error" not in result.output
    [failed] = [line for line in lines if "regenerate-bundles: FAILED" in line]
    return failed


@pytest.fixture
def world(tmp_path, monkeypatch, home):
    return make_world(tmp_path, monkeypatch)


def make_world(tmp_path: Path, monkeypatch) -> SimpleNamespace:
    """A store, a repository (the working directory, from which bundles are configured) holding a
    .git and a .env, and a victim's ~/.ssh outside it."""
    store = tmp_path / "memory.sqlite"
    remember(store, ("bob", "owns", "billing"), ("alice", "owns", "auth"), ("carol", "uses", "billing"))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (repo / ".env").write_bytes(ENV)
    (repo / "docs").mkdir()
    ssh = tmp_path / "victim" / ".ssh"
    ssh.mkdir(parents=True)
    (ssh / "authorized_keys").write_bytes(VICTIM)
    monkeypatch.chdir(repo)
    return SimpleNamespace(store=store, repo=repo, ssh=ssh, keys=ssh / "authorized_keys", tmp=tmp_path)


def configure(cli, world, path: str, fmt: str = "html") -> None:
    assert cli("bundles", "add", path, "--format", fmt, "--db", str(world.store)).exit_code == 0


def maintain(cli, world, *args: str):
    return cli("maintain", "--db", str(world.store), "--quiet", *args)


# -- 1. a link at the report's path, or on the way to it ------------------------------------------------

def test_a_report_committed_as_a_link_is_refused_and_what_it_points_at_is_never_written(cli, world):
    configure(cli, world, "docs/memory.html")
    configure(cli, world, "docs/other.html")
    assert maintain(cli, world).exit_code == 0                  # the honest twin: written
    report = world.repo / "docs" / "memory.html"
    assert b"memlens-snapshot-hash" in report.read_bytes()
    report.unlink()
    os.symlink(os.path.relpath(world.keys, report.parent), report)   # as a commit makes it
    remember(world.store, ("mallory\nssh-ed25519 AAAA attacker", "uses", "billing"))
    before = state(world.tmp / "victim")

    failed = failed_line(maintain(cli, world))

    assert f"{report} is a link" in failed and "wrote: " + str(world.repo / "docs" / "other.html") in failed
    assert state(world.tmp / "victim") == before and world.keys.read_bytes() == VICTIM
    assert os.readlink(report) == os.path.relpath(world.keys, report.parent)   # left for the user to see
    with Memory(world.store) as memory:   # what the MCP `maintain` tool runs: the same refusal
        [hook] = [r for r in memory.maintain()[1] if r.name == "regenerate-bundles"]
    assert not hook.ok and "is a link" in hook.message and world.keys.read_bytes() == VICTIM
    report.unlink()
    assert maintain(cli, world).exit_code == 0 and b"attacker" in report.read_bytes()


def test_a_folder_on_the_way_committed_as_a_link_is_refused(cli, world):
    configure(cli, world, "docs/memory.html")
    assert maintain(cli, world).exit_code == 0
    docs = world.repo / "docs"
    (docs / "memory.html").unlink()
    docs.rmdir()
    os.symlink(world.ssh, docs)
    remember(world.store, ("dave", "uses", "auth"))
    before = state(world.ssh)
    assert f"{docs} is a link" in failed_line(maintain(cli, world))
    assert state(world.ssh) == before
    docs.unlink()
    docs.mkdir()
    assert maintain(cli, world).exit_code == 0 and (docs / "memory.html").is_file()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the swap is played with Linux's renameat2")
def test_a_folder_turned_into_a_link_while_maintain_runs_never_leads_outside(cli, world):
    """A parent folder swapped for a link and back, over and over, while bundles are written: each
    write lands in the repository or is refused, never outside (the folder is held open, not named
    again)."""
    import ctypes

    configure(cli, world, "docs/memory.html")
    configure(cli, world, "docs/site", "site")
    assert maintain(cli, world).exit_code == 0
    docs, link = world.repo / "docs", world.repo / "docs.link"
    os.symlink(world.ssh, link)
    renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    stop = threading.Event()

    def flip() -> None:   # `docs` is at every moment the real folder or the link, exchanged in one call
        while not stop.is_set():
            assert renameat2(-100, bytes(docs), -100, bytes(link), 2) == 0

    flipper = threading.Thread(target=flip, daemon=True)
    flipper.start()
    try:
        for run in range(12):
            remember(world.store, (f"person{run}", "uses", "auth"))
            maintain(cli, world)
            assert sorted(p.name for p in world.ssh.iterdir()) == ["authorized_keys"], run
    finally:
        stop.set()
        flipper.join()
        if docs.is_symlink():
            assert renameat2(-100, bytes(docs), -100, bytes(link), 2) == 0
    assert world.keys.read_bytes() == VICTIM
    assert maintain(cli, world).exit_code == 0
    assert b"person11" in (docs / "memory.html").read_bytes()


def test_a_file_at_the_report_path_that_memlens_did_not_write_there_is_refused_until_the_user_decides(cli, world):
    report = world.repo / "docs" / "memory.html"
    report.write_text("<p>my own notes, not a report</p>")
    configure(cli, world, "docs/memory.html")
    assert "is not the report memlens wrote there" in failed_line(maintain(cli, world))
    assert report.read_text() == "<p>my own notes, not a report</p>"
    # the user decides: an export does not overwrite their notes either; once they move them away,
    # their export takes the path over, and maintain keeps it current after
    refused = cli("export", "--db", str(world.store), "--format", "html", "-o", "docs/memory.html")
    assert refused.exit_code == 1 and "is not a report memlens wrote" in refused.output
    assert report.read_text() == "<p>my own notes, not a report</p>"
    report.rename(report.with_name("notes.html"))
    assert cli("export", "--db", str(world.store), "--format", "html", "-o", "docs/memory.html").exit_code == 0
    remember(world.store, ("dave", "uses", "auth"))
    assert maintain(cli, world).exit_code == 0 and b"dave" in report.read_bytes()


# -- 2. a site folder committed as a link -----------------------------------------------------------------

@pytest.mark.parametrize("files", [{".git/HEAD": "sha256:" + "0" * 64, ".env": "sha256:" + "0" * 64}, {}])
def test_a_site_folder_committed_as_a_link_to_the_repository_root_is_refused(cli, world, files):
    configure(cli, world, "docs/memory", "site")
    assert maintain(cli, world).exit_code == 0
    site = world.repo / "docs" / "memory"
    manifest = json.loads((site / "manifest.json").read_text())
    for path in sorted(site.rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    site.rmdir()
    os.symlink("..", site)   # docs/memory -> the repository's root
    (world.repo / "manifest.json").write_text(json.dumps({**manifest, "files": files}))
    remember(world.store, ("dave", "uses", "auth"))
    before = state(world.tmp)

    assert f"{site} is a link" in failed_line(maintain(cli, world))

    assert state(world.tmp) == before   # the root not replaced: .git and .env as they were, nothing written
    assert (world.repo / ".env").read_bytes() == ENV


@pytest.mark.parametrize("target", ["new", "empty", "another site"])
def test_a_site_folder_linked_out_of_the_repository_is_refused(cli, world, target):
    configure(cli, world, "docs/memory", "site")
    outside = world.tmp / "elsewhere"
    if target == "empty":
        outside.mkdir()
    elif target == "another site":   # another project's memlens site: this memory must not leak into it
        other = world.tmp / "other.sqlite"
        remember(other, ("zed", "owns", "secret-project"))
        assert cli("export", "--db", str(other), "--format", "site", "-o", str(outside)).exit_code == 0
    os.symlink(outside, world.repo / "docs" / "memory")
    before = state(world.tmp)
    assert "docs/memory is a link" in failed_line(maintain(cli, world))
    assert state(world.tmp) == before and not (target == "new" and outside.exists())
    (world.repo / "docs" / "memory").unlink()
    assert maintain(cli, world).exit_code == 0 and (world.repo / "docs" / "memory" / "index.html").is_file()


def test_an_honest_site_keeps_its_cname_git_notes_and_nested_folders_through_regenerations(cli, world):
    configure(cli, world, "docs/memory", "site")
    assert maintain(cli, world).exit_code == 0
    site = world.repo / "docs" / "memory"
    (site / "CNAME").write_text("memory.example.org\n")
    (site / ".git" / "objects" / "ab").mkdir(parents=True)
    (site / ".git" / "objects" / "ab" / "cdef").write_bytes(b"object")
    (site / ".git" / "HEAD").write_text("ref: refs/heads/gh-pages\n")
    os.symlink("HEAD", site / ".git" / "head-link")
    (site / "notes" / "deep").mkdir(parents=True)
    (site / "notes" / "a.txt").write_text("mine")
    (site / "notes" / "deep" / "b.txt").write_text("mine too")
    (site / "entities" / "notes.txt").write_text("beside memlens's pages")
    theirs = {k: v for k, v in state(site).items() if k.split("/")[0] in (".git", "notes", "CNAME")
              or k == "entities/notes.txt"}
    for write in (("dave", "uses", "auth"), ("erin", "owns", "billing")):
        remember(world.store, write)
        done = cli("maintain", "--db", str(world.store))
        assert done.exit_code == 0 and "kept what memlens did not write: .git, CNAME, entities/notes.txt, notes" \
            in done.output
        now = state(site)
        assert {k: now.get(k) for k in theirs} == theirs   # the same files, the same inodes, untouched
    verified = cli("verify", str(site))
    assert verified.exit_code == 0 and "not the site's, not checked: .git, CNAME, entities/notes.txt, notes" \
        in verified.output
    assert b"erin" in (site / "snapshot.json").read_bytes()


# -- 3. a doctored manifest naming what memlens did not write -------------------------------------------

def test_a_manifest_listing_a_users_files_neither_removes_nor_carries_them(cli, world):
    configure(cli, world, "docs/memory", "site")
    assert maintain(cli, world).exit_code == 0
    site = world.repo / "docs" / "memory"
    (site / "extra").mkdir()
    (site / "extra" / "keep1.txt").write_text("one")
    (site / "extra" / "keep2.txt").write_text("two")
    (site / "CNAME").write_text("memory.example.org\n")
    (site / ".git").mkdir()
    (site / ".git" / "HEAD").write_text("ref: refs/heads/gh-pages\n")
    manifest = json.loads((site / "manifest.json").read_text())
    for name in ("extra/keep1.txt", ".git/HEAD"):
        manifest["files"][name] = "sha256:" + hashlib.sha256((site / name).read_bytes()).hexdigest()
    (site / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    remember(world.store, ("dave", "uses", "auth"))
    before = state(site)

    assert "manifest.json is not the file memlens wrote there" in failed_line(maintain(cli, world))
    assert state(site) == before

    # the user's own export takes the site over: their files stay, named; the manifest is memlens's again
    done = cli("export", "--db", str(world.store), "--format", "site", "-o", "docs/memory")
    assert done.exit_code == 0, done.output
    assert "neither carried nor removed: .git/HEAD, extra/keep1.txt" in done.output
    for name in ("extra/keep1.txt", "extra/keep2.txt", "CNAME", ".git/HEAD"):
        assert state(site)[name] == before[name], name
    assert set(json.loads((site / "manifest.json").read_text())["files"]).isdisjoint({"extra/keep1.txt", ".git/HEAD"})
    assert cli("verify", str(site)).exit_code == 0
    remember(world.store, ("erin", "uses", "auth"))
    assert maintain(cli, world).exit_code == 0


# -- 4. a site's integrity rests on its sealed data, not its manifest -----------------------------------

def _update_manifest(site: Path, name: str) -> None:
    manifest = json.loads((site / "manifest.json").read_text())
    manifest["files"][name] = "sha256:" + hashlib.sha256((site / name).read_bytes()).hexdigest()
    (site / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1, sort_keys=True) + "\n")


def _flip_one_byte(data: bytes, at: int) -> bytes:
    at = next(i for i in range(at, len(data)) if chr(data[i]).isalnum())
    return data[:at] + (b"x" if data[at:at + 1] != b"x" else b"y") + data[at + 1:]


def test_an_edited_site_file_with_its_manifest_updated_fails_verify_naming_it(cli, world):
    site = world.tmp / "site"
    assert cli("export", "--db", str(world.store), "--format", "site", "-o", str(site)).exit_code == 0
    assert cli("verify", str(site)).exit_code == 0
    pristine = {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    bob = next(name for name in pristine if name.startswith("entities/bob-"))
    edits = [("index.html", 0.5), (bob, 0.6), ("assets/memlens.js", 0.3), ("assets/site.js", 0.5),
             ("entities/index.html", 0.7), ("contested.html", 0.6), ("ledger/index.html", 0.8), ("layout.json", 0.5)]
    for name, where in edits:
        data = pristine[name]
        (site / name).write_bytes(_flip_one_byte(data, int(len(data) * where)))
        _update_manifest(site, name)
        result = cli("verify", str(site))
        assert result.exit_code == 1 and result.output.startswith(
            f"Error: {site / name} differs from what memlens writes from the site's own data"), (name, result.output)
        (site / name).write_bytes(data)
        _update_manifest(site, name)
    assert cli("verify", str(site)).exit_code == 0
    forged = pristine[bob].replace(b"owns", b"FORGED_approved_payments", 1)
    assert forged != pristine[bob]
    (site / bob).write_bytes(forged)
    _update_manifest(site, bob)
    assert f"{site / bob} differs" in cli("verify", str(site)).output


def test_a_regeneration_never_carries_a_page_memlens_did_not_write_nor_calls_it_unchanged(cli, world):
    configure(cli, world, "docs/memory", "site")
    assert maintain(cli, world).exit_code == 0
    site = world.repo / "docs" / "memory"
    bob = next(p for p in (site / "entities").iterdir() if p.name.startswith("bob-"))
    bob.write_bytes(bob.read_bytes().replace(b"owns", b"FORGED_approved_payments", 1))
    _update_manifest(site, bob.relative_to(site).as_posix())
    (site / "entities" / "evil.html").write_text("<script>alert(1)</script>")
    _update_manifest(site, "entities/evil.html")
    before = state(site)
    assert "is not the file memlens wrote there" in failed_line(maintain(cli, world))   # never "unchanged"
    assert state(site) == before
    # not memlens's, and it would pass for one of its pages: even the user's own export stops at it
    refused = cli("export", "--db", str(world.store), "--format", "site", "-o", "docs/memory")
    assert refused.exit_code == 1 and "evil.html is in a folder of the site's own pages" in refused.output
    assert state(site) == before
    assert f"{bob} differs" in cli("verify", str(site)).output
    (site / "entities" / "evil.html").unlink()
    done = cli("export", "--db", str(world.store), "--format", "site", "-o", "docs/memory")
    assert done.exit_code == 0 and b"FORGED" not in bob.read_bytes()
    assert cli("verify", str(site)).exit_code == 0
    assert maintain(cli, world).exit_code == 0


# -- a read-only site ------------------------------------------------------------------------------------

@pytest.mark.skipif(os.name == "nt" or os.geteuid() == 0, reason="a folder's mode binds neither root nor Windows")
def test_a_read_only_site_is_refused_with_one_line_and_no_temporary_is_left(cli, world):
    configure(cli, world, "docs/memory", "site")
    assert maintain(cli, world).exit_code == 0
    site = world.repo / "docs" / "memory"
    remember(world.store, ("dave", "uses", "auth"))
    os.chmod(site, 0o555)
    try:
        before = state(world.repo)
        assert "cannot be written (Permission denied): is the site read-only?" in failed_line(maintain(cli, world))
        assert state(world.repo) == before
    finally:
        os.chmod(site, 0o755)
    assert maintain(cli, world).exit_code == 0


def test_a_site_whose_folders_refuse_new_files_is_refused_and_left_as_it_was(cli, world, monkeypatch):
    """As a read-only (0555) folder answers a process that is not root's (the test may run as root,
    whom a mode does not bind): the first new file refused."""
    from memlens.store.checked_folder import CheckedFolder

    configure(cli, world, "docs/memory", "site")
    assert maintain(cli, world).exit_code == 0
    site = world.repo / "docs" / "memory"
    remember(world.store, ("dave", "uses", "auth"))
    real = CheckedFolder.write_new

    def read_only(folder, name, *args, **kwargs):
        if Path(folder.path) == site or site in Path(folder.path).parents:
            raise PermissionError(13, "Permission denied", str(folder.path / name))
        return real(folder, name, *args, **kwargs)

    monkeypatch.setattr(CheckedFolder, "write_new", read_only)
    before = state(world.repo)
    assert "cannot be written (Permission denied): is the site read-only?" in failed_line(maintain(cli, world))
    assert state(world.repo) == before
    monkeypatch.undo()
    assert maintain(cli, world).exit_code == 0


# -- property: whatever a commit plants, nothing outside the bundle's own files changes ------------------

PLACES = ["docs", "docs/memory", "docs/memory/entities", "docs/memory/assets", "docs/memory/index.html",
          "docs/memory/manifest.json", "docs/memory.html", "docs/memory/notes", "docs/memory/entities/x.html"]
TARGETS = ["..", "../..", "OUTSIDE_DIR", "OUTSIDE_FILE", "NEW"]
USER_FILES = ["docs/memory/CNAME", "docs/memory/notes/a.txt", "docs/memory/notes/deep/b.txt",
              "docs/memory/.git/HEAD", "docs/memory/entities/mine.txt", "docs/README.md"]
MANIFEST_NAMES = [".git/HEAD", "notes/a.txt", "../../.env", "CNAME", "entities/mine.txt"]

plants = st.lists(st.one_of(
    st.tuples(st.just("link"), st.sampled_from(PLACES), st.sampled_from(TARGETS)),
    st.tuples(st.just("file"), st.sampled_from(USER_FILES), st.binary(max_size=20)),
    st.tuples(st.just("manifest"), st.sampled_from(MANIFEST_NAMES), st.just(b"")),
    st.tuples(st.just("edit"), st.sampled_from(["index.html", "snapshot.json", "contested.html"]), st.just(b"")),
), max_size=4)


def _plant(world, plant: tuple[str, str, object]) -> None:
    kind, place, what = plant
    repo = world.repo
    if kind == "file":
        path = repo / place
        if path.parent.is_dir() or not os.path.lexists(path.parent):
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(what)
            except OSError:   # a link or a file on its way: as good a plant as any
                pass
    elif kind == "link":
        path = repo / place
        if os.path.lexists(path) and path.is_dir() and not path.is_symlink():
            os.rename(path, repo / f"moved-{len(os.listdir(repo))}")
        elif os.path.lexists(path):
            path.unlink()
        elif not path.parent.is_dir():
            return
        target = {"OUTSIDE_DIR": str(world.ssh), "OUTSIDE_FILE": str(world.keys),
                  "NEW": str(world.tmp / "victim" / "new")}.get(what, what)
        os.symlink(target, path)
    elif kind in ("manifest", "edit"):
        site = repo / "docs" / "memory"
        name = "manifest.json" if kind == "manifest" else place
        path = site / name
        if not (path.is_file() and not path.is_symlink() and not site.is_symlink() and not (repo / "docs").is_symlink()):
            return
        if kind == "manifest":
            manifest = json.loads(path.read_text())
            manifest["files"][place] = "sha256:" + "0" * 64
            path.write_text(json.dumps(manifest))
        else:
            path.write_bytes(path.read_bytes() + b" ")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(planted=plants)
def test_whatever_a_commit_plants_nothing_but_the_bundles_own_files_changes(cli, tmp_path_factory, monkeypatch,
                                                                         planted):
    base = tmp_path_factory.mktemp("planted")
    monkeypatch.setenv("MEMLENS_HOME", str(base / "home"))
    world = make_world(base, monkeypatch)
    configure(cli, world, "docs/memory", "site")
    configure(cli, world, "docs/memory.html")
    assert maintain(cli, world).exit_code == 0
    for plant in planted:
        _plant(world, plant)
    remember(world.store, ("dave\nssh-ed25519 AAAA attacker", "uses", "auth"))
    before = state(base)
    result = cli("maintain", "--db", str(world.store))
    after = state(base)
    written = set()
    for bundle in ("docs/memory", "docs/memory.html"):
        if f"wrote: {world.repo / bundle} " in result.output:
            written.add(bundle)
    ours = {f"repo/docs/memory/{name}" for name in _site_files(world.repo / "docs" / "memory")} \
        if "docs/memory" in written else set()
    ours |= {"repo/docs/memory.html"} if "docs/memory.html" in written else set()
    ours |= {"repo/docs/memory" + folder for folder in ("", "/entities", "/assets", "/ledger", "/maintenance")} \
        if "docs/memory" in written else set()
    changed = {key for key in before.keys() | after.keys() if before.get(key) != after.get(key)}
    assert changed - ours - {key for key in changed if key.startswith("home/")} == set(), (planted, result.output)
    assert world.keys.read_bytes() == VICTIM and (world.repo / ".env").read_bytes() == ENV
    for bundle in ("docs/memory", "docs/memory.html"):
        event(f"{bundle} {'written' if bundle in written else 'refused'}")
        if bundle in written:
            assert cli("verify", str(world.repo / bundle)).exit_code == 0, (planted, bundle)
        else:
            assert result.exit_code == 1 and "FAILED" in result.output and str(world.repo / bundle) in result.output


def _site_files(site: Path) -> set[str]:
    try:
        return set(json.loads((site / "manifest.json").read_text())["files"]) | {"manifest.json"}
    except (OSError, ValueError, KeyError):
        return set()
