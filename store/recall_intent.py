"""What a question asks beyond its words, which recall (store/recall.py) ranks by among the facts its
words found equally well: every fact of an entity the question names holds the name's words, so
without this they tie and the answer wins or loses on their order.

- The relation asked for: a fact whose relation the question says (its words by their stems:
  "depend" says depends_on, "manager" manages), or says the way people word it (words.RELATION_PHRASES,
  and a dataset's own in its meta row `relation_phrases`: "responsible for" says owned_by).
- The side asked for: "what depends on X" wants the facts whose object is X, "what does X depend
  on" those whose subject is X. Read from where the entity stands beside the relation's words, and
  from the relation's voice (owned_by names its owner last: "who owns X" wants X as subject).
- The kind of answer a question word names: "who" a person or team, "when" a date or schedule,
  "where" a place or environment, at the other end of the fact.

Stems are SQLite's own (FTS5's porter, the index's tokenizer), read through a table in memory, so a
word matches a relation exactly when it matches the relation's words in the index.
"""
from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass, field

from .search import TOKENIZER
from .words import RELATION_PHRASES, STOP_WORDS, words

# What each part of the intent adds to a fact's score: about one rare word each (a word's idf is
# 1-4), so a fact of the relation and side asked for passes the named entity's other facts, but
# not a fact that holds more of the question's own words.
RELATION = 2.0
SIDE = 2.5
KIND = 1.5
# Facts of a named entity of a relation asked for, brought into the ranking whatever their age (a
# hub's newest facts alone may not hold them).
PER_RELATION = 50

KINDS = {"who": "person", "whom": "person", "whose": "person", "when": "time", "where": "place"}
_PERSON_TYPES = {"Person": 1.0, "Team": 0.75, "Organization": 0.5}
_PLACE_TYPES = {"Environment": 1.0}
# Relation words (stems) that say a relation's object is a time, or a place.
_TIME_WORDS = {"at", "on", "sinc", "until", "date", "schedul", "releas", "start", "reset", "deadlin", "due",
               "launch", "end", "expir", "every", "cron"}
_PLACE_WORDS = {"in", "deploi", "host", "locat", "store", "region", "base", "live"}
_DATE_LIKE = re.compile(r"\d{4}-\d\d|\b\d{1,2}:\d\d\b|\b(?:19|20)\d\d\b|\b(?:daily|weekly|hourly|monthly|nightly|yearly|cron)\b"
                        r"|\bevery (?:\w+ )?(?:days?|weeks?|hours?|months?|nights?|years?|morning|evening|minutes?)\b"
                        r"|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b",
                        re.IGNORECASE)
# A relation named from its object's side: "owned_by" names the owner last.
_PASSIVE = re.compile(r"(?:^|[_\-. ])by$")
_AGENT_ENDINGS = ("ers", "ors", "er", "or")
# Irregular forms a stem does not join to their verb ("built" and "builds"): a relation's word is
# also read as its verb.
_IRREGULAR = {"built": "build", "written": "write", "wrote": "write", "ran": "run", "sent": "send", "held": "hold",
              "led": "lead", "made": "make", "paid": "pay", "sold": "sell", "kept": "keep", "found": "find",
              "given": "give", "gave": "give", "taken": "take", "took": "take", "known": "know", "shown": "show",
              "chosen": "choose", "begun": "begin", "began": "begin", "driven": "drive", "bought": "buy",
              "brought": "bring", "drawn": "draw", "grown": "grow", "thrown": "throw", "run": "run", "met": "meet",
              "told": "tell", "thought": "think", "taught": "teach", "caught": "catch", "fed": "feed", "spent": "spend",
              "lost": "lose", "hidden": "hide", "broken": "break", "spoken": "speak", "stolen": "steal", "frozen": "freeze"}


class Stems:
    """Words as the search index stems them, read through an FTS5 table in memory (once per word)."""

    def __init__(self) -> None:
        self._conn: sqlite3.Connection | None = None
        self._known: dict[str, str] = {}

    def of(self, wanted: list[str]) -> dict[str, str]:
        new = sorted({word for word in wanted if word not in self._known})
        if new:
            if self._conn is None:
                self._conn = sqlite3.connect(":memory:", isolation_level=None)
                self._conn.execute(f"CREATE VIRTUAL TABLE w USING fts5 (t, tokenize = '{TOKENIZER}')")
                self._conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab (w, 'instance')")
            self._conn.executemany("INSERT INTO w (rowid, t) VALUES (?, ?)", list(enumerate(new, start=1)))
            found = dict(self._conn.execute("SELECT doc, term FROM v WHERE offset = 0"))
            self._conn.execute("DELETE FROM w")
            for number, word in enumerate(new, start=1):
                self._known[word] = found.get(number, word)
        return {word: self._known[word] for word in wanted}


STEMS = Stems()


@dataclass
class Intent:
    """A question's words (stop words too, in order) as stems, and what it asks for."""

    tokens: list[str]                     # each word's stem
    raw: list[str]                        # each word as written (lower case)
    kind: str | None
    phrases: dict[str, list[tuple[int, bool]]] = field(default_factory=dict)  # relation -> (where, inverse)

    def asks(self) -> bool:
        return bool(self.kind or self.phrases or self.tokens)


def read_intent(question: str, extra_phrases: dict[str, tuple[tuple[str, bool], ...]] | None = None) -> Intent:
    said = words(question)
    agent_forms = [word[:-len(end)] for word in said for end in _AGENT_ENDINGS
                   if word.endswith(end) and len(word) - len(end) >= 3][:16]
    phrases = {**RELATION_PHRASES, **(extra_phrases or {})}
    phrase_words = [word for phrase in phrases for word in words(phrase)]
    stems = STEMS.of(said + agent_forms + phrase_words)
    tokens = [stems[word] for word in said]
    kind = next((KINDS[word] for word in said[:3] if word in KINDS), None)
    if said[:2] in (["how", "often"], ["how", "long"]):
        kind = "time"
    if kind is None and said[:1] and said[0] in ("which", "what") and len(said) > 1:
        kind = "type:" + said[1]     # "which services": a Service at the other end (kind_match)
    intent = Intent(tokens, said, kind)
    for phrase, meanings in phrases.items():
        wanted = [stems[word] for word in words(phrase)]
        for start in range(len(tokens) - len(wanted) + 1):
            if tokens[start:start + len(wanted)] == wanted:
                for relation, inverse in meanings:
                    intent.phrases.setdefault(relation, []).append((start, inverse))
    return intent


def dataset_phrases(conn: sqlite3.Connection) -> dict[str, tuple[tuple[str, bool], ...]]:
    """The dataset's own wordings of its relations (store/phrases.py), as the table holds them."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'relation_phrases'").fetchone()
    try:
        given = json.loads(row[0]) if row else {}
    except ValueError:
        return {}
    return {phrase: tuple((name.lstrip("~"), name.startswith("~")) for name in names if isinstance(name, str))
            for phrase, names in (given.items() if isinstance(given, dict) else ()) if isinstance(names, list)}


@dataclass
class RelationMatch:
    """How a question says one relation: how fully, where (its first word's place), whether from
    the relation's other end, and whether in the passive ("owned by X")."""

    strength: float
    at: int
    inverse: bool
    passive: bool
    said: bool = False    # by the relation's own words, which the fact's text holds (already counted)


def relation_match(intent: Intent, relation: str) -> RelationMatch | None:
    """How `intent` says `relation`: by the relation's own words, else by a phrase of the table."""
    said = _said(intent, relation)
    if said is not None and said.strength == 1.0 or relation not in intent.phrases:
        return said
    at, inverse = intent.phrases[relation][0]
    return RelationMatch(1.0, at, inverse, _by_after(intent, at))


def _said(intent: Intent, relation: str) -> RelationMatch | None:
    """How fully the question holds the relation's own words (by their stems)."""
    own = [word for word in words(relation) if word not in STOP_WORDS]
    if not own:
        return None
    stems = STEMS.of(own + [_IRREGULAR[word] for word in own if word in _IRREGULAR])
    places = []
    for word in own:
        forms = {stems[word], stems.get(_IRREGULAR.get(word, word), stems[word])}
        place = next((i for i, token in enumerate(intent.tokens) if token in forms or _agent_of(intent, i) in forms), None)
        if place is not None:
            places.append(place)
    if not places:
        return None
    return RelationMatch(len(places) / len(own), min(places), False, _by_after(intent, max(places)), said=True)


def _agent_of(intent: Intent, place: int) -> str | None:
    """The stem of word `place` without an agent noun's ending ("owner" -> own), if it has one."""
    word = intent.raw[place]
    for end in _AGENT_ENDINGS:
        if word.endswith(end) and len(word) - len(end) >= 3:
            return STEMS.of([word[:-len(end)]])[word[:-len(end)]]
    return None


def _by_after(intent: Intent, place: int) -> bool:
    return place + 1 < len(intent.raw) and intent.raw[place + 1] == "by"


def named_at(intent: Intent, name: str) -> int | None:
    """Where the question names an entity: the place of the first of its name's words it holds."""
    own = [word for word in words(name) if word not in STOP_WORDS] or words(name)
    stems = set(STEMS.of(own).values())
    return next((i for i, token in enumerate(intent.tokens) if token in stems), None)


# Words that, between a question's relation words and the entity after them, make the entity what
# acts: "how often does X run", "when is X released".
_AUXILIARIES = {"do", "does", "did", "is", "are", "was", "were", "has", "have", "had", "can", "will", "should"}


def wanted_end(intent: Intent, match: RelationMatch, named: int, relation: str) -> str:
    """Which end of a fact of `relation` the named entity should be ("subject" or "object"): before
    the relation's words it is what acts ("what does X depend on"); after them, what is acted on
    ("what depends on X"), unless the question is passive ("owned by X"), asks with an auxiliary
    ("how often does X run") or names what X has ("the version of X", "X's owner")."""
    between = intent.raw[match.at + 1:named] if named > match.at else []
    of = bool(between) and between[0] == "of" and "of" not in words(relation)
    acts = (named < match.at or match.passive or of
            or any(word in _AUXILIARIES for word in between))
    passive_relation = bool(_PASSIVE.search(relation))
    subject_acts = not passive_relation
    if match.inverse:
        subject_acts = not subject_acts
    return "subject" if acts == subject_acts else "object"


def kind_match(kind: str | None, relation: str, answer_type: str, answer_name: str) -> float:
    """How well the answering end of a fact (its type, and its name with its description) is of the
    kind a question word names."""
    if kind == "person":
        return _PERSON_TYPES.get(answer_type, 0.0)
    if kind == "place":
        stems = set(STEMS.of(words(relation)).values())
        return max(_PLACE_TYPES.get(answer_type, 0.0), 0.5 if stems & _PLACE_WORDS else 0.0)
    if kind and kind.startswith("type:"):
        named = kind[5:]
        return 1.0 if named in (answer_type.lower(), answer_type.lower() + "s", answer_type.lower() + "es") else 0.0
    if kind == "time":
        stems = set(STEMS.of(words(relation)).values())
        return 1.0 if _DATE_LIKE.search(answer_name) else 0.5 if stems & _TIME_WORDS else 0.0
    return 0.0


class Asking:
    """What one question asks, applied to facts: each fact's bonus and why (store/recall.py's ranking)."""

    def __init__(self, intent: Intent, named: dict[int, int | None]) -> None:
        self.intent = intent
        self.named = {n: place for n, place in named.items() if place is not None}   # entity -> where the question names it
        self._matches: dict[str, RelationMatch | None] = {}

    def of(self, relation: str, subject: tuple[int, str, str], object_: tuple[int, str, str]) -> tuple[float, str]:
        """A fact's bonus, and what it has of what is asked; each end is (entity n, type, name and description)."""
        if relation not in self._matches:
            self._matches[relation] = relation_match(self.intent, relation)
        match = self._matches[relation]
        ends = {"subject": subject, "object": object_}
        named_end = next((end for end, (n, _, _) in ends.items() if n in self.named), None)
        bonus, why = 0.0, []
        # with an entity named, the relation asked for counts in its facts only
        if match is not None and (named_end is not None or not self.named):
            if not match.said:   # a relation said in its own words is already counted as those words
                bonus += RELATION * match.strength
                why.append(f"asks for {relation}")
            if named_end is not None and wanted_end(self.intent, match, self.named[ends[named_end][0]],
                                                    relation) == named_end:
                bonus += SIDE * match.strength
                why.append(f"its {named_end} asked for")
        if self.intent.kind:
            answers = [ends[end] for end in ends if end != named_end] if named_end else list(ends.values())
            fit = max(kind_match(self.intent.kind, relation, kind, text) for _, kind, text in answers)
            if fit:
                bonus += KIND * fit
                why.append(_KIND_SAID.get(self.intent.kind) or f"which {self.intent.kind.removeprefix('type:')}")
        return bonus, ", ".join(why)


_KIND_SAID = {"person": "who: a person or team", "time": "when: a date or schedule", "place": "where: a place"}


def page_tables() -> dict:
    """What the page's search (static/search_intent.js) reads queries with: these very tables."""
    return {"phrases": [[phrase, [[relation, inverse] for relation, inverse in meanings]]
                        for phrase, meanings in RELATION_PHRASES.items()],
            "kinds": KINDS, "agentEndings": list(_AGENT_ENDINGS), "irregular": _IRREGULAR,
            "auxiliaries": sorted(_AUXILIARIES), "personTypes": _PERSON_TYPES, "placeTypes": _PLACE_TYPES,
            "placeWords": sorted(_PLACE_WORDS), "timeWords": sorted(_TIME_WORDS), "dateLike": _DATE_LIKE.pattern,
            "weights": {"relation": RELATION, "side": SIDE, "kind": KIND}}
