"""The `memlens` command line: thin click commands over `memlens.store` and the viewer."""
from __future__ import annotations

from .app import main

__all__ = ["main"]
