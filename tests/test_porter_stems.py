"""The page's search stems words as the store's recall does: static/porter.js (tokens and stems)
against SQLite's own FTS5 `porter` tokenizer, over a word list made to reach every rule."""

from __future__ import annotations

import random
import sqlite3
from importlib import resources

import pytest

pytestmark = pytest.mark.browser

# Words from the memory of a software team, and the classic examples of every step of the algorithm.
ENGLISH = """
caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized
hopping tanned falling hissing fizzed failing filing happy sky relational conditional rational
valenci hesitanci digitizer conformabli radicalli differentli vileli analogousli vietnamization
predication operator feudalism decisiveness hopefulness callousness formaliti sensitiviti
sensibiliti triplicate formative formalize electriciti electrical hopeful goodness revival
allowance inference airliner gyroscopic adjustable defensible irritant replacement adjustment
dependent adoption homologou communism activate angulariti homologous effective bowdlerize probate
rate cease controll roll generalization generalizations oscillators owned owner owners owns
billing billed services serviced deploys deployed deployment deployments dependency dependencies
depends_on owned_by works_at webhooks retries retried retrying cached caching cache caches logging
logged logs rotated rotation rotations keys idempotency idempotent tokens revocation reconciliation
nightly engineers engineering payments refunds charges ledgers proxies proxy gateway regions
production staging decided decision decisions numbers card cards sensitive encryption encrypted
y yy ys yes eed eeds ied ies sses ss s is as us bus buses agreement happily quickly sly dying lying
tying eyeing buying cry cries crying trying tried enjoy enjoyed enjoying boy boys toy toys
""".split()

# Words that pass through (under 3 bytes, over 64) or carry marks unicode61 folds away.
SPECIAL = ["a", "is", "go", "x" * 70, "internationalization" * 3, "cafés", "Über", "naïve", "Résumés",
           "ÉCOLES", "façades", "ångström", "Ærøskøbing", "日本語", "Ταχύτητα", "Йогурты", "MixedCase", "CamelCaseWords", "ABC123",
           "v2", "2026", "e-mail", "owned_by", "repo://payments/db.py#L1-L30", "user said 2026-03-02"]

SUFFIXES = ["", "s", "es", "ed", "ing", "er", "ers", "ly", "ness", "ational", "tional", "ation", "ations",
            "ator", "ize", "izer", "ization", "alism", "iveness", "fulness", "ousness", "aliti", "iviti",
            "biliti", "logi", "icate", "iciti", "ical", "ful", "ative", "alize", "ance", "ence", "able",
            "ible", "ant", "ement", "ment", "ent", "ion", "sion", "tion", "ou", "ism", "ate", "iti", "ous",
            "ive", "eed", "y", "ies", "ied", "bl", "at", "iz", "ll", "e"]


def word_list() -> list[str]:
    stems = ["conn", "hop", "fil", "rat", "gener", "oper", "cry", "boy", "sens", "form", "agr", "tann",
             "fizz", "val", "troubl", "motor", "adjust", "probat", "roll", "day", "play", "eye", "quiz"]
    rng = random.Random(24)
    consonants, vowels = "bcdfghjklmnpqrstvwxz", "aeiouy"
    made = ["".join(rng.choice(vowels if rng.random() < 0.4 else consonants) for _ in range(rng.randrange(1, 11)))
            for _ in range(3000)]
    return ENGLISH + SPECIAL + [s + x for s in stems for x in SUFFIXES] + [w + x for w in made[:600] for x in SUFFIXES[:12]] + made


def sqlite_stems(texts: list[str]) -> list[list[str]]:
    """Each text's tokens as FTS5's porter tokenizer stems them, in order."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE words USING fts5(text, tokenize='porter')")
    db.execute("CREATE VIRTUAL TABLE stems USING fts5vocab(words, 'instance')")
    db.executemany("INSERT INTO words(rowid, text) VALUES (?, ?)", enumerate(texts))
    out: list[list[str]] = [[] for _ in texts]
    for term, doc, offset in db.execute("SELECT term, doc, offset FROM stems ORDER BY doc, offset"):
        out[doc].append(term)
    return out


def static_text(name: str) -> str:
    return resources.files("memlens.static").joinpath(name).read_text(encoding="utf-8")


# The index reads ASCII text with a reader of its own (search_index.js asciiReader): it must find
# the tokens tokensOf finds. Each token becomes its own id here, so the two lists compare as text.
READERS = """
window.stems = (texts) => texts.map((t) => tokensOf(t).map(porterStem));
window.readers = (texts) => {
  const names = [];
  const ids = new Map();
  const idOf = (token) => { if (!ids.has(token)) { ids.set(token, names.length); names.push(token); } return ids.get(token); };
  const read = asciiReader(idOf);
  return texts.map((text) => {
    const stream = termStream(1);
    const rest = read(text, stream);
    const tokens = [...stream.terms.subarray(0, stream.used)].map((id) => names[id]);
    return { index: rest < 0 ? tokens : tokens.concat(tokensOf(text.slice(rest))), tokensOf: tokensOf(text) };
  });
};
"""


@pytest.fixture(scope="module")
def page(browser):
    context = browser.new_context()
    opened = context.new_page()
    opened.add_script_tag(content="const STOP_WORDS = new Set();\n" + static_text("porter.js") + static_text("search_index.js")
                          + READERS)
    yield opened
    context.close()


def test_the_page_stems_every_word_as_sqlites_porter_tokenizer_does(page):
    texts = word_list()
    expected = sqlite_stems(texts)
    got = page.evaluate("(texts) => window.stems(texts)", texts)
    differing = [(text, mine, theirs) for text, mine, theirs in zip(texts, got, expected) if mine != theirs]
    assert not differing, differing[:20]
    # the list reaches the rules: most words change, some pass through, some split in several
    assert sum(1 for text, stems in zip(texts, expected) if stems != [text.lower()]) > len(texts) // 2
    assert ["own", "by"] in expected and ["cafe"] in expected and ["x" * 70] in expected


def test_stemming_joins_the_forms_a_question_and_a_fact_use(page):
    pairs = page.evaluate("""() => [["owns", "owned"], ["deploys", "deployment"], ["retries", "retrying"],
                                    ["decided", "decision"], ["webhooks", "webhook"], ["owner", "owned"]]
        .map(([a, b]) => [porterStem(a) === porterStem(b), porterStem(a), porterStem(b)])""")
    assert [p[0] for p in pairs] == [True, False, True, False, True, False], pairs


def test_the_index_reads_the_tokens_tokens_of_reads(page):
    texts = word_list() + [" ".join(word_list()[i:i + 9]) for i in range(0, 2000, 9)] + [
        "repo://payments/db.py#L1-L30 user said 2026-03-02", "A" * 70 + " tail", "x" * 64 + "y", "mixed café, then ASCII",
        "owned_by depends_on", "", "   ", "ÀÉÎ", "end."]
    read = page.evaluate("(texts) => window.readers(texts)", texts)
    differing = [(text, r) for text, r in zip(texts, read) if r["index"] != r["tokensOf"]]
    assert not differing, differing[:10]
    assert sum(len(r["index"]) for r in read) > len(texts)
