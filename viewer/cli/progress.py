"""Progress on stderr for work that takes more than a second, at a terminal only.

Nothing is printed when stderr is not a terminal, with --json, or when the work ends within a
second: scripts and quick commands see exactly the output they would without it.
"""
from __future__ import annotations

import sys
import threading
import time
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
        # A long stage (reading a large store) would otherwise show nothing until it ends.
        self._ticker = threading.Thread(target=self._tick, daemon=True) if self.enabled else None

    def stage(self, label: str) -> None:
        self.label = label
        self._draw()

    def advance(self, steps: int = 1) -> None:
        self.done = min(self.total, self.done + steps)
        self._draw()

    def _tick(self) -> None:
        while not self._stop.wait(0.25):
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

    def close(self) -> None:
        """Erase the bar, so what follows starts on a clean line."""
        self._stop.set()
        if self._ticker is not None and self._ticker.is_alive():
            self._ticker.join()
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()

    def __enter__(self) -> "Progress":
        if self._ticker is not None:
            self._ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
