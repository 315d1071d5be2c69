"""After-maintenance hooks: code that runs once `maintain` has made its worklist.

A hook is a callable taking the open `Memory`; it returns a one-line message (or None). Hooks come
from `register()` and from the `memlens.after_maintenance` entry-point group, so a package (the
viewer, a plugin) can add one without the store importing it. A failing hook never undoes
maintenance: its error is reported and the caller decides the exit status.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import MemlensError

if TYPE_CHECKING:
    from .memory import Memory

Hook = Callable[["Memory"], "str | None"]
ENTRY_POINT_GROUP = "memlens.after_maintenance"
_registered: dict[str, Hook] = {}


@dataclass(frozen=True)
class HookResult:
    name: str
    ok: bool
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "message": self.message}


def register(name: str, hook: Hook) -> None:
    _registered[name] = hook


def unregister(name: str) -> None:
    _registered.pop(name, None)


def all_hooks() -> dict[str, Hook]:
    # imported here, where it is used: importlib.metadata is 20 ms of every command's start
    from importlib.metadata import entry_points

    hooks: dict[str, Hook] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            hooks[point.name] = point.load()
        except Exception as exc:  # a broken plugin is reported, not fatal
            hooks[point.name] = _broken(exc)
    hooks.update(_registered)
    return dict(sorted(hooks.items()))


def _broken(exc: Exception) -> Hook:
    def hook(memory: "Memory") -> str:
        raise exc
    return hook


def run_after_maintenance(memory: "Memory") -> list[HookResult]:
    results = []
    for name, hook in all_hooks().items():
        try:
            results.append(HookResult(name, True, hook(memory) or ""))   # "": it had nothing to say
        except MemlensError as exc:   # says what went wrong in its own words
            results.append(HookResult(name, False, str(exc)))
        except Exception as exc:
            results.append(HookResult(name, False, f"{type(exc).__name__}: {exc}"))
    return results
