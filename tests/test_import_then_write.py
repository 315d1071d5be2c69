"""An imported dataset is a memlens dataset: people write to it by name, as to any other."""
from __future__ import annotations

from import_fixtures import build_memoose

from memlens.store import importers
from memlens.store.facts import FactInput
from memlens.store.snapshot.load import load_into


def test_names_and_triples_of_an_imported_store_are_found_when_writing(memory, tmp_path):
    source = tmp_path / "memoose.sqlite"
    ids = build_memoose(source)
    load_into(memory, importers.read_snapshot("memoose", source), source="memoose")
    facts_before = len(memory.facts(include_all=True))

    # alice exists (with memoose's id): no type needed, and no second alice.
    [knows] = memory.remember([FactInput("Alice", "knows", "bob", None, "Person")])
    assert knows.outcome == "asserted"
    assert len([e for e in memory.snapshot()["entities"] if e["name"] == "alice"]) == 1

    # Saying a superseded imported fact again is a reassertion of that fact, and it stays superseded.
    [again] = memory.remember([FactInput("alice", "works_at", "acme")])
    assert again.outcome == "kept superseded"
    assert again.fact_id == next(
        f["id"] for f in memory.facts(include_all=True) if (f["subject_name"], f["object_name"]) == ("alice", "acme"))
    assert len(memory.facts(include_all=True)) == facts_before + 1  # only "knows" is new
    # the present value is still the imported fact itself, under memoose's id
    assert [(f["object_name"], f["id"]) for f in memory.facts() if f["relation"] == "works_at"] == [
        ("globex", ids["globex"])]


def test_an_imported_entity_is_found_by_any_case_of_its_name_as_a_native_one_is(memory, tmp_path):
    from import_fixtures import MemooseFile

    source = tmp_path / "memoose.sqlite"
    m = MemooseFile(source)
    m.entity("Émile", "Person")
    m.entity("Straße", "Project")
    m.relation("Émile", "works_on", "Straße", "", "")
    m.close()
    load_into(memory, importers.read_snapshot("memoose", source), source="memoose")
    imported = {e["name"]: e["id"] for e in memory.snapshot()["entities"]}
    assert set(imported) == {"Émile", "Straße"}

    # Unicode case folding, not SQLite's ASCII-only NOCASE: É and é, ß and SS are one name.
    for spelling in ("émile", "ÉMILE", "  Émile "):
        assert memory.history(spelling)["entity"]["id"] == imported["Émile"], spelling
    [fact] = memory.remember([FactInput("émile", "knows", "STRASSE")])
    view = memory.fact(fact.fact_id)
    assert (view["subject_name"], view["object_name"]) == ("Émile", "Straße")
    assert len(memory.snapshot()["entities"]) == 2  # no second Émile, no second Straße
