"""A typo merged into the right name is drawn once: its facts' timelines show the copies the merge
made under the kept entity, not the carried facts beside them (which read as two owners at once)."""
from __future__ import annotations

import re
from pathlib import Path

from conftest import StepClock

from memlens.store.facts import FactInput
from memlens.store.memory import Memory
from memlens.viewer.model.snapshot_index import SnapshotIndex
from memlens.viewer.model.timeline import TimelineBuilder, entity_timeline, functional_timelines


def owners(path: Path, *, merge: bool) -> Memory:
    memory = Memory(path, actor="test:typo", clock=StepClock())
    memory.declare_functional("owned_by")
    memory.remember([FactInput("billing", "owned_by", "dana", "Service", "Person", valid_from="2025-01-01")])
    memory.remember([FactInput("billing", "owned_by", "Priya S", None, "Person", valid_from="2025-06-01")])
    memory.remember([FactInput("billing", "owned_by", "Priya", None, "Person", valid_from="2025-09-01")], new={"Priya"})
    if merge:
        memory.merge("Priya", "Priya S")
    return memory


def labels(memory: Memory) -> tuple[list[str], list[str]]:
    """The rows of billing's owned_by timeline and of billing's own, as the report draws them."""
    index = SnapshotIndex(memory.snapshot())
    builder = TimelineBuilder(index)
    [key], _ = functional_timelines(builder)
    billing = next(e["id"] for e in index.snapshot["entities"] if e["name"] == "billing")
    return [row.label for row in key.rows], [row.label for row in entity_timeline(builder, billing).rows]


def test_the_report_draws_the_typos_facts_as_their_copies(tmp_path):
    with owners(tmp_path / "before.sqlite", merge=False) as memory:
        assert labels(memory) == (["dana", "Priya S", "Priya"],
                                  ["owned_by \u2192 dana", "owned_by \u2192 Priya S", "owned_by \u2192 Priya"])
    with owners(tmp_path / "after.sqlite", merge=True) as memory:
        key, own = labels(memory)
        assert key == ["dana", "Priya", "Priya"]          # Priya's two holdings: 2025-06 and 2025-09 on
        assert own == ["owned_by \u2192 dana", "owned_by \u2192 Priya", "owned_by \u2192 Priya"]


def test_the_sites_entity_page_draws_them_once_too(cli, tmp_path):
    site = tmp_path / "site"
    with owners(tmp_path / "m.sqlite", merge=True):
        pass
    assert cli("export", "--format", "site", "--db", str(tmp_path / "m.sqlite"), "-o", str(site)).exit_code == 0
    [page] = [p for p in (site / "entities").glob("billing*.html")]
    html = page.read_text()
    timeline = html[html.index("<svg"):html.index("</svg>")]
    rows = re.findall(r"owned_by \u2192 ([^<(]+?)\s*[<(]", timeline)
    assert rows and "Priya S" not in rows and rows.count("Priya") >= 2, rows
    assert "Priya S" in html      # the carried fact is still in the page's history, superseded by its copy
