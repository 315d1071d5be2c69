"""Bounded reads: pages of facts, recall and history add up to the whole, and their totals are exact."""
from __future__ import annotations

import sqlite3

import pytest

from memlens.store import pages, recall, schema
from memlens.store.db import read
from memlens.store.errors import InvalidInput
from memlens.store.facts import FactInput
from memlens.store.memory import Memory

from conftest import as_schema_version


@pytest.fixture
def crowded(memory):
    """Twelve facts that mention 'billing': current, superseded, retracted and forgotten ones."""
    ids = [o.fact_id for o in memory.remember(
        [FactInput("billing", "calls", f"service-{i:02d}", "Service", "Service", description="billing path")
         for i in range(12)])]
    memory.supersede(ids[0], ids[1], "moved")
    memory.retract(ids[2], "never called")
    memory.forget_fact(ids[3])
    return memory, ids


def all_pages(answer, limit: int) -> list[dict]:
    """Every page of `answer(page)`, following the offsets until no list goes on."""
    page, seen = pages.Page(limit), []
    while True:
        found = answer(page)
        seen.append(found)
        lists = [found] if "total" in found else [v for v in found.values() if isinstance(v, dict) and "total" in v]
        following = page.after(*(listed["total"] for listed in lists))
        if following is None:
            return seen
        page = pages.Page(limit, following)


@pytest.mark.parametrize("limit", [1, 5, 100])
def test_recall_pages_add_up_to_every_current_match_once(crowded, limit):
    memory, ids = crowded
    found = all_pages(lambda page: recall.recall(memory.conn, "billing", page), limit)
    facts = [f["id"] for answer in found for f in answer["facts"]["items"]]
    assert sorted(facts) == sorted(ids[1:2] + ids[4:])
    assert {answer["facts"]["total"] for answer in found} == {9}
    assert [e["name"] for answer in found for e in answer["entities"]["items"]] == ["billing"]
    scores = [f["score"] for answer in found for f in answer["facts"]["items"]]
    assert scores == sorted(scores, reverse=True)


def test_recall_counts_superseded_and_retracted_matches_only_when_asked(crowded):
    memory, ids = crowded
    found = recall.recall(memory.conn, "billing", pages.Page(100), include_superseded=True)
    assert found["facts"]["total"] == 11
    assert {f["id"]: f["status"] for f in found["facts"]["items"]}.keys() == set(ids) - {ids[3]}
    assert recall.recall(memory.conn, "nothing-like-this", pages.Page(5))["facts"] == {"total": 0, "items": []}


def test_history_pages_facts_and_ledger_by_one_offset(crowded):
    memory, ids = crowded
    with read(memory.conn) as conn:
        found = all_pages(lambda page: pages.history(conn, "billing", page), 4)
    facts = [f["id"] for answer in found for f in answer["facts"]["items"]]
    assert sorted(facts) == sorted(set(ids) - {ids[3]})  # the forgotten fact is gone from its entity
    ledger = [row["seq"] for answer in found for row in answer["ledger"]["items"]]
    assert ledger == sorted(set(ledger)) and len(ledger) == found[0]["ledger"]["total"]
    whole = memory.history("billing")
    assert [row["seq"] for row in whole["ledger"]] == ledger


def test_a_page_needs_a_limit_and_no_negative_offset(memory):
    with pytest.raises(InvalidInput):
        pages.Page(0)
    with pytest.raises(InvalidInput):
        pages.Page(5, -1)
    assert pages.Page(5, 10).after(16) == 15 and pages.Page(5, 10).after(15) is None


def test_a_store_from_before_the_judged_index_gains_it_when_opened(crowded, tmp_path):
    memory, ids = crowded
    before = recall.recall(memory.conn, "billing", pages.Page(100))
    memory.close()
    as_schema_version(memory.path, 3)
    with sqlite3.connect(memory.path) as old:
        assert not old.execute("SELECT 1 FROM sqlite_master WHERE name = 'fact_versions_judged'").fetchone()
    with Memory(memory.path) as reopened:
        indexes = {row[0] for row in reopened.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "fact_versions_judged" in indexes
        assert reopened.conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
        assert recall.recall(reopened.conn, "billing", pages.Page(100)) == before


@pytest.mark.parametrize("filters", [{}, {"include_all": True}, {"as_of_valid": "2026-01-01"},
                                     {"as_of_record": "2026-01-01T09:03:00Z"}])
def test_fact_pages_are_the_slices_of_the_whole_list_with_its_length(crowded, filters):
    memory, _ = crowded
    whole = memory.facts(**filters)
    assert whole  # each filter keeps something
    found = all_pages(lambda page: pages.facts(memory.conn, page, **filters), 5)
    assert [f["id"] for answer in found for f in answer["items"]] == [f["id"] for f in whole]
    assert {answer["total"] for answer in found} == {len(whole)}
