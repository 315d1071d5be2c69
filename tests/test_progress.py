"""Progress bars: on a terminal, after a second; never in pipes or JSON output."""
from __future__ import annotations

import io
import time

from memlens.viewer.cli.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_bar_appears_on_a_terminal_once_work_takes_more_than_a_second_and_is_erased_after():
    terminal, clock = Terminal(), Clock()
    progress = Progress(4, stream=terminal, clock=clock)  # not entered: no ticker, advance() alone draws
    progress.stage("reading")
    progress.advance()
    assert terminal.getvalue() == ""  # quick work shows nothing
    clock.now = 1.5
    progress.advance()
    assert terminal.getvalue() == f"\r[{'#' * 14}{'.' * 14}]  50% reading\033[K"
    progress.close()
    assert terminal.getvalue().endswith("\r\033[K")


def test_the_ticker_redraws_a_long_stage_without_any_advance():
    terminal, clock = Terminal(), Clock()
    with Progress(4, stream=terminal, clock=clock) as progress:
        progress.stage("reading the store")
        assert terminal.getvalue() == ""
        clock.now = 2.0
        for _ in range(40):  # the ticker draws every quarter second
            if terminal.getvalue():
                break
            time.sleep(0.05)
        assert "0% reading the store" in terminal.getvalue()


def test_nothing_is_written_to_a_pipe_or_with_json():
    pipe, clock = io.StringIO(), Clock()
    with Progress(2, stream=pipe, clock=clock) as progress:
        clock.now = 5
        progress.advance()
    assert pipe.getvalue() == ""
    terminal = Terminal()
    with Progress(2, stream=terminal, clock=clock, enabled=False) as progress:
        clock.now = 10
        progress.advance()
    assert terminal.getvalue() == ""
    with Progress(2, stream=terminal, clock=Clock()) as shown:
        shown.clock.now = 2  # type: ignore[attr-defined]
        shown.advance()
    assert "50%" in terminal.getvalue()


def test_the_cli_prints_no_bar_when_its_output_is_captured(cli):
    result = cli("remember", "a:Person --knows--> b:Person", "--json")
    assert result.exit_code == 0
    assert "[" not in result.stderr and "%" not in result.stderr
    assert result.stdout.startswith("[")
