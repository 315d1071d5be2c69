"""The page's search reads what a query asks as recall does (static/search_intent.js against
store/recall_intent.py): the same words out of contractions, the same bonus for every fact of a
memory whose named entity holds many facts, and so the same first answer."""
from __future__ import annotations

import pytest
from test_recall_intent import DESCRIPTIONS, FACTS
from viewer_fixtures import opened_report

from memlens.store import recall_intent
from memlens.store.facts import FactInput
from memlens.store.memory import Memory
from memlens.store.words import words

from conftest import StepClock

pytestmark = pytest.mark.browser

QUESTIONS = [
    "what depends on the feature store", "what does the feature store depend on", "who owns the feature store",
    "who's responsible for the feature store", "feature store owner", "where is the feature store deployed",
    "when did the feature store go out", "what consumes the orders topic", "who produces order events",
    "who does the ml platform team report to", "what kicks off the training pipeline", "which services use kafka",
    "how often does the training pipeline run", "what is owned by Hana Kim", "the version of the feature store",
]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("intent") / "intent.sqlite"
    with Memory(path, clock=StepClock()) as memory:
        memory.remember([FactInput(s, r, o, st, ot, evidence=("user said so",)) for s, r, o, st, ot in FACTS])
        for name, description in DESCRIPTIONS.items():
            memory.describe(name, description)
    return path


@pytest.fixture(scope="module")
def snapshot(store):
    with Memory(store, readonly=True) as memory:
        return memory.sealed_snapshot()


@pytest.fixture(scope="module")
def report(browser, snapshot, tmp_path_factory):
    yield from opened_report(browser, snapshot, tmp_path_factory.mktemp("intent-report"))


@pytest.mark.parametrize("text", ["who's on call", "Yusuf's manager", "they're done, aren't they", "can't won't shan't",
                                  "it\u2019s the feature store\u2019s owner", "owned_by depends-on v2.4", "don't"])
def test_the_page_reads_contractions_as_recall_does(report, text):
    assert report.page.evaluate("(text) => window.memlens.search.words(text)", text) == words(text)


def test_every_fact_gets_the_bonus_recall_gives_it_for_every_question(report, snapshot):
    entities = {e["id"]: e for e in snapshot["entities"]}
    hub = next(e["id"] for e in snapshot["entities"] if e["name"] == "feature-store")
    team = next(e["id"] for e in snapshot["entities"] if e["name"] == "ml-platform-team")
    live = [f for f in snapshot["facts"] if f["status"] == "current"]
    compared = given = 0
    for question in QUESTIONS:
        intent = recall_intent.read_intent(question)
        for named in ([], [hub], [team]):
            asking = recall_intent.Asking(intent, {n: recall_intent.named_at(intent, entities[n]["name"]) for n in named})
            expected = {f["id"]: asking.of(f["relation"], *(
                (end, entities[end]["type"], f"{entities[end]['name']} {entities[end]['description']}")
                for end in (f["subject"], f["object"])))[0] for f in live}
            page = report.page.evaluate(
                "([q, named, ids]) => ids.map((id) => window.memlens.search.asked(q, named, id))",
                [question, named, list(expected)])
            assert dict(zip(expected, page)) == pytest.approx(expected), (question, named)
            compared += len(expected)
            given += sum(1 for bonus in expected.values() if bonus)
    assert compared > 1000 and given > 100   # the rule was exercised, not only its zeros
    assert report.console_errors == []


def test_the_page_search_puts_first_what_recall_puts_first(report, store):
    page = report.page
    page.focus("#search-input")
    page.evaluate("() => window.memlens.search.indexed()")
    with Memory(store, readonly=True) as memory:
        for question in QUESTIONS[:11]:
            found = memory.recall(question, limit=10)["facts"]
            best = {f["id"] for f in found if f["score"] == found[0]["score"]}   # answers that tie in recall
            listed = page.evaluate("(q) => window.memlens.search.rank(q).filter((hit) => hit.fact)[0].fact.id", question)
            assert listed in best, question
