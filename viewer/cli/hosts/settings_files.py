"""Finding, reading and writing a host's settings file without being led astray.

- The user's own files (under the home folder) may be links: dotfiles kept in a repository. Such a
  link is the user's, so the file is edited where it points and the link stays a link.
- A project's files arrive with the working tree, which a teammate's commit can change: a link
  there that leads out of the project (to the user's own settings, with their secrets, or to any
  file they can write) is refused, so nothing is copied out of or written through it.
- Whatever the file is, only a regular file of bounded size is read: a FIFO, a device (a link to
  /dev/zero) or a folder is one `Error:` line, without waiting on it.
- memlens remembers which files and folders it created (in $MEMLENS_HOME/hosts.json), so that an
  uninstall that leaves one as it was made removes it, and leaves alone one the user had.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from memlens.store import datasets
from memlens.store.confined import UntrustedFileError, read_regular_file
from memlens.store.errors import InvalidInput
from memlens.viewer.atomic import atomic_write

# A settings file is a few kilobytes; Claude Code's own state file can reach megabytes.
SETTINGS_LIMIT = 16 << 20


def locate(path: Path, project: Path | None) -> Path:
    """Where the file named `path` really is. In a `project` (None: the user's own files), a
    link, or a link in a folder above it, that leads out of the project is refused."""
    real = Path(os.path.realpath(path))
    if project is not None:
        root = Path(os.path.realpath(project))
        if real != root and root not in real.parents:
            raise UntrustedFileError(f"{path} leads out of the project (to {real}) through a link; memlens does "
                                     "not read or write a project's settings there: remove the link, or use --user")
    if path.is_symlink() and not real.exists():
        raise InvalidInput(f"{path} is a link to {real}, which does not exist; fix the link first")
    for folder in real.parents:   # found now, before any file of the install is written
        if os.path.lexists(folder) and not folder.is_dir():
            raise InvalidInput(f"{real} cannot be written: {folder} is a file, not a folder")
    return real


def read_text(real: Path, shown: Path) -> str | None:
    """The text of the settings file at `real` (None if there is none), read as a regular file of
    at most SETTINGS_LIMIT bytes."""
    if not os.path.lexists(real):
        return None
    try:
        data = read_regular_file(real, SETTINGS_LIMIT)
    except UntrustedFileError as error:
        raise UntrustedFileError(f"{shown}: {error}") from None
    except OSError as error:
        raise InvalidInput(f"{shown} cannot be read: {error.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"{shown} is not UTF-8 text; fix it first") from None


def write_text(real: Path, text: str) -> None:
    """Replace (or create) the file at `real` in one rename, noting the folders and the file
    memlens made."""
    made = [folder for folder in [*reversed(real.parents)] if not os.path.lexists(folder)]
    new = not os.path.lexists(real)
    try:
        atomic_write(real, text)
    except OSError as error:   # a file where a folder should be, a read-only folder
        raise InvalidInput(f"{real} cannot be written: {error.strerror or error}") from None
    if new:
        _note_created([*made, real])


def remove_created(real: Path) -> None:
    """Remove the file at `real` and the folders memlens made for it, if they are empty now."""
    created = _created()
    if str(real) not in created:
        return
    real.unlink(missing_ok=True)
    gone = [real]
    for folder in real.parents:
        if str(folder) not in created:
            break
        try:
            folder.rmdir()
        except OSError:   # not empty: something else lives there now
            break
        gone.append(folder)
    _forget_created(gone)


def created_by_memlens(real: Path) -> bool:
    return str(real) in _created()


def _record_path() -> Path:
    return datasets.home() / "hosts.json"


def _created() -> set[str]:
    record = _record_path()
    if not record.exists():
        return set()
    try:
        data = json.loads(read_regular_file(record, SETTINGS_LIMIT))
    except (ValueError, OSError, UntrustedFileError):
        raise InvalidInput(f"{record} is damaged; delete it (memlens then keeps the files it created)") from None
    created = data.get("created") if isinstance(data, dict) else None
    return {entry for entry in created if isinstance(entry, str)} if isinstance(created, list) else set()


def _save(created: set[str]) -> None:
    atomic_write(_record_path(), json.dumps({"created": sorted(created)}, indent=2) + "\n")


def _note_created(paths: list[Path]) -> None:
    _save(_created() | {str(path) for path in paths})


def _forget_created(paths: list[Path]) -> None:
    _save(_created() - {str(path) for path in paths})
