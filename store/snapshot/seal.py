"""A snapshot's seal: the digests `memlens verify` recomputes to find the first thing in a bundle
that differs from what memlens wrote (format `memlens-seal/1`, the snapshot's top-level "seal").

- "content": sha256 over everything below, in full: the seal's strength.
- "records": per record list (entities, facts, contradictions, dismissals), the first 8 hex digits
  of each record's digest, in the snapshot's order: they name the record that changed.
- "fields": the same for every other top-level field (dataset, ontology, stats, hash, ...).
- "ledger": the first 8 hex digits of each ledger row's chain hash (ledger.chain_of): they name the
  row where the chain departs.
- "hash_of": what the snapshot's "hash" is: "ledger", the head of its ledger's chain (a memlens
  store's snapshot), or "content", importers.assembly.content_hash (another tool's store).

A seal finds changes; it does not say who made the bundle: anyone can compute one.
Snapshots written before seals existed have none, and everything else reads them as before.
"""
from __future__ import annotations

import hashlib
from typing import Any

from .. import ledger
from .canonical import canonical_json
from ..errors import SnapshotAltered
from ..observations import is_observation
from ..importers.assembly import content_hash

SEAL_FORMAT = "memlens-seal/1"
RECORD_LISTS = ("entities", "facts", "contradictions", "dismissals")
_SHORT = 8  # hex digits kept per record: a changed one goes unnamed one time in 4 billion, the content digest still differs


def sealed(snapshot: dict[str, Any], chains: list[str] | None = None) -> dict[str, Any]:
    """`snapshot` with its seal (a new top-level dict; the records are shared, not copied).
    `chains`: its ledger rows' chain hashes as the store keeps them (see `seal_of`)."""
    return {**snapshot, "seal": seal_of(snapshot, chains)}


def sealed_once(snapshot: dict[str, Any]) -> dict[str, Any]:
    """`snapshot` as a bundle writes it: sealed, unless it came sealed (a store's `sealed_snapshot`)."""
    return snapshot if "seal" in snapshot else sealed(snapshot)


def seal_of(snapshot: dict[str, Any], chains: list[str] | None = None) -> dict[str, Any]:
    """The seal; `chains` spares recomputing the ledger's chain (ledger.chain_of, half a seal's
    time: 1.6 s at 440,000 rows) where the store gives it, read in the snapshot's transaction."""
    digests = _Digests(snapshot, "the snapshot")
    if chains is None:
        chains = digests.chains()
    _made.remember(snapshot, RecordDigests(digests.records, chains))
    hash_of = "ledger" if chains and snapshot.get("hash") == "sha256:" + chains[-1] else "content"
    return {
        "format": SEAL_FORMAT,
        "hash_of": hash_of,
        "content": digests.content(chains),
        "fields": {name: digest[:_SHORT] for name, digest in digests.fields.items()},
        "records": {name: "".join(d[:_SHORT] for d in digests.records[name]) for name in digests.records},
        "ledger": "".join(chain[:_SHORT] for chain in chains),
    }


class RecordDigests:
    """The full sha256 (hex) of every record of a snapshot, per record list, and its ledger rows'
    chain hashes: what its seal's short digests are the first hex digits of."""

    def __init__(self, records: dict[str, list[str]], chains: list[str]) -> None:
        self.records = records
        self.chains = chains


class _Made:
    """The digests of the last snapshots sealed in this process, kept with their record lists (whose
    identity finds them again): a site's page models take their leaves' digests from the seal just
    made instead of canonicalising every record a second time (0.5 s at 10,000 entities)."""

    def __init__(self, kept: int = 2) -> None:
        self._kept: list[tuple[tuple[Any, ...], RecordDigests]] = []
        self._size = kept

    @staticmethod
    def _lists(snapshot: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(snapshot.get(name) for name in (*RECORD_LISTS, "ledger"))

    def remember(self, snapshot: dict[str, Any], digests: RecordDigests) -> None:
        self._kept = [(self._lists(snapshot), digests), *self._kept[:self._size - 1]]

    def find(self, snapshot: dict[str, Any]) -> RecordDigests | None:
        lists = self._lists(snapshot)
        for kept, digests in self._kept:
            if all(a is b for a, b in zip(kept, lists)):
                return digests
        return None


_made = _Made()


def record_digests(snapshot: dict[str, Any]) -> RecordDigests:
    """The full digests of `snapshot`'s records and ledger rows: those its seal was made from, when it
    was sealed in this process (and its record lists not replaced since), else worked out now as
    its seal works them out. A record changed in place after sealing is no record of the seal."""
    found = _made.find(snapshot)
    if found is None:   # not remembered: only a seal's own digests are (a snapshot may change until sealed)
        digests = _Digests(snapshot, "the snapshot")
        found = RecordDigests(digests.records, digests.chains())
    return found


def sealed_chain(seal: dict[str, Any], row: int) -> str | None:
    """How `seal` gives ledger row `row`'s chain hash (its first hex digits); None if it gives none."""
    chains = seal.get("ledger")
    if not isinstance(chains, str) or row < 0 or len(chains) < _SHORT * (row + 1):
        return None
    return chains[_SHORT * row:_SHORT * (row + 1)]


def check_seal(snapshot: dict[str, Any], where: str) -> dict[str, Any]:
    """Raise SnapshotAltered naming the first part of `snapshot` that differs from its seal (`where`
    names the file); returns what was checked, counted."""
    seal = snapshot.get("seal")
    if seal is None:
        raise SnapshotAltered(f"{where} carries no seal (it was written by a memlens without `verify`); "
                              "nothing in it can be checked: export it again")
    _check_seal_shape(seal, where)
    digests = _Digests(snapshot, where)
    _compare_fields(digests, seal["fields"], where)
    for name in RECORD_LISTS:
        _compare_records(snapshot, name, digests.records[name], seal["records"][name], where)
    chains = digests.chains()
    _compare_ledger(snapshot["ledger"], chains, seal["ledger"], where)
    _compare_hash(snapshot, chains, seal["hash_of"], where)
    if digests.content(chains) != seal["content"]:
        raise SnapshotAltered(f"{where}: the content digest differs from the seal's")
    merged = sum(1 for entity in snapshot["entities"] if entity.get("merged_into"))
    observations = sum(1 for entity in snapshot["entities"] if not entity.get("merged_into") and is_observation(entity))
    return {"hash": snapshot["hash"], "hash_of": seal["hash_of"], "ledger": len(chains),
            **{name: len(snapshot[name]) for name in RECORD_LISTS},
            "entities": len(snapshot["entities"]) - merged - observations, "merged": merged,
            "observations": observations}


class _Digests:
    """The full sha256 of every top-level field and of every record in the record lists."""

    def __init__(self, snapshot: dict[str, Any], where: str) -> None:
        self.snapshot, self.where = snapshot, where
        self.fields = {name: _digest(value) for name, value in sorted(snapshot.items())
                       if name not in ("seal", "ledger", *RECORD_LISTS)}
        self.records: dict[str, list[str]] = {}
        for name in RECORD_LISTS:
            records = snapshot.get(name)
            if not isinstance(records, list):
                raise SnapshotAltered(f"{where}: the snapshot's {name!r} is missing or not a list")
            self.records[name] = [_digest(record) for record in records]

    def chains(self) -> list[str]:
        rows = self.snapshot.get("ledger")
        if not isinstance(rows, list):
            raise SnapshotAltered(f"{self.where}: the snapshot's 'ledger' is missing or not a list")
        try:
            return ledger.chain_of(rows)
        except (KeyError, TypeError, AttributeError):
            number = next(n for n, row in enumerate(rows) if not _is_ledger_row(row))
            raise SnapshotAltered(f"{self.where}: ledger row {number + 1} is not a ledger row") from None

    def content(self, chains: list[str]) -> str:
        whole = hashlib.sha256()
        for name, digest in self.fields.items():
            whole.update(f"{name}\x1f{digest}\n".encode())
        for name, digests in self.records.items():
            whole.update(f"{name}\x1f{len(digests)}\n".encode())
            whole.update("".join(digests).encode())
        # one update for the whole ledger hashes what one per row hashed (long histories: 0.07 s less)
        whole.update("".join([f"{row.get('seq')}\x1f{chain}\n" for row, chain in zip(self.snapshot["ledger"], chains)])
                     .encode())
        return "sha256:" + whole.hexdigest()


def _digest(value: Any) -> str:
    return hashlib.sha256(canonical_json(value)).hexdigest()


def _is_ledger_row(row: Any) -> bool:
    try:
        ledger.chain_of([row])
        return True
    except (KeyError, TypeError, AttributeError):
        return False


def _check_seal_shape(seal: Any, where: str) -> None:
    ok = (isinstance(seal, dict) and seal.get("format") == SEAL_FORMAT
          and seal.get("hash_of") in ("ledger", "content") and isinstance(seal.get("content"), str)
          and isinstance(seal.get("fields"), dict) and all(isinstance(v, str) for v in seal["fields"].values())
          and isinstance(seal.get("records"), dict)
          and all(isinstance(seal["records"].get(name), str) for name in RECORD_LISTS)
          and isinstance(seal.get("ledger"), str))
    if not ok:
        raise SnapshotAltered(f"{where}: its seal is not a {SEAL_FORMAT} seal")


def _compare_fields(digests: _Digests, sealed_fields: dict[str, str], where: str) -> None:
    for name in sorted(set(digests.fields) | set(sealed_fields)):
        if name not in sealed_fields:
            raise SnapshotAltered(f"{where}: the snapshot's field {name!r} is not in its seal")
        if name not in digests.fields:
            raise SnapshotAltered(f"{where}: the snapshot's field {name!r} is missing")
        if digests.fields[name][:_SHORT] != sealed_fields[name]:
            raise SnapshotAltered(f"{where}: the snapshot's field {name!r} differs from its seal")


def _compare_records(snapshot: dict[str, Any], name: str, digests: list[str], sealed_digests: str,
                     where: str) -> None:
    sealed_list = [sealed_digests[i:i + _SHORT] for i in range(0, len(sealed_digests), _SHORT)]
    for number, (digest, expected) in enumerate(zip(digests, sealed_list)):
        if digest[:_SHORT] != expected:
            raise SnapshotAltered(f"{where}: {_record_name(name, snapshot[name][number], number)} differs from its seal")
    if len(digests) != len(sealed_list):
        raise SnapshotAltered(f"{where}: {len(digests)} {name}, its seal has {len(sealed_list)}")


def _record_name(name: str, record: Any, number: int) -> str:
    """How a person finds the record: its id (and an entity's name), else its place in the list."""
    kind = {"entities": "entity", "facts": "fact", "contradictions": "contradiction", "dismissals": "dismissal"}[name]
    key = record.get("key" if name == "dismissals" else "id") if isinstance(record, dict) else None
    if not isinstance(key, str):
        return f"{kind} number {number + 1}"
    shown = f"{kind} {key[:80]!r}"
    if name == "entities" and isinstance(record.get("name"), str):
        shown += f" ({record['name'][:80]!r})"
    elif name == "facts" and isinstance(record.get("relation"), str):
        shown += f" ({record['relation'][:80]})"
    return shown


def _compare_ledger(rows: list[dict[str, Any]], chains: list[str], sealed_chains: str, where: str) -> None:
    sealed_list = [sealed_chains[i:i + _SHORT] for i in range(0, len(sealed_chains), _SHORT)]
    for row, chain, expected in zip(rows, chains, sealed_list):
        if chain[:_SHORT] != expected:
            raise SnapshotAltered(f"{where}: ledger row seq {row.get('seq')} ({row.get('action')} "
                                  f"{row.get('kind')}) breaks the hash chain")
    if len(chains) != len(sealed_list):
        raise SnapshotAltered(f"{where}: {len(chains)} ledger rows, its seal has {len(sealed_list)}")


def _compare_hash(snapshot: dict[str, Any], chains: list[str], hash_of: str, where: str) -> None:
    if hash_of == "ledger":
        if not chains or snapshot.get("hash") != "sha256:" + chains[-1]:
            raise SnapshotAltered(f"{where}: the snapshot's hash is not the head of its ledger's chain")
    elif snapshot.get("hash") != content_hash(snapshot):
        raise SnapshotAltered(f"{where}: the snapshot's hash is not the hash of its content")


def first_record_difference(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """The first record (by list, then place) in which two snapshots differ, named from `a`, or
    "the ledger"; None if their records and ledgers are the same. Each seal is taken as carried when
    the snapshot has one (check it first: `check_seal`), else computed."""
    seal_a, seal_b = (s["seal"] if "seal" in s else seal_of(s) for s in (a, b))
    for name in RECORD_LISTS:
        ours, theirs = seal_a["records"][name], seal_b["records"][name]
        if ours == theirs:
            continue
        for number in range(0, max(len(ours), len(theirs)), _SHORT):
            if ours[number:number + _SHORT] != theirs[number:number + _SHORT]:
                index = number // _SHORT
                records = a[name]
                return _record_name(name, records[index], index) if index < len(records) else f"{name} past {len(records)}"
    return "the ledger" if seal_a["ledger"] != seal_b["ledger"] else None
