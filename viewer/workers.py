"""Work shared with forked worker processes: a site's pages and digests, a large report's blocks.

A worker inherits the whole parent at its birth (nothing is pickled on the way in: at 100,000
entities that would cost more than the second core wins) and returns its result pickled, so a
job's result should be small. A fork copies no thread and no lock a thread holds, so work is
shared only while the process has a single thread (`can_fork`).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable

from memlens.store.errors import BundleError

# What the forked workers run (see with_workers): they find it at their birth.
_inherited: list[Callable[[], Any]] = []
_PR_SET_PDEATHSIG = 1


def with_workers(here: Callable[[], Any], there: list[tuple[Callable[[], Any], str]]) -> tuple[Any, list[Any]]:
    """(here(), [each of there's jobs' result]), each job run in a worker forked for it, all at the
    same time; a job that fails fails the whole, named by its text ("writing entity pages")."""
    global _inherited
    _inherited = [job for job, _ in there]
    try:
        # with "fork", the pool starts all its workers at the first submit, before its own thread
        with ProcessPoolExecutor(len(there), mp_context=multiprocessing.get_context("fork"),
                                 initializer=_die_with_parent) as pool:
            shares = [pool.submit(_run_inherited, n) for n in range(len(there))]
            mine = here()
            theirs = []
            for share, (_, what) in zip(shares, there):
                try:
                    theirs.append(share.result())
                except Exception as exc:
                    raise BundleError(f"the second process {what} failed: {type(exc).__name__}: {exc}") from None
    finally:
        _inherited = []
    return mine, theirs


def _run_inherited(job: int) -> Any:
    assert _inherited, "a worker is only ever forked by with_workers"
    return _inherited[job]()


def can_fork() -> bool:
    return hasattr(os, "fork") and threading.active_count() == 1


def _die_with_parent() -> None:
    """Linux: the worker is killed with the process that made it, so a killed export leaves no
    worker behind (elsewhere it ends with its task)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
