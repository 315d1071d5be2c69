"""`memlens import --from memlens BUNDLE` into a dataset that holds memories: a merge.

Two teammates, Ann and Ben, write their own memories of one project (on one clock, so what is later
is later for both); each takes the other's bundle, both ways, and every expectation stands beside
its negative twin."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import StepClock
from memlens.store import datasets
from memlens.store.bundle_merge import UNORDERED_REASON
from memlens.store.facts import FactInput
from memlens.store.ids import entity_id, fact_id
from memlens.store.memory import Memory


def fid(subject: str, relation: str, obj: str) -> str:
    return fact_id(entity_id(subject), relation, entity_id(obj))


@pytest.fixture
def teammates(home: Path) -> dict[str, Path]:
    """Ann's and Ben's memories: shared facts with different evidence, an owner they disagree on
    without valid times and one with them, a fact Ben retracted, a fact Ann superseded later than
    Ben's retraction, a fact Ben forgot and one Ann forgot, entities Ben merged, and a near-miss name."""
    clock = StepClock()
    ann_path, ben_path = datasets.path_for("ann"), datasets.path_for("ben")
    with Memory(ann_path, actor="cli:ann", clock=clock) as ann, Memory(ben_path, actor="cli:ben", clock=clock) as ben:
        for memory in (ann, ben):
            memory.declare_functional("owned_by")
        ann.remember([FactInput("billing", "uses", "postgres", "Service", "Tool", evidence=("repo://billing/db.py",)),
                      FactInput("billing", "owned_by", "alice", None, "Person"),
                      FactInput("search", "owned_by", "carol", "Service", "Person", valid_from="2025-01-01"),
                      FactInput("auth", "uses", "redis", "Service", "Tool"),
                      FactInput("auth", "uses", "memcached", None, "Tool"),
                      FactInput("vault", "holds", "hunter2", "Tool", "Concept"),
                      FactInput("api", "uses", "pg", "Service", "Tool"),
                      FactInput("Auth Service", "runs_on", "k8s", "Service", "Tool"),
                      FactInput("scratch", "mentions", "pasted-token", "Concept", "Concept")])
        ben.remember([FactInput("billing", "uses", "postgres", "Service", "Tool", evidence=("user said on Monday",)),
                      FactInput("billing", "owned_by", "bob", None, "Person"),
                      FactInput("search", "owned_by", "dave", "Service", "Person", valid_from="2025-06-01"),
                      FactInput("auth", "uses", "redis", "Service", "Tool"),
                      FactInput("auth", "uses", "memcached", None, "Tool"),
                      FactInput("vault", "holds", "hunter2", "Tool", "Concept"),
                      FactInput("worker", "uses", "pg", "Service", "Tool"),
                      FactInput("worker", "uses", "postgres", None, "Tool"),
                      FactInput("auth-service", "runs_on", "k8s", "Service", "Tool"),
                      FactInput("scratch", "mentions", "pasted-token", "Concept", "Concept")])
        ben.retract(fid("auth", "uses", "redis"), "auth moved to memcached")
        ann.supersede(fid("auth", "uses", "memcached"), fid("auth", "uses", "redis"), "memcached was dropped")
        ben.forget_fact(fid("vault", "holds", "hunter2"))
        ann.forget_fact(fid("scratch", "mentions", "pasted-token"))
        ben.merge("postgres", "pg")
    return {"ann": ann_path, "ben": ben_path}


def export(cli, dataset: str, out: Path) -> Path:
    result = cli("export", "-d", dataset, "--format", "json", "-o", str(out))
    assert result.exit_code == 0, result.output
    return out


def take(cli, bundle: Path, dataset: str, *more: str):
    result = cli("import", "--from", "memlens", str(bundle), "-d", dataset, *more)
    assert result.exit_code == 0, result.output
    return result


def facts(dataset: str, **as_of: str) -> dict[str, dict]:
    with Memory(datasets.path_for(dataset), readonly=True) as memory:
        return {f["id"]: f for f in memory.facts(include_all=True, **as_of) if f["relation"] is not None}


def snapshot(dataset: str) -> dict:
    with Memory(datasets.path_for(dataset), readonly=True) as memory:
        return memory.snapshot()


def open_pairs(dataset: str) -> set[frozenset[str]]:
    return {frozenset(c["facts"]) for c in snapshot(dataset)["contradictions"] if c["resolved_at"] is None}


@pytest.fixture
def ann_took_ben(cli, teammates, tmp_path) -> dict:
    """Ann merged Ben's bundle; what the command said, as JSON."""
    result = take(cli, export(cli, "ben", tmp_path / "ben.json"), "ann", "--json")
    return json.loads(result.output)


def test_a_shared_fact_is_one_fact_whose_evidence_gains_the_teammates(ann_took_ben):
    uses = [f for f in facts("ann").values() if (f["subject_name"], f["relation"], f["object_name"]) == ("billing", "uses", "postgres")]
    assert len(uses) == 1
    assert uses[0]["evidence"] == ["repo://billing/db.py", "user said on Monday"]
    assert uses[0]["actor"] == "cli:ann"   # the fact Ann recorded stays hers; only its evidence grew
    assert ann_took_ben["facts_with_more_evidence"] == 1


def test_an_undated_disagreement_on_an_owner_is_an_open_contradiction_and_a_dated_one_is_ordered(ann_took_ben):
    now = facts("ann")
    alice, bob = fid("billing", "owned_by", "alice"), fid("billing", "owned_by", "bob")
    # neither valid time says which came later: both stand, contested, for a person to resolve
    assert now[alice]["status"] == now[bob]["status"] == "current"
    assert frozenset({alice, bob}) in open_pairs("ann")
    question = next(c for c in snapshot("ann")["contradictions"] if set(c["facts"]) == {alice, bob})
    assert question["reason"] == UNORDERED_REASON
    # the dated twin: Ben's dave from 2025-06 is later than Ann's carol from 2025-01; no question asked
    carol, dave = fid("search", "owned_by", "carol"), fid("search", "owned_by", "dave")
    assert (now[carol]["status"], now[carol]["superseded_by"], now[carol]["valid_to"]) == ("superseded", dave, "2025-06-01")
    assert now[dave]["status"] == "current"
    assert not any(carol in pair or dave in pair for pair in open_pairs("ann"))
    assert ann_took_ben["contradictions_opened"] == 1 and ann_took_ben["facts_ordered"] == 1


def test_the_teammates_later_retraction_applies_and_shows_where_it_came_from(ann_took_ben, teammates):
    redis = fid("auth", "uses", "redis")
    fact = facts("ann")[redis]
    assert (fact["status"], fact["reason"]) == ("retracted", "auth moved to memcached")
    version = next(f for f in snapshot("ann")["facts"] if f["id"] == redis)["history"][-1]
    assert version["bundle"] == ann_took_ben["bundle"] and version["bundle"].startswith("sha256:")
    with Memory(teammates["ben"], readonly=True) as ben:
        retracted_there = ben.fact(redis)["retired_at"]
    assert version["judged_at"] == retracted_there < version["from"]   # decided there, recorded here at the merge
    # its negative: Ann's supersession of memcached came after Ben's retraction, and stays hers
    memcached = facts("ann")[fid("auth", "uses", "memcached")]
    assert (memcached["status"], memcached["reason"]) == ("superseded", "memcached was dropped")
    assert ann_took_ben["facts_yours_judged_later"] == 1


def test_a_fact_the_teammate_forgot_stays_and_one_you_forgot_is_not_brought_back(ann_took_ben):
    now = facts("ann")
    assert now[fid("vault", "holds", "hunter2")]["status"] == "current"   # Ben forgot it: Ann keeps hers
    assert fid("scratch", "mentions", "pasted-token") not in now          # Ann forgot it: not brought back
    assert fid("auth", "uses", "redis") in now                            # while what both hold is there
    assert ann_took_ben["facts_kept_forgotten"] == 1
    assert ann_took_ben["facts_yours_only"] >= 2   # hunter2, and her own api --uses--> pg


def test_the_teammates_entity_merge_is_made_and_carries_your_facts(ann_took_ben):
    with Memory(datasets.path_for("ann"), readonly=True) as ann:
        pg = ann.conn.execute("SELECT merged_into FROM entities WHERE id = ?", (entity_id("pg"),)).fetchone()[0]
        postgres = ann.conn.execute("SELECT merged_into FROM entities WHERE id = ?", (entity_id("postgres"),)).fetchone()[0]
    assert (pg, postgres) == (entity_id("postgres"), None)
    now = facts("ann")
    assert now[fid("api", "uses", "postgres")]["status"] == "current"   # Ann's api fact went with pg
    assert now[fid("api", "uses", "pg")]["status"] == "superseded"
    assert ann_took_ben["entities_merged"] == 1


def test_a_near_miss_name_is_reported_and_kept_apart(cli, teammates, tmp_path):
    result = take(cli, export(cli, "ben", tmp_path / "ben.json"), "ann")
    assert ("near miss, kept apart: their 'auth-service' (Service) and your 'Auth Service' (Service): the same name "
            "but for case, spaces or separators; if they are one: memlens merge 'Auth Service' "
            f"{entity_id('auth-service')} -d ann") in result.output
    with Memory(datasets.path_for("ann"), readonly=True) as ann:
        live = {row[0] for row in ann.conn.execute("SELECT name FROM entities WHERE merged_into IS NULL")}
    assert {"Auth Service", "auth-service"} <= live                   # two entities: nothing merged silently
    assert "their 'billing'" not in result.output and "their 'k8s'" not in result.output   # the same names: no miss


def test_what_the_merge_brings_keeps_its_actor_and_says_from_which_bundle_and_when(ann_took_ben, teammates):
    bob = fid("billing", "owned_by", "bob")
    brought = next(f for f in snapshot("ann")["facts"] if f["id"] == bob)
    with Memory(teammates["ben"], readonly=True) as ben:
        there = ben.fact(bob)
    assert brought["actor"] == "cli:ben"
    assert brought["origin"] == {"bundle": ann_took_ben["bundle"], "dataset": "ben", "recorded_at": there["recorded_at"]}
    assert brought["recorded_at"] > there["recorded_at"]   # recorded here when the merge was
    assert "origin" not in next(f for f in snapshot("ann")["facts"] if f["id"] == fid("auth", "uses", "memcached"))


def test_time_travel_to_before_the_merge_shows_the_memory_without_it(ann_took_ben):
    bob = fid("billing", "owned_by", "bob")
    ledger = snapshot("ann")["ledger"]
    merge_row = ledger[-1]
    before = next(row for row in reversed(ledger) if row["at"] < merge_row["at"])["at"]
    then, now = facts("ann", as_of_record=before), facts("ann", as_of_record=merge_row["at"])
    assert bob not in then and bob in now
    assert then[fid("auth", "uses", "redis")]["status"] == "current"
    assert now[fid("auth", "uses", "redis")]["status"] == "retracted"


def test_the_merge_is_one_ledger_entry_naming_the_bundles_seal(ann_took_ben, tmp_path):
    ledger = snapshot("ann")["ledger"]
    merge_rows = [row for row in ledger if row["actor"] == "import:memlens"]
    assert {row["at"] for row in merge_rows} == {ledger[-1]["at"]}     # one write, one record time
    summary = [row for row in merge_rows if row["kind"] == "dataset"]
    assert len(summary) == 1 and summary[0] is merge_rows[-1]
    sealed = json.loads((tmp_path / "ben.json").read_text())["seal"]["content"]
    assert summary[0]["payload"]["bundle"] == sealed == ann_took_ben["bundle"]
    assert summary[0]["payload"]["facts_added"] == ann_took_ben["facts_added"] > 0
    assert not any(row["payload"].get("imported_from") for row in ledger)   # Ben's ledger is not copied


def test_the_same_bundle_twice_changes_nothing_the_second_time(cli, teammates, tmp_path):
    bundle = export(cli, "ben", tmp_path / "ben.json")
    first = json.loads(take(cli, bundle, "ann", "--json").output)
    head = snapshot("ann")["hash"]
    again = json.loads(take(cli, bundle, "ann", "--json").output)
    assert snapshot("ann")["hash"] == head
    assert first["facts_added"] > 0 and again["facts_added"] == again["facts_judged"] == again["entities_added"] == 0
    assert take(cli, bundle, "ann").output.startswith(f"merged {bundle} into ann: nothing changed")


def test_merged_both_ways_the_two_memories_agree(cli, teammates, tmp_path):
    take(cli, export(cli, "ben", tmp_path / "ben-1.json"), "ann")
    take(cli, export(cli, "ann", tmp_path / "ann-1.json"), "ben")
    take(cli, export(cli, "ben", tmp_path / "ben-2.json"), "ann")
    ann, ben = facts("ann"), facts("ben")

    def states(held: dict[str, dict]) -> dict[str, tuple]:
        return {i: (f["status"], f["superseded_by"], f["valid_from"], f["valid_to"], sorted(f["evidence"]))
                for i, f in held.items()}

    forgotten = {fid("vault", "holds", "hunter2"), fid("scratch", "mentions", "pasted-token")}
    assert {i: s for i, s in states(ann).items() if i not in forgotten} == \
        {i: s for i, s in states(ben).items() if i not in forgotten}
    assert open_pairs("ann") == open_pairs("ben") == {frozenset({fid("billing", "owned_by", "alice"),
                                                                fid("billing", "owned_by", "bob")})}
    # what each forgot it still has forgotten; what the other forgot, each keeps
    assert fid("vault", "holds", "hunter2") in ann and fid("vault", "holds", "hunter2") not in ben
    assert fid("scratch", "mentions", "pasted-token") in ben and fid("scratch", "mentions", "pasted-token") not in ann
    assert ben[fid("auth", "uses", "memcached")]["status"] == "superseded"   # Ann's later judgement reached Ben


def test_dry_run_prints_the_changes_as_diff_does_and_changes_nothing(cli, teammates, tmp_path):
    bundle = export(cli, "ben", tmp_path / "ben.json")
    head = snapshot("ann")["hash"]
    result = take(cli, bundle, "ann", "--dry-run")
    assert result.output.startswith("dry run: nothing was changed.")
    assert "facts added (" in result.output and "billing --owned_by--> bob" in result.output
    assert "facts retracted (1)" in result.output and "auth --uses--> redis" in result.output
    assert "facts contested (" in result.output and "ledger rows added (" in result.output
    assert snapshot("ann")["hash"] == head
    dry = json.loads(take(cli, bundle, "ann", "--dry-run", "--json").output)
    real = json.loads(take(cli, bundle, "ann", "--json").output)
    assert snapshot("ann")["hash"] != head                                # the twin: without --dry-run it is written
    # what it brings, and Ann's api --uses--> pg carried to postgres by Ben's merge of the two
    assert dry["changes"]["counts"]["facts_added"] == real["facts_added"] + 1
    assert {k: v for k, v in dry["import"].items()} == {k: v for k, v in real.items() if k != "dataset"}


def test_dry_run_goes_with_a_memlens_bundle_only(cli, teammates, tmp_path):
    result = cli("import", "--from", "memoose", "-d", "ann", "--dry-run")
    assert result.exit_code == 2 and "--dry-run goes with --from memlens" in result.output


def test_a_bundle_with_record_times_later_than_now_is_refused_and_nothing_changes(cli, teammates, tmp_path):
    bundle = export(cli, "ben", tmp_path / "ben.json")
    data = json.loads(bundle.read_text())
    del data["seal"]
    fact = next(f for f in data["facts"] if f["status"] == "current")
    fact["history"][-1] = dict(fact["history"][-1], judged_at="2999-01-01T00:00:00.000000Z", bundle="sha256:x")
    (tmp_path / "future.json").write_text(json.dumps(data))
    head = snapshot("ann")["hash"]
    result = cli("import", "--from", "memlens", str(tmp_path / "future.json"), "-d", "ann", "--unsealed")
    assert result.exit_code == 1
    assert result.output.splitlines()[-1].startswith("Error: a version of fact ")
    assert "'judged_at' 2999-01-01T00:00:00.000000Z is later than now" in result.output
    assert snapshot("ann")["hash"] == head
    fact["history"][-1] = dict(fact["history"][-1], judged_at="2020-01-01T00:00:00.000000Z")   # the twin: in the past
    (tmp_path / "past.json").write_text(json.dumps(data))
    assert cli("import", "--from", "memlens", str(tmp_path / "past.json"), "-d", "ann", "--unsealed").exit_code == 0
    assert snapshot("ann")["hash"] != head


def test_an_altered_or_unsealed_bundle_is_refused_by_a_dataset_that_holds_memories(cli, teammates, tmp_path):
    bundle = export(cli, "ben", tmp_path / "ben.json")
    data = json.loads(bundle.read_text())
    data["facts"][0]["evidence"] = ["edited by hand"]
    (tmp_path / "altered.json").write_text(json.dumps(data))
    head = snapshot("ann")["hash"]
    altered = cli("import", "--from", "memlens", str(tmp_path / "altered.json"), "-d", "ann")
    assert altered.exit_code == 1 and "differs from its seal" in altered.output
    del data["seal"]
    (tmp_path / "unsealed.json").write_text(json.dumps(data))
    unsealed = cli("import", "--from", "memlens", str(tmp_path / "unsealed.json"), "-d", "ann")
    assert unsealed.exit_code == 1 and "carries no seal" in unsealed.output
    assert snapshot("ann")["hash"] == head
    assert cli("import", "--from", "memlens", str(bundle), "-d", "ann").exit_code == 0   # the sealed one is taken


def test_the_memory_a_merge_leaves_is_sealed_whole_and_round_trips(cli, ann_took_ben, tmp_path):
    """What the merge adds to a snapshot (an origin, a version's judged_at and bundle) passes
    verify in every form and comes back whole from a report and a site."""
    from memlens.viewer.reading import read_bundle

    sealed = snapshot("ann")
    for fmt, out in (("json", tmp_path / "a.json"), ("html", tmp_path / "a.html"), ("site", tmp_path / "site")):
        assert cli("export", "-d", "ann", "--format", fmt, "-o", str(out)).exit_code == 0
        assert cli("verify", str(out)).exit_code == 0, fmt
        back = read_bundle(out)
        assert back["facts"] == sealed["facts"], fmt
        assert any("origin" in f for f in back["facts"]) and any("judged_at" in v for f in back["facts"] for v in f["history"])


def test_a_retracted_fact_a_teammate_carried_in_a_merge_is_not_carried_again(tmp_path: Path):
    """Ben retracted carol as svc's owner, then merged carol into alice (the retracted fact is carried
    beside alice's holding): Ann taking his bundle holds what Ben holds, at every valid time."""
    from memlens.store.bundle_merge import take_bundle

    clock = StepClock()
    with Memory(tmp_path / "ben.sqlite", actor="cli:ben", clock=clock) as ben, \
            Memory(tmp_path / "ann.sqlite", actor="cli:ann", clock=clock) as ann:
        for memory in (ben, ann):
            memory.declare_functional("owned_by")
        ann.remember([FactInput("y", "uses", "z", "Service", "Tool")])
        [carol] = ben.remember([FactInput("svc", "owned_by", "carol", "Service", "Person", valid_from="2025-01-01")])
        ben.retract(carol.fact_id, "wrong")
        ben.remember([FactInput("svc", "owned_by", "alice", None, "Person", valid_from="2025-03-01")])
        ben.merge("alice", "carol")
        bundle = ben.sealed_snapshot()
        done, _ = take_bundle(ann, bundle, bundle=bundle["seal"]["content"])

        def owners(memory: Memory, day: str | None = None) -> list[tuple[str, str, str | None]]:
            return sorted((f["object_name"], f["status"], f["valid_from"]) for f in memory.facts(include_all=True)
                          if f["relation"] == "owned_by" and (day is None or f in memory.facts(as_of_valid=day)))

        assert done.get("facts_carried", 0) == 0
        assert owners(ann) == owners(ben) and ("alice", "current", "2025-03-01") in owners(ben)
        for day in ("2025-02-01", "2025-04-01"):
            assert [f["object_name"] for f in ann.facts(as_of_valid=day) if f["relation"] == "owned_by"] == \
                [f["object_name"] for f in ben.facts(as_of_valid=day) if f["relation"] == "owned_by"]
