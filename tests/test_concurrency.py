"""Two processes writing at once lose nothing."""
from __future__ import annotations

import subprocess
import sys
import textwrap

from memlens.store.memory import Memory

WRITER = textwrap.dedent("""
    import sys
    from memlens.store.facts import FactInput
    from memlens.store.memory import Memory

    path, name = sys.argv[1], sys.argv[2]
    with Memory(path, actor=f"agent:{name}") as memory:
        for i in range(200):
            memory.remember([FactInput(f"{name}-{i}", "written_by", name, "Task", "Person", evidence=("test",))])
""")


def test_two_processes_writing_200_facts_each_lose_nothing(tmp_path):
    path = tmp_path / "shared.sqlite"  # not there yet: the two writers make it together
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), name], stderr=subprocess.PIPE, text=True)
        for name in ("left", "right")
    ]
    for writer in writers:
        _, errors = writer.communicate(timeout=240)
        assert writer.returncode == 0, errors

    with Memory(path) as memory:
        facts = memory.facts()
        ledger = memory.ledger()
    assert len(facts) == 400
    assert {f["actor"] for f in facts} == {"agent:left", "agent:right"}
    asserts = [row for row in ledger if row["action"] == "assert"]
    assert len(asserts) == 400
    assert {row["refs"][0] for row in asserts} == {f["id"] for f in facts}
    assert [row["seq"] for row in ledger] == list(range(1, len(ledger) + 1))
