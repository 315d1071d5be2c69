"""`memlens diff` with a bundle on either side: a site folder, a snapshot JSON or a report."""
from __future__ import annotations

import json
from pathlib import Path

import pytest


def written(cli, *args: str) -> str:
    result = cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return result.output


def remember(cli, store: Path, triple: str) -> str:
    (fact,) = json.loads(written(cli, "remember", "--db", str(store), triple))
    return fact["fact"]["id"]


def changed(answer: dict) -> dict[str, int]:
    return {kind: count for kind, count in answer["counts"].items() if count}


@pytest.mark.parametrize("fmt", ["site", "json", "html"])
def test_a_bundle_against_its_store_after_one_more_write_names_exactly_that_write(cli, tmp_path, fmt):
    store = tmp_path / "s.sqlite"
    remember(cli, store, "alice:Person --works_at--> acme:Organization")
    remember(cli, store, "bob:Person --works_at--> acme")
    bundle = tmp_path / ("bundle" if fmt == "site" else f"bundle.{fmt}")
    written(cli, "export", "--db", str(store), "--format", fmt, "-o", str(bundle))
    assert not changed(json.loads(written(cli, "diff", str(bundle), "--db", str(store))))
    added = remember(cli, store, "carol:Person --works_at--> acme")
    answer = json.loads(written(cli, "diff", str(bundle), "--db", str(store)))
    assert changed(answer) == {"facts_added": 1, "entities_added": 1, "ledger_rows_added": 2}
    assert [row["action"] for row in answer["changes"]["ledger_rows_added"]] == ["entity", "assert"]
    assert answer["changes"]["facts_added"] == [{"id": added, "subject": "carol", "relation": "works_at", "object": "acme"}]
    assert [e["name"] for e in answer["changes"]["entities_added"]] == ["carol"]
    text = cli("diff", str(bundle), str(store)).output
    assert "facts added (1)" in text and "carol --works_at--> acme" in text


def test_two_sites_compare_either_way(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    remember(cli, store, "alice:Person --works_at--> acme:Organization")
    written(cli, "export", "--db", str(store), "--format", "site", "-o", str(tmp_path / "old"))
    gone = json.loads(written(cli, "facts", "--db", str(store)))[0]["id"]
    assert cli("forget", "fact", gone, "--db", str(store)).exit_code == 0
    written(cli, "export", "--db", str(store), "--format", "site", "-o", str(tmp_path / "new"))
    forward = json.loads(written(cli, "diff", str(tmp_path / "old"), str(tmp_path / "new")))
    assert changed(forward) == {"facts_forgotten": 1, "ledger_rows_added": 1} and forward["changes"]["facts_forgotten"] == [{"id": gone}]
    assert not changed(json.loads(written(cli, "diff", str(tmp_path / "new"), str(tmp_path / "new"))))


def test_a_damaged_report_is_refused_in_one_line_saying_what_is_wrong(cli, tmp_path):
    store, report = tmp_path / "s.sqlite", tmp_path / "r.html"
    remember(cli, store, "alice:Person --works_at--> acme:Organization")
    written(cli, "export", "--db", str(store), "--format", "html", "-o", str(report))
    assert not changed(json.loads(written(cli, "diff", str(report), str(store))))   # whole: read back
    page = report.read_text(encoding="utf-8")
    at = page.index('id="memlens-facts" data-encoding="base64">') + 60
    report.write_text(page[:at] + page[at + 8:], encoding="utf-8")
    result = cli("diff", str(report), str(store))
    assert result.exit_code == 1 and len(result.output.splitlines()) == 1
    assert f"{report}: its memlens-facts block is damaged" in result.output


def test_new_and_a_dataset_together_are_a_usage_error(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    remember(cli, store, "alice:Person --works_at--> acme:Organization")
    assert cli("diff", str(store), str(store), "--db", str(store)).exit_code == 2
    assert cli("diff", str(store), "--db", str(store)).exit_code == 0
