"""The README's sharing workflows work as written: every command of its Sharing block, run in order."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

from memlens.store import datasets
from memlens.store.memory import Memory

README = Path(__file__).resolve().parents[1] / "README.md"


def sharing_commands() -> list[list[str]]:
    section = README.read_text(encoding="utf-8").split("\n## Sharing\n", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```sh\n(.*?)```", section, re.S)
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]


def test_every_sharing_command_in_the_readme_works(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli("demo").exit_code == 0
    commands = sharing_commands()
    assert [c[1] for c in commands] == ["export", "export", "bundles", "verify", "diff", "import", "import", "import"]
    outputs = []
    for command in commands:
        assert command[0] == "memlens"
        result = cli(*command[1:])
        assert result.exit_code == 0, (command, result.output)
        outputs.append(result.output)
    assert (tmp_path / "memory.html").stat().st_size > 0 and (tmp_path / "docs/memory/manifest.json").is_file()
    assert outputs[3].startswith("ok: docs/memory: 51 entities (1 more merged into them), 93 facts")
    assert "no changes" in outputs[4]
    # the teammate's dataset holds memories now: the report of the same memory is merged, changing nothing
    assert outputs[6].startswith("dry run: nothing was changed. The merge: nothing changed")
    assert outputs[7].startswith("merged memory.html into teammate: nothing changed")
    with Memory(datasets.path_for("teammate"), readonly=True) as copy, Memory(datasets.path_for("demo"), readonly=True) as demo:
        assert copy.stats()["facts"] == demo.stats()["facts"] == 93
