"""Full-text search (FTS5) over facts and entities; forgotten text leaves the index."""
from __future__ import annotations

import json
import re
import sqlite3


def index_entity(conn: sqlite3.Connection, entity_id: str) -> None:
    row = conn.execute("SELECT n, name, type, description FROM entities WHERE id = ?", (entity_id,)).fetchone()
    conn.execute("DELETE FROM entity_search WHERE rowid = ?", (row["n"],))
    conn.execute(
        "INSERT INTO entity_search (rowid, text) VALUES (?, ?)",
        (row["n"], " ".join([row["name"], row["type"], row["description"]])),
    )


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


def unindex_fact(conn: sqlite3.Connection, n: int) -> None:
    conn.execute("DELETE FROM fact_search WHERE rowid = ?", (n,))


def purge_deleted_text(conn: sqlite3.Connection) -> None:
    """Merge the FTS segments so deleted tokens are dropped, not just marked deleted."""
    conn.execute("INSERT INTO fact_search (fact_search) VALUES ('optimize')")
    conn.execute("INSERT INTO entity_search (entity_search) VALUES ('optimize')")


def match_expression(query: str) -> str | None:
    """A person's words as an FTS5 query: every word must match, as a prefix; no syntax leaks."""
    words = re.findall(r"\w+", query)
    if not words:
        return None
    return " ".join('"' + word.replace('"', '""') + '"*' for word in words)


def matching_facts(conn: sqlite3.Connection, query: str, limit: int) -> list[tuple[int, float]]:
    return _matching(conn, "fact_search", query, limit)


def matching_entities(conn: sqlite3.Connection, query: str, limit: int) -> list[tuple[int, float]]:
    return _matching(conn, "entity_search", query, limit)


def _matching(conn: sqlite3.Connection, table: str, query: str, limit: int) -> list[tuple[int, float]]:
    """(rowid, bm25) of the best matches; the rowid is the fact's or entity's `n`."""
    expression = match_expression(query)
    if expression is None:
        return []
    sql = f"SELECT rowid, bm25({table}) FROM {table} WHERE {table} MATCH ? ORDER BY bm25({table}) LIMIT ?"
    return [(row[0], row[1]) for row in conn.execute(sql, (expression, limit))]
