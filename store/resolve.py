"""What a name a person or an agent gives refers to: the one resolver every command and tool asks.

In order, and the first that answers wins:
1. exact: an entity written exactly so (or an alias a merge left, followed to what it was merged into);
   an entity's id, or the first 8+ hex digits of one;
2. folded: the same name but for case, spaces and separators (`Billing Service`, `billing-service`);
   two different entities that fold alike (case twins from an import) are ambiguous, never guessed;
3. candidates, never taken by themselves: a name that is every word of a longer name (a first name, a
   surname: `priya` -> `Priya Natarajan`), then a name within a few edits of it (one edit per five
   letters; digits must agree, so `node-1` is not a misspelt `node-2`).

An observation (store/observations.py) is found by its id only: its name is a note's text, which
a name someone gives must never land on.

`resolve(conn, name)` answers one name; `Names` holds a store's names read once, for a batch of
writes (store/ingest.py) or a worklist (store/maintenance.py).
"""
from __future__ import annotations

import re
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from . import ledger
from .errors import Ambiguous
from .ids import normalize_name
from .observations import not_an_observation

_SEPARATORS = re.compile(r"[\W_]+")
_DIGITS = re.compile(r"\d+")
# Only a run of hex digits as long as a short id is read as an id: "cafe" stays a name.
_ID_PREFIX = re.compile(r"[0-9a-f]{8}[0-9a-f-]{0,28}")
CANDIDATES_SHOWN = 5
# Names compared by spelling in one batch, at most (new names x stored names): rapidfuzz compares
# about 50 million pairs a second; past this a very large batch into a very large store is checked
# for case, separators and words, not for spelling.
SPELLING_BUDGET = 20_000_000


def _rapidfuzz():
    """rapidfuzz's matcher and distance, imported when a name is compared by spelling: 15 ms that
    a command which finds every name it is given never spends."""
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein
    return process, Levenshtein


def folded(name: str) -> str:
    """A name without case, spaces or separators: 'Billing Service' and 'billing-service' agree."""
    return _SEPARATORS.sub("", name.casefold())


def words(name: str) -> frozenset[str]:
    return frozenset(word for word in _SEPARATORS.split(name.casefold()) if word)


def edits_allowed(key: str) -> int:
    """How far a spelling may be from a name and still be a near miss: one edit per five letters."""
    return len(key) // 5


def spelt_alike(one: str, other: str) -> bool:
    """Whether two names a few edits apart may be one spelt twice: not where the words that differ
    are a letter or two (`host-a`, `host-b`: a series, not a typo)."""
    first, second = _SEPARATORS.split(one.casefold()), _SEPARATORS.split(other.casefold())
    if len(first) != len(second):
        return True
    return all(len(a) > 2 and len(b) > 2 for a, b in zip(first, second) if a != b)


@dataclass(frozen=True)
class Candidate:
    """An entity a name may have meant, and why: `word` (every word of the name is one of its
    words) or `spelling` (a few edits away)."""

    id: str
    name: str
    type: str
    why: str

    def shown(self) -> str:
        return f"{self.name!r} ({self.type})"


@dataclass(frozen=True)
class Resolution:
    """What a name refers to: `how` is "exact" or "folded" (then `entity` is the live entity), or
    "candidates" (nothing it names for sure; `candidates` may be empty)."""

    name: str
    how: str
    entity: sqlite3.Row | None = None
    candidates: tuple[Candidate, ...] = ()

    @property
    def found(self) -> bool:
        return self.entity is not None

    def meant(self) -> str:
        """'; did you mean 'A' (Person) or 'B' (Person)?', or nothing."""
        if not self.candidates:
            return ""
        return f"; did you mean {' or '.join(c.shown() for c in self.candidates)}?"


def resolve(conn: sqlite3.Connection, name: str) -> Resolution:
    """The entity `name` refers to, by the rules above; Ambiguous if two entities answer equally."""
    text = name.strip()
    same_key = conn.execute(f"SELECT * FROM entities WHERE name_key = ? AND {not_an_observation(conn)} ORDER BY id",
                            (normalize_name(text),)).fetchall()
    found = choose(text, same_key, lambda id_: _row(conn, id_))
    if found is not None:
        return found
    by_id = _by_id(conn, text)
    if by_id is not None:
        return Resolution(text, "exact", by_id)
    return Names.read(conn).resolve(text)


def choose(name: str, same_key: list, row_of) -> Resolution | None:
    """Exact, then folded by case and spaces, among the entities whose name key is the name's
    (`row_of(id)` reads an entity, for following merges). None when none of them is it."""
    exact = _live_ids([r for r in same_key if r["name"] == name], same_key, row_of)
    if len(exact) == 1:
        return Resolution(name, "exact", row_of(exact[0]))
    if len(exact) > 1:
        raise _ambiguous(name, [row_of(id_) for id_ in exact])
    live = _live_ids(same_key, same_key, row_of)
    if len(live) == 1:
        return Resolution(name, "folded", row_of(live[0]))
    if len(live) > 1:
        raise _ambiguous(name, [row_of(id_) for id_ in live])
    return None


def _live_ids(rows: list, same_key: list, row_of) -> list[str]:
    """The live entities `rows` stand for (an alias stands for what it was merged into), in order."""
    seen: dict[str, None] = {}
    for row in rows:
        while row is not None and row["merged_into"]:
            row = row_of(row["merged_into"])
        if row is not None:
            seen.setdefault(row["id"])
    return list(seen)


def _ambiguous(name: str, rows: list) -> Ambiguous:
    named = " and ".join(f"{row['name']!r} ({row['type']}, {row['id'][:8]})" for row in rows)
    return Ambiguous(f"{name!r} could be {named}: name one exactly as it is written, or by its id")


def _row(conn: sqlite3.Connection, id_: str) -> sqlite3.Row | None:
    return conn.execute("SELECT * FROM entities WHERE id = ?", (id_,)).fetchone()


def _by_id(conn: sqlite3.Connection, text: str) -> sqlite3.Row | None:
    """The live entity with this id, or whose id starts with these 8+ hex digits."""
    row = _row(conn, text)
    if row is None and _ID_PREFIX.fullmatch(text.lower()):
        matches = conn.execute("SELECT * FROM entities WHERE id GLOB ? LIMIT 2", (text.lower() + "*",)).fetchall()
        if len(matches) > 1:
            raise Ambiguous(f"{text!r} matches more than one entity id; give more of it")
        row = matches[0] if matches else None
    while row is not None and row["merged_into"]:
        row = _row(conn, row["merged_into"])
    return row


@dataclass
class _Entity:
    id: str
    name: str
    type: str
    key: str
    live: str          # the id it stands for (itself, or what it was merged into)


@dataclass
class Names:
    """A store's entity names, read once: what the miss path of `resolve` compares against."""

    entities: dict[str, _Entity] = field(default_factory=dict)
    by_fold: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    by_word: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    # folded names of live entities, and their ids, for spelling, by the numbers they hold: a near
    # miss holds the same numbers (`node-1` is not a typo of `node-2`), so only those are compared
    spellings: dict[tuple[str, ...], tuple[list[str], list[str]]] = field(default_factory=dict)
    rows: dict[str, sqlite3.Row] = field(default_factory=dict)
    spelling_left: int = SPELLING_BUDGET

    @classmethod
    def read(cls, conn: sqlite3.Connection) -> Names:
        names = cls()
        rows = conn.execute(f"SELECT * FROM entities WHERE {not_an_observation(conn)}").fetchall()
        names.rows = {row["id"]: row for row in rows}
        merged = {row["id"]: row["merged_into"] for row in rows}
        for row in rows:
            live = row["id"]
            for _ in range(len(merged)):   # a chain of merges, never a loop
                if not merged.get(live):
                    break
                live = merged[live]
            names.add(row["id"], row["name"], row["type"], live)
        return names

    def add(self, id_: str, name: str, type_: str, live: str | None = None) -> None:
        """One more name (a batch adds those it creates, so a later item finds them)."""
        entity = _Entity(id_, name, type_, folded(name), live or id_)
        self.entities[id_] = entity
        if entity.key:   # a name of separators only ('..', '<>') folds to nothing: it is no other name
            self.by_fold[entity.key].add(entity.live)
        for word in words(name):
            self.by_word[word].add(entity.live)
        if entity.live == id_ and entity.key:
            keys, ids = self.spellings.setdefault(tuple(_DIGITS.findall(entity.key)), ([], []))
            keys.append(entity.key)
            ids.append(id_)

    def resolve(self, name: str, *, type_name: str | None = None) -> Resolution:
        """Folded by separators too, else the candidates (of `type_name`'s type, when given)."""
        text = name.strip()
        live = sorted(self.by_fold.get(folded(text), ())) if folded(text) else []
        if len(live) == 1:
            return Resolution(text, "folded", self._row(live[0]), ())
        if len(live) > 1:
            raise _ambiguous(text, [self._row(id_) for id_ in live])
        return Resolution(text, "candidates", None, self.candidates(text, type_name))

    def _row(self, id_: str) -> sqlite3.Row | dict:
        """The stored row, or for a name a batch added, what the resolver knows of it."""
        entity = self.entities[id_]
        return self.rows.get(id_) or {"id": id_, "name": entity.name, "type": entity.type, "merged_into": None}

    def candidates(self, name: str, type_name: str | None = None) -> tuple[Candidate, ...]:
        """Entities `name` may have meant: those holding each of its words, then near spellings."""
        found: dict[str, str] = {}
        asked = words(name)
        if asked and any(len(word) > 1 for word in asked):
            # from the rarest word: a word many names hold ("service") is a set of thousands
            holding = set.intersection(*sorted((self.by_word.get(word, set()) for word in asked), key=len))
            for id_ in sorted(holding):
                found.setdefault(id_, "word")
        key = folded(name)
        allowed = edits_allowed(key)
        keys, ids = self.spellings.get(tuple(_DIGITS.findall(key)), ([], []))
        if allowed and keys and self.spelling_left >= len(keys):
            process, Levenshtein = _rapidfuzz()
            self.spelling_left -= len(keys)
            near = process.extract(key, keys, scorer=Levenshtein.distance, score_cutoff=allowed,
                                   limit=CANDIDATES_SHOWN * 4)
            for _, distance, index in sorted(near, key=lambda hit: (hit[1], keys[hit[2]])):
                if distance and spelt_alike(name, self.entities[ids[index]].name):
                    found.setdefault(ids[index], "spelling")
        wanted = (type_name or "").strip().casefold()
        candidates = [Candidate(id_, self.entities[id_].name, self.entities[id_].type, why)
                      for id_, why in found.items()
                      if not wanted or self.entities[id_].type.casefold() == wanted]
        return tuple(candidates[:CANDIDATES_SHOWN])


class KeptNames:
    """A store's `Names` kept between writes by a long-lived process (the MCP server): reading every
    name costs 70-100 ms at 10,000 entities, at each new name a write brings. They are kept with the
    ledger's head they were true at: every write adds a ledger row, so the same head is the same
    entities. A batch that changed names only by creating entities (ingest's) keeps them again, with
    its creations added, at the head it leaves; if that never commits, the head is not the store's
    and the names are read anew."""

    def __init__(self) -> None:
        self._names: Names | None = None
        self._head: str | None = None

    def take(self, conn: sqlite3.Connection) -> Names:
        """The names as the store holds them now (inside the caller's transaction); the caller may
        add to them, and they are no longer kept until `after` hands them back."""
        names, self._names = self._names, None
        if names is None or self._head != ledger.head(conn):
            return Names.read(conn)
        names.spelling_left = SPELLING_BUDGET   # each write has its own budget
        return names

    def head(self, conn: sqlite3.Connection) -> str | None:
        """The store's head as a batch starts, if names are kept (what `after` checks them against)."""
        return ledger.head(conn) if self._names is not None else None

    def after(self, conn: sqlite3.Connection, started_at: str | None, taken: Names | None) -> None:
        """After a batch that changed names only by creating entities, before its commit: the names it
        `taken` (its creations added as it made them), or else, since it made none, those kept at the
        head it `started_at`, are the store's at its head now."""
        if taken is None and (self._names is None or started_at is None or self._head != started_at):
            self._names = None
            return
        self._names, self._head = taken or self._names, ledger.head(conn)


# Two names count as one's words inside the other's only where few names hold those words: a word
# in many names ("service") says nothing of which of them it meant.
WORDS_SHARED_BY = 5
# Spelling is compared within blocks of names that begin, or end, with the same two letters (a
# typo seldom hits both ends); a block larger than this is cut by the first four letters.
BLOCK = 3_000


def similar_pairs(entities: Iterable[tuple[str, str, str]],
                  skip: Callable[[str, str], bool]) -> list[tuple[str, str, str]]:
    """Pairs (a, b, why) of entities (id, name, type) of one type that the resolver would offer
    one for the other: one name's words all in the other's, or a spelling a few edits away; a
    pair `skip(name_a, name_b)` excludes is left out. a's (name, id) sorts before b's."""
    by_type: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for id_, name, type_ in entities:
        by_type[type_].append((id_, name))
    found: dict[tuple[str, str], str] = {}
    names: dict[str, str] = {}
    for members in by_type.values():
        names.update(members)
        for a, b in _word_pairs(members):
            found.setdefault(_ordered(a, b, names), "one name is words of the other")
        for a, b in _spelling_pairs(members):
            found.setdefault(_ordered(a, b, names), "spelt alike")
    return [(a, b, why) for (a, b), why in found.items() if not skip(names[a], names[b])]


def _ordered(a: str, b: str, names: dict[str, str]) -> tuple[str, str]:
    return (a, b) if (names[a], a) <= (names[b], b) else (b, a)


def _word_pairs(members: list[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    held = {id_: words(name) for id_, name in members}
    by_word: dict[str, list[str]] = defaultdict(list)
    for id_, asked in held.items():
        for word in asked:
            by_word[word].append(id_)
    for id_, asked in held.items():
        if not any(len(word) > 1 for word in asked):
            continue
        fewest = min((by_word[word] for word in asked), key=len)
        holders = [other for other in fewest if other != id_ and asked < held[other]]
        if len(holders) <= WORDS_SHARED_BY:
            yield from ((id_, other) for other in holders)


def _spelling_pairs(members: list[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    names = dict(members)
    keys = {id_: folded(name) for id_, name in members}
    # digits must agree (below), so names are compared only with names holding the same digits:
    # `node-000123` beside 9,999 other numbered nodes took 4.9 s of a worklist at 10,000 entities
    blocks: dict[tuple[str, str, tuple[str, ...]], list[str]] = defaultdict(list)
    for id_, key in keys.items():
        if edits_allowed(key):
            digits = tuple(_DIGITS.findall(key))
            blocks["head", key[:2], digits].append(id_)
            blocks["tail", key[-2:], digits].append(id_)
    pending = list(blocks.values())
    while pending:
        block = pending.pop()
        if len(block) > BLOCK and len({keys[id_][:4] for id_ in block}) > 1:
            cut: dict[str, list[str]] = defaultdict(list)
            for id_ in block:
                cut[keys[id_][:4]].append(id_)
            pending += cut.values()
            continue
        if len(block) < 2:
            continue
        process, Levenshtein = _rapidfuzz()
        block_keys = [keys[id_] for id_ in block]
        cutoff = max(edits_allowed(key) for key in block_keys)
        distances = process.cdist(block_keys, block_keys, scorer=Levenshtein.distance, score_cutoff=cutoff)
        for i, j in zip(*distances.nonzero()):
            if i < j and distances[i, j] <= min(edits_allowed(block_keys[i]), edits_allowed(block_keys[j])) \
                    and spelt_alike(names[block[i]], names[block[j]]):
                yield block[i], block[j]

