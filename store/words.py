"""The words a question is made of, as recall and the report's search both read them.

One list of stop words for the store's recall and the page's search (the viewer ships this very
set to the page), so a word that is ignored in one is ignored in the other.
"""

from __future__ import annotations

import re

# Words that carry no subject in a question an agent asks ("who owns the billing service"):
# question words, articles, auxiliaries, pronouns and the commonest prepositions.
STOP_WORDS = frozenset("""
a about above after again against all am an and any are as at be been before being below between
both but by can could did do does doing done down during each else few for from further had has have
having he her here hers him his how i if in into is it its itself just me might more most must my
no nor not now of off on once only or other ought our ours out over own same shall she should so
some such than that the their theirs them then there these they this those through to too under
until up very was we were what when where which while who whom whose why will with would you your
yours
""".split())

# Letters and digits; an underscore parts words as a hyphen does, so "owned_by" reads "owned", "by"
# (the search index's tokenizer splits it so too).
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """The words of `text`, lower-cased, in order (repeats kept)."""
    return _WORD.findall(text.lower())


def content_words(text: str) -> list[str]:
    """The words of `text` that are not stop words, each once, in order of first appearance."""
    return list(dict.fromkeys(word for word in words(text) if word not in STOP_WORDS))
