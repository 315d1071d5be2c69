"""One resolver for every name: exact, then folded, then the names it may have meant, never a guess."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlens.store.errors import Ambiguous, NearMiss
from memlens.store.facts import FactInput
from memlens.store.memory import Memory
from memlens.store.resolve import resolve


@pytest.fixture
def twins(cli, tmp_path: Path) -> str:
    """A dataset imported from an MCP memory file holding 'Alice' and 'alice', two people."""
    path = tmp_path / "memory.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in [
        {"type": "entity", "name": "Alice", "entityType": "person", "observations": ["leads payments"]},
        {"type": "entity", "name": "alice", "entityType": "person", "observations": ["an intern"]},
        {"type": "entity", "name": "payments", "entityType": "service", "observations": []},
        {"type": "relation", "from": "payments", "to": "Alice", "relationType": "ownedBy"},
        {"type": "relation", "from": "payments", "to": "alice", "relationType": "Helped-By"},
    ]) + "\n", encoding="utf-8")
    assert cli("import", "--from", "mcp-memory", str(path), "-d", "twins").exit_code == 0
    return "twins"


def test_a_name_written_exactly_is_that_entity_even_beside_its_case_twin(cli, twins):
    history = json.loads(cli("history", "alice", "-d", twins, "--json").output)
    assert history["entity"]["name"] == "alice"
    assert {f["relation"] for f in history["facts"] if f["object"] == history["entity"]["id"]} == {"Helped-By"}
    assert json.loads(cli("history", "Alice", "-d", twins, "--json").output)["entity"]["name"] == "Alice"


def test_forget_takes_the_exact_name_and_refuses_a_name_two_entities_fold_to(cli, twins):
    refused = cli("forget", "entity", "ALICE", "-d", twins)
    assert refused.exit_code == 1
    assert refused.output.startswith("Error: 'ALICE' could be 'Alice' (Person,") and "'alice' (Person," in refused.output
    assert "\n" not in refused.output.strip()

    assert cli("forget", "entity", "alice", "-d", twins).exit_code == 0

    left = {e["name"] for e in json.loads(cli("export", "-d", twins, "--format", "json", "-o", "-").output)["entities"]}
    assert "Alice" in left and "alice" not in left
    assert cli("history", "ALICE", "-d", twins).exit_code == 0     # one entity folds to it now


def test_a_name_is_found_whatever_its_case_and_separators(memory):
    memory.remember([FactInput("billing-service", "uses", "postgres", "Service", "Library")])
    [said] = memory.remember([FactInput("Billing Service", "uses", "redis", None, "Library")])
    assert memory.fact(said.fact_id)["subject_name"] == "billing-service"
    assert resolve(memory.conn, "BILLING_SERVICE").how == "folded"
    assert resolve(memory.conn, "billing-service").how == "exact"


def test_a_first_name_a_surname_or_a_typo_is_answered_with_the_names_it_may_mean(cli):
    assert cli("demo").exit_code == 0
    for asked, meant in (("priya", "Priya Natarajan"), ("Natarajan", "Priya Natarajan"),
                         ("Dana", "Dana Okafor"), ("Priya Natarjan", "Priya Natarajan"),
                         ("biling-service", "billing-service")):
        answer = cli("history", asked, "-d", "demo")
        assert answer.exit_code == 1
        assert answer.output.startswith(f"Error: no entity named {asked!r}; did you mean {meant!r} ("), answer.output
    assert cli("history", "Priya Natarajan", "-d", "demo").exit_code == 0
    nothing = cli("history", "kubernetes", "-d", "demo")
    assert nothing.output == "Error: no entity named 'kubernetes'\n"


def test_a_near_miss_is_not_created_without_confirmation(cli):
    assert cli("demo").exit_code == 0
    untyped = cli("remember", "billing-service --owned_by--> Priya Natarjan", "-d", "demo")
    assert untyped.exit_code == 1 and "did you mean 'Priya Natarajan' (Person)?" in untyped.output
    typed = cli("remember", "billing-service --owned_by--> Priya Natarjan:Person", "-d", "demo")
    assert typed.exit_code == 1
    assert "close to 'Priya Natarajan' (Person)" in typed.output and "add --new to create" in typed.output
    owners = [f["object_name"] for f in json.loads(cli("facts", "-d", "demo", "--json").output)
              if f["subject_name"] == "billing-service" and f["relation"] == "owned_by"]
    assert owners == ["Priya Natarajan"]          # the real owner was not superseded by a typo

    insisted = cli("remember", "billing-service --owned_by--> Priya Natarjan:Person", "--new", "-d", "demo")
    assert insisted.exit_code == 0 and insisted.output.startswith("asserted: ")


def test_names_that_differ_in_a_number_or_a_type_are_no_near_miss(memory):
    memory.remember([FactInput("node-1", "runs", "billing", "Environment", "Service"),
                     FactInput("Priya Natarajan", "owns", "billing", "Person", None)])
    memory.remember([FactInput("node-2", "runs", "billing", "Environment", None)])
    with pytest.raises(NearMiss) as refused:
        memory.remember([FactInput("Priya Natarjan", "reviews", "billing", "Person", None)])
    assert [c.name for c in refused.value.candidates] == ["Priya Natarajan"]
    memory.remember([FactInput("Priya Natarjan", "reviews", "billing", "Team", None)])   # of another type
    assert memory.remember([FactInput("Priya Natarjn", "reviews", "billing", "Person", None)], new=True)
    assert len(memory.snapshot()["entities"]) == 6


def test_a_long_lived_memory_sees_every_name_written_since_by_itself_or_another(memory, tmp_path: Path):
    """As the MCP server holds one memory open: its near-miss check knows the names its own writes
    made (with facts only, without names, between them), another process's, and none it rolled back."""
    memory.remember([FactInput("billing", "runs_on", "kubernetes", "Service", "Environment")])
    memory.remember([FactInput("Priya Natarajan", "owns", "billing", "Person", None)])       # reads the names
    memory.remember([FactInput("billing", "depends_on", "kubernetes", None, None)])          # no new name
    memory.remember([FactInput("Sam Okonkwo", "owns", "kubernetes", "Person", None)])        # its own new name
    with Memory(memory.path, actor="test:other") as other:                                  # another writer
        other.remember([FactInput("Dana Whitfield", "owns", "billing", "Person", None)])
    with pytest.raises(NearMiss) as refused:
        memory.remember([FactInput("Dana Whitfeld", "reviews", "billing", "Person", None)])
    assert [c.name for c in refused.value.candidates] == ["Dana Whitfield"]
    memory.remember([FactInput("Lena Marchetti", "owns", "billing", "Person", None)])
    memory.remember([FactInput("billing", "depends_on", "kubernetes", None, None)])          # no new name
    with pytest.raises(NearMiss) as refused:
        memory.remember([FactInput("Sam Okonkow", "reviews", "billing", "Person", None)])
    assert [c.name for c in refused.value.candidates] == ["Sam Okonkwo"]
    with pytest.raises(NearMiss):       # a batch that fails after making a name leaves no trace of it
        memory.remember([FactInput("Mira Castellano", "owns", "billing", "Person", None),
                         FactInput("Lena Marchetty", "reviews", "billing", "Person", None)])
    made = memory.remember([FactInput("Mira Castelano", "reviews", "billing", "Person", None)])
    assert made and "Mira Castelano" in {e["name"] for e in memory.snapshot()["entities"]}   # no near miss then


def test_relations_are_stored_in_snake_case_and_their_order_applies(cli):
    assert cli("functional", "Owned By", "-d", "t").exit_code == 0
    assert cli("remember", "svc:Service --owned by--> dana:Person", "--valid-from", "2025-01-01", "-d", "t").exit_code == 0
    said = cli("remember", "svc --Owned-By--> priya:Person", "--valid-from", "2026-01-01", "-d", "t", "--json")
    [outcome] = json.loads(said.output)
    assert outcome["fact"]["relation"] == "owned_by" and len(outcome["superseded"]) == 1
    assert [r["name"] for r in json.loads(cli("export", "-d", "t", "--format", "json", "-o", "-").output)
            ["ontology"]["relations"]] == ["owned_by"]


def test_maintain_reports_likely_duplicates_and_relation_spellings_with_commands(cli, twins, tmp_path):
    assert cli("remember", "payments --depends_on--> ledger-service:Service", "-e", "x", "-d", twins).exit_code == 0
    assert cli("remember", "payments --depends_on--> ledger-servce:Service", "--new", "-e", "y",
               "-d", twins).exit_code == 0
    for written in ("owned by", "helped-by"):    # every write stores owned_by: beside the import's ownedBy
        assert cli("remember", f"payments --{written}--> Alice", "-e", "z", "-d", twins).exit_code == 0
    worklist = json.loads(cli("maintain", "-d", twins, "--json").output)["worklist"]
    kinds = {item["kind"]: item for item in worklist}
    assert kinds["similar"]["summary"] == "maybe the same Service: ledger-servce, ledger-service (spelt alike)"
    assert [i["summary"] for i in worklist if i["kind"] == "relation"] == [
        "helped_by is also written 'Helped-By' (1 fact)", "owned_by is also written 'ownedBy' (1 fact)"]
    assert cli("export", "-d", twins, "--format", "html", "-o", str(tmp_path / "r.html")).exit_code == 0
    exported = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "memlens merge ledger-servce ledger-service -d twins" in exported
    # the merge it offers runs as printed
    assert cli("merge", "ledger-service", "ledger-servce", "-d", twins).exit_code == 0
    assert "similar" not in {i["kind"] for i in json.loads(cli("maintain", "-d", twins, "--json").output)["worklist"]}


def test_the_resolver_answers_one_name_as_a_library_call(tmp_path: Path):
    with Memory(tmp_path / "m.sqlite") as memory:
        memory.remember([FactInput("Priya Natarajan", "owns", "billing", "Person", "Service")])
        assert resolve(memory.conn, "Priya Natarajan").how == "exact"
        assert resolve(memory.conn, "priya natarajan").how == "folded"
        near = resolve(memory.conn, "priya")
        assert (near.how, near.entity, [c.name for c in near.candidates]) == ("candidates", None, ["Priya Natarajan"])
        assert resolve(memory.conn, "nobody").candidates == ()
        with pytest.raises(Ambiguous):
            memory.conn.execute("INSERT INTO entities (id, name, name_key, type, created_at, updated_at) "
                                "VALUES ('x1', 'PRIYA NATARAJAN', 'priya natarajan', 'Person', '', '')")
            resolve(memory.conn, "priya natarajan")
