"""For any bytes and any JSON, `remember --stdin`, `diff` and the importers answer with a result or
one `Error: ...` line: never "internal error", never a traceback. Example counts are bounded so the
module runs in seconds (MEMLENS_PROPERTY_EXAMPLES raises them)."""
from __future__ import annotations

import json
import os
import random
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from import_fixtures import build_memoose, build_memware, build_mnemo
from memlens.store.triples import JSONL_FIELDS
from memlens.viewer.cli import main

EXAMPLES = int(os.environ.get("MEMLENS_PROPERTY_EXAMPLES", "40"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
BUILDERS = {"memoose": build_memoose, "memware": build_memware, "mnemo": build_mnemo}

# Text with lone surrogates, controls and everything else; JSON from it, including numbers far
# past what int() reads and nesting as deep as hypothesis cares to go.
TEXT = st.text(st.characters(exclude_categories=()), max_size=30)
HUGE = "\x00huge number\x00"  # written out by dumps as 5,000 digits (hypothesis cannot show such ints)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | TEXT | st.just(HUGE),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)
FACT_LINE = st.fixed_dictionaries({}, optional={field: JSON | TEXT for field in JSONL_FIELDS} | {"extra": JSON})


def run(*args: str, input: bytes | None = None):
    result = CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    assert "internal error" not in result.output and "Traceback" not in result.output, result.output
    if result.exit_code == 1:
        assert result.output.startswith("Error: ") and result.output.count("\n") == 1, result.output
    return result


@contextmanager
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="memlens-input-") as directory:
        yield Path(directory)


def dumps(value: object) -> bytes:
    """JSON as bytes; lone surrogates go out as \\u escapes, as another program might write them."""
    return json.dumps(value, ensure_ascii=True).replace(json.dumps(HUGE), "7" * 5000).encode()


@SETTINGS
@given(st.binary(max_size=400))
def test_any_bytes_on_standard_input_are_read_or_refused_in_one_line(data):
    with scratch() as folder:
        run("remember", "--stdin", "--db", str(folder / "s.sqlite"), input=data)


@SETTINGS
@given(st.lists(FACT_LINE | JSON, min_size=1, max_size=4))
def test_any_json_lines_on_standard_input_are_read_or_refused_in_one_line(lines):
    with scratch() as folder:
        store = folder / "s.sqlite"
        result = run("remember", "--stdin", "--db", str(store), input=b"\n".join(map(dumps, lines)))
        if result.exit_code == 1:  # all or nothing: a refused batch left no fact behind
            assert not store.exists() or json.loads(run("stats", "--json", "--db", str(store)).stdout)["facts"] == 0


def good_snapshot() -> dict:
    with scratch() as folder:
        db = ["--db", str(folder / "s.sqlite")]
        run("remember", "alice:Person --works_at--> acme:Organization", "alice --knows--> bob:Person", *db)
        return json.loads(run("export", "-o", "-", *db).stdout)


GOOD = good_snapshot()


def mutated(snapshot: dict, path: list[int], value: object) -> dict:
    """`snapshot` with one place (chosen by the numbers in `path`) replaced by `value`."""
    copy = json.loads(json.dumps(snapshot))
    node = copy
    for step in path:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        key = keys[step % len(keys)]
        if not isinstance(node[key], (dict, list)) or step % 3 == 0:
            node[key] = value
            return copy
        node = node[key]
    return copy


@SETTINGS
@given(st.lists(st.integers(0, 1000), min_size=1, max_size=5), JSON, st.booleans())
def test_diff_of_any_snapshot_shaped_json_answers_or_refuses_in_one_line(path, value, newer):
    with scratch() as folder:
        good, bad = folder / "good.json", folder / "bad.json"
        good.write_bytes(dumps(GOOD))
        bad.write_bytes(dumps(mutated(GOOD, path, value)))
        run("diff", *((str(good), str(bad)) if newer else (str(bad), str(good))))


@SETTINGS
@given(st.binary(max_size=300) | JSON.map(dumps))
def test_diff_of_any_file_answers_or_refuses_in_one_line(data):
    with scratch() as folder:
        good, bad = folder / "good.json", folder / "bad.json"
        good.write_bytes(dumps(GOOD))
        bad.write_bytes(data)
        run("diff", str(good), str(bad))


def fixture_bytes() -> dict[str, bytes]:
    with scratch() as folder:
        for tool, build in BUILDERS.items():
            build(folder / f"{tool}.db")
        return {tool: (folder / f"{tool}.db").read_bytes() for tool in BUILDERS}


FIXTURES = fixture_bytes()


@SETTINGS
@given(st.sampled_from(sorted(BUILDERS)), st.binary(max_size=2000), st.none() | st.integers(0, 10 ** 9))
def test_any_bytes_as_another_tools_store_are_read_or_refused_in_one_line(tool, data, spot):
    """Arbitrary bytes, or (with a `spot`) a real store of the tool with them written over it there."""
    if spot is not None:
        real = FIXTURES[tool]
        at = spot % len(real)
        data = real[:at] + data + real[at + len(data):]
    with scratch() as folder:
        source = folder / "source.db"
        source.write_bytes(data)
        run("export", "--from", tool, str(source), "-o", str(folder / "out.json"))
        imported = folder / "imported.sqlite"
        if run("import", "--from", tool, str(source), "--db", str(imported)).exit_code == 1:
            assert not imported.exists()


@SETTINGS
@given(st.sampled_from(sorted(BUILDERS)), st.integers(0, 10 ** 6), st.integers(0, 10 ** 6),
       st.none() | st.integers() | st.floats() | TEXT | st.binary(max_size=20) | JSON.map(dumps))
def test_any_value_in_any_cell_of_another_tools_store_is_read_or_refused_in_one_line(tool, row, column, value):
    with scratch() as folder:
        source = folder / "source.db"
        source.write_bytes(FIXTURES[tool])
        conn = sqlite3.connect(source, isolation_level=None)
        try:
            tables = [r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' "
                "AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'fts_%' ORDER BY name")]
            table = tables[row % len(tables)]
            columns = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
            try:
                rowids = [r[0] for r in conn.execute(f'SELECT rowid FROM "{table}"')]
            except sqlite3.OperationalError:  # a WITHOUT ROWID table: left as it is
                rowids = []
            if rowids:
                conn.execute("PRAGMA ignore_check_constraints = ON")
                try:
                    conn.execute(f'UPDATE "{table}" SET "{columns[column % len(columns)]}" = ? WHERE rowid = ?',
                                 (value, random.Random(row).choice(rowids)))
                except (sqlite3.IntegrityError, UnicodeEncodeError, OverflowError):
                    pass  # a NOT NULL or unique column, or a value SQLite cannot take: the file keeps its own
        finally:
            conn.close()
        run("export", "--from", tool, str(source), "-o", str(folder / "out.json"))
