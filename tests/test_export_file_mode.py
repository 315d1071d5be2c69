"""A JSON export is created like any new file (0644 under the usual umask, as reports are), not 0600."""
from __future__ import annotations

import os
import stat

import pytest


@pytest.fixture
def umask():
    """Set the process umask for one test, and put the old one back."""
    previous = os.umask(0o022)
    yield os.umask
    os.umask(previous)


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_json_export_gets_0666_less_the_umask_and_a_replaced_one_keeps_its_mode(cli, tmp_path, umask):
    cli("remember", "alice:Person --knows--> bob:Person")
    out = tmp_path / "snapshot.json"
    assert cli("export", "-o", str(out)).exit_code == 0
    assert mode(out) == 0o644
    report = tmp_path / "report.html"
    assert cli("export", "--format", "html", "-o", str(report)).exit_code == 0
    assert mode(report) == mode(out)  # like reports
    out.chmod(0o640)
    assert cli("export", "-o", str(out)).exit_code == 0 and mode(out) == 0o640
    umask(0o077)
    private = tmp_path / "private.json"
    assert cli("export", "-o", str(private)).exit_code == 0 and mode(private) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporary file left
