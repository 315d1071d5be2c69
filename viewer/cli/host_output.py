"""What each agent host reads from a session-start hook's standard output: one home for the forms.

Claude Code reads `hookSpecificOutput.additionalContext` from a SessionStart hook's JSON and adds it
to the session's context (up to 10,000 characters; memlens briefs stay under 9,000).
"""
from __future__ import annotations

import json

HOSTS = ("claude-code",)


def session_start_output(host: str, text: str) -> str:
    """The standard output of a session-start hook that gives `text` to `host` ("" gives nothing)."""
    if host == "claude-code":
        if not text:
            return ""
        return json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}},
                          ensure_ascii=True)   # what any host reads, whatever the encoding of its pipe
    raise ValueError(f"no session-start output for host {host!r}")
