"""Writing the report: atomic replacement, nothing left behind, identical bytes."""

from __future__ import annotations

import pytest
from viewer_fixtures import hostile_snapshot, project_snapshot

from memlens.viewer.report import page as report_module
from memlens.viewer.report.write import write_report


def test_write_report_writes_the_rendered_page(tmp_path):
    target = tmp_path / "report.html"
    written = write_report(project_snapshot(), target)
    assert written == target.resolve()
    assert target.read_text(encoding="utf-8") == report_module.render_report(project_snapshot())
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_same_snapshot_gives_byte_identical_files(tmp_path):
    first = write_report(project_snapshot(), tmp_path / "a.html").read_bytes()
    second = write_report(project_snapshot(), tmp_path / "b.html").read_bytes()
    assert first == second
    other = write_report(hostile_snapshot(), tmp_path / "c.html").read_bytes()
    assert other != first


def test_failure_mid_render_leaves_the_previous_report_untouched(tmp_path, monkeypatch):
    target = tmp_path / "report.html"
    write_report(hostile_snapshot(), target)
    before = target.read_bytes()
    assert len(before) > 10_000

    def explode(*args, **kwargs):
        raise RuntimeError("renderer crashed half way")

    # the timelines are built after the layout: the failure lands in the middle of rendering
    monkeypatch.setattr(report_module, "entity_timelines", explode)
    with pytest.raises(RuntimeError, match="half way"):
        write_report(project_snapshot(), target)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_failure_while_writing_removes_the_temp_file(tmp_path, monkeypatch):
    target = tmp_path / "report.html"
    target.write_text("old report", encoding="utf-8")

    def failing_rename(folder, source, target):
        raise OSError("disk full")

    monkeypatch.setattr("memlens.store.checked_folder.CheckedFolder.rename", failing_rename)
    with pytest.raises(OSError, match="disk full"):
        write_report(project_snapshot(), target)
    assert target.read_text(encoding="utf-8") == "old report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_write_report_creates_missing_directories(tmp_path):
    target = tmp_path / "nested" / "deeper" / "report.html"
    write_report(project_snapshot(), target)
    assert target.stat().st_size > 10_000
    assert oct(target.stat().st_mode & 0o777) == oct(0o644)
