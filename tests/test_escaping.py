"""escape_text escapes exactly as markupsafe does, whatever the text: its plain-text shortcut changes nothing."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from markupsafe import Markup, escape

from memlens.viewer.model.escaping import escape_text


@given(st.text(alphabet=st.sampled_from("ab<>&\"' \u2028é\x00")) | st.text())
def test_any_text_is_escaped_as_markupsafe_escapes_it(text):
    assert escape_text(text) == str(escape(text))


def test_markup_numbers_and_none_are_escaped_as_markupsafe_escapes_them():
    assert escape_text("<script>alert('x')</script>") == "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"
    assert escape_text("plain name") == "plain name"
    assert escape_text(Markup("<b>kept</b>")) == "<b>kept</b>"   # already markup: not escaped twice
    assert escape_text(None) == "" and escape_text(42) == "42"
