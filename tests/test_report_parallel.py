"""A large report made in three processes: the seal made beside the page, the ledger and maintenance
blocks beside the others. The same bytes as one process writes, or no new report.

Work is shared only while the process has a single thread (a fork copies no thread and no lock
one holds). The test session has more (Playwright's), so the forking cases run in a fresh
interpreter of their own, started with `spawn`; here, the same calls run in one process.
"""
from __future__ import annotations

import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from functools import partial

import pytest
from viewer_fixtures import hostile_snapshot, project_snapshot

from memlens.store import demo
from memlens.store.errors import BundleError
from memlens.store.snapshot_seal import check_seal, seal_of, sealed
from memlens.viewer import workers
from memlens.viewer.reading import read_bundle
from memlens.viewer.report import codec
from memlens.viewer.report.write import write_report


def in_a_fresh_process(function, *args):
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(function, *args).result(timeout=120)


def _counting_forks() -> list[str]:
    """Every fork this process makes from now on."""
    made = []
    real_fork = workers.os.fork

    def fork():
        made.append("fork")
        return real_fork()

    workers.os.fork = fork
    return made


def _write_shared(snapshot: dict, target: str) -> tuple[bytes, list[str]]:
    """In a fresh process: the report of `snapshot`, sealed while it is made, its work shared."""
    codec.PARALLEL_MIN_RECORDS = 0
    forks = _counting_forks()
    written = write_report(snapshot, target, seal=partial(seal_of, snapshot, None)).read_bytes()
    return written, forks


def hand_made_snapshot() -> dict:
    """Maintenance rows and a dismissal the columns cannot say exactly (kept whole in `raw`, which
    the second process finds and the main block lists)."""
    snapshot = project_snapshot()
    snapshot["maintenance"][0] = dict(snapshot["maintenance"][0], note="added by hand")
    snapshot["maintenance"][1] = dict(snapshot["maintenance"][1], refs=["no-such-record"])
    snapshot["dismissals"][0] = dict(snapshot["dismissals"][0], reviewer="a person")
    return snapshot


@pytest.mark.parametrize("make", [project_snapshot, hostile_snapshot, hand_made_snapshot])
def test_three_processes_write_the_report_one_process_writes_of_the_sealed_snapshot(make, tmp_path):
    snapshot = make()
    one = write_report(sealed(snapshot), tmp_path / "one.html").read_bytes()
    # in this process (it has other threads) the seal is made when its block is, and nothing forks
    assert write_report(snapshot, tmp_path / "later.html", seal=partial(seal_of, snapshot, None)).read_bytes() == one
    shared, forks = in_a_fresh_process(_write_shared, snapshot, str(tmp_path / "shared.html"))
    assert forks == ["fork", "fork"]   # the seal's worker, then the blocks'
    assert shared == one
    assert b'id="memlens-seal"' in shared and b'id="memlens-ledger"' in shared


def _export_shared(store: str, out: str) -> tuple[list[str], dict]:
    """In a fresh process: `memlens export --format html` of a store, its work shared; what
    forked, and what checking the report's seal against its contents found."""
    from memlens.viewer.cli.app import main

    codec.PARALLEL_MIN_RECORDS = 0
    forks = _counting_forks()
    main(["export", "--db", store, "--format", "html", "-o", out], standalone_mode=False)
    return forks, check_seal(read_bundle(out), out)   # raises naming the first thing that differs


def test_a_stores_report_sealed_beside_its_page_verifies_and_is_the_one_process_report(cli, tmp_path):
    store = tmp_path / "demo.sqlite"
    demo.build(store).close()
    assert cli("export", "--db", str(store), "--format", "html", "-o", str(tmp_path / "one.html")).exit_code == 0
    forks, checked = in_a_fresh_process(_export_shared, str(store), str(tmp_path / "shared.html"))
    assert forks == ["fork", "fork"]
    assert checked["hash_of"] == "ledger" and checked["ledger"] > 100 and checked["facts"] > 50
    assert (tmp_path / "shared.html").read_bytes() == (tmp_path / "one.html").read_bytes()


def _fail(where: str, target: str) -> tuple[str, bool]:
    """In a fresh process: a report whose `where` fails in its worker; what was raised, and
    whether a worker outlived it."""
    snapshot = project_snapshot()
    codec.PARALLEL_MIN_RECORDS = 0
    children: list[int] = []
    real_fork = workers.os.fork

    def fork():
        pid = real_fork()
        if pid:
            children.append(pid)
        return pid

    workers.os.fork = fork

    def failing(*args, **kwargs):
        raise RuntimeError("out of memory")

    if where == "seal":
        seal = failing
    else:
        seal = partial(seal_of, snapshot, None)
        codec._second_blocks = failing
    try:
        write_report(snapshot, target, seal=seal)
    except BundleError as exc:
        error = str(exc)
    else:
        error = "no error"
    alive = False
    for pid in children:
        try:
            alive = alive or os.waitpid(pid, os.WNOHANG) == (0, 0)
        except ChildProcessError:  # reaped: gone
            pass
    return error, alive


@pytest.mark.parametrize("where, named", [
    ("seal", "the second process sealing the snapshot failed: RuntimeError: out of memory"),
    ("blocks", "the second process encoding the ledger and maintenance blocks failed: RuntimeError: out of memory"),
])
def test_a_failure_in_a_worker_fails_the_report_and_leaves_the_previous_one(where, named, tmp_path):
    target = write_report(sealed(project_snapshot()), tmp_path / "report.html")
    before = target.read_bytes()
    error, alive = in_a_fresh_process(_fail, where, str(target))
    assert error == named
    assert not alive
    assert target.read_bytes() == before and len(before) > 10_000
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def _ended_unasked() -> tuple[int, int, bool]:
    """In a fresh process: a worker that is asked gives its result; one whose result nobody asked
    for is ended with its block, and reaped."""
    with workers.meanwhile(os.getpid, "telling its pid", fork=True) as pid_of_worker:
        asked = pid_of_worker()
    children: list[int] = []
    real_fork = workers.os.fork
    workers.os.fork = lambda: children.append(real_fork()) or children[-1]
    with workers.meanwhile(partial(time.sleep, 60), "sleeping", fork=True):
        pass
    try:
        os.waitpid(children[0], os.WNOHANG)
        reaped = False
    except ChildProcessError:
        reaped = True
    return asked, os.getpid(), reaped and len(children) == 1


def test_a_worker_gives_its_result_and_one_not_asked_for_is_ended(tmp_path):
    started = time.monotonic()
    worker, parent, reaped = in_a_fresh_process(_ended_unasked)
    assert worker > 0 and parent > 0 and worker != parent   # the result came from another process
    assert reaped
    assert time.monotonic() - started < 50   # the sleeping worker was not waited for


def test_without_fork_the_job_runs_when_asked_and_once():
    calls = []

    def job():
        calls.append(1)
        return len(calls)

    with workers.meanwhile(job, "counting", fork=False) as result:
        assert calls == []
        assert result() == 1 and result() == 1
    assert calls == [1]


def test_only_large_pages_share_their_work():
    small = project_snapshot()
    assert not codec.shares_work(small)
    large = dict(small, ledger=small["ledger"] * (codec.PARALLEL_MIN_RECORDS // len(small["ledger"]) + 1))
    assert codec.shares_work(large)
