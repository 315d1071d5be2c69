"""The page's decoder (static/memory.js) against the Python one (viewer/report/codec.py): the same
blocks give the same records, field by field; and nothing races while the page reads them."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from viewer_fixtures import (SnapshotBuilder, entity_id, hostile_snapshot, open_report, project_ids,
                             project_snapshot)

from memlens.viewer.report.codec import FACTS_BLOCK, LEDGER_BLOCK, MAIN_BLOCK, read_blocks, read_report
from memlens.viewer.report.write import write_report

pytestmark = pytest.mark.browser

# The page's records, spelled as the snapshot spells them (times and references resolved).
PAGE_RECORDS = """async () => {
  const memory = window.memlens.memory;
  const time = (i) => (i === -1 ? null : memory.times[i]);
  const id = (item) => (item ? item.id : null);
  const version = (v) => ({ from: time(v.from), to: time(v.to), status: v.status, superseded_by: id(v.supersededByFact),
                            reason: v.reason, valid_from: v.validFrom, valid_to: v.validTo });
  const ledger = await memory.loadLedger();
  const ref = (r) => (typeof r === "string" ? r : r >= 0 ? memory.entities[r].id : memory.facts[-r - 1].id);
  return {
    entities: memory.entities.map((e) => ({
      id: e.id, name: e.name, type: e.typeName, description: e.description, created_at: time(e.createdAt),
      updated_at: time(e.updatedAt), merged_into: e.mergedInto === -1 ? null : memory.entities[e.mergedInto].id,
      merged_at: time(e.mergedAt) })),
    facts: memory.facts.map((f) => ({
      id: f.id, subject: id(f.subjectEntity), relation: f.relationName, object: id(f.objectEntity),
      description: f.description, evidence: f.evidence, actor: f.actor, functional: f.functional, status: f.status,
      superseded_by: id(f.supersededByFact), reason: f.reason, contested: f.contested,
      contradictions: f.contradictionList.map(id), valid_from: f.validFrom, valid_to: f.validTo,
      recorded_at: time(f.recordedAt), retired_at: time(f.retiredAt), reassertions: f.reassertions,
      history: f.history.map(version) })),
    contradictions: memory.contradictions.map((c) => ({
      id: c.id, facts: c.factList.map(id), reason: c.reason, confidence: c.confidence, actor: c.actor,
      recorded_at: time(c.recordedAt), resolved_at: time(c.resolvedAt), resolution: c.resolution,
      resolution_reason: c.resolutionReason })),
    ledger: ledger.map((row) => ({ seq: row.seq, at: time(row.at), actor: row.actor, action: row.action,
                                   refs: row.refs.map(ref) })),
  };
}"""


def random_snapshot(seed: int) -> dict[str, Any]:
    """A memory written at random, with hostile text, and a few records no store writes (kept whole)."""
    rng = random.Random(seed)
    texts = [f"text {n}" for n in range(5)] + list(hostile_snapshot()["dataset"].split(" ", 1)[1:])
    b = SnapshotBuilder(dataset=f"random-{seed}")
    b.declare_relation("owned_by", functional=True)
    names = [f"entity-{n}" for n in range(30)]
    for name in names:
        b.entity(name, rng.choice(b.types), rng.choice(texts), actor=rng.choice(["cli:a", "agent:b"]))
    ids = [entity_id(name) for name in names]
    facts = []
    for _ in range(80):
        subject, obj = rng.sample(ids, 2)
        facts.append(b.assert_fact(subject, rng.choice(["uses", "owned_by", "calls"]), obj,
                                   description=rng.choice(texts), evidence=rng.sample(texts, rng.randrange(3)),
                                   valid_from=rng.choice([None, "2024-01-01", "2025-06-01"])))
    facts = sorted(set(facts))
    for _ in range(10):
        old, new = rng.sample(facts, 2)
        rng.choice([lambda: b.supersede(old, new, "newer"), lambda: b.contest(old, new, "which", 0.4),
                    lambda: b.retract(old, "wrong"), lambda: b.reassert(old)])()
    b.forget(facts[0])
    b.merge(ids[1], ids[2])
    b.dismiss("hotspot:x", "hotspot", [ids[3]], rng.choice(texts))
    # ids as another tool may have them (no uuids), everywhere they are named: packed apart
    text = json.dumps(b.build()).replace(ids[10], "entity ten").replace(facts[3], "fact three")
    snapshot = json.loads(text)
    snapshot["facts"][5]["subject"] = "an-id-nobody-has"   # irregular: kept whole for Python, -1 for the page
    snapshot["ledger"][7]["refs"] = None
    return snapshot


def regular(records: list[dict[str, Any]], raw: list[list[Any]]) -> list[tuple[int, dict[str, Any]]]:
    """The records the page's columns say exactly (those kept whole in `raw` the page cannot know)."""
    whole = {index for index, _ in raw}
    return [(i, record) for i, record in enumerate(records) if i not in whole]


@pytest.mark.parametrize("make", [project_snapshot, hostile_snapshot, lambda: random_snapshot(5)],
                         ids=["project", "hostile", "random"])
def test_the_page_decodes_the_blocks_into_the_records_python_decodes(browser, tmp_path, make):
    snapshot = make()
    path = write_report(snapshot, tmp_path / "report.html")
    decoded, blocks = read_report(path), read_blocks(path)
    assert decoded == snapshot
    opened = open_report(browser, path)
    try:
        page = opened.page.evaluate(PAGE_RECORDS)
        assert opened.console_errors == [] and opened.csp_violations() == []
    finally:
        opened.close()
    raw = {"entities": blocks[MAIN_BLOCK]["raw"]["entities"], "facts": blocks[FACTS_BLOCK]["raw"],
           "contradictions": blocks[MAIN_BLOCK]["raw"]["contradictions"], "ledger": blocks[LEDGER_BLOCK]["raw"]}
    for part, whole in raw.items():
        assert len(page[part]) == len(decoded[part])
        compared = regular(decoded[part], whole)
        assert len(compared) >= len(decoded[part]) - 3 and compared  # the irregular few aside, every record
        for index, record in compared:
            mine = page[part][index]
            for field, value in mine.items():
                assert value == record[field], (part, index, field)
    if make is project_snapshot:  # a snapshot of the store's shape: every record compared
        assert all(whole == [] for whole in raw.values())


def test_the_irregular_records_still_draw_as_the_page_can(browser, tmp_path):
    snapshot = random_snapshot(5)
    path = write_report(snapshot, tmp_path / "report.html")
    opened = open_report(browser, path)
    try:
        fact = opened.page.evaluate("(id) => { const f = window.memlens.memory.factById.get(id);"
                                    " return [f.subjectEntity, f.relationName]; }", snapshot["facts"][5]["id"])
        row = opened.page.evaluate("async () => (await window.memlens.memory.loadLedger())[7].refs")
        other_ids = opened.page.evaluate("() => [window.memlens.memory.entityById.get('entity ten').name,"
                                         " window.memlens.memory.factById.get('fact three').relationName]")
    finally:
        opened.close()
    assert other_ids[0] == "entity-10" and other_ids[1]  # ids that are no uuids, unpacked apart
    assert fact == [None, snapshot["facts"][5]["relation"]]   # a subject the snapshot lacks is no entity
    assert row == []
    assert read_report(path)["facts"][5]["subject"] == "an-id-nobody-has"  # while Python keeps the id


# Holds the page's reading of its data until the test lets it go: whatever the reader does meanwhile
# happens while the data is not there yet.
GATE = """
window.__dataGate = new Promise((open) => { window.__openDataGate = open; });
const read = ReadableStreamDefaultReader.prototype.read;
ReadableStreamDefaultReader.prototype.read = async function () { await window.__dataGate; return read.call(this); };
"""


def _gated(browser: Any, path: Any, fragment: str) -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.add_init_script(GATE)
    page.goto(f"file://{path}{fragment}")
    page.wait_for_function("() => document.documentElement.classList.contains('js')")
    return context, page, errors


def test_a_search_and_a_deep_link_made_before_the_data_is_read_are_answered(browser, project_report_path):
    ids = project_ids()
    context, page, errors = _gated(browser, project_report_path, f"#entity={ids.alice}")
    try:
        page.locator("#search-input").fill("acme")
        assert page.evaluate("() => window.memlens.ready") is False  # still waiting for its data
        assert page.locator("#search-results").is_hidden()
        assert page.locator("#graph-status").inner_text() == "Reading the memory\u2026"
        page.evaluate("() => window.__openDataGate()")
        page.wait_for_function("() => window.memlens.ready")
        assert page.locator("#detail h2").inner_text() == "alice"                # the link, followed
        assert "entities shown" in page.locator("#graph-status").inner_text()
        found = page.locator("#search-results .option-name").all_inner_texts()   # the search: the entity,
        assert found[0] == "Acme Corp" and "alice works_at Acme Corp" in found   # then what holds its words
        page.keyboard.press("Enter")
        assert page.locator("#detail h2").inner_text() == "Acme Corp"
        assert errors == []
    finally:
        context.close()


def test_a_tab_chosen_before_the_data_is_read_stays_chosen(browser, project_report_path):
    context, page, errors = _gated(browser, project_report_path, "#panel-maintenance")
    try:
        assert page.locator("#panel-maintenance").is_visible() and page.locator("#panel-graph").is_hidden()
        page.click("#tab-provenance")
        assert page.locator("#panel-provenance").is_visible() and page.locator("#panel-maintenance").is_hidden()
        page.evaluate("() => window.__openDataGate()")
        page.wait_for_function("() => /\\d entr(y|ies)/.test(document.getElementById('ledger-count').textContent)")
        assert page.locator("#panel-provenance").is_visible() and page.locator("#panel-maintenance").is_hidden()
        assert page.locator("#ledger-rows tr").count() > 0
        page.click("#tab-graph")
        page.wait_for_function("() => window.memlens.ready")
        assert errors == []
    finally:
        context.close()


def test_a_page_whose_data_cannot_be_read_says_so(browser, tmp_path):
    path = write_report(project_snapshot(), tmp_path / "report.html")
    text = path.read_text(encoding="utf-8")
    start = text.index('id="memlens-facts" data-encoding="base64">') + 100
    path.write_text(text[:start] + "AAAA" + text[start + 4:], encoding="utf-8")
    opened = open_report(browser, path, wait_for_graph=False)
    try:
        opened.page.wait_for_function("() => Boolean(window.memlens.error)")
        assert "could not be read" in opened.page.locator("#graph-status").inner_text()
        assert opened.page.evaluate("() => window.memlens.ready") is False
    finally:
        opened.close()


def test_the_page_links_exactly_the_evidence_python_calls_a_web_link(browser, tmp_path):
    """The rule lives in Python (the site's pages) and in the page's script: the two agree."""
    from memlens.viewer.model.evidence import is_web_link

    texts = ["https://github.com/acme/payments/pull/42", "http://wiki.acme.internal/auth", "HTTPS://x.test/a",
             "javascript:alert(1)", "JaVaScRiPt:alert(1)", " https://x.test", "data:text/html,x", "repo://src/a.py#L1",
             "user said 2026-09-18", "https://", "https://a b.test", "https:/x.test", "vbscript:x", "",
             "https://example.com/\"><script>alert(1)</script>", "http://[::1]:8080/x", "https://x.test/\u2028"]
    b = SnapshotBuilder(dataset="links")
    first, second = b.entity("first", "Concept"), b.entity("second", "Concept")
    b.assert_fact(first, "cites", second, evidence=texts)
    opened = open_report(browser, write_report(b.build(), tmp_path / "report.html"))
    try:
        opened.show_fact_cards()
        opened.page.evaluate("(id) => window.memlens.selectEntityById(id)", first)
        linked = opened.page.locator("#detail .fact-evidence a").all_inner_texts()
        shown = opened.page.locator("#detail .fact-evidence li").count()
    finally:
        opened.close()
    assert shown == len(texts)
    assert linked == [t.strip() for t in texts if is_web_link(t)] and linked
