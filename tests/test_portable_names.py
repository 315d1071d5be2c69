"""Every file name memlens writes can be made on Windows and on a case-insensitive disk (macOS's,
Windows'), whatever the entities, relations and types are called: no `:`, no device name (`CON`,
`aux.txt`), no trailing dot or space, no part longer than a file system holds, and no two names
that differ only in case."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from memlens.store.confined import confined_name
from memlens.store.datasets import path_for
from memlens.store.errors import InvalidInput

HOSTILE_NAMES = [
    "a:b", "CON", "aux.txt", "nul", "COM1", "lpt9.log", "con.html", "trailing. ", "more trailing...",
    "Name", "x" * 300, "日本語", "Ünïcödé", "ß", "İstanbul", "../../etc/passwd", "a/b\\c", '<>:"|?*', "..",
    "🙂", "index", "manifest", "entities",
]   # names that differ only in case or separators are one entity's (the store folds them), relations and types are not
# relations that differ only in case, or hold what a file name cannot
RELATIONS = ["re:lation", "CON", "Rel", "rel", "a/b", "aux.", "REL "]
TYPES = ["Thing:", "CON", "aux.", "Kind ", "kind"]
NAME_PART_LIMIT = 255   # NTFS, APFS and ext4 all hold names up to 255 characters


def facts() -> list[dict]:
    """Every name linked to the next, and a hub with more cards of each relation than its page shows
    (so the cards spill onto pages of their own, named after the relation)."""
    made = []
    for i, name in enumerate(HOSTILE_NAMES):
        made.append({"subject": name, "subject_type": TYPES[i % len(TYPES)], "relation": RELATIONS[i % len(RELATIONS)],
                     "object": HOSTILE_NAMES[(i + 1) % len(HOSTILE_NAMES)],
                     "object_type": TYPES[(i + 1) % len(HOSTILE_NAMES) % len(TYPES)], "evidence": ["user said so"]})
    for relation in RELATIONS:
        for n in range(12):
            made.append({"subject": "CON", "relation": relation, "object": f"{relation} target {n}:.",
                         "object_type": "Thing:", "evidence": ["user said so"]})
    return made


def files_under(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def unportable(paths: list[str]) -> list[str]:
    """The paths no Windows or case-insensitive disk could hold as they are."""
    bad = [p for p in paths if confined_name(p) is None or max(map(len, p.split("/"))) > NAME_PART_LIMIT]
    seen: dict[str, str] = {}
    for path in paths:
        folded = path.casefold()
        if folded in seen:
            bad.append(f"{seen[folded]} and {path}")
        seen[folded] = path
    return bad


def test_the_check_finds_each_kind_of_name_a_windows_or_case_insensitive_disk_cannot_hold():
    fine = ["index.html", "entities/con-c13e99a4.html", "entities/a-b--out-rel-1a2b3c4d-1.html"]
    assert unportable(fine) == []
    assert unportable(["entities/a:b.html", "CON.html", "entities/aux.txt", "trailing.", "space ", "x" * 256]) == [
        "entities/a:b.html", "CON.html", "entities/aux.txt", "trailing.", "space ", "x" * 256]
    assert unportable(["entities/Name.html", "entities/name.html"]) == ["entities/Name.html and entities/name.html"]


def test_a_site_and_a_report_of_hostile_names_are_written_under_portable_file_names(cli, tmp_path):
    store, site, report = tmp_path / "hostile.sqlite", tmp_path / "site", tmp_path / "report.html"
    for type_ in TYPES:
        assert cli("types", "add", type_, "--db", str(store)).exit_code == 0
    # every write stores relations in snake case: these are written as r0, r1, ... and spelt back as
    # a store from before that rule (or an import) holds them
    placeholders = {relation: f"r{n}" for n, relation in enumerate(RELATIONS)}
    lines = "\n".join(json.dumps(dict(fact, relation=placeholders[fact["relation"]])) for fact in facts())
    remembered = cli("remember", "--stdin", "--new", "--db", str(store), "--json", input=lines)
    assert remembered.exit_code == 0, remembered.output
    with sqlite3.connect(store) as conn:
        conn.executemany("UPDATE facts SET relation = ? WHERE relation = ?", placeholders.items())
    assert cli("export", "--db", str(store), "--format", "site", "-o", str(site)).exit_code == 0
    assert cli("export", "--db", str(store), "--format", "html", "-o", str(report)).exit_code == 0

    written = files_under(site)
    entity_pages = [p for p in written if p.startswith("entities/") and p != "entities/index.html"]
    spilled = [p for p in entity_pages if "--" in p]
    assert len(entity_pages) > len(HOSTILE_NAMES) and len(spilled) >= len(RELATIONS)   # every name, every spill
    assert unportable(written) == []
    manifest = json.loads((site / "manifest.json").read_text())
    assert set(manifest["files"]) | {"manifest.json"} == {p for p in written if (site / p).is_file()}
    assert cli("verify", str(site)).exit_code == 0
    everything = files_under(tmp_path)   # the store, SQLite's files beside it, the report, the site
    assert "report.html" in everything and unportable(everything) == []


@pytest.mark.parametrize("name", ["con", "CON", "aux", "nul.backup", "com1", "LPT9", "prn"])
def test_a_dataset_named_as_a_windows_device_is_refused(name):
    with pytest.raises(InvalidInput, match="Windows"):
        path_for(name)
    assert path_for(f"notes-{name}").name == f"notes-{name}.sqlite"
    assert path_for("console").name == "console.sqlite"


def test_a_dataset_differing_from_another_only_in_case_is_refused_where_it_would_be_new(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMLENS_HOME", str(tmp_path))
    assert path_for("Billing") == tmp_path / "Billing.sqlite"   # no dataset yet: any case will do
    (tmp_path / "billing.sqlite").write_bytes(b"")
    assert path_for("billing") == tmp_path / "billing.sqlite"
    with pytest.raises(InvalidInput, match="only in case.*-d billing"):
        path_for("Billing")
    assert path_for("billing-eu") == tmp_path / "billing-eu.sqlite"
    # two made on Linux before the rule: each still reached by its own name
    (tmp_path / "Billing.sqlite").write_bytes(b"")
    assert path_for("Billing") == tmp_path / "Billing.sqlite" and path_for("billing") == tmp_path / "billing.sqlite"
