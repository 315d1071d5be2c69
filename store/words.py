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
# A contraction's or possessive's ending ("who's", "they're", "Yusuf's"), which would otherwise be read
# as a word of its own ("s", "re"); "n't" is "not" ("can't" reads "can not"). The page's search reads
# queries so too (static/search_index.js, CONTRACTION, shipped from here).
CONTRACTION = r"(?<=[^\W_])['\u2019](?:s|re|ve|ll|d|m)(?![^\W_])"
_CONTRACTION = re.compile(CONTRACTION, re.IGNORECASE)
_NOT = re.compile(r"(?<=[^\W_])n['\u2019]t(?![^\W_])", re.IGNORECASE)
_IRREGULAR_NOT = {"can": "can", "won": "will", "shan": "shall"}   # "can't" is "can not", "won't" "will not"
_IRREGULAR = re.compile(r"\b(can|won|shan)['\u2019]t\b", re.IGNORECASE)


def words(text: str) -> list[str]:
    """The words of `text`, lower-cased, in order (repeats kept), contractions read as their words."""
    text = _IRREGULAR.sub(lambda match: _IRREGULAR_NOT[match[1].lower()] + " not", text)
    return _WORD.findall(_NOT.sub(" not", _CONTRACTION.sub("", text)).lower())


def content_words(text: str) -> list[str]:
    """The words of `text` that are not stop words, each once, in order of first appearance."""
    return list(dict.fromkeys(word for word in words(text) if word not in STOP_WORDS))


# How people word common relations, beside the relations' own names: a phrase (its words in order,
# each read by its stem) stands for these relations, and `inverse` when it names the relation from
# its other end ("A reports to B" is "B manages A"). Each phrase is a way people ask, not a guess at
# one memory's names; a dataset adds its own (store/recall_intent.py). The page's search reads
# queries with the same table (shipped from here).
RELATION_PHRASES: dict[str, tuple[tuple[str, bool], ...]] = {
    "owner": (("owned_by", False),),
    "owns": (("owned_by", False),),
    "responsible for": (("owned_by", False), ("maintained_by", False), ("responsible_for", False)),
    "in charge of": (("owned_by", False), ("maintained_by", False)),
    "accountable for": (("owned_by", False),),
    "looks after": (("maintained_by", False), ("owned_by", False)),
    "maintainer": (("maintained_by", False), ("owned_by", False)),
    "maintains": (("maintained_by", False), ("owned_by", False)),
    "consumes": (("reads_from", False), ("consumes", False), ("subscribes_to", False)),
    "consumer": (("reads_from", False), ("consumes", False), ("subscribes_to", False)),
    "subscribes to": (("reads_from", False), ("consumes", False)),
    "listens to": (("reads_from", False), ("consumes", False)),
    "produces": (("publishes_to", False), ("writes_to", False), ("produces", False)),
    "producer": (("publishes_to", False), ("writes_to", False)),
    "emits": (("publishes_to", False), ("writes_to", False)),
    "writes to": (("publishes_to", False), ("writes_to", False)),
    "loads into": (("writes_to", False), ("loads_into", False)),
    "reports to": (("manages", True), ("reports_to", False)),
    "report to": (("manages", True), ("reports_to", False)),
    "manager": (("manages", True),),
    "boss": (("manages", True),),
    "leads": (("leads", False), ("manages", False)),
    "kicks off": (("scheduled_at", False), ("triggers", False)),
    "kick off": (("scheduled_at", False), ("triggers", False)),
    "how often": (("scheduled_at", False), ("runs_every", False)),
    "depends on": (("depends_on", False), ("requires", False), ("uses", False)),
    "relies on": (("depends_on", False), ("requires", False), ("uses", False)),
    "needs": (("depends_on", False), ("requires", False)),
    "member": (("member_of", False),),
    "members": (("member_of", False),),
    "on the team": (("member_of", False),),
    "works on": (("works_on", False),),
    "working on": (("works_on", False),),
}
