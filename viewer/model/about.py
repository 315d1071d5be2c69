"""What a memory is about, in one line for the page's header: its project and its main types.

The project is the memory's own word for itself: the best connected live entity whose type is
Project (in any case: other tools' imports keep the type as they wrote it) and that has a
description. The types are the most common ones, with their counts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping

from .link_graph import counted_entities

TOP_TYPES = 3
DESCRIPTION_CHARS = 200   # the header holds one line; the panel shows the whole description


@dataclass(frozen=True)
class About:
    project: str                      # the project entity's name, or "" when the memory names none
    description: str                  # its description, cut to DESCRIPTION_CHARS
    types: list[tuple[str, int]]      # the most common types and how many live entities each has

    def __bool__(self) -> bool:
        return bool(self.project or self.types)


def about(snapshot: Mapping[str, Any], degree: Mapping[str, int]) -> About:
    """`degree`: entity id -> its links (the layout's), to choose among several projects."""
    live = counted_entities(snapshot)
    projects = [e for e in live if str(e.get("type", "")).casefold() == "project" and (e.get("description") or "").strip()]
    project = min(projects, key=lambda e: (-degree.get(e["id"], 0), e["name"], e["id"]), default=None)
    counts = Counter(str(e.get("type", "")) for e in live)
    types = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:TOP_TYPES]
    if project is None:
        return About("", "", types)
    description = " ".join(str(project["description"]).split())
    if len(description) > DESCRIPTION_CHARS:
        description = description[:DESCRIPTION_CHARS - 1].rstrip() + "\u2026"
    return About(str(project["name"]), description, types)
