"""Reading facts: now, as believed at a record time, as true at a valid time; history."""
from __future__ import annotations

import json
import re
import sqlite3

from .errors import NotFound
from .resolve import resolve
from .versions import get_fact

_STATE_AT = """
    SELECT v.fact_id AS id, v.status, v.superseded_by, v.reason, v.valid_from, v.valid_to,
           v.recorded_at AS state_since,
           (SELECT recorded_at FROM fact_versions first WHERE first.fact_id = v.fact_id
            ORDER BY version LIMIT 1) AS recorded_at,
           f.relation, f.subject_id, f.object_id, f.description, f.evidence, f.actor, f.arrival,
           s.name AS subject_name, o.name AS object_name
    FROM fact_versions v
    LEFT JOIN facts f ON f.id = v.fact_id
    LEFT JOIN entities s ON s.id = f.subject_id
    LEFT JOIN entities o ON o.id = f.object_id
"""


def fact_rows(
    conn: sqlite3.Connection,
    *,
    statuses: tuple[str, ...] | None = ("current",),
    as_of_record: str | None = None,
    as_of_valid: str | None = None,
    subject_id: str | None = None,
    limit: int | None = None,
    offset: int = 0,
) -> list[dict]:
    """Facts in the state they were in at `as_of_record` (default: now), filtered; `limit` of them
    from `offset` in their order (subject, relation, object)."""
    where, params = _fact_filter(statuses, as_of_record, as_of_valid, subject_id)
    sql = _STATE_AT + where + " ORDER BY s.name, f.relation, o.name, v.fact_id"
    if limit is not None:
        sql += " LIMIT ? OFFSET ?"
        params += [limit, offset]
    rows = conn.execute(sql, params).fetchall()
    contested = contested_ids(conn, as_of_record)
    return [fact_view(row, contested) for row in rows]


def fact_count(
    conn: sqlite3.Connection,
    *,
    statuses: tuple[str, ...] | None = ("current",),
    as_of_record: str | None = None,
    as_of_valid: str | None = None,
) -> int:
    """How many facts `fact_rows` with the same filters returns in all."""
    where, params = _fact_filter(statuses, as_of_record, as_of_valid, None)
    return conn.execute("SELECT count(*) FROM fact_versions v" + where, params).fetchone()[0]


def _fact_filter(
    statuses: tuple[str, ...] | None, as_of_record: str | None, as_of_valid: str | None, subject_id: str | None
) -> tuple[str, list]:
    where, params = [], []
    if as_of_record is None:
        where.append("v.retired_at IS NULL")
    else:
        where.append("v.recorded_at <= ? AND (v.retired_at IS NULL OR v.retired_at > ?)")
        params += [as_of_record, as_of_record]
    if as_of_valid is not None:
        # At a valid time, history counts: a superseded value was true in its own interval. A fact
        # that names an entity merged away (as of the record time) was carried to the kept entity:
        # its copy there is the value, and it is not listed beside it. static/timetravel.js `whyHidden`.
        statuses = ("current", "superseded")
        where.append("(v.valid_from IS NULL OR v.valid_from <= ?) AND (v.valid_to IS NULL OR v.valid_to > ?)")
        params += [as_of_valid, as_of_valid]
        # the few merged entities lead (CROSS JOIN), so the list is made once from their facts: a
        # condition asked of each of 300,000 versions cost 2.6 s at 100,000 entities, this nothing
        where.append("v.fact_id NOT IN (SELECT m.id FROM entities e CROSS JOIN facts m ON m.subject_id = e.id "
                     "WHERE e.merged_at <= ? UNION ALL SELECT m.id FROM entities e CROSS JOIN facts m "
                     "ON m.object_id = e.id WHERE e.merged_at <= ?)")
        params += [as_of_record or "9999"] * 2
    if statuses:
        where.append(f"v.status IN ({','.join('?' * len(statuses))})")
        params += list(statuses)
    if subject_id is not None:
        # through the facts' own indexes: a condition on the joined facts read every open version
        # (0.7 s for one entity's history at 100,000 entities)
        where.append("v.fact_id IN (SELECT id FROM facts WHERE subject_id = ? UNION ALL "
                     "SELECT id FROM facts WHERE object_id = ?)")
        params += [subject_id, subject_id]
    return " WHERE " + " AND ".join(where), params


def is_archived(status: str | None, reason: str | None) -> bool:
    """A current fact whose state says it was archived (mnemo's archive: kept, but left out of its
    own reads). static/memory.js `isArchived` says the same."""
    return status == "current" and (reason or "").casefold().startswith("archived")


def state_counts(conn: sqlite3.Connection) -> dict:
    """What `stats` counts beside the snapshot's counts: archived facts, and entities merged into others."""
    archived = conn.execute(
        "SELECT count(*) FROM fact_versions WHERE retired_at IS NULL AND status = 'current' "
        "AND lower(substr(reason, 1, 8)) = 'archived'").fetchone()[0]
    merged = conn.execute("SELECT count(*) FROM entities WHERE merged_into IS NOT NULL").fetchone()[0]
    return {"archived": archived, "merged": merged}


def contested_ids(conn: sqlite3.Connection, at: str | None = None) -> set[str]:
    if at is None:
        sql, params = "SELECT fact_a, fact_b FROM contradictions WHERE resolved_at IS NULL", ()
    else:
        sql = "SELECT fact_a, fact_b FROM contradictions WHERE recorded_at <= ? AND (resolved_at IS NULL OR resolved_at > ?)"
        params = (at, at)
    return {fid for row in conn.execute(sql, params) for fid in row}


# A fact's fields, in the order every reader gives them: the CLI's --json and the MCP tools alike
# (docs/json-shapes.md).
FACT_FIELDS = ("id", "subject", "subject_name", "relation", "object", "object_name", "status", "superseded_by",
               "reason", "contested", "valid_from", "valid_to", "recorded_at", "retired_at", "evidence", "actor",
               "description")


def fact_view(row: sqlite3.Row, contested: set[str]) -> dict:
    """One fact as readers see it; a forgotten fact keeps its id, status and dates, never its text."""
    erased = row["relation"] is None
    return {
        "id": row["id"],
        "subject": row["subject_id"],
        "subject_name": row["subject_name"],
        "relation": row["relation"],
        "object": row["object_id"],
        "object_name": row["object_name"],
        "status": row["status"],
        "superseded_by": row["superseded_by"],
        "reason": row["reason"],
        "contested": row["id"] in contested,
        "valid_from": row["valid_from"],
        "valid_to": row["valid_to"],
        "recorded_at": row["recorded_at"],
        "retired_at": None if row["status"] == "current" else row["state_since"],
        "evidence": [] if erased else json.loads(row["evidence"]),
        "actor": row["actor"],
        "description": row["description"],
    }


def fact(conn: sqlite3.Connection, ref: str) -> dict:
    fid = get_fact(conn, ref)["id"]
    rows = conn.execute(_STATE_AT + " WHERE v.fact_id = ? AND v.retired_at IS NULL", (fid,)).fetchall()
    return fact_view(rows[0], contested_ids(conn))


def facts_by_id(conn: sqlite3.Connection, ids: list[str]) -> list[dict]:
    """Live facts in their present state, in the order of `ids` (unknown ids are left out)."""
    if not ids:
        return []
    wanted = json.dumps(ids)
    rows = conn.execute(
        _STATE_AT + " WHERE v.fact_id IN (SELECT value FROM json_each(?)) AND v.retired_at IS NULL", (wanted,)
    ).fetchall()
    # Only these facts' contradictions, through their indexes: 0.03 ms instead of 0.4 for 589 open ones.
    contested = {fid for row in conn.execute(
        """SELECT fact_a, fact_b FROM contradictions WHERE resolved_at IS NULL
           AND (fact_a IN (SELECT value FROM json_each(:ids)) OR fact_b IN (SELECT value FROM json_each(:ids)))""",
        {"ids": wanted}) for fid in row}
    views = {row["id"]: fact_view(row, contested) for row in rows}
    return [views[fid] for fid in ids if fid in views]


def fact_history(conn: sqlite3.Connection, fact_id: str) -> list[dict]:
    return [
        {k: row[k] for k in ("version", "status", "superseded_by", "reason", "valid_from", "valid_to",
                             "recorded_at", "retired_at")}
        for row in conn.execute("SELECT * FROM fact_versions WHERE fact_id = ? ORDER BY version", (fact_id,))
    ]


LEDGER_COLUMNS = "l.seq, l.at, l.actor, l.action, l.kind, l.refs, l.payload"


def ledger_for(conn: sqlite3.Connection, ids: list[str]) -> list[dict]:
    """Ledger rows that name any of `ids` (refs are a JSON list of ids)."""
    if not ids:
        return []
    rows = conn.execute(f"SELECT {LEDGER_COLUMNS} FROM ledger l WHERE {naming_any(conn)} ORDER BY l.seq",
                        {"ids": json.dumps(ids)}).fetchall()
    return [ledger_row(r) for r in rows]


def naming_any(conn: sqlite3.Connection) -> str:
    """The SQL condition on ledger row `l`: its refs name an id of the JSON list `:ids`. Looked up in
    ledger_refs, and past its mark (rows an older memlens appended since our last write) in the
    rows' own refs; a store from before schema version 5 (read, not yet migrated) has no table,
    and each row's refs are read instead."""
    tables = {r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('ledger_refs', 'ledger_refs_upto')")}
    if "ledger_refs" not in tables:
        return "EXISTS (SELECT 1 FROM json_each(l.refs) r WHERE r.value IN (SELECT value FROM json_each(:ids)))"
    indexed = "SELECT seq FROM ledger_refs WHERE ref IN (SELECT value FROM json_each(:ids))"
    if "ledger_refs_upto" in tables:
        indexed += (" UNION ALL SELECT t.seq FROM ledger t, json_each(t.refs) r"
                    " WHERE t.seq > (SELECT seq FROM ledger_refs_upto) AND r.value IN (SELECT value FROM json_each(:ids))")
    return f"l.seq IN ({indexed})"


def tuple_cursor(conn: sqlite3.Connection) -> sqlite3.Cursor:
    """A cursor whose rows are plain tuples: a scan of every fact, version or ledger row unpacks
    them 15% faster than sqlite3.Row's."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor


def ledger_row(r: sqlite3.Row | tuple) -> dict:
    """A ledger row read as LEDGER_COLUMNS."""
    return {"seq": r[0], "at": r[1], "actor": r[2], "action": r[3], "kind": r[4],
            "refs": json.loads(r[5]), "payload": json.loads(r[6])}


def entity_or_fact(conn: sqlite3.Connection, ref: str) -> tuple[sqlite3.Row | None, str | None]:
    """What `ref` names, as (entity, None) or (None, fact id): an entity as store/resolve.py finds
    it, else a fact by its id. Neither is an error naming the entities it may have meant."""
    found = resolve(conn, ref)
    if found.entity is not None:
        return found.entity, None
    if _FACT_ID.fullmatch(ref.strip()):
        try:
            return None, get_fact(conn, ref)["id"]
        except NotFound:
            if not found.candidates:
                raise
    raise NotFound(f"no entity named {ref!r}{found.meant()}")


# What may be (the start of) a fact id, as versions.get_fact reads one; anything else is a name.
_FACT_ID = re.compile(r"[0-9a-fA-F]{4}[0-9a-fA-F-]{0,32}")


def history(conn: sqlite3.Connection, ref: str) -> dict:
    """The history of a fact (by id) or of an entity (by name or id)."""
    entity, fact_id = entity_or_fact(conn, ref)
    if entity is not None:
        aliases = [r[0] for r in conn.execute("SELECT id FROM entities WHERE merged_into = ?", (entity["id"],))]
        facts = fact_rows(conn, statuses=None, subject_id=entity["id"])
        for alias in aliases:
            facts += fact_rows(conn, statuses=None, subject_id=alias)
        return {
            "entity": entity_view(entity),
            "merged": aliases,
            "facts": [dict(f, history=fact_history(conn, f["id"])) for f in facts],
            "ledger": ledger_for(conn, [entity["id"], *aliases, *(f["id"] for f in facts)]),
        }
    found = fact(conn, fact_id)
    return {"fact": found, "history": fact_history(conn, found["id"]), "ledger": ledger_for(conn, [found["id"]])}


ENTITY_FIELDS = ("id", "name", "type", "description", "created_at", "updated_at", "merged_into", "merged_at")


def entity_view(row: sqlite3.Row) -> dict:
    return {k: row[k] for k in ENTITY_FIELDS}
