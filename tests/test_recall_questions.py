"""Recall answers questions in plain words: stop words, other word forms, neighbourhoods, a reason
per fact, the bounds on what one question costs; the CLI and the MCP server answer alike."""
from __future__ import annotations

import json
import sqlite3

import pytest

from memlens.store import recall, schema, search
from memlens.store.facts import FactInput
from memlens.store.memory import Memory
from memlens.store.pages import Page

from conftest import StepClock
from test_mcp import served

TEAM = [
    ("billing-service", "owned_by", "Priya Natarajan", "Service", "Person", ""),
    ("billing-service", "depends_on", "ledger-service", None, "Service", ""),
    ("billing-service", "publishes_to", "kafka", None, "Tool", "invoice events"),
    ("billing-service", "deployed_to", "production", None, "Environment", ""),
    ("checkout-api", "depends_on", "auth-service", "Service", "Service", "every request carries a token"),
    ("checkout-api", "owned_by", "Marco Rossi", None, "Person", ""),
    ("ledger-service", "owned_by", "Marco Rossi", None, None, ""),
    ("auth-service", "owned_by", "Dana Kim", None, "Person", ""),
    ("payments-gateway", "routes_through", "envoy", "Service", "Tool", "outbound card traffic"),
    ("payments-gateway", "uses", "stripe", None, "Organization", ""),
    ("production", "hosted_in", "eu-west-1", None, "Environment", ""),
]
DESCRIPTIONS = {"envoy": "Edge proxy", "eu-west-1": "AWS region in Ireland"}


def key(fact: dict) -> tuple[str, str, str]:
    return (fact["subject_name"], fact["relation"], fact["object_name"])


@pytest.fixture
def team(tmp_path):
    with Memory(tmp_path / "team.sqlite", actor="test:pytest", clock=StepClock()) as memory:
        memory.remember([FactInput(s, r, o, st, ot, d, ("user said so",)) for s, r, o, st, ot, d in TEAM])
        for name, description in DESCRIPTIONS.items():
            memory.describe(name, description)
        yield memory


def first_three(memory: Memory, question: str) -> list[tuple[str, str, str]]:
    return [key(f) for f in memory.recall(question, limit=3)["facts"]]


@pytest.mark.parametrize("question, answer", [
    ("who owns the billing service", ("billing-service", "owned_by", "Priya Natarajan")),
    ("billing-service owner", ("billing-service", "owned_by", "Priya Natarajan")),
    ("what depends on auth", ("checkout-api", "depends_on", "auth-service")),
    ("Who is the OWNER of the ledger?", ("ledger-service", "owned_by", "Marco Rossi")),   # stop words, case
    ("services depending on the ledger", ("billing-service", "depends_on", "ledger-service")),  # word forms
    ("what is billing publishing", ("billing-service", "publishes_to", "kafka")),
])
def test_a_plain_question_finds_its_fact_in_the_first_three(team, question, answer):
    assert answer in first_three(team, question)
    assert answer not in first_three(team, "stripe uses payments-gateway")  # another question, another answer


def test_words_the_store_lacks_find_nothing_and_stop_words_alone_search_nothing(team):
    assert team.recall("zanzibar quokka")["facts"] == []
    assert team.recall("who is it")["words"] == [] and team.recall("who is it")["facts"] == []
    assert team.recall("who is kafka")["words"] == ["kafka"] and team.recall("who is kafka")["facts"]


def test_a_question_answered_through_an_entitys_description_says_so(team, tmp_path):
    found = {key(f): f["why"] for f in team.recall("which proxy does the gateway use", limit=3)["facts"]}
    assert found[("payments-gateway", "routes_through", "envoy")] == "a fact of payments-gateway; a fact of envoy (proxy)"
    region = team.recall("which region is production in", limit=3)["facts"]
    assert ("production", "hosted_in", "eu-west-1") in [key(f) for f in region]
    # without the description, nothing in the store says "proxy"
    with Memory(tmp_path / "bare.sqlite", clock=StepClock()) as bare:
        bare.remember([FactInput("payments-gateway", "routes_through", "envoy", "Service", "Tool")])
        assert bare.recall("proxy")["facts"] == []
        assert [key(f) for f in bare.recall("envoy")["facts"]] == [("payments-gateway", "routes_through", "envoy")]


def test_each_fact_says_which_words_it_holds_and_the_named_entity_comes_first(team):
    found = team.recall("who owns the billing service", limit=5)
    assert found["words"] == ["owns", "billing", "service"]
    assert found["facts"][0]["why"] == ("a fact of billing-service; matched: owns; its subject asked for, "
                                        "who: a person or team")
    assert found["entities"][0]["name"] == "billing-service" and found["entities"][0]["why"] == "named: billing, service"
    others = [f for f in found["facts"] if f["subject_name"] != "billing-service"]
    assert all("billing-service" not in f["why"] for f in others)


def test_the_facts_of_a_named_entity_come_after_the_facts_that_hold_more_words(team):
    found = [key(f) for f in team.recall("who owns checkout")["facts"]]
    assert found[0] == ("checkout-api", "owned_by", "Marco Rossi")
    assert ("checkout-api", "depends_on", "auth-service") in found[1:]


@pytest.fixture
def superseded(team):
    [old] = [o.fact_id for o in team.remember([FactInput("payments-gateway", "uses", "braintree", None, "Organization")])]
    stripe = team.recall("payments-gateway stripe")["facts"][0]["id"]
    team.supersede(old, stripe, "moved to stripe")
    return team, old


def test_a_superseded_value_is_left_out_unless_asked_for(superseded, cli, tmp_path):
    memory, old = superseded
    assert old not in [f["id"] for f in memory.recall("braintree")["facts"]]
    found = memory.recall("braintree", include_superseded=True)["facts"]
    assert [(f["id"], f["status"]) for f in found] == [(old, "superseded")]
    db = ["--db", str(memory.path)]
    assert "--uses--> braintree" not in cli("recall", "braintree", *db).output
    shown = cli("recall", "braintree", "--superseded", *db).output
    assert "--uses--> braintree" in shown and "[superseded" in shown


def test_a_contested_fact_says_so(team):
    a = team.recall("billing owned")["facts"][0]["id"]
    b = team.remember([FactInput("billing-service", "owned_by", "Dana Kim")])[0].fact_id
    team.contest(a, b, "two owners")
    found = {f["id"]: f["contested"] for f in team.recall("billing owner")["facts"]}
    assert found[a] is True and found[b] is True
    assert team.recall("ledger owner")["facts"][0]["contested"] is False


def test_a_forgotten_facts_words_find_nothing_from_the_cli_and_mcp(team, cli, home):
    [secret] = [o.fact_id for o in team.remember([FactInput("vault", "holds", "hunter2 password", "Tool", "Concept",
                                                            "the root password")])]
    db = ["--db", str(team.path)]
    with served(home, *db) as server:
        assert [f["id"] for f in server.data("recall", query="hunter2 root password")["facts"]["items"]][:1] == [secret]
    assert secret[:8] in cli("recall", "hunter2", *db).output
    team.forget_fact(secret, with_orphans=True)
    for words in ("hunter2", "root password", "vault holds"):
        assert json.loads(cli("recall", words, *db, "--json").output)["facts"] == []
    with served(home, *db) as server:
        assert server.data("recall", query="hunter2 root password")["facts"] == {"total": 0, "items": []}
        assert server.data("recall", query="billing owner")["facts"]["total"] > 0


QUESTIONS = ["who owns the billing service", "billing-service owner", "what depends on auth",
             "which proxy does the gateway use", "marco", "deployed production", "zanzibar"]


def test_mcp_and_the_cli_recall_the_same_facts_in_the_same_order(team, cli, home):
    db = ["--db", str(team.path)]
    with served(home, *db) as server:
        for question in QUESTIONS:
            for limit in (3, 20):
                answered = server.data("recall", query=question, limit=limit)
                printed = json.loads(cli("recall", question, "--limit", str(limit), *db, "--json").output)
                assert [(f["id"], f["why"]) for f in answered["facts"]["items"]] == \
                    [(f["id"], f["why"]) for f in printed["facts"]], question
                assert [e["id"] for e in answered["entities"]["items"]] == [e["id"] for e in printed["entities"]]
    assert any(json.loads(cli("recall", q, *db, "--json").output)["facts"] for q in QUESTIONS)


def test_a_question_past_the_bounds_is_cut_and_the_answer_says_so(team, cli, home):
    words = " ".join(f"word{i}" for i in range(60_000))
    db = ["--db", str(team.path)]
    with served(home, *db) as server:
        answered = server.data("recall", query="billing owner " + words)
        assert answered["words"][:2] == ["billing", "owner"] and len(answered["words"]) == recall.MAX_WORDS
        assert answered["note"].startswith("the question was cut: only its first 1,000 characters were read")
        assert len(answered["query"]) == recall.MAX_QUERY_CHARS
        assert answered["facts"]["items"][0]["subject_name"] == "billing-service"
        assert "note" not in server.data("recall", query="billing owner")
    shown = cli("recall", "ledger owner " + " ".join(f"w{i}" for i in range(40)), *db)
    assert shown.output.startswith(f"the question was cut: only its first {recall.MAX_WORDS} words (of 42)")
    assert "ledger-service --owned_by--> Marco Rossi" in shown.output


def test_pages_of_a_recall_add_up_to_every_match_once(team):
    whole = recall.recall(team.conn, "service owned", Page(100))
    ids = [f["id"] for f in whole["facts"]["items"]]
    assert len(ids) == whole["facts"]["total"] == len(set(ids)) >= 6
    paged = []
    for offset in range(0, whole["facts"]["total"], 4):
        paged += [f["id"] for f in recall.recall(team.conn, "service owned", Page(4, offset))["facts"]["items"]]
    assert paged == ids


def test_the_schema_7_migration_rebuilds_the_index_with_stems_and_without_forgotten_text(tmp_path):
    path = tmp_path / "old.sqlite"
    with Memory(path, clock=StepClock()) as memory:
        memory.remember([FactInput("billing-service", "owned_by", "priya", "Service", "Person", "since March"),
                         FactInput("vault", "holds", "hunter2", "Tool", "Concept")])
        memory.forget_fact(memory.recall("hunter2")["facts"][0]["id"], with_orphans=True)
        memory.describe("priya", "tech lead")
    # as schema 6 left it: one text column per entity, no stems (and no record of briefs, no origin
    # columns, no observation places)
    with sqlite3.connect(path) as old:
        old.executescript(f"""
            ALTER TABLE entities DROP COLUMN observation_position;
            ALTER TABLE fact_versions DROP COLUMN judged_at; ALTER TABLE fact_versions DROP COLUMN bundle;
            ALTER TABLE facts DROP COLUMN origin;
            DROP TABLE briefs; DROP INDEX entities_type;
            DROP TABLE fact_search; DROP TABLE entity_search;
            CREATE VIRTUAL TABLE fact_search USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2');
            CREATE VIRTUAL TABLE entity_search USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2');
            INSERT INTO fact_search (rowid, text) SELECT f.n, {search.FACT_TEXT_SQL} FROM facts f
                JOIN entities s ON s.id = f.subject_id JOIN entities o ON o.id = f.object_id;
            INSERT INTO entity_search (rowid, text) SELECT n, name || ' ' || type || ' ' || description FROM entities;
            PRAGMA user_version = 6;""")
        assert old.execute("SELECT rowid FROM fact_search WHERE fact_search MATCH 'owns'").fetchall() == []
    with Memory(path, clock=StepClock()) as memory:
        memory.add_type("Runbook")  # a write migrates the file
        assert memory.conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
        assert [key(f) for f in memory.recall("who owns billing")["facts"]] == [("billing-service", "owned_by", "priya")]
        assert memory.recall("lead")["entities"][0]["name"] == "priya"
        assert memory.recall("hunter2")["facts"] == [] and memory.recall("hunter2")["entities"] == []
        texts = [row[0] for row in memory.conn.execute("SELECT text FROM fact_search")]
    assert len(texts) == 1 and "hunter2" not in " ".join(texts)
    # the rebuilt row holds the words index_fact writes
    assert texts[0].split() == search.fact_text("billing-service", "owned_by", "priya", "since March", []).split()


def test_a_word_in_too_many_facts_is_ranked_where_it_meets_rarer_words_and_the_answer_says_so(team, monkeypatch):
    """At scale a word like "service" is read in part (recall.LARGE facts); here LARGE is 3."""
    monkeypatch.setattr(recall, "LARGE", 3)
    team.remember([FactInput(f"worker-{i}", "owned_by", f"person-{i}", "Service", "Person") for i in range(6)])
    found = team.recall("ledger owned")
    assert found["facts"][0]["subject_name"] == "ledger-service"   # the rare word, with the common one
    assert found["note"].startswith("words in too many facts to rank them all: 'owned' (")
    owned = [f["subject_name"] for f in found["facts"] if f["subject_name"].startswith("worker-")]
    assert owned == ["worker-5", "worker-4", "worker-3"]              # the newest 3 holding it alone
    assert "note" not in team.recall("ledger")
