"""A timeline row's label is broken and clipped as measuring every candidate in full would do it."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memlens.viewer.model.text_width import clip_to_width, text_width
from memlens.viewer.model.timeline import LABEL_PX, LABEL_PX_TWO_LINES, LABEL_ROOM, label_lines


def measured_in_full(label: str) -> tuple[str, ...]:
    """label_lines as a plain reading of its rule: every break measured from the start."""
    if text_width(label, LABEL_PX) <= LABEL_ROOM:
        return (label,)
    spaces = [i for i, ch in enumerate(label) if ch == " "]
    fitting = [i for i in spaces if text_width(label[:i], LABEL_PX_TWO_LINES) <= LABEL_ROOM]
    if not fitting:
        return (clipped_in_full(label, LABEL_PX, LABEL_ROOM),)
    cut = min(fitting, key=lambda i: abs(text_width(label[:i], 1) - text_width(label[i + 1:], 1)))
    return (label[:cut], clipped_in_full(label[cut + 1:], LABEL_PX_TWO_LINES, LABEL_ROOM))


def clipped_in_full(text: str, font_px: float, width: float) -> str:
    if text_width(text, font_px) <= width:
        return text
    room = width - text_width("\u2026", font_px)
    used, cut = 0.0, 0
    for cut, ch in enumerate(text):
        used += font_px * text_width(ch, 1)
        if used > room:
            break
    return text[:cut].rstrip() + "\u2026"


words = st.text(alphabet="abcdefghijklmnopqrstuvwxyzWMil\u00e9\u2192 .-", min_size=0, max_size=40)


@settings(max_examples=400, deadline=None)
@given(st.lists(words, max_size=12).map(" ".join))
def test_a_label_breaks_where_measuring_every_candidate_in_full_breaks_it(label):
    assert label_lines(label) == measured_in_full(label)


@settings(max_examples=200, deadline=None)
@given(words, st.sampled_from([1, 11, 12]), st.floats(min_value=0, max_value=300))
def test_a_text_is_clipped_where_adding_its_characters_one_by_one_clips_it(text, font_px, width):
    assert clip_to_width(text, font_px, width) == clipped_in_full(text, font_px, width)


def test_long_labels_break_in_two_and_short_ones_stay_whole():
    long = "depends_on \u2192 " + " ".join(["a-rather-long-service-name"] * 8)
    lines = label_lines(long)
    assert len(lines) == 2 and lines == measured_in_full(long) and lines[1].endswith("\u2026")
    assert label_lines("owns \u2192 billing") == ("owns \u2192 billing",)
