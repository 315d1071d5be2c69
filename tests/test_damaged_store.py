"""Damaged stores are refused in one line: by SQLite's quick_check before any read or write of a
damaged file, and by the snapshot when rows do not hold together. A refused write writes nothing."""
from __future__ import annotations

import hashlib
import random
import sqlite3
from pathlib import Path

import pytest

from memlens.store.facts import FactInput
from memlens.store.memory import Memory

NOISE = 4096


def build(path: Path) -> None:
    """A store of a few hundred KB: 60 entities, 240 facts with evidence and descriptions."""
    with Memory(path, actor="test:damage") as memory:
        memory.remember([
            FactInput(f"service-{i:03d}", "depends_on", f"library-{(i * 7 + k) % 60:03d}", "Service", "Library",
                      description=f"service {i} needs library {k} " * 4, evidence=(f"repo://src/s{i}.py#L{k}",))
            for i in range(60) for k in range(4)
        ])


def damage(path: Path) -> None:
    """4 KB of noise over the page in the middle of the file."""
    size = path.stat().st_size
    offset = size // 2 // NOISE * NOISE
    with path.open("r+b") as handle:
        handle.seek(offset)
        handle.write(random.Random(13).randbytes(NOISE))


def commands(store: Path, out: Path) -> dict[str, list[str]]:
    db = ["--db", str(store)]
    return {
        "stats": ["stats", *db],
        "view": ["view", "--no-open", "--out", str(out / "report.html"), *db],
        "recall": ["recall", "service", *db],
        "remember": ["remember", "service-000 --depends_on--> library-001", *db],
    }


def integrity(path: Path) -> str:
    conn = sqlite3.connect(f"{path.as_uri()}?immutable=1", uri=True)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        return str(exc)
    finally:
        conn.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_store_with_4_kb_of_noise_in_the_middle_is_refused_and_remember_writes_nothing(cli, tmp_path):
    intact, damaged = tmp_path / "intact.sqlite", tmp_path / "damaged.sqlite"
    build(intact)
    assert intact.stat().st_size > 8 * NOISE
    damaged.write_bytes(intact.read_bytes())
    damage(damaged)
    assert integrity(intact) == "ok" and integrity(damaged) != "ok"  # the premise: SQLite sees it

    for name, args in commands(intact, tmp_path).items():  # the positive case
        result = cli(*args)
        assert result.exit_code == 0, (name, result.output)

    before = digest(damaged)
    for name, args in commands(damaged, tmp_path).items():
        result = cli(*args)
        assert result.exit_code == 1, (name, result.output)
        assert result.output.startswith(f"Error: {damaged} is damaged (") and result.output.count("\n") == 1, name
        assert "internal error" not in result.output and "Traceback" not in result.output
    assert digest(damaged) == before
    wal = Path(f"{damaged}-wal")
    assert not wal.exists() or wal.stat().st_size == 0


@pytest.mark.parametrize("command", [["export", "--format", "json", "-o", "-"], ["view", "--no-open"]])
def test_a_fact_without_versions_fails_the_snapshot_in_one_line(cli, tmp_path, command):
    store = tmp_path / "s.sqlite"
    build(store)
    args = [*command, "--db", str(store)]
    if "view" in command:
        args += ["--out", str(tmp_path / "r.html")]
    assert cli(*args).exit_code == 0
    with sqlite3.connect(store) as conn:  # rows that do not hold together, in an intact file
        fact_id = conn.execute("SELECT id FROM facts ORDER BY id LIMIT 1").fetchone()[0]
        conn.execute("DELETE FROM fact_versions WHERE fact_id = ?", (fact_id,))
    result = cli(*args)
    assert result.exit_code == 1
    assert result.output == f"Error: the store is damaged: fact {fact_id} has no versions\n"
