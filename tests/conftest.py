"""Shared fixtures: a store with a controllable clock, and the CLI run in-process."""
from __future__ import annotations

import os
import re
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from memlens.store import schema
from memlens.store.memory import Memory
from memlens.viewer.cli import main
from viewer_fixtures import CHROMIUM, CHROMIUM_ARGS


def store_at_schema_version(path: Path, version: int) -> None:
    """A new, empty store as a memlens of schema `version` made it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        schema.migrate(conn, up_to=version)
    finally:
        conn.close()


def as_schema_version(path: Path, version: int) -> None:
    """Turn the store at `path` back into what a memlens of schema `version` left, undoing the later
    migrations; each must only have added indexes, tables, triggers and columns, filled tables, or rebuilt a
    table (this fails loudly once one does more). What one filled into an earlier one's table stays: rows that
    table holds in a store that never met the later version too. A rebuilt table stays rebuilt (the
    search index: the reads of every schema read either form)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for script in reversed(schema.MIGRATIONS[version:]):
            assert isinstance(script, str), "a later migration does more than add indexes and tables"
            undo, rebuilt = [], set()
            for statement in schema._statements(script):
                dropped = re.fullmatch(r"DROP TABLE (\w+);?", statement)
                made = re.fullmatch(r"CREATE (?:UNIQUE |VIRTUAL )?(INDEX|TABLE|TRIGGER) (\w+)\b.*", statement, re.S)
                filled = re.fullmatch(r"INSERT (?:OR IGNORE )?INTO (\w+)\b.*", statement, re.S)
                column = re.fullmatch(r"ALTER TABLE (\w+) ADD COLUMN (\w+)\b.*", statement, re.S)
                assert dropped or made or filled or column, \
                    f"a later migration does more than add indexes, tables and columns: {statement}"
                if column:
                    undo.append(f"ALTER TABLE {column[1]} DROP COLUMN {column[2]}")
                elif dropped:
                    rebuilt.add(dropped[1])
                elif made and made[2] not in rebuilt:
                    undo.append(f"DROP {made[1]} {made[2]}")
            for statement in reversed(undo):
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {version}")
    finally:
        conn.close()


class StepClock:
    """A clock that moves one minute (or `step`) per reading, so every write has its own record time."""

    def __init__(self, start: datetime = datetime(2026, 1, 1, 9, 0, tzinfo=timezone.utc),
                 step: timedelta = timedelta(minutes=1)) -> None:
        self.now, self.step = start, step

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


@pytest.fixture
def memory(tmp_path: Path):
    with Memory(tmp_path / "test.sqlite", actor="test:pytest", clock=StepClock()) as opened:
        yield opened


@pytest.fixture(autouse=True)
def home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private $MEMLENS_HOME for every test, so none touches a real one (every bundle written
    records itself there); beside the test's tmp_path, not in it."""
    directory = tmp_path_factory.mktemp("memlens-home") / "home"
    monkeypatch.setenv("MEMLENS_HOME", str(directory))
    return directory


@pytest.fixture
def cli(home: Path):
    """Run `memlens ARGS...` in-process; returns click's Result."""
    runner = CliRunner()

    def run(*args: str, input: str | None = None):
        return runner.invoke(main, list(args), input=input, catch_exceptions=False)

    return run


@pytest.fixture(scope="session")
def browser():
    """One Debian chromium for the whole run, driven by Playwright; never a downloaded browser."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture(scope="session")
def project_report_path(tmp_path_factory):
    """The report of the small realistic project snapshot, written once per run."""
    from viewer_fixtures import project_snapshot

    from memlens.viewer.report.write import write_report

    return write_report(project_snapshot(), tmp_path_factory.mktemp("project") / "report.html")


@pytest.fixture
def project_report(browser, project_report_path):
    """That report open in a fresh page of the shared browser, every outside request blocked."""
    from viewer_fixtures import open_report

    opened = open_report(browser, project_report_path)
    yield opened
    opened.close()
