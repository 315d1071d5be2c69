"""memlens's main paths with the Linux-only calls taken away (tests/without_linux_calls.py): the
portable path beside each one runs here, on Linux, as it runs on Windows and macOS.

Each test asserts what the run wrote and that it reached no Linux-only call, and that the portable
path was taken (renameat2 asked for and refused, the Windows process calls made, a file named by
its whole path rather than relative to a folder's descriptor), so none passes for want of running.
"""
from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from without_linux_calls import LAUNCH, LinuxOnlyCall, Reached, take_away

from memlens.store.memory import Memory
from memlens.store.snapshot.diff import diff
from memlens.store.temporaries import MARK
from memlens.viewer.reading import carried_over
from memlens.viewer.regeneration import write_bundle

NEW_FACT = "Dana Okafor --uses--> Docker Compose"


class Memlens:
    """`memlens ARGS...` in a process of its own with the Linux-only calls taken away before any
    module of memlens loads; `reached()`: what all its runs reached."""

    def __init__(self, tmp_path: Path) -> None:
        self.home, self.noted = tmp_path / "home", tmp_path.parent / f"{tmp_path.name}-reached.jsonl"
        self.env = {**os.environ, "MEMLENS_HOME": str(self.home), "MEMLENS_TEST_REACHED": str(self.noted)}
        self.cwd = tmp_path

    def __call__(self, *args: str, check: bool = True, env: dict[str, str] | None = None):
        done = subprocess.run([sys.executable, "-c", LAUNCH, *args], capture_output=True, text=True,
                              env=env or self.env, cwd=self.cwd, timeout=300)
        if check:
            assert done.returncode == 0, done.stderr
        return done

    def json(self, *args: str) -> dict:
        return json.loads(self(*args, "--json").stdout)

    def reached(self) -> Reached:
        return Reached.read(str(self.noted))


@pytest.fixture
def memlens(tmp_path) -> Memlens:
    return Memlens(tmp_path)


def no_linux_calls(reached: Reached) -> None:
    """No Linux-only call reached, and every file written as Windows would write it byte for byte."""
    assert reached.linux_calls == []
    assert reached.text_mode_writes == []


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def a_gone_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def debris(target: Path, pid: int) -> Path:
    """What a writer of `target` (process `pid`) leaves beside it when it is killed."""
    left = target.parent / f".{target.name}.{MARK}-{pid}-0123abcd.tmp"
    left.write_text("half written")
    return left


@pytest.fixture
def sleeper():
    """A running process that is not this one (it ends when its input closes)."""
    process = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    yield process.pid
    process.stdin.close()
    process.wait()


@pytest.fixture
def demo(memlens, tmp_path) -> Path:
    store = tmp_path / "demo.sqlite"
    memlens("demo", "--db", str(store))
    return store


def test_the_trip_wires_are_real_linux_calls_and_the_fixture_takes_each_away(monkeypatch, tmp_path):
    if not sys.platform.startswith("linux"):
        pytest.skip("the calls taken away are Linux's")
    assert hasattr(os, "getuid") and hasattr(os, "fork") and os.open in os.supports_dir_fd
    assert ctypes.CDLL(None).renameat2 and ctypes.CDLL(None).prctl
    os.kill(os.getpid(), 0)   # asks only
    folder = os.open(tmp_path, os.O_RDONLY)
    with monkeypatch.context() as patch:
        noted = Reached()
        take_away(patch, noted)
        assert not hasattr(os, "getuid") and not hasattr(os, "fork") and not os.supports_dir_fd
        with pytest.raises(AttributeError):
            ctypes.CDLL(None).renameat2
        with pytest.raises(LinuxOnlyCall):
            os.kill(os.getpid(), 0)
        with pytest.raises(LinuxOnlyCall):
            os.open("x", os.O_RDONLY, dir_fd=folder)
        os.close(os.open(tmp_path / "text", os.O_WRONLY | os.O_CREAT))
        os.close(os.open(tmp_path / "binary", os.O_WRONLY | os.O_CREAT | os.O_BINARY))
        assert noted.linux_calls == ["os.kill", "os.open(dir_fd=...)"]
        (tmp_path / "lines.txt").write_text("a\n")
        (tmp_path / "unix.txt").write_text("a\n", newline="\n")
        assert noted.text_mode_writes == [str(tmp_path / "text"), str(tmp_path / "lines.txt")]
        assert noted.portable["libc without renameat2"] == 1
    os.close(folder)
    assert hasattr(os, "getuid") and os.open in os.supports_dir_fd   # all given back


def test_a_new_store_a_fact_and_a_report_and_its_verify(memlens, demo, tmp_path, sleeper):
    assert demo.is_file() and memlens.json("stats", "--db", str(demo))["entities"] > 30   # made without flock
    memlens("remember", "--db", str(demo), NEW_FACT, "-e", "user said so")
    facts = memlens("facts", "--db", str(demo), "--json").stdout
    assert "Docker Compose" in facts and "uses" in facts

    report = tmp_path / "out" / "memory.html"
    report.parent.mkdir()
    killed, running = debris(report, a_gone_pid()), debris(report, sleeper)
    memlens("export", "--db", str(demo), "--format", "html", "-o", str(report))
    reached = memlens.reached()
    # Windows' process calls told the killed writer's temporary from the running one's
    assert not killed.exists() and running.exists() and reached.portable["OpenProcess"] >= 2
    assert b"Docker Compose" in report.read_bytes()
    assert any(Path(p).name.startswith(f".{report.name}.{MARK}-") for p in reached.opened)   # written by os.open
    memlens("verify", str(report))
    no_linux_calls(memlens.reached())


def test_a_site_regenerated_after_a_new_fact_is_a_fresh_build_and_verifies(memlens, demo, tmp_path):
    site = tmp_path / "site"
    memlens("export", "--db", str(demo), "--format", "site", "-o", str(site))
    memlens("verify", str(site))
    # its files were read by their whole path, each part checked, not relative to a folder's descriptor
    assert str(site / "manifest.json") in memlens.reached().opened

    memlens("bundles", "add", str(site), "--format", "site", "--db", str(demo))
    kept = carried_over(site, "site")
    memlens("remember", "--db", str(demo), NEW_FACT, "-e", "user said so")
    [hook] = [h for h in memlens.json("maintain", "--db", str(demo))["hooks"] if h["name"] == "regenerate-bundles"]
    assert hook["ok"] and hook["message"].startswith("wrote:"), hook
    # its new files written by their whole path, each folder on the way checked, not relative to a descriptor
    assert any(Path(p).parent == site and Path(p).name.startswith(f".manifest.json.{MARK}-")
               for p in memlens.reached().opened)

    # a fresh build of the same snapshot, by this (Linux) process
    with Memory(demo, readonly=True) as memory:
        snapshot = memory.sealed_snapshot()
    fresh = tmp_path / "fresh"
    write_bundle(snapshot, fresh, "site", changes=diff(kept.digest, snapshot, newer_from_the_store=True),
                 previous_layout=kept.layout, previous_looks=kept.looks)
    regenerated = tree(site)
    assert regenerated == tree(fresh)
    assert json.loads(regenerated["manifest.json"])["hash"] == memlens.json("stats", "--db", str(demo))["hash"]
    assert b"Docker Compose" in regenerated["snapshot.json"]
    memlens("verify", str(site))
    assert not [p.name for p in tmp_path.rglob("*") if f".{MARK}-" in p.name]   # no temporary left
    no_linux_calls(memlens.reached())


def test_a_report_and_a_site_import_into_new_datasets(memlens, demo, tmp_path):
    report, site = tmp_path / "r.html", tmp_path / "site"
    memlens("export", "--db", str(demo), "--format", "html", "-o", str(report))
    memlens("export", "--db", str(demo), "--format", "site", "-o", str(site))
    before = memlens.json("stats", "--db", str(demo))
    for bundle, dataset in ((report, "from-report"), (site, "from-site")):
        memlens("import", "--from", "memlens", str(bundle), "-d", dataset)
        after = memlens.json("stats", "-d", dataset)
        assert (after["entities"], after["facts"]) == (before["entities"], before["facts"]) and after["facts"] > 0
    assert str(site / "snapshot.json") in memlens.reached().opened
    no_linux_calls(memlens.reached())


def test_without_a_user_name_anywhere_writes_are_by_cli_unknown(memlens, tmp_path):
    store = tmp_path / "m.sqlite"
    memlens("remember", "--db", str(store), "a:Person --knows--> b:Person", env={**memlens.env, "USER": "dana"})
    # a Windows session without USERNAME: getpass has no pwd to ask
    nameless = {k: v for k, v in memlens.env.items() if k not in ("LOGNAME", "USER", "LNAME", "USERNAME")}
    memlens("remember", "--db", str(store), "a --knows--> c:Person", env=nameless)
    with Memory(store, readonly=True) as memory:
        actors = [row["actor"] for row in memory.conn.execute("SELECT actor FROM ledger ORDER BY seq")]
    assert "cli:dana" in actors and actors[-1] == "cli:unknown"
    no_linux_calls(memlens.reached())


@pytest.mark.slow
def test_the_mcp_server_remembers_recalls_and_writes_its_report(memlens, tmp_path, sleeper):
    from anyio.from_thread import start_blocking_portal
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp_types import Implementation

    params = StdioServerParameters(command=sys.executable, args=["-c", LAUNCH, "mcp", "-d", "alpha"],
                                   env={k: memlens.env[k] for k in ("MEMLENS_HOME", "MEMLENS_TEST_REACHED")},
                                   cwd=str(tmp_path))

    with start_blocking_portal() as portal, portal.wrap_async_context_manager(
            Client(params, client_info=Implementation(name="portable", version="1.0"))) as client:
        def data(tool: str, **arguments) -> dict:
            result = portal.call(client.call_tool, tool, arguments)
            assert not result.is_error, result.content[0].text
            return json.loads(result.content[0].text)

        fact = {"subject": "billing-service", "subject_type": "Service", "relation": "owned_by",
                "object": "alice", "object_type": "Person"}
        assert [f["outcome"] for f in data("remember", facts=[fact])["facts"]] == ["asserted"]
        first = data("view")
        report = Path(first["path"])
        killed, running = debris(report, a_gone_pid()), debris(report, sleeper)
        assert data("remember", facts=[{**fact, "relation": "reviewed_by", "object": "bob"}])["facts"]
        second = data("view")
        recalled = json.dumps(data("recall", query="billing-service reviewed_by"))

    assert first["written"] and second["written"] and second["path"] == first["path"]
    assert "bob" in recalled
    assert not killed.exists() and running.exists()
    assert memlens.reached().portable["OpenProcess"] >= 2
    memlens("verify", str(report))
    no_linux_calls(memlens.reached())
