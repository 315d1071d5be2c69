"""The report's header says what the memory is about in one line: its project entity's own words and
its most common types; counts in one line; the snapshot's hash behind a control."""
from __future__ import annotations

from lxml import html as lxml_html
from named_memory import named_memory
from viewer_fixtures import SnapshotBuilder, hostile

from memlens.viewer.model.about import DESCRIPTION_CHARS, about
from memlens.viewer.report.page import render_report


def header_of(snapshot: dict) -> lxml_html.HtmlElement:
    [header] = lxml_html.fromstring(render_report(snapshot)).xpath("//header[contains(@class, 'masthead')]")
    return header


def words(element) -> str:
    return " ".join(element.text_content().split())


def test_the_header_names_the_project_in_its_own_words_and_the_top_types():
    snapshot = named_memory(40)
    header = header_of(snapshot)
    [line] = header.xpath(".//p[@id='about']")
    assert words(line).startswith("shopfront: An online shop: storefront, payments and shipping.")
    counts: dict[str, int] = {}
    for entity in snapshot["entities"]:
        counts[entity["type"]] = counts.get(entity["type"], 0) + 1
    top = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:3]
    assert words(line).endswith(", ".join(f"{name} {count}" for name, count in top))
    # counts in one line; the hash only inside a details control
    facts = words(header.xpath(".//dl[@id='header-counts']")[0])
    assert f"entities {snapshot['stats']['entities']}" in facts and f"facts {snapshot['stats']['facts']}" in facts
    [details] = header.xpath(".//details")
    assert snapshot["hash"] in words(details.xpath(".//p")[0]) and snapshot["hash"] not in words(details.xpath("summary")[0])


def test_without_a_project_entity_the_header_says_the_types_alone():
    builder = SnapshotBuilder(dataset="no-project")
    builder.entity("alice", "Person", "an engineer")
    builder.entity("payments-api", "Service", "takes payments")
    header = header_of(builder.build())
    [line] = header.xpath(".//p[@id='about']")
    assert words(line) == "Person 1, Service 1"       # no entity's description passes for the memory's own
    assert not line.xpath(".//strong")


def test_the_best_connected_project_with_a_description_speaks_and_hostile_text_stays_text():
    builder = SnapshotBuilder(dataset="two-projects", types=["Project", "Person"])
    quiet = builder.entity("quiet", "Project", "")
    small = builder.entity("small", "Project", "a side project")
    big = builder.entity("big", "Project", hostile("big") + " " + "word " * 100)
    alice = builder.entity("alice", "Person")
    for project in (quiet, quiet, big):
        builder.assert_fact(alice, "works_on", project)
    snapshot = builder.build()
    chosen = about(snapshot, {quiet: 5, small: 1, big: 2})
    assert chosen.project == "big" and len(chosen.description) == DESCRIPTION_CHARS
    [line] = header_of(snapshot).xpath(".//p[@id='about']")
    assert words(line).startswith("big: " + " ".join(hostile("big").split()))
    assert not line.xpath(".//script | .//img | .//b")
