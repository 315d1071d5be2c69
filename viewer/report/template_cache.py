"""Compiled templates kept between runs, so a command does not compile them again each time.

Compiling the 24 templates takes 0.12 s of CPU in every process that renders a page (a tenth of an
export at 10,000 entities); loading them from this cache takes 6 ms. Jinja keys each file by the
template's name and checks its source's checksum, so an edited template is compiled again.

The cache holds code that Jinja loads and runs (and a pickled checksum), so it lives in a directory
only this user can write: `$XDG_CACHE_HOME/memlens/templates` (`~/.cache/...`). Where that cannot
be made so, or a file in it cannot be read or written, pages are compiled as before: the cache
never fails a command.
"""
from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Any

import jinja2
from jinja2.bccache import Bucket


def cache_directory() -> Path:
    given = os.environ.get("XDG_CACHE_HOME", "")
    # the XDG spec: a relative path there is invalid and ignored (it would follow the working directory)
    base = Path(given) if os.path.isabs(given) else Path.home() / ".cache"
    return base / "memlens" / "templates"


def bytecode_cache(options: dict[str, Any]) -> jinja2.BytecodeCache | None:
    """A cache for an environment made with `options`, or None where none can be kept safely."""
    directory = cache_directory()
    try:
        directory.mkdir(mode=stat.S_IRWXU, parents=True, exist_ok=True)
        if not _private(directory):
            return None
    except (OSError, RuntimeError):   # RuntimeError: no home directory to find
        return None
    # Code compiled under other options (autoescaping, newlines) or by another Jinja differs for the
    # same source: such a cache's files get other names.
    described = repr(sorted((name, repr(value)) for name, value in options.items())) + jinja2.__version__
    return _QuietCache(str(directory), f"{hashlib.sha256(described.encode()).hexdigest()[:16]}-%s.cache")


def _private(directory: Path) -> bool:
    """A directory (not a link) of this user's that nobody else can write to."""
    status = directory.lstat()
    return (stat.S_ISDIR(status.st_mode) and status.st_uid == os.getuid()
            and not status.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


class _QuietCache(jinja2.FileSystemBytecodeCache):
    """A file that cannot be read or written is a miss, never an error."""

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:   # a truncated or foreign file: compile the template instead
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:   # a full disk or a read-only home: this run compiled it, the next one will too
            pass
