"""A bundle is untrusted input: malformed shapes, gzip bombs, FIFOs and devices, future times, forged
bundles carrying the store's hash and broken manifests each end in one `Error:` line (or are written
again), never in a traceback, a hang or unbounded memory."""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any, Callable

import pytest

from memlens.store import datasets, demo, ledger
from memlens.store.snapshot.seal import sealed
from memlens.viewer.report.codec import _ELEMENT

MEMLENS = [sys.executable, "-c", "import sys; from memlens.viewer.cli.app import run; sys.argv[0] = 'memlens'; run()"]
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    demo.build(path).close()
    return path


@pytest.fixture(scope="module")
def demo_snapshot(demo_store, tmp_path_factory) -> dict[str, Any]:
    from memlens.store.memory import Memory

    with Memory(demo_store, readonly=True) as memory:
        return memory.snapshot()


def exported(cli, store: Path, fmt: str, out: Path) -> Path:
    result = cli("export", "--db", str(store), "--format", fmt, "-o", str(out))
    assert result.exit_code == 0, result.output
    return out


def one_error_line(result) -> str:
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert result.exit_code == 1 and len(errors) == 1, result.output
    assert "internal error" not in errors[0] and "Traceback" not in result.output
    return errors[0]


def resealed(snapshot: dict[str, Any]) -> dict[str, Any]:
    """`snapshot` as memlens would seal it after the change (its hash the head of its chain again)."""
    snapshot = {k: v for k, v in snapshot.items() if k != "seal"}
    try:
        snapshot["hash"] = "sha256:" + ledger.chain_of(snapshot["ledger"])[-1]
    except (KeyError, TypeError, AttributeError):
        return snapshot   # a ledger no chain can be made of: the bundle goes unsealed
    return sealed(snapshot)


# -- malformed shapes ---------------------------------------------------------------------------------

def _first_current(s: dict[str, Any]) -> dict[str, Any]:
    return next(f for f in s["facts"] if f["status"] == "current")


SHAPES: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "confidence high": (lambda s: s["contradictions"][0].update(confidence="high"),
                        "its 'confidence' is 'high', not a number from 0 to 1"),
    "confidence null": (lambda s: s["contradictions"][0].update(confidence=None),
                        "its 'confidence' is None, not a number from 0 to 1"),
    "entity without name": (lambda s: s["entities"][0].pop("name"), "its 'name' is missing"),
    "history x": (lambda s: _first_current(s).update(history="x"), "its 'history' is 'x'"),
    "evidence 5": (lambda s: _first_current(s).update(evidence=5), "its 'evidence' is 5, not a list of text"),
    "payload a list": (lambda s: s["ledger"][0].update(payload=[1, 2]), "ledger row 1: its 'payload' is [1, 2]"),
    "at a number": (lambda s: s["ledger"][0].update(at=12345), "ledger row 1: its 'at' is 12345, not a record time"),
    "reassertions 10**30": (lambda s: _first_current(s).update(reassertions=10 ** 30), "its 'reassertions' is 1000"),
    "subject that does not exist": (lambda s: _first_current(s).update(subject="0" * 8 + "-0000-0000-0000-" + "0" * 12),
                                    "its subject '00000000-0000-0000-0000-000000000000' is no entity of the snapshot"),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_each_malformed_bundle_shape_is_one_error_line_and_makes_no_dataset(cli, demo_snapshot, tmp_path, shape):
    change, words = SHAPES[shape]
    broken = copy.deepcopy(demo_snapshot)
    change(broken)
    bundle = tmp_path / "broken.json"
    bundle.write_text(json.dumps(resealed(broken)))
    args = ("import", "--from", "memlens", str(bundle), "-d", "broken", "--unsealed")
    assert words in one_error_line(cli(*args))
    assert not datasets.path_for("broken").exists()
    whole = tmp_path / "whole.json"
    whole.write_text(json.dumps(resealed(copy.deepcopy(demo_snapshot))))
    taken = cli("import", "--from", "memlens", str(whole), "-d", "whole")
    assert taken.exit_code == 0, taken.output


def test_a_bundle_from_the_future_is_refused_and_the_clock_stays(cli, demo_snapshot, tmp_path):
    future = copy.deepcopy(demo_snapshot)
    future["ledger"][-1]["at"] = "9999-12-31T00:00:00.000000Z"
    future["generated_at"] = "9999-12-31T00:00:00.000000Z"
    bundle = tmp_path / "future.json"
    bundle.write_text(json.dumps(resealed(future)))
    error = one_error_line(cli("import", "--from", "memlens", str(bundle), "-d", "future"))
    assert "9999-12-31T00:00:00.000000Z is later than now" in error
    assert not datasets.path_for("future").exists()
    present = tmp_path / "present.json"
    present.write_text(json.dumps(resealed(copy.deepcopy(demo_snapshot))))
    assert cli("import", "--from", "memlens", str(present), "-d", "present").exit_code == 0
    from memlens.store.memory import Memory

    with Memory(datasets.path_for("present"), readonly=True) as memory:
        assert max(row["at"] for row in memory.ledger()) < "9999"


# -- bounded reads -------------------------------------------------------------------------------------

def _bomb_report(report: Path, out: Path, inflated: int) -> Path:
    """The report with its texts block replaced by a gzip stream of `inflated` zero bytes."""
    # run-length matching compresses zeros as far as level 9 does, in half the time
    deflate = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS, 9, zlib.Z_RLE)
    zeros = bytes(1 << 24)
    parts = [deflate.compress(zeros) for _ in range(inflated >> 24)]
    parts.append(deflate.flush())
    import base64

    payload = base64.b64encode(b"".join(parts))
    page = report.read_bytes()
    match = next(m for m in _ELEMENT.finditer(page) if m.group(1) == b"memlens-texts")
    out.write_bytes(page[:match.start(2)] + payload + page[match.end(2):])
    return out


def _peak_rss_mb(args: list[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess]:
    """Run memlens ARGS in a child process; its peak resident memory in MB (ru_maxrss: KB on Linux,
    bytes on macOS), and what it printed."""
    probe = ("import json, resource, subprocess, sys\n"
             "done = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=120)\n"
             "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
             "print(json.dumps([peak / (1 << 20) if sys.platform == 'darwin' else peak / 1024, done.returncode, "
             "done.stdout, done.stderr]))")
    out = subprocess.run([sys.executable, "-c", probe, *MEMLENS, *args], capture_output=True, text=True,
                         env=env, timeout=180, check=True)
    peak, code, stdout, stderr = json.loads(out.stdout)
    return peak, subprocess.CompletedProcess(args, code, stdout, stderr)


def _refused_in_bounded_memory(runs: list[list[str]], env: dict[str, str], words: str, at_most: float) -> None:
    """Each memlens ARGS of `runs` ends in one Error line holding `words`, its peak memory under
    `at_most` MB."""
    for args in runs:
        peak, done = _peak_rss_mb(args, env)
        lines = (done.stdout + done.stderr).strip().splitlines()
        assert done.returncode == 1 and len(lines) == 1, (args, lines)
        assert words in lines[0], lines
        assert peak < at_most, (args, peak, at_most)


@pytest.mark.skipif(sys.platform == "win32", reason="resource is POSIX only")
def test_a_gzip_bomb_report_is_refused_in_bounded_memory_for_verify_diff_and_import(cli, demo_store, tmp_path, home):
    report = exported(cli, demo_store, "html", tmp_path / "report.html")
    # 256 MiB of zeros in a 1 MB page (1 GiB takes 7 s to compress, and is refused at the same point)
    bomb = _bomb_report(report, tmp_path / "bomb.html", 256 << 20)
    assert bomb.stat().st_size < 2 << 20
    env = {**os.environ, "MEMLENS_HOME": str(home)}
    baseline, good = _peak_rss_mb(["verify", str(report)], env)
    assert good.returncode == 0, good.stderr
    # the refusal inflates at most 32 times the page (1 MB here: 32 MB), not the bomb's 256 MiB
    _refused_in_bounded_memory([["verify", str(bomb)], ["diff", str(bomb), "--db", str(demo_store)],
                                ["import", "--from", "memlens", str(bomb), "-d", "bombed"]],
                               env, "its memlens-texts block is refused: it inflates past", baseline + 100)


def _run(args: list[str], home: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    """memlens ARGS in a child process, which must end (a FIFO read would block it for good)."""
    return subprocess.run([*MEMLENS, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "MEMLENS_HOME": str(home)})


def _one_line_refusal(done: subprocess.CompletedProcess, words: str) -> None:
    lines = (done.stdout + done.stderr).strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1 and lines[0].startswith("Error: "), lines
    assert words in lines[0], lines


@needs_fifo
def test_a_fifo_as_a_bundle_a_site_page_or_a_store_is_refused_without_hanging(cli, demo_store, tmp_path, home):
    fifo = tmp_path / "bundle.html"
    os.mkfifo(fifo)
    for args in (["verify", str(fifo)], ["diff", str(fifo), "--db", str(demo_store)],
                 ["import", "--from", "memlens", str(fifo), "-d", "piped"]):
        _one_line_refusal(_run(args, home), "is not a regular file (a FIFO, a device or a folder)")
    site = exported(cli, demo_store, "site", tmp_path / "site")
    assert _run(["verify", str(site)], home).returncode == 0
    page = next(p for p in sorted((site / "entities").iterdir()) if p.suffix == ".html")
    page.unlink()
    os.mkfifo(page)
    _one_line_refusal(_run(["verify", str(site)], home), "is not a regular file (a FIFO")
    (site / "snapshot.json").unlink()
    os.mkfifo(site / "snapshot.json")
    for args in (["verify", str(site)], ["diff", str(site), "--db", str(demo_store)]):
        _one_line_refusal(_run(args, home), "snapshot.json is not a regular file (a FIFO")
    store = tmp_path / "store.sqlite"
    os.mkfifo(store)
    for args in (["facts", "--db", str(store)], ["diff", str(exported(cli, demo_store, "json", tmp_path / "s.json")),
                                                 "--db", str(store)]):
        _one_line_refusal(_run(args, home), "is not a memlens store: it is not a regular file (a FIFO")
    assert _run(["facts", "--db", str(demo_store)], home).returncode == 0


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_a_bundle_linked_to_a_device_is_refused(cli, demo_store, tmp_path):
    link = tmp_path / "zero.html"
    link.symlink_to("/dev/zero")
    assert "zero.html is not a regular file (a FIFO, a device" in one_error_line(cli("verify", str(link)))
    assert "is not a regular file" in one_error_line(cli("import", "--from", "memlens", str(link), "-d", "zero"))
    report = exported(cli, demo_store, "html", tmp_path / "report.html")
    linked = tmp_path / "linked.html"
    linked.symlink_to(report)
    assert cli("verify", str(linked)).exit_code == 0   # a link to a report is read as the report


# -- "unchanged" is decided from what memlens wrote, never from the hash a bundle claims -----------------

def test_a_forged_report_carrying_the_stores_hash_is_not_unchanged(cli, demo_store, tmp_path):
    store = tmp_path / "store.sqlite"
    store.write_bytes(demo_store.read_bytes())
    report = tmp_path / "report.html"
    view = ("view", "--db", str(store), "--out", str(report), "--no-open", "--if-changed", "--json")
    assert json.loads(cli(*view).output)["written"] is True
    genuine = report.read_bytes()
    assert json.loads(cli(*view).output)["written"] is False   # the positive case: unchanged
    forged = genuine.replace(b"ask Dana which one production uses", b"production uses 8080, confirmed!!", 1)
    assert forged != genuine and b'name="memlens-snapshot-hash"' in forged
    report.write_bytes(forged)
    # not the report memlens wrote: never "unchanged", and not replaced either (memlens replaces only its own)
    assert "is not the report memlens wrote there" in one_error_line(cli(*view))
    assert report.read_bytes() == forged
    plain = cli("view", "--db", str(store), "--out", str(report), "--no-open")   # the user's own write takes it over
    assert plain.exit_code == 0 and report.read_bytes() == genuine
    assert json.loads(cli(*view).output)["written"] is False


def test_maintain_never_calls_a_forged_site_carrying_the_stores_hash_unchanged(cli, demo_store, tmp_path):
    store = tmp_path / "store.sqlite"
    store.write_bytes(demo_store.read_bytes())
    site = tmp_path / "site"
    assert cli("bundles", "add", str(site), "--format", "site", "--db", str(store)).exit_code == 0
    assert "wrote:" in cli("maintain", "--db", str(store)).output
    assert "unchanged:" in cli("maintain", "--db", str(store)).output
    snapshot = json.loads((site / "snapshot.json").read_text())
    snapshot["facts"][0]["description"] = "forged"
    (site / "snapshot.json").write_text(json.dumps(resealed(snapshot)))
    refused = cli("maintain", "--db", str(store))
    assert refused.exit_code == 1 and "regenerate-bundles: FAILED" in refused.output
    assert "snapshot.json is not the file memlens wrote there" in refused.output
    assert "forged" in (site / "snapshot.json").read_text()   # left as it was, for the user to look at
    assert cli("export", "--db", str(store), "--format", "site", "-o", str(site)).exit_code == 0
    assert "unchanged:" in cli("maintain", "--db", str(store)).output
    assert cli("verify", str(site)).exit_code == 0
    assert "forged" not in (site / "snapshot.json").read_text()


def test_diff_of_a_forged_bundle_carrying_the_stores_hash_is_refused(cli, demo_store, demo_snapshot, tmp_path):
    genuine = exported(cli, demo_store, "json", tmp_path / "genuine.json")
    result = cli("diff", str(genuine), "--db", str(demo_store))
    assert result.exit_code == 0 and "no changes" in result.output
    forged = copy.deepcopy(demo_snapshot)
    fact = _first_current(forged)
    fact["description"] = "forged"
    bundle = tmp_path / "forged.json"
    bundle.write_text(json.dumps(resealed(forged)))
    assert json.loads(bundle.read_text())["hash"] == demo_snapshot["hash"]
    error = one_error_line(cli("diff", str(bundle), "--db", str(demo_store)))
    assert "carry the same snapshot hash but not the same data" in error and fact["id"] in error
    unsealed = copy.deepcopy(forged)
    bundle.write_text(json.dumps(unsealed))
    result = cli("diff", str(bundle), "--db", str(demo_store))
    assert "carries no seal: its data is compared as it is, unchecked" in result.output
    assert "carry the same snapshot hash but not the same data" in result.output


# -- manifests, standard output, the bundles list ----------------------------------------------------------

def _manifest_listing(site: Path, name: str) -> None:
    manifest = json.loads((site / "manifest.json").read_text())
    manifest["files"][name] = "sha256:" + "0" * 64
    (site / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("name, words", [
    ("entities/a\u0000b.html", "which is no file name inside the site"),
    ("../outside.html", "which is no file name inside the site"),
    ("loop/page.html", "passes through a link or a file"),
    ("linked.html", "passes through a link or a file"),
])
def test_verify_of_a_manifest_with_a_link_a_loop_or_a_nul_is_one_line(cli, demo_store, tmp_path, name, words,
                                                                     monkeypatch):
    site = exported(cli, demo_store, "site", tmp_path / "site")
    (site / "loop").symlink_to("loop")   # a link to itself: resolving it never ends
    (site / "linked.html").symlink_to(site / "index.html")
    verified = cli("verify", str(site))   # beside the site: named, never followed
    assert verified.exit_code == 0 and "not the site's, not checked: linked.html, loop" in verified.output
    _manifest_listing(site, name)
    # drawn again by this memlens, the manifest is the first file that differs
    assert one_error_line(cli("verify", str(site))).endswith("manifest.json differs from what memlens writes from "
                                                             "the site's own data")
    # a site another memlens drew is checked against its manifest, whose names are checked first
    monkeypatch.setattr("memlens.viewer.report.page_check.renderer_id", lambda: "another memlens's")
    assert words in one_error_line(cli("verify", str(site)))


def test_export_json_to_dev_stdout_writes_the_json_and_nothing_else(cli, demo_store, tmp_path, home):
    result = cli("export", "--db", str(demo_store), "--format", "json", "-o", "/dev/stdout")
    assert result.exit_code == 0 and json.loads(result.stdout)["hash"]
    if os.path.exists("/dev/stdout"):
        out = tmp_path / "out.json"
        with out.open("w") as stdout:
            done = subprocess.run([*MEMLENS, "export", "--db", str(demo_store), "--format", "json", "-o", "/dev/stdout"],
                                  stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=120,
                                  env={**os.environ, "MEMLENS_HOME": str(home)})
        assert done.returncode == 0, done.stderr
        assert json.loads(out.read_text())["facts"]
    refused = cli("export", "--db", str(demo_store), "--format", "html", "-o", "/dev/stdout")
    assert refused.exit_code == 2 and "only --format json can be written to standard output" in refused.output


@pytest.mark.parametrize("entries", [[{"path": 5}], ["x"], [{"path": "/a", "format": "zip"}],
                                     [{"path": "/a", "format": "html", "extra": 1}], 5])
def test_bundles_list_with_a_bad_entry_is_one_error_line(cli, demo_store, home, tmp_path, entries):
    good = tmp_path / "r.html"
    assert cli("bundles", "add", str(good), "--db", str(demo_store)).exit_code == 0
    listed = cli("bundles", "list", "--db", str(demo_store))
    assert listed.exit_code == 0 and str(good) in listed.output
    config = home / "bundles.json"
    content = json.loads(config.read_text())
    content[next(iter(content))] = entries
    config.write_text(json.dumps(content))
    for args in (("bundles", "list"), ("bundles", "remove", str(good)), ("bundles", "add", str(good))):
        assert "fix or delete it" in one_error_line(cli(*args, "--db", str(demo_store)))
    maintained = cli("maintain", "--db", str(demo_store))   # the hook's line says why it failed
    assert one_error_line(maintained) and "fix or delete it" in maintained.output


# -- every record of a resealed snapshot has every field ------------------------------------------------

def _records_of(snapshot: dict[str, Any]) -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
    """A record of each kind the format lists, as a function of the snapshot that finds it."""
    return {
        "entity": lambda s: s["entities"][0],
        "fact": _first_current,
        "version": lambda s: _first_current(s)["history"][0],
        "contradiction": lambda s: s["contradictions"][0],
        "dismissal": lambda s: s["dismissals"][0],
        "maintenance item": lambda s: s["maintenance"][0],
        "ledger row": lambda s: s["ledger"][0],
    }


def _each_field(snapshot: dict[str, Any]) -> list[tuple[str, str]]:
    return [(kind, field) for kind, find in _records_of(snapshot).items() for field in sorted(find(snapshot))]


def _bundle_lacking(demo_snapshot: dict[str, Any], kind: str, field: str, out: Path) -> Path:
    broken = copy.deepcopy(demo_snapshot)
    del _records_of(broken)[kind](broken)[field]
    out.write_text(json.dumps(resealed(broken)))
    return out


def test_a_resealed_snapshot_lacking_any_field_is_one_error_line_for_verify_diff_and_import(
        cli, demo_store, demo_snapshot, tmp_path):
    whole = tmp_path / "whole.json"
    whole.write_text(json.dumps(resealed(copy.deepcopy(demo_snapshot))))
    assert cli("verify", str(whole)).exit_code == 0   # the positive case: nothing left out
    assert cli("diff", str(whole), "--db", str(demo_store)).exit_code == 0
    assert cli("import", "--from", "memlens", str(whole), "-d", "whole").exit_code == 0
    fields = _each_field(demo_snapshot)
    assert len(fields) > 40 and ("fact", "actor") in fields and ("fact", "reassertions") in fields
    for number, (kind, field) in enumerate(fields):
        bundle = _bundle_lacking(demo_snapshot, kind, field, tmp_path / f"lacking-{number}.json")
        for args in (("verify", str(bundle)), ("diff", str(bundle), "--db", str(demo_store)),
                     ("import", "--from", "memlens", str(bundle), "-d", f"lacking-{number}")):
            error = one_error_line(cli(*args))
            assert f"its {field!r} is missing" in error, (kind, field, args, error)
        assert not datasets.path_for(f"lacking-{number}").exists()


@pytest.mark.parametrize("records", ["entities", "facts", "contradictions", "dismissals", "maintenance", "ledger"])
def test_a_resealed_snapshot_whose_record_is_not_an_object_is_one_error_line(cli, demo_store, demo_snapshot,
                                                                             tmp_path, records):
    broken = copy.deepcopy(demo_snapshot)
    broken[records][0] = 1
    bundle = tmp_path / "broken.json"
    bundle.write_text(json.dumps(resealed(broken)))
    for args in (("verify", str(bundle)), ("diff", str(bundle), "--db", str(demo_store)),
                 ("import", "--from", "memlens", str(bundle), "-d", "broken", "--unsealed")):
        assert "is not a JSON object" in one_error_line(cli(*args)), args
    whole = tmp_path / "whole.json"
    whole.write_text(json.dumps(resealed(copy.deepcopy(demo_snapshot))))
    assert cli("verify", str(whole)).exit_code == 0


# -- what a bundle's JSON may cost to parse is bounded ------------------------------------------------------

def _empty_lists_gzip(count: int) -> bytes:
    """A gzip stream of `{"version": ..., "x": [[],[],...]}` with `count` empty lists: three bytes
    a value, and 64 bytes of Python objects each once parsed."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunk = b"[]," * (1 << 20)
    parts = [deflate.compress(b'{"version": "memlens-page/2", "x": [')]
    parts += [deflate.compress(chunk) for _ in range(count >> 20)]
    parts += [deflate.compress(b"[]]}"), deflate.flush()]
    return b"".join(parts)


@pytest.mark.skipif(sys.platform == "win32", reason="resource is POSIX only")
def test_a_report_whose_data_inflates_to_millions_of_values_is_refused_in_bounded_memory(cli, demo_store, tmp_path,
                                                                                        home):
    import base64

    report = exported(cli, demo_store, "html", tmp_path / "report.html")
    page = report.read_bytes()
    match = next(m for m in _ELEMENT.finditer(page) if m.group(1) == b"memlens-data")
    # 60 million values in 180 MB: within 32 times a 5.7 MB page, as the bomb that took 4.6 GB
    payload = base64.b64encode(_empty_lists_gzip(60 << 20))
    padding = b"<!--" + b" " * (6 << 20) + b"-->"
    bomb = tmp_path / "bomb.html"
    bomb.write_bytes(page[:match.start(2)] + payload + page[match.end(2):].replace(b"</body>", padding + b"</body>", 1))
    assert 6 << 20 < bomb.stat().st_size < 8 << 20
    env = {**os.environ, "MEMLENS_HOME": str(home)}
    baseline, good = _peak_rss_mb(["verify", str(report)], env)
    assert good.returncode == 0, good.stderr
    # the 180 MB of text it inflates to, and no more: parsed, it would take 4 GB
    _refused_in_bounded_memory([["verify", str(bomb)], ["diff", str(bomb), "--db", str(demo_store)],
                                ["import", "--from", "memlens", str(bomb), "-d", "bombed"]],
                               env, "its memlens-data block is refused: it holds more values than memlens reads",
                               baseline + 400)


@pytest.mark.skipif(sys.platform == "win32", reason="resource is POSIX only")
def test_a_site_snapshot_of_millions_of_values_is_refused_in_bounded_memory(cli, demo_store, tmp_path, home):
    site = exported(cli, demo_store, "site", tmp_path / "site")
    env = {**os.environ, "MEMLENS_HOME": str(home)}
    baseline, good = _peak_rss_mb(["diff", str(site), "--db", str(demo_store)], env)
    assert good.returncode == 0, good.stderr
    with (site / "snapshot.json").open("wb") as out:   # 40 MB: 2 GB once parsed
        out.write(b'{"format": "memlens-snapshot/1", "x": [')
        for _ in range(13):
            out.write(b"{}," * (1 << 20))
        out.write(b"{}]}")
    _refused_in_bounded_memory([["verify", str(site)], ["diff", str(site), "--db", str(demo_store)]],
                               env, "snapshot.json: it holds more values than memlens reads", baseline + 150)


def test_a_site_layout_of_millions_of_values_is_not_read(cli, demo_store, tmp_path):
    from memlens.viewer.reading import BundleUnreadable, read_layout

    site = exported(cli, demo_store, "site", tmp_path / "site")
    assert len(read_layout(site, "site")) > 40   # the positive case
    (site / "layout.json").write_bytes(b'{"a": [' + b"[]," * (30 << 20) + b"[]]}")
    with pytest.raises(BundleUnreadable, match="layout.json: it holds more values than memlens reads"):
        read_layout(site, "site")


def test_a_deeply_nested_manifest_is_one_error_line(cli, demo_store, tmp_path, monkeypatch):
    site = exported(cli, demo_store, "site", tmp_path / "site")
    assert cli("verify", str(site)).exit_code == 0
    (site / "manifest.json").write_bytes(b"[" * 100_000 + b"]" * 100_000)
    # drawn again by this memlens, the manifest is compared byte for byte, never parsed
    assert one_error_line(cli("verify", str(site))).endswith("manifest.json differs from what memlens writes from "
                                                             "the site's own data")
    # a site another memlens drew is checked against its manifest, parsed within bounds
    monkeypatch.setattr("memlens.viewer.report.page_check.renderer_id", lambda: "another memlens's")
    assert "nested too deeply" in one_error_line(cli("verify", str(site)))
