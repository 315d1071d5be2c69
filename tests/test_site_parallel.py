"""Entity pages written by two processes: the same site as one process writes, or no new site.

A site build forks its second writer only while the process has a single thread (a fork copies no
thread and no lock one holds). The test session has more (Playwright's), so the forking cases run
in a fresh interpreter of their own, started with `spawn`.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from viewer_fixtures import in_a_fresh_process, project_snapshot

from memlens.store.errors import BundleError
from memlens.viewer import workers
from memlens.viewer.site import folder
from memlens.viewer.site.build import SiteBuild, write_site


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _write_forked(target: str) -> tuple[dict[str, bytes], bool]:
    """In a fresh process: write the site with its work shared among processes."""
    forks = []
    real = workers.os.fork

    def counting():
        forks.append("fork")
        return real()

    folder.PARALLEL_MIN_ENTITIES = folder.PARALLEL_MIN_ITEMS = 2
    workers.os.fork = counting
    # one worker digests half of the records; then one writes half of the entity pages while
    # another writes the other pages
    return tree(write_site(project_snapshot(), target)), forks == ["fork"] * 3


def _outcome(snapshot: dict, target: str) -> tuple[str, dict[str, bytes]]:
    """What writing the site raised ("no error" if nothing), and the site after."""
    try:
        write_site(snapshot, target)
    except BundleError as exc:
        return str(exc), tree(Path(target))
    return "no error", tree(Path(target))


def _fail_in_the_second_half(target: str) -> tuple[str, dict[str, bytes]]:
    """In a fresh process: a site whose second writer fails; what was raised, and the site after."""
    snapshot = project_snapshot()
    last_entity = snapshot["entities"][-1]["id"]
    real = SiteBuild.write_entity_pages

    def failing(self, entities, emit, *args):
        if any(e["id"] == last_entity for e in entities):
            raise RuntimeError("disk full")
        real(self, entities, emit, *args)

    folder.PARALLEL_MIN_ENTITIES = 2
    SiteBuild.write_entity_pages = failing
    return _outcome(snapshot, target)


def _fail_digesting_the_last_ledger_row(target: str) -> tuple[str, dict[str, bytes]]:
    """In a fresh process: a site whose second process fails digesting a record; what was raised, and the site after."""
    from memlens.viewer.site.page_inputs import PageInputs

    snapshot = project_snapshot()
    last_row = len(snapshot["ledger"]) - 1
    real = PageInputs.ledger_row

    def failing(self, index):
        if index == last_row:
            raise RuntimeError("out of memory")
        return real(self, index)

    folder.PARALLEL_MIN_ITEMS = 2
    PageInputs.ledger_row = failing
    return _outcome(snapshot, target)


def test_two_processes_write_the_same_site_as_one(tmp_path, monkeypatch):
    monkeypatch.setattr(folder, "PARALLEL_MIN_ENTITIES", 10**9)
    monkeypatch.setattr(folder, "PARALLEL_MIN_ITEMS", 10**9)
    serial = tree(write_site(project_snapshot(), tmp_path / "serial"))
    forked, did_fork = in_a_fresh_process(_write_forked, str(tmp_path / "forked"))
    assert did_fork  # the second process really digested half of the records and wrote half of the pages
    assert len([name for name in serial if name.startswith("entities/")]) > 10
    assert forked == serial  # every page and the manifest's hashes of them


def _threads_and_site(target: str) -> tuple[int, dict[str, bytes], bool]:
    """In a fresh process: how many threads the system counts once numpy is in, and the site."""
    import numpy  # noqa: F401  (the layout's; its BLAS pool starts with it)
    threads = len(os.listdir("/proc/self/task"))
    site, did_fork = _write_forked(target)
    return threads, site, did_fork


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts threads in /proc")
def test_a_thread_python_did_not_start_keeps_the_build_in_one_process(tmp_path, monkeypatch):
    """numpy's BLAS pool is a thread threading.active_count() does not see: a fork would copy none
    of it and none of the locks it holds, so the site is written in one process."""
    monkeypatch.setattr(folder, "PARALLEL_MIN_ENTITIES", 10**9)
    monkeypatch.setattr(folder, "PARALLEL_MIN_ITEMS", 10**9)
    serial = tree(write_site(project_snapshot(), tmp_path / "serial"))
    threads, site, did_fork = in_a_fresh_process(_threads_and_site, str(tmp_path / "pooled"), blas_threads="2")
    assert threads > 1 and not did_fork and site == serial
    threads, site, did_fork = in_a_fresh_process(_threads_and_site, str(tmp_path / "alone"))
    assert threads == 1 and did_fork and site == serial   # the positive case: one thread, and it forks


def test_a_failure_in_the_second_process_leaves_the_previous_site_whole(tmp_path):
    target = write_site(project_snapshot(), tmp_path / "site")
    before = tree(target)
    error, after = in_a_fresh_process(_fail_in_the_second_half, str(target))
    assert "second process writing entity pages failed: RuntimeError: disk full" in error
    assert after == before
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # no half-built folder left


def test_a_failure_digesting_records_in_the_second_process_leaves_the_previous_site_whole(tmp_path):
    target = write_site(project_snapshot(), tmp_path / "site")
    before = tree(target)
    assert "entities/index.html" in before
    error, after = in_a_fresh_process(_fail_digesting_the_last_ledger_row, str(target))
    assert "second process digesting the records failed: RuntimeError: out of memory" in error
    assert after == before
    assert [p.name for p in tmp_path.iterdir()] == ["site"]


def test_with_another_thread_alive_the_build_never_forks(tmp_path, monkeypatch):
    monkeypatch.setattr(folder, "PARALLEL_MIN_ENTITIES", 2)
    monkeypatch.setattr(folder, "PARALLEL_MIN_ITEMS", 2)

    def no_fork(*args, **kwargs):
        raise AssertionError("forked while another thread was alive")

    monkeypatch.setattr(workers.os, "fork", no_fork)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        written = tree(write_site(project_snapshot(), tmp_path / "site"))
    finally:
        stop.set()
        other.join()
    monkeypatch.setattr(folder, "PARALLEL_MIN_ENTITIES", 10**9)
    monkeypatch.setattr(folder, "PARALLEL_MIN_ITEMS", 10**9)
    assert written == tree(write_site(project_snapshot(), tmp_path / "serial"))
    assert any(name.startswith("entities/") for name in written)


_KILLED_BUILD = """
import os, sys, time
from memlens.viewer.site import folder
from memlens.viewer.site.build import SiteBuild, write_site
from viewer_fixtures import in_a_fresh_process, project_snapshot

folder.PARALLEL_MIN_ENTITIES = 2
real = SiteBuild.write_entity_pages
last = project_snapshot()["entities"][-1]["id"]

def slow(self, entities, emit, *args):
    if any(e["id"] == last for e in entities):  # the worker's half
        with open(sys.argv[2], "w") as note:
            note.write(str(os.getpid()))
        time.sleep(60)
    real(self, entities, emit, *args)

SiteBuild.write_entity_pages = slow
write_site(project_snapshot(), sys.argv[1])
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the worker dies with its parent on Linux")
def test_a_killed_build_leaves_no_writer_behind_and_the_next_build_clears_its_folder(tmp_path):
    site, note = tmp_path / "site", tmp_path / "worker.pid"
    builder = subprocess.Popen([sys.executable, "-c", _KILLED_BUILD, str(site), str(note)],
                               env={**os.environ, "PYTHONPATH": str(Path(__file__).parent)})
    deadline = time.monotonic() + 60
    while not note.exists() or not note.read_text():
        assert builder.poll() is None and time.monotonic() < deadline, "the build ended before its worker started"
        time.sleep(0.05)
    worker = int(note.read_text())
    os.kill(builder.pid, signal.SIGKILL)
    builder.wait()
    for _ in range(100):  # the kernel delivers the worker's SIGKILL as its parent dies
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            break
        time.sleep(0.02)
    else:
        pytest.fail(f"the worker {worker} outlived the killed build")
    leftovers = [p.name for p in tmp_path.rglob("*") if ".memlens-" in p.name]
    assert leftovers  # the files half a site written, which a killed process cannot remove
    write_site(project_snapshot(), site)
    assert not [p.name for p in tmp_path.rglob("*") if ".memlens-" in p.name]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site", "worker.pid"]
    assert (site / "manifest.json").is_file()


_INTERRUPTED_FORK = r"""
import os, signal, sys, time
from memlens.viewer import workers

real = workers.os.fork

def fork_then_interrupted():
    pid = real()
    if pid:   # the parent: a Ctrl-C lands right after the fork
        os.kill(os.getpid(), signal.SIGINT)
    return pid

workers.os.fork = fork_then_interrupted
# a Ctrl-C raises KeyboardInterrupt even where this process started with SIGINT ignored (a shell's
# background job, whose children inherit that, and Python then installs no handler of its own)
signal.signal(signal.SIGINT, signal.default_int_handler)
try:
    workers.with_workers(lambda: None, [(lambda: time.sleep(30), "sleeping")])
except KeyboardInterrupt:
    print("interrupted")
try:
    pid, _ = os.waitpid(-1, os.WNOHANG)
    print(f"a worker left behind: {pid}")
except ChildProcessError:
    print("no worker left")
print(f"pipes open: {len(os.listdir('/proc/self/fd'))}")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts open descriptors in /proc")
def test_a_ctrl_c_right_after_a_fork_leaves_no_worker_and_no_pipe_behind(tmp_path):
    baseline = subprocess.run([sys.executable, "-c", "import os; from memlens.viewer import workers; "
                               "print(f\"pipes open: {len(os.listdir('/proc/self/fd'))}\")"],
                              capture_output=True, text=True, timeout=60).stdout.split()[-1]
    done = subprocess.run([sys.executable, "-c", _INTERRUPTED_FORK], capture_output=True, text=True, timeout=60)
    lines = done.stdout.splitlines()
    assert lines[:2] == ["interrupted", "no worker left"], done.stdout + done.stderr
    assert lines[2] == f"pipes open: {baseline}"
