"""The report words every kind of worklist row as the build does, with the dataset's flag quoted,
whether the build rendered the row or the page paged it in; a fact whose evidence changed since it
was recorded is marked on its card."""
from __future__ import annotations

import pytest
from viewer_fixtures import SnapshotBuilder, opened_report

from memlens.viewer.model.printed_commands import dataset_flag
from memlens.viewer.model.snapshot_index import SnapshotIndex
from memlens.viewer.model.worklist import task_of
from memlens.viewer.report.page import MAINTENANCE_PREVIEW, fact_words_in

pytestmark = pytest.mark.browser
ROWS = MAINTENANCE_PREVIEW + 3   # each kind pages in a few
FLAG = {"option": "--db", "value": "/home/o'brien/my stores/memory.sqlite"}


@pytest.fixture(scope="module")
def snapshot():
    b = SnapshotBuilder("commands")
    people = [b.entity(f"Person {n:02d}", "Person") for n in range(ROWS + 1)]
    svc = b.entity("svc", "Service")
    facts = [b.assert_fact(svc, "owned_by", person, evidence=[f"repo://OWNERS#L{n + 1}"])
             for n, person in enumerate(people)]
    for n in range(ROWS):
        a, z = people[n], people[n + 1]
        b.worklist_item(f"hotspot:{svc[:8]}:owned_by{n}", "hotspot", "x", [svc, facts[n], facts[n + 1]])
        b.worklist_item(f"contradiction:{n:08d}", "contradiction", f"a vs b (confidence 0.5{n}): say {n}",
                        [f"{n:08d}", facts[n], facts[n + 1]])
        b.worklist_item(f"duplicate:{n}", "duplicate", "x", [a, z])
        b.worklist_item(f"similar:{a[:8]}:{z[:8]}", "similar", f"maybe the same Person: x, y (spelt alike {n})", [a, z])
        b.worklist_item(f"relation:owned_by{n}", "relation", f"owned_by{n} is also written 'Owned By' (2 facts)",
                        [facts[n]])
        b.worklist_item(f"stale:{facts[n][:8]}", "stale",
                        f"svc --owned_by--> Person {n:02d}: repo://OWNERS#L{n + 1} is gone", [facts[n]])
        b.worklist_item(f"unsupported:{facts[n][:8]}", "unsupported", "x", [facts[n]])
    built = b.build()
    built["dataset_flag"] = FLAG
    built["evidence_check"] = {"changed": [facts[0]]}
    return built


@pytest.fixture(scope="module")
def report(snapshot, browser, tmp_path_factory):
    yield from opened_report(browser, snapshot, tmp_path_factory.mktemp("commands-report"))


def test_every_kind_pages_in_the_rows_the_build_words_with_the_flag(report, snapshot):
    page = report.page
    page.click("#tab-maintenance")
    index = SnapshotIndex(snapshot)
    kinds = ("hotspot", "contradiction", "duplicate", "similar", "relation", "stale", "unsupported")
    for kind in kinds:
        group = page.locator(f'.maint-group[data-list="worklist"][data-kind="{kind}"]')
        group.locator(".maint-show-more").click()
        rows = group.locator("tbody tr")
        rows.nth(ROWS - 1).wait_for()
        tasks = [task_of(row, index.name, fact_words_in(index), dataset_flag(snapshot))
                 for row in snapshot["maintenance"] if row["kind"] == kind]
        assert rows.locator(".task-sentence").all_inner_texts() == [t.sentence for t in tasks], kind
        commands = rows.locator(".task-command").all_inner_texts()
        assert commands == [c for t in tasks for _, c in t.commands], kind
        assert all(c.endswith(" --db '/home/o'\"'\"'brien/my stores/memory.sqlite'") for c in commands), kind
    assert report.console_errors == [] and report.csp_violations() == []


def test_a_card_whose_evidence_changed_is_marked(report, snapshot):
    page = report.page
    [changed] = snapshot["evidence_check"]["changed"]
    page.goto(page.url.split("#")[0] + f"#fact={changed}")
    card = page.locator(f'article[data-fact-id="{changed}"]')
    card.wait_for()
    assert card.locator(".tag-stale").inner_text() == "evidence changed since recorded"
    assert page.locator("#detail .fact-row .mark-stale").count() == 1      # its line is marked too
    report.show_fact_cards()
    others = page.locator("article.fact .tag-stale")
    assert others.count() == 1 and page.locator("article.fact").count() > 1
