"""Where datasets live: one SQLite file each, under $MEMLENS_HOME or ~/.memlens."""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from .confined import confined_name
from .errors import InvalidInput

SUFFIX = ".sqlite"


def home() -> Path:
    return Path(os.environ.get("MEMLENS_HOME") or Path.home() / ".memlens")


def project_name(directory: Path | None = None) -> str:
    """The working directory's name plus a short hash of its full path: two clones never collide."""
    directory = (directory or Path.cwd()).resolve()
    digest = hashlib.sha1(str(directory).encode()).hexdigest()[:8]
    base = re.sub(r"[^\w.-]+", "-", directory.name).strip("-") or "root"
    return f"{base}-{digest}"


def path_for(name: str) -> Path:
    if not re.fullmatch(r"[\w.-]+", name) or name.startswith("."):
        raise InvalidInput(f"dataset name {name!r} may hold only letters, digits, '.', '_' and '-'")
    if confined_name(f"{name}{SUFFIX}") is None:   # `con.sqlite` is the console on Windows
        raise InvalidInput(f"dataset name {name!r} is a device's name on Windows (CON, PRN, AUX, NUL, COM1-9, "
                           "LPT1-9); choose another")
    twin = _case_twin(name)
    if twin is not None:
        raise InvalidInput(f"dataset name {name!r} differs from the dataset {twin!r} only in case, and macOS and "
                           f"Windows keep the two in one file; use -d {twin} or another name")
    return home() / f"{name}{SUFFIX}"


def _case_twin(name: str) -> str | None:
    """The name of a dataset that is `name` but for case, where no dataset is `name` itself; else
    None. On a case-insensitive disk (macOS's and Windows' by default) `Billing.sqlite` opens
    `billing.sqlite`: two datasets there would be one, so no system lets the second be made. (Two
    made on Linux before this rule each stay reachable by their own name.)"""
    directory = home()
    if not directory.is_dir():
        return None
    file_name = f"{name}{SUFFIX}"
    names = [entry.name for entry in os.scandir(directory)]
    if file_name in names:
        return None
    return next((name_of(Path(other)) for other in names if other.casefold() == file_name.casefold()), None)


def resolve(db: str | os.PathLike | None = None, name: str | None = None) -> Path:
    """--db PATH wins, then -d NAME, then the project dataset of the working directory."""
    if db is not None and name is not None:
        raise InvalidInput("give --db or -d, not both")
    if db is not None:
        return Path(db).expanduser()
    return path_for(name or project_name())


def name_of(path: Path) -> str:
    return path.name[: -len(SUFFIX)] if path.name.endswith(SUFFIX) else path.stem


def flag_for(path: Path) -> list[str]:
    """The flag that names this store from any folder, as every command memlens prints carries it:
    `-d NAME` for a dataset under $MEMLENS_HOME, else `--db` and its absolute path."""
    resolved = Path(path).expanduser().resolve()
    name = name_of(resolved)
    if (resolved.parent == home().expanduser().resolve() and resolved.name == f"{name}{SUFFIX}"
            and re.fullmatch(r"[\w.-]+", name) and not name.startswith(".")):
        return ["-d", name]
    return ["--db", str(resolved)]


def repository_of(path: Path) -> Path | None:
    """The folder a dataset's evidence points into (`repo://...`): the working directory, when the
    store is its project's dataset (however it was named); else None (`maintain --repo` says it)."""
    try:
        project = path_for(project_name())
    except InvalidInput:
        return None
    return Path.cwd() if Path(path).expanduser().resolve() == project.expanduser().resolve() else None


def report_name(path: Path) -> str:
    """The name a store's default report goes by: a dataset's own name, or for a store elsewhere
    (--db) its file's name and a short hash of where it is, so it never takes a dataset's report."""
    resolved = Path(path).expanduser().resolve()
    name = name_of(resolved)
    if resolved.parent == home().expanduser().resolve():
        return name
    return f"{name}-{hashlib.sha1(str(resolved).encode()).hexdigest()[:8]}"


def listed() -> list[Path]:
    directory = home()
    return sorted(directory.glob(f"*{SUFFIX}")) if directory.is_dir() else []
