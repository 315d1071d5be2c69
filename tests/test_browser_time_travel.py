"""Time travel tells the truth: at every stop of its sliders the page draws the facts the CLI lists.

"Believed as of T" is `memlens facts --as-of-record T`; "True at T" is `memlens facts --as-of-valid
T`, values superseded later included. Both are checked stop by stop, moving the sliders with the
keyboard as a person would, on the demo and on a store written at random.
"""
from __future__ import annotations

import json
import random
from datetime import date, timedelta

import pytest
from conftest import StepClock
from viewer_fixtures import open_report

from memlens.store.errors import MemlensError
from memlens.store.facts import FactInput
from memlens.store.memory import Memory
from memlens.viewer.report.write import write_report

pytestmark = pytest.mark.browser

SHOWN_EDGES = "() => window.memlens.network.body.data.edges.get({ filter: (e) => !e.hidden }).map((e) => e.id).sort()"
VIEW = "() => ({ record: window.memlens.view.asOfRecord, valid: window.memlens.view.asOfValid })"


def random_store(path, seed: int) -> None:
    """Facts with and without validity (dates and datetimes), a functional relation whose values
    arrive in and out of order, supersessions, retractions, contradictions, a forgotten fact and
    an entity merged into another (its facts carried there)."""
    rng = random.Random(seed)
    with Memory(path, actor="test:random", clock=StepClock()) as memory:
        memory.declare_functional("owned_by")
        types = ["Person", "Service", "Library", "Team"]
        names = [(f"thing-{i}", types[i % len(types)]) for i in range(14)]

        def when() -> str | None:
            roll = rng.random()
            if roll < 0.25:
                return None
            day = date(2024, 1, 1) + timedelta(days=rng.randrange(900))
            return f"{day.isoformat()}T{rng.randrange(24):02d}:00:00Z" if roll < 0.4 else day.isoformat()

        for _ in range(30):
            batch = []
            for _ in range(rng.randrange(1, 4)):
                (subject, stype), (obj, otype) = rng.sample(names, 2)
                start = when()
                end = None
                if start and rng.random() < 0.3:
                    end = (date.fromisoformat(start[:10]) + timedelta(days=rng.randrange(30, 400))).isoformat()
                batch.append(FactInput(subject, rng.choice(["uses", "depends_on", "owned_by"]), obj, stype, otype,
                                       evidence=("random",), valid_from=start, valid_to=end))
            try:
                memory.remember(batch)
            except MemlensError:
                pass
        for _ in range(12):
            current = [f["id"] for f in memory.facts()]
            action = rng.choice(["supersede", "retract", "contest", "contest", "forget", "merge"])
            try:
                if action == "supersede":
                    old, new = rng.sample(current, 2)
                    memory.supersede(old, new, "random judgement")
                elif action == "retract":
                    memory.retract(rng.choice(current), "random retraction")
                elif action == "merge":
                    memory.merge(*(name for name, _ in rng.sample(names, 2)))
                elif action == "contest":
                    memory.contest(*rng.sample(current, 2), "random contradiction", 0.5)
                else:
                    memory.forget_fact(rng.choice(current))
            except MemlensError:
                pass


def cli_facts(cli, store_args: list[str], *when: str) -> list[str]:
    """The ids the CLI lists, less those forgotten since: their text and ends are erased, so
    there is nothing left to draw (the CLI lists them by id only)."""
    result = cli("facts", *store_args, *when, "--json")
    assert result.exit_code == 0, result.output
    return sorted(fact["id"] for fact in json.loads(result.output) if fact["relation"] is not None)


def walk(page, slider: str, counted: list[int] | None = None):
    """Every stop of a slider, from the far left, as (view, facts drawn); with `counted`, the
    header's count of facts at each stop is appended to it."""
    page.focus(slider)
    page.keyboard.press("Home")
    seen = []
    while True:
        view = page.evaluate(VIEW)
        if seen and view == seen[-1][0]:
            return seen
        seen.append((view, page.evaluate(SHOWN_EDGES)))
        if counted is not None:
            counted.append(page.evaluate(HEADER)["facts"])
        page.keyboard.press("ArrowRight")


def check_against_the_cli(browser, cli, report, store_args):
    opened = open_report(browser, report)
    try:
        page = opened.page
        times = page.evaluate("() => window.memlens.times")
        valid_times = page.evaluate("() => window.memlens.validTimes")
        record_stops = walk(page, "#asof-record")
        assert record_stops[-1][0] == {"record": None, "valid": None}            # the far right is now
        assert len(record_stops) >= 5
        for view, shown in record_stops[:-1]:
            assert shown == cli_facts(cli, store_args, "--as-of-record", times[view["record"]]), view
        assert record_stops[-1][1] == cli_facts(cli, store_args)                  # now: the current facts
        # the earliest stop draws something: nothing is before the first entity
        assert record_stops[0][1] or page.evaluate("() => window.memlens.network.body.data.nodes.get().some((n) => !n.hidden)")

        page.click("#reset-view")
        counted: list[int] = []
        valid_stops = walk(page, "#asof-valid", counted)
        assert [view["valid"] for view, _ in valid_stops] == valid_times        # every dated stop, in order
        for (view, shown), facts in zip(valid_stops, counted):
            listed = cli_facts(cli, store_args, "--as-of-valid", view["valid"])
            assert shown == listed, view
            assert facts == len(listed), view                                   # and the header counts them
        # values superseded since are among what was true then, not hidden with the superseded
        retired = {f["id"] for f in json.loads(cli("facts", *store_args, "--all", "--json").output)
                   if f["status"] == "superseded"}
        assert any(retired & set(shown) for _, shown in valid_stops)
        assert not retired & set(cli_facts(cli, store_args))                   # the positive case's foil
        # "any time" is a switch of its own, and turning it on shows the current facts again
        page.check("#asof-valid-any")
        assert page.evaluate(VIEW)["valid"] is None and page.evaluate(SHOWN_EDGES) == cli_facts(cli, store_args)
        assert opened.console_errors == []
    finally:
        opened.close()
    return record_stops, valid_stops


def test_the_demo_travels_in_time_as_the_cli_does(browser, cli, tmp_path):
    assert cli("demo").exit_code == 0
    report = tmp_path / "demo.html"
    assert cli("view", "-d", "demo", "--out", str(report), "--no-open").exit_code == 0
    record_stops, valid_stops = check_against_the_cli(browser, cli, report, ["-d", "demo"])
    # the case: billing-service's owner in mid-2025 was Dana Okafor, superseded later
    owners = json.loads(cli("facts", "-d", "demo", "--as-of-valid", "2025-05-12", "--json").output)
    dana = [f for f in owners if f["subject_name"] == "billing-service" and f["relation"] == "owned_by"]
    assert [(f["object_name"], f["status"]) for f in dana] == [("Dana Okafor", "superseded")]
    stop = next(shown for view, shown in valid_stops if view["valid"] == "2025-05-12")
    assert dana[0]["id"] in stop


@pytest.mark.parametrize("seed", [3, 11])
def test_a_random_store_travels_in_time_as_the_cli_does(browser, cli, tmp_path, seed):
    store = tmp_path / "random.sqlite"
    random_store(store, seed)
    report = tmp_path / "random.html"
    assert cli("view", "--db", str(store), "--out", str(report), "--no-open").exit_code == 0
    check_against_the_cli(browser, cli, report, ["--db", str(store)])


def test_true_at_shows_who_owned_billing_then_in_the_panel_marked_as_held_then(browser, cli, tmp_path):
    assert cli("demo").exit_code == 0
    report = tmp_path / "demo.html"
    assert cli("view", "-d", "demo", "--out", str(report), "--no-open").exit_code == 0
    opened = open_report(browser, report, fragment="#entity=billing-service")
    try:
        page = opened.page
        opened.show_fact_cards()
        owner = page.locator('#detail .fact:has(.fact-relation:text-is(" owned_by "))')
        assert owner.count() == 1 and "Sam Lee" not in owner.inner_text()          # now: one owner, current
        page.focus("#asof-valid")
        page.keyboard.press("Home")
        while page.evaluate(VIEW)["valid"] != "2025-05-12":
            page.keyboard.press("ArrowRight")
        assert page.locator("#asof-valid-value").inner_text() == "2025-05-12"
        assert owner.count() == 1
        text = owner.inner_text()
        assert "Dana Okafor" in text and "superseded" in text and "held then" in text
        assert page.locator("#counts-when").inner_text() == "facts true at 2025-05-12"
        assert opened.console_errors == []
    finally:
        opened.close()



HEADER = """() => Object.fromEntries([...document.querySelectorAll("#header-counts [data-count]")]
  .map((cell) => [cell.dataset.count, Number(cell.querySelector("dd").textContent.replace(/,/g, ""))]))"""


def counts_then(memory, snapshot, ledger, at: str) -> dict[str, int]:
    """What the header counts at record time `at`, from the store."""
    listed = memory.facts(include_all=True, as_of_record=at)
    counts = {s: sum(1 for f in listed if f["status"] == s) for s in ("current", "superseded", "retracted", "forgotten")}
    return dict(counts, facts=len(listed),
                contested=sum(1 for f in listed if f["contested"] and f["status"] != "forgotten"),
                entities=sum(1 for e in snapshot["entities"]
                             if e["created_at"] <= at and (e["merged_at"] is None or e["merged_at"] > at)),
                ledger=sum(1 for row in ledger if row["at"] <= at))


@pytest.mark.parametrize("seed", [3, 11])
def test_the_header_counts_at_every_record_stop_what_the_store_held_then(browser, tmp_path, seed):
    store = tmp_path / "random.sqlite"
    random_store(store, seed)
    with Memory(store, readonly=True) as memory:
        snapshot, ledger = memory.snapshot(), memory.ledger()
        write_report(snapshot, tmp_path / "random.html")
        opened = open_report(browser, tmp_path / "random.html")
        try:
            page = opened.page
            times = page.evaluate("() => window.memlens.times")
            page.evaluate("() => window.memlens.memory.loadLedger()")
            page.focus("#asof-record")
            page.keyboard.press("Home")
            seen = []
            while (at := page.evaluate(VIEW)["record"]) is not None:
                header = page.evaluate(HEADER)
                assert header == counts_then(memory, snapshot, ledger, times[at]), times[at]
                seen.append(header)
                page.keyboard.press("ArrowRight")
            assert len(seen) >= 5 and opened.console_errors == []
            assert seen[0]["facts"] < seen[-1]["facts"] and seen[0]["ledger"] < seen[-1]["ledger"]
            assert any(header["contested"] for header in seen) and any(header["superseded"] for header in seen)
        finally:
            opened.close()
