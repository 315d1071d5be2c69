"""`memlens verify`: check every byte of a bundle against what memlens writes from the bundle's own
sealed data, and name the first thing that does not match.

- A snapshot is checked against its seal (store/snapshot_seal.py: every record, the ledger's hash
  chain, the snapshot's hash).
- A report: its data, so; then its page is drawn again from that data and compared byte for byte
  (report/page_check.py), naming the part of the page, the entity or the fact that differs. A report
  drawn by another memlens version is checked as far as its data, and the result says so.
- A site: its snapshot.json, so; then every file against the sha256 its manifest.json lists, every
  file of the folder listed, and each one a regular file inside the folder (no links, no FIFOs).

It proves integrity, not authorship: anyone can write a bundle that verifies.
"""
from __future__ import annotations

import os
from os import PathLike
from pathlib import Path
from typing import Any

from memlens.store import json_input
from memlens.store.confined import BUNDLE_FILE_LIMIT, UntrustedFileError, confined_name, read_inside
from memlens.store.errors import SnapshotAltered
from memlens.store.snapshot_seal import check_seal

from .reading import BundleUnreadable, read_bundle, read_report_parts
from .site.previous import file_sha256

MANIFEST_LIMIT = 256 << 20   # a manifest lists a file per line: 100,000 entities' site is about 20 MB
PROVES = "integrity, not authorship: a seal is no signature, and anyone can write a bundle that verifies"


def verify_bundle(path: str | PathLike[str]) -> dict[str, Any]:
    """What was checked, counted (and `page`: whether a report's page was checked byte for byte,
    `unchecked`: why not); raises SnapshotAltered naming the first difference."""
    bundle = Path(path)
    if bundle.is_dir():
        snapshot = read_bundle(bundle)
        checked = check_seal(snapshot, str(bundle / "snapshot.json"))
        checked["files"] = _check_manifest(bundle, snapshot["hash"])
        return checked
    parts = read_report_parts(bundle)
    checked = check_seal(parts.snapshot, str(bundle))
    if parts.page is not None:
        from .report.page_check import check_page

        page = check_page(parts.page, str(bundle), parts.blocks, parts.snapshot)
        checked["page"] = page.checked
        if not page.checked:
            checked["unchecked"] = f"the page around the data was not checked: {page.why}"
    return checked


def _check_manifest(site: Path, snapshot_hash: str) -> int:
    manifest = _manifest(site)
    if manifest.get("hash") != snapshot_hash:
        raise SnapshotAltered(f"{site / 'manifest.json'}: its hash is not the hash of snapshot.json")
    files = manifest["files"]
    for name, expected in sorted(files.items()):
        if _sha256_of(site, name) != expected:
            raise SnapshotAltered(f"{site / name} differs from the sha256 its manifest lists")
    extra = sorted(set(_files_in(site)) - set(files) - {"manifest.json"})
    if extra:
        raise SnapshotAltered(f"{site / extra[0]} is not in the manifest")
    return len(files)


def _manifest(site: Path) -> dict[str, Any]:
    path = site / "manifest.json"
    try:
        manifest = json_input.parsed(read_inside(site, "manifest.json", MANIFEST_LIMIT))
    except FileNotFoundError:
        raise BundleUnreadable(f"{site} has no manifest.json; it is not a memlens site") from None
    except UntrustedFileError as exc:
        raise BundleUnreadable(str(exc)) from None
    except (OSError, ValueError) as exc:   # json_input.NotJson is a ValueError
        raise BundleUnreadable(f"cannot read {path}: {exc}") from None
    if not (isinstance(manifest, dict) and isinstance(manifest.get("files"), dict)
            and all(isinstance(v, str) for v in manifest["files"].values())):
        raise BundleUnreadable(f"{path} does not list the site's files and their sha256")
    return manifest


def _sha256_of(site: Path, name: str) -> str:
    """The sha256 of the site's file `name`, as its manifest lists them, read only if `name` is a
    file name inside the site (store/confined.py) and the file a regular one reached through no
    link: a name that leads out, a link, a FIFO or a device is the first thing that differs."""
    if confined_name(name) is None:
        raise SnapshotAltered(f"{site}: the manifest lists {name[:200]!r}, which is no file name inside the site")
    try:
        return file_sha256(read_inside(site, name, BUNDLE_FILE_LIMIT))
    except FileNotFoundError:
        raise SnapshotAltered(f"{site}: {name[:200]} is listed in the manifest but missing") from None
    except UntrustedFileError as exc:
        raise SnapshotAltered(f"{exc}; memlens writes a site of regular files and folders") from None
    except OSError as exc:
        raise BundleUnreadable(f"cannot read {site / name}: {exc.strerror or exc}") from None


def _files_in(site: Path) -> list[str]:
    """Every file under `site` by its name relative to it; links are not followed, and one that is
    not in the manifest is an extra like any file."""
    found = []
    for folder, folders, names in os.walk(site, followlinks=False):
        relative = Path(folder).relative_to(site)
        for name in names + [f for f in folders if os.path.islink(os.path.join(folder, f))]:
            found.append((relative / name).as_posix())
    return found
