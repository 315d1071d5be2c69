"""`memlens hooks status`: whether what a host's files name actually works. The MCP server is
started as the host would start it and asked for its tools; the memlens a hook names is run."""
from __future__ import annotations

import json
import queue
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from memlens.store import datasets

from .commands import is_memlens_path, split_line
from .pieces import Found

CHECK_TIMEOUT = 60   # seconds for one check; a cold `memlens mcp` starts in about one, more on a busy machine
_HANDSHAKE = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "memlens-hooks-status", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def check(found: Found, folder: Path, dialect: str) -> tuple[bool, str]:
    """(works, what was seen) for an installed piece."""
    entry = found.value
    if isinstance(entry, dict) and "args" in entry and "command" in entry:
        return server_lists_tools(entry, folder)
    memlens = _memlens_of(entry, dialect)
    if memlens is None:
        return False, "names no memlens command memlens can check"
    if "brief" in found.piece.label:
        if not datasets.resolve(None, None).exists():
            return True, f"no memory in {Path.cwd()} yet: the brief gives nothing, quietly ({memlens})"
        # the brief as the hook gives it, but not recorded as given to a session
        return _runs([memlens, "brief"], Path.cwd(), "the brief")
    return _runs([memlens, "--version"], folder, "memlens")


def server_lists_tools(entry: dict[str, Any], folder: Path) -> tuple[bool, str]:
    """Start the server as a host would and ask for its tools. Its input stays open until it has
    answered: a server may drop what it was still doing when its input ends."""
    command, args = entry.get("command"), entry.get("args", [])
    if not isinstance(command, str) or not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return False, "its command is not a program and a list of arguments"
    with tempfile.TemporaryFile() as errors:
        try:
            process = subprocess.Popen([command, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=errors, cwd=folder, text=True, encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return False, f"{command} does not exist"
        except OSError as error:
            return False, f"{command} did not start ({error})"
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=_read_lines, args=(process.stdout, lines), daemon=True).start()
        try:
            process.stdin.write("".join(json.dumps(message) + "\n" for message in _HANDSHAKE))
            process.stdin.flush()
            tools = _tools_answer(lines, time.monotonic() + CHECK_TIMEOUT)
        except OSError:   # it ended before it read what it was sent
            tools = None
        finally:
            _stop(process)
        errors.seek(0)
        said = _last_line(errors.read().decode("utf-8", "replace"))
    if tools is None:
        return False, said or f"started but listed no tools (exit status {process.returncode})"
    return True, f"starts and lists {len(tools)} tools"


def _read_lines(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _tools_answer(lines: queue.Queue, deadline: float) -> list | None:
    """The tools in the answer to request 2, or None if the server ended or ran out of time first."""
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            return None
        if line is None:
            return None
        try:
            answer = json.loads(line)
        except ValueError:
            continue
        if isinstance(answer, dict) and answer.get("id") == 2 and isinstance(answer.get("result"), dict):
            tools = answer["result"].get("tools")
            return tools if isinstance(tools, list) else []
    return None


def _stop(process: subprocess.Popen) -> None:
    try:
        process.stdin.close()
    except OSError:
        pass
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _memlens_of(entry: Any, dialect: str) -> str | None:
    hooks = entry.get("hooks") if isinstance(entry, dict) else None
    handler = hooks[0] if isinstance(hooks, list) and hooks and isinstance(hooks[0], dict) else entry
    line = handler.get("command") if isinstance(handler, dict) else None
    # the first command of a line that runs two (the mcp-memory import, then its report)
    words = split_line(line.split(" && ")[0], dialect) if isinstance(line, str) else None
    return words[0] if words and is_memlens_path(words[0]) else None


def _runs(argv: list[str], folder: Path, what: str) -> tuple[bool, str]:
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=folder,
                              timeout=CHECK_TIMEOUT)
    except FileNotFoundError:
        return False, f"{argv[0]} does not exist"
    except (OSError, subprocess.TimeoutExpired) as error:
        return False, f"{argv[0]} did not run ({error})"
    if done.returncode != 0:
        return False, f"{what} fails: {_last_line(done.stderr) or f'exit status {done.returncode}'}"
    return True, f"{what} runs ({argv[0]})"


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""
