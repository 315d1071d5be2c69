"""Work shared with forked worker processes: a site's record digests and pages.

A worker inherits the whole parent at its birth (nothing is pickled on the way in: at 100,000
entities that would cost more than the second core wins) and returns its result pickled, so a
job's result should be small. A fork copies no thread and no lock a thread holds, so work is
shared only while the process has a single thread, and only on Linux (`can_fork`).

A worker's memory is not free: CPython's reference counts write to every object it reads, so
the pages it reads are copied. (A report of 100,000 entities made in three processes, the seal
and the ledger and maintenance blocks each in a worker, took 13.4 s instead of 15.8 but held
2.4 GB instead of 1.4; a report is made in one.)
"""

from __future__ import annotations

import ctypes
import os
import pickle
import signal
import sys
from typing import Any, Callable, NoReturn

from memlens.store.errors import BundleError

_PR_SET_PDEATHSIG = 1


def with_workers(here: Callable[[], Any], there: list[tuple[Callable[[], Any], str]]) -> tuple[Any, list[Any]]:
    """(here(), [each of there's jobs' result]), each job run in a worker forked for it, all at the
    same time; a job that fails fails the whole, named by its text ("writing entity pages")."""
    started: list[_Forked] = []
    try:
        for job, what in there:
            _Forked(job, what, started)
        mine = here()
        return mine, [worker.result() for worker in started]
    finally:
        for worker in started:
            worker.end()


def can_fork() -> bool:
    """Only on Linux (macOS's system libraries are not safe across a fork, which is why Python
    spawns there), and only while the process has one thread, as the system counts them: a thread
    started outside Python (numpy's BLAS pool, unless OPENBLAS_NUM_THREADS=1) is one too."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:   # no /proc mounted: the threads cannot be counted
        return False


def _die_with_parent() -> None:
    """The worker is killed with the process that made it, so a killed export leaves no worker
    behind (a worker is forked on Linux only: can_fork)."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


class _Forked:
    """job() in a child made by os.fork, its result (or its failure) pickled back through a pipe.

    A Ctrl-C is held off from just before the fork until the parent has put the worker in
    `started` (where with_workers ends it) and the child is inside its own handling: landing
    between the two, it would leave a worker nobody ends, or unwind the child through the
    parent's code."""

    def __init__(self, job: Callable[[], Any], what: str, started: list[_Forked]) -> None:
        self.what = what
        self._made: list[Any] = []
        read, write = os.pipe()
        parent = os.getpid()
        held = _hold_interrupts()
        try:
            try:
                self.pid = os.fork()
            except BaseException:
                os.close(read)
                os.close(write)
                raise
            if self.pid == 0:  # the child: never returns
                os.close(read)
                _run_child(job, write, parent, held)
            os.close(write)
            self._pipe = read
            started.append(self)
        finally:
            _let_interrupts(held)

    def result(self) -> Any:
        if not self._made:
            with os.fdopen(self._pipe, "rb") as pipe:
                self._pipe = -1
                data = pipe.read()
            os.waitpid(self.pid, 0)
            self.pid = 0
            try:
                ok, value = pickle.loads(data)
            except Exception:  # the worker died before it could say anything (killed, out of memory)
                ok, value = False, "it ended without a result"
            if not ok:
                raise BundleError(f"the second process {self.what} failed: {value}")
            self._made.append(value)
        return self._made[0]

    def end(self) -> None:
        if self.pid:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = 0
        if self._pipe >= 0:
            os.close(self._pipe)
            self._pipe = -1


def _hold_interrupts() -> Any:
    """Block SIGINT in this (the only) thread; what to give _let_interrupts to undo it."""
    return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def _let_interrupts(held: Any) -> None:
    signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _run_child(job: Callable[[], Any], write: int, parent: int, held: Any) -> NoReturn:
    code = 0
    try:
        _let_interrupts(held)   # a Ctrl-C held off since the fork lands here, and ends the child
        _die_with_parent()
        if os.getppid() != parent:  # the parent died before the line above took effect
            raise SystemExit(1)
        try:
            outcome = (True, job())
        except BaseException as exc:  # sent to the parent, which raises it
            outcome = (False, f"{type(exc).__name__}: {exc}")
        with os.fdopen(write, "wb") as pipe:
            pipe.write(pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL))
    except BaseException:
        code = 1
    finally:
        os._exit(code)  # no atexit handlers, no flushing of the parent's buffers, no finalizers
