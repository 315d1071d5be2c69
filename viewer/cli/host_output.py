"""What each agent host reads from a session-start hook's standard output: one home for the forms.

- Claude Code reads `hookSpecificOutput.additionalContext` from a SessionStart hook's JSON and adds it
  to the session's context (up to 10,000 characters; memlens briefs stay under 9,000).
- Codex CLI reads the same JSON (its SessionStart output schema is Claude Code's).
- Gemini CLI reads `hookSpecificOutput.additionalContext` too: the first turn of an interactive
  session, or put before the prompt of a non-interactive one.
- Cursor reads `additional_context` from its `sessionStart` hook's JSON.
"""
from __future__ import annotations

import json

HOSTS = ("claude-code", "codex", "gemini", "cursor")


def session_start_output(host: str, text: str) -> str:
    """The standard output of a session-start hook that gives `text` to `host` ("" gives nothing)."""
    if host not in HOSTS:
        raise ValueError(f"no session-start output for host {host!r}")
    if not text:
        return ""
    if host == "cursor":
        shape = {"additional_context": text}
    else:
        shape = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    return json.dumps(shape, ensure_ascii=True)   # what any host reads, whatever the encoding of its pipe
