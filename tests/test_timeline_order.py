"""Timelines: the busiest keys and entities are drawn first (by facts, then by name ignoring case),
and a fact whose validity nobody stated draws no bar, which would say it held at every time."""
from __future__ import annotations

from viewer_fixtures import SnapshotBuilder

from memlens.viewer.model.snapshot_index import SnapshotIndex
from memlens.viewer.model.timeline import PLOT_LEFT, PLOT_RIGHT, TimelineBuilder, entity_timelines, functional_timelines
from memlens.viewer.model.timeline_svg import timeline_svg


def busy_snapshot() -> dict:
    b = SnapshotBuilder(dataset="busy")
    e = {name: b.entity(name, "Service") for name in ("alpha", "Beta", "gamma", "Zed-service", "lib-a", "lib-b", "lib-c")}
    b.declare_relation("version", functional=True)
    b.assert_fact(e["alpha"], "uses", e["lib-a"], valid_from="2026-01-01")
    for lib in ("lib-a", "lib-b", "lib-c"):
        b.assert_fact(e["Zed-service"], "uses", e[lib])
    b.assert_fact(e["Beta"], "uses", e["lib-b"])
    b.assert_fact(e["gamma"], "uses", e["lib-c"], valid_from="2026-01-01", valid_to="2026-02-01")
    b.assert_fact(e["gamma"], "version", e["lib-a"], valid_from="2026-01-01")
    b.assert_fact(e["gamma"], "version", e["lib-b"], valid_from="2026-01-05")
    b.assert_fact(e["alpha"], "version", e["lib-c"], valid_from="2026-01-01")
    return b.build()


def test_the_busiest_entities_and_keys_come_first_then_names_ignoring_case():
    snapshot = busy_snapshot()
    index = SnapshotIndex(snapshot)
    ranking = sorted(e["id"] for e in snapshot["entities"])    # any order: the drawing sorts its own
    timelines, _ = entity_timelines(TimelineBuilder(index), ranking)
    titles = [t.title for t in timelines]
    # 3 facts each in name order ignoring case, then 2, then 1 (before: "Beta", "Zed-service", "alpha", ...)
    assert titles == ["gamma", "lib-a", "lib-b", "lib-c", "Zed-service", "alpha", "Beta"]
    assert [int(t.subtitle.split()[0]) for t in timelines] == [3, 3, 3, 3, 3, 2, 1]
    keys, _ = functional_timelines(TimelineBuilder(index))
    assert [k.title for k in keys] == ["gamma \u00b7 version", "alpha \u00b7 version"]   # 2 values, then 1


def test_validity_not_stated_draws_no_bar_and_says_so():
    snapshot = busy_snapshot()
    timelines, _ = entity_timelines(TimelineBuilder(SnapshotIndex(snapshot)), [e["id"] for e in snapshot["entities"]])
    zed = next(t for t in timelines if t.title == "Zed-service")
    gamma = next(t for t in timelines if t.title == "gamma")
    # a bar across the whole axis would say it held at every time; nobody said when it held
    assert all(row.unstated and row.bar is None for row in zed.rows)
    assert all("validity not stated" in row.title for row in zed.rows)
    assert all(row.markers for row in zed.rows)          # when it was recorded is still marked
    drawn = str(timeline_svg(zed))
    assert drawn.count(">validity not stated</text>") == 3 and "tl-bar" not in drawn and "tl-open" not in drawn
    stated = [row for row in gamma.rows if "uses" in row.label]
    assert stated and not any(row.unstated for row in stated) and "valid 2026-01-01" in stated[0].title
    assert all(row.bar is not None and row.bar.width < PLOT_RIGHT - PLOT_LEFT for row in stated)   # a span, not the whole axis
    assert "tl-bar" in str(timeline_svg(gamma)) and "validity not stated" not in str(timeline_svg(gamma))
