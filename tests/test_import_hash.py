"""An imported snapshot's hash is pinned: bundles record it, and `view --if-changed` and `diff`
compare it across memlens versions, so reading a file faster must not move it. Record times, which
the hash covers, are written exactly as before."""
from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from import_fixtures import MemooseFile, build_memoose, build_memware, build_mnemo
from memlens.store.importers import read_snapshot
from memlens.store.importers.source import record_time_of
from memlens.store.timefmt import RECORD_FORMAT, record_time

# Taken before the importers were made faster; a change here needs a reason in the commit.
PINNED = {
    "memoose": ("sha256:8faa1f64f02085a0c0b038d50b4fdc536e7902156543680cd6c4fbcd9233fc18", "2026-03-03T15:10:00.000000Z"),
    "memware": ("sha256:8106e1b3fd8135759e4f186c666d9a238b43ccf729b044e455a6280210ad82d0", "2026-03-02T12:00:00.000000Z"),
    "mnemo": ("sha256:945652dbb4a9024caab0996540509fef270e0a73d3701a2a62fc059a93f636a1", "2026-03-02T11:50:00.000000Z"),
}
BUILDERS = {"memoose": build_memoose, "memware": build_memware, "mnemo": build_mnemo}


@pytest.mark.parametrize("tool", sorted(PINNED))
def test_the_fixture_stores_snapshot_keeps_its_pinned_hash(tmp_path: Path, tool: str):
    BUILDERS[tool](tmp_path / "source.db")
    snapshot = read_snapshot(tool, tmp_path / "source.db")
    assert (snapshot["hash"], snapshot["generated_at"]) == PINNED[tool]
    assert len(snapshot["facts"]) > 5 and len(snapshot["ledger"]) > 5


def test_a_memoose_store_with_times_as_timetime_writes_them_keeps_its_pinned_hash(tmp_path: Path):
    """memoose stamps rows with time.time(): floats finer than a microsecond, rounded on reading."""
    rng = random.Random(3)
    m = MemooseFile(tmp_path / "store.sqlite")
    stamps = iter(sorted(1_772_442_600 + rng.random() * 86_400 * 30 for _ in range(200)))
    m.clock.tick = lambda: SimpleNamespace(timestamp=stamps.__next__)  # type: ignore[method-assign]
    for k in range(20):
        m.entity(f"service-{k}", "Concept")
    first = m.relation("service-0", "calls", "service-1", "the first", "repo://a.py")
    m.supersede(first, m.relation("service-0", "calls", "service-2"), "moved")
    for k in range(3, 20):
        m.relation(f"service-{k}", "uses", f"service-{k - 1}")
    m.close()
    snapshot = read_snapshot("memoose", tmp_path / "store.sqlite")
    assert snapshot["hash"] == "sha256:042d0be6d418587e63b50fef67e7c49a5236d1ddf8e1c76f30420f36cf11d958"
    assert snapshot["stats"]["superseded"] == 1 and snapshot["stats"]["current"] == 18


def strftime_record_time(moment: datetime) -> str:
    """How record times were written before the faster form: the reference it must equal."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime(RECORD_FORMAT)


OFFSETS = st.timedeltas(min_value=timedelta(hours=-23, minutes=-59), max_value=timedelta(hours=23, minutes=59))


@given(st.datetimes(min_value=datetime(2, 1, 1), max_value=datetime(9998, 12, 31),
                    timezones=st.none() | st.just(timezone.utc) | st.builds(timezone, OFFSETS)))
def test_a_record_time_is_written_as_strftime_writes_it(moment: datetime):
    assert record_time(moment) == strftime_record_time(moment)
    assert record_time(datetime(2026, 3, 2, 10, 0, tzinfo=timezone(timedelta(hours=1)))) == "2026-03-02T09:00:00.000000Z"


# Year 2 to year 9999: strftime writes years before 1000 without leading zeros, and so must we.
@given(st.floats(min_value=-62_100_000_000, max_value=253_402_000_000, allow_nan=False))
def test_an_epoch_reads_as_the_record_time_datetime_formats(epoch: float):
    expected = strftime_record_time(datetime.fromtimestamp(epoch, timezone.utc))
    assert record_time_of(epoch) == expected
    assert record_time_of(1_772_442_600.0) == "2026-03-02T09:10:00.000000Z"
    assert record_time_of(1e20) is None and record_time_of(float("nan")) is None  # unreadable, not an error
