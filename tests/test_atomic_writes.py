"""Every file memlens writes goes through one atomic write; what a killed writer leaves is cleared
by the next write of the same target."""
from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from viewer_fixtures import project_snapshot
from without_linux_calls import Reached
from without_linux_calls import kernel32 as windows_kernel32

from memlens.store import temporaries
from memlens.store.checked_folder import CheckedFolder
from memlens.store.temporaries import MARK, leftovers, temporary_beside
from memlens.viewer.atomic import atomic_write
from memlens.viewer.cli.progress import Progress
from memlens.viewer.site.build import write_site


def a_gone_pid() -> int:
    """The pid of a process that has ended (a killed writer's)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def debris(target: Path, pid: int, suffix: str = ".tmp") -> Path:
    return target.parent / f".{target.name}.{MARK}-{pid}-0123abcd{suffix}"


def test_text_bytes_and_chunks_replace_the_file_whole_with_a_readable_mode(tmp_path):
    target = tmp_path / "out" / "r.html"
    atomic_write(target, "one")
    assert target.read_text() == "one" and (target.stat().st_mode & 0o777) == 0o644
    os.chmod(target, 0o600)  # a mode the owner chose is kept
    atomic_write(target, ["t", "w", "o"])
    assert target.read_text() == "two" and (target.stat().st_mode & 0o777) == 0o600
    atomic_write(tmp_path / "b.bin", b"\x00\x01")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["b.bin", "out", "r.html"]  # no temporaries


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "r.html"
    atomic_write(target, "old")

    def chunks():
        yield "new, half"
        raise RuntimeError("renderer crashed")

    with pytest.raises(RuntimeError, match="crashed"):
        atomic_write(target, chunks())
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]


def test_the_next_write_removes_what_a_killed_writer_left_and_nothing_else(tmp_path):
    target = tmp_path / "r.html"
    gone, alive = a_gone_pid(), os.getpid()
    stale = debris(target, gone)
    stale.write_text("half a report")
    running = debris(target, alive)  # a writer still at work: not ours to remove
    running.write_text("being written")
    other = debris(tmp_path / "other.html", gone)  # another target's: left for its own writer
    other.write_text("x")
    assert leftovers(target) == [stale]
    atomic_write(target, "whole")
    assert not stale.exists()
    assert running.exists() and other.exists() and target.read_text() == "whole"


def test_on_windows_a_process_is_running_until_it_has_an_exit_code():
    kernel32 = windows_kernel32(Reached())
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        def running(pid):
            return temporaries._running_on_windows(pid, kernel32, kernel32.last_error)
        assert running(sleeper.pid) and not kernel32.open
        assert not running(a_gone_pid()) and not running(0) and not running(2**40)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert not running(sleeper.pid)


def test_temporary_names_say_whose_they_are(tmp_path):
    name = temporary_beside(tmp_path / "report.html").name
    assert name.startswith(f".report.html.{MARK}-{os.getpid()}-") and name.endswith(".tmp")


def test_a_progress_bar_can_step_aside_for_work_that_forks():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    baseline = threading.active_count()
    with Progress(2, stream=Terminal()) as progress:
        assert threading.active_count() == baseline + 1  # the ticker
        with progress.without_ticker():
            assert threading.active_count() == baseline
        assert threading.active_count() == baseline + 1
    assert threading.active_count() == baseline


def refused_while_held(real, times: int):
    """`real` (CheckedFolder.rename) as Windows runs it while another program holds the file:
    refused `times` times, then done."""
    refusals = [times]

    def rename(folder, source, target):
        if refusals[0] > 0:
            refusals[0] -= 1
            raise PermissionError(13, "The process cannot access the file because it is being used by another process",
                                  str(target))
        return real(folder, source, target)
    return rename


def test_a_file_held_for_a_moment_by_another_program_is_replaced_once_it_is_let_go(tmp_path, monkeypatch):
    from memlens.viewer import atomic
    target = tmp_path / "report.html"
    atomic_write(target, "old")
    monkeypatch.setattr(atomic, "REFUSES_WHILE_HELD", True)   # Windows
    monkeypatch.setattr(CheckedFolder, "rename", refused_while_held(CheckedFolder.rename, 3))
    atomic_write(target, "new")
    assert target.read_text() == "new" and leftovers(target) == []


def test_a_file_held_for_good_keeps_its_old_bytes_and_says_why(tmp_path, monkeypatch):
    from memlens.store.errors import BundleError
    from memlens.viewer import atomic
    target = tmp_path / "report.html"
    atomic_write(target, "old")
    real_rename = CheckedFolder.rename
    monkeypatch.setattr(atomic, "REFUSES_WHILE_HELD", True)
    monkeypatch.setattr(atomic, "HELD_PAUSES", (0.0, 0.0))
    monkeypatch.setattr(CheckedFolder, "rename", refused_while_held(real_rename, 10))
    with pytest.raises(BundleError, match="another program holds it open"):
        atomic_write(target, "new")
    assert target.read_text() == "old" and leftovers(target) == []
    monkeypatch.setattr(atomic, "REFUSES_WHILE_HELD", False)   # Linux: a refusal is the system's answer at once
    monkeypatch.setattr(CheckedFolder, "rename", refused_while_held(real_rename, 1))
    with pytest.raises(PermissionError):
        atomic_write(target, "new")
    atomic_write(target, "new")
    assert target.read_text() == "new"


def test_a_site_file_held_for_a_moment_by_another_program_is_replaced_once_it_is_let_go(tmp_path, monkeypatch):
    from memlens.viewer import atomic
    site = write_site(project_snapshot(), tmp_path / "site")
    monkeypatch.setattr(atomic, "REFUSES_WHILE_HELD", True)
    monkeypatch.setattr(CheckedFolder, "rename", refused_while_held(CheckedFolder.rename, 2))
    snapshot = project_snapshot()
    snapshot["dataset"] = "renamed"
    write_site(snapshot, site)
    assert '"dataset": "renamed"' in (site / "manifest.json").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
    assert not [p for p in site.rglob("*") if f".{MARK}-" in p.name]
