"""Compiled templates are kept between runs, and a cache that cannot be trusted or used is never used."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from memlens.viewer.report import page, template_cache

HOSTILE = "<script>alert(1)</script>"


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "memlens" / "templates"


def compiled_page(env) -> str:
    nav = env.get_template("_site_nav.html").module.site_nav
    return str(nav([{"href": "a.html", "label": HOSTILE, "current": True, "count": 1200}]))


def test_a_second_environment_loads_what_the_first_compiled(cache_home: Path):
    first = page._environment()
    assert isinstance(first.bytecode_cache, template_cache._QuietCache)
    made = compiled_page(first)
    files = sorted(cache_home.iterdir())
    assert files, "the first environment left no compiled template"
    assert (cache_home.stat().st_mode & 0o777) == 0o700

    second = page._environment()
    stamps = {f: f.stat().st_mtime_ns for f in files}
    assert compiled_page(second) == made
    assert {f: f.stat().st_mtime_ns for f in sorted(cache_home.iterdir())} == stamps  # read, not written again
    assert "&lt;script&gt;" in made and HOSTILE not in made  # loaded code still escapes


def test_an_edited_template_is_compiled_again(cache_home: Path, monkeypatch: pytest.MonkeyPatch):
    def probe(source: str) -> str:
        monkeypatch.setattr(page, "_template_source", lambda name: source)
        return page._environment().get_template("probe.html").render(text=HOSTILE)

    assert probe("[{{ text }}]") == "[&lt;script&gt;alert(1)&lt;/script&gt;]"
    assert probe("({{ text }})") == "(&lt;script&gt;alert(1)&lt;/script&gt;)"
    assert probe("[{{ text }}]") == "[&lt;script&gt;alert(1)&lt;/script&gt;]"


def test_a_damaged_cache_file_is_a_miss(cache_home: Path):
    made = compiled_page(page._environment())
    for damaged in cache_home.iterdir():
        damaged.write_bytes(damaged.read_bytes()[:30])  # the header kept, the pickled checksum cut short
    assert compiled_page(page._environment()) == made
    assert all(f.stat().st_size > 30 for f in cache_home.iterdir())  # and written whole again


def test_no_cache_where_others_could_write_to_it(cache_home: Path):
    cache_home.mkdir(parents=True)
    os.chmod(cache_home, 0o777)
    assert template_cache.bytecode_cache({}) is None
    assert "&lt;script&gt;" in compiled_page(page._environment())
    assert list(cache_home.iterdir()) == []
    os.chmod(cache_home, 0o700)
    assert template_cache.bytecode_cache({}) is not None


def test_no_cache_where_none_can_be_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert template_cache.bytecode_cache({}) is None
    assert "&lt;script&gt;" in compiled_page(page._environment())


def test_other_options_use_other_files(cache_home: Path):
    escaping = template_cache.bytecode_cache({"autoescape": True})
    plain = template_cache.bytecode_cache({"autoescape": False})
    assert escaping is not None and plain is not None
    assert escaping.pattern != plain.pattern
    assert escaping.pattern == template_cache.bytecode_cache({"autoescape": True}).pattern


def test_a_relative_cache_home_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", "relative-cache")
    assert template_cache.cache_directory() == tmp_path / "home" / ".cache" / "memlens" / "templates"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "absolute"))
    assert template_cache.cache_directory() == tmp_path / "absolute" / "memlens" / "templates"
