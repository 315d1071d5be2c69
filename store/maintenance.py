"""Maintenance: one worklist of candidates for a person (or agent) to judge, minus dismissals."""
from __future__ import annotations

import hashlib
import re
import sqlite3
from collections import defaultdict
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from . import contradictions
from .db import Tx
from .errors import Ambiguous, InvalidInput, NotFound
from .ids import short


@dataclass(frozen=True)
class Candidate:
    """Something maintenance wants judged. `content` hashes what it covers, so news re-opens it."""

    key: str
    kind: str  # hotspot | contradiction | duplicate | unsupported
    summary: str
    refs: tuple[str, ...]
    content: str

    def as_dict(self) -> dict:
        return dict(asdict(self), refs=list(self.refs))


def _content(ids: list[str]) -> str:
    return "sha256:" + hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()


def worklist(conn: sqlite3.Connection, *, include_dismissed: bool = False) -> list[Candidate]:
    current = _current_facts(conn)
    candidates = [*_hotspots(current), *_open_contradictions(conn), *_duplicates(conn), *_unsupported(current)]
    if include_dismissed:
        return candidates
    dismissed = {(r[0], r[1]) for r in conn.execute("SELECT key, content FROM dismissals")}
    return [c for c in candidates if (c.key, c.content) not in dismissed]


def _current_facts(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    return conn.execute(
        """SELECT f.id, f.subject_id, f.relation, f.object_id, f.evidence, s.name AS subject, o.name AS object,
                  first.recorded_at
           FROM facts f JOIN fact_versions v ON v.fact_id = f.id AND v.retired_at IS NULL
           JOIN fact_versions first ON first.fact_id = f.id AND first.version = 1
           JOIN entities s ON s.id = f.subject_id JOIN entities o ON o.id = f.object_id
           WHERE v.status = 'current'"""
    ).fetchall()


# Values stated together (one session) describe a set; values that came apart may be a change.
HOTSPOT_SPAN = timedelta(hours=12)


def _hotspots(current: list[sqlite3.Row]) -> list[Candidate]:
    """Several current values for one subject and relation, recorded at different times:
    maybe a later one replaced an earlier one."""
    groups: dict[tuple[str, str], list[sqlite3.Row]] = defaultdict(list)
    for row in current:
        groups[(row["subject_id"], row["relation"])].append(row)
    return [
        Candidate(
            key=f"hotspot:{short(subject_id)}:{relation}",
            kind="hotspot",
            summary=f"{rows[0]['subject']} --{relation}--> " + " | ".join(r["object"] for r in rows),
            refs=(subject_id, *(r["id"] for r in rows)),
            content=_content([r["id"] for r in rows]),
        )
        for (subject_id, relation), rows in sorted(
            (key, sorted(rows, key=lambda r: (r["object"], r["id"]))) for key, rows in groups.items() if len(rows) > 1
        )
        if _recorded_apart(rows)
    ]


def _recorded_apart(rows: list[sqlite3.Row]) -> bool:
    times = sorted(datetime.fromisoformat(r["recorded_at"].replace("Z", "+00:00")) for r in rows)
    return times[-1] - times[0] > HOTSPOT_SPAN


def _open_contradictions(conn: sqlite3.Connection) -> list[Candidate]:
    rows = conn.execute(
        "SELECT id, fact_a, fact_b, reason, confidence FROM contradictions WHERE resolved_at IS NULL ORDER BY recorded_at, id"
    ).fetchall()
    return [
        Candidate(
            key=f"contradiction:{short(r['id'])}",
            kind="contradiction",
            summary=f"{short(r['fact_a'])} vs {short(r['fact_b'])} ({r['confidence']:.2f}): {r['reason']}",
            refs=(r["id"], r["fact_a"], r["fact_b"]),
            content=_content([r["fact_a"], r["fact_b"]]),
        )
        for r in rows
    ]


def _name_key(name: str) -> str:
    """Names that differ only in case, punctuation, spacing or a plural 's' share a key."""
    key = re.sub(r"[\W_]+", "", name.casefold())
    return key[:-1] if len(key) > 3 and key.endswith("s") else key


def _duplicates(conn: sqlite3.Connection) -> list[Candidate]:
    groups: dict[str, list[sqlite3.Row]] = defaultdict(list)
    for row in conn.execute("SELECT id, name, type FROM entities WHERE merged_into IS NULL ORDER BY name, id"):
        key = _name_key(row["name"])
        if key:
            groups[key].append(row)
    return [
        Candidate(
            key="duplicate:" + ":".join(short(r["id"]) for r in rows),
            kind="duplicate",
            summary="maybe the same entity: " + ", ".join(f"{r['name']} ({r['type']})" for r in rows),
            refs=tuple(r["id"] for r in rows),
            content=_content([r["id"] for r in rows]),
        )
        for _, rows in sorted(groups.items())
        if len(rows) > 1
    ]


def _unsupported(current: list[sqlite3.Row]) -> list[Candidate]:
    """Current facts with no evidence: nobody can check where they came from."""
    return [
        Candidate(
            key=f"unsupported:{short(r['id'])}",
            kind="unsupported",
            summary=f"{r['subject']} --{r['relation']}--> {r['object']} has no evidence",
            refs=(r["id"],),
            content=_content([r["id"]]),
        )
        for r in sorted(current, key=lambda r: r["id"])
        if r["evidence"] == "[]"
    ]


def dismiss(tx: Tx, key: str, reason: str) -> Candidate:
    """Decline a candidate for what it covers now; a contradiction dismissed is resolved."""
    if not reason or not reason.strip():
        raise InvalidInput("say why the candidate is fine as it is (--reason)")
    open_candidates = worklist(tx.conn)
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
