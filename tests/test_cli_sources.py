"""The CLI over other tools' stores: view/export --from and import --from."""
from __future__ import annotations

import hashlib
import json

import pytest

from import_fixtures import build_memoose, build_memware, build_mnemo

BUILDERS = {"memoose": build_memoose, "memware": build_memware, "mnemo": build_mnemo}


@pytest.fixture(params=sorted(BUILDERS))
def source(request, tmp_path):
    path = tmp_path / f"{request.param}.db"
    BUILDERS[request.param](path)
    return request.param, path


def test_export_from_another_tool_leaves_its_file_untouched(cli, source, tmp_path):
    tool, path = source
    before = (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns)
    out = tmp_path / "snapshot.json"
    result = cli("export", "--from", tool, str(path), "--format", "json", "-o", str(out))
    assert result.exit_code == 0, result.output
    snapshot = json.loads(out.read_text())
    assert snapshot["format"] == "memlens-snapshot/1" and snapshot["facts"]
    assert (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns) == before


def test_view_from_another_tool_writes_a_report(cli, source, tmp_path):
    tool, path = source
    report = tmp_path / "report.html"
    result = cli("view", "--from", tool, str(path), "--out", str(report), "--no-open")
    assert result.exit_code == 0, result.output
    assert report.stat().st_size > 100_000
    again = cli("view", "--from", tool, str(path), "--out", str(report), "--no-open", "--if-changed")
    assert "unchanged" in again.output


def test_view_from_another_tools_wal_store_leaves_nothing_beside_it(cli, source, tmp_path):
    import sqlite3

    tool, path = source
    with sqlite3.connect(path) as conn:  # the tools keep their stores in WAL mode
        assert conn.execute("PRAGMA journal_mode = WAL").fetchone()[0] == "wal"
    conn.close()
    beside = sorted(p.name for p in path.parent.iterdir())
    assert f"{path.name}-wal" not in beside and f"{path.name}-shm" not in beside
    out = tmp_path / "out" / "report.html"
    result = cli("view", "--from", tool, str(path), "--no-open", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert out.exists()
    # "home" is this test's $MEMLENS_HOME, where view records what it wrote
    assert sorted(p.name for p in path.parent.iterdir() if p.name != "home") == sorted(beside + ["out"])


def test_import_copies_into_an_empty_dataset_once(cli, source):
    tool, path = source
    result = cli("import", "--from", tool, str(path), "-d", f"from-{tool}", "--json")
    assert result.exit_code == 0, result.output
    stats = json.loads(cli("stats", "-d", f"from-{tool}", "--json").stdout)
    assert stats["facts"] > 0
    ledger = json.loads(cli("export", "-d", f"from-{tool}", "--format", "json", "-o", "-").stdout)["ledger"]
    assert f"import:{tool}" in {row["actor"] for row in ledger}
    again = cli("import", "--from", tool, str(path), "-d", f"from-{tool}")
    assert again.exit_code == 1 and "already holds" in again.output


def test_a_wrong_or_missing_source_is_a_one_line_error(cli, tmp_path):
    memware = tmp_path / "memware.db"
    build_memware(memware)
    wrong = cli("view", "--from", "memoose", str(memware), "--no-open", "--out", str(tmp_path / "r.html"))
    assert wrong.exit_code == 1 and wrong.output.startswith("Error: ") and "not a memoose store" in wrong.output
    missing = cli("export", "--from", "mnemo", str(tmp_path / "nope.db"), "-o", str(tmp_path / "x.json"))
    assert missing.exit_code == 1 and "Error: " in missing.output
    both = cli("view", "--from", "memware", str(memware), "-d", "demo", "--no-open")
    assert both.exit_code == 2
    right = cli("view", "--from", "memware", str(memware), "--no-open", "--out", str(tmp_path / "r.html"))
    assert right.exit_code == 0
