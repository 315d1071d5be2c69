"""The coding agents' hosts memlens wires itself into (`memlens hooks install --host ...`)."""
from __future__ import annotations

from . import claude_code, codex, cursor, gemini
from .host import Host

HOSTS: dict[str, Host] = {host.name: host for host in (claude_code.HOST, codex.HOST, gemini.HOST, cursor.HOST)}
