"""Full-text search (FTS5) over facts and entities; forgotten text leaves the index."""
from __future__ import annotations

import json
import re
import sqlite3


# Stems, so a question's "owns" finds a fact's "owned_by"; diacritics folded, so "emile" finds "Émile".
TOKENIZER = "porter unicode61 remove_diacritics 2"


def index_entity(conn: sqlite3.Connection, entity_id: str) -> None:
    row = conn.execute("SELECT n, name, type, description FROM entities WHERE id = ?", (entity_id,)).fetchone()
    conn.execute("DELETE FROM entity_search WHERE rowid = ?", (row["n"],))
    conn.execute("INSERT INTO entity_search (rowid, name, about) VALUES (?, ?, ?)",
                 (row["n"], row["name"], entity_about(row["type"], row["description"])))


def entity_about(type_: str, description: str) -> str:
    """What an entity is found by besides its name (the index's `about` column)."""
    return f"{type_} {description}"


def unindex_entity(conn: sqlite3.Connection, n: int) -> None:
    conn.execute("DELETE FROM entity_search WHERE rowid = ?", (n,))


def index_fact(conn: sqlite3.Connection, fact_id: str) -> None:
    row = conn.execute(
        """SELECT f.n, f.relation, f.description, f.evidence, s.name AS subject, o.name AS object
           FROM facts f JOIN entities s ON s.id = f.subject_id JOIN entities o ON o.id = f.object_id
           WHERE f.id = ?""",
        (fact_id,),
    ).fetchone()
    text = fact_text(row["subject"], row["relation"], row["object"], row["description"], json.loads(row["evidence"]))
    conn.execute("DELETE FROM fact_search WHERE rowid = ?", (row["n"],))
    conn.execute("INSERT INTO fact_search (rowid, text) VALUES (?, ?)", (row["n"], text))


def fact_text(subject: str, relation: str, object_: str, description: str, evidence: list[str]) -> str:
    """What a fact is found by: its ends' names, its relation (also as words), description, evidence."""
    relation_words = re.sub(r"[_\-.]+", " ", relation)
    return " ".join([subject, relation, relation_words, object_, description, *evidence])


# fact_text in SQL, over `facts f` and its ends `s` and `o`: how the schema's migration rebuilds the
# index (the same words; a run of separators in a relation gives spaces, not one).
FACT_TEXT_SQL = """s.name || ' ' || f.relation || ' ' || replace(replace(replace(f.relation, '_', ' '), '-', ' '), '.', ' ')
    || ' ' || o.name || ' ' || f.description
    || coalesce((SELECT ' ' || group_concat(e.value, ' ') FROM json_each(f.evidence) e), '')"""


def unindex_fact(conn: sqlite3.Connection, n: int) -> None:
    conn.execute("DELETE FROM fact_search WHERE rowid = ?", (n,))


def purge_deleted_text(conn: sqlite3.Connection) -> None:
    """Merge the FTS segments so deleted tokens are dropped, not just marked deleted."""
    conn.execute("INSERT INTO fact_search (fact_search) VALUES ('optimize')")
    conn.execute("INSERT INTO entity_search (entity_search) VALUES ('optimize')")
