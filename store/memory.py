"""`Memory`: one dataset, opened; every write is one transaction with its ledger rows."""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

try:
    import fcntl
except ImportError:  # not a POSIX system
    fcntl = None  # type: ignore[assignment]

from . import (contradictions, corrections, datasets, entities, forgetting, functional, hooks, ingest, ledger,
               maintenance, merging, ontology, pages, reads, recall, search, snapshot)
from .db import Tx, default_actor, read, write
from .errors import Conflict
from .facts import FactInput, Outcome
from .maintenance import Candidate
from .opening import check_can_make, open_for_reading, open_for_writing, remove_store_files
from .resolve import KeptNames
from .timefmt import parse_instant, parse_valid_time, utc_now
from .snapshot.seal import sealed
from .temporaries import leftovers, remove, temporary_beside


class Memory:
    """A memlens dataset. `actor` is who writes (`cli:<user>`, `agent:<name>`, `hook`, ...)."""

    def __init__(
        self,
        path: str | Path,
        *,
        actor: str | None = None,
        clock: Callable[[], datetime] = utc_now,
        readonly: bool = False,
        create: bool = True,
    ) -> None:
        """Opened read-only (`readonly`: never written, never migrated), or for writing: made if
        `create` and absent, migrated to the current schema. Either way refused if it is not a
        memlens store or is damaged."""
        self.path = Path(path)
        self.actor = actor or default_actor()
        # The git work tree this memory's evidence points into (`repo://path#L1-9`), when known: the
        # worklist and the snapshot then carry the facts whose evidence changed there (store/evidence.py).
        self.repository: Path | None = None
        self.evidence_note: str | None = None   # why the last check did not check everything
        # this maintenance's evidence check, for the bundles its hooks write: (the ledger head it
        # was made at, what it found); None outside `maintain` (a long-lived memory checks anew)
        self._maintenance_check: tuple[str, list[Candidate]] | None = None
        self.kept_names = KeptNames()   # the names a near-miss check reads, kept between this memory's writes
        self.clock = clock
        # A new store is made beside its path and moved there when its first write commits, so a
        # first write that fails (a typo in a fact) leaves nothing, and no process finds it half made.
        self._unpublished: Path | None = None
        if readonly:
            self.conn = open_for_reading(self.path)
        elif create and not self.path.exists():
            check_can_make(self.path)
            for leftover in leftovers(self.path):
                remove(leftover)
            self._unpublished = temporary_beside(self.path)
            self.conn = open_for_writing(self._unpublished)
        else:
            self.conn = open_for_writing(self.path, create=create)

    @property
    def name(self) -> str:
        return datasets.name_of(self.path)

    def close(self) -> None:
        self.conn.close()
        if self._unpublished is not None:  # never written: the store is not made
            remove_store_files(self._unpublished)
            self._unpublished = None

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def writing(self, actor: str | None = None) -> Iterator[Tx]:
        """One write transaction, as `actor` (default: the memory's); every write goes through here,
        which makes a new store appear at its path once its first write has committed.

        Processes making stores in one folder take turns (a lock on the folder) from the first
        write to its store's move into place; one that finds a store made meanwhile writes there."""
        if self._unpublished is not None:
            with _making_stores_in(self.path.parent):
                if not self.path.exists():
                    with write(self.conn, actor or self.actor, self.clock) as tx:
                        yield tx
                    self._publish()
                    return
                self._adopt()
        with write(self.conn, actor or self.actor, self.clock) as tx:
            yield tx

    def _adopt(self) -> None:
        """Another process made the store since this one was opened: drop ours, unwritten, for it."""
        made, self._unpublished = self._unpublished, None
        assert made is not None
        self.conn.close()
        remove_store_files(made)
        self.conn = open_for_writing(self.path, create=False)

    def _publish(self) -> None:
        """Move the new store, its first write committed, to its path; refused if a store is there
        all the same (made by a process that does not take turns: that one is kept, this write is not)."""
        made, self._unpublished = self._unpublished, None
        assert made is not None
        self.conn.close()  # the last connection: SQLite folds its log into the file and removes it
        try:
            os.link(made, self.path)  # never over a file: a link to an existing name fails
            lost = False
        except FileExistsError:
            lost = True
        except OSError:  # a file system without hard links: a rename, over nothing that is there now
            lost = self.path.exists()
            if not lost:
                try:
                    os.rename(made, self.path)
                except FileExistsError:  # Windows renames over nothing: one made since the check stays
                    lost = True
        finally:
            remove_store_files(made)
        self.conn = open_for_writing(self.path, create=False)  # the next write goes to the store there
        if lost:
            raise Conflict(f"{self.path} was made by another process at the same moment; this write was not "
                           "kept: run it again")

    # -- writes ---------------------------------------------------------------------------------

    def remember(
        self,
        items: Iterable[FactInput],
        *,
        override_forgotten: bool = False,
        new: bool = False,
        each: Callable[[Outcome], None] | None = None,
    ) -> list[Outcome]:
        """Assert facts, all or none; `each` hears of every fact as it is written (for progress).
        A new entity whose name is a near miss of an existing one's is refused (NearMiss) unless `new`."""
        with self.writing() as tx:
            return ingest.remember(tx, items, override_forgotten=override_forgotten, new=new, each=each,
                                   kept=self.kept_names)

    def describe(self, name: str, description: str) -> str:
        with self.writing() as tx:
            return entities.describe(tx, name, description)

    def declare_functional(self, relation: str) -> list[str]:
        with self.writing() as tx:
            return functional.declare(tx, relation)

    def add_type(self, name: str) -> str:
        with self.writing() as tx:
            return ontology.add_type(tx, name)

    def supersede(self, old: str, new: str, reason: str) -> tuple[str, str]:
        with self.writing() as tx:
            return corrections.supersede(tx, old, new, reason)

    def restore(self, ref: str, reason: str) -> list[str]:
        with self.writing() as tx:
            return corrections.restore(tx, ref, reason)

    def retract(self, ref: str, reason: str) -> tuple[str, list[str]]:
        """Withdraw a fact as wrong: its id, and the values it had replaced, reopened in their places."""
        with self.writing() as tx:
            return corrections.retract(tx, ref, reason)

    def contest(self, a: str, b: str, reason: str, confidence: float = 0.5) -> str:
        with self.writing() as tx:
            return contradictions.contest(tx, a, b, reason, confidence)

    def dismiss(self, key: str, reason: str) -> Candidate:
        with self.writing() as tx:
            return maintenance.dismiss(tx, key, reason, repository=self.repository)

    def merge(self, keep: str, drop: str) -> dict[str, str]:
        with self.writing() as tx:
            return merging.merge(tx, keep, drop)

    def forget_fact(self, ref: str, *, with_orphans: bool = False) -> forgetting.FactForgotten:
        """Forget a fact; `with_orphans` also forgets the entities only it named, in the same write."""
        with self.writing() as tx:
            forgotten = forgetting.forget_fact(tx, ref, with_orphans=with_orphans)
            search.purge_deleted_text(tx.conn)
        self._flush_erased_pages()
        return forgotten

    def forget_entity(self, name_or_id: str) -> tuple[str, list[str]]:
        with self.writing() as tx:
            forgotten = forgetting.forget_entity(tx, name_or_id)
            search.purge_deleted_text(tx.conn)
        self._flush_erased_pages()
        return forgotten

    def _flush_erased_pages(self) -> None:
        """Copy the zeroed pages into the main file and empty the WAL, where the old text still was."""
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # -- reads ----------------------------------------------------------------------------------

    def fact(self, ref: str) -> dict:
        return reads.fact(self.conn, ref)

    def facts_by_id(self, ids: list[str]) -> dict[str, dict]:
        """`fact` for many ids at once, as {id: view}: a few queries, not several per fact."""
        return {view["id"]: view for view in reads.facts_by_id(self.conn, ids)}

    def facts(
        self,
        *,
        include_all: bool = False,
        as_of_record: str | None = None,
        as_of_valid: str | None = None,
    ) -> list[dict]:
        """Current facts; `include_all` adds superseded, retracted and forgotten (without text)."""
        return reads.fact_rows(
            self.conn,
            statuses=None if include_all else ("current",),
            as_of_record=None if as_of_record is None else parse_instant(as_of_record, what="--as-of-record"),
            as_of_valid=parse_valid_time(as_of_valid, what="--as-of-valid"),
        )

    def history(self, ref: str) -> dict:
        return reads.history(self.conn, ref)

    def recall(self, query: str, *, include_superseded: bool = False, limit: int = 20) -> dict:
        """The first `limit` facts and entities that answer `query` (store/recall.py), as MCP's first page."""
        with read(self.conn) as conn:
            found = recall.recall(conn, query, pages.Page(limit), include_superseded=include_superseded)
        return found | {"facts": found["facts"]["items"], "entities": found["entities"]["items"]}

    def worklist(self) -> list[Candidate]:
        return self._worklist()[0]

    def _worklist(self) -> tuple[list[Candidate], list[Candidate] | None]:
        """The worklist, and what of it the evidence check found (None: no repository to check)."""
        candidates = maintenance.worklist(self.conn)
        if self.repository is None:
            return candidates, None
        stale, self.evidence_note = maintenance.stale_evidence(self.conn, self.repository)
        return candidates + stale, stale

    def maintain(self) -> tuple[list[Candidate], list[hooks.HookResult]]:
        """The worklist, then the after-maintenance hooks (which never undo it). The evidence is
        checked against the repository once: a bundle the hooks write of the same state takes what
        the worklist found (the check runs git, up to half a minute in a large repository)."""
        head = ledger.head(self.conn)   # read first: a write by another process meanwhile makes it stale, never wrong
        candidates, stale = self._worklist()
        self._maintenance_check = None if stale is None else (head, stale)
        try:
            return candidates, hooks.run_after_maintenance(self)
        finally:
            self._maintenance_check = None

    def types(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT name FROM types ORDER BY name")]

    def relations(self) -> list[dict]:
        return [
            {"name": r[0], "functional": bool(r[1])}
            for r in self.conn.execute("SELECT name, functional FROM relations ORDER BY name")
        ]

    def ledger(self) -> list[dict]:
        return ledger.rows(self.conn)

    def content_hash(self) -> str:
        return "sha256:" + ledger.head(self.conn)

    def stats(self) -> dict:
        return snapshot.stats(self.conn)

    def state_counts(self) -> dict:
        """Archived facts and merged-away entities, which `stats` tells apart."""
        return reads.state_counts(self.conn)

    def snapshot(self) -> dict:
        return self._with_evidence_checked(snapshot.build(self.conn, self.name, datasets.flag_for(self.path)))

    def sealed_snapshot(self) -> dict:
        """The snapshot with its seal, as a bundle carries it, made with the chain hashes the
        ledger keeps (snapshot.build_with_chains)."""
        built, chains = snapshot.build_with_chains(self.conn, self.name, datasets.flag_for(self.path))
        return sealed(self._with_evidence_checked(built), chains)

    def _with_evidence_checked(self, built: dict) -> dict:
        """With a repository, the snapshot's worklist holds its stale evidence, and `evidence_check`
        lists those facts, for the viewer's mark on their cards."""
        if self.repository is None:
            return built
        if self._maintenance_check is not None and built["hash"] == "sha256:" + self._maintenance_check[0]:
            stale = self._maintenance_check[1]
        else:
            stale, self.evidence_note = maintenance.stale_evidence_in(built, self.repository)
        built["maintenance"] = built["maintenance"] + [c.as_dict() for c in stale]
        built["evidence_check"] = {"changed": sorted(c.refs[0] for c in stale)}
        return built


@contextmanager
def _making_stores_in(folder: Path) -> Iterator[None]:
    """An exclusive lock on `folder` (flock on the folder itself: no lock file to leave behind)."""
    if fcntl is None:  # no flock here: a store made meanwhile is refused by the move instead
        yield
        return
    handle = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # which lets the lock go
