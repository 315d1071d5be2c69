"""`memlens verify`: check every byte of a bundle against what memlens writes from the bundle's own
sealed data, and name the first thing that does not match.

- A snapshot is checked against its seal (store/snapshot/seal.py: every record, the ledger's hash
  chain, the snapshot's hash).
- A report: its data, so; then its page is drawn again from that data and compared byte for byte
  (report/page_check.py), naming the part of the page, the entity or the fact that differs.
- A site: its snapshot.json, so; then every file is written again from that data and compared byte
  for byte (site/check.py), naming the first file that differs; what the folder holds besides the
  site (a CNAME, a `.git`) is named, not checked.

A bundle drawn by another memlens version is checked as far as its data (a site's files against
its manifest), and the result says so. It proves integrity, not authorship: anyone can write a
bundle that verifies.
"""
from __future__ import annotations

from os import PathLike
from pathlib import Path
from typing import Any

from memlens.store import json_input
from memlens.store.confined import UntrustedFileError, read_inside
from memlens.store.snapshot.seal import check_seal

from .reading import BundleUnreadable, read_bundle, read_report_parts

MANIFEST_LIMIT = 256 << 20   # a manifest lists a file per line: 100,000 entities' site is about 20 MB
PROVES = "integrity, not authorship: a seal is no signature, and anyone can write a bundle that verifies"


def verify_bundle(path: str | PathLike[str]) -> dict[str, Any]:
    """What was checked, counted (and `page`: whether a report's page, or a site's every file, was
    drawn again and compared byte for byte, `unchecked`: why not; a site's `files`, and `not_ours`:
    what its folder holds besides); raises SnapshotAltered naming the first difference."""
    bundle = Path(path)
    if bundle.is_dir():
        from .site.check import check_site

        snapshot = read_bundle(bundle)
        checked = check_seal(snapshot, str(bundle / "snapshot.json"))
        page, checked["files"], checked["not_ours"] = check_site(bundle, snapshot)
    else:
        parts = read_report_parts(bundle)
        checked = check_seal(parts.snapshot, str(bundle))
        if parts.page is None:
            return checked
        from .report.page_check import check_page

        page = check_page(parts.page, str(bundle), parts.blocks, parts.snapshot)
    checked["page"] = page.checked
    if not page.checked:
        what = "the site's files were checked against its manifest only" if bundle.is_dir() else \
            "the page around the data was not checked"
        checked["unchecked"] = f"{what}: {page.why}"
    return checked


def read_manifest(site: Path) -> dict[str, Any]:
    """A site's manifest.json, which lists its files and their sha256."""
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
