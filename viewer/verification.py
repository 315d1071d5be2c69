"""`memlens verify`: recompute a bundle's digests and name the first thing that does not match.

A snapshot is checked against its seal (store/snapshot_seal.py: every record, the ledger's hash
chain, the snapshot's hash); a site's snapshot.json that way, then every file against the sha256
its manifest.json lists.
"""
from __future__ import annotations

import json
from os import PathLike
from pathlib import Path
from typing import Any

from memlens.store.errors import SnapshotAltered
from memlens.store.snapshot_seal import check_seal

from .reading import BundleUnreadable, read_bundle
from .site.previous import file_sha256


def verify_bundle(path: str | PathLike[str]) -> dict[str, Any]:
    """What was checked, counted; raises SnapshotAltered naming the first difference."""
    bundle = Path(path)
    snapshot = read_bundle(bundle)
    where = str(bundle / "snapshot.json") if bundle.is_dir() else str(bundle)
    checked = check_seal(snapshot, where)
    if bundle.is_dir():
        checked["files"] = _check_manifest(bundle, snapshot["hash"])
    return checked


def _check_manifest(site: Path, snapshot_hash: str) -> int:
    manifest = _manifest(site)
    if manifest.get("hash") != snapshot_hash:
        raise SnapshotAltered(f"{site / 'manifest.json'}: its hash is not the hash of snapshot.json")
    files = manifest["files"]
    for name, expected in sorted(files.items()):
        file = site / name
        if not _inside(site, file) or not file.is_file():
            raise SnapshotAltered(f"{site}: {name[:200]} is listed in the manifest but missing")
        if file_sha256(file.read_bytes()) != expected:
            raise SnapshotAltered(f"{file} differs from the sha256 its manifest lists")
    extra = sorted(p.relative_to(site).as_posix() for p in site.rglob("*")
                   if p.is_file() and p.relative_to(site).as_posix() not in files)
    if extra and extra != ["manifest.json"]:
        raise SnapshotAltered(f"{site / next(e for e in extra if e != 'manifest.json')} is not in the manifest")
    return len(files)


def _manifest(site: Path) -> dict[str, Any]:
    try:
        manifest = json.loads((site / "manifest.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BundleUnreadable(f"{site} has no manifest.json; it is not a memlens site") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BundleUnreadable(f"cannot read {site / 'manifest.json'}: {exc}") from None
    if not (isinstance(manifest, dict) and isinstance(manifest.get("files"), dict)
            and all(isinstance(v, str) for v in manifest["files"].values())):
        raise BundleUnreadable(f"{site / 'manifest.json'} does not list the site's files and their sha256")
    return manifest


def _inside(site: Path, file: Path) -> bool:
    """A manifest names files in the site; a name that leads out of it is not read."""
    return file.resolve().is_relative_to(site.resolve())
