"""Bundles regenerated after maintenance, skipped when they already show the current store."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from viewer_fixtures import in_a_fresh_process

from memlens.viewer import regeneration
from memlens.viewer.reading import read_digest


def test_maintain_regenerates_configured_bundles_and_then_says_unchanged(cli, tmp_path):
    store, report = tmp_path / "m.sqlite", tmp_path / "out" / "memory.html"
    cli("remember", "--db", str(store), "a:Person --knows--> b:Person", "-e", "x")
    assert cli("bundles", "add", str(report), "--db", str(store)).exit_code == 0
    assert [b["path"] for b in json.loads(cli("bundles", "list", "--db", str(store), "--json").stdout)] == [
        str(report.resolve())]

    first = json.loads(cli("maintain", "--db", str(store), "--json").stdout)
    [hook] = [h for h in first["hooks"] if h["name"] == "regenerate-bundles"]
    assert hook["ok"] and hook["message"].startswith("wrote:")
    written = report.read_bytes()
    claimed = re.search(rb'<meta name="memlens-snapshot-hash" content="([^"]+)"', written)[1].decode()
    assert claimed == json.loads(cli("stats", "--db", str(store), "--json").stdout)["hash"]

    second = json.loads(cli("maintain", "--db", str(store), "--json").stdout)
    [hook] = [h for h in second["hooks"] if h["name"] == "regenerate-bundles"]
    assert hook["message"].startswith("unchanged:")
    assert report.read_bytes() == written

    cli("remember", "--db", str(store), "a --knows--> c:Person", "-e", "y")
    third = json.loads(cli("maintain", "--db", str(store), "--json").stdout)
    assert [h for h in third["hooks"] if h["name"] == "regenerate-bundles"][0]["message"].startswith("wrote:")
    assert report.read_bytes() != written


def test_a_bundle_that_cannot_be_written_fails_the_hook_but_not_maintenance(cli, tmp_path):
    store = tmp_path / "m.sqlite"
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where a folder should be")
    cli("remember", "--db", str(store), "a:Person --knows--> b:Person", "-e", "x")
    cli("bundles", "add", str(blocker / "memory.html"), "--db", str(store))
    good = tmp_path / "good.html"
    cli("bundles", "add", str(good), "--db", str(store))
    result = cli("maintain", "--db", str(store))
    assert result.exit_code == 1
    assert "regenerate-bundles: FAILED" in result.output
    assert good.exists()  # the other bundle was still written
    assert json.loads(cli("stats", "--db", str(store), "--json").stdout)["facts"] == 1
    assert cli("bundles", "remove", str(blocker / "memory.html"), "--db", str(store)).exit_code == 0
    assert cli("maintain", "--db", str(store)).exit_code == 0


def test_view_if_changed_writes_once(cli, tmp_path):
    store, report = tmp_path / "m.sqlite", tmp_path / "r.html"
    cli("remember", "--db", str(store), "a:Person --knows--> b:Person")
    first = json.loads(cli("view", "--db", str(store), "--out", str(report), "--no-open", "--if-changed", "--json").stdout)
    second = json.loads(cli("view", "--db", str(store), "--out", str(report), "--no-open", "--if-changed", "--json").stdout)
    assert first["written"] is True and second["written"] is False
    assert "unchanged" in cli("view", "--db", str(store), "--out", str(report), "--no-open", "--if-changed").output


def test_removing_an_unknown_bundle_is_a_clear_error(cli, tmp_path):
    result = cli("bundles", "remove", str(tmp_path / "nothing.html"))
    assert result.exit_code == 1 and "no bundle" in result.output
    assert cli("bundles", "add", str(tmp_path / "x.html")).exit_code == 0
    assert cli("bundles", "remove", str(tmp_path / "x.html")).exit_code == 0


def test_a_regenerated_report_and_site_show_the_changes_since_the_last_snapshot(cli, tmp_path):
    from html.parser import HTMLParser

    store, report, site = tmp_path / "m.sqlite", tmp_path / "r.html", tmp_path / "site"
    cli("remember", "--db", str(store), "a:Person --knows--> b:Person", "-e", "x")
    cli("bundles", "add", str(report), "--db", str(store))
    cli("bundles", "add", str(site), "--format", "site", "--db", str(store))
    assert cli("maintain", "--db", str(store)).exit_code == 0
    assert (site / "manifest.json").exists()
    first_digest = read_digest(report, "html")
    assert first_digest and first_digest["format"] == "memlens-digest/1"

    cli("remember", "--db", str(store), "a --knows--> newcomer:Person", "-e", "y")
    assert cli("maintain", "--db", str(store)).exit_code == 0

    class Text(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.chunks: list[str] = []

        def handle_data(self, data: str) -> None:
            self.chunks.append(data)

    page = Text()
    page.feed(report.read_text())
    text = " ".join(page.chunks)
    assert "Changes since" in text and "newcomer" in text
    assert json.loads((site / "manifest.json").read_text())["hash"] == json.loads(
        cli("stats", "--db", str(store), "--json").stdout)["hash"]


def test_a_site_missing_a_file_memlens_wrote_is_written_again(cli, tmp_path):
    store, site = tmp_path / "m.sqlite", tmp_path / "site"
    cli("remember", "--db", str(store), "a:Person --knows--> b:Person", "-e", "x")
    assert cli("bundles", "add", str(site), "--format", "site", "--db", str(store)).exit_code == 0
    assert "wrote:" in cli("maintain", "--db", str(store)).output
    whole = (site / "contested.html").read_bytes()
    assert "unchanged:" in cli("maintain", "--db", str(store)).output
    (site / "contested.html").unlink()
    assert "wrote:" in cli("maintain", "--db", str(store)).output
    assert (site / "contested.html").read_bytes() == whole
    assert cli("verify", str(site)).exit_code == 0


def _regenerate_in_a_fresh_process(store: str, bundle: str, fmt: str) -> bool:
    """In a fresh interpreter: regenerate the bundle; whether it was written."""
    from memlens.store.memory import Memory
    from memlens.viewer import regeneration

    with Memory(Path(store)) as memory:
        return regeneration.regenerate(memory, regeneration.Bundle(bundle, fmt)).written


@pytest.mark.parametrize("fmt", ["html", "site"])
def test_a_regeneration_in_a_fresh_process_writes_what_one_here_writes(cli, tmp_path, fmt):
    """The same bundle, whatever the process that regenerates it (a fresh one, as the hook runs, or
    this one), and a page no write reached stays the very file it was."""
    from memlens.store.memory import Memory
    from memlens.viewer import regeneration

    store = tmp_path / "demo.sqlite"
    assert cli("demo", "--db", str(store)).exit_code == 0
    name = "report.html" if fmt == "html" else "site"
    assert cli("export", "--db", str(store), "--format", fmt, "-o", str(tmp_path / name)).exit_code == 0
    copy = tmp_path / "copy"
    copy.mkdir()
    assert cli("export", "--db", str(store), "--format", fmt, "-o", str(copy / name)).exit_code == 0
    assert cli("remember", "--db", str(store), "Dana Okafor --uses--> Docker Compose", "-e", "user said so").exit_code == 0
    if fmt == "site":   # a page no write reaches
        [untouched] = [p for p in (tmp_path / name / "entities").iterdir() if p.name.startswith("postgresql-")]
        untouched_inode = untouched.stat().st_ino
    assert in_a_fresh_process(_regenerate_in_a_fresh_process, str(store), str(tmp_path / name), fmt)
    with Memory(store) as memory:
        assert regeneration.regenerate(memory, regeneration.Bundle(str(copy / name), fmt)).written

    def files(root: Path) -> dict[str, bytes]:
        if root.is_file():
            return {"": root.read_bytes()}
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    assert files(tmp_path / name) == files(copy / name)
    if fmt == "site":   # a page no write reached stays as it was
        assert untouched.stat().st_ino == untouched_inode
    assert b"Docker Compose" in b"".join(files(copy / name).values())
