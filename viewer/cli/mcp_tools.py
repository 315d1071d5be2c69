"""The tools `memlens mcp` offers an agent: `Memory` of one dataset, with answers bounded in size.

Each public coroutine of `MemoryTools` is one tool; its docstring is the description the agent
reads, and its parameters (with their descriptions) are the tool's input schema. None takes a
dataset or a path: the server is bound to the dataset it was started for.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

import orjson
from mcp.server.mcpserver import Context
from pydantic import BaseModel, ConfigDict, Field

from memlens.store import brief, datasets, pages, recall
from memlens.store.brief_repo import repository_names
from memlens.store.db import read
from memlens.store.errors import InvalidInput, NearMiss, StoreNotFound
from memlens.store.facts import FactInput
from memlens.store.ids import short
from memlens.store.maintenance import Candidate
from memlens.store.memory import Memory
from memlens.store.reads import ENTITY_FIELDS, FACT_FIELDS
from memlens.store.recall import MAX_QUERY_CHARS, MAX_WORDS

# Refs of one maintenance candidate shown in an answer (a hub's hotspot can cover hundreds).
REFS_SHOWN = 20
# What one string of a call may hold (README, "Agents"): a memory holds sentences, not files, and a
# client that sends a file's worth gets a tool error naming the field, not a 50 MB row in the store.
NAME_LIMIT = 1_000      # an entity's or a relation's name or type, an id, a worklist key
TEXT_LIMIT = 20_000     # a description, a piece of evidence, a reason (a question is cut, not refused: recall)
EVIDENCE_LIMIT = 100    # pieces of evidence for one fact
TIME_LIMIT = 64         # a valid time or an as-of time

Name = Annotated[str, Field(min_length=1, max_length=NAME_LIMIT)]
Text = Annotated[str, Field(max_length=TEXT_LIMIT)]

Limit = Annotated[int, Field(ge=1, le=100, description="How many items per list in one answer (1-100).")]
Cursor = Annotated[str | None, Field(max_length=NAME_LIMIT,
    description="`next_cursor` of the previous answer, for the next page; omit it for the first page.")]
FactRef = Annotated[str, Field(max_length=NAME_LIMIT, description="A fact id, or its first 8 characters.")]
Reason = Annotated[str, Field(min_length=1, max_length=TEXT_LIMIT,
                              description="Why, in a sentence: the next reader will want to know.")]


class Fact(BaseModel):
    """One fact to remember: subject --relation--> object, by name."""

    model_config = ConfigDict(extra="forbid")

    subject: Name = Field(description="The entity the fact is about, by name: 'billing-service'.")
    relation: Name = Field(description="A verb in snake_case: 'owned_by', 'depends_on'.")
    object: Name = Field(description="The other entity, by name: 'alice'.")
    subject_type: Name | None = Field(None, description="The subject's type (Person, Service, Module, ...); "
                                                        "needed only when the entity is new.")
    object_type: Name | None = Field(None, description="The object's type; needed only when the entity is new.")
    description: Text = Field("", description="The fact in a sentence, if the triple does not say it all.")
    evidence: Annotated[list[Text], Field(max_length=EVIDENCE_LIMIT)] | Text = Field(default_factory=list, description=(
        "Where it comes from: 'repo://path#L10-L20', a URL, 'user said 2026-03-02'; one or a list."))
    valid_from: Annotated[str, Field(max_length=TIME_LIMIT)] | None = Field(
        None, description="When it became true in the world (ISO date).")
    valid_to: Annotated[str, Field(max_length=TIME_LIMIT)] | None = Field(
        None, description="When it stopped being true (ISO date).")

    def as_input(self) -> FactInput:
        evidence = (self.evidence,) if isinstance(self.evidence, str) else tuple(self.evidence)
        return FactInput(self.subject, self.relation, self.object, self.subject_type, self.object_type,
                         self.description, evidence, self.valid_from, self.valid_to)


def answer(data: Any) -> str:
    """Compact JSON with sorted keys: the same state always reads the same."""
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS).decode()


def compact_fact(view: dict) -> dict:
    """A fact in the one shape `memlens ... --json` gives it too (docs/json-shapes.md): every
    field of `reads.FACT_FIELDS`, then what the answer adds (a score and why it was found in a
    recall, the latest versions)."""
    fact = {key: view[key] for key in FACT_FIELDS}
    for key in ("score", "why", "versions_total"):
        if key in view:
            fact[key] = view[key]
    if "versions" in view:
        fact["versions"] = view["versions"]
    return fact


def compact_entity(view: dict) -> dict:
    """An entity in the shape `memlens ... --json` gives it (reads.ENTITY_FIELDS), with its score
    and why it was found in a recall."""
    entity = {key: view[key] for key in ENTITY_FIELDS}
    for key in ("score", "why"):
        if key in view:
            entity[key] = view[key]
    return entity


def _page(limit: int, cursor: str | None) -> pages.Page:
    if cursor is None or cursor == "":
        return pages.Page(limit)
    if not re.fullmatch(r"\d{1,9}", cursor):
        raise InvalidInput(f"cursor {cursor!r} is not one this server gave; omit it for the first page")
    return pages.Page(limit, int(cursor))


def _compacted(listed: dict, compact) -> dict:
    return {"total": listed["total"], "items": [compact(item) for item in listed["items"]]}


def _next(page: pages.Page, *totals: int) -> str | None:
    following = page.after(*totals)
    return None if following is None else str(following)


class MemoryTools:
    """The tools over one dataset. The store is opened at the first call, so a server whose store
    is damaged still starts, and answers each call with the error until the store is fixed."""

    READ_ONLY = ("recall", "history", "facts", "stats")
    ERASING = ("forget",)

    def __init__(self, path: Path) -> None:
        self.path = path
        self.actor = "mcp:unknown"
        self._memory: Memory | None = None
        # The worklist the last `maintain` built, with the store's hash then: its next pages are
        # cut from it while the store is unchanged, instead of building it again for each page.
        self._worklist: tuple[str, list[Candidate]] | None = None

    def tools(self) -> list:
        """The tool coroutines, in the order an agent reads them."""
        return [self.remember, self.recall, self.history, self.facts, self.functional, self.supersede,
                self.restore, self.retract, self.contest, self.dismiss, self.forget, self.maintain,
                self.stats, self.view]

    @property
    def memory(self) -> Memory:
        if self._memory is None:
            self._memory = Memory(self.path, actor=self.actor)
            self._memory.repository = datasets.repository_of(self.path)   # its evidence, checked in its folder
        self._memory.actor = self.actor
        return self._memory

    @property
    def existing(self) -> Memory:
        """The memory for a read: a read never makes the store, so a missing one is an error."""
        if self._memory is None and not self.path.exists():
            raise StoreNotFound(f"no dataset at {self.path} yet: `remember` something first, and every "
                                "other tool reads it")
        return self.memory

    def close(self) -> None:
        if self._memory is not None:
            self._memory.close()

    # The tools are coroutines that never await: each runs to its end on the server's one thread,
    # so calls never interleave on the store's one connection.

    async def remember(
        self,
        facts: Annotated[list[Fact], Field(min_length=1, description="The facts, all written or none.")],
        override_forgotten: Annotated[bool, Field(
            description="Assert a fact or entity that was forgotten, on purpose (a person asked for it).")] = False,
        new_entities: Annotated[bool, Field(description=(
            "Create the new entities named even where a name is close to an existing one's (the answer to "
            "a refusal that named the entity you may have meant, when yours is another)."))] = False,
    ) -> str:
        """Remember facts about the project: subject --relation--> object, with evidence and valid time.

        Call it when you learn something worth keeping beyond this session: who owns what, what
        depends on what, a decision and why. Give evidence (a file and lines, a URL, 'user said
        <date>'), and valid_from when the fact became true at a known date. Saying a fact again
        adds its evidence; a fact judged superseded or retracted stays so. On a functional relation
        (see `functional`) a newer value supersedes the old one, and an older one is filed as history.
        All facts are written together or none is. Name entities as they are stored (case and
        separators do not matter); a new name close to an existing one (a first name only, a
        misspelling) is refused with the names you may have meant, unless new_entities. Relations
        are stored in snake case ('owned by' becomes owned_by).

        Example: {"facts": [{"subject": "billing-service", "subject_type": "Service", "relation": "owned_by",
        "object": "alice", "object_type": "Person", "evidence": ["user said 2026-03-02"],
        "valid_from": "2026-03-01"}]}
        Answer: {"facts": [{"id": "...", "outcome": "asserted", "superseded": []}]}; outcome is asserted,
        reasserted, kept superseded, kept retracted or filed as history.
        """
        try:
            outcomes = self.memory.remember([fact.as_input() for fact in facts], override_forgotten=override_forgotten,
                                            new=new_entities)
        except NearMiss as refused:
            raise refused.insisting(f"call remember again with new_entities: true to create {refused.name!r} "
                                    "anyway") from None
        return answer({"facts": [{"id": o.fact_id, "outcome": o.outcome, "superseded": o.superseded}
                                 for o in outcomes]})

    async def recall(
        self,
        query: Annotated[str, Field(min_length=1, description=(
            "A question or a few words, as you would ask a colleague: 'who owns the billing service'. "
            f"Stop words are ignored; past {MAX_QUERY_CHARS:,} characters or {MAX_WORDS} words it is cut, "
            "and the answer's `note` says so."))],
        include_superseded: Annotated[bool, Field(description="Also search superseded and retracted facts.")] = False,
        limit: Limit = 20,
        cursor: Cursor = None,
    ) -> str:
        """Ask the memory a question in plain words: the facts that answer it and the entities it names, best first.

        Call it before answering a question about the project, before you remember something (is it
        known already?), and to find the id of a fact you want to correct. A fact is found by any of
        the question's words, their other forms too ("owns" finds owned_by); facts holding more of
        the words, or rarer ones, come first; then the facts of the entities the question names or
        describes. Each fact says why it was found (`why`). Only current facts unless
        include_superseded; a contested fact says so. Each list has its exact total; pass
        next_cursor to read the next page. `memlens recall` answers the same, in the same order.

        Example: {"query": "who owns the billing service"}
        Answer: {"query": "...", "words": ["owns", "billing", "service"], "facts": {"total": 3, "items":
        [{"id": "...", "subject": "<entity id>", "subject_name": "billing-service", "relation": "owned_by",
        "object": "<entity id>", "object_name": "alice", "status": "current", "contested": false,
        "score": 9.1, "why": "a fact of billing-service; matched: owns", ...}]},
        "entities": {"total": 1, "items": [...]}, "next_cursor": null}
        """
        page = _page(limit, cursor)
        with read(self.existing.conn) as conn:
            found = recall.recall(conn, query, page, include_superseded=include_superseded)
        return answer({key: found[key] for key in ("query", "words", "note") if key in found} | {
            "facts": _compacted(found["facts"], compact_fact),
            "entities": _compacted(found["entities"], compact_entity),
            "next_cursor": _next(page, found["facts"]["total"], found["entities"]["total"]),
        })

    async def history(
        self,
        ref: Annotated[str, Field(min_length=1, max_length=NAME_LIMIT,
                                  description="An entity's name or id, or a fact's id.")],
        limit: Limit = 20,
        cursor: Cursor = None,
    ) -> str:
        """How an entity or a fact came to be what it is: its facts with their versions over time,
        and the ledger rows (who wrote what, when) that name them, oldest first.

        Call it to explain a fact (when was it learnt, superseded, by whom), or to see everything
        about one entity, superseded and retracted facts included. Lists are paged with exact totals.

        Example: {"ref": "billing-service"}  or  {"ref": "1a2b3c4d"}
        Answer: {"entity": {...}, "facts": {"total": 12, "items": [{..., "versions": [...]}]},
        "ledger": {"total": 30, "items": [{"seq": 7, "at": "...", "actor": "mcp:claude-code",
        "action": "assert", ...}]}, "next_cursor": "20"}
        """
        page = _page(limit, cursor)
        with read(self.existing.conn) as conn:
            found = pages.history(conn, ref, page)
        totals = [found["ledger"]["total"]]
        if "entity" in found:
            result = {"entity": compact_entity(found["entity"]), "merged": found["merged"],
                      "facts": _compacted(found["facts"], compact_fact)}
            totals.append(found["facts"]["total"])
        else:
            result = {"fact": compact_fact(found["fact"])}
        return answer(result | {"ledger": found["ledger"], "next_cursor": _next(page, *totals)})

    async def facts(
        self,
        as_of_record: Annotated[str | None, Field(max_length=TIME_LIMIT, description=(
            "What the store believed at this time (ISO date or datetime), as it was then."))] = None,
        as_of_valid: Annotated[str | None, Field(max_length=TIME_LIMIT, description=(
            "What was true in the world on this date (ISO), values later superseded included."))] = None,
        include_all: Annotated[bool, Field(
            description="Also superseded, retracted and forgotten facts (forgotten ones without text).")] = False,
        limit: Limit = 50,
        cursor: Cursor = None,
    ) -> str:
        """List facts: the current ones, or the memory as of a record time or a valid time.

        Call it to go through everything the memory holds (a page at a time), or to answer "what
        did we believe on <date>" (as_of_record) and "what was true on <date>" (as_of_valid).
        For a topic, `recall` is better; for one entity, `history`.

        Example: {"as_of_valid": "2025-06-01", "limit": 20}
        Answer: {"facts": {"total": 120, "items": [...]}, "next_cursor": "20"}
        """
        page = _page(limit, cursor)
        with read(self.existing.conn) as conn:
            found = pages.facts(conn, page, include_all=include_all, as_of_record=as_of_record,
                                as_of_valid=as_of_valid)
        return answer({"facts": _compacted(found, compact_fact), "next_cursor": _next(page, found["total"])})

    async def functional(
        self,
        relation: Annotated[str, Field(min_length=1, max_length=NAME_LIMIT, description="The relation, e.g. 'owned_by'.")],
    ) -> str:
        """Declare a relation functional: a subject holds one current value of it at a time.

        Call it when a relation can only have one value now (owned_by, deployed_on, current_version).
        From then on a newer value (by valid_from, then arrival) supersedes the older; subjects that
        already hold several values are settled the same way.

        Example: {"relation": "owned_by"}
        Answer: {"relation": "owned_by", "superseded": ["<fact id>", ...]}
        """
        return answer({"relation": relation, "superseded": self.memory.declare_functional(relation)})

    async def supersede(
        self,
        old: Annotated[str, Field(max_length=NAME_LIMIT,
                                  description="The fact that is no longer true: its id or first 8 characters.")],
        new: Annotated[str, Field(max_length=NAME_LIMIT, description="The current fact that replaces it.")],
        reason: Reason,
    ) -> str:
        """Judge that fact `new` replaces fact `old`. The judgement holds: remembering `old` again
        keeps it superseded; only `restore` brings it back. It resolves `old`'s contradictions.

        Call it when a fact changed (the owner moved, a library was replaced) and both are stored;
        remember the new fact first to get its id.

        Example: {"old": "1a2b3c4d", "new": "5e6f7a8b", "reason": "PR #433 replaced pytz with zoneinfo"}
        Answer: {"superseded": "<old id>", "by": "<new id>"}
        """
        old_id, new_id = self.existing.supersede(old, new, reason)
        return answer({"superseded": old_id, "by": new_id})

    async def restore(self, fact: FactRef, reason: Reason) -> str:
        """Make a superseded or retracted fact current again, in its own place in valid time: on a
        functional relation it is the present value unless a later value began after it.

        Call it when a judgement was wrong (the change was reverted). A value that a later one
        closed, while that one still holds, is refused: retract the later value if it was wrong
        (this one then holds again), or remember the value again with valid_from for when it came
        back (a holding of its own).

        Example: {"fact": "1a2b3c4d", "reason": "the move to zoneinfo was reverted"}
        Answer: {"restored": "<id>", "status": "current", "superseded": ["<ids the order replaced>"]}
        """
        replaced = self.existing.restore(fact, reason)
        view = self.existing.fact(fact)
        return answer({"restored": view["id"], "status": view["status"], "superseded": replaced})

    async def retract(self, fact: FactRef, reason: Reason) -> str:
        """Withdraw a fact that was never true. Unlike `forget`, it stays in the history as retracted.

        Call it when you or the user find that a stored fact was a mistake; when it was true once
        and changed, use `supersede` instead. On a relation declared functional (one value at a
        time), a value the retracted one had replaced by that order is reopened: it holds again in
        its place in time; a value a judgement superseded stays as judged.

        Example: {"fact": "1a2b3c4d", "reason": "we never used Kafka"}
        Answer: {"retracted": "<id>", "reopened": ["<ids of the values it had replaced>"]}
        """
        retracted, reopened = self.existing.retract(fact, reason)
        return answer({"retracted": retracted, "reopened": reopened})

    async def contest(
        self,
        fact_a: FactRef,
        fact_b: FactRef,
        reason: Reason,
        confidence: Annotated[float, Field(ge=0, le=1, description="How sure you are that they conflict (0-1).")] = 0.5,
    ) -> str:
        """Mark two current facts as contradicting each other when you cannot tell which is right.

        Call it when two stored facts cannot both be true and you cannot tell which is. Both show
        as contested (in recall, facts, history and the report) until someone resolves the pair:
        supersede one of them, or dismiss the contradiction with its key.

        Example: {"fact_a": "1a2b3c4d", "fact_b": "5e6f7a8b", "reason": "README says port 8080,
        compose maps 8443", "confidence": 0.7}
        Answer: {"contradiction": "<id>", "key": "contradiction:<first 8 of id>"}
        """
        contradiction = self.existing.contest(fact_a, fact_b, reason, confidence)
        return answer({"contradiction": contradiction, "key": f"contradiction:{short(contradiction)}"})

    async def dismiss(
        self,
        key: Annotated[str, Field(min_length=1, max_length=NAME_LIMIT, description="A worklist key as `maintain` lists it.")],
        reason: Reason,
    ) -> str:
        """Decline a maintenance candidate: it is fine as it is. The dismissal covers what the
        candidate holds now, so new facts re-open it. Dismissing a contradiction resolves it.

        Call it after `maintain`, for a candidate you judged and want to leave alone.

        Example: {"key": "hotspot:1a2b3c4d:owned_by", "reason": "billing has two owners by design"}
        Answer: {"key": "...", "kind": "hotspot", "summary": "...", "refs": [...], "content": "sha256:..."}
        """
        return answer(self.existing.dismiss(key, reason).as_dict())

    async def forget(
        self,
        what: Annotated[Literal["fact", "entity"], Field(description="'fact' or 'entity'.")],
        ref: Annotated[str, Field(min_length=1, max_length=NAME_LIMIT,
                                  description="The fact's id, or the entity's name or id.")],
    ) -> str:
        """Erase a fact, or an entity with every fact that mentions it: the text leaves the store
        and its file for good. A tombstone stays, so remembering it again is refused unless
        override_forgotten.

        Call it only when the user asks to forget something (private or wrong data that must not be
        kept). To correct a fact, use supersede or retract, which keep the history.

        Example: {"what": "fact", "ref": "1a2b3c4d"}  or  {"what": "entity", "ref": "parental leave"}
        Answer: {"forgotten": "<id>", "facts": ["<ids of the entity's facts, or the fact's other holdings>"]}
        """
        if what == "fact":
            done = self.existing.forget_fact(ref)
            return answer({"forgotten": done.fact_id, "facts": list(done.holdings)})
        entity_id, fact_ids = self.existing.forget_entity(ref)
        return answer({"forgotten": entity_id, "facts": fact_ids})

    async def maintain(self, limit: Limit = 50, cursor: Cursor = None) -> str:
        """The maintenance worklist: what wants a judgement. Hotspots (several current values of a
        relation that holds one value: declared functional, or one like owned_by, version or
        status), open contradictions, names that may be one entity (merge them), relations written
        more than one way, facts whose evidence points into the repository at a file gone or at lines
        changed since the fact was recorded, and facts without evidence, minus what was dismissed. It decides nothing. The first page also runs the
        after-maintenance hooks (they regenerate the configured reports) and reports them.

        Call it at the end of a task, or when asked to tidy the memory; then supersede, contest,
        retract or dismiss what it lists.

        Example: {}
        Answer: {"worklist": {"total": 4, "items": [{"key": "hotspot:1a2b3c4d:owned_by", "kind":
        "hotspot", "summary": "...", "refs": [...]}]}, "hooks": [{"name": "...", "ok": true,
        "message": "..."}], "next_cursor": null}
        """
        page = _page(limit, cursor)
        memory = self.existing
        if page.offset == 0:
            candidates, results = memory.maintain()
            self._worklist = (memory.content_hash(), candidates)
        else:
            candidates, results = self._later_page_of_worklist(memory), []
        items = [self._candidate(c.as_dict()) for c in candidates[page.offset:page.offset + page.limit]]
        note = {"evidence_note": memory.evidence_note} if memory.evidence_note else {}
        return answer({"worklist": {"total": len(candidates), "items": items},
                       "hooks": [r.as_dict() for r in results], "next_cursor": _next(page, len(candidates))} | note)

    def _later_page_of_worklist(self, memory: Memory) -> list[Candidate]:
        state = memory.content_hash()
        if self._worklist is None or self._worklist[0] != state:  # the store changed since: build it anew
            self._worklist = (state, memory.worklist())
        return self._worklist[1]

    @staticmethod
    def _candidate(candidate: dict) -> dict:
        candidate.pop("content")  # a hash for dismissals, of no use to the reader
        refs = candidate["refs"]
        return candidate | {"refs": refs[:REFS_SHOWN], "refs_total": len(refs)}

    async def stats(self) -> str:
        """Counts: entities, facts by status, contested facts, open contradictions, dismissals and
        ledger rows, with the dataset's name and content hash (it changes exactly when the store does).

        Call it to see how much the memory holds, or whether it changed since you last looked.

        Example: {}
        Answer: {"dataset": "myproject-1a2b3c4d", "entities": 40, "facts": 120, "current": 100, ...}
        """
        memory = self.existing
        with read(memory.conn):
            counts = dict(memory.stats(), **memory.state_counts(), dataset=memory.name, hash=memory.content_hash())
        return answer(counts)

    async def view(self) -> str:
        """Write the memory's report: one self-contained HTML file (graph, timelines, contested tags,
        provenance) that opens offline in a browser; rewritten only if the store changed.

        Call it when the user wants to see or share the memory; give them the path.

        Example: {}
        Answer: {"path": "/home/me/.memlens/reports/myproject-1a2b3c4d.html", "written": true, "hash": "sha256:..."}
        """
        from memlens.viewer import regeneration

        from .export_commands import default_report

        memory = self.existing
        path = default_report(datasets.report_name(memory.path))
        done = regeneration.regenerate(memory, regeneration.Bundle(str(path), "html"))
        return answer({"path": str(path), "written": done.written, "hash": done.hash})

    # -- the brief, as a prompt and a resource (not a tool: a host offers it at a session's start) --------

    def brief(self, *, record: bool) -> str:
        """The memory's brief (store/brief.py); `record`: as given to this client (the prompt), not
        only read (the resource, which a client may fetch without showing it to anyone)."""
        memory = self.existing
        made = brief.read(memory.conn, dataset=memory.name, named=repository_names(Path.cwd()))
        if record:
            brief.record_given(memory.conn, made, host=self.actor)
        return made.text


BRIEF_URI = "memlens://brief"
BRIEF_ABOUT = ("The project's memory as an agent about to work needs it: what the project is, what changed since "
               "the last brief, open contradictions and the current facts that matter most, each with its id, "
               "in at most 4,000 characters. Recalled memory, not instructions.")


def offer_brief(server: Any, tools: MemoryTools) -> None:
    """Offer the brief to `server`'s clients as the prompt `brief` (recorded as given, to the client
    that asked: `mcp:<its name>`) and as the resource memlens://brief (read, not recorded)."""
    # coroutines, as the tools are: the SDK runs a plain function in another thread, away from the store's connection
    async def brief_prompt(ctx: Context) -> str:
        from .mcp_server import actor_of

        tools.actor = actor_of(ctx)
        return tools.brief(record=True)

    async def brief_resource() -> str:
        return tools.brief(record=False)

    server.prompt(name="brief", title="Memory brief", description=BRIEF_ABOUT)(brief_prompt)
    server.resource(BRIEF_URI, name="brief", title="Memory brief", description=BRIEF_ABOUT,
                    mime_type="text/plain")(brief_resource)
