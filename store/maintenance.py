"""Maintenance: one worklist of candidates for a person (or agent) to judge, minus dismissals."""
from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

from . import contradictions, db, evidence, reads, resolve
from .db import Tx
from .errors import Ambiguous, InvalidInput, NotFound
from .ids import SHORT, short
from .observations import is_observation, not_an_observation
from .ontology import relation_name, sounds_single_valued


class Candidate(NamedTuple):  # a tuple: 80 bytes and made in C (270,000 of them at 100,000 entities)
    """Something maintenance wants judged. `content` hashes what it covers, so news re-opens it."""

    key: str
    kind: str  # hotspot | contradiction | duplicate | similar | relation | stale | unsupported
    summary: str
    refs: tuple[str, ...]
    content: str

    def as_dict(self) -> dict:
        # as a snapshot holds it: refs as a list
        return {"key": self.key, "kind": self.kind, "summary": self.summary, "refs": list(self.refs),
                "content": self.content}


def content_of(ids: list[str]) -> str:
    """What a candidate covers, as its dismissal records it: a new fact in a group is a new content."""
    if len(ids) == 1 and type(ids[0]) is str:   # a fact without evidence: nothing to sort or join
        return "sha256:" + hashlib.sha256(ids[0].encode()).hexdigest()
    return "sha256:" + hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()


# The candidate finders read rows by key, so they take SQLite rows (from the store) and dicts
# (from a snapshot, which already holds everything and need not be read twice) alike.
Record = Mapping[str, Any]


def worklist(conn: sqlite3.Connection, *, include_dismissed: bool = False,
             repository: Path | None = None) -> list[Candidate]:
    """The worklist; with `repository`, the facts whose evidence changed there too (`stale_evidence`)."""
    candidates = _store_worklist(conn, include_dismissed=include_dismissed)
    if repository is not None:
        candidates += stale_evidence(conn, repository, include_dismissed=include_dismissed)[0]
    return candidates


def _store_worklist(conn: sqlite3.Connection, *, include_dismissed: bool = False) -> list[Candidate]:
    # several scans, one state: a write committed between two of them would give a worklist of
    # neither the state before it nor the one after
    with db.read(conn):
        entities = _named_entities(conn)
        open_contradictions = conn.execute(
            "SELECT id, fact_a, fact_b, reason, confidence, recorded_at FROM contradictions WHERE resolved_at IS NULL"
        ).fetchall()
        dismissed = set() if include_dismissed else {
            (r[0], r[1]) for r in conn.execute("SELECT key, content FROM dismissals")}
        current = _all_current_facts(conn)
        single = _single_valued(conn)
        relations = _relation_spellings(conn)
    return _worklist(*_split(current), entities, open_contradictions, dismissed, single, relations)


def _named_entities(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """The live entities whose names may be duplicates or near misses: an observation's name is
    its text (two entities may well note the same thing), never an entity's name."""
    return conn.execute(
        f"SELECT id, name, type FROM entities WHERE merged_into IS NULL AND {not_an_observation(conn)}").fetchall()


def worklist_of_snapshot(snapshot: Mapping[str, Any]) -> list[Candidate]:
    """The same worklist, from a snapshot's entities, facts, contradictions and dismissals."""
    name = {e["id"]: e["name"] for e in snapshot["entities"]}.__getitem__
    current = [(f["id"], f["subject"], f["relation"], name(f["subject"]), name(f["object"]), f["recorded_at"],
                bool(f["evidence"])) for f in snapshot["facts"] if f["status"] == "current"]
    entities = [e for e in snapshot["entities"] if not e["merged_into"] and not is_observation(e)]
    open_contradictions = [
        {"id": c["id"], "fact_a": c["facts"][0], "fact_b": c["facts"][1], "reason": c["reason"],
         "confidence": c["confidence"], "recorded_at": c["recorded_at"]}
        for c in snapshot["contradictions"] if c["resolved_at"] is None
    ]
    dismissed = {(d["key"], d["content"]) for d in snapshot["dismissals"]}
    return _worklist(*_split(current), entities, open_contradictions, dismissed, _single_valued_in(snapshot),
                     _spellings_in(snapshot["facts"]))


class SingleValued(NamedTuple):
    """The relations that hold one value per subject, or behave as if they did."""

    declared: frozenset[str]     # declared functional
    superseded: frozenset[str]   # a value of it was replaced before (not by a merge)

    def holds(self, relation: str) -> bool:
        return self.said(relation) or relation in self.superseded

    def said(self, relation: str) -> bool:
        """Declared, or named so: several values are a question however they were recorded."""
        return relation in self.declared or sounds_single_valued(relation)


def _single_valued(conn: sqlite3.Connection) -> SingleValued:
    declared = frozenset(r[0] for r in conn.execute("SELECT name FROM relations WHERE functional = 1"))
    # a merge supersedes the facts of the entity merged away: that says nothing of the relation
    superseded = frozenset(r[0] for r in conn.execute(
        """SELECT DISTINCT f.relation FROM facts f
           JOIN entities s ON s.id = f.subject_id JOIN entities o ON o.id = f.object_id
           WHERE s.merged_into IS NULL AND o.merged_into IS NULL
             AND f.id IN (SELECT fact_id FROM fact_versions WHERE status = 'superseded')"""))
    return SingleValued(declared, superseded)


def _single_valued_in(snapshot: Mapping[str, Any]) -> SingleValued:
    merged = {e["id"] for e in snapshot["entities"] if e["merged_into"]}
    declared = {r["name"] for r in snapshot.get("ontology", {}).get("relations", []) if r.get("functional")}
    declared |= {f["relation"] for f in snapshot["facts"] if f.get("functional")}
    superseded = {f["relation"] for f in snapshot["facts"]
                  if f["subject"] not in merged and f["object"] not in merged
                  and any(v["status"] == "superseded" for v in f.get("history") or [f])}
    return SingleValued(frozenset(declared), frozenset(superseded))


# A current fact as the worklist reads it:
# (id, subject id, relation, subject name, object name, first recorded at, has evidence)
Current = tuple[str, str, str, str, str, str, bool]


def _split(current: list[Current]) -> tuple[list[Record], list[Unsupported]]:
    """The current facts that can be part of a hotspot, as records, and those without evidence.
    Only the first need a record: at 300,000 facts, making one for each cost more than the rest of
    the worklist."""
    counts = Counter((f[1], f[2]) for f in current)
    hot = [{"id": f[0], "subject_id": f[1], "relation": f[2], "subject": f[3], "object": f[4], "recorded_at": f[5]}
           for f in current if counts[f[1], f[2]] > 1]
    return hot, [(f[0], f[3], f[2], f[4]) for f in current if not f[6]]


def _all_current_facts(conn: sqlite3.Connection) -> list[Current]:
    """Every current fact, read in three plain scans and joined here: SQLite's joins on text ids
    took 3.7 s at 300,000 facts (most of `memlens maintain` at 100,000 entities)."""
    rows = reads.tuple_cursor(conn)
    names = dict(rows.execute("SELECT id, name FROM entities"))
    first, current = {}, set()
    for fact_id, version, recorded_at, open_status in rows.execute(
            "SELECT fact_id, version, recorded_at, CASE WHEN retired_at IS NULL THEN status END FROM fact_versions"):
        if version == 1:
            first[fact_id] = recorded_at
        if open_status == "current":
            current.add(fact_id)
    return [(fact_id, subject, relation, names[subject], names[obj], first[fact_id], bool(has_evidence))
            for fact_id, subject, relation, obj, has_evidence in rows.execute(
                "SELECT id, subject_id, relation, object_id, evidence != '[]' FROM facts")
            if fact_id in current and fact_id in first and subject in names and obj in names]


def _worklist(
    current: list[Record], unsupported: list[Unsupported], entities: list[Record], open_contradictions: list[Record],
    dismissed: set[tuple[str, str]], single: SingleValued, relations: list[Spelling],
) -> list[Candidate]:
    """`current`: the current facts that may be in a hotspot (all of them will do); `unsupported`:
    those without evidence; `relations`: each relation as written, with the facts written so."""
    candidates = [*_hotspots(current, single), *_open_contradictions(open_contradictions), *_duplicates(entities),
                  *_similar(entities), *_relation_variants(relations), *_unsupported(unsupported)]
    return [c for c in candidates if (c.key, c.content) not in dismissed]


def _current_facts(conn: sqlite3.Connection, where: str = "", params: tuple = ()) -> list[sqlite3.Row]:
    return conn.execute(
        f"""SELECT f.id, f.subject_id, f.relation, f.evidence != '[]' AS has_evidence,
                  s.name AS subject, o.name AS object, first.recorded_at
           FROM facts f JOIN fact_versions v ON v.fact_id = f.id AND v.retired_at IS NULL
           JOIN fact_versions first ON first.fact_id = f.id AND first.version = 1
           JOIN entities s ON s.id = f.subject_id JOIN entities o ON o.id = f.object_id
           WHERE v.status = 'current' {where}""", params
    ).fetchall()


# Values stated together (one session) describe a set; values that came apart may be a change.
HOTSPOT_SPAN = timedelta(hours=12)


def _hotspots(current: list[Record], single: SingleValued) -> list[Candidate]:
    """Several current values for one subject of a relation that holds one value per subject: a
    declared functional one or one the ontology marks by name, or one that behaves like it (a value
    of it was replaced before) whose values were recorded at different times, so a later one may
    have replaced an earlier one. A service with three dependencies is no question."""
    groups: dict[tuple[str, str], list[Record]] = defaultdict(list)
    for row in current:
        if single.holds(row["relation"]):
            groups[(row["subject_id"], row["relation"])].append(row)
    return [
        Candidate(
            key=f"hotspot:{short(subject_id)}:{relation}",
            kind="hotspot",
            summary=f"{rows[0]['subject']} --{relation}--> " + " | ".join(r["object"] for r in rows),
            refs=(subject_id, *(r["id"] for r in rows)),
            content=content_of([r["id"] for r in rows]),
        )
        for (subject_id, relation), rows in sorted(
            (key, sorted(rows, key=lambda r: (r["object"], r["id"]))) for key, rows in groups.items() if len(rows) > 1
        )
        if single.said(relation) or _recorded_apart(rows)
    ]


def _recorded_apart(rows: list[Record]) -> bool:
    times = sorted(datetime.fromisoformat(r["recorded_at"].replace("Z", "+00:00")) for r in rows)
    return times[-1] - times[0] > HOTSPOT_SPAN


def _open_contradictions(rows: list[Record]) -> list[Candidate]:
    rows = sorted(rows, key=lambda r: (r["recorded_at"], r["id"]))
    return [
        Candidate(
            key=f"contradiction:{short(r['id'])}",
            kind="contradiction",
            summary=f"{short(r['fact_a'])} vs {short(r['fact_b'])} (confidence {r['confidence']:.2f}): {r['reason']}",
            refs=(r["id"], r["fact_a"], r["fact_b"]),
            content=content_of([r["fact_a"], r["fact_b"]]),
        )
        for r in rows
    ]


_NOT_LETTER_OR_DIGIT = re.compile(r"[\W_]+")


def _name_key(name: str) -> str:
    """Names that differ only in case, punctuation, spacing or a plural 's' share a key."""
    key = _NOT_LETTER_OR_DIGIT.sub("", name.casefold())
    return key[:-1] if len(key) > 3 and key.endswith("s") else key


def _duplicates(entities: list[Record]) -> list[Candidate]:
    groups: dict[str, list[Record]] = defaultdict(list)
    for row in sorted(entities, key=lambda e: (e["name"], e["id"])):
        key = _name_key(row["name"])
        if key:
            groups[key].append(row)
    return [
        Candidate(
            key="duplicate:" + ":".join(short(r["id"]) for r in rows),
            kind="duplicate",
            summary="maybe the same entity: " + ", ".join(f"{r['name']} ({r['type']})" for r in rows),
            refs=tuple(r["id"] for r in rows),
            content=content_of([r["id"] for r in rows]),
        )
        for _, rows in sorted(groups.items())
        if len(rows) > 1
    ]


def _similar(entities: list[Record]) -> list[Candidate]:
    """Pairs of entities of one type whose names the resolver calls near misses of each other (one
    name is every word of the other, or a few edits away: store/resolve.py), left out where the
    names are the same but for case and separators (a `duplicate` group says those)."""
    pairs = {(a, b): why for a, b, why in resolve.similar_pairs(
        [(e["id"], e["name"], e["type"]) for e in entities], skip=lambda x, y: _name_key(x) == _name_key(y))}
    named = {e["id"]: e for e in entities}
    return [
        Candidate(
            key=f"similar:{short(a)}:{short(b)}",
            kind="similar",
            summary=f"maybe the same {named[a]['type']}: {named[a]['name']}, {named[b]['name']} ({why})",
            refs=(a, b),
            content=content_of([a, b]),
        )
        for (a, b), why in sorted(pairs.items(), key=lambda pair: (named[pair[0][0]]["name"], named[pair[0][1]]["name"],
                                                                    pair[0]))
    ]


# A relation as written: (spelling, how many facts are written so, the first of them by id).
Spelling = tuple[str, int, str]


def _relation_spellings(conn: sqlite3.Connection) -> list[Spelling]:
    return _variants(conn.execute("SELECT relation, count(*), min(id) FROM facts GROUP BY relation").fetchall())


def _spellings_in(facts: list[Record]) -> list[Spelling]:
    counts: Counter[str] = Counter()
    first: dict[str, str] = {}
    for fact in facts:
        if fact["relation"] is not None:
            counts[fact["relation"]] += 1
            first[fact["relation"]] = min(first.get(fact["relation"], fact["id"]), fact["id"])
    return _variants([(relation, count, first[relation]) for relation, count in counts.items()])


def _variants(spellings: list[Any]) -> list[Spelling]:
    """The spellings of relations that more than one spelling stands for (ontology.relation_name)."""
    by_name: dict[str, list[Spelling]] = defaultdict(list)
    for relation, count, first in spellings:
        by_name[relation_name(relation)].append((relation, count, first))
    return sorted(spelling for group in by_name.values() if len(group) > 1 for spelling in group)


def _relation_variants(spellings: list[Spelling]) -> list[Candidate]:
    """A relation written more than one way (`owned by` beside `owned_by`, from before every write
    stored snake case, or from an import): facts of one relation that its queries and its
    functional order see apart."""
    groups: dict[str, list[Spelling]] = defaultdict(list)
    for spelling in spellings:
        groups[relation_name(spelling[0])].append(spelling)
    return [
        Candidate(
            key=f"relation:{name}",
            kind="relation",
            summary=f"{name} is also written " + ", ".join(
                f"{relation!r} ({count:,} {'fact' if count == 1 else 'facts'})"
                for relation, count, _ in others),
            refs=tuple(first for _, _, first in others),
            content=content_of([relation for relation, _, _ in spellings_of]),
        )
        for name, spellings_of in sorted(groups.items())
        for others in [[s for s in spellings_of if s[0] != name]]
        if name and others
    ]


def stale_evidence(conn: sqlite3.Connection, repository: Path, *,
                   include_dismissed: bool = False) -> tuple[list[Candidate], str | None]:
    """Current facts whose evidence points into the repository at a file gone, or at lines git says
    changed after the fact was recorded (store/evidence.py); and a note when not all was checked."""
    with db.read(conn):
        rows = conn.execute(
            """SELECT f.id, s.name, f.relation, o.name, first.recorded_at, f.evidence
               FROM facts f JOIN fact_versions v ON v.fact_id = f.id AND v.retired_at IS NULL
               JOIN fact_versions first ON first.fact_id = f.id AND first.version = 1
               JOIN entities s ON s.id = f.subject_id JOIN entities o ON o.id = f.object_id
               WHERE v.status = 'current' AND f.evidence != '[]' ORDER BY f.id""").fetchall()
        dismissed = set() if include_dismissed else {
            (r[0], r[1]) for r in conn.execute("SELECT key, content FROM dismissals WHERE kind = 'stale'")}
    facts = [(row[0], f"{row[1]} --{row[2]}--> {row[3]}", row[4], tuple(json.loads(row[5]))) for row in rows]
    return _stale(facts, repository, dismissed)


def stale_evidence_in(snapshot: Mapping[str, Any], repository: Path) -> tuple[list[Candidate], str | None]:
    """`stale_evidence`, of a snapshot's facts and dismissals."""
    name = {e["id"]: e["name"] for e in snapshot["entities"]}.get
    facts = [(f["id"], f"{name(f['subject'])} --{f['relation']}--> {name(f['object'])}", f["recorded_at"],
              tuple(f["evidence"])) for f in snapshot["facts"] if f["status"] == "current" and f["evidence"]]
    dismissed = {(d["key"], d["content"]) for d in snapshot["dismissals"] if d["kind"] == "stale"}
    return _stale(sorted(facts), repository, dismissed)


def _stale(facts: list[tuple[str, str, str, tuple[str, ...]]], repository: Path,
           dismissed: set[tuple[str, str]]) -> tuple[list[Candidate], str | None]:
    checked = evidence.check((evidence.Cited(fid, recorded_at, said) for fid, _, recorded_at, said in facts), repository)
    by_fact: dict[str, list[evidence.Stale]] = defaultdict(list)
    for stale in checked.stale:
        by_fact[stale.fact_id].append(stale)
    labels = {fid: label for fid, label, _, _ in facts}
    evidence_of = {fid: said for fid, _, _, said in facts}
    candidates = [
        Candidate(
            key=f"stale:{short(fid)}",
            kind="stale",
            summary=f"{labels[fid]}: " + "; ".join(f"{s.citation} {s.why}" for s in stales),
            refs=(fid,),
            content=_cited(fid, evidence_of[fid]),
        )
        for fid, stales in sorted(by_fact.items())
    ]
    return [c for c in candidates if (c.key, c.content) not in dismissed], checked.note


def _cited(fact_id: str, said: Iterable[str]) -> str:
    """What a stale-evidence candidate covers: the fact and what it cites. Dismissed ("it still
    holds"), it opens again when the fact cites something new; a dismissal needs no repository."""
    return content_of([fact_id, *sorted(text for text in said if evidence.citation(text))])


# A current fact without evidence as the worklist needs it: (id, subject name, relation, object name).
# Tuples, not records: at 100,000 entities without evidence there are 270,000 of them.
Unsupported = tuple[str, str, str, str]


def _without_evidence(current: list[Record]) -> list[Unsupported]:
    return [(r["id"], r["subject"], r["relation"], r["object"]) for r in current if not r["has_evidence"]]


def _unsupported(facts: list[Unsupported]) -> list[Candidate]:
    """Current facts with no evidence: nobody can check where they came from."""
    return [
        Candidate(
            key=f"unsupported:{short(fact_id)}",
            kind="unsupported",
            summary=f"{subject} --{relation}--> {obj} has no evidence",
            refs=(fact_id,),
            content=content_of([fact_id]),
        )
        for fact_id, subject, relation, obj in sorted(facts)
    ]


def dismiss(tx: Tx, key: str, reason: str, *, repository: Path | None = None) -> Candidate:
    """Decline a candidate for what it covers now; a contradiction dismissed is resolved.
    `repository`: where a stale-evidence candidate is found (it is no candidate elsewhere)."""
    if not reason or not reason.strip():
        raise InvalidInput("say why the candidate is fine as it is (--reason)")
    open_candidates = _open_candidates_keyed(tx.conn, key, repository)
    matches = [c for c in open_candidates if c.key == key] or [c for c in open_candidates if c.key.startswith(key)]
    if not matches:
        raise NotFound(f"no open maintenance candidate {key!r}; `memlens maintain` lists them")
    if len(matches) > 1:
        raise Ambiguous(f"{key!r} matches {len(matches)} candidates; give the whole key")
    candidate = matches[0]
    tx.conn.execute(
        "INSERT INTO dismissals (key, kind, content, reason, actor, at) VALUES (?, ?, ?, ?, ?, ?)",
        (candidate.key, candidate.kind, candidate.content, reason.strip(), tx.actor, tx.at),
    )
    tx.log("dismiss", "dismissal", list(candidate.refs), key=candidate.key, content=candidate.content)
    if candidate.kind == "contradiction":
        contradictions.resolve(tx, candidate.refs[0], "dismissed", reason.strip())
    return candidate


# -- the candidates one key can name ---------------------------------------------------------------
# `dismiss` needs only the open candidates whose key starts with the one given: built from the
# rows their keys name (a fact, a contradiction, a subject's facts) instead of the whole worklist,
# which took 0.5 s at 10,000 entities.

def _open_candidates_keyed(conn: sqlite3.Connection, key: str, repository: Path | None = None) -> list[Candidate]:
    """The open candidates whose key starts with `key`, in worklist order."""
    found = []
    for kind, build in (("hotspot", _hotspots_keyed), ("contradiction", _contradictions_keyed),
                        ("duplicate", _duplicates_keyed), ("similar", _similar_keyed),
                        ("relation", _relations_keyed), ("unsupported", _unsupported_keyed)):
        head = kind + ":"
        if key.startswith(head):
            found += build(conn, key[len(head):])
        elif head.startswith(key):  # every candidate of the kind matches
            found += build(conn, "")
    if repository is not None and ("stale:".startswith(key) or key.startswith("stale:")):
        found += stale_evidence(conn, repository, include_dismissed=True)[0]
    elif key.startswith("stale:"):   # no repository here: the fact and what it cites say what is covered
        found += _stale_keyed(conn, key[len("stale:"):])
    found = [c for c in found if c.key.startswith(key)]
    dismissed = {(r[0], r[1]) for key_ in sorted({c.key for c in found})
                 for r in conn.execute("SELECT key, content FROM dismissals WHERE key = ?", (key_,))}
    return [c for c in found if (c.key, c.content) not in dismissed]


def _id_glob(prefix: str) -> str:
    """A GLOB pattern for ids starting with `prefix` (SQLite serves it from the id's index)."""
    return "".join(f"[{ch}]" if ch in "*?[" else ch for ch in prefix) + "*"


def _unsupported_keyed(conn: sqlite3.Connection, rest: str) -> list[Candidate]:
    if len(rest) > SHORT:
        return []
    rows = _current_facts(conn, "AND f.evidence = '[]' AND f.id GLOB ?", (_id_glob(rest),))
    return _unsupported(_without_evidence(rows))


def _contradictions_keyed(conn: sqlite3.Connection, rest: str) -> list[Candidate]:
    return _open_contradictions(conn.execute(
        """SELECT id, fact_a, fact_b, reason, confidence, recorded_at FROM contradictions
           WHERE resolved_at IS NULL AND id GLOB ?""", (_id_glob(rest[:SHORT]),)).fetchall())


def _hotspots_keyed(conn: sqlite3.Connection, rest: str) -> list[Candidate]:
    """Keys are hotspot:<subject id, short>:<relation>: read the facts of the subjects it can name."""
    subject = rest[:SHORT]
    rows = _current_facts(conn, "AND f.subject_id GLOB ?", (_id_glob(subject),))
    return _hotspots(rows, _single_valued(conn))


def _duplicates_keyed(conn: sqlite3.Connection, _rest: str) -> list[Candidate]:
    # A group is found by its names' key, which only the names themselves give: read them all.
    return _duplicates(_named_entities(conn))


def _similar_keyed(conn: sqlite3.Connection, _rest: str) -> list[Candidate]:
    return _similar(_named_entities(conn))


def _relations_keyed(conn: sqlite3.Connection, _rest: str) -> list[Candidate]:
    return _relation_variants(_relation_spellings(conn))


def _stale_keyed(conn: sqlite3.Connection, rest: str) -> list[Candidate]:
    """A stale-evidence key's candidate where no repository can say whether it is stale: a current
    fact of that id that cites the repository, as the worklist would cover it."""
    if not rest or len(rest) > SHORT:
        return []
    rows = conn.execute(
        """SELECT f.id, f.evidence FROM facts f JOIN fact_versions v ON v.fact_id = f.id AND v.retired_at IS NULL
           WHERE v.status = 'current' AND f.id GLOB ? ORDER BY f.id""", (_id_glob(rest),)).fetchall()
    return [Candidate(f"stale:{short(row[0])}", "stale", "", (row[0],), _cited(row[0], json.loads(row[1])))
            for row in rows if any(evidence.citation(text) for text in json.loads(row[1]))]
