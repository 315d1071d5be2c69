"""Evidence that points into the repository, checked against it: is the cited file gone, or does
git say the cited lines changed after the fact was recorded?

A citation is `repo://path`, `repo://path#L12-30` (or `#L12-L30`, `#L12`), or a plain relative path
(`src/auth.py`, `docs/notes.md#L3`); anything else (a URL, "user said ...") is no citation. Paths
come from what agents wrote, so they are confined: relative, no `..`, never followed through a link.

Read-only, offline and bounded: git's own log and blame, run as subprocesses with a timeout.
One `git log` since the oldest fact cited names every file changed since; only files changed after
a fact citing them was recorded are blamed, on the cited lines alone, a few at a time; past the
time allowed, the rest is left unchecked and the note says so. Outside a git work tree, or without
git, nothing is checked and the note says why.
"""
from __future__ import annotations

import os
import re
import subprocess
import time
from collections import defaultdict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

_REPO = re.compile(r"^repo://(?P<path>[^\s#]+)(?:#L(?P<start>\d{1,7})(?:-L?(?P<end>\d{1,7}))?)?(?:\s|$)")
_PLAIN = re.compile(r"^(?P<path>[^\s#:]+)(?:#L(?P<start>\d{1,7})(?:-L?(?P<end>\d{1,7}))?)?$")
# A plain word is a path only if it has a folder or a file extension of letters (`README.md`, not `v1.2`).
_LOOKS_LIKE_A_FILE = re.compile(r"/|\.[A-Za-z][A-Za-z0-9]{1,9}$")
GIT_TIMEOUT = 20.0       # seconds for one git command
TIME_ALLOWED = 30.0      # seconds for the whole check; past it, what is left is not checked
BLAMES_AT_ONCE = 4


@dataclass(frozen=True)
class Citation:
    text: str                       # as the evidence says it
    path: str                       # relative to the repository's root, with / between folders
    lines: tuple[int, int] | None   # first and last line cited, or the whole file


@dataclass(frozen=True)
class Cited:
    """A current fact's citations: what `check` is given for each fact."""

    fact_id: str
    recorded_at: str                # when the store first believed it (a record time)
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Stale:
    fact_id: str
    citation: str
    why: str                        # "is gone", or "changed in 1a2b3c4d on 2026-03-02 after it was recorded"


@dataclass(frozen=True)
class EvidenceCheck:
    stale: tuple[Stale, ...]
    note: str | None = None         # why nothing (or not everything) was checked


def citation(text: str) -> Citation | None:
    """The repository file (and lines) an evidence string cites, or None."""
    found = _REPO.match(text.strip())
    if found is None:
        found = _PLAIN.match(text.strip())
        if found is None or "://" in text or not _LOOKS_LIKE_A_FILE.search(found["path"]):
            return None
    path = PurePosixPath(found["path"])
    if path.is_absolute() or any(part in ("..", "") for part in path.parts) or "\\" in found["path"] \
            or found["path"].startswith("~"):
        return None
    lines = None
    if found["start"]:
        start = int(found["start"])
        end = int(found["end"] or start)
        if not 0 < start <= end:
            return None
        lines = (start, end)
    return Citation(text.strip(), path.as_posix(), lines)


def check(facts: Iterable[Cited], directory: Path, *, time_allowed: float = TIME_ALLOWED) -> EvidenceCheck:
    """The citations of `facts` that no longer hold in the git work tree holding `directory`."""
    deadline = time.monotonic() + time_allowed
    cited = [(fact, found) for fact in facts for text in fact.evidence if (found := citation(text))]
    if not cited:
        return EvidenceCheck(())
    try:
        root = Path(_git(directory, "rev-parse", "--show-toplevel").strip())
    except FileNotFoundError:
        return EvidenceCheck((), "evidence not checked against the repository: git is not on PATH")
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError):
        return EvidenceCheck((), f"evidence not checked against the repository: {directory} is not in a git work tree")
    stale: dict[tuple[str, str], Stale] = {}
    present = []
    for fact, found in cited:
        if os.path.lexists(root / found.path):   # a link is there: it is never followed
            present.append((fact, found))
        else:
            stale[fact.fact_id, found.text] = Stale(fact.fact_id, found.text, "is gone")
    if not present:
        return EvidenceCheck(tuple(stale.values()))
    oldest = min(_epoch(fact.recorded_at) for fact, _ in present)
    try:
        changed = _changed_since(root, oldest)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
        return EvidenceCheck(tuple(stale.values()), f"evidence not checked against the repository: git log failed ({exc})")
    to_blame = []
    for fact, found in present:
        change = changed.get(found.path)
        if change is None or change[1] <= _epoch(fact.recorded_at):
            continue
        if found.lines is None:
            stale[fact.fact_id, found.text] = Stale(fact.fact_id, found.text, _changed(change))
        else:
            to_blame.append((fact, found))
    note = _blame_all(root, to_blame, stale, deadline)
    return EvidenceCheck(tuple(sorted(stale.values(), key=lambda s: (s.fact_id, s.citation))), note)


def _git(directory: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(directory), *args], capture_output=True, text=True, check=True,
                          timeout=GIT_TIMEOUT, encoding="utf-8", errors="replace").stdout


def _epoch(record_time: str) -> float:
    return datetime.fromisoformat(record_time.replace("Z", "+00:00")).timestamp()


# A change to a file: (commit, committer time); a commit of None is an edit not committed yet.
Change = tuple[str | None, float]


def _changed_since(root: Path, since: float) -> dict[str, Change]:
    """Every file changed since `since` (its newest change), by one git log and one git status."""
    changed: dict[str, Change] = {}
    log = _git(root, "log", f"--since=@{int(since) - 1}", "--no-renames", "--name-only", "-z",
               "--format=%x01%H %ct")
    for entry in log.split("\x01")[1:]:      # "\x01<commit> <time>\0\n<name>\0<name>\0..."
        head, *names = entry.split("\x00")
        commit, _, at = head.partition(" ")
        for name in names:
            name = name.lstrip("\n")
            if name and name not in changed:    # newest first: the first seen is the last change
                changed[name] = (commit, float(at))
    status = _git(root, "status", "--porcelain=v1", "-z", "--untracked-files=no", "--no-renames")
    for entry in status.split("\x00"):
        if len(entry) > 3 and entry[:2].strip():
            changed[entry[3:]] = (None, time.time())
    return changed


def _changed(change: Change) -> str:
    commit, at = change
    if commit is None:
        return "changed after it was recorded (not committed yet)"
    day = datetime.fromtimestamp(at, timezone.utc).date().isoformat()
    return f"changed after it was recorded (commit {commit[:8]}, {day})"


def _blame_all(root: Path, cited: list[tuple[Cited, Citation]], stale: dict, deadline: float) -> str | None:
    """Blame the cited lines of the files changed since; None, or what the time allowed left out."""
    by_lines: dict[tuple[str, tuple[int, int]], list[tuple[Cited, Citation]]] = defaultdict(list)
    for fact, found in cited:
        by_lines[found.path, found.lines].append((fact, found))   # type: ignore[index]
    left = 0
    with ThreadPoolExecutor(BLAMES_AT_ONCE) as pool:
        futures = {job: pool.submit(_blame, root, *job, deadline) for job in sorted(by_lines)}
        for job, future in futures.items():
            changes = future.result()
            if changes is None:
                left += 1
                continue
            for fact, found in by_lines[job]:
                later = [change for change in changes if change[1] > _epoch(fact.recorded_at)]
                if later:
                    stale[fact.fact_id, found.text] = Stale(fact.fact_id, found.text,
                                                            _changed(max(later, key=lambda c: c[1])))
    if left:
        return f"evidence not checked: the cited lines of {left:,} files, past the time allowed"
    return None


def _blame(root: Path, path: str, lines: tuple[int, int], deadline: float) -> list[Change] | None:
    """The changes that made the cited lines as they are now (a range past the file's end: the file
    was cut since, a change after any recording); None if no time was left."""
    if time.monotonic() > deadline:
        return None
    try:
        out = _git(root, "blame", "--porcelain", "-L", f"{lines[0]},{lines[1]}", "--", path)
    except subprocess.CalledProcessError:
        return [(None, time.time())]
    except (subprocess.TimeoutExpired, OSError):
        return None
    changes, commit = [], None
    for line in out.splitlines():
        word = line.split(" ", 1)[0]
        if len(word) == 40 and all(c in "0123456789abcdef" for c in word):
            commit = None if set(word) == {"0"} else word
            if commit is None:
                changes.append((None, time.time()))
        elif word == "committer-time" and commit is not None:
            changes.append((commit, float(line.split(" ", 1)[1])))
    return changes
