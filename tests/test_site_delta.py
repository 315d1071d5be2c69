"""A regeneration that follows the writes since the previous site (viewer/site/delta.py) digests and
renders only what they reached, and still gives byte for byte what a fresh build of the same
snapshot gives: over random sequences of writes of every kind it follows, on a store whose hubs,
histories and ledger spill onto pages of their own; and it gives way to digesting everything for
the writes it does not follow."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Callable

import pytest
from viewer_fixtures import in_a_fresh_process

from memlens.store.errors import Conflict, Forgotten
from memlens.store.facts import FactInput
from memlens.store.memory import Memory
from memlens.store.snapshot_diff import diff
from memlens.viewer.reading import carried_over
from memlens.viewer.site import build as build_module
from memlens.viewer.site.delta import shown_with
from memlens.viewer.site import entity_plan
from memlens.viewer.site.build import write_site
from memlens.viewer.site.page_inputs import PageInputs
from memlens.viewer.site.previous import CheckedFiles, PreviousSite, checked_files

TYPES = ("Service", "Person", "Library")
RELATIONS = ("uses", "owns", "calls", "version")   # version: declared functional, so writes supersede


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


class Counted:
    """How many entities were rendered and whether every record was digested, per build."""

    def __init__(self, monkeypatch) -> None:
        self.rendered: list[str] = []
        self.digested_all = 0
        real_main, real_digest = build_module.entity_main, PageInputs.digest_records

        def main(head, *args, **kwargs):
            self.rendered.append(head.name)
            return real_main(head, *args, **kwargs)

        def digest(inputs, *args, **kwargs):
            self.digested_all += 1
            return real_digest(inputs, *args, **kwargs)

        monkeypatch.setattr(build_module, "entity_main", main)
        monkeypatch.setattr(PageInputs, "digest_records", digest)

    def take(self) -> tuple[list[str], bool]:
        found = (sorted(self.rendered), self.digested_all > 0)
        self.rendered, self.digested_all = [], 0
        return found


@pytest.fixture
def small_pages(monkeypatch):
    """Pages small enough that a store of a few dozen entities spills everywhere."""
    monkeypatch.setattr(entity_plan, "PREVIEW_CARDS", 2)
    monkeypatch.setattr(entity_plan, "PAGE_CARDS", 2)
    monkeypatch.setattr(entity_plan, "TABLE_PREVIEW", 3)
    monkeypatch.setattr(entity_plan, "TABLE_PAGE", 3)
    monkeypatch.setattr(build_module, "LEDGER_PAGE_SIZE", 7)


def regenerate(memory: Memory, site: Path, fresh: Path, counted: Counted,
               checked_ahead: bool = False) -> tuple[list[str], bool]:
    """Regenerate `site` as `memlens maintain` does (a sealed snapshot, the old site's changes,
    positions and colours, and with `checked_ahead` its files checked before, as a forked worker
    does) and check it against a fresh build into `fresh`; returns what the regeneration rendered
    and whether it digested everything."""
    snapshot = memory.sealed_snapshot()
    kept = carried_over(site, "site")
    arguments = {"changes": diff(kept.digest, snapshot) if kept.digest else None, "previous_layout": kept.layout,
                 "previous_looks": kept.looks}
    counted.take()
    write_site(snapshot, site, previous_files=checked_files(site) if checked_ahead else None, **arguments)
    done = counted.take()
    write_site(snapshot, fresh, **arguments)
    counted.take()
    regenerated, built = tree(site), tree(fresh)
    assert sorted(p for p in regenerated.keys() | built.keys() if regenerated.get(p) != built.get(p)) == []
    return done


class Writer:
    """Random writes of every kind into a small store; each says whether delta.py follows it."""

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
        """An entity (and whatever was merged into it) all of whose facts were asserted: followed."""
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
        """A fact a merge made: no row names its object, so it is not followed."""
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


FOLLOWED = ("fact", "fact", "fact", "reassert", "describe", "retract", "restore", "supersede", "contest", "dismiss",
            "merge", "new_type", "functional", "forget", "forget_entity")
NOT_FOLLOWED = ("forget_unasserted",)


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
def test_random_writes_regenerate_to_fresh_builds(tmp_path, monkeypatch, small_pages, seed):
    rng = random.Random(seed)
    counted = Counted(monkeypatch)
    memory = seeded_store(tmp_path / "store.sqlite", rng)
    try:
        site = write_site(memory.sealed_snapshot(), tmp_path / "site")
        everyone = len(memory.snapshot()["entities"])
        assert any("--" in name for name in tree(site))   # cards, history and provenance spill
        writer = Writer(memory, rng)
        followed_steps = 0
        for step in range(36):
            kind = rng.choice(FOLLOWED) if step % 6 else rng.choice(NOT_FOLLOWED)
            followed = getattr(writer, kind)()
            rendered, digested_all = regenerate(memory, site, tmp_path / f"fresh-{step}", counted,
                                                checked_ahead=step % 2 == 1)
            assert digested_all == (not followed), (step, kind)
            if followed:
                followed_steps += 1
                assert len(rendered) < len(memory.snapshot()["entities"])
        assert followed_steps >= 25 and everyone > 30
    finally:
        memory.close()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_several_writes_between_regenerations_regenerate_to_fresh_builds(tmp_path, monkeypatch, small_pages, seed):
    """As a session's end regenerates after all of its writes: one to five of any kind followed
    between regenerations, their reaches taken together."""
    rng = random.Random(seed)
    counted = Counted(monkeypatch)
    memory = seeded_store(tmp_path / "store.sqlite", rng)
    try:
        site = write_site(memory.sealed_snapshot(), tmp_path / "site")
        writer = Writer(memory, rng)
        for step in range(12):
            kinds = [rng.choice(FOLLOWED) for _ in range(rng.randint(1, 5))]
            followed = all([getattr(writer, kind)() for kind in kinds])
            rendered, digested_all = regenerate(memory, site, tmp_path / f"fresh-{step}", counted,
                                                checked_ahead=step % 2 == 1)
            assert digested_all == (not followed), (step, kinds)
    finally:
        memory.close()


@pytest.fixture
def demo_site(cli, tmp_path, monkeypatch):
    """The demo memory, open, with a site built from it, and what that build rendered and digested."""
    store = tmp_path / "demo.sqlite"
    assert cli("demo", "--db", str(store)).exit_code == 0
    counted = Counted(monkeypatch)
    memory = Memory(store)
    try:
        site = write_site(memory.sealed_snapshot(), tmp_path / "site")
        yield memory, site, counted
    finally:
        memory.close()


def test_one_new_fact_renders_its_two_ends_and_digests_nothing_else(demo_site, tmp_path):
    memory, site, counted = demo_site
    rendered, digested_all = counted.take()
    assert digested_all and len(rendered) == len(memory.snapshot()["entities"])
    memory.remember([FactInput("Dana Okafor", "uses", "Docker Compose", evidence=("user said so",))])
    assert regenerate(memory, site, tmp_path / "fresh", counted) == (["Dana Okafor", "Docker Compose"], False)


def test_a_site_from_another_ledger_is_digested_whole(cli, tmp_path, monkeypatch):
    """Two stores whose ledgers have as many rows: the second's site is not built from the first's
    head, so nothing of the first is trusted without its digest."""
    counted = Counted(monkeypatch)
    stores = []
    for name in ("a", "b"):
        store = tmp_path / f"{name}.sqlite"
        assert cli("demo", "--db", str(store)).exit_code == 0
        stores.append(Memory(store))
    try:
        stores[1].describe("PostgreSQL", "the other store's database")
        stores[0].describe("PostgreSQL", "this store's database")
        site = write_site(stores[0].sealed_snapshot(), tmp_path / "site")
        counted.take()
        stores[1].remember([FactInput("Dana Okafor", "uses", "Docker Compose", evidence=("b",))])
        stores[0].remember([FactInput("Dana Okafor", "uses", "Docker Compose", evidence=("a",))])
        snapshot = stores[1].sealed_snapshot()
        assert len(snapshot["ledger"]) == len(stores[0].snapshot()["ledger"])
        write_site(snapshot, site)
        assert counted.take()[1]   # everything digested
        assert tree(site) == tree(write_site(snapshot, tmp_path / "fresh"))
    finally:
        for memory in stores:
            memory.close()


def test_an_entity_made_again_is_shown_again_on_every_page_whose_ledger_rows_name_it(tmp_path, monkeypatch):
    """A dismissed pair of look-alike names is one ledger row naming two entities no fact links. One
    is forgotten (every page digested), then made again under its old id (followed): the other's
    provenance shows its name and page again, though no fact links the two."""
    counted = Counted(monkeypatch)
    memory = Memory(tmp_path / "store.sqlite")
    try:
        memory.remember([FactInput("api", "uses", "Redis Cache", subject_type="Service", object_type="Library",
                                   evidence=("a",)),
                         FactInput("worker", "uses", "redis-cache", subject_type="Service", object_type="Library",
                                   evidence=("b",))])
        [pair] = [c for c in memory.worklist() if c.kind == "duplicate"]
        memory.dismiss(pair.key, "two different caches")
        memory.forget_entity("Redis Cache")
        site = write_site(memory.sealed_snapshot(), tmp_path / "site")
        page = next(p for p in (site / "entities").iterdir() if p.name.startswith("redis-cache"))
        assert "Redis Cache" not in page.read_text(encoding="utf-8")
        memory.remember([FactInput("api", "uses", "Redis Cache", object_type="Library", evidence=("again",))],
                        override_forgotten=True)
        rendered, digested_all = regenerate(memory, site, tmp_path / "fresh", counted)
        assert not digested_all and "redis-cache" in rendered
        assert "Redis Cache" in page.read_text(encoding="utf-8")
    finally:
        memory.close()


def _regenerate_forked(store: str, site: str, fresh: str) -> tuple[int, bool, list[str]]:
    """In a fresh process (a fork needs a single thread): regenerate `site` after one more fact with
    the work shared among processes, then build the same into `fresh` in one process; the forks
    made, whether every record was digested, and the files that differ."""
    from memlens.viewer import workers
    from memlens.viewer.site import folder

    forks, digested = [], []
    real_fork, real_digest = workers.os.fork, PageInputs.digest_records
    folder.PARALLEL_MIN_ENTITIES = folder.PARALLEL_MIN_ITEMS = 2
    workers.os.fork = lambda: forks.append("fork") or real_fork()
    PageInputs.digest_records = lambda *args: digested.append(True) or real_digest(*args)
    memory = Memory(Path(store))
    try:
        memory.remember([FactInput("Dana Okafor", "uses", "Docker Compose", evidence=("user said so",))])
        snapshot = memory.sealed_snapshot()
    finally:
        memory.close()
    kept = carried_over(Path(site), "site")
    arguments = {"changes": diff(kept.digest, snapshot), "previous_layout": kept.layout,
                 "previous_looks": kept.looks}
    write_site(snapshot, site, **arguments)
    made, digested_all = len(forks), bool(digested)
    folder.PARALLEL_MIN_ENTITIES = folder.PARALLEL_MIN_ITEMS = 10**9
    write_site(snapshot, fresh, **arguments)
    shared, alone = tree(Path(site)), tree(Path(fresh))
    return made, digested_all, sorted(p for p in shared.keys() | alone.keys() if shared.get(p) != alone.get(p))


def test_a_regeneration_shared_among_processes_writes_what_one_process_writes(cli, tmp_path):
    """The graph page's process starts before the reach is worked out, then one writes half of the
    entity pages and another the list and ledger pages; the site is what one process writes."""
    store = tmp_path / "demo.sqlite"
    assert cli("demo", "--db", str(store)).exit_code == 0
    memory = Memory(store)
    try:
        site = write_site(memory.sealed_snapshot(), tmp_path / "site")
    finally:
        memory.close()
    before = tree(site)
    forks, digested_all, differing = in_a_fresh_process(_regenerate_forked, str(store), str(site), str(tmp_path / "fresh"))
    assert forks == 3 and not digested_all
    assert differing == [] and tree(site) != before


@pytest.mark.parametrize("checked_ahead", [False, True])
def test_a_page_damaged_since_is_written_fresh_though_no_write_reached_it(demo_site, tmp_path, checked_ahead):
    memory, site, counted = demo_site
    celery = next(p for p in (site / "entities").iterdir() if p.name.startswith("celery-"))
    good = celery.read_bytes()
    celery.write_bytes(good.replace(b"Celery", b"Celeri"))   # edited in place, same size
    memory.remember([FactInput("Dana Okafor", "uses", "Docker Compose", evidence=("user said so",))])
    rendered, digested_all = regenerate(memory, site, tmp_path / "fresh", counted, checked_ahead)
    assert not digested_all and rendered == ["Celery", "Dana Okafor", "Docker Compose"]
    assert celery.read_bytes() == good


def test_files_checked_under_another_manifest_are_read_again(demo_site):
    _, site, _ = demo_site
    celery, postgres = (f"entities/{p.name}" for stem in ("celery-", "postgresql-")
                        for p in (site / "entities").iterdir() if p.name.startswith(stem))
    (site / celery).write_bytes((site / celery).read_bytes() + b" ")
    checked = checked_files(site)
    assert checked is not None and checked.damaged == {celery}
    for previous in (PreviousSite.read(site, checked),   # its own check
                     PreviousSite.read(site, CheckedFiles("sha256:" + "0" * 64, frozenset())),  # another's: unused
                     PreviousSite.read(site)):
        assert previous is not None
        assert not previous.intact(celery) and previous.intact(postgres)



def test_a_page_gone_since_its_check_is_written_fresh(demo_site, tmp_path):
    memory, site, _ = demo_site
    checked = checked_files(site)
    [postgres] = [p for p in (site / "entities").iterdir() if p.name.startswith("postgresql-")]
    good = postgres.read_bytes()
    postgres.unlink()
    snapshot = memory.sealed_snapshot()
    write_site(snapshot, site, previous_files=checked)
    assert postgres.read_bytes() == good
    assert tree(site) == tree(write_site(snapshot, tmp_path / "fresh"))


def test_a_merge_renders_the_pages_its_moved_facts_reach(demo_site, tmp_path):
    """pytz's facts move to zoneinfo: their other ends' cards now link zoneinfo, pytz's page says
    where they went; nothing else is digested, and the site is what a fresh build writes."""
    memory, site, counted = demo_site
    counted.take()
    memory.merge("zoneinfo", "pytz")
    rendered, digested_all = regenerate(memory, site, tmp_path / "fresh", counted)
    assert (rendered, digested_all) == (["pytz", "tracking/eta.py", "zoneinfo"], False)
    [pytz] = [p for p in (site / "entities").iterdir() if p.name.startswith("pytz-")]
    assert "Merged into" in pytz.read_text(encoding="utf-8")


def test_each_entitys_rows_found_alone_are_those_the_rule_gives_row_by_row(tmp_path):
    """delta.RowsShown (an entity's ledger rows, found when asked from the rows indexed by the ids
    they name) against delta.shown_with applied to every row, on a store after every kind of write,
    merges and forgettings among them."""
    rng = random.Random(11)
    memory = seeded_store(tmp_path / "store.sqlite", rng)
    try:
        writer = Writer(memory, rng)
        for kind in FOLLOWED + NOT_FOLLOWED + FOLLOWED:
            getattr(writer, kind)()
        snapshot = memory.sealed_snapshot()
    finally:
        memory.close()
    site = build_module.SiteBuild(snapshot, None)
    contradiction_facts = {c["id"]: c["facts"] for c in snapshot["contradictions"]}
    by_rule: dict[str, list[int]] = {}
    for number in range(len(snapshot["ledger"]) - 1, -1, -1):
        for entity_id in shown_with(snapshot["ledger"][number]["refs"], site.pages, site.index.facts,
                                    contradiction_facts):
            by_rule.setdefault(entity_id, []).append(number)
    shown = build_module.RowsShown(snapshot["ledger"], site.index)
    everyone = [e["id"] for e in snapshot["entities"]]
    assert {e: shown.get(e, []) for e in everyone} == {e: by_rule.get(e, []) for e in everyone}
    assert sum(1 for e in everyone if shown.get(e)) == len(everyone)   # every entity has rows: none compared empty


def test_a_forgotten_facts_text_leaves_every_page_of_a_followed_regeneration(demo_site, tmp_path):
    memory, site, counted = demo_site
    secret = "the staging password is hunter2"
    [outcome] = memory.remember([FactInput("Dana Okafor", "uses", "Docker Compose", description=secret,
                                           evidence=("said in a chat: " + secret,))])
    regenerate(memory, site, tmp_path / "fresh-1", counted)
    holding = [path for path, data in tree(site).items() if secret.encode() in data]
    assert "snapshot.json" in holding and any(p.startswith("entities/") for p in holding)

    memory.forget_fact(outcome.fact_id)
    rendered, digested_all = regenerate(memory, site, tmp_path / "fresh-2", counted)
    assert not digested_all and "Dana Okafor" in rendered and "Docker Compose" in rendered
    assert [path for path, data in tree(site).items() if secret.encode() in data] == []


def test_a_forgotten_entitys_name_leaves_every_page_of_a_followed_regeneration(demo_site, tmp_path):
    memory, site, counted = demo_site
    secret = "Project Nightingale"
    memory.remember([FactInput("Dana Okafor", "works_on", secret, object_type="Project", evidence=("standup",)),
                     FactInput(secret, "uses", "PostgreSQL", evidence=("design doc",))])
    regenerate(memory, site, tmp_path / "fresh-1", counted)
    holding = [path for path, data in tree(site).items() if secret.encode() in data]
    assert "snapshot.json" in holding and sum(p.startswith("entities/") for p in holding) >= 3

    memory.forget_entity(secret)
    rendered, digested_all = regenerate(memory, site, tmp_path / "fresh-2", counted)
    assert not digested_all and {"Dana Okafor", "PostgreSQL"} <= set(rendered)
    assert [path for path, data in tree(site).items() if secret.encode() in data] == []
