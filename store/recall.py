"""Recall: a question in plain words, and the facts and entities that answer it, best first.

One function for the CLI and the MCP server, so both give the same facts in the same order. The
rules, each general (nothing here knows a question):

- the question's words without stop words (store/words.py), at most MAX_WORDS of them, each matched
  by its stem ("owns" finds "owned_by") and, at a discount, as the start of a longer word ("auth"
  finds "authentication");
- any word may match; a fact scores the inverse document frequency of each question word it holds,
  so one that holds more of the words, or rarer ones, comes first; BM25 orders the ties;
- entities match by name (the question names them) or by type and description; the best of them
  bring their current facts in (their neighbourhood), where the entity's words count half, so a
  fact found only through its neighbour ranks below a direct match of as many words;
- every fact says why it was found: the words it holds, or the entity it is a fact of.

Superseded and retracted facts only when asked; forgotten ones are out of the index altogether.
"""
from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from . import reads
from .observations import OBSERVATION_POSITION, may_hold_observations
from .pages import Page, listed
from .recall_intent import PER_RELATION, Asking, Intent, dataset_phrases, named_at, read_intent, relation_match
from .words import content_words

# Bounds on what one question may cost, whatever is sent: the characters read and the words
# searched (each word is a few index lookups). Beyond them the question is cut, and the answer says so.
MAX_QUERY_CHARS = 1_000
MAX_WORDS = 16
# The entities whose facts a question brings in, and how many facts each brings (a hub has thousands).
NEIGHBOURS = 5
PER_NEIGHBOUR = 25
# The facts of a named entity's side read to find its relations (_asked_relations): a hub of 60,000
# facts is not read whole.
RELATIONS_READ = 5_000
# The best direct matches ranked with their neighbours' words; the rest follow in their own order.
POOL = 200
# Up to this many matching facts, BM25 orders those that hold the same words.
BM25_MATCHES = 2_000
# A word in more facts (or entities) than this is read only in part (_holding): a word in 60,000
# facts took 80 ms to read whole at 100,000 entities.
LARGE = 2_000
# What a word found only through an entity (its type or description) counts, beside a direct match.
THROUGH_ENTITY = 0.5
# What a word found only as the start of a longer one counts ("run" in "runbook"), beside its stem.
PREFIX_ONLY = 0.5
# Agent nouns whose stem the index does not share with the verb ("owner" beside "owned"): a question's
# word with one of these endings is also looked for without it, as a prefix.
_AGENT_ENDINGS = ("ers", "ors", "er", "or")


@dataclass(frozen=True)
class Question:
    """The words searched for, as asked, and what was cut from a question too long to search whole."""

    words: tuple[str, ...]
    cut: str | None = None


def read_question(query: str) -> Question:
    head = query[:MAX_QUERY_CHARS]
    found = content_words(head)
    cut = []
    if len(query) > MAX_QUERY_CHARS:
        cut.append(f"only its first {MAX_QUERY_CHARS:,} characters were read")
    if len(found) > MAX_WORDS:
        cut.append(f"only its first {MAX_WORDS} words (of {len(found):,}) were searched")
        found = found[:MAX_WORDS]
    return Question(tuple(found), "the question was cut: " + "; ".join(cut) if cut else None)


def word_expressions(word: str) -> tuple[str, str]:
    """One question word as two FTS5 expressions: its stem alone, and the broader one that also
    finds the longer words it begins when it is long enough for that to mean something ("auth" finds
    "authentication"; "use" does not find "user"), an agent noun also without its ending ("owner"
    finds "owned"). Quoted, so nothing typed is query syntax."""
    exact = '"' + word + '"'
    forms = [exact + "*"] if len(word) >= 4 else [exact]
    for ending in _AGENT_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            forms.append('"' + word[: -len(ending)] + '"*')
            break
    return exact, " OR ".join(forms)


def _holding(conn: sqlite3.Connection, table: str, column: str, expressions: dict[str, tuple[str, str]],
             cap: int) -> tuple[dict[str, dict[int, float]], dict[str, int], list[str]]:
    """For each question word, the rows of `table` (in `column`, or all of it) that hold it, and how:
    1 by its stem, PREFIX_ONLY only as the start of a longer word; and how many rows hold it.

    A word in more than `cap` rows ("service" in a store of services) is read by its stem alone,
    where it meets the question's rarer words and, past those, in its newest `cap` rows (with the
    other such words, then alone), so one question reads a bounded share of a large store. Those
    words are returned last."""
    held: dict[str, dict[int, float]] = {}
    frequency: dict[str, int] = {}
    common = []
    for word, (exact, broad) in expressions.items():
        frequency[word] = _match_count(conn, table, f"{column}({exact})")
        if frequency[word] > cap:
            common.append(word)
            continue
        found = dict.fromkeys(_rowids(conn, table, f"{column}({broad})", cap), PREFIX_ONLY) if broad != exact else {}
        found.update(dict.fromkeys(_rowids(conn, table, f"{column}({exact})"), 1.0))
        held[word] = found
    rarer = " OR ".join(f"({broad})" for word, (_, broad) in expressions.items() if word not in common)
    everyone = " AND ".join(f"({expressions[word][0]})" for word in common)
    for word in common:
        exact = expressions[word][0]
        found = dict.fromkeys(_rowids(conn, table, f"{column}({exact})", cap), 1.0)
        if len(common) > 1:
            found.update(dict.fromkeys(_rowids(conn, table, f"{column}({everyone})", cap), 1.0))
        if rarer:
            found.update(dict.fromkeys(_rowids(conn, table, f"{column}(({exact}) AND ({rarer}))"), 1.0))
        held[word] = found
    return held, frequency, common


def recall(conn: sqlite3.Connection, query: str, page: Page, *, include_superseded: bool = False) -> dict:
    """Facts and entities that answer `query`, best first, a page of each with its exact total."""
    question = read_question(query)
    answer: dict = {"query": query[:MAX_QUERY_CHARS], "words": list(question.words)}
    if question.cut:
        answer["note"] = question.cut
    if not question.words:
        return answer | {"facts": listed(0, []), "entities": listed(0, [])}
    expressions = {word: word_expressions(word) for word in question.words}
    entities = _matching_entities(conn, expressions)
    intent = read_intent(query[:MAX_QUERY_CHARS], dataset_phrases(conn))
    facts, common = _ranked_facts(conn, expressions, entities, include_superseded, intent)
    if common:
        said = ", ".join(f"{word!r} ({count:,} facts)" for word, count in common)
        answer["note"] = "; ".join(filter(None, [answer.get("note"), (
            f"words in too many facts to rank them all: {said}; ranked: the newest {LARGE:,} holding each, "
            "and those holding the question's other words")]))
    return answer | {"facts": _fact_page(conn, facts, question, entities, page), "entities": _entity_page(conn, entities, page)}


# -- entities --------------------------------------------------------------------------------------

@dataclass
class _Entity:
    n: int
    named: dict[str, float]    # question words in its name, with how they were found (_holding)
    about: dict[str, float]    # question words only in its type or description
    score: float = 0.0


class _Entities:
    """The entities a question matches: each one's words as a mask (four bits a word: in its name
    by stem, by prefix only, in its type or description by stem, by prefix only), made into an
    `_Entity` only when asked for; a few are, of thousands a common word matches."""

    def __init__(self, words: tuple[str, ...], masks: dict[int, int], idf: dict[str, float]) -> None:
        self.words, self.masks, self.idf = words, masks, idf
        self._made: dict[int, _Entity] = {}
        self._scores: dict[int, float] = {}

    def __contains__(self, n: int) -> bool:
        return n in self.masks

    def __getitem__(self, n: int) -> _Entity:
        if n not in self._made:
            self._made[n] = _Entity(n, *self._words_of(self.masks[n]), self._score(self.masks[n]))
        return self._made[n]

    def _words_of(self, mask: int) -> tuple[dict[str, float], dict[str, float]]:
        """The words in the name, and those only in the type or description, with how each was found."""
        named = {w: 1.0 if mask >> 4 * i & 1 else PREFIX_ONLY for i, w in enumerate(self.words) if mask >> 4 * i & 3}
        about = {w: 1.0 if mask >> 4 * i + 2 & 1 else PREFIX_ONLY for i, w in enumerate(self.words)
                 if mask >> 4 * i + 2 & 3 and w not in named}
        return named, about

    def _score(self, mask: int) -> float:
        if mask not in self._scores:
            named, about = self._words_of(mask)
            self._scores[mask] = (sum(self.idf[w] * weight for w, weight in named.items())
                                  + THROUGH_ENTITY * sum(self.idf[w] * weight for w, weight in about.items()))
        return self._scores[mask]

    @cached_property
    def ordered(self) -> list[int]:
        """Best first: the highest score, then the oldest."""
        return sorted(self.masks, key=lambda n: (-self._score(self.masks[n]), n))


def _matching_entities(conn: sqlite3.Connection, expressions: dict[str, tuple[str, str]]) -> _Entities:
    words = tuple(expressions)
    masks: dict[int, int] = {}
    # A store of schema 6 or older, read before a write migrates it, has one column: all of it is named.
    columns = {row[1] for row in conn.execute("PRAGMA table_info(entity_search)")}
    filters = [("{name} : ", 0), ("{about} : ", 2)] if "name" in columns else [("", 0)]
    frequency = dict.fromkeys(words, 0)
    type_forms = _type_forms(conn)
    for column, shift in filters:
        held, counted, _ = _holding(conn, "entity_search", column, expressions, LARGE)
        if shift:   # `about` begins with the entity's type
            _drop_type_only(conn, held, expressions, type_forms)
        for i, word in enumerate(words):
            frequency[word] += counted[word]
            for n, weight in held[word].items():
                masks[n] = masks.get(n, 0) | 1 << (4 * i + shift + (weight != 1.0))
    total = _count(conn, "entities")
    return _Entities(words, masks, {word: _idf(total, count) for word, count in frequency.items()})


def _type_forms(conn: sqlite3.Connection) -> set[str]:
    """The words that name a type: its name and plural ("service", "services")."""
    forms = set()
    for (name,) in conn.execute("SELECT name FROM types"):
        name = name.lower()
        forms |= {name, name + "s", name + "es", name[:-1] + "ies" if name.endswith("y") else name}
    return forms


def _drop_type_only(conn: sqlite3.Connection, held: dict[str, dict[int, float]],
                    expressions: dict[str, tuple[str, str]], type_forms: set[str]) -> None:
    """A word that shares only its stem with a type ("personal", Person) finds no entity by its type:
    it would find every entity of that type. One that names the type ("services") does. (An entity
    whose description holds the word as well is lost with them: FTS5 cannot ask for a word anywhere
    but first.)"""
    for word, (exact, broad) in expressions.items():
        if word in type_forms or not held.get(word):
            continue
        first = {n for expression in {exact, broad} for n in _rowids(conn, "entity_search", f"{{about}} : ^{expression.split(' OR ')[0]}")}
        for n in first & held[word].keys():
            del held[word][n]


def _entity_page(conn: sqlite3.Connection, entities: _Entities, page: Page) -> dict:
    """The entities that answer, best first. An observation (a note another tool kept on an entity)
    is no answer of its own: matched, it brings in the fact that notes it, which answers."""
    notes = _observations_among(conn, entities.masks)
    ordered = [n for n in entities.ordered if n not in notes] if notes else entities.ordered
    shown = [entities[n] for n in ordered[page.offset:page.offset + page.limit]]
    rows = {row["n"]: row for row in conn.execute(
        "SELECT * FROM entities WHERE n IN (SELECT value FROM json_each(?))", (json.dumps([e.n for e in shown]),))}
    items = [dict(reads.entity_view(rows[e.n]), score=round(e.score, 4), why=_entity_why(e)) for e in shown
             if e.n in rows]
    return listed(len(ordered), items)


def _observations_among(conn: sqlite3.Connection, matched: Iterable[int]) -> set[int]:
    """Which of the `matched` rows of the entities table are observations (none in most memories,
    and none in a store from before observations)."""
    if not may_hold_observations(conn):
        return set()
    return {n for (n,) in conn.execute(f"SELECT n FROM entities WHERE n IN (SELECT value FROM json_each(?)) "
                                       f"AND {OBSERVATION_POSITION} IS NOT NULL", (json.dumps(list(matched)),))}


def _entity_why(entity: _Entity) -> str:
    parts = []
    if entity.named:
        parts.append("named: " + ", ".join(sorted(entity.named)))
    if entity.about:
        parts.append("described: " + ", ".join(sorted(entity.about)))
    return "; ".join(parts)


# -- facts -----------------------------------------------------------------------------------------

@dataclass
class _Fact:
    n: int
    words: dict[str, float]                      # question words in the fact's own text, and how (_holding)
    ends: tuple[int, int] | None = None          # its subject's and object's `n`, when looked up
    score: float = 0.0
    bm25: int = 0                                # its place in BM25's order of the matches
    asked: float = 0.0                           # what it has of what the question asks (_rank_by_intent)
    asked_why: str = ""


@dataclass
class _Ranked:
    """Every matching fact, in order: the pool (the best, ranked with their neighbours' words) and
    the rest, sorted only when a page reaches it."""

    pool: list[_Fact]
    in_pool: set[int]
    words: tuple[str, ...]
    masks: dict[int, int]                        # each matching fact's question words (_held)
    score_of: dict[int, float]                   # a mask's score
    places: dict[int, int]                       # a fact's place in BM25's order, if known

    def __len__(self) -> int:
        return len(self.pool) + len(self.masks.keys() - self.in_pool)

    def slice(self, start: int, stop: int) -> list[_Fact]:
        shown = self.pool[start:stop]
        if stop > len(self.pool):
            rest = sorted((n for n in self.masks if n not in self.in_pool),
                          key=lambda n: (-self.score_of[self.masks[n]], self.places.get(n, 0), -n))
            shown += [self._fact(n) for n in rest[max(0, start - len(self.pool)):stop - len(self.pool)]]
        return shown

    def _fact(self, n: int) -> _Fact:
        mask = self.masks[n]
        return _Fact(n, _held(mask, self.words), None, self.score_of[mask], self.places.get(n, 0))


def _held(mask: int, words: tuple[str, ...]) -> dict[str, float]:
    """The words a mask says a fact holds: word i's bit 2i if by its stem, 2i + 1 only as a prefix."""
    return {word: 1.0 if mask >> 2 * i & 1 else PREFIX_ONLY for i, word in enumerate(words) if mask >> 2 * i & 3}


def _ranked_facts(conn: sqlite3.Connection, expressions: dict[str, tuple[str, str]], entities: _Entities,
                  include_superseded: bool, intent: Intent) -> tuple[_Ranked, list[tuple[str, int]]]:
    """The ranked facts, and the words too common to be read whole, with how many facts hold each."""
    words = tuple(expressions)
    masks: dict[int, int] = {}     # each matching fact's question words, two bits each (_held)
    held, frequency, common = _holding(conn, "fact_search", "", expressions, LARGE)
    for i, word in enumerate(words):
        for n, weight in held[word].items():
            masks[n] = masks.get(n, 0) | 1 << (2 * i if weight == 1.0 else 2 * i + 1)
    for n in _judged(conn, () if include_superseded else ("superseded", "retracted"), list(masks)):
        masks.pop(n, None)
    total = _count(conn, "facts")
    idf = {word: _idf(total, frequency[word]) for word in words}
    score_of = {mask: sum(idf[w] * weight for w, weight in _held(mask, words).items()) for mask in set(masks.values())}
    # BM25 orders facts that hold the same words; past BM25_MATCHES matches it costs more than a
    # recall may (4 us a match: 60,000 of them at 100,000 entities), and the newest come first.
    places: dict[int, int] = {}
    if len(masks) <= BM25_MATCHES and not common:
        ranked = conn.execute("SELECT rowid FROM fact_search WHERE fact_search MATCH ? ORDER BY bm25(fact_search)",
                              (" OR ".join(f"({broad})" for _, broad in expressions.values()),))
        places = {n: place for place, (n,) in enumerate(ranked)}

    tiers: dict[float, list[int]] = {}   # the facts of one score
    for n, mask in masks.items():
        tiers.setdefault(score_of[mask], []).append(n)
    best: list[int] = []
    for score in sorted(tiers, reverse=True):
        if len(best) >= POOL:
            break
        tier = sorted(tiers[score], key=(lambda n: (places.get(n, 0), -n)) if places else None, reverse=not places)
        best += tier[:POOL - len(best)]
    held_by = {mask: _held(mask, words) for mask in score_of}
    pool = [_Fact(n, held_by[masks[n]], None, 0.0, places.get(n, 0)) for n in best]
    in_pool = set(best)
    statuses = ("current", "superseded", "retracted") if include_superseded else ("current",)
    for n in [*_neighbourhoods(conn, entities, statuses), *_asked_relations(conn, entities, statuses, intent)]:
        if n not in in_pool:
            pool.append(_Fact(n, held_by.get(masks.get(n, 0), {}), None, 0.0, places.get(n, 0)))
            in_pool.add(n)
    _look_up_ends(conn, pool)
    for fact in pool:
        through: dict[str, float] = {}
        for end in fact.ends:
            if end in entities:
                for word, weight in (entities[end].about | entities[end].named).items():
                    if word not in fact.words:
                        through[word] = max(through.get(word, 0.0), weight)
        fact.score = (sum(idf[w] * weight for w, weight in fact.words.items())
                      + THROUGH_ENTITY * sum(idf[w] * weight for w, weight in through.items()))
    _rank_by_intent(conn, pool, entities, intent)
    pool.sort(key=lambda fact: (-fact.score, fact.bm25, -fact.n))
    return _Ranked(pool, in_pool, words, masks, score_of, places), [(word, frequency[word]) for word in common]


def _neighbourhoods(conn: sqlite3.Connection, entities: _Entities, statuses: tuple[str, ...]) -> list[int]:
    """The facts (of `statuses`) of the best entities, a bounded number each, newest first."""
    marks = ",".join("?" * len(statuses))
    # Each end apart: facts_object holds a hub's facts in order, so its newest are read without
    # sorting all of them (a hub of 940 facts: 4.6 ms with one OR, 0.05 ms so).
    newest = f"""SELECT f.n FROM entities e JOIN facts f{{}} ON f.{{}} = e.id
                 JOIN fact_versions v ON v.fact_id = f.id AND v.retired_at IS NULL
                 WHERE e.n = ? AND v.status IN ({marks}) ORDER BY f.n DESC LIMIT ?"""
    sql = (f"SELECT n FROM ({newest.format('', 'subject_id')}) UNION "
           f"SELECT n FROM ({newest.format(' INDEXED BY facts_object', 'object_id')}) ORDER BY 1 DESC LIMIT ?")
    brought = []
    for n in entities.ordered[:NEIGHBOURS]:
        brought += [row[0] for row in conn.execute(
            sql, (n, *statuses, PER_NEIGHBOUR, n, *statuses, PER_NEIGHBOUR, PER_NEIGHBOUR))]
    return brought


def _named(entities: _Entities) -> list[int]:
    """The entities the question names (by their names' words), best first; not one whose named
    words another names too, and more ("warehouse" where the question says "warehouse loader")."""
    named = [n for n in entities.ordered[:NEIGHBOURS] if entities[n].named]
    return [n for n in named if not any(set(entities[n].named) < set(entities[other].named) for other in named)]


def _asked_relations(conn: sqlite3.Connection, entities: _Entities, statuses: tuple[str, ...],
                     intent: Intent) -> list[int]:
    """The facts of the named entities whose relation the question asks for (recall_intent), a
    bounded number of each relation: a hub's newest facts (_neighbourhoods) may not hold them."""
    marks = ",".join("?" * len(statuses))
    brought: list[int] = []
    for n in _named(entities):
        for column, index in (("subject_id", "facts_subject"), ("object_id", "facts_object")):
            # among its first RELATIONS_READ facts of that side: a hub's relations, read at a bounded cost
            relations = [row[0] for row in conn.execute(
                f"""SELECT DISTINCT relation FROM (SELECT f.relation FROM entities e
                    JOIN facts f INDEXED BY {index} ON f.{column} = e.id WHERE e.n = ? LIMIT {RELATIONS_READ})""", (n,))]
            for relation in relations:
                if relation_match(intent, relation) is None:
                    continue
                brought += [row[0] for row in conn.execute(
                    f"""SELECT f.n FROM entities e JOIN facts f INDEXED BY {index} ON f.{column} = e.id
                        JOIN fact_versions v ON v.fact_id = f.id AND v.retired_at IS NULL
                        WHERE e.n = ? AND f.relation = ? AND v.status IN ({marks}) ORDER BY f.n DESC LIMIT ?""",
                    (n, relation, *statuses, PER_RELATION))]
    return brought


def _rank_by_intent(conn: sqlite3.Connection, pool: list[_Fact], entities: _Entities, intent: Intent) -> None:
    """Add to each fact's score what it has of what the question asks (store/recall_intent.py): the
    relation asked for, the named entity on the side asked for, the kind of answer at its other end."""
    if not pool:
        return
    named = _named(entities)
    names = dict(conn.execute("SELECT n, name FROM entities WHERE n IN (SELECT value FROM json_each(?))",
                              (json.dumps(named),)))
    asking = Asking(intent, {n: named_at(intent, names.get(n, "")) for n in named})
    by_n = {fact.n: fact for fact in pool}
    for n, relation, *ends in conn.execute(
            """SELECT f.n, f.relation, s.n, s.type, s.name || ' ' || s.description, o.n, o.type, o.name || ' ' || o.description
               FROM facts f JOIN entities s ON s.id = f.subject_id JOIN entities o ON o.id = f.object_id
               WHERE f.n IN (SELECT value FROM json_each(?))""", (json.dumps(list(by_n)),)):
        fact = by_n[n]
        fact.asked, fact.asked_why = asking.of(relation, (ends[0], ends[1], ends[2]), (ends[3], ends[4], ends[5]))
        fact.score += fact.asked


def _look_up_ends(conn: sqlite3.Connection, facts: list[_Fact]) -> None:
    ends = {row[0]: (row[1], row[2]) for row in conn.execute(
        """SELECT f.n, s.n, o.n FROM facts f JOIN entities s ON s.id = f.subject_id JOIN entities o ON o.id = f.object_id
           WHERE f.n IN (SELECT value FROM json_each(?))""", (json.dumps([fact.n for fact in facts]),))}
    for fact in facts:
        fact.ends = ends.get(fact.n, (0, 0))


def _fact_page(conn: sqlite3.Connection, facts: _Ranked, question: Question, entities: _Entities,
               page: Page) -> dict:
    shown = facts.slice(page.offset, page.offset + page.limit)
    if any(fact.ends is None for fact in shown):
        _look_up_ends(conn, [fact for fact in shown if fact.ends is None])
    ids = dict(conn.execute("SELECT n, id FROM facts WHERE n IN (SELECT value FROM json_each(?))",
                            (json.dumps([fact.n for fact in shown]),)))
    names = dict(conn.execute("SELECT n, name FROM entities WHERE n IN (SELECT value FROM json_each(?))",
                              (json.dumps([end for fact in shown for end in fact.ends]),)))
    by_id = {ids[fact.n]: fact for fact in shown if fact.n in ids}
    notes = _observations_among(conn, [end for fact in shown for end in fact.ends if end in entities])
    items = []
    for view in reads.facts_by_id(conn, list(by_id)):
        fact = by_id[view["id"]]
        items.append(dict(view, score=round(fact.score, 4), why=_fact_why(fact, question, entities, names, notes)))
    return listed(len(facts), items)


def _fact_why(fact: _Fact, question: Question, entities: _Entities, names: dict[int, str],
              notes: set[int] = frozenset()) -> str:
    """Briefly: the entity the question names that this is a fact of, the other words the fact holds
    (in the question's order), and the words found only in an end's description. An end in `notes`
    is an observation: its text is what the fact says, so the words it holds are the fact's own."""
    parts, accounted, noted = [], set(), set()
    ends = [end for end in dict.fromkeys(fact.ends) if end in entities]
    for end in ends:
        if end in notes:
            noted |= set(entities[end].named)
        elif entities[end].named:
            parts.append(f"a fact of {names[end]}")
            accounted |= set(entities[end].named)
    held = [word for word in question.words if (word in fact.words or word in noted) and word not in accounted]
    if held:
        parts.append("matched: " + ", ".join(held))
    for end in ends:
        through = [word for word in question.words if word in entities[end].about and word not in fact.words]
        if through:
            parts.append(f"a fact of {names[end]} ({', '.join(through)})")
    if fact.asked_why:
        parts.append(fact.asked_why)
    return "; ".join(parts)


# -- the index -------------------------------------------------------------------------------------

def _rowids(conn: sqlite3.Connection, table: str, expression: str, newest: int | None = None) -> list[int]:
    """Every rowid `expression` matches (or the `newest` of them), read as one string: a tenth of the
    time of one row each."""
    joined = conn.execute(
        f"""SELECT group_concat(rowid) FROM (SELECT rowid FROM {table} WHERE {table} MATCH ?
            ORDER BY rowid DESC LIMIT ?)""", (expression, -1 if newest is None else newest)).fetchone()[0]
    return list(map(int, joined.split(","))) if joined else []


def _match_count(conn: sqlite3.Connection, table: str, expression: str) -> int:
    return conn.execute(f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (expression,)).fetchone()[0]


def _count(conn: sqlite3.Connection, table: str) -> int:
    """About how many rows `table` holds: its largest `n` (forgotten ones leave gaps), found in its index."""
    return conn.execute(f"SELECT coalesce(max(n), 0) FROM {table}").fetchone()[0]


def _idf(total: int, frequency: int) -> float:
    """BM25's inverse document frequency: a word in few rows says more than one in many."""
    return math.log(1 + (total - frequency + 0.5) / (frequency + 0.5))


def _judged(conn: sqlite3.Connection, statuses: tuple[str, ...], among: list[int]) -> set[int]:
    """The `n` of every fact whose present status is one of `statuses` (none of them current): of
    the facts `among` when they are few, else of all (3 us a fact among, against 0.5 ms for all at
    10,000 entities and 10 ms at 100,000)."""
    if not statuses:
        return set()
    marks = ",".join("?" * len(statuses))
    if len(among) <= POOL:
        return {row[0] for row in conn.execute(
            f"""SELECT f.n FROM facts f JOIN fact_versions v ON v.fact_id = f.id AND v.retired_at IS NULL
                WHERE f.n IN (SELECT value FROM json_each(?)) AND v.status IN ({marks})""",
            (json.dumps(among), *statuses))}
    # `status <> 'current'` names the partial index fact_versions_judged, which the planner then uses.
    return {row[0] for row in conn.execute(
        f"""SELECT f.n FROM fact_versions v JOIN facts f ON f.id = v.fact_id
            WHERE v.retired_at IS NULL AND v.status <> 'current' AND v.status IN ({marks})""", statuses)}
