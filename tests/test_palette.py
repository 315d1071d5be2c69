"""Entity types get looks that differ within a memory and hold across regenerations."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from viewer_fixtures import SnapshotBuilder

from memlens.viewer.reading import BundleUnreadable, carried_over, read_looks
from memlens.viewer.model.palette import PALETTE, SHAPE_SHIFT, SHAPES, TypeLook, assign_looks, preferred_colour, type_counts
from memlens.viewer.report.write import write_report
from memlens.viewer.site.build import write_site

# Machado, Oliveira and Fernandes (2009), severity 1: linear RGB as a dichromat sees it
SIMULATIONS = {
    "normal": np.eye(3),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}
GRAPH_BACKGROUNDS = {"light": "#fbfcfd", "dark": "#12151a"}   # --graph-bg in static/report.css


def linear(colour: str) -> np.ndarray:
    srgb = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def lab(rgb: np.ndarray) -> np.ndarray:
    xyz = np.clip(rgb, 0, 1) @ np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                                         [0.0193, 0.1192, 0.9505]]).T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def contrast(a: str, b: str) -> float:
    la, lb = (float(linear(c) @ [0.2126, 0.7152, 0.0722]) for c in (a, b))
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def test_every_two_colours_differ_for_common_colour_vision_deficiencies():
    for name, matrix in SIMULATIONS.items():
        seen = [lab(matrix @ linear(c)) for c in PALETTE]
        closest = min(float(np.linalg.norm(a - b)) for a, b in itertools.combinations(seen, 2))
        assert closest >= 20, (name, closest)


def test_every_colour_stands_out_from_both_graph_backgrounds():
    assert all(contrast(c, GRAPH_BACKGROUNDS["light"]) >= 1.75 for c in PALETTE)
    assert all(contrast(c, GRAPH_BACKGROUNDS["dark"]) >= 2.5 for c in PALETTE)


def counts(*names: str) -> dict[str, int]:
    return {name: 1 for name in names}


def test_types_that_fit_the_palette_each_get_a_colour_of_their_own_and_a_dot():
    names = [f"Type{i}" for i in range(len(PALETTE))]
    looks = assign_looks(counts(*names))
    assert len({look.color for look in looks.values()}) == len(PALETTE)
    assert {look.shape for look in looks.values()} == {"dot"}


def test_beyond_the_palette_the_shape_differs_so_no_two_types_share_a_look():
    names = [f"Type{i}" for i in range(len(PALETTE) * len(SHAPES))]
    looks = assign_looks({name: 100 - i % 50 for i, name in enumerate(names)})
    assert len(set(looks.values())) == len(names)
    # the most used types keep the dots, but for the colour nearest another, which takes a shape
    most_used = sorted(names, key=lambda n: (-(100 - names.index(n) % 50), n))[:len(PALETTE)]
    assert {looks[n].shape for n in most_used if looks[n].color not in SHAPE_SHIFT} == {"dot"}
    assert [looks[n].shape for n in most_used if looks[n].color in SHAPE_SHIFT] == ["diamond"]
    assert {looks[n].shape for n in names} == set(SHAPES)


def nearest_pair() -> tuple[str, str]:
    """The two colours of the palette nearest each other under normal vision."""
    return min(itertools.combinations(PALETTE, 2), key=lambda pair: float(np.linalg.norm(lab(linear(pair[0])) - lab(linear(pair[1])))))


def test_past_the_palette_the_two_nearest_colours_never_share_a_shape_among_the_first_24_types():
    near = nearest_pair()
    assert set(near) == {"#ddaa33", "#997700"} and set(near) & set(SHAPE_SHIFT)
    for count in range(len(PALETTE) + 1, 3 * len(PALETTE) + 1):
        looks = assign_looks(counts(*(f"Type{i:02d}" for i in range(count)))).values()
        assert len(set(looks)) == count
        shapes = {colour: {look.shape for look in looks if look.color == colour} for colour in near}
        assert not shapes[near[0]] & shapes[near[1]], count
    # while the types fit the palette, both are dots: each has a colour of its own
    looks = assign_looks(counts(*(f"Type{i}" for i in range(len(PALETTE))))).values()
    assert {look.shape for look in looks if look.color in near} == {"dot"}


def test_a_shaped_look_is_kept_by_a_regeneration_that_still_needs_shapes():
    names = [f"Type{i:02d}" for i in range(12)]
    before = assign_looks(counts(*names))
    after = assign_looks(counts(*names, "Newcomer"), before)
    assert {name: after[name] for name in names} == before
    assert any(look.color in SHAPE_SHIFT and look.shape != "dot" for look in before.values())


def test_a_type_keeps_its_look_when_types_are_added_given_the_previous_looks():
    before = assign_looks(counts("Person", "Service", "Library"))
    after = assign_looks(counts("Person", "Service", "Library", "Aardvark", "Zebra"), before)
    assert {name: after[name] for name in before} == before
    assert len({look.color for look in after.values()}) == 5
    # without them a new type may take a colour an old one had: keeping them is what holds
    crowded = [f"T{i}" for i in range(7)]
    first = assign_looks(counts(*crowded))
    newcomer = next(f"N{i}" for i in range(100) if any(
        assign_looks(counts(*crowded, f"N{i}"))[name] != first[name] for name in crowded))
    assert any(assign_looks(counts(*crowded, newcomer))[n] != first[n] for n in crowded)
    kept = assign_looks(counts(*crowded, newcomer), first)
    assert all(kept[n] == first[n] for n in crowded)


def test_a_new_type_starts_from_the_colour_its_name_hashes_to():
    looks = assign_looks(counts("Person"))
    assert looks["Person"] == TypeLook(PALETTE[preferred_colour("Person")], "dot")


def test_when_the_types_fit_again_a_shaped_type_gets_a_dot():
    shaped = {"A": TypeLook(PALETTE[0], "star"), "B": TypeLook(PALETTE[1], "dot")}
    looks = assign_looks(counts("A", "B"), shaped)
    assert looks["B"] == shaped["B"] and looks["A"].shape == "dot" and looks["A"].color != looks["B"].color


def test_types_nobody_uses_get_a_look_but_never_take_one_from_a_type_in_use():
    names = [f"Type{i}" for i in range(len(PALETTE))]
    looks = assign_looks({**counts(*names), "Unused": 0})
    assert {looks[n].shape for n in names} == {"dot"} and len({looks[n].color for n in names}) == len(PALETTE)
    assert looks["Unused"] not in [looks[n] for n in names]


def _snapshot(types: list[str]) -> dict:
    builder = SnapshotBuilder(dataset="palette", types=list(types))
    for name in types:
        builder.entity(f"one {name}", name)
    return builder.build()


def test_a_regenerated_report_and_site_keep_every_type_look(tmp_path):
    old_types = ["Person", "Service", "Library", "Team"]
    old, new = _snapshot(old_types), _snapshot(old_types + ["Aardvark", "Database", "Zebra"])
    for fmt, write in (("html", write_report), ("site", write_site)):
        path = tmp_path / ("report.html" if fmt == "html" else "site")
        write(old, path)
        before = read_looks(path, fmt)
        assert before == assign_looks(type_counts(old))           # read back as written
        write(new, path, previous_looks=before)
        after = read_looks(path, fmt)
        assert set(after) == {*old_types, "Aardvark", "Database", "Zebra"}
        assert {name: after[name] for name in before} == before, fmt
        assert len({look.color for look in after.values()}) == len(after)


def test_looks_of_a_missing_or_dataless_bundle_are_unreadable_and_a_regeneration_says_so(tmp_path):
    with pytest.raises(BundleUnreadable, match="cannot read"):
        read_looks(tmp_path / "none.html", "html")
    (tmp_path / "plain.html").write_text("<html><body>no legend</body></html>", encoding="utf-8")
    with pytest.raises(BundleUnreadable, match="has no memlens-data block"):
        read_looks(tmp_path / "plain.html", "html")
    kept = carried_over(tmp_path / "plain.html", "html")
    assert kept.looks is None and kept.notes() == (
        f"changes since, layout and type colours unavailable: {tmp_path / 'plain.html'} has no memlens-data block; "
        "it is not a memlens report",)
    write_report(_snapshot(["Person"]), tmp_path / "r.html")
    assert read_looks(tmp_path / "r.html", "html") == {"Person": assign_looks({"Person": 1})["Person"]}
    kept = carried_over(tmp_path / "r.html", "html")
    assert kept.notes() == () and kept.looks and kept.layout and kept.digest        # the positive case
    assert carried_over(tmp_path / "new.html", "html").notes() == ()                # a first write: nothing to say


def test_looks_are_those_of_the_legend_not_of_types_nobody_uses(tmp_path):
    snapshot = _snapshot(["Person"])
    snapshot["ontology"]["types"] = ["Person", "Unused"]
    write_report(snapshot, tmp_path / "r.html")
    assert set(read_looks(tmp_path / "r.html", "html")) == {"Person"}


def test_maintenance_regenerates_bundles_with_the_types_looks_they_had(cli, tmp_path):
    store, report = tmp_path / "m.sqlite", tmp_path / "r.html"
    cli("remember", "--db", str(store), "alice:Person --maintains--> billing:Service", "-e", "x")
    cli("bundles", "add", str(report), "--db", str(store))
    assert cli("maintain", "--db", str(store)).exit_code == 0
    first = read_looks(report, "html")
    assert set(first) == {"Person", "Service"}
    for n, kind in enumerate(("Library", "Team", "Organization", "Concept", "Module")):
        cli("remember", "--db", str(store), f"billing --uses--> thing{n}:{kind}", "-e", "y")
    assert cli("maintain", "--db", str(store)).exit_code == 0
    after = read_looks(report, "html")
    assert len(after) == 7 and {name: after[name] for name in first} == first
