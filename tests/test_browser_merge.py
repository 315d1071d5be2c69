"""A memory a teammate's bundle was merged into, in the report and the site: the cards say where a
merged fact came from, and time travel to before the merge shows the memory without it."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from conftest import StepClock
from test_browser_time_travel import check_against_the_cli
from viewer_fixtures import open_report

from memlens.store import datasets
from memlens.store.facts import FactInput
from memlens.store.ids import entity_id, fact_id
from memlens.store.memory import Memory
from memlens.viewer.model.links import deep_link

pytestmark = pytest.mark.browser


@pytest.fixture
def merged(cli, home, tmp_path) -> dict:
    """Ann's memory after she merged Ben's bundle: his owner beside hers (contested), his retraction
    of a fact both held, a fact only he had."""
    clock = StepClock(datetime(2026, 1, 1, tzinfo=timezone.utc), step=timedelta(days=1))   # the slider's stops apart
    with Memory(datasets.path_for("ann"), actor="cli:ann", clock=clock) as ann, \
            Memory(datasets.path_for("ben"), actor="cli:ben", clock=clock) as ben:
        for memory in (ann, ben):
            memory.declare_functional("owned_by")
        ann.remember([FactInput("billing", "owned_by", "alice", "Service", "Person")])
        ann.remember([FactInput("billing", "uses", "redis", None, "Tool")])
        ann.remember([FactInput("search", "uses", "redis", "Service", None)])
        for name in ("search", "auth", "queue", "mail"):
            ann.remember([FactInput(name, "owned_by", "alice", "Service", None)])
        ann.remember([FactInput("queue", "owned_by", "carol", None, "Person", valid_from="2024-01-01")])   # history
        ben.remember([FactInput("billing", "owned_by", "bob", "Service", "Person"),
                      FactInput("billing", "uses", "redis", None, "Tool"),
                      FactInput("billing", "uses", "postgres", None, "Tool", valid_from="2025-03-01")])
        ben.retract(fact_id(entity_id("billing"), "uses", entity_id("redis")), "moved to postgres")
    assert cli("export", "-d", "ben", "--format", "json", "-o", str(tmp_path / "ben.json")).exit_code == 0
    result = cli("import", "--from", "memlens", str(tmp_path / "ben.json"), "-d", "ann", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def card_meta(page, selector: str) -> dict[str, str]:
    """Each card's fact id and the words of its meta line."""
    return {card.get_attribute("data-fact-id") or card.get_attribute("id").removeprefix("fact-"):
            card.locator(".fact-meta").last.inner_text() for card in page.locator(selector).all()}


def test_the_report_and_the_site_say_where_a_merged_fact_came_from(browser, cli, merged, tmp_path):
    report, site = tmp_path / "ann.html", tmp_path / "site"
    assert cli("view", "-d", "ann", "--out", str(report), "--no-open").exit_code == 0
    assert cli("export", "-d", "ann", "--format", "site", "-o", str(site)).exit_code == 0
    billing = entity_id("billing")
    bob, alice = (fact_id(billing, "owned_by", entity_id(name)) for name in ("bob", "alice"))
    with Memory(datasets.path_for("ben"), readonly=True) as ben:
        there = ben.fact(bob)["recorded_at"][:16].replace("T", " ")
    said = f"merged from ben (bundle {merged['bundle'][:15]}), recorded there {there}"
    opened = open_report(browser, report, fragment=deep_link("entity", billing))
    try:
        opened.show_fact_cards()
        in_report = card_meta(opened.page, "#detail article.fact")
        opened.page.goto(next((site / "entities").glob("billing-*.html")).as_uri())
        in_site = card_meta(opened.page, "main article.fact")
        assert opened.console_errors == []
    finally:
        opened.close()
    assert said in in_report[bob] and "by cli:ben" in in_report[bob]
    assert "merged from" not in in_report[alice] and "by cli:ann" in in_report[alice]   # hers, not merged
    assert in_site[bob] == in_report[bob] and in_site[alice] == in_report[alice]


def test_time_travel_to_before_the_merge_shows_the_memory_without_it(browser, cli, merged, tmp_path):
    report = tmp_path / "ann.html"
    assert cli("view", "-d", "ann", "--out", str(report), "--no-open").exit_code == 0
    record_stops, _ = check_against_the_cli(browser, cli, report, ["-d", "ann"])
    billing = entity_id("billing")
    bob, redis = fact_id(billing, "owned_by", entity_id("bob")), fact_id(billing, "uses", entity_id("redis"))
    before_the_merge, now = record_stops[-3][1], record_stops[-1][1]
    assert bob not in before_the_merge and redis in before_the_merge   # Ann's memory as it was: no bob, redis held
    assert bob in now and redis not in now                             # merged: bob's there, redis retracted
