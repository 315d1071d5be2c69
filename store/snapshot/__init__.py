"""The Snapshot: everything the viewer may read, as plain data (format `memlens-snapshot/1`,
documented field by field in docs/snapshot-format.md), and what a snapshot goes through:

    snapshot         (this module) built from a store in one SQLite read transaction, sorted so the
                     same store always gives the same bytes
    fact_record      one fact (or a forgotten fact's tombstone) as the snapshot lists it
    canonical        a record's canonical JSON text: what the seal digests, and a site's snapshot.json
    seal             the digests `memlens verify` recomputes (memlens-seal/1)
    shape            whether a snapshot from outside has the format's shape, field by field
    diff             what changed between two snapshots
    load             a snapshot written into an empty dataset (`memlens import --from memlens`)
"""
from __future__ import annotations

import json
import sqlite3
from collections import Counter, defaultdict
from operator import itemgetter

import orjson

from .. import brief_record, ledger, maintenance, reads
from ..brief_screen import withheld_facts
from ..errors import StoreDamaged
from .fact_record import fact_record, tombstone_record
from ..reads import tuple_cursor
from ..observations import OBSERVATION_POSITION, is_observation, not_an_observation
from ..schema import STATUSES, has_column
from ..timefmt import build_time_fallback
from ..version import VERSION

FORMAT = "memlens-snapshot/1"


def memlens_version() -> str:
    return VERSION


def stats(conn: sqlite3.Connection) -> dict:
    by_status = dict(conn.execute(
        "SELECT status, count(*) FROM fact_versions WHERE retired_at IS NULL GROUP BY status").fetchall())
    contested = conn.execute(
        """SELECT count(*) FROM (SELECT fact_a AS f FROM contradictions WHERE resolved_at IS NULL
           UNION SELECT fact_b FROM contradictions WHERE resolved_at IS NULL)""").fetchone()[0]
    count = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
    live = count("SELECT count(*) FROM entities WHERE merged_into IS NULL")
    entities = count(f"SELECT count(*) FROM entities WHERE merged_into IS NULL AND {not_an_observation(conn)}")
    return {
        "entities": entities,
        **_observations_counted(live - entities),
        "facts": sum(by_status.values()),
        "current": by_status.get("current", 0),
        "superseded": by_status.get("superseded", 0),
        "retracted": by_status.get("retracted", 0),
        "forgotten": by_status.get("forgotten", 0),
        "contested": contested,
        "open_contradictions": count("SELECT count(*) FROM contradictions WHERE resolved_at IS NULL"),
        "dismissals": count("SELECT count(*) FROM dismissals"),
        "ledger": count("SELECT count(*) FROM ledger"),
        "types": count("SELECT count(*) FROM types"),
    }


def _observations_counted(count: int) -> dict:
    """`observations` only where there are some: the stats of every other memory, and so the content
    hash of every other tool's snapshot (which covers them), are as they were before observations."""
    return {"observations": count} if count else {}


def stats_of(snapshot: dict) -> dict:
    """The counts `stats` reads from the store, counted in a snapshot (which holds the same rows)."""
    by_status = dict.fromkeys(STATUSES, 0)
    by_status.update(Counter(map(itemgetter("status"), snapshot["facts"])))
    open_contradictions = [c for c in snapshot["contradictions"] if c["resolved_at"] is None]
    live = [e for e in snapshot["entities"] if not e["merged_into"]]
    observations = sum(1 for e in live if is_observation(e))
    return {
        "entities": len(live) - observations,
        **_observations_counted(observations),
        "facts": len(snapshot["facts"]),
        **by_status,
        "contested": len({fid for c in open_contradictions for fid in c["facts"]}),
        "open_contradictions": len(open_contradictions),
        "dismissals": len(snapshot["dismissals"]),
        "ledger": len(snapshot["ledger"]),
        "types": len(snapshot["ontology"]["types"]),
    }


def _generated_at(conn: sqlite3.Connection) -> str:
    return ledger.last_at(conn) or build_time_fallback()


def build(conn: sqlite3.Connection, dataset: str, flag: list[str] | None = None) -> dict:
    """The snapshot; `flag` (datasets.flag_for) names the dataset in the commands a bundle offers."""
    return _read(conn, dataset, flag, chains=False)[0]


def build_with_chains(conn: sqlite3.Connection, dataset: str, flag: list[str] | None = None) -> tuple[dict, list[str]]:
    """The snapshot and its ledger rows' chain hashes as the store keeps them, read in the same
    transaction: what snapshot.seal.sealed needs to seal it without recomputing the chain."""
    snapshot, chains = _read(conn, dataset, flag, chains=True)
    assert chains is not None
    return snapshot, chains


def build_within(conn: sqlite3.Connection, dataset: str) -> dict:
    """The snapshot as the caller's open transaction sees it (what a dry run would leave, before it
    is rolled back), for a diff: without the maintenance worklist, which a diff does not read (two
    of them were 10 of a 10,000-entity dry run's 18 s)."""
    rows, _ = _ledger_rows(conn)
    return _build(conn, dataset, None, ledger.head(conn), rows, worklist=False)


def _read(conn: sqlite3.Connection, dataset: str, flag: list[str] | None, *,
          chains: bool) -> tuple[dict, list[str] | None]:
    conn.execute("BEGIN")  # one read transaction: every part sees the same store
    try:
        head = ledger.head(conn)  # the first read fixes what the transaction sees
        rows, chain = _ledger_rows(conn)
        return _build(conn, dataset, flag, head, rows), chain if chains else None
    finally:
        conn.execute("COMMIT")


def _ledger_rows(conn: sqlite3.Connection) -> tuple[list[dict], list[str]]:
    """The ledger's rows as `ledger.rows` gives them, and their chain hashes, in one plain scan.

    Refs and payloads are parsed a batch at a time (one parse for thousands of rows) and each time,
    actor, action and kind is one string shared by the rows that say it (the scan makes one per
    row). Against SQLite building the rows as one JSON text to parse: long histories' 95,000 rows
    in 0.31 s of CPU instead of 0.53.
    """
    same = {}.setdefault
    rows: list[dict] = []
    chains: list[str] = []
    cursor = tuple_cursor(conn).execute(
        "SELECT seq, at, actor, action, kind, refs, payload, chain FROM ledger ORDER BY seq")
    while batch := cursor.fetchmany(_LEDGER_BATCH):
        refs = _json_list([row[5] for row in batch])
        payloads = _json_list([row[6] for row in batch])
        rows += [{"seq": seq, "at": same(at, at), "actor": same(actor, actor), "action": same(action, action),
                  "kind": same(kind, kind), "refs": row_refs, "payload": payload}
                 for (seq, at, actor, action, kind, _, _, _), row_refs, payload in zip(batch, refs, payloads)]
        chains += [row[7] for row in batch]
    return rows, chains


_LEDGER_BATCH = 20_000


def _json_list(texts: list[str]) -> list:
    """Each JSON text parsed, in one parse. orjson reads what the standard parser reads, twice as
    fast; the standard one is kept for what orjson refuses (an escaped lone surrogate, an integer
    past 64 bits) and reads it the same as it always did."""
    joined = "[" + ",".join(texts) + "]"
    try:
        return orjson.loads(joined)
    except orjson.JSONDecodeError:
        return json.loads(joined)


def _build(conn: sqlite3.Connection, dataset: str, flag: list[str] | None, head: str, ledger_rows: list[dict], *,
           worklist: bool = True) -> dict:
    entities = _entities(conn)
    names = {e["id"]: e["name"] for e in entities}
    contradictions = _contradictions(conn)
    snapshot = {
        "format": FORMAT,
        "dataset": dataset,
        **({"dataset_flag": {"option": flag[0], "value": flag[1]}} if flag else {}),
        "generated_at": _generated_at(conn),
        "hash": "sha256:" + head,
        "memlens_version": memlens_version(),
        "ontology": {
            "types": [r[0] for r in conn.execute("SELECT name FROM types ORDER BY name")],
            "relations": [
                {"name": r[0], "functional": bool(r[1])}
                for r in conn.execute("SELECT name, functional FROM relations ORDER BY name")
            ],
        },
        "entities": entities,
        "facts": _facts(conn, names, contradictions),
        "contradictions": contradictions,
        "dismissals": [
            {k: row[k] for k in ("key", "kind", "content", "reason", "actor", "at")}
            for row in conn.execute("SELECT * FROM dismissals ORDER BY at, n")
        ],
        "ledger": ledger_rows,
        "briefs": brief_record.records(conn),
    }
    snapshot["withheld_from_briefs"] = withheld_facts(snapshot["facts"], names)
    snapshot["stats"] = stats_of(snapshot)
    snapshot["maintenance"] = [c.as_dict() for c in maintenance.worklist_of_snapshot(snapshot)] if worklist else []
    return snapshot


def _entities(conn: sqlite3.Connection) -> list[dict]:
    """Every entity (merged ones too) by name; an observation with its place (the only ones that
    have the field, so other records and their digests are as they were before observations)."""
    # zipped from plain tuples: reading each sqlite3.Row by name was half the entities' time
    fields = ", ".join(reads.ENTITY_FIELDS)
    if not has_column(conn, "entities", OBSERVATION_POSITION):
        return [dict(zip(reads.ENTITY_FIELDS, row)) for row in tuple_cursor(conn).execute(
            f"SELECT {fields} FROM entities ORDER BY name, id")]
    entities = []
    for *row, position in tuple_cursor(conn).execute(
            f"SELECT {fields}, {OBSERVATION_POSITION} FROM entities ORDER BY name, id"):
        entity = dict(zip(reads.ENTITY_FIELDS, row))
        if position is not None:
            entity[OBSERVATION_POSITION] = position
        entities.append(entity)
    return entities


def _contradictions(conn: sqlite3.Connection) -> list[dict]:
    return [
        {
            "id": row["id"], "facts": [row["fact_a"], row["fact_b"]], "reason": row["reason"],
            "confidence": row["confidence"], "actor": row["actor"], "recorded_at": row["recorded_at"],
            "resolved_at": row["resolved_at"], "resolution": row["resolution"],
            "resolution_reason": row["resolution_reason"],
        }
        for row in conn.execute("SELECT * FROM contradictions ORDER BY recorded_at, id")
    ]


def _version_json(table: str) -> str:
    return f"""json_object('from', {table}.recorded_at, 'to', {table}.retired_at, 'status', {table}.status,
        'superseded_by', {table}.superseded_by, 'reason', {table}.reason,
        'valid_from', {table}.valid_from, 'valid_to', {table}.valid_to)"""


def _versions_json(fact_id: str) -> str:
    return f"""(SELECT json_group_array({_version_json("h")})
        FROM (SELECT * FROM fact_versions h WHERE h.fact_id = {fact_id} ORDER BY version) h)"""


# Tombstones are few: built as JSON inside SQLite, with their versions.
_FORGOTTEN_FACTS = f"""
SELECT json_group_array(json(fact)) FROM (
    SELECT json_object(
        'id', t.id, 'subject', t.subject_id, 'forgotten_at', t.forgotten_at,
        'history', json({_versions_json("t.id")})) AS fact
    FROM tombstones t LEFT JOIN entities s ON s.id = t.subject_id
    WHERE t.kind = 'fact'
    ORDER BY coalesce(s.name, ''), t.id
)"""


def _live_facts(conn: sqlite3.Connection, entity_ids: dict[str, str]) -> list[dict]:
    """Every fact that has its text, with its versions, in table order.

    Two plain table scans and the joins done in Python: at 300,000 facts, SQLite's index
    lookups on text ids and JSON building took twice as long. Every row brings its own copy of
    each id, relation, actor and time; `same` keeps one of each (a sixth of the snapshot's memory).
    Versions become their dicts as they are read and facts are read a batch at a time, so what
    the build holds beside the facts themselves stays small (at 300,000 facts the transient rows
    were 150 MB, which the allocator then kept: the export's peak).
    """
    same = {}.setdefault
    versions: dict[str, list[tuple[int, dict]]] = defaultdict(list)
    merged = has_merge_origins(conn)
    version_rows = tuple_cursor(conn).execute(
        "SELECT fact_id, version, recorded_at, retired_at, status, superseded_by, reason, valid_from, valid_to, "
        + ("judged_at, bundle " if merged else "NULL, NULL ") + "FROM fact_versions")
    for fact_id, number, since, until, status, superseded_by, reason, valid_from, valid_to, judged_at, bundle in version_rows:
        version = {"from": same(since, since), "to": until and same(until, until), "status": same(status, status),
                   "superseded_by": superseded_by, "reason": reason, "valid_from": valid_from, "valid_to": valid_to}
        if judged_at is not None:   # a state a merge brought: when it was decided there, and the bundle
            version.update(judged_at=judged_at, bundle=bundle)
        versions[fact_id].append((number, version))
    functional = {r[0] for r in conn.execute("SELECT name FROM relations WHERE functional = 1")}
    cursor = tuple_cursor(conn).execute("SELECT id, subject_id, relation, object_id, description, evidence, actor, "
                                        "reassertions, " + ("origin" if merged else "NULL") + " FROM facts")
    facts = []
    while rows := cursor.fetchmany(_FACT_BATCH):
        # One parse for a batch's evidence lists, not one per fact.
        evidence = _json_list([row[5] for row in rows])
        for (fact_id, subject, relation, obj, description, _, actor, reassertions, origin), fact_evidence in zip(
                rows, evidence):
            fact_versions = versions.pop(fact_id, None)
            if not fact_versions:
                raise StoreDamaged(f"the store is damaged: fact {fact_id} has no versions")
            if len(fact_versions) > 1:
                fact_versions.sort(key=_version_number)
            facts.append(fact_record(
                fact_id, entity_ids.get(subject, subject), same(relation, relation), entity_ids.get(obj, obj),
                description, fact_evidence, same(actor, actor), relation in functional,
                [version for _, version in fact_versions], reassertions,
                origin=None if origin is None else json.loads(origin),
            ))
    return facts


def has_merge_origins(conn: sqlite3.Connection) -> bool:
    """Whether the store has schema 9's origin columns (an older one, read as it is, merged nothing)."""
    return has_column(conn, "facts", "origin")


_FACT_BATCH = 20_000
_version_number = itemgetter(0)


def _facts(conn: sqlite3.Connection, names: dict[str, str], contradictions: list[dict]) -> list[dict]:
    """Every fact, tombstones included, sorted by subject, relation and object name."""
    named_in: dict[str, list[str]] = defaultdict(list)
    contested: set[str] = set()
    for c in contradictions:
        for fid in c["facts"]:
            named_in[fid].append(c["id"])
            if c["resolved_at"] is None:
                contested.add(fid)
    facts = _live_facts(conn, {entity_id: entity_id for entity_id in names})
    for fact in facts:
        if fact["id"] in named_in:  # few facts were ever contested: patch those, not all
            fact.update(contested=fact["id"] in contested, contradictions=named_in[fact["id"]])
    for fact in json.loads(conn.execute(_FORGOTTEN_FACTS).fetchone()[0]):
        facts.append(tombstone_record(fact["id"], fact["subject"], fact["history"], fact["forgotten_at"],
                                      named_in.get(fact["id"], [])))
    # tombstones, without relation or object, go first among their subject's facts
    name = names.get
    facts.sort(key=lambda f: (name(f["subject"], ""), f["relation"] or "", name(f["object"], ""), f["id"]))
    return facts
