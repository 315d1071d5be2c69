"""Recall: full-text search over current facts and entities; history only when asked."""
from __future__ import annotations

import pytest

from memlens.store.facts import FactInput


@pytest.fixture
def timezones(memory):
    [pytz, zoneinfo] = [o.fact_id for o in memory.remember([
        FactInput("eta.py", "uses", "pytz", "Module", "Library", description="timezone handling"),
        FactInput("eta.py", "uses", "zoneinfo", None, "Library", description="timezone handling"),
    ])]
    memory.supersede(pytz, zoneinfo, "PR 433")
    return memory, pytz, zoneinfo


def test_recall_finds_current_facts_and_leaves_superseded_ones_out(timezones):
    memory, pytz, zoneinfo = timezones
    found = memory.recall("timezone")
    assert [f["id"] for f in found["facts"]] == [zoneinfo]
    assert pytz not in [f["id"] for f in memory.recall("pytz")["facts"]]


def test_recall_returns_superseded_facts_when_asked(timezones):
    memory, pytz, zoneinfo = timezones
    found = memory.recall("timezone", include_superseded=True)
    assert {f["id"]: f["status"] for f in found["facts"]} == {pytz: "superseded", zoneinfo: "current"}


def test_recall_finds_entities_by_name_prefix_and_description(timezones):
    memory, _, _ = timezones
    memory.describe("eta.py", "predicts delivery times")
    assert [e["name"] for e in memory.recall("deliv")["entities"]] == ["eta.py"]
    assert memory.recall("nothing-like-this")["entities"] == []


@pytest.mark.parametrize("query", ['"unbalanced', "a AND OR NOT", "*", "NEAR(x y)", "col:value", "^start", "'); DROP"])
def test_query_syntax_in_what_people_type_is_never_an_error(timezones, query):
    memory, _, _ = timezones
    found = memory.recall(query)
    assert set(found) == {"query", "words", "facts", "entities"}
    assert memory.recall("handling")["facts"]  # and plain words still work
