"""The oracle of a site's regeneration: whatever was written since, a regenerated site is byte for
byte the site a fresh build of the same snapshot (with the same changes, positions and colours)
gives, and it wrote exactly the files whose bytes changed, every other file left the very file it
was. Over random sequences of writes of every kind (facts, reassertions, descriptions, retractions,
restorations, supersessions, contradictions, dismissals, merges, new types, functional relations,
forgotten facts and entities, and imports), one at a time and several together, on a store whose
hubs, histories and ledger spill onto pages of their own."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Callable

import pytest

from memlens.store.errors import Conflict, Forgotten
from memlens.store.facts import FactInput
from memlens.store.importers import memory_file
from memlens.store.importers.mcp_memory.history import import_memory_file
from memlens.store.memory import Memory
from memlens.store.snapshot.diff import diff
from memlens.viewer.reading import carried_over
from memlens.viewer.site import entity_plan, site_models
from memlens.viewer.site.build import write_site

TYPES = ("Service", "Person", "Library")
RELATIONS = ("uses", "owns", "calls", "version")   # version: declared functional, so writes supersede


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def inodes(root: Path) -> dict[str, int]:
    return {p.relative_to(root).as_posix(): p.stat().st_ino for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def small_pages(monkeypatch):
    """Pages small enough that a store of a few dozen entities spills everywhere."""
    monkeypatch.setattr(entity_plan, "PREVIEW_CARDS", 2)
    monkeypatch.setattr(entity_plan, "PAGE_CARDS", 2)
    monkeypatch.setattr(entity_plan, "TABLE_PREVIEW", 3)
    monkeypatch.setattr(entity_plan, "TABLE_PAGE", 3)
    monkeypatch.setattr(site_models, "LEDGER_PAGE_SIZE", 7)


def regenerate(memory: Memory, site: Path, fresh: Path) -> set[str]:
    """Regenerate `site` as `memlens maintain` does (a sealed snapshot, the old site's changes,
    positions and colours) and hold it to a fresh build into `fresh`: the same bytes, and exactly
    the files whose bytes changed written. Returns those files."""
    snapshot = memory.sealed_snapshot()
    kept = carried_over(site, "site")
    arguments = {"changes": diff(kept.digest, snapshot) if kept.digest else None, "previous_layout": kept.layout,
                 "previous_looks": kept.looks}
    before, before_inodes = tree(site), inodes(site)
    write_site(snapshot, site, **arguments)
    write_site(snapshot, fresh, **arguments)
    regenerated, built = tree(site), tree(fresh)
    assert sorted(p for p in regenerated.keys() | built.keys() if regenerated.get(p) != built.get(p)) == []
    changed = {p for p in regenerated if before.get(p) != regenerated[p]}
    assert {p for p, inode in inodes(site).items() if before_inodes.get(p) != inode} == changed
    return changed


class Writer:
    """Random writes of every kind into a small store."""

    def __init__(self, memory: Memory, rng: random.Random) -> None:
        self.memory, self.rng, self.made = memory, rng, 0

    def names(self) -> list[str]:
        return sorted(e["name"] for e in self.memory.snapshot()["entities"] if not e.get("merged_into"))

    def facts(self, *statuses: str) -> list[dict]:
        return [f for f in self.memory.snapshot()["facts"] if f["status"] in statuses]

    @staticmethod
    def tried(write: Callable[[], None], refused: type[Exception]) -> bool:
        """`write()` again until the store takes it (each call picks anew)."""
        for _ in range(100):
            try:
                write()
                return True
            except refused:
                continue
        raise AssertionError("the store refused every write the writer picked")

    def new_name(self) -> str:
        self.made += 1
        return f"thing-{self.made}"

    def fact(self) -> bool:
        names = self.names()

        def write() -> None:
            new = self.rng.random() < 0.3
            self.memory.remember([FactInput(self.rng.choice(names[:4]), self.rng.choice(RELATIONS),   # a few hubs
                                            self.new_name() if new else self.rng.choice(names),
                                            object_type=self.rng.choice(TYPES) if new else None,
                                            evidence=(f"note {self.rng.random():.6f}",))])
        return self.tried(write, Forgotten)   # that very fact was forgotten: another one

    def reassert(self) -> bool:
        names = {e["id"]: e["name"] for e in self.memory.snapshot()["entities"]}

        def write() -> None:
            fact = self.rng.choice(self.facts("current"))
            self.memory.remember([FactInput(names[fact["subject"]], fact["relation"], names[fact["object"]],
                                            evidence=("said again",))])
        return self.tried(write, Forgotten)   # its names now name a re-made entity, whose triple was forgotten

    def describe(self) -> bool:
        self.memory.describe(self.rng.choice(self.names()), f"described {self.rng.random():.6f}")
        return True

    def retract(self) -> bool:
        self.memory.retract(self.rng.choice(self.facts("current"))["id"], "wrong")
        return True

    def restore(self) -> bool:
        gone = self.facts("retracted", "superseded")
        if not gone:
            return self.retract()
        for fact in self.rng.sample(gone, len(gone)):
            try:
                self.memory.restore(fact["id"], "right after all")
                return True
            except Conflict:   # a value a later one closed, while that one holds: another
                continue
        return self.retract()

    def supersede(self) -> bool:
        a, b = self.rng.sample(self.facts("current"), 2)
        self.memory.supersede(a["id"], b["id"], "replaced")
        return True

    def contest(self) -> bool:
        def write() -> None:
            a, b = self.rng.sample(self.facts("current"), 2)
            self.memory.contest(a["id"], b["id"], "cannot both hold", 0.7)
        return self.tried(write, Conflict)   # already contested: another pair

    def dismiss(self) -> bool:
        candidates = self.memory.worklist()
        if not candidates:
            return self.contest()
        self.memory.dismiss(self.rng.choice(candidates).key, "fine as it is")
        return True

    def merge(self) -> bool:
        names = self.names()

        def write() -> None:
            drop = self.rng.choice(names[4:])
            self.memory.merge(self.rng.choice([n for n in names if n != drop]), drop)   # into a hub, at times
        return self.tried(write, Forgotten)   # it would bring a forgotten fact back: another pair

    def forget(self) -> bool:
        asserted = {row["refs"][0] for row in self.memory.ledger() if row["action"] == "assert"}
        self.memory.forget_fact(self.rng.choice([f for f in self.facts("current", "superseded", "retracted")
                                                 if f["id"] in asserted])["id"])
        return True

    def forget_entity(self) -> bool:
        """An entity (and whatever was merged into it) all of whose facts were asserted."""
        snapshot = self.memory.snapshot()
        asserted = {row["refs"][0] for row in snapshot["ledger"] if row["action"] == "assert"}
        by_name = {e["name"]: e["id"] for e in snapshot["entities"]}
        merged_into = {e["id"]: e["merged_into"] for e in snapshot["entities"] if e.get("merged_into")}

        def owner(entity_id: str) -> str:
            while entity_id in merged_into:
                entity_id = merged_into[entity_id]
            return entity_id

        unasserted = {owner(end) for f in snapshot["facts"] if f["status"] != "forgotten" and f["id"] not in asserted
                      for end in (f["subject"], f["object"]) if end}
        choices = [name for name in self.names()[4:] if by_name[name] not in unasserted]
        if not choices:
            return self.forget()
        self.memory.forget_entity(self.rng.choice(choices))
        return True

    def forget_unasserted(self) -> bool:
        """A fact a merge made (no assert row names it)."""
        for _ in range(5):
            rows = self.memory.ledger()
            moved = {row["refs"][1] for row in rows if row["action"] == "move"} - {
                row["refs"][0] for row in rows if row["action"] == "assert"}   # a merge can land on an asserted twin
            made_by_merges = [f for f in self.facts("current", "superseded", "retracted") if f["id"] in moved]
            if made_by_merges:
                self.memory.forget_fact(self.rng.choice(made_by_merges)["id"])
                return False
            self.merge()
        raise AssertionError("five merges made no fact to forget")

    def functional(self) -> bool:
        self.memory.declare_functional(self.rng.choice(RELATIONS))   # settles its keys' values
        return True

    def new_type(self) -> bool:
        self.memory.add_type(f"Kind{self.made}")
        self.made += 1
        return True



KINDS = ("fact", "fact", "fact", "reassert", "describe", "retract", "restore", "supersede", "contest", "dismiss",
         "merge", "new_type", "functional", "forget", "forget_entity", "forget_unasserted")


def seeded_store(path: Path, rng: random.Random) -> Memory:
    memory = Memory(path)
    memory.declare_functional("version")
    hubs = [f"hub-{n}" for n in range(4)]
    items = [FactInput(hub, rng.choice(RELATIONS), f"leaf-{n}", subject_type="Service", object_type=rng.choice(TYPES),
                       evidence=(f"seed {n}",)) for n, hub in ((n, hubs[n % 4]) for n in range(30))]
    items += [FactInput(f"leaf-{n}", "calls", f"leaf-{n + 1}", evidence=("chain",)) for n in range(0, 28, 3)]
    memory.remember(items)
    return memory


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_random_writes_regenerate_to_fresh_builds(tmp_path, small_pages, seed):
    rng = random.Random(seed)
    memory = seeded_store(tmp_path / "store.sqlite", rng)
    try:
        site = write_site(memory.sealed_snapshot(), tmp_path / "site")
        files = len(tree(site))
        assert any("--" in name for name in tree(site))   # cards, history and provenance spill
        writer = Writer(memory, rng)
        small = 0
        for step in range(36):
            kind = rng.choice(KINDS)
            getattr(writer, kind)()
            changed = regenerate(memory, site, tmp_path / f"fresh-{step}")
            small += len(changed) < files / 2
        assert small >= 25   # most writes change a few pages, not the site
    finally:
        memory.close()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_several_writes_between_regenerations_regenerate_to_fresh_builds(tmp_path, small_pages, seed):
    """As a session's end regenerates after all of its writes: one to five of any kind between
    regenerations."""
    rng = random.Random(seed)
    memory = seeded_store(tmp_path / "store.sqlite", rng)
    try:
        site = write_site(memory.sealed_snapshot(), tmp_path / "site")
        writer = Writer(memory, rng)
        for step in range(12):
            for _ in range(rng.randint(1, 5)):
                getattr(writer, rng.choice(KINDS))()
            assert regenerate(memory, site, tmp_path / f"fresh-{step}")
    finally:
        memory.close()


@pytest.mark.parametrize("seed", [1, 2])
def test_a_site_regenerated_after_imports_is_a_fresh_build(tmp_path, small_pages, seed):
    """The MCP memory server's file, changed at random and imported again and again into its dataset
    (each import asserting, retracting and restoring what changed), the dataset's site regenerated
    after each."""
    rng = random.Random(seed)
    source = tmp_path / "memory.jsonl"
    entities = {f"thing-{n}": [f"note {n}"] for n in range(12)}
    relations = {(f"thing-{n}", "uses", f"thing-{(n * 5 + 1) % 12}") for n in range(12)}

    def write_file() -> None:
        lines = [{"type": "entity", "name": name, "entityType": "service", "observations": notes}
                 for name, notes in sorted(entities.items())]
        lines += [{"type": "relation", "from": a, "to": b, "relationType": r} for a, r, b in sorted(relations)]
        source.write_text("".join(json.dumps(line) + "\n" for line in lines))

    store = tmp_path / "mcp.sqlite"
    write_file()
    import_memory_file(store, memory_file(source))
    with Memory(store) as memory:
        site = write_site(memory.sealed_snapshot(), tmp_path / "site")
    for step in range(10):
        for _ in range(rng.randint(1, 4)):
            change = rng.choice(["observe", "unobserve", "relate", "unrelate", "add", "delete"])
            name = rng.choice(sorted(entities))
            if change == "observe":
                entities[name].append(f"seen {rng.random():.6f}")
            elif change == "unobserve" and entities[name]:
                entities[name].pop(rng.randrange(len(entities[name])))
            elif change == "relate":
                relations.add((name, rng.choice(["uses", "calls"]), rng.choice(sorted(entities))))
            elif change == "unrelate" and relations:
                relations.discard(rng.choice(sorted(relations)))
            elif change == "add":
                entities[f"new-{step}-{rng.randrange(1000)}"] = ["made"]
            elif change == "delete" and len(entities) > 4:
                del entities[name]
                relations = {r for r in relations if name not in (r[0], r[2])}
        write_file()
        import_memory_file(store, memory_file(source))
        with Memory(store) as memory:
            regenerate(memory, site, tmp_path / f"fresh-{step}")


def test_a_site_from_another_ledger_is_a_fresh_build(cli, tmp_path):
    """Two stores whose ledgers are as long: a site of the first, written over from the second,
    holds nothing of the first."""
    stores = []
    for name in ("a", "b"):
        store = tmp_path / f"{name}.sqlite"
        assert cli("demo", "--db", str(store)).exit_code == 0
        stores.append(Memory(store))
    try:
        stores[1].describe("PostgreSQL", "the other store's database")
        stores[0].describe("PostgreSQL", "this store's database")
        site = write_site(stores[0].sealed_snapshot(), tmp_path / "site")
        stores[1].remember([FactInput("Dana Okafor", "uses", "Docker Compose", evidence=("b",))])
        assert regenerate(stores[1], site, tmp_path / "fresh")
        assert b"this store's database" not in b"".join(tree(site).values())
    finally:
        for memory in stores:
            memory.close()


@pytest.fixture
def demo_site(cli, tmp_path):
    """The demo memory, open, with a site built from it."""
    store = tmp_path / "demo.sqlite"
    assert cli("demo", "--db", str(store)).exit_code == 0
    memory = Memory(store)
    try:
        yield memory, write_site(memory.sealed_snapshot(), tmp_path / "site")
    finally:
        memory.close()


def test_a_forgotten_facts_text_leaves_every_page(demo_site, tmp_path):
    memory, site = demo_site
    secret = "the staging password is hunter2"
    [outcome] = memory.remember([FactInput("Dana Okafor", "uses", "Docker Compose", description=secret,
                                           evidence=("said in a chat: " + secret,))])
    regenerate(memory, site, tmp_path / "fresh-1")
    holding = [path for path, data in tree(site).items() if secret.encode() in data]
    assert "snapshot.json" in holding and any(p.startswith("entities/") for p in holding)
    memory.forget_fact(outcome.fact_id)
    regenerate(memory, site, tmp_path / "fresh-2")
    assert [path for path, data in tree(site).items() if secret.encode() in data] == []


def test_a_forgotten_entitys_name_leaves_every_page(demo_site, tmp_path):
    memory, site = demo_site
    secret = "Project Nightingale"
    memory.remember([FactInput("Dana Okafor", "works_on", secret, object_type="Project", evidence=("standup",)),
                     FactInput(secret, "uses", "PostgreSQL", evidence=("design doc",))])
    regenerate(memory, site, tmp_path / "fresh-1")
    holding = [path for path, data in tree(site).items() if secret.encode() in data]
    assert "snapshot.json" in holding and sum(p.startswith("entities/") for p in holding) >= 3
    memory.forget_entity(secret)
    regenerate(memory, site, tmp_path / "fresh-2")
    assert [path for path, data in tree(site).items() if secret.encode() in data] == []


def test_a_merge_writes_the_pages_its_moved_facts_reach_and_nothing_else(demo_site, tmp_path):
    memory, site = demo_site
    memory.merge("zoneinfo", "pytz")
    changed = regenerate(memory, site, tmp_path / "fresh")
    pages = {p.split("/")[1].rsplit("-", 1)[0] for p in changed if p.startswith("entities/") and "index" not in p}
    assert {"zoneinfo", "pytz"} <= pages and len(pages) < len(memory.snapshot()["entities"]) / 2
