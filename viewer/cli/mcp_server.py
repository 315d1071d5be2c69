"""The MCP server of `memlens mcp`: one dataset's tools over stdio, on the official SDK.

Every failure of a call becomes a tool error carrying the line the CLI would print
(`Error: ...`), and the server goes on serving. Writes are recorded in the ledger as
`mcp:<the client's name from initialize>`.
"""
from __future__ import annotations

import inspect
import io
import json
import logging
import os
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import (INVALID_REQUEST, PARSE_ERROR, CallToolResult, ErrorData, JSONRPCError, TextContent,
                       ToolAnnotations)
from pydantic import ValidationError

from memlens.store.datasets import flag_for
from memlens.store.version import VERSION

from ..model.printed_commands import with_flag
from .app import error_line, is_a_bug
from .mcp_tools import MemoryTools, offer_brief

logger = logging.getLogger(__name__)

INSTRUCTIONS = """\
memlens is this project's long-term memory: a graph of entities and facts (subject --relation--> object)
with history. Recall before you answer questions about the project or remember something new;
remember what is worth keeping, with evidence; correct with supersede, retract or contest rather
than by saying the opposite; forget only when asked to. Facts are referred to by id (or its first
8 characters), entities by name. Answers are compact JSON; lists come as {"total", "items"} and
pages continue with next_cursor. A failed call answers `Error: ...` and changes nothing."""


def actor_of(context: Context | None) -> str:
    """`mcp:<client name>`, from the client's initialize request; `mcp:unknown` without one."""
    try:
        params = context.session.client_params if context is not None else None
    except ValueError:  # a context outside a request
        params = None
    name = " ".join((params.client_info.name if params is not None else "").split())[:100]
    return f"mcp:{name}" if name else "mcp:unknown"


def failure(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=f"Error: {message}")], is_error=True)


def _validation_line(tool: str, exc: ValidationError) -> str:
    problems = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"])
        problems.append(f"{where}: {error['msg']}" if where else error["msg"])
    return f"{tool}: " + "; ".join(problems)


class MemlensServer(MCPServer):
    """An MCP server bound to the dataset of `tools`; it knows no other."""

    def __init__(self, tools: MemoryTools) -> None:
        super().__init__(name="memlens", version=VERSION, instructions=INSTRUCTIONS,
                         log_level="WARNING")
        self.memory_tools = tools
        self.parameters: dict[str, list[str]] = {}
        for tool in tools.tools():
            name = tool.__name__
            self.add_tool(tool, description=inspect.getdoc(tool), structured_output=False, annotations=ToolAnnotations(
                read_only_hint=name in tools.READ_ONLY,
                destructive_hint=name in tools.ERASING,
                open_world_hint=False,
            ))
            self.parameters[name] = list(inspect.signature(tool).parameters)
        offer_brief(self, tools)

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> Any:
        known = self.parameters.get(name)
        if known is None:
            return failure(f"no tool named {name!r}; the tools are {', '.join(self.parameters)}")
        unknown = sorted(set(arguments) - set(known))
        if unknown:
            return failure(f"{name} takes no argument {', '.join(map(repr, unknown))}; "
                           f"its arguments are {', '.join(known) or 'none'}")
        self.memory_tools.actor = actor_of(context)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                return failure(_validation_line(name, cause))
            if isinstance(cause, Exception):
                if is_a_bug(cause) and os.environ.get("MEMLENS_DEBUG"):
                    logger.error("tool %s failed", name, exc_info=cause)
                return failure(with_flag(error_line(cause), flag_for(self.memory_tools.path)))
            return failure(re.sub(r"\s+", " ", str(exc)))

    async def run_stdio_async(self) -> None:
        """The SDK's stdio transport, with an answer to every malformed request that has an id
        (the SDK drops them, and the client waits forever): a line that is no JSON-RPC message
        reaches the server as an exception, which is answered here instead; a request whose id the
        SDK cannot take (true, 1.5, an object, null), which it would read as a notification, and a
        batch (MCP sends one message a line) are answered before the SDK reads them."""
        screened_replies, replies = anyio.create_memory_object_stream[JSONRPCError](64)
        lines = _ScreenedLines(_wire_input(), screened_replies)
        async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
            sender, receiver = anyio.create_memory_object_stream[SessionMessage](0)

            async def relay() -> None:
                async with sender:
                    async for item in read_stream:
                        if not isinstance(item, Exception):
                            await sender.send(item)
                        elif (reply := malformed_reply(item)) is not None:
                            await write_stream.send(SessionMessage(reply))

            async def answer_screened() -> None:
                async with replies:
                    async for reply in replies:
                        await write_stream.send(SessionMessage(reply))

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(relay)
                tasks.start_soon(answer_screened)
                # the SDK's own run_stdio_async does the same with its server (pinned: mcp<3)
                lowlevel = self._lowlevel_server
                await lowlevel.run(receiver, write_stream, lowlevel.create_initialization_options())


def _wire_input() -> anyio.AsyncFile[str]:
    """The client's messages, read from a descriptor of our own, with descriptor 0 pointed at the
    null device as the SDK's transport points it, so nothing the tools run reads the wire."""
    try:
        wire = os.fdopen(os.dup(0), "rb", closefd=True)
        with open(os.devnull, "rb") as nothing:
            os.dup2(nothing.fileno(), 0)
    except OSError:   # no descriptors to spare: the wire is read where it is
        wire = sys.stdin.buffer
    return anyio.wrap_file(io.TextIOWrapper(wire, encoding="utf-8", errors="replace"))


class _ScreenedLines:
    """The wire's lines, less those the SDK would read wrongly (`unreadable_request`), whose
    answers go to `replies` instead."""

    def __init__(self, lines: anyio.AsyncFile[str], replies: MemoryObjectSendStream[JSONRPCError]) -> None:
        self.lines, self.replies = lines, replies

    async def __aiter__(self) -> AsyncIterator[str]:
        async with self.replies:
            async for line in self.lines:
                reply = unreadable_request(line)
                if reply is None:
                    yield line
                else:
                    await self.replies.send(reply)


def unreadable_request(line: str) -> JSONRPCError | None:
    """The error answering a line the SDK would not answer though it asks for an answer: a request
    whose id is not a string or an integer (read as a notification, never answered), or a batch;
    None for every other line, which the SDK reads (and answers, or refuses: malformed_reply)."""
    if "id" not in line and "\\u" not in line and not line.lstrip().startswith("["):
        return None   # no id, even escaped: a notification, or no JSON
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None   # the SDK answers a parse error
    if isinstance(message, list):
        return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(
            code=INVALID_REQUEST, message="Invalid request: a batch; MCP sends one message a line"))
    if not (isinstance(message, dict) and "method" in message and "id" in message):
        return None
    request_id = message["id"]
    if isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool)):
        return None
    shown = json.dumps(request_id)
    return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=INVALID_REQUEST, message=(
        f"Invalid request: its id {shown if len(shown) <= 40 else shown[:37] + '...'} is not a string or an "
        "integer")))


def malformed_reply(error: Exception) -> JSONRPCError | None:
    """The JSON-RPC error for a line that is not a message: a parse error (id null) for text that
    is not JSON, an invalid request for an object with a request id; None for anything else (a
    notification or a response is never answered)."""
    if not isinstance(error, ValidationError):
        return None
    problems = error.errors()
    if any(problem["type"] == "json_invalid" for problem in problems):
        return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message="Parse error"))
    for problem in problems:
        message = problem.get("input")
        if isinstance(message, dict) and "result" not in message and "error" not in message:
            request_id = message.get("id")
            if isinstance(request_id, (int, str)) and not isinstance(request_id, bool):
                return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(
                    code=INVALID_REQUEST, message="Invalid request: " + _request_problem(problems)))
    return None


def _request_problem(problems: list[Any]) -> str:
    """What is wrong with a message read as a request (pydantic tries every kind of message)."""
    for problem in problems:
        where = problem["loc"]
        if where and where[0] == "JSONRPCRequest":
            return f"{'.'.join(map(str, where[1:])) or 'message'}: {problem['msg']}"
    return "not a JSON-RPC 2.0 request"


def serve(path: Path) -> None:
    """Serve the dataset at `path` over stdin and stdout until the client closes them."""
    tools = MemoryTools(path)
    try:
        MemlensServer(tools).run("stdio")
    except* (BrokenPipeError, ConnectionResetError):
        pass   # the client went away without closing our input: the session is over, nothing to say
    finally:
        tools.close()
