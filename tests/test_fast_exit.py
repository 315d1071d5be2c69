"""What a command leaves for the console script's fast exit is kept until the process ends, and
only under the console script: in-process callers (these tests among them) free it as usual."""
from __future__ import annotations

import weakref

from memlens.viewer.cli import fast_exit


class Large:
    """Stands for a snapshot: something whose freeing can be watched."""


def test_left_objects_are_kept_under_the_console_script_and_freed_elsewhere(monkeypatch):
    elsewhere = Large()
    freed = weakref.ref(elsewhere)
    fast_exit.leave(elsewhere)
    del elsewhere
    assert freed() is None   # nobody enabled the fast exit: nothing was kept

    monkeypatch.setattr(fast_exit, "_left", None)   # restored after the test: the session keeps nothing
    fast_exit.enable()
    kept_one = Large()
    kept = weakref.ref(kept_one)
    fast_exit.leave(kept_one)
    del kept_one
    assert kept() is not None   # the process's exit frees it


def test_a_long_lived_command_keeps_nothing(monkeypatch):
    monkeypatch.setattr(fast_exit, "_left", None)
    fast_exit.enable()
    kept_one = Large()
    kept = weakref.ref(kept_one)
    fast_exit.leave(kept_one)
    fast_exit.keep_nothing()   # as `memlens mcp` does before it serves
    served = Large()
    freed = weakref.ref(served)
    fast_exit.leave(served)
    del kept_one, served
    assert kept() is None and freed() is None
