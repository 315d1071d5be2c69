"""`memlens verify` of a site: write every file of it again from the site's own sealed data and
compare each byte, naming the first file (and the place in it) that differs.

A site is drawn from its snapshot (snapshot.json, checked against its seal before this runs), from
what its graph page's data blocks say of the drawing (each entity's position, each type's colour
and shape) and from that page's record (report/renderer.py: the code that drew it and the changes
it shows). Those are handed to the writer as a regeneration hands them; every file it writes,
manifest.json included, must be the file in the folder. The manifest is no evidence of anything:
a page edited and a manifest updated to match fail like any edit.

A folder may hold what memlens did not write: a CNAME, a README, a gh-pages worktree's `.git`.
Those are not the site's and are named, not checked; but a page, script, style or data file in
one of the folders memlens writes its pages in (entities/, ledger/, maintenance/, assets/) that it
does not write could pass for one of its own, and fails.

A site drawn by other code (another memlens version), or written before sites carried the record,
is checked against its manifest's sha256s, and the result says so.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memlens.store.confined import BUNDLE_FILE_LIMIT, UntrustedFileError, read_inside
from memlens.store.errors import SnapshotAltered

from ..report.codec import MAIN_BLOCK, PAGE_BLOCK, BundleUnreadable, parse_blocks, read_page
from ..report.page_check import (DRAWING_FAILS, PageCheck, cannot_draw, check_changes, drawing_of,
                                 drawn_by_other_code, first_difference)
from ..written import sha256_hex
from .folder import passes_for_ours



def check_site(site: Path, snapshot: dict[str, Any]) -> tuple[PageCheck, int, list[str]]:
    """Raise SnapshotAltered naming the first file of the site at `site` that differs from what
    memlens writes from its data (`snapshot`, seal checked); whether every file was drawn again,
    how many files the site has, and what the folder holds that is not the site's."""
    page_path = site / "index.html"
    blocks = parse_blocks(read_page(page_path, follow=False), str(page_path), (MAIN_BLOCK, PAGE_BLOCK))
    record = blocks.get(PAGE_BLOCK)
    why = drawn_by_other_code(record, f"a {blocks[MAIN_BLOCK].get('version')} site from before sites recorded "
                                      "what drew them")
    if why is not None:
        files = _check_manifest(site, snapshot["hash"])
        return PageCheck(False, why), len(files), _not_ours(site, files)
    check_changes(record.get("changes"), snapshot, str(page_path))
    previous_layout, previous_looks = drawing_of(blocks, str(page_path))
    keys = blocks[MAIN_BLOCK].get("keys")
    if isinstance(keys, list) and sorted(map(str, keys)) == sorted(snapshot):
        snapshot = {key: snapshot[key] for key in keys}   # in the order it was written in (snapshot.json sorts)
    from .build import Drawn, SiteBuild   # jinja2 and the layout: only once the data checked out

    written: dict[str, str] = {}

    def compare(path: str, content: str | bytes) -> None:
        expected = content.encode("utf-8") if isinstance(content, str) else content
        found = _read(site, path)
        if found != expected:
            place = first_difference(found, expected, snapshot) if path.endswith(".html") else None
            raise SnapshotAltered(f"{site / path} differs from what memlens writes from the site's own data"
                                  + (f" at {place}" if place else ""))
        written[path] = "sha256:" + sha256_hex(expected)

    try:
        build = SiteBuild(snapshot, record.get("changes"), previous_layout, previous_looks)
        build.write(Drawn(compare))
    except SnapshotAltered:
        raise
    except DRAWING_FAILS as exc:
        raise cannot_draw(str(site), exc) from None
    compare("manifest.json", build.manifest(dict(written)))
    return PageCheck(True), len(written) - 1, _not_ours(site, set(written))


def _read(site: Path, path: str) -> bytes:
    try:
        return read_inside(site, path, BUNDLE_FILE_LIMIT)
    except FileNotFoundError:
        raise SnapshotAltered(f"{site}: {path} is missing") from None
    except UntrustedFileError as exc:
        raise SnapshotAltered(f"{exc}; memlens writes a site of regular files and folders") from None
    except OSError as exc:
        raise BundleUnreadable(f"cannot read {site / path}: {exc.strerror or exc}") from None


def _check_manifest(site: Path, snapshot_hash: str) -> set[str]:
    """A site no memlens like this one drew: every file its manifest lists holds the sha256 listed."""
    from ..verification import read_manifest

    manifest = read_manifest(site)
    if manifest.get("hash") != snapshot_hash:
        raise SnapshotAltered(f"{site / 'manifest.json'}: its hash is not the hash of snapshot.json")
    files = manifest["files"]
    for name, expected in sorted(files.items()):
        from memlens.store.confined import confined_name

        if confined_name(name) is None:
            raise SnapshotAltered(f"{site}: the manifest lists {name[:200]!r}, which is no file name inside the site")
        if "sha256:" + sha256_hex(_read(site, name)) != expected:
            raise SnapshotAltered(f"{site / name} differs from the sha256 its manifest lists")
    return set(files) | {"manifest.json"}


def _not_ours(site: Path, ours: set[str]) -> list[str]:
    """What the folder holds that is not one of `ours` (outermost names: a folder of the user's once);
    SnapshotAltered for anything in one of memlens's own folders."""
    folders = {"/".join(path.split("/")[:n]) for path in ours for n in range(1, path.count("/") + 1)}
    found: list[str] = []

    def walk(folder: Path, prefix: str) -> None:
        with os.scandir(folder) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                path = prefix + entry.name
                if path in ours:
                    continue
                if path in folders and entry.is_dir(follow_symlinks=False):
                    walk(Path(entry.path), path + "/")
                    continue
                if passes_for_ours(path):
                    raise SnapshotAltered(f"{site / path} is no file memlens writes from the site's data, in a folder "
                                          "of memlens's own pages")
                found.append(path)

    walk(site, "")
    return found
