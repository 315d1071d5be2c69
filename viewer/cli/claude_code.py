"""Wiring memlens into Claude Code's settings: run `memlens maintain` when a session ends.

The settings file is JSON with `hooks.<Event>` lists of `{"matcher", "hooks": [{"type", "command"}]}`
groups. We add one group of our own and remove exactly that group, whatever else is there.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memlens.store.errors import InvalidInput
from memlens.viewer.atomic import atomic_write

EVENT = "SessionEnd"
COMMAND = "memlens maintain --quiet"
OUR_GROUP = {"matcher": "", "hooks": [{"type": "command", "command": COMMAND, "timeout": 120}]}


def settings_path(scope: str, project_dir: Path | None = None) -> Path:
    if scope == "user":
        return Path.home() / ".claude" / "settings.json"
    return (project_dir or Path.cwd()) / ".claude" / "settings.json"


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        settings = json.loads(path.read_text(encoding="utf-8") or "{}")
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); fix it first") from None
    if not isinstance(settings, dict):
        raise InvalidInput(f"{path} does not hold a JSON object")
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict) or not isinstance(hooks.get(EVENT, []), list):
        raise InvalidInput(f"{path}: 'hooks.{EVENT}' is not a list; fix it first")
    return settings


def _write(path: Path, settings: dict[str, Any]) -> None:
    atomic_write(path, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")


def _is_ours(group: Any) -> bool:
    return isinstance(group, dict) and group.get("hooks") == OUR_GROUP["hooks"]


def install(path: Path) -> bool:
    """Add our hook group; False if it was already there (nothing written)."""
    settings = _read(path)
    groups = settings.setdefault("hooks", {}).setdefault(EVENT, [])
    if any(_is_ours(group) for group in groups):
        return False
    groups.append(json.loads(json.dumps(OUR_GROUP)))
    _write(path, settings)
    return True


def uninstall(path: Path) -> bool:
    """Remove our hook group and nothing else; False if it was not there."""
    settings = _read(path)
    hooks = settings.get("hooks", {})
    groups = hooks.get(EVENT, [])
    kept = [group for group in groups if not _is_ours(group)]
    if len(kept) == len(groups):
        return False
    if kept:
        hooks[EVENT] = kept
    else:
        del hooks[EVENT]
        if not hooks:
            del settings["hooks"]
    _write(path, settings)
    return True


def installed(path: Path) -> bool:
    return any(_is_ours(group) for group in _read(path).get("hooks", {}).get(EVENT, []))
