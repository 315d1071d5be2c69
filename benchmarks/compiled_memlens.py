"""Compiled memlens, as an installed one runs: what the benchmarks time is memlens, not Python
compiling it.

pip compiles a package it installs, and an editable install writes its bytecode the first time it
runs, unless PYTHONDONTWRITEBYTECODE is set, as it is on some machines (this one among them).
Then every module changed since its bytecode was written is compiled again at every start: eight
such modules added 30-40 ms to each 10,000-entity export measured here, and a fresh checkout
compiles them all. So every benchmark that times memlens compiles it first.
"""
from __future__ import annotations

import compileall
import importlib


def compile_memlens() -> None:
    """Write current bytecode for every memlens package (compileall writes it whatever the
    environment says)."""
    for name in ("memlens.store", "memlens.viewer"):
        for folder in importlib.import_module(name).__path__:
            compileall.compile_dir(folder, quiet=1)
