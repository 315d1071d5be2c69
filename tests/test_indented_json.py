"""indented_json: a snapshot as people read it, the same text whichever encoder writes it."""
from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from memlens.store.snapshot.canonical import indented_json

# What a snapshot holds: text (any, escapes and controls included), 64-bit integers, booleans,
# null, and lists and objects of them. Floats are left out: orjson spells some differently.
_SCALARS = st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.text()
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)


@given(_VALUES)
def test_the_text_is_the_standard_encoders_indented_text(value):
    standard = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert indented_json(value).decode("utf-8") == standard


def test_what_orjson_refuses_is_written_by_the_standard_encoder_and_reads_back():
    value = {"big": 2**70, "text": "lone \ud800 surrogate", "é": ["<script>"]}
    text = indented_json(value)
    assert json.loads(text) == value
    assert text.endswith(b"\n") and b'\n  "big": 1180591620717411303424,' in text
    assert b"\\ud800" in text  # escaped: a lone surrogate has no UTF-8 of its own
    plain = {"text": "é", "n": 1}
    assert indented_json(plain) == '{\n  "n": 1,\n  "text": "é"\n}\n'.encode()
