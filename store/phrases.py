"""A dataset's own wordings of its relations, beside recall's built-in table (words.RELATION_PHRASES):
"looks after" -> owned_by for a team that says it so. Kept in the meta row `relation_phrases` as
{"phrase": ["relation", ...]} (a relation with a leading "~" named from its other end, as "reports
to" names manages); recall_intent.dataset_phrases reads it. A change is a write like any other: one
transaction with its ledger row (ids and metadata only: the phrase is the payload's only text, as a
relation's name is in declare_functional's).
"""
from __future__ import annotations

import json
import re
import sqlite3

from .db import Tx
from .errors import InvalidInput, NotFound
from .words import RELATION_PHRASES, words

KEY = "relation_phrases"
_RELATION = re.compile(r"~?[^\s]{1,100}")


def listed(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """The dataset's phrases, each with the relations it says."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (KEY,)).fetchone()
    given = json.loads(row[0]) if row else {}
    return {phrase: list(relations) for phrase, relations in sorted(given.items())}


def add(tx: Tx, phrase: str, relation: str) -> dict[str, list[str]]:
    """Say that `phrase` (as people ask) names `relation` ("~relation": from its other end)."""
    phrase = " ".join(words(phrase))
    if not phrase:
        raise InvalidInput("a phrase needs at least one word")
    if not _RELATION.fullmatch(relation.strip()):
        raise InvalidInput(f"{relation!r} is not a relation's name (one word, such as owned_by, or ~manages)")
    relation = relation.strip()
    given = listed(tx.conn)
    known = given.setdefault(phrase, [])
    if relation not in known:
        known.append(relation)
    _store(tx, given)
    tx.log("phrase", "relation", [], phrase=phrase, relation=relation)
    return {phrase: known}


def remove(tx: Tx, phrase: str) -> str:
    phrase = " ".join(words(phrase))
    given = listed(tx.conn)
    if phrase not in given:
        builtin = " (it is one of recall's own)" if phrase in RELATION_PHRASES else ""
        raise NotFound(f"this dataset has no phrase {phrase!r}{builtin}")
    del given[phrase]
    _store(tx, given)
    tx.log("unphrase", "relation", [], phrase=phrase)
    return phrase


def _store(tx: Tx, given: dict[str, list[str]]) -> None:
    tx.conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (KEY, json.dumps(given, sort_keys=True)))
