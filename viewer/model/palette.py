"""Entity type looks (a colour and a dot shape) that stay distinct within a memory and stable over time.

The colours are a qualitative palette chosen for telling apart: from Paul Tol's, Okabe and Ito's
and IBM's colour-blind-safe palettes, the eight whose smallest difference (CIELAB distance) is
largest under normal vision and under simulated deuteranopia, protanopia and tritanopia
(Machado 2009): at least 22 in each. Each is at least 1.75:1 against the light graph background
and 2.5:1 against the dark one.

While a memory has no more types than colours, every type has a colour of its own and is drawn
as a dot. Beyond that the shape tells types apart: the eight colours as dots, then as squares,
then triangles, and so on, so the first PALETTE x SHAPES types never share a look. Past eight
types, the colour nearest another (#997700 beside #ddaa33: 22 apart in CIELAB where every other
pair is 40 or more) runs through the shapes from SHAPE_SHIFT on, so those two never share a shape
among the first 24 types: at dot size they were told apart by shape alone (Bug and Library, both
dots, looked alike in the demo).

Stable: a type keeps the look the previous bundle gave it (the way a regenerated bundle keeps
every entity's position), and a new type takes the free look nearest to one its name hashes to,
so it does not depend on which other types exist. Only when there is no previous bundle to keep
can a new type take a look another type would have hashed to.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Mapping

from memlens.store.observations import OBSERVATION_POSITION

PALETTE = ("#33bbee", "#ddaa33", "#ee3377", "#785ef0", "#ee8866", "#997700", "#aa4499", "#bbbbbb")
# vis-network shapes that, like the dot, are sized by `size` and carry their label underneath; the
# hexagon, nearest a dot at dot size, last
SHAPES = ("dot", "square", "triangle", "diamond", "star", "triangleDown", "hexagon")
SHAPE_SHIFT = {"#997700": 3}   # with more types than colours: its shapes are diamond, star, triangleDown, ...


@dataclass(frozen=True)
class TypeLook:
    color: str
    shape: str = "dot"

    def slot(self, shaped: bool) -> int | None:
        """Its place among the PALETTE x SHAPES looks (see _look), None if it is none of them."""
        if self.color not in PALETTE or self.shape not in SHAPES:
            return None
        colour = PALETTE.index(self.color)
        tier = (SHAPES.index(self.shape) - (SHAPE_SHIFT.get(self.color, 0) if shaped else 0)) % len(SHAPES)
        return tier * len(PALETTE) + colour


def _look(slot: int, shaped: bool) -> TypeLook:
    """The look in `slot`: slot // colours is its tier, slot % colours its colour; `shaped`: the
    memory has more types than colours, and SHAPE_SHIFT applies."""
    tier, colour = divmod(slot % (len(PALETTE) * len(SHAPES)), len(PALETTE))
    shift = SHAPE_SHIFT.get(PALETTE[colour], 0) if shaped else 0
    return TypeLook(PALETTE[colour], SHAPES[(tier + shift) % len(SHAPES)])


def preferred_colour(type_name: str) -> int:
    """The palette index a type's name hashes to: where its search for a free colour starts."""
    return int.from_bytes(hashlib.sha256(type_name.encode("utf-8")).digest()[:4], "big") % len(PALETTE)


def assign_looks(counts: Mapping[str, int], previous: Mapping[str, TypeLook] | None = None) -> dict[str, TypeLook]:
    """A look for every type in `counts` (type -> live entities of it; 0 for types nobody uses).

    Types in use come first, most used first, so the dots go to the types seen most. `previous`
    (type -> look, from the bundle being regenerated) is kept for every type still in use whose
    look is still free and is needed: while all the types fit in the palette, only dots are kept.
    """
    used = sorted((t for t, n in counts.items() if n > 0), key=lambda t: (-counts[t], t))
    unused = sorted(t for t, n in counts.items() if n <= 0)
    tiers = max(1, -(-len(used) // len(PALETTE)))            # how many shapes the types in use need
    shaped = tiers > 1
    looks: dict[str, TypeLook] = {}
    taken: set[int] = set()
    for name in used:
        kept = (previous or {}).get(name)
        slot = kept.slot(shaped) if kept is not None else None
        if slot is not None and slot < tiers * len(PALETTE) and slot not in taken:
            looks[name] = kept
            taken.add(slot)
    for name in used + unused:
        if name in looks:
            continue
        start = preferred_colour(name)
        free = next((tier * len(PALETTE) + (start + step) % len(PALETTE)
                     for tier in range(len(SHAPES)) for step in range(len(PALETTE))
                     if tier * len(PALETTE) + (start + step) % len(PALETTE) not in taken), None)
        slot = free if free is not None else start          # every look in use: share the hashed one
        looks[name] = _look(slot, shaped)
        taken.add(slot)
    return looks


def type_counts(snapshot: Mapping) -> dict[str, int]:
    """Live entities per type (observations are none), for every type of the ontology or of an entity."""
    counts = {str(t): 0 for t in snapshot.get("ontology", {}).get("types", [])}
    for entity in snapshot["entities"]:
        counts.setdefault(entity["type"], 0)
        if entity.get("merged_into") is None and entity.get(OBSERVATION_POSITION) is None:   # is_observation, inline
            counts[entity["type"]] += 1
    return counts
