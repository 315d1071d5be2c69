"""Progress on stderr for work that takes more than a second, at a terminal only.

Nothing is printed when stderr is not a terminal, with --json, or when the work ends within a
second: scripts and quick commands see exactly the output they would without it.
"""
from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

DELAY_S = 1.0
WIDTH = 28


class Progress:
    """A bar over `total` steps; `advance()` moves it, `stage()` names what is happening now."""

    def __init__(self, total: int, *, enabled: bool = True, stream: TextIO | None = None,
                 clock=time.monotonic) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled and self.stream.isatty()
        self.total = max(total, 1)
        self.done = 0
        self.label = ""
        self.clock = clock
        self.started = clock()
        self.shown = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def stage(self, label: str) -> None:
        self.label = label
        self._draw()

    def advance(self, steps: int = 1) -> None:
        self.done = min(self.total, self.done + steps)
        self._draw()

    def _tick(self) -> None:
        stop = self._stop
        while not stop.wait(0.25):
            self._draw()

    def _draw(self) -> None:
        if not self.enabled or self.clock() - self.started < DELAY_S:
            return
        with self._lock:
            self._write_bar()

    def _write_bar(self) -> None:
        filled = WIDTH * self.done // self.total
        percent = 100 * self.done // self.total
        self.stream.write(f"\r[{'#' * filled}{'.' * (WIDTH - filled)}] {percent:3d}% {self.label}\033[K")
        self.stream.flush()
        self.shown = True

    @contextmanager
    def without_ticker(self) -> Iterator[None]:
        """Work during which this process must have one thread (a site build forks a writer, and
        a fork copies no thread nor any lock one holds); the bar still moves on `advance()`."""
        self._stop_ticker()
        try:
            yield
        finally:
            self._start_ticker()

    def _start_ticker(self) -> None:
        # A long stage (reading a large store) would otherwise show nothing until it ends.
        if self.enabled:
            self._stop = threading.Event()
            self._ticker = threading.Thread(target=self._tick, daemon=True)
            self._ticker.start()

    def _stop_ticker(self) -> None:
        self._stop.set()
        if self._ticker is not None and self._ticker.is_alive():
            self._ticker.join()
        self._ticker = None

    def close(self) -> None:
        """Erase the bar, so what follows starts on a clean line."""
        self._stop_ticker()
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()

    def __enter__(self) -> "Progress":
        self._start_ticker()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
