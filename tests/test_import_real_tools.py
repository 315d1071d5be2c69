"""The importers against stores written by the real memoose 0.6.0 and memware 0.11.0.

Opt-in (MEMLENS_REAL_TOOLS=1): both packages are installed from PyPI into a temporary directory
(`pip install --target`, without their optional dependencies) and run in a child process with a
private HOME, so nothing is left in this environment. mnemo-mcp needs Python 3.13 and is covered
by fixtures modelled on its schema (tests/import_fixtures.py).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memlens.store.importers import locate, read_snapshot
from memlens.store.importers.memware import fact_id_of
from memlens.store.memory import Memory
from memlens.store.snapshot.load import load_into

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("MEMLENS_REAL_TOOLS") != "1",
                       reason="installs memoose and memware from PyPI into a temporary directory; "
                              "set MEMLENS_REAL_TOOLS=1 to run"),
]
PACKAGES = ["memoose==0.6.0", "memware==0.11.0"]
TOOL_VARIABLES = ("MEMOOSE_DATA_DIR", "MEMOOSE_PROJECT_DIR", "MEMWARE_DB", "MEMWARE_HOME", "XDG_DATA_HOME")

# Runs in the child: each tool writes its default store for the working directory and HOME.
WRITE_STORES = textwrap.dedent('''
    import json
    from memoose import Engine, EntityIn, RelationIn
    from memoose.store.embeddings import HashEmbedder
    from memware import Store, approve, assert_belief, reject
    from memware.ledger import retract

    E = lambda name, type_, description="": EntityIn(name=name, type=type_, description=description)
    engine = Engine(embedder=HashEmbedder())
    ds = engine.dataset()
    m = {}
    ds.declare_functional_relations(["works_at"])
    r = ds.remember([E("alice", "Person", "backend lead"), E("acme", "Organization")], [RelationIn(
        source="alice", name="works_at", target="acme", evidence="user said 2026-03-01", valid_from="2024-01-01")])
    m["acme"] = r["relations"][0]["id"]
    r = ds.remember([E("globex", "Organization")], [RelationIn(
        source="alice", name="works_at", target="globex", evidence="https://example.com", valid_from="2025-06-01")])
    m["globex"] = r["relations"][0]["id"]
    r = ds.remember([E("billing", "Project"), E("postgres", "Technology"), E("mysql", "Technology")], [
        RelationIn(source="billing", name="uses", target="postgres", description="primary store", evidence="repo://db.py"),
        RelationIn(source="billing", name="uses", target="mysql", evidence="repo://legacy.py")])
    m["pg"], m["my"] = (x["id"] for x in r["relations"])
    m["contradiction"] = ds.mark_contradiction(m["pg"], m["my"], "both claimed as primary", 0.8)["contradiction_id"]
    ds.dismiss("hotspot:%s:uses" % r["entities"][0]["id"], "billing really uses both")
    r = ds.remember([E("Alice Smith", "Person"), E("payments", "Project")],
                    [RelationIn(source="Alice Smith", name="owns", target="payments", evidence="standup")])
    m["owns"] = r["relations"][0]["id"]
    ds.merge_entities("alice", "Alice Smith")
    r = ds.remember([E("staging", "System")], [RelationIn(
        source="staging", name="has_password", target="billing", description="the password is hunter2-real")])
    m["secret"] = r["relations"][0]["id"]
    ds.forget_relation(m["secret"])
    r = ds.remember([E("</script><script>alert(1)</script>", "Concept", '<img src=x onerror="alert(2)">')],
                    [RelationIn(source="</script><script>alert(1)</script>", name="links_to", target="billing",
                                description="{{ 7*7 }}", evidence="javascript:alert(3)")])
    m["hostile"] = r["relations"][0]["id"]
    m["path"] = str(ds.store.path)
    engine.close()

    store = Store()
    w = {"path": str(store.path)}
    w["port_old"] = assert_belief(store, "api", "listens on port", "8080", valid_from="2025-01-01").belief_id
    w["port_new"] = assert_belief(store, "api", "listens on port", "8443", valid_from="2026-02-01T10:00:00Z").belief_id
    w["port_late"] = assert_belief(store, "API", "listens on port", "8000", valid_from="2024-01-01").belief_id
    w["db"] = assert_belief(store, "billing", "stores data in", "postgres", valid_from="2025-05-01", reliability=0.9).belief_id
    res = assert_belief(store, "billing", "stores data in", "mysql", valid_from="2026-01-01", reliability=0.3)
    w["db_candidate"] = res.belief_id
    w["owner"] = assert_belief(store, "billing", "owned by", "team-a", valid_from="2025-01-01", reliability=0.9).belief_id
    res = assert_belief(store, "billing", "owned by", "team-b", valid_from="2026-01-15", reliability=0.2)
    w["owner_new"] = res.belief_id
    approve(store, res.review_id)
    w["lang"] = assert_belief(store, "billing", "written in", "python", valid_from="2024-01-01", reliability=0.9).belief_id
    res = assert_belief(store, "billing", "written in", "cobol", valid_from="2026-02-01", reliability=0.1)
    w["lang_bad"] = res.belief_id
    reject(store, res.review_id)
    w["wrong"] = assert_belief(store, "billing", "deployed on", "heroku", valid_from="2025-03-01").belief_id
    retract(store, beliefs={w["wrong"]: "checked: wrong"}, reason="by hand", apply=True)
    store.close()
    print(json.dumps({"memoose": m, "memware": w}))
''')

# Runs in the child: memware holds its store open in a write transaction until told to go on.
HOLD_A_WRITE = textwrap.dedent('''
    import sys
    from memware import Store
    store = Store()
    store.conn.execute("BEGIN IMMEDIATE")
    store.conn.execute("UPDATE belief SET value = 'not-yet-committed' WHERE id = 1")
    print("holding", flush=True)
    sys.stdin.readline()
    store.conn.execute("COMMIT")
    store.close()
''')


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("real-tools")
    site, home, project = root / "site", root / "home", root / "My Project!"
    home.mkdir()
    project.mkdir()
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                    "--target", str(site), *PACKAGES], check=True)
    env = {k: v for k, v in os.environ.items() if k not in TOOL_VARIABLES}
    env.update(HOME=str(home), PYTHONPATH=str(site))
    if subprocess.run([sys.executable, "-c", "import pydantic, numpy"], env=env).returncode != 0:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "--target", str(site), "pydantic", "numpy"], check=True)
    done = subprocess.run([sys.executable, "-c", WRITE_STORES], env=env, cwd=project, check=True,
                          capture_output=True, text=True)
    ids = json.loads(done.stdout.strip().splitlines()[-1])
    return {"ids": ids, "env": env, "home": home, "project": project}


@pytest.fixture
def as_the_tools_see_it(real: dict, monkeypatch: pytest.MonkeyPatch) -> dict:
    """The same HOME and working directory the tools ran with."""
    for variable in TOOL_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HOME", str(real["home"]))
    monkeypatch.chdir(real["project"])
    return real


def test_memlens_finds_both_stores_where_the_tools_put_them(as_the_tools_see_it: dict):
    ids = as_the_tools_see_it["ids"]
    assert locate("memoose") == Path(ids["memoose"]["path"])
    assert locate("memware") == Path(ids["memware"]["path"])


def test_a_real_memoose_store_reads_as_memoose_left_it(as_the_tools_see_it: dict):
    ids = as_the_tools_see_it["ids"]["memoose"]
    snapshot = read_snapshot("memoose")
    facts = {f["id"]: f for f in snapshot["facts"]}
    names = {e["name"]: e for e in snapshot["entities"]}
    assert (facts[ids["acme"]]["status"], facts[ids["acme"]]["superseded_by"]) == ("superseded", ids["globex"])
    assert facts[ids["globex"]]["status"] == "current" and facts[ids["globex"]]["functional"]
    assert facts[ids["pg"]]["contested"] and facts[ids["my"]]["contested"]
    assert [d["reason"] for d in snapshot["dismissals"]] == ["billing really uses both"]
    assert names["Alice Smith"]["merged_into"] == names["alice"]["id"]
    assert facts[ids["owns"]]["subject"] == names["alice"]["id"]
    assert facts[ids["secret"]]["status"] == "forgotten" and "hunter2-real" not in json.dumps(snapshot)
    assert facts[ids["hostile"]]["description"] == "{{ 7*7 }}"
    assert facts[ids["hostile"]]["evidence"] == ["javascript:alert(3)"]
    assert {"assert", "supersede", "contest", "dismiss", "merge", "forget"} <= {r["action"] for r in snapshot["ledger"]}


def test_a_real_memware_store_reads_as_memware_left_it(as_the_tools_see_it: dict):
    ids = as_the_tools_see_it["ids"]["memware"]
    snapshot = read_snapshot("memware")
    facts = {f["id"]: f for f in snapshot["facts"]}
    fact = lambda key: facts[fact_id_of(ids[key])]  # noqa: E731
    assert fact("port_old")["status"] == "superseded" and fact("port_new")["status"] == "current"
    assert fact("port_late")["superseded_by"] == fact_id_of(ids["port_old"])
    assert fact("db_candidate")["status"] != "current" and fact("db_candidate")["contested"]
    assert fact("db")["status"] == "current" and fact("db")["contested"]
    assert fact("owner_new")["status"] == "current" and fact("owner")["status"] == "superseded"
    assert fact("lang_bad")["status"] == "retracted" and fact("lang")["status"] == "current"
    assert (fact("wrong")["status"], fact("wrong")["reason"]) == ("retracted", "checked: wrong")


@pytest.mark.parametrize("tool", ["memoose", "memware"])
def test_a_real_store_imports_into_memlens_unchanged(as_the_tools_see_it: dict, tmp_path: Path, tool: str):
    path = locate(tool)
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    snapshot = read_snapshot(tool)
    with Memory(tmp_path / "imported.sqlite") as memory:
        load_into(memory, snapshot, source=tool)
        again = memory.snapshot()
    for part in ("entities", "facts", "contradictions", "dismissals"):
        assert again[part] == snapshot[part], part
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_reading_while_memware_holds_a_write_open(as_the_tools_see_it: dict):
    path = locate("memware")
    before = read_snapshot("memware")
    holder = subprocess.Popen([sys.executable, "-c", HOLD_A_WRITE], env=as_the_tools_see_it["env"],
                              cwd=as_the_tools_see_it["project"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        files = (path.read_bytes(), path.stat().st_mtime_ns)
        during = read_snapshot("memware")
        assert during["facts"] == before["facts"] and "not-yet-committed" not in json.dumps(during)
        assert (path.read_bytes(), path.stat().st_mtime_ns) == files
    finally:
        holder.communicate("go\n", timeout=60)
    assert holder.returncode == 0
    assert "not-yet-committed" in json.dumps(read_snapshot("memware"))
