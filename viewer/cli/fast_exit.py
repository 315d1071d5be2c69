"""What a one-shot command leaves for the console script's fast exit to free (see app.run).

A command's snapshot is freed object by object when the command returns, before the process
exits: 0.63 s at 100,000 entities, all of it spent after the file is written. The console script
ends with os._exit, which gives the memory back at once; `leave` hands it a command's large
results. In any other caller (the tests, an embedding program) nothing is kept.
"""
from __future__ import annotations

_left: list[object] | None = None


def enable() -> None:
    """From now on this process ends by os._exit: what `leave` is given is kept until then."""
    global _left
    _left = []


def keep_nothing() -> None:
    """For a command that lives long (`memlens mcp`): what it leaves is freed as usual, not kept
    for an exit that may be hours away. The process still ends by os._exit."""
    global _left
    _left = None


def leave(*objects: object) -> None:
    if _left is not None:
        _left.extend(objects)
