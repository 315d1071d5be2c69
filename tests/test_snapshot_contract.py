"""The viewer's tests build snapshots by code (viewer_fixtures.SnapshotBuilder); this pins that
what they build has the shape of a real store's snapshot, so those tests test what users get."""
from __future__ import annotations

from collections import defaultdict
from typing import Any

from viewer_fixtures import project_snapshot

from memlens.store import demo
from memlens.store.memory import Memory
from memlens.store.snapshot.load import load_into

# A ledger payload's keys depend on its action, the withheld facts' are fact ids: their shape is
# "a dict", whatever it holds.
OPAQUE = {"ledger[].payload", "withheld_from_briefs"}


def shape(value: Any, path: str = "", into: dict[str, set[str]] | None = None) -> dict[str, set[str]]:
    """Every path in `value` (lists as `[]`), with the kinds of value found there."""
    into = defaultdict(set) if into is None else into
    if isinstance(value, dict):
        into[path].add("dict")
        if path not in OPAQUE:
            for key, item in value.items():
                shape(item, f"{path}.{key}" if path else key, into)
    elif isinstance(value, list):
        into[path].add("list")
        for item in value:
            shape(item, f"{path}[]", into)
    else:
        into[path].add(type(value).__name__)
    return into


def test_built_snapshots_have_the_paths_and_kinds_of_a_store_snapshot(tmp_path):
    with demo.build(tmp_path / "demo.sqlite") as memory:
        real = shape(memory.snapshot())
    built = shape(project_snapshot())
    assert len(real) > 40  # every record kind is there to compare: facts, history, ledger, ...
    assert set(built) == set(real)
    compared = 0
    for path in real:
        # a value where the demo only has nulls (it resolves no contradiction) cannot be compared;
        # elsewhere the built kinds are the store's (numbers are numbers, int or float)
        built_kinds, real_kinds = kinds(built[path]), kinds(real[path])
        if real_kinds:
            assert built_kinds <= real_kinds, (path, built[path], real[path])
            compared += 1
    assert compared > 40


def kinds(found: set[str]) -> set[str]:
    return {"number" if kind in ("int", "float") else kind for kind in found} - {"NoneType"}


def test_a_built_snapshot_loads_into_a_store_as_a_real_one_does(tmp_path):
    with demo.build(tmp_path / "demo.sqlite") as memory:
        real = memory.snapshot()
    built = project_snapshot()
    for name, snapshot in (("real", real), ("built", built)):
        with Memory(tmp_path / f"{name}.sqlite") as memory:
            counts = load_into(memory, snapshot, source="memlens")
            stats = memory.stats()
        assert counts["entities"] == len(snapshot["entities"]) > 5
        assert stats["facts"] == snapshot["stats"]["facts"] and stats["open_contradictions"] == \
            snapshot["stats"]["open_contradictions"]
