"""Planning entities when first asked (SitePlans) gives every fact the page that planning every
entity first gave: its subject's card, its object's when the subject has no page, and a forgotten
fact's on whichever end comes first."""
from __future__ import annotations

import pytest
from shape_snapshots import shape_snapshot
from viewer_fixtures import hostile_snapshot, project_snapshot

from memlens.viewer.site.build import SiteBuild
from memlens.viewer.site.entity_plan import card_size, plan_entity


def planned_first(site: SiteBuild) -> dict[str, str]:
    """Fact id -> page, as the site found it by planning every entity before anything else."""
    found: dict[str, str] = {}
    size = card_size(site.index.name)
    order = {f["id"]: n for n, f in enumerate(site.snapshot["facts"])}
    for entity_id, page in site.pages.items():
        plan = plan_entity(entity_id, page, site.index.facts_of(entity_id), order, size)
        for group in plan.groups:
            owned = group.direction == "out" or group.relation is None
            for position, fact in enumerate(group.facts):
                if owned or fact.get("subject") not in site.pages:
                    found.setdefault(fact["id"], plan.fact_page(position, group))
    return found


def without_a_subject_page(snapshot):
    """The project, with one fact's subject gone from the entities: its object's page shows it."""
    fact = next(f for f in snapshot["facts"] if f["relation"] is not None and f["status"] == "current")
    snapshot["entities"] = [e for e in snapshot["entities"] if e["id"] != fact["subject"]]
    return snapshot


def forgotten_with_both_ends(snapshot, first="object"):
    """The project, with a fact forgotten but both its ends kept, the page of its `first` end named first."""
    order = {e["id"]: n for n, e in enumerate(snapshot["entities"])}
    later = "subject" if first == "object" else "object"
    fact = next(f for f in snapshot["facts"] if f["relation"] is not None and f["subject"] in order
                and f["object"] in order and order[f[first]] < order[f[later]])
    fact["status"], fact["relation"] = "forgotten", None
    return snapshot


@pytest.mark.parametrize("build", [
    project_snapshot, hostile_snapshot, lambda: without_a_subject_page(project_snapshot()),
    lambda: forgotten_with_both_ends(project_snapshot(), first="object"),
    lambda: forgotten_with_both_ends(project_snapshot(), first="subject"),
    lambda: shape_snapshot("hubs", entities=400), lambda: shape_snapshot("long-histories", entities=1200),
], ids=["project", "hostile", "a-subject-without-a-page", "forgotten-object-first", "forgotten-subject-first", "hubs", "long-histories"])
def test_a_fact_page_is_the_one_planning_every_entity_first_gave(build):
    snapshot = build()
    site = SiteBuild(snapshot, None)
    expected = planned_first(site)
    found = {f["id"]: site.plans.get(f["id"]) for f in snapshot["facts"]}
    assert expected and {k: v for k, v in found.items() if v is not None} == expected
    assert all(found[fid] is None for fid in found if fid not in expected)


def test_the_cases_that_decide_a_page_are_all_met():
    """The snapshots above hold each case the rule tells apart, so the comparison means something."""
    histories = SiteBuild(shape_snapshot("long-histories", entities=1200), None)
    assert any("--" in page for page in planned_first(histories).values())   # a card past its subject's own page
    project = SiteBuild(project_snapshot(), None)
    forgotten = [f for f in project.snapshot["facts"] if f["status"] == "forgotten"]
    assert forgotten and all(project.plans.get(f["id"]) for f in forgotten if f["subject"] in project.pages)
    orphaned = without_a_subject_page(project_snapshot())
    site = SiteBuild(orphaned, None)
    fact = next(f for f in orphaned["facts"] if f["subject"] not in site.pages and f["object"] in site.pages)
    assert site.plans.get(fact["id"]) == site.pages[fact["object"]]
    for first in ("object", "subject"):
        both = forgotten_with_both_ends(project_snapshot(), first)
        site = SiteBuild(both, None)
        fact = next(f for f in both["facts"] if f["status"] == "forgotten" and f["object"] in site.pages)
        assert site.plans.get(fact["id"]) == site.pages[fact[first]]   # the end named first
