"""The errors the store raises; the CLI turns each into `Error: <message>` and exit status 1."""
from __future__ import annotations


class MemlensError(Exception):
    """Base of every error memlens reports to a person instead of a traceback."""


class InvalidInput(MemlensError):
    """The input is malformed: a bad triple, date, confidence or empty name."""


class UnknownType(MemlensError):
    """An entity type that the dataset's ontology does not know."""


class NotFound(MemlensError):
    """No entity, fact or candidate matches the given name or id."""


class Ambiguous(MemlensError):
    """A short id prefix matches more than one fact or entity."""


class NearMiss(MemlensError):
    """A new entity's name is a near miss of an existing one's: created only when confirmed."""

    def __init__(self, name: str, candidates: tuple, insist: str = "confirm that it is new") -> None:
        self.name, self.candidates = name, candidates
        meant = " or ".join(c.shown() for c in candidates)
        super().__init__(f"{name!r} would be a new entity, and it is close to {meant}: write the existing name, "
                         f"or {insist}")

    def insisting(self, how: str) -> NearMiss:
        """The same refusal, saying how the caller (the CLI, an MCP tool) confirms a new entity."""
        return NearMiss(self.name, self.candidates, how)


class Forgotten(MemlensError):
    """The triple or entity was forgotten; re-asserting it needs an explicit override."""


class Conflict(MemlensError):
    """The write contradicts the current state (e.g. restoring a current fact)."""


class StoreNotFound(NotFound):
    """No store file where the dataset should be (a read never creates one)."""


class StoreUnreadable(MemlensError):
    """The file is not a memlens store, or is newer than this memlens."""


class StoreDamaged(StoreUnreadable):
    """The file is a damaged store: SQLite's check failed, or its rows do not hold together."""


class BundleError(MemlensError):
    """A report, site or export cannot be written where asked, or cannot be read back."""


class SnapshotAltered(MemlensError):
    """A snapshot (or the bundle holding it) differs from what memlens wrote: the first difference is named."""
