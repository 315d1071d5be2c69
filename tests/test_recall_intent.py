"""Recall ranks on what a question asks, not on tie order: the side of the relation, the kind of
answer its question word names, the relation said in its own words or the way people word it, on an
entity that holds many facts; contractions and type-like words read as what they are."""
from __future__ import annotations

import pytest

from memlens.store.facts import FactInput
from memlens.store.memory import Memory
from memlens.store.words import content_words

from conftest import StepClock

HUB = "feature-store"
FACTS = [
    (HUB, "depends_on", "redis-cluster", "Service", "Service"),
    (HUB, "depends_on", "kafka", None, "Tool"),
    ("ranking-service", "depends_on", HUB, "Service", None),
    ("fraud-model", "depends_on", HUB, "Service", None),
    (HUB, "owned_by", "Hana Kim", None, "Person"),
    (HUB, "maintained_by", "ml-platform-team", None, "Team"),
    (HUB, "deployed_to", "prod-eu", None, "Environment"),
    (HUB, "released_on", "2025-11-04", None, "Event"),
    (HUB, "reads_from", "orders-events", None, "Event"),
    ("checkout-service", "publishes_to", "orders-events", "Service", None),
    ("loyalty-service", "reads_from", "orders-events", "Service", None),
    ("Grace Liu", "manages", "ml-platform-team", "Person", None),
    ("Omar Haddad", "member_of", "ml-platform-team", "Person", None),
    ("training-pipeline", "scheduled_at", "daily-0200-utc", "Service", "Config"),
    ("ml-platform-team", "owns", "training-pipeline", None, None),
    ("warehouse", "contains", "customer-pii", "Service", "Dataset"),
    ("Pat Personal", "works_on", "ledger", "Person", "Service"),
    # what makes the hub a hub: facts of the entity that answer none of the questions
    *[(HUB, f"uses_{i}", f"library-{i:02d}", None, "Library") for i in range(24)],
]
DESCRIPTIONS = {"customer-pii": "Personal data of customers: names, emails and addresses",
                "daily-0200-utc": "Cron schedule 0 2 * * *"}


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    with Memory(tmp_path_factory.mktemp("intent") / "intent.sqlite", clock=StepClock()) as opened:
        opened.remember([FactInput(s, r, o, st, ot, evidence=("user said so",)) for s, r, o, st, ot in FACTS])
        for name, description in DESCRIPTIONS.items():
            opened.describe(name, description)
        yield opened


def first(memory: Memory, question: str) -> tuple[str, str, str]:
    fact = memory.recall(question, limit=1)["facts"][0]
    return fact["subject_name"], fact["relation"], fact["object_name"]


def test_the_side_of_the_relation_asked_for_comes_first_on_a_hub(memory):
    assert first(memory, "what depends on the feature store")[2] == HUB
    assert first(memory, "what depends on the feature store")[1] == "depends_on"
    assert first(memory, "what does the feature store depend on")[:2] == (HUB, "depends_on")


@pytest.mark.parametrize("question, answer", [
    ("who owns the feature store", (HUB, "owned_by", "Hana Kim")),
    ("who's responsible for the feature store", (HUB, "owned_by", "Hana Kim")),
    ("feature store owner", (HUB, "owned_by", "Hana Kim")),
    ("where is the feature store deployed", (HUB, "deployed_to", "prod-eu")),
    ("when did the feature store go out", (HUB, "released_on", "2025-11-04")),
    ("what consumes the orders topic", ("loyalty-service", "reads_from", "orders-events")),
    ("who produces order events", ("checkout-service", "publishes_to", "orders-events")),
    ("who does the ml platform team report to", ("Grace Liu", "manages", "ml-platform-team")),
    ("what kicks off the training pipeline", ("training-pipeline", "scheduled_at", "daily-0200-utc")),
])
def test_the_question_picks_its_answer_among_the_named_entitys_facts(memory, question, answer):
    found = first(memory, question)
    if answer[1] == "reads_from":   # any consumer of the topic is an answer
        assert found[1:] == answer[1:], question
    else:
        assert found == answer, question


def test_each_fact_says_what_of_the_question_it_answers(memory):
    fact = memory.recall("who's responsible for the feature store", limit=1)["facts"][0]
    assert fact["why"] == "a fact of feature-store; asks for owned_by, its subject asked for, who: a person or team"


def test_a_contraction_is_read_as_its_words_not_as_a_word_s():
    assert content_words("who's the feature store's owner") == ["feature", "store", "owner"]
    assert content_words("it isn't what they're using, can't be") == ["using"]
    assert content_words("who is the owner") == content_words("who's the owner") == ["owner"]


def test_a_word_that_only_shares_a_stem_with_a_type_does_not_find_every_entity_of_it(memory):
    answer = memory.recall("personal data")
    # "personal" is not Person: no person comes up for being one, only what says "personal"
    assert {e["name"] for e in answer["entities"]} == {"customer-pii", "Pat Personal"}
    assert first(memory, "is there personal data in the warehouse") == ("warehouse", "contains", "customer-pii")
    # the type's own name still finds its entities
    assert "Hana Kim" in {e["name"] for e in memory.recall("person", limit=50)["entities"]}
