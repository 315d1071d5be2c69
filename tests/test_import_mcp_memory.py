"""The MCP reference memory server's file: read, viewed read-only, and imported again and again.

tests/fixtures/mcp_memory/state-*.jsonl are what the real server (2026.8.31) wrote after each of
three sessions (tests/mcp_memory_server.py SESSIONS): made, then changed (an observation deleted
and one added, a relation deleted, an entity deleted), then the entity made again.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from memlens.store import datasets
from memlens.store.importers import read_snapshot
from memlens.store.importers.mcp_memory import relation_name, type_for
from memlens.store.memory import Memory
from mcp_memory_server import FIXTURES, HOSTILE

STATES = [FIXTURES / f"state-{n}.jsonl" for n in (1, 2, 3)]


@pytest.fixture
def memory_file(tmp_path: Path) -> Path:
    """Where the server keeps its file: one path that each session rewrites."""
    path = tmp_path / "server" / "memory.jsonl"
    path.parent.mkdir()
    shutil.copyfile(STATES[0], path)
    return path


def becomes(path: Path, state: Path) -> None:
    """The server's next session, as it writes: a new file renamed over the old one."""
    fresh = path.with_name(path.name + ".tmp")
    shutil.copyfile(state, fresh)
    os.replace(fresh, path)


def fingerprint(path: Path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def by_name(snapshot: dict) -> dict[str, dict]:
    return {e["name"]: e for e in snapshot["entities"]}


def triples(snapshot: dict, status: str = "current") -> set[tuple[str, str, str]]:
    names = {e["id"]: e["name"] for e in snapshot["entities"]}
    return {(names[f["subject"]], f["relation"], names[f["object"]]) for f in snapshot["facts"] if f["status"] == status}


def observations(snapshot: dict, entity: str, status: str = "current") -> list[str]:
    """The entity's observations in the order they are listed under it: by their places."""
    by_id = {e["id"]: e for e in snapshot["entities"]}
    noted = [by_id[f["object"]] for f in snapshot["facts"]
             if f["status"] == status and f["relation"] == "observation" and by_id[f["subject"]]["name"] == entity]
    return [e["name"] for e in sorted(noted, key=lambda e: e["observation_position"])]


def file_order(state: Path, entity: str) -> list[str]:
    """An entity's observations as the server's file lists them."""
    lines = [json.loads(line) for line in state.read_text().splitlines() if line.strip()]
    return next(line["observations"] for line in lines if line["type"] == "entity" and line["name"] == entity)


def dataset_snapshot(home: Path, name: str = "mcp") -> dict:
    with Memory(datasets.resolve(None, name), readonly=True) as memory:
        return memory.snapshot()


# -- reading --------------------------------------------------------------------------------------

def test_the_servers_file_reads_as_typed_entities_ordered_observations_and_relations():
    snapshot = read_snapshot("mcp-memory", STATES[0])
    entities = by_name(snapshot)
    assert {name: entities[name]["type"] for name in ("billing-service", "Priya Natarajan", "payments-db", HOSTILE)} == {
        "billing-service": "Service", "Priya Natarajan": "Person", "payments-db": "Database",
        HOSTILE: '<img src=x onerror="alert(2)">'}
    assert observations(snapshot, "billing-service") == file_order(STATES[0], "billing-service") == [
        "Invoices merchants monthly", "Written in Go", "Retries failed charges 3 times"]
    assert {(s, r, o) for s, r, o in triples(snapshot) if r != "observation"} == {
        ("billing-service", "owned_by", "Priya Natarajan"), ("billing-service", "stores_data_in", "payments-db"),
        ("billing-service", "depends_on", "Stripe"), (HOSTILE, "links_script_to", "billing-service")}
    renamed = {f["relation"]: f["description"] for f in snapshot["facts"] if f["relation"] != "observation"}
    assert renamed == {"owned_by": "", "depends_on": "", "stores_data_in": 'relationType as written: "stores data in"',
                       "links_script_to": 'relationType as written: "links </script> to"'}


def test_a_name_only_a_relation_gives_is_an_unknown_entity_not_an_error():
    entities = by_name(read_snapshot("mcp-memory", STATES[0]))
    assert entities["Stripe"]["type"] == "Unknown"
    assert entities["Stripe"]["description"] == "not an entity in state-1.jsonl: only a relation names it"
    assert entities["billing-service"]["description"] == ""


def test_hostile_text_arrives_verbatim():
    snapshot = read_snapshot("mcp-memory", STATES[0])
    names = set(by_name(snapshot))
    assert HOSTILE in names
    assert {"{{ 7*7 }}", "javascript:alert(3)", "\x1b[31mred\x1b[0m <b>bold</b>"} <= names


def test_entity_types_map_to_the_ontology_where_one_fits_and_are_kept_otherwise():
    assert [type_for(t) for t in ("person", "developers", "Company", "repo", "Services", "issue")] == [
        "Person", "Person", "Organization", "Repository", "Service", "Bug"]
    assert [type_for(t) for t in ("programming language", "bus", "  ", "</b>", "technology", "API")] == [
        "Programming language", "Bus", "Unknown", "</b>", "Technology", "API"]   # one case, as Person is


def test_relation_types_become_relation_names_by_one_rule():
    assert [relation_name(r) for r in ("works at", "owned_by", "a --> b", "  x\ty ", "développé par", "")] == [
        "works_at", "owned_by", "a_b", "x_y", "développé_par", "related_to"]


def test_two_spellings_of_one_relation_are_one_fact_that_shows_both(tmp_path: Path):
    path = tmp_path / "memory.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in [
        {"type": "entity", "name": "a", "entityType": "x", "observations": []},
        {"type": "relation", "from": "a", "to": "b", "relationType": "works at"},
        {"type": "relation", "from": "a", "to": "b", "relationType": "works  at"},
        {"type": "relation", "from": "a", "to": "b", "relationType": "works_at"}]))
    [fact] = read_snapshot("mcp-memory", path)["facts"]
    assert fact["relation"] == "works_at"
    assert fact["description"] == 'relationType as written: "works at"; relationType as written: "works  at"'


# -- read-only ------------------------------------------------------------------------------------

def test_view_and_import_leave_the_file_byte_for_byte(cli, memory_file: Path, tmp_path: Path):
    before = fingerprint(memory_file)
    beside = sorted(p.name for p in memory_file.parent.iterdir())
    report = tmp_path / "report.html"
    result = cli("view", "--from", "mcp-memory", str(memory_file), "--out", str(report), "--no-open")
    assert result.exit_code == 0, result.output
    assert report.stat().st_size > 100_000 and "billing-service" in report.read_text()
    assert cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp").exit_code == 0
    assert fingerprint(memory_file) == before
    assert sorted(p.name for p in memory_file.parent.iterdir()) == beside


def test_viewing_the_same_file_twice_gives_the_same_report(cli, memory_file: Path, tmp_path: Path):
    report = tmp_path / "report.html"
    assert cli("view", "--from", "mcp-memory", str(memory_file), "--out", str(report), "--no-open").exit_code == 0
    again = cli("view", "--from", "mcp-memory", str(memory_file), "--out", str(report), "--no-open", "--if-changed")
    assert again.exit_code == 0 and "unchanged" in again.output
    becomes(memory_file, STATES[1])
    changed = cli("view", "--from", "mcp-memory", str(memory_file), "--out", str(report), "--no-open", "--if-changed")
    assert changed.exit_code == 0 and "unchanged" not in changed.output


# -- history it never kept ------------------------------------------------------------------------

def test_importing_again_retracts_what_vanished_and_asserts_what_is_new(cli, home, memory_file: Path):
    first = cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp", "--json")
    assert first.exit_code == 0, first.output
    assert json.loads(first.output)["asserted"] == 12
    before = dataset_snapshot(home)
    becomes(memory_file, STATES[1])
    digest = "sha256:" + hashlib.sha256(memory_file.read_bytes()).hexdigest()
    second = cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp", "--json")
    assert second.exit_code == 0, second.output
    counts = json.loads(second.output)
    assert (counts["asserted"], counts["retracted"], counts["restored"], counts["file_digest"]) == (1, 4, 0, digest)

    after = dataset_snapshot(home)
    assert triples(after, "retracted") == {
        ("billing-service", "observation", "Written in Go"), ("billing-service", "stores_data_in", "payments-db"),
        ("billing-service", "owned_by", "Priya Natarajan"),
        ("Priya Natarajan", "observation", "Leads the payments team")}
    assert triples(after) == triples(before) - triples(after, "retracted") | {
        ("billing-service", "observation", "Rewritten in Rust")}
    retracted = [f for f in after["facts"] if f["status"] == "retracted"]
    assert {f["history"][-1]["reason"] for f in retracted} == {f"gone from memory.jsonl ({digest[:23]})"}
    [new] = [f for f in after["facts"] if f["history"][0]["from"] > before["generated_at"]]
    assert new["evidence"] == [f"memory.jsonl {digest[:23]}"]
    assert {f["history"][-1]["from"] for f in retracted} == {new["recorded_at"]}  # one import, one record time


def test_an_entity_deleted_and_made_again_is_one_entity_with_a_gap(cli, home, memory_file: Path):
    times = []
    for state in STATES:
        becomes(memory_file, state)
        result = cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp")
        assert result.exit_code == 0, result.output
        times.append(dataset_snapshot(home)["generated_at"])
    snapshot = dataset_snapshot(home)
    assert [e["name"] for e in snapshot["entities"]].count("Priya Natarajan") == 1
    [lead] = [f for f in snapshot["facts"] if f["relation"] == "observation"
              and by_name(snapshot)["Priya Natarajan"]["id"] == f["subject"]]
    assert [(v["status"], v["from"]) for v in lead["history"]] == [
        ("current", times[0]), ("retracted", times[1]), ("current", times[2])]
    assert lead["history"][-1]["reason"].startswith("back in memory.jsonl (sha256:")
    # "Written in Go", deleted then added again, is listed where the file has it now: last
    assert observations(snapshot, "billing-service") == file_order(STATES[2], "billing-service") == [
        "Invoices merchants monthly", "Retries failed charges 3 times", "Rewritten in Rust", "Written in Go"]


def test_time_travel_and_diff_see_each_import(cli, home, memory_file: Path, tmp_path: Path):
    assert cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp").exit_code == 0
    first_time = dataset_snapshot(home)["generated_at"]
    old = tmp_path / "old.json"
    assert cli("export", "-d", "mcp", "--format", "json", "-o", str(old)).exit_code == 0
    becomes(memory_file, STATES[1])
    assert cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp").exit_code == 0
    then = cli("facts", "-d", "mcp", "--as-of-record", first_time, "--json")
    now = cli("facts", "-d", "mcp", "--json")
    assert then.exit_code == 0 and now.exit_code == 0, then.output + now.output
    assert "Written in Go" in then.output and "Written in Go" not in now.output
    assert "Rewritten in Rust" in now.output and "Rewritten in Rust" not in then.output
    diff = cli("diff", str(old), "-d", "mcp")
    assert diff.exit_code == 0, diff.output
    assert "Rewritten in Rust" in diff.output and "stores_data_in" in diff.output
    # the observation came as the fact that notes it: no entity was added
    assert "facts added (1)" in diff.output and "entities added" not in diff.output


def test_an_unchanged_file_imports_as_nothing_at_all(cli, home, memory_file: Path):
    assert cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp").exit_code == 0
    hashed = dataset_snapshot(home)["hash"]
    again = cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp")
    assert again.exit_code == 0 and "nothing changed" in again.output
    assert dataset_snapshot(home)["hash"] == hashed


def test_a_dataset_from_elsewhere_is_refused_and_nothing_is_written(cli, home, memory_file: Path, tmp_path: Path):
    assert cli("remember", "-d", "mine", "api:Service --uses--> redis:Library").exit_code == 0
    refused = cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mine")
    assert refused.exit_code == 1 and refused.output.startswith("Error: dataset mine already holds memories")
    assert triples(dataset_snapshot(home, "mine")) == {("api", "uses", "redis")}
    other = tmp_path / "other" / "memory.jsonl"
    other.parent.mkdir()
    shutil.copyfile(STATES[1], other)
    assert cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp").exit_code == 0
    again = cli("import", "--from", "mcp-memory", str(other), "-d", "mcp")
    assert again.exit_code == 1 and "not imported from" in again.output
    assert not triples(dataset_snapshot(home), "retracted")


def test_facts_a_memlens_user_wrote_or_forgot_are_left_alone(cli, home, memory_file: Path):
    assert cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp").exit_code == 0
    assert cli("remember", "-d", "mcp", "billing-service --runs_on--> k8s:Environment").exit_code == 0
    snapshot = dataset_snapshot(home)
    [stripe] = [f for f in snapshot["facts"] if f["relation"] == "depends_on"]
    assert cli("forget", "fact", stripe["id"], "-d", "mcp").exit_code == 0
    becomes(memory_file, STATES[2])
    result = cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["kept_forgotten"] == 1
    after = dataset_snapshot(home)
    assert ("billing-service", "runs_on", "k8s") in triples(after)
    assert not any(f["id"] == stripe["id"] and f["status"] != "forgotten" for f in after["facts"])


# -- malformed files ------------------------------------------------------------------------------

GOOD = '{"type":"entity","name":"a","entityType":"thing","observations":["one"]}'


def write_lines(path: Path, *lines: str, newline: str = "\n") -> Path:
    path.write_bytes(newline.join(lines).encode())
    return path


def test_malformed_lines_are_one_error_by_line_number_and_nothing_is_written(cli, home, tmp_path: Path):
    path = write_lines(tmp_path / "memory.jsonl", GOOD, "{not json", "", '{"type":"note","text":"x"}',
                       '{"type":"relation","from":"a","to":"b"}', '{"type":"entity","name":"b","entityType":"x","observations":"z"}',
                       '[1, 2]')
    result = cli("import", "--from", "mcp-memory", str(path), "-d", "mcp")
    assert result.exit_code == 1
    [line] = result.output.strip().splitlines()
    assert line.startswith(f"Error: {path} is not a mcp-memory file memlens can read whole: line 2: not JSON")
    assert "line 4: unknown type \"note\"" in line and "line 5: relation without 'relationType'" in line
    assert "and 2 more malformed lines" in line
    assert not datasets.resolve(None, "mcp").exists()

    lenient = cli("import", "--from", "mcp-memory", str(path), "-d", "mcp", "--lenient", "--json")
    assert lenient.exit_code == 0, lenient.output
    assert "skipped 5 malformed lines of memory.jsonl (lines 2, 4, 5, 6, 7)" in lenient.stderr
    assert json.loads(lenient.stdout)["skipped_lines"] == 5
    assert triples(dataset_snapshot(home)) == {("a", "observation", "one")}


def test_a_byte_order_mark_and_crlf_line_ends_are_read_as_the_server_would(tmp_path: Path):
    lines = [GOOD, '{"type":"relation","from":"a","to":"b","relationType":"knows"}']
    plain = read_snapshot("mcp-memory", write_lines(tmp_path / "plain.jsonl", *lines))
    marked = tmp_path / "marked.jsonl"
    marked.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(lines).encode() + b"\r\n")
    assert triples(read_snapshot("mcp-memory", marked)) == triples(plain) == {
        ("a", "observation", "one"), ("a", "knows", "b")}


def test_a_huge_line_is_refused_by_number_and_skipped_when_lenient(tmp_path: Path):
    from memlens.store.importers.mcp_memory.file import MAX_LINE_BYTES, MalformedLines

    huge = json.dumps({"type": "entity", "name": "big", "entityType": "x", "observations": ["x" * MAX_LINE_BYTES]})
    path = write_lines(tmp_path / "memory.jsonl", GOOD, huge)
    with pytest.raises(MalformedLines, match="line 2: longer than 4 MiB"):
        read_snapshot("mcp-memory", path)
    notes: list[str] = []
    snapshot = read_snapshot("mcp-memory", path, lenient=True, note=notes.append)
    assert set(by_name(snapshot)) == {"a", "one"} and notes == ["skipped 1 malformed line of memory.jsonl (line 2)"]


def test_a_file_over_the_size_bound_is_refused_before_it_is_read(cli, tmp_path: Path, monkeypatch):
    from memlens.store.importers.mcp_memory import file as mcp_memory_file

    path = write_lines(tmp_path / "memory.jsonl", GOOD, GOOD.replace('"a"', '"b"'))
    monkeypatch.setattr(mcp_memory_file, "MAX_FILE_BYTES", len(path.read_bytes()) - 1)
    result = cli("view", "--from", "mcp-memory", str(path), "--no-open", "--out", str(tmp_path / "r.html"))
    assert result.exit_code == 1 and result.output.startswith("Error: ") and "is 145 bytes, more than the 144 memlens reads" in result.output
    monkeypatch.setattr(mcp_memory_file, "MAX_FILE_BYTES", len(path.read_bytes()))
    assert cli("view", "--from", "mcp-memory", str(path), "--no-open", "--out", str(tmp_path / "r.html")).exit_code == 0


# -- where the file is ----------------------------------------------------------------------------

@pytest.fixture
def no_npm(monkeypatch, tmp_path: Path) -> Path:
    """No node on PATH, no npm settings, an empty home: only what a test puts there is found."""
    for variable in ("MEMORY_FILE_PATH", "NPM_CONFIG_PREFIX", "npm_config_prefix", "npm_config_cache",
                     "NPM_CONFIG_CACHE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


def installed_server(root: Path, state: Path | None = None) -> Path:
    dist = root / "@modelcontextprotocol" / "server-memory" / "dist"
    dist.mkdir(parents=True)
    (dist / "index.js").write_text("")
    if state is not None:
        shutil.copyfile(state, dist / "memory.jsonl")
    return dist


def test_memory_file_path_is_read_first(cli, no_npm: Path, memory_file: Path, monkeypatch):
    monkeypatch.setenv("MEMORY_FILE_PATH", str(memory_file))
    result = cli("export", "--from", "mcp-memory", "--format", "json", "-o", "-")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["dataset"] == "mcp-memory:memory.jsonl"


def test_the_file_beside_a_global_install_and_the_newest_npx_copy_are_found(no_npm: Path, monkeypatch):
    from memlens.store.importers import locate

    monkeypatch.setenv("npm_config_cache", str(no_npm / "cache"))
    older = installed_server(no_npm / "cache" / "_npx" / "aaa" / "node_modules", STATES[0])
    newer = installed_server(no_npm / "cache" / "_npx" / "bbb" / "node_modules", STATES[1])
    os.utime(older / "memory.jsonl", (2_000_000_000, 2_000_000_000))
    os.utime(newer / "memory.jsonl", (1_000_000_000, 1_000_000_000))
    assert locate("mcp-memory") == older / "memory.jsonl"

    monkeypatch.setenv("NPM_CONFIG_PREFIX", str(no_npm / "prefix"))
    modules = no_npm / "prefix" / ("node_modules" if os.name == "nt" else "lib/node_modules")
    global_dist = installed_server(modules, STATES[2])
    assert locate("mcp-memory") == global_dist / "memory.jsonl"
    # a relative MEMORY_FILE_PATH is taken from the server's folder, as the server takes it
    shutil.copyfile(STATES[0], global_dist / "mine.jsonl")
    monkeypatch.setenv("MEMORY_FILE_PATH", "mine.jsonl")
    assert locate("mcp-memory") == global_dist / "mine.jsonl"


def test_no_file_anywhere_is_one_error_saying_where_it_looked(cli, no_npm: Path):
    result = cli("view", "--from", "mcp-memory", "--no-open")
    assert result.exit_code == 1
    [line] = result.output.strip().splitlines()
    assert line.startswith("Error: no MCP memory file found (looked beside the server's copies in ")
    assert "/node_modules" in line
    assert line.endswith("set MEMORY_FILE_PATH to the file the server writes, or give its path")
    assert len(line) < 300


def test_lenient_goes_with_mcp_memory_only(cli, tmp_path: Path):
    path = write_lines(tmp_path / "memory.jsonl", GOOD, "{oops")
    report = tmp_path / "r.html"
    viewed = cli("view", "--from", "mcp-memory", str(path), "--lenient", "--no-open", "--out", str(report))
    assert viewed.exit_code == 0 and "skipped 1 malformed line of memory.jsonl (line 2)" in viewed.stderr
    assert report.exists()
    other = cli("view", "--from", "memware", str(path), "--lenient", "--no-open")
    assert other.exit_code == 2 and "--lenient goes with --from mcp-memory" in other.output


def test_a_name_only_a_relation_gave_takes_its_type_when_the_entity_is_made(cli, home, tmp_path: Path):
    path = write_lines(tmp_path / "memory.jsonl", GOOD, '{"type":"relation","from":"a","to":"Stripe","relationType":"uses"}')
    assert cli("import", "--from", "mcp-memory", str(path), "-d", "mcp").exit_code == 0
    assert by_name(dataset_snapshot(home))["Stripe"]["type"] == "Unknown"
    write_lines(path, GOOD, '{"type":"entity","name":"Stripe","entityType":"company","observations":[]}',
                '{"type":"relation","from":"a","to":"Stripe","relationType":"uses"}')
    result = cli("import", "--from", "mcp-memory", str(path), "-d", "mcp", "--json")
    assert result.exit_code == 0 and json.loads(result.output)["retyped"] == 1
    stripe = by_name(dataset_snapshot(home))["Stripe"]
    assert (stripe["type"], stripe["description"]) == ("Organization", "")
    assert triples(dataset_snapshot(home)) == {("a", "observation", "one"), ("a", "uses", "Stripe")}


def test_the_servers_file_given_as_a_memlens_store_is_named_with_the_from_that_reads_it(cli, tmp_path: Path):
    result = cli("stats", "--db", str(STATES[0]))
    assert result.exit_code == 1
    assert result.output.strip() == (f"Error: {STATES[0]} is not a memlens store: it is an MCP memory server's file; "
                                     f"read it with `--from mcp-memory {STATES[0]}`")
    other = write_lines(tmp_path / "notes.txt", "just some notes")
    assert cli("stats", "--db", str(other)).output.strip().endswith("it is not a SQLite database")


@pytest.mark.parametrize("line, problem", [
    ('{"type":"entity","name":"n","entityType":"x","observations":["' + "1" * 5000 + '"], "n": ' + "9" * 5000 + "}",
     "a number too long to read"),
    ('{"type":"entity","name":"bad\\ud800","entityType":"x","observations":[]}', "not valid Unicode text (a lone surrogate U+D800)"),
    ("[" * 5000 + "]" * 5000, "JSON nested too deeply to read"),
])
def test_a_line_no_store_could_hold_is_named_and_skipped_when_lenient(cli, home, tmp_path: Path, line, problem):
    path = write_lines(tmp_path / "memory.jsonl", GOOD, line)
    refused = cli("import", "--from", "mcp-memory", str(path), "-d", "mcp")
    [said] = refused.output.strip().splitlines()
    assert refused.exit_code == 1 and f"line 2: {problem}" in said and "internal error" not in said, said
    assert not datasets.resolve(None, "mcp").exists()
    lenient = cli("import", "--from", "mcp-memory", str(path), "-d", "mcp", "--lenient")
    assert lenient.exit_code == 0, lenient.output
    assert "skipped 1 malformed line of memory.jsonl (line 2)" in lenient.stderr
    assert triples(dataset_snapshot(home)) == {("a", "observation", "one")}


def test_an_empty_file_is_refused_as_a_torn_write_unless_allowed(cli, home, memory_file: Path):
    assert cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp").exit_code == 0
    held = triples(dataset_snapshot(home))
    assert held   # the positive case: the server's file, imported
    for empty in (b"", b"\n\n", b"\xef\xbb\xbf  \r\n"):
        memory_file.write_bytes(empty)
        for args in (("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp"),
                     ("view", "--from", "mcp-memory", str(memory_file), "--no-open", "--out", str(home / "r.html"))):
            refused = cli(*args)
            [said] = refused.output.strip().splitlines()
            assert refused.exit_code == 1 and "is empty" in said and "--allow-empty" in said, said
        assert triples(dataset_snapshot(home)) == held   # nothing retracted
    allowed = cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp", "--allow-empty")
    assert allowed.exit_code == 0, allowed.output
    assert triples(dataset_snapshot(home)) == set() and triples(dataset_snapshot(home), "retracted") == held
    misplaced = cli("import", "--from", "memoose", str(memory_file), "-d", "x", "--allow-empty")
    assert misplaced.exit_code == 2 and "--allow-empty goes with --from mcp-memory" in misplaced.output


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize("tool", ["mcp-memory", "memoose", "memware", "mnemo"])
def test_a_fifo_given_as_another_tools_store_is_refused_without_waiting(home, tmp_path: Path, tool):
    import subprocess
    import sys

    fifo = tmp_path / "store.fifo"
    os.mkfifo(fifo)
    run = [sys.executable, "-c", "import sys; from memlens.viewer.cli.app import run; sys.argv[0] = 'memlens'; run()"]
    env = {**os.environ, "MEMLENS_HOME": str(home)}
    for args in (["view", "--from", tool, str(fifo), "--no-open", "--out", str(tmp_path / "r.html")],
                 ["import", "--from", tool, str(fifo), "-d", "piped"]):
        done = subprocess.run([*run, *args], capture_output=True, text=True, timeout=60, env=env)
        lines = (done.stdout + done.stderr).strip().splitlines()
        assert done.returncode == 1 and len(lines) == 1 and "is not a regular file (a FIFO" in lines[0], lines
    assert not datasets.resolve(None, "piped").exists()
    if tool == "mcp-memory":   # the positive case: a regular file at that path is read
        fifo.unlink()
        write_lines(fifo, GOOD)
        done = subprocess.run([*run, "import", "--from", tool, str(fifo), "-d", "piped"], capture_output=True,
                              text=True, timeout=60, env=env)
        assert done.returncode == 0, done.stderr


def test_an_owner_changed_in_the_file_is_a_supersession(cli, tmp_path: Path):
    path = tmp_path / "memory.jsonl"
    entities = [{"type": "entity", "name": n, "entityType": t, "observations": []}
                for n, t in (("billing", "service"), ("dana", "person"), ("priya", "person"), ("kafka", "library"))]

    def file_says(*relations: tuple[str, str, str]) -> None:
        write_lines(path, *(json.dumps(e) for e in entities),
                    *(json.dumps({"type": "relation", "from": a, "to": b, "relationType": r}) for a, r, b in relations))

    file_says(("billing", "owned by", "dana"), ("billing", "uses", "kafka"))
    assert cli("import", "--from", "mcp-memory", str(path), "-d", "mm").exit_code == 0
    file_says(("billing", "owned by", "priya"))
    changed = json.loads(cli("import", "--from", "mcp-memory", str(path), "-d", "mm", "--json").output)
    assert (changed["superseded"], changed["retracted"], changed["asserted"]) == (1, 1, 1)
    facts = {f["object_name"]: f for f in json.loads(cli("facts", "--all", "-d", "mm", "--json").output)}
    assert facts["dana"]["status"] == "superseded" and facts["dana"]["superseded_by"] == facts["priya"]["id"]
    assert facts["kafka"]["status"] == "retracted"        # gone, and nothing took its place

    # with owned_by declared functional, the order replaces dana (the import stopped on it: "already
    # superseded"); the file then drops priya too: nobody owns billing, as the file says (a value
    # gone from the file is not said, not wrong: what it replaced is not reopened)
    file_says(("billing", "owned by", "dana"))
    assert cli("import", "--from", "mcp-memory", str(path), "-d", "mm2").exit_code == 0
    assert cli("functional", "owned_by", "-d", "mm2").exit_code == 0
    file_says(("billing", "owned by", "priya"))
    changed = json.loads(cli("import", "--from", "mcp-memory", str(path), "-d", "mm2", "--json").output)
    assert (changed["superseded"], changed["retracted"], changed["asserted"]) == (1, 0, 1)   # by the order
    owners = [f["object_name"] for f in json.loads(cli("facts", "-d", "mm2", "--json").output)]
    assert owners == ["priya"]
    file_says()
    assert cli("import", "--from", "mcp-memory", str(path), "-d", "mm2").exit_code == 0
    assert [f for f in json.loads(cli("facts", "-d", "mm2", "--json").output) if f["relation"] == "owned_by"] == []


# -- observations: notes on an entity, listed under it, never counted as entities ----------------

def places(snapshot: dict) -> dict[str, list[int]]:
    """Entity name -> the places of every observation it ever had here (current or not)."""
    by_id = {e["id"]: e for e in snapshot["entities"]}
    found: dict[str, list[int]] = {}
    for fact in snapshot["facts"]:
        if fact["relation"] == "observation":
            found.setdefault(by_id[fact["subject"]]["name"], []).append(by_id[fact["object"]]["observation_position"])
    return found


def test_observations_are_counted_apart_from_entities(cli, home, memory_file: Path):
    snapshot = read_snapshot("mcp-memory", STATES[0])
    observed = [e for e in snapshot["entities"] if "observation_position" in e]
    entities = [e for e in snapshot["entities"] if "observation_position" not in e]
    assert sorted(e["name"] for e in entities) == sorted(["billing-service", "Priya Natarajan", "payments-db", HOSTILE, "Stripe"])
    assert len(observed) == 8 and {e["type"] for e in observed} == {"Observation"}
    assert (snapshot["stats"]["entities"], snapshot["stats"]["observations"]) == (5, 8)

    assert cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp").exit_code == 0
    stats = cli("stats", "-d", "mcp", "--json")
    assert (json.loads(stats.output)["entities"], json.loads(stats.output)["observations"]) == (5, 8)
    assert cli("stats", "-d", "mcp").output.startswith("5 entities with 8 observations, 12 facts (12 current")
    brief = cli("brief", "-d", "mcp").output
    assert "Memory of mcp: 5 entities with 8 observations, 12 current facts" in brief
    remembers = next(line for line in brief.splitlines() if line.startswith("It remembers: "))
    assert "1 Service" in remembers and "Observation" not in remembers
    assert "(Observation," not in brief and "billing-service (Service, 7 current facts):" in brief


def test_observations_are_listed_in_the_files_order_at_every_import(cli, home, memory_file: Path):
    moved = memory_file.parent / "moved.jsonl"   # a hand edit the server never makes: the list reordered
    lines = STATES[2].read_text().splitlines()
    first = json.loads(lines[0])
    first["observations"] = first["observations"][::-1]
    moved.write_text("\n".join([json.dumps(first), *lines[1:]]))
    for state in (*STATES, moved):
        becomes(memory_file, state)
        assert cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp").exit_code == 0
        snapshot = dataset_snapshot(home)
        for entity in ("billing-service", "payments-db", HOSTILE):
            assert observations(snapshot, entity) == file_order(state, entity), (state.name, entity)
        # no two observations of an entity share a place, held or not: the list has one order
        assert all(len(set(held)) == len(held) for held in places(snapshot).values())
    assert observations(snapshot, "billing-service") == [
        "Written in Go", "Rewritten in Rust", "Retries failed charges 3 times", "Invoices merchants monthly"]
    assert observations(snapshot, "billing-service", "retracted") == []


def test_observations_of_an_import_from_before_places_are_placed_by_the_next(cli, home, memory_file: Path):
    import sqlite3

    assert cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp").exit_code == 0
    # what an import wrote before observations had places: `001. text`, and no place
    with sqlite3.connect(datasets.resolve(None, "mcp")) as conn:
        conn.execute("""UPDATE entities SET observation_position = NULL,
                        name = printf('%03d. ', observation_position) || name WHERE observation_position IS NOT NULL""")
    old = dataset_snapshot(home)
    assert "001. Invoices merchants monthly" in by_name(old)
    assert old["stats"]["entities"] == 13 and "observations" not in old["stats"]   # then, all were entities
    again = cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp", "--json")
    assert again.exit_code == 0 and json.loads(again.output)["placed"] == 8
    snapshot = dataset_snapshot(home)
    assert (snapshot["stats"]["entities"], snapshot["stats"]["observations"]) == (5, 8)
    assert observations(snapshot, "billing-service") == file_order(STATES[0], "billing-service")
    assert not any(name.startswith("00") for name in by_name(snapshot))
    found = cli("facts", "-d", "mcp", "--json")   # the search index reads the new names
    assert "Invoices merchants monthly" in found.output and "001." not in found.output


def test_an_observations_text_is_never_taken_for_an_entitys_name(cli, home, tmp_path: Path):
    path = write_lines(tmp_path / "memory.jsonl",
                       *(json.dumps({"type": "entity", "name": name, "entityType": "service", "observations": ["TODO: tests"]})
                         for name in ("api", "worker")),
                       json.dumps({"type": "entity", "name": "api gateway", "entityType": "service", "observations": []}),
                       json.dumps({"type": "entity", "name": "api-gateway", "entityType": "service", "observations": []}))
    assert cli("import", "--from", "mcp-memory", str(path), "-d", "mcp").exit_code == 0
    summaries = [row["summary"] for row in json.loads(cli("maintain", "-d", "mcp", "--json").output)["worklist"]]
    assert any("api gateway" in s and "api-gateway" in s for s in summaries)   # two names alike: asked
    assert not any("TODO" in s for s in summaries)                            # two notes alike: no question
    written = cli("remember", "-d", "mcp", "worker --tracks--> TODO: tests:Task")
    assert written.exit_code == 0, written.output
    tracked = [f for f in json.loads(cli("facts", "-d", "mcp", "--json").output) if f["relation"] == "tracks"]
    [task] = [e for e in dataset_snapshot(home)["entities"] if e["id"] == tracked[0]["object"]]
    assert (task["type"], "observation_position" in task) == ("Task", False)   # a new entity, no note


def test_recall_answers_an_observation_with_the_fact_that_notes_it_not_as_an_entity(cli, home, memory_file: Path):
    assert cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp").exit_code == 0
    found = json.loads(cli("recall", "Invoices merchants monthly", "-d", "mcp", "--json").output)
    names = {e["id"]: e["name"] for e in dataset_snapshot(home)["entities"]}
    noted = [(names[f["subject"]], f["relation"], names[f["object"]]) for f in found["facts"]]
    assert noted[0] == ("billing-service", "observation", "Invoices merchants monthly")
    # the note's words are what the fact says, not an entity it is "a fact of"
    assert found["facts"][0]["why"] == "matched: invoices, merchants, monthly"
    assert all(e["type"] != "Observation" for e in found["entities"])
    # an entity the question names is still an answer of its own
    named = json.loads(cli("recall", "billing service invoices", "-d", "mcp", "--json").output)
    assert [e["name"] for e in named["entities"]][:1] == ["billing-service"]
    why = {names[f["object"]]: f["why"] for f in named["facts"]}
    assert why["Invoices merchants monthly"] == "a fact of billing-service; matched: invoices"


@pytest.mark.parametrize("fmt", ["graphml", "gexf"])
def test_graph_exports_give_observations_as_their_entitys_attribute_not_as_nodes(cli, home, memory_file: Path,
                                                                                 tmp_path: Path, fmt: str):
    import networkx as nx

    assert cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp").exit_code == 0
    out = tmp_path / f"g.{fmt}"
    written = cli("export", "--format", fmt, "-o", str(out), "-d", "mcp")
    assert written.exit_code == 0, written.output
    graph = nx.read_graphml(out) if fmt == "graphml" else nx.read_gexf(out)
    labels = {data["label"]: data for _, data in graph.nodes(data=True)}
    assert sorted(labels) == sorted(["billing-service", "Priya Natarajan", "payments-db", HOSTILE, "Stripe"])
    assert labels["billing-service"]["observations"].split("\n") == file_order(STATES[0], "billing-service")
    assert "observations" not in labels["Stripe"]                     # nothing noted on it in the file
    relations = {data.get("relation") or data.get("label") for _, _, data in graph.edges(data=True)}
    assert "depends_on" in relations and "observation" not in relations


def test_the_brief_gives_an_entitys_observations_in_the_files_order(cli, home, memory_file: Path):
    assert cli("import", "--from", "mcp-memory", str(memory_file), "-d", "mcp").exit_code == 0
    brief = cli("brief", "-d", "mcp", "--max-chars", "9000").output
    lines = [line for line in brief.splitlines() if line.startswith("- billing-service observation ")]
    assert [line.split(" observation ")[1].rsplit(" [", 1)[0] for line in lines] == file_order(STATES[0], "billing-service")
    # a later write comes first: it is newer
    assert cli("remember", "-d", "mcp", "billing-service --reads_from--> payments-db").exit_code == 0
    brief = cli("brief", "-d", "mcp", "--max-chars", "9000").output
    lines = [line for line in brief.splitlines() if line.startswith("- billing-service ") and "(" not in line]
    assert lines[0].startswith("- billing-service reads_from payments-db")
    assert [line.split(" observation ")[1].rsplit(" [", 1)[0] for line in lines if " observation " in line] == \
        file_order(STATES[0], "billing-service")
