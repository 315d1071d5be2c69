"""Snapshot builders for the viewer's tests and benchmark.

The store is written in parallel, so the viewer's tests build `memlens-snapshot/1` dicts by code
(see docs/snapshot-format.md). `SnapshotBuilder` replays writes the way the store records them:
every write advances the record clock, appends a ledger row and a history version, so the
snapshots are internally consistent (record times, history, contradictions, stats).
"""

from __future__ import annotations

import base64
import copy
import gzip
import hashlib
import json
import random
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from html.parser import HTMLParser
from typing import Any, Iterator

import pytest

from memlens.store.brief_screen import withheld_facts

NAMESPACE = uuid.UUID("6f1c1f7e-3c55-4c0e-9b7a-4d1c2f6a9e10")
DEFAULT_TYPES = ["Concept", "Library", "Module", "Organization", "Person", "Service", "Team"]


def record_time(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def entity_id(name: str) -> str:
    return str(uuid.uuid5(NAMESPACE, " ".join(name.casefold().split())))


def fact_id(subject: str, relation: str, obj: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"{subject}|{relation}|{obj}"))


@dataclass
class SnapshotBuilder:
    """Builds a consistent snapshot by replaying store writes against a ticking record clock."""

    dataset: str
    start: datetime = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
    tick: timedelta = timedelta(minutes=7)
    types: list[str] = field(default_factory=lambda: list(DEFAULT_TYPES))
    relations: dict[str, bool] = field(default_factory=dict)
    entities: dict[str, dict[str, Any]] = field(default_factory=dict)
    facts: dict[str, dict[str, Any]] = field(default_factory=dict)
    contradictions: dict[str, dict[str, Any]] = field(default_factory=dict)
    dismissals: list[dict[str, Any]] = field(default_factory=list)
    maintenance: list[dict[str, Any]] = field(default_factory=list)
    ledger: list[dict[str, Any]] = field(default_factory=list)
    briefs: list[dict[str, Any]] = field(default_factory=list)
    _clock: datetime | None = None

    # -- ids (a subclass may give the store's own) -------------------------------------------
    def entity_id(self, name: str) -> str:
        return entity_id(name)

    def fact_id(self, subject: str, relation: str, obj: str) -> str:
        return fact_id(subject, relation, obj)

    # -- clock and ledger -------------------------------------------------------------------
    def now(self) -> str:
        self._clock = self.start if self._clock is None else self._clock + self.tick
        return record_time(self._clock)

    def _log(self, at: str, actor: str, action: str, kind: str, refs: list[str],
             payload: dict[str, Any] | None = None) -> None:
        self.ledger.append({"seq": len(self.ledger) + 1, "at": at, "actor": actor, "action": action,
                            "kind": kind, "refs": refs, "payload": payload or {}})

    # -- ontology ---------------------------------------------------------------------------
    def add_type(self, name: str, actor: str = "cli:alice") -> None:
        if name not in self.types:
            self.types.append(name)
        self._log(self.now(), actor, "add_type", "type", [], {"type": name})

    def declare_relation(self, name: str, functional: bool = False, actor: str = "cli:alice") -> None:
        self.relations[name] = functional
        if functional:
            self._log(self.now(), actor, "declare_functional", "relation", [], {"relation": name})

    # -- entities ---------------------------------------------------------------------------
    def entity(self, name: str, type_: str, description: str = "", actor: str = "cli:alice") -> str:
        at = self.now()
        eid = self.entity_id(name)
        self.entities[eid] = {"id": eid, "name": name, "type": type_, "description": description,
                              "created_at": at, "updated_at": at, "merged_into": None, "merged_at": None}
        self._log(at, actor, "entity", "entity", [eid], {"type": type_})
        return eid

    def merge(self, source: str, target: str, actor: str = "cli:alice") -> None:
        """Merges `source` into `target`: the store repoints facts and keeps the merged entity."""
        at = self.now()
        self.entities[source].update(merged_into=target, merged_at=at, updated_at=at)
        for fact in self.facts.values():
            if fact["subject"] == source:
                fact["subject"] = target
            if fact["object"] == source:
                fact["object"] = target
        self._log(at, actor, "merge", "entity", [source, target], {})

    # -- facts ------------------------------------------------------------------------------
    def assert_fact(self, subject: str, relation: str, obj: str, *, description: str = "",
                    evidence: list[str] | None = None, actor: str = "agent:claude",
                    valid_from: str | None = None, valid_to: str | None = None) -> str:
        at = self.now()
        fid = self.fact_id(subject, relation, obj)
        functional = self.relations.get(relation, False)
        self.facts[fid] = {
            "id": fid, "subject": subject, "relation": relation, "object": obj,
            "description": description, "evidence": list(evidence or []), "actor": actor,
            "functional": functional, "status": "current", "superseded_by": None, "reason": None,
            "contested": False, "contradictions": [], "valid_from": valid_from, "valid_to": valid_to,
            "recorded_at": at, "retired_at": None, "reassertions": 0,
            "history": [self._version(at, "current", None, None, valid_from, valid_to)],
        }
        self._log(at, actor, "assert", "fact", [fid, subject, obj],
                  {"status": "current", "valid_from": valid_from, "valid_to": valid_to})
        return fid

    @staticmethod
    def _version(at: str, status: str, superseded_by: str | None, reason: str | None,
                 valid_from: str | None, valid_to: str | None) -> dict[str, Any]:
        return {"from": at, "to": None, "status": status, "superseded_by": superseded_by,
                "reason": reason, "valid_from": valid_from, "valid_to": valid_to}

    def _change(self, fid: str, at: str, status: str, superseded_by: str | None = None,
                reason: str | None = None, valid_to: str | None = None) -> None:
        fact = self.facts[fid]
        fact["history"][-1]["to"] = at
        if valid_to is not None:
            fact["valid_to"] = valid_to
        fact.update(status=status, superseded_by=superseded_by, reason=reason,
                    retired_at=None if status == "current" else at)
        fact["history"].append(self._version(at, status, superseded_by, reason,
                                             fact["valid_from"], fact["valid_to"]))

    def supersede(self, old: str, new: str, reason: str, actor: str = "agent:claude") -> None:
        """Supersedes `old` by `new`; the old value's validity ends where the new one starts."""
        at = self.now()
        new_from = self.facts[new]["valid_from"]
        closes = new_from if self.facts[old]["valid_to"] is None else None
        self._change(old, at, "superseded", new, reason, valid_to=closes)
        self._resolve_open_between(old, new, at, "superseded", reason)
        self._log(at, actor, "supersede", "fact", [old, new], {"status": "superseded"})

    def file_late_value(self, late: str, present: str, reason: str, actor: str = "agent:claude") -> None:
        """An older value that arrives late is filed as history behind the present one."""
        at = self.now()
        fact = self.facts[late]
        fact["history"] = [self._version(fact["recorded_at"], "superseded", present, reason,
                                         fact["valid_from"], fact["valid_to"])]
        fact.update(status="superseded", superseded_by=present, reason=reason,
                    retired_at=fact["recorded_at"])
        self._log(at, actor, "supersede", "fact", [late, present], {"status": "superseded", "late": True})

    def retract(self, fid: str, reason: str, actor: str = "cli:alice") -> None:
        """As the store does, retracting resolves the fact's open contradictions."""
        at = self.now()
        self._change(fid, at, "retracted", reason=reason)
        for contradiction in self.contradictions.values():
            if contradiction["resolved_at"] is None and fid in contradiction["facts"]:
                self._resolve_open_between(*contradiction["facts"], at, "retracted", reason)
        self._log(at, actor, "retract", "fact", [fid], {"status": "retracted"})

    def reassert(self, fid: str, actor: str = "agent:claude") -> None:
        """Re-asserting keeps the status (supersession holds); it only counts."""
        at = self.now()
        self.facts[fid]["reassertions"] += 1
        self._log(at, actor, "reassert", "fact", [fid], {"status": self.facts[fid]["status"]})

    def forget(self, fid: str, actor: str = "cli:alice") -> None:
        """Leaves a tombstone: ids, statuses and dates; the text is gone."""
        at = self.now()
        fact = self.facts[fid]
        fact["history"][-1]["to"] = at
        history = [{**v, "superseded_by": None, "reason": None} for v in fact["history"]]
        history.append(self._version(at, "forgotten", None, None, None, None))
        fact.update(relation=None, object=None, description=None, evidence=[], reason=None,
                    superseded_by=None, status="forgotten", retired_at=at, history=history,
                    valid_from=None, valid_to=None, contested=False, actor=None)
        self._log(at, actor, "forget", "fact", [fid], {"status": "forgotten"})

    # -- contradictions, maintenance ------------------------------------------------------------
    def contest(self, first: str, second: str, reason: str, confidence: float,
                actor: str = "agent:claude") -> str:
        at = self.now()
        cid = str(uuid.uuid5(NAMESPACE, f"contradiction|{first}|{second}"))
        self.contradictions[cid] = {"id": cid, "facts": [first, second], "reason": reason,
                                    "confidence": confidence, "actor": actor, "recorded_at": at,
                                    "resolved_at": None, "resolution": None, "resolution_reason": None}
        for fid in (first, second):
            self.facts[fid]["contested"] = True
            self.facts[fid]["contradictions"].append(cid)
        self._log(at, actor, "contest", "contradiction", [cid, first, second], {"confidence": confidence})
        return cid

    def _resolve_open_between(self, a: str, b: str, at: str, resolution: str, reason: str) -> None:
        for contradiction in self.contradictions.values():
            if contradiction["resolved_at"] is None and set(contradiction["facts"]) == {a, b}:
                contradiction.update(resolved_at=at, resolution=resolution, resolution_reason=reason)
                for fid in contradiction["facts"]:
                    self.facts[fid]["contested"] = False

    def dismiss(self, key: str, kind: str, covered: list[str], reason: str, actor: str = "cli:alice") -> None:
        at = self.now()
        content = "sha256:" + hashlib.sha256("\n".join(sorted(covered)).encode()).hexdigest()
        self.dismissals.append({"key": key, "kind": kind, "content": content, "reason": reason,
                                "actor": actor, "at": at})
        self._log(at, actor, "dismiss", "maintenance", list(covered), {"key": key})

    def worklist_item(self, key: str, kind: str, summary: str, refs: list[str]) -> None:
        content = "sha256:" + hashlib.sha256("\n".join(sorted(refs)).encode()).hexdigest()
        self.maintenance.append({"key": key, "kind": kind, "summary": summary, "refs": refs,
                                 "content": content})

    def give_brief(self, host: str, session: str | None, source: str | None, facts: list[str]) -> None:
        """A brief given at a session's start: no ledger row (giving one is not a write)."""
        text = "\n".join(facts)
        self.briefs.append({"at": self.now(), "host": host, "session": session, "source": source,
                            "hash": "sha256:" + hashlib.sha256(self.ledger[-1]["at"].encode()).hexdigest(),
                            "facts": list(facts),
                            "digest": "sha256:" + hashlib.sha256(text.encode()).hexdigest(), "chars": len(text)})

    # -- output -----------------------------------------------------------------------------
    def build(self) -> dict[str, Any]:
        names = {eid: e["name"] for eid, e in self.entities.items()}
        entities = sorted(self.entities.values(), key=lambda e: (e["name"], e["id"]))
        facts = sorted(self.facts.values(), key=lambda f: (
            names.get(f["subject"] or "", ""), f["relation"] or "", names.get(f["object"] or "", ""), f["id"]))
        statuses = [f["status"] for f in facts]
        contradictions = sorted(self.contradictions.values(), key=lambda c: (c["recorded_at"], c["id"]))
        body: dict[str, Any] = {
            "format": "memlens-snapshot/1",
            "dataset": self.dataset,
            "dataset_flag": {"option": "-d", "value": self.dataset},
            "generated_at": self.ledger[-1]["at"] if self.ledger else record_time(self.start),
            "hash": "",
            "memlens_version": "0.1.0",
            "ontology": {"types": sorted(self.types),
                         "relations": [{"name": n, "functional": f} for n, f in sorted(self.relations.items())]},
            "entities": entities,
            "facts": facts,
            "contradictions": contradictions,
            "dismissals": list(self.dismissals),
            "maintenance": list(self.maintenance),
            "ledger": list(self.ledger),
            "briefs": list(self.briefs),
            "withheld_from_briefs": withheld_facts(facts, names),
            "stats": {
                "entities": sum(1 for e in entities if e["merged_into"] is None),
                "facts": len(facts),
                "current": statuses.count("current"),
                "superseded": statuses.count("superseded"),
                "retracted": statuses.count("retracted"),
                "forgotten": statuses.count("forgotten"),
                "contested": sum(1 for f in facts if f["contested"]),
                "open_contradictions": sum(1 for c in contradictions if c["resolved_at"] is None),
                "dismissals": len(self.dismissals),
                "ledger": len(self.ledger),
                "types": len(self.types),
            },
        }
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
        body["hash"] = "sha256:" + hashlib.sha256(canonical).hexdigest()
        return body


@dataclass(frozen=True)
class ProjectIds:
    """Ids of the facts in `project_snapshot` that tests look at."""

    alice: str
    alice_at_globex: str
    alice_at_acme: str
    alice_at_initech: str
    payments_needs_ledger: str
    ledger_needs_payments: str
    forgotten_fact: str
    merged_entity: str
    payments_api: str


def build_project(actor_prefix: str = "") -> tuple[SnapshotBuilder, ProjectIds]:
    """A small software project's memory with every feature of the format in use."""
    b = SnapshotBuilder(dataset="acme-payments-1a2b3c4d")
    b.declare_relation("works_at", functional=True)
    b.declare_relation("owned_by", functional=True)
    for relation in ("depends_on", "uses", "implements", "maintains", "part_of", "calls"):
        b.declare_relation(relation)
    b.add_type("Database")

    alice = b.entity("alice", "Person", "Staff engineer; leads the payments rewrite.")
    bob = b.entity("bob", "Person", "On-call for the ledger.", actor="cli:bob")
    carol = b.entity("carol", "Person", "Security reviewer.")
    dave = b.entity("dave", "Person", "Contractor, 2025.")
    acme = b.entity("Acme Corp", "Organization", "The company this repository belongs to.")
    globex = b.entity("Globex", "Organization", "Former employer of several engineers.")
    initech = b.entity("Initech", "Organization", "")
    payments_team = b.entity("Payments Team", "Team", "Owns checkout and refunds.")
    platform_team = b.entity("Platform Team", "Team", "Owns shared infrastructure.")
    payments = b.entity("payments-api", "Service", "HTTP API for charges and refunds.")
    auth = b.entity("auth-service", "Service", "Issues and verifies session tokens.")
    ledger = b.entity("ledger-service", "Service", "Double-entry ledger of every money movement.")
    notify = b.entity("notification-worker", "Service", "Sends receipts by e-mail.", actor="hook")
    tokens = b.entity("auth.tokens", "Module", "JWT signing and rotation.")
    refunds = b.entity("payments.refunds", "Module", "Refund workflow and idempotency checks.")
    reconcile = b.entity("ledger.reconcile", "Module", "Nightly reconciliation job.")
    sqlalchemy = b.entity("SQLAlchemy", "Library", "ORM used by the Python services.")
    redis = b.entity("Redis", "Library", "Cache and rate-limit store.")
    postgres = b.entity("PostgreSQL", "Database", "Primary database.")
    idem = b.entity("idempotency keys", "Concept", "Client-supplied keys that make retries safe.")
    idem_dupe = b.entity("idempotency key", "Concept", "")
    payment_api_dupe = b.entity("Payment API", "Service", "Duplicate created from a transcript.",
                                actor="agent:claude")

    pr = "https://github.com/acme/payments/pull/42"
    globex_fact = b.assert_fact(alice, "works_at", globex, description="alice works at Globex",
                                evidence=["user said 2026-03-02"], valid_from="2024-03-01")
    b.assert_fact(alice, "maintains", payments, evidence=["repo://CODEOWNERS#L3"], valid_from="2025-06-01")
    b.assert_fact(bob, "works_at", acme, evidence=["repo://docs/team.md#L12"], valid_from="2023-09-01",
                  actor="cli:bob")
    b.assert_fact(bob, "maintains", ledger, evidence=["repo://CODEOWNERS#L7"], actor="cli:bob")
    b.assert_fact(carol, "works_at", acme, evidence=["user said 2026-03-02"], valid_from="2021-02-01")
    dave_globex = b.assert_fact(dave, "works_at", globex, evidence=["user said 2026-03-03"])
    b.assert_fact(payments, "uses", sqlalchemy, description="ORM for charges tables",
                  evidence=["repo://payments/db.py#L1-L30"])
    b.assert_fact(payments, "uses", redis, evidence=["repo://payments/ratelimit.py#L5"])
    b.assert_fact(auth, "uses", redis, description="token revocation list lives in Redis",
                  evidence=["repo://auth/revoke.py#L10-L20", "http://wiki.acme.internal/auth"])
    b.assert_fact(auth, "uses", sqlalchemy, evidence=["repo://auth/models.py#L1"])
    b.assert_fact(ledger, "uses", postgres, evidence=["repo://ledger/settings.py#L40"])
    b.assert_fact(tokens, "part_of", auth, evidence=["repo://auth/tokens.py"])
    b.assert_fact(refunds, "part_of", payments, evidence=["repo://payments/refunds.py"])
    b.assert_fact(reconcile, "part_of", ledger, evidence=["repo://ledger/reconcile.py"])
    b.assert_fact(refunds, "implements", idem, description="refunds dedupe on the idempotency key",
                  evidence=["repo://payments/refunds.py#L88-L120", pr])
    b.assert_fact(payments, "calls", auth, evidence=["repo://payments/middleware.py#L14"])
    b.assert_fact(notify, "calls", ledger, evidence=["repo://notify/worker.py#L51"], actor="hook")
    b.assert_fact(payment_api_dupe, "calls", ledger, evidence=["transcript 2026-03-03"])
    platform_owner = b.assert_fact(payments, "owned_by", platform_team, evidence=["repo://OWNERS"],
                                   valid_from="2024-01-01")
    b.assert_fact(ledger, "owned_by", payments_team, evidence=["repo://OWNERS"], valid_from="2024-01-01")
    b.assert_fact(auth, "owned_by", platform_team, evidence=["repo://OWNERS"], valid_from="2023-05-01")
    forgotten = b.assert_fact(carol, "maintains", tokens, description="carol's private note",
                              evidence=["user said 2026-03-04"])

    # alice moves: Globex -> Acme (contested first, then superseded), then Initech arrives late.
    acme_fact = b.assert_fact(alice, "works_at", acme, description="alice joined Acme",
                              evidence=["https://acme.example/team/alice", "user said 2026-03-05"],
                              valid_from="2025-06-01", actor="agent:claude")
    b.contest(globex_fact, acme_fact, "two employers at once for a functional relation", 0.9)
    b.give_brief("claude-code", "session-1", "startup", [acme_fact, platform_owner, forgotten])
    b.supersede(globex_fact, acme_fact, "alice moved to Acme in June 2025")
    payments_team_owner = b.assert_fact(payments, "owned_by", payments_team, evidence=["repo://OWNERS#L2"],
                                        valid_from="2025-09-01", actor="cli:bob")
    b.supersede(platform_owner, payments_team_owner, "ownership moved with the payments re-org", actor="cli:bob")
    initech_fact = b.assert_fact(alice, "works_at", initech, description="alice worked at Initech",
                                 evidence=["user said 2026-03-06"], valid_from="2022-01-01",
                                 valid_to="2024-03-01")
    b.file_late_value(initech_fact, globex_fact, "older value arrived late; filed as history")
    b.reassert(globex_fact)

    needs_ledger = b.assert_fact(payments, "depends_on", ledger, description="charges post ledger entries",
                                 evidence=["repo://payments/charge.py#L201", pr])
    needs_payments = b.assert_fact(ledger, "depends_on", payments, description="ledger calls back for refunds",
                                   evidence=["transcript 2026-03-06"], actor="agent:claude")
    b.contest(needs_ledger, needs_payments, "a dependency cycle between payments-api and ledger-service", 0.7)
    b.retract(dave_globex, "wrong person: that was dave from another team")
    b.merge(payment_api_dupe, payments)
    b.forget(forgotten)
    b.give_brief("codex", None, None, [acme_fact, payments_team_owner, needs_ledger, needs_payments])
    b.dismiss(f"hotspot:{auth[:8]}:uses", "hotspot", sorted(
        f["id"] for f in b.facts.values() if f["subject"] == auth and f["relation"] == "uses"),
        "auth-service really uses both Redis and SQLAlchemy")
    b.worklist_item(f"contradiction:{needs_ledger[:8]}", "contradiction",
                    "payments-api and ledger-service depend on each other", [needs_ledger, needs_payments])
    b.worklist_item(f"duplicate:{idem[:8]}:{idem_dupe[:8]}", "duplicate",
                    "'idempotency key' looks like a duplicate of 'idempotency keys'", [idem, idem_dupe])
    unsupported = [f["id"] for f in b.facts.values() if f["status"] == "current" and not f["evidence"]]
    if unsupported:
        b.worklist_item("unsupported", "unsupported", "facts without evidence", unsupported)
    ids = ProjectIds(alice=alice, alice_at_globex=globex_fact, alice_at_acme=acme_fact,
                     alice_at_initech=initech_fact, payments_needs_ledger=needs_ledger,
                     ledger_needs_payments=needs_payments, forgotten_fact=forgotten,
                     merged_entity=payment_api_dupe, payments_api=payments)
    return b, ids


def project_snapshot() -> dict[str, Any]:
    """The small realistic snapshot."""
    return build_project()[0].build()


def project_ids() -> ProjectIds:
    return build_project()[1]


@dataclass(frozen=True)
class ProjectChanges:
    """The project before and after a few more writes, and `snapshot.diff.diff` between them."""

    old: dict[str, Any]
    new: dict[str, Any]
    changes: dict[str, Any]
    added_fact: str
    superseded_fact: str
    forgotten_fact: str
    forgotten_texts: tuple[str, ...]   # what the forgotten fact said: must appear nowhere new
    added_entity: str


def changed_project() -> ProjectChanges:
    """One fact added (with a new entity), one superseded, one forgotten since the project snapshot."""
    from memlens.store.snapshot.diff import diff

    b, ids = build_project()
    old = copy.deepcopy(b.build())
    payments, redis = entity_id("payments-api"), entity_id("Redis")
    ledger, platform = entity_id("ledger-service"), entity_id("Platform Team")
    kafka = b.entity("Kafka", "Library", "Event log the ledger publishes to.")
    added = b.assert_fact(ledger, "uses", kafka, description="ledger publishes entries to Kafka",
                          evidence=["repo://ledger/publish.py#L12"])
    old_owner = fact_id(ledger, "owned_by", entity_id("Payments Team"))
    new_owner = b.assert_fact(ledger, "owned_by", platform, evidence=["repo://OWNERS#L9"], valid_from="2026-02-01")
    b.supersede(old_owner, new_owner, "the ledger moved to the platform team")
    forgotten = fact_id(payments, "uses", redis)
    b.forget(forgotten)
    new = b.build()
    return ProjectChanges(old=old, new=new, changes=diff(old, new), added_fact=added, superseded_fact=old_owner,
                          forgotten_fact=forgotten, forgotten_texts=("repo://payments/ratelimit.py#L5",),
                          added_entity=kafka)


HOSTILE_PAYLOADS = (
    "</script><script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "javascript:alert(1)",
    "{{ 7*7 }}",
    "line\u2028sep\u2029para",
    "<!-- comment",
)


def hostile(label: str, index: int = 0) -> str:
    """A string that carries every hostile payload, rotated so each field differs."""
    payloads = HOSTILE_PAYLOADS[index % len(HOSTILE_PAYLOADS):] + HOSTILE_PAYLOADS[:index % len(HOSTILE_PAYLOADS)]
    return f"{label} " + " ".join(payloads)


def hostile_snapshot() -> dict[str, Any]:
    """Every string field a person or agent can write holds hostile text."""
    b = SnapshotBuilder(dataset=hostile("dataset"), types=[hostile("Type", 1), hostile("Kind", 2)])
    rel = hostile("rel", 3)
    fun = hostile("functional", 4)
    b.declare_relation(rel, actor=hostile("actor", 5))
    b.declare_relation(fun, functional=True, actor=hostile("actor", 0))
    first = b.entity(hostile("entity-a", 0), b.types[0], hostile("description", 1), actor=hostile("actor", 2))
    second = b.entity(hostile("entity-b", 1), b.types[1], hostile("description", 2), actor=hostile("actor", 3))
    third = b.entity(hostile("entity-c", 2), b.types[0], hostile("description", 3))
    evidence = ["javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)",
                "data:text/html,<script>alert(1)</script>", hostile("evidence", 4),
                "https://example.com/\"><script>alert(1)</script>"]
    a = b.assert_fact(first, rel, second, description=hostile("fact", 0), evidence=evidence,
                      actor=hostile("actor", 1), valid_from="2024-01-01")
    c = b.assert_fact(second, rel, first, description=hostile("fact", 2), evidence=evidence[:3],
                      actor=hostile("actor", 4))
    old = b.assert_fact(first, fun, second, description=hostile("old", 3), valid_from="2023-01-01",
                        actor=hostile("actor", 5))
    new = b.assert_fact(first, fun, third, description=hostile("new", 4), valid_from="2024-06-01",
                        actor=hostile("actor", 0))
    b.contest(a, c, hostile("reason", 1), 0.5, actor=hostile("actor", 2))
    b.supersede(old, new, hostile("superseded because", 2), actor=hostile("actor", 3))
    b.dismiss(hostile("key", 3), hostile("kind", 4), [a], hostile("dismissed because", 5),
              actor=hostile("actor", 0))
    b.worklist_item(hostile("key", 1), "hotspot", hostile("summary", 2), [first, a])
    return b.build()


def large_snapshot(entity_count: int = 10_000, facts_per_entity: int = 3, seed: int = 7) -> dict[str, Any]:
    """A generated store: hubs and a long tail, some history, contradictions and a ledger."""
    rng = random.Random(seed)
    b = SnapshotBuilder(dataset=f"generated-{entity_count}", tick=timedelta(seconds=3))
    b.types = [f"{t}" for t in DEFAULT_TYPES] + ["Database", "Endpoint", "File", "Function", "Ticket"]
    relations = ["calls", "depends_on", "uses", "part_of", "mentions", "implements"]
    for relation in relations:
        b.declare_relation(relation)
    b.declare_relation("owned_by", functional=True)
    ids: list[str] = []
    for n in range(entity_count):
        type_ = b.types[n % len(b.types)]
        ids.append(b.entity(f"{type_.lower()}-{n:05d}", type_, f"generated {type_.lower()} number {n}",
                            actor=("agent:claude", "cli:alice", "hook")[n % 3]))
    targets: list[str] = []
    fact_ids: list[str] = []
    target_facts = entity_count * facts_per_entity
    while len(fact_ids) < target_facts:
        subject = ids[rng.randrange(len(ids))]
        # preferential attachment: hubs emerge so the overview has something to show
        obj = targets[rng.randrange(len(targets))] if targets and rng.random() < 0.6 else ids[rng.randrange(len(ids))]
        relation = relations[rng.randrange(len(relations))] if rng.random() < 0.9 else "owned_by"
        if subject == obj or fact_id(subject, relation, obj) in b.facts:
            continue
        year = 2020 + rng.randrange(6)
        fid = b.assert_fact(subject, relation, obj, description=f"{relation} link {len(fact_ids)}",
                            evidence=[f"repo://src/file{rng.randrange(999)}.py#L{rng.randrange(400)}"],
                            valid_from=f"{year}-{1 + rng.randrange(12):02d}-01",
                            actor=("agent:claude", "cli:bob")[len(fact_ids) % 2])
        fact_ids.append(fid)
        targets.append(obj)
    owned: dict[str, list[str]] = {}
    for fid in fact_ids:
        fact = b.facts[fid]
        if fact["relation"] == "owned_by":
            owned.setdefault(fact["subject"], []).append(fid)
    for chain in owned.values():
        chain.sort(key=lambda f: b.facts[f]["valid_from"])
        for older, newer in zip(chain, chain[1:]):
            b.supersede(older, newer, "ownership changed")
    for n in range(0, len(fact_ids) - 1, 997):
        if b.facts[fact_ids[n]]["status"] == "current" and b.facts[fact_ids[n + 1]]["status"] == "current":
            b.contest(fact_ids[n], fact_ids[n + 1], "generated contradiction", 0.6)
    for n in range(5, len(fact_ids), 1499):
        if b.facts[fact_ids[n]]["status"] == "current":
            b.forget(fact_ids[n])
    for n in range(3):
        b.dismiss(f"hotspot:{ids[n][:8]}:uses", "hotspot", [ids[n]], "generated dismissal")
    return b.build()


# -- reading rendered pages back -----------------------------------------------------------------

@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    text: str = ""


class _PageParser(HTMLParser):
    """Collects every element with its attributes, and the raw text of scripts and styles."""

    RAW_TEXT = {"script", "style"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self._open_raw: Element | None = None
        self.text_parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {name: value or "" for name, value in attrs})
        self.elements.append(element)
        if tag in self.RAW_TEXT:
            self._open_raw = element

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append(Element(tag, {name: value or "" for name, value in attrs}))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.RAW_TEXT:
            self._open_raw = None

    def handle_data(self, data: str) -> None:
        if self._open_raw is not None:
            self._open_raw.text += data
        else:
            self.text_parts.append(data)


@dataclass
class Page:
    elements: list[Element]
    text: str

    def find_all(self, tag: str, **attrs: str) -> list[Element]:
        return [e for e in self.elements if e.tag == tag
                and all(e.attrs.get(k.rstrip("_").replace("_", "-")) == v for k, v in attrs.items())]

    def by_id(self, element_id: str) -> Element:
        found = [e for e in self.elements if e.attrs.get("id") == element_id]
        assert len(found) == 1, f"expected one #{element_id}, found {len(found)}"
        return found[0]


_DATA_BLOCK = re.compile(r'(<script type="application/gzip" id="[\w-]+" data-encoding="base64">)([^<]*)(</script>)')


def inflated(html: str) -> str:
    """The page with each data block's base64 replaced by the JSON it holds (read with the standard
    library's gzip, not memlens's reader), so that looking for a text anywhere in a page also
    looks inside its data."""
    def unpacked(block: re.Match[str]) -> str:
        return block.group(1) + gzip.decompress(base64.b64decode(block.group(2))).decode() + block.group(3)

    return _DATA_BLOCK.sub(unpacked, html)


def parse_page(html: str) -> Page:
    parser = _PageParser()
    parser.feed(html)
    parser.close()
    return Page(parser.elements, "".join(parser.text_parts))


# -- driving a report in Debian's chromium ---------------------------------------------------------

def in_a_fresh_process(function, *args: Any, blas_threads: str = "1") -> Any:
    """`function(*args)` in a fresh interpreter (spawned: the test session has threads, Playwright's,
    and a fork is shared only from a process of one thread), with numpy's BLAS pool of `blas_threads`
    threads: one (no thread of its own) as the `memlens` command sets it (viewer/cli/app.py)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENBLAS_NUM_THREADS", blas_threads)   # read by the child as it imports numpy
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            return pool.submit(function, *args).result(timeout=120)


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
VIOLATION_RECORDER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(e.violatedDirective + " " + e.blockedURI);
});
"""


@dataclass
class OpenedReport:
    """A report opened from file:// with every non-file request aborted, and what it tried."""

    page: Any
    context: Any
    url: str
    requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def csp_violations(self) -> list[str]:
        return self.page.evaluate("window.__cspViolations")

    def drawn_ids(self) -> set[str]:
        """The ids of the entities the graph has drawn."""
        return set(self.page.evaluate("window.memlens.network.body.data.nodes.getIds()"))

    def show_fact_cards(self) -> None:
        """Has the detail panel show each fact as its card (the reader's choice; one line each at first)."""
        self.page.evaluate("() => window.memlens.showFactCards(true)")

    def close(self) -> None:
        self.context.close()


def open_report(browser: Any, path: Any, *, color_scheme: str = "light", width: int = 1280,
                height: int = 800, fragment: str = "", url: str | None = None,
                wait_for_graph: bool = True, javascript: bool = True, graph_timeout_ms: int = 15_000,
                bypass_csp: bool = False) -> OpenedReport:
    """Opens `path` (or `url`) with every request outside its own origin aborted and recorded.
    `bypass_csp`: the page's Content-Security-Policy is set aside (to load a test's own script)."""
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=color_scheme,
                                  java_script_enabled=javascript, bypass_csp=bypass_csp)
    page = context.new_page()
    url = (url or "file://" + str(path)) + fragment
    allowed = "file:" if url.startswith("file:") else url.split("/", 3)[0] + "//" + url.split("/", 3)[2] + "/"
    opened = OpenedReport(page=page, context=context, url=url)

    def route(route: Any) -> None:
        if route.request.url.startswith(allowed):
            route.continue_()
        else:
            route.abort()

    context.route("**/*", route)
    page.on("request", lambda request: opened.requests.append(request.url))
    page.on("console", lambda message: opened.console_errors.append(message.text)
            if message.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: opened.console_errors.append(str(error)))

    def on_dialog(dialog: Any) -> None:
        opened.dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.add_init_script(VIOLATION_RECORDER)
    page.goto(url)
    if wait_for_graph:
        # a function, not an expression: Playwright evals expressions in the page, which the CSP refuses
        page.wait_for_function("() => Boolean(window.memlens && window.memlens.ready)", timeout=graph_timeout_ms)
    return opened


def opened_report(browser: Any, snapshot: dict[str, Any], folder: Any, *,
                  graph_timeout_ms: int = 15_000) -> Iterator[OpenedReport]:
    """A fixture body: `snapshot`'s report written into `folder`, opened until the test module is
    done with it, then closed."""
    from memlens.viewer.report.write import write_report

    opened = open_report(browser, write_report(snapshot, folder / "report.html"), graph_timeout_ms=graph_timeout_ms)
    yield opened
    opened.close()
