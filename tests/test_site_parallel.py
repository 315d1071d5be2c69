"""Entity pages written by two processes: the same site as one process writes, or no new site."""
from __future__ import annotations

from pathlib import Path

import pytest
from viewer_fixtures import project_snapshot

from memlens.viewer.site import folder
from memlens.viewer.site.build import SiteBuild, write_site


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_two_processes_write_the_same_site_as_one(tmp_path, monkeypatch):
    snapshot = project_snapshot()
    monkeypatch.setattr(folder, "PARALLEL_MIN_ENTITIES", 10**9)
    serial = tree(write_site(snapshot, tmp_path / "serial"))
    monkeypatch.setattr(folder, "PARALLEL_MIN_ENTITIES", 2)
    forked = tree(write_site(snapshot, tmp_path / "forked"))
    assert len([name for name in serial if name.startswith("entities/")]) > 10
    assert forked == serial  # every page and the manifest's hashes of them


def test_a_failure_in_the_second_process_leaves_the_previous_site_whole(tmp_path, monkeypatch):
    snapshot = project_snapshot()
    target = write_site(snapshot, tmp_path / "site")
    before = tree(target)
    last_entity = snapshot["entities"][-1]["id"]
    real = SiteBuild.write_entity_pages

    def fail_in_the_second_half(self, entities, emit):
        if any(e["id"] == last_entity for e in entities):
            raise RuntimeError("disk full")
        real(self, entities, emit)

    monkeypatch.setattr(folder, "PARALLEL_MIN_ENTITIES", 2)
    monkeypatch.setattr(SiteBuild, "write_entity_pages", fail_in_the_second_half)
    with pytest.raises(RuntimeError, match="second process writing entity pages failed: RuntimeError: disk full"):
        write_site(snapshot, target)
    assert tree(target) == before
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # no half-built folder left
