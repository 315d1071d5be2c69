"""Inputs that once reached "internal error" end in one `Error: ...` line and exit 1, and write nothing."""
from __future__ import annotations

import json
import sqlite3

import pytest

GOOD_LINE = json.dumps({"subject": "alice", "subject_type": "Person", "relation": "knows",
                        "object": "bob", "object_type": "Person"}).encode()


def one_error_line(result) -> str:
    assert result.exit_code == 1, result.output
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1, result.output
    assert "internal error" not in result.output and "Traceback" not in result.output
    return result.output


@pytest.mark.parametrize("data, message", [
    (b'{"subject": "al\xffice", "relation": "knows", "object": "bob"}', "line 1: not UTF-8 (byte 0xff"),
    (GOOD_LINE + b"\n" + b'{"subject": "\\ud800", "relation": "knows", "object": "bob"}',
     "line 2: not valid Unicode text (a lone surrogate U+D800)"),
    (b'{"subject": "a", "relation": "r", "object": "\\udfff"}', "lone surrogate U+DFFF"),
    (b"[" * 100_000, "line 1: JSON nested too deeply"),
    (b"{\"a\": " * 100_000, "line 1: JSON nested too deeply"),
    (b"1" * 5_000, "line 1: a number too long"),
    (b'{"subject": "a", "relation": "r", "object": "b", "valid_from": ' + b"9" * 5_000 + b"}", "a number too long"),
])
def test_bad_standard_input_is_one_error_line_and_writes_nothing(cli, home, data, message):
    assert message in one_error_line(cli("remember", "--stdin", "-d", "bad", input=data))
    assert not (home / "bad.sqlite").exists()
    good = cli("remember", "--stdin", "-d", "bad", input=GOOD_LINE)  # the positive case
    assert good.exit_code == 0 and "asserted" in good.output


@pytest.mark.parametrize("argument", ["al\udcffice:Person --knows--> bob:Person", "alice:Person --knows--> \ud800:Person"])
def test_an_argument_that_is_not_text_is_one_error_line(cli, home, argument):
    # A shell passes bytes; Python carries those that are not UTF-8 as lone surrogates.
    assert "not " in one_error_line(cli("remember", argument, "-d", "bad"))
    assert not (home / "bad.sqlite").exists()
    assert cli("remember", "alice:Person --knows--> bob:Person", "-d", "bad").exit_code == 0
    for args in (["describe", "alice", "caf\udce9"], ["forget", "entity", "\udcff"], ["dismiss", "x\ud800", "--reason", "r"]):
        one_error_line(cli(*args, "-d", "bad"))
    assert json.loads(cli("stats", "-d", "bad", "--json").stdout)["ledger"] == 3


def snapshot_variants(good: dict) -> dict[str, tuple[object, str]]:
    """Snapshots diff cannot read, each with the words its error must hold."""
    def changed(change) -> dict:
        copy = json.loads(json.dumps(good))
        change(copy)
        return copy

    return {
        "facts not a list": (changed(lambda s: s.update(facts={"a": 1})), "'facts' is missing or not a list"),
        "no entities": (changed(lambda s: s.pop("entities")), "'entities' is missing or not a list"),
        "fact without status": (changed(lambda s: s["facts"][0].pop("status")), "its 'status' is missing"),
        "unknown status": (changed(lambda s: s["facts"][0].update(status="maybe")), "its 'status' is 'maybe', not one of"),
        "subject a list": (changed(lambda s: s["facts"][0].update(subject=[1])), "its 'subject' is [1], not an id"),
        "entity a string": (changed(lambda s: s["entities"].__setitem__(0, "x")), "entity number 1 is not a JSON object"),
        "no hash": (changed(lambda s: s.pop("hash")), "'hash' is missing or not text"),
    }


def test_diff_of_a_malformed_snapshot_is_one_error_line_naming_the_file(cli, tmp_path):
    cli("remember", "alice:Person --knows--> bob:Person")
    good = tmp_path / "good.json"
    assert cli("export", "-o", str(good)).exit_code == 0
    assert cli("diff", str(good), str(good)).exit_code == 0  # the positive case
    for name, (snapshot, words) in snapshot_variants(json.loads(good.read_text())).items():
        bad = tmp_path / f"{name.replace(' ', '-')}.json"
        bad.write_text(json.dumps(snapshot))
        for args in ((str(good), str(bad)), (str(bad), str(good))):
            output = one_error_line(cli("diff", *args))
            assert output.startswith(f"Error: {bad}: ") and words in output, (name, output)


@pytest.mark.parametrize("content, message", [
    (b'{"format": "memlens-snapshot/1", "x": ' + b"[" * 100_000 + b"}", "nested too deeply"),
    (b'{"format": "memlens-snapshot/1", "x": ' + b"1" * 5_000 + b"}", "a number too long"),
    (b'{"format": "memlens-snapshot/1", "x": "\xff"}', "not UTF-8"),
    (b'{"format": "memlens-snapshot/1", "x": "\\ud800"}', "lone surrogate"),
])
def test_diff_of_a_file_that_is_not_readable_json_is_one_error_line(cli, tmp_path, content, message):
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    cli("remember", "alice:Person --knows--> bob:Person")
    good = tmp_path / "good.json"
    cli("export", "-o", str(good))
    assert message in one_error_line(cli("diff", str(good), str(bad)))


@pytest.mark.parametrize("date", ["", " ", "2025-01-01\u2028", "\u20282025-01-01", "2025-01-01\u00a0", "２０２５-01-01"])
def test_a_date_that_is_empty_or_not_ascii_is_refused(cli, date):
    output = one_error_line(cli("remember", "alice:Person --knows--> bob:Person", "--valid-from", date))
    assert "is not an ISO date" in output
    for option in ("--as-of-valid", "--as-of-record"):
        one_error_line(cli("facts", option, date))
    assert cli("remember", "alice:Person --knows--> bob:Person", "--valid-from", " 2025-01-01\n").exit_code == 0
    assert json.loads(cli("facts", "--json").stdout)[0]["valid_from"] == "2025-01-01"


def test_another_tools_value_that_is_not_utf8_is_shown_with_a_replacement_character(cli, tmp_path):
    from import_fixtures import build_memoose

    source = tmp_path / "memoose.db"
    build_memoose(source)
    out = tmp_path / "s.json"
    assert cli("export", "--from", "memoose", str(source), "-o", str(out)).exit_code == 0
    assert not any("\ufffd" in (e["description"] or "") for e in json.loads(out.read_text())["entities"])
    conn = sqlite3.connect(source)
    conn.execute("UPDATE entities SET description = CAST(x'6f6c64ff' AS TEXT) WHERE name = 'alice'")
    conn.commit()
    conn.close()
    assert cli("export", "--from", "memoose", str(source), "-o", str(out)).exit_code == 0
    alice = next(e for e in json.loads(out.read_text())["entities"] if e["name"] == "alice")
    assert alice["description"] == "old\ufffd"


def test_another_tools_store_whose_schema_is_not_utf8_is_one_error_line(cli, tmp_path):
    from import_fixtures import build_memoose

    source = tmp_path / "memoose.db"
    build_memoose(source)
    data = source.read_bytes()
    source.write_bytes(data[:396] + b"\x80" + data[397:])  # inside the schema's text on the first page
    assert "holds bytes that are not UTF-8" in one_error_line(
        cli("export", "--from", "memoose", str(source), "-o", str(tmp_path / "s.json")))
