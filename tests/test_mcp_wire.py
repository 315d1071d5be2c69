"""`memlens mcp` on the wire, as a careless or broken client drives it: every request with an id
gets an answer (a JSON-RPC error where it is malformed), and a client that goes away ends the
server quietly."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memlens.store.memory import Memory
from memlens.store.triples import FactInput

pytestmark = pytest.mark.slow

MEMLENS = str(Path(sys.executable).parent / "memlens")
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "wire-test", "version": "1"}}}


class Wire:
    def __init__(self, store: Path, home: Path) -> None:
        env = dict(os.environ, MEMLENS_HOME=str(home))
        self.process = subprocess.Popen([MEMLENS, "mcp", "--db", str(store)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.process.stdout, selectors.EVENT_READ)

    def send(self, message: dict | str) -> None:
        line = message if isinstance(message, str) else json.dumps(message)
        self.process.stdin.write(line.encode("utf-8") + b"\n")
        self.process.stdin.flush()

    def receive(self, timeout: float = 60) -> dict:
        assert self.selector.select(timeout), "no answer"
        return json.loads(self.process.stdout.readline())

    def open(self) -> "Wire":
        self.send(INITIALIZE)
        assert self.receive()["result"]["serverInfo"]["name"] == "memlens"
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return self

    def end(self) -> tuple[int, str]:
        self.process.stdin.close()
        code = self.process.wait(60)
        return code, self.process.stderr.read().decode("utf-8", "replace")


@pytest.fixture
def store(tmp_path) -> Path:
    path = tmp_path / "wire.sqlite"
    with Memory(path, actor="test:pytest") as memory:
        memory.remember([FactInput("alice", "works_at", "acme", "Person", "Organization", evidence=("said",))])
    return path


MALFORMED = [
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": [1, 2]},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": "x"},
    {"jsonrpc": "2.0", "id": 4, "method": 5},
    {"jsonrpc": "2.0", "id": 5},
    {"id": 6, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": "seven", "method": ["tools/list"]},
]


@pytest.mark.parametrize("request_", MALFORMED, ids=[str(m["id"]) for m in MALFORMED])
def test_a_malformed_request_with_an_id_gets_an_error_and_the_server_serves_on(store, tmp_path, request_):
    wire = Wire(store, tmp_path / "home").open()
    wire.send(request_)
    answer = wire.receive()
    assert answer["id"] == request_["id"] and answer["error"]["code"] == -32600, answer
    wire.send({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "stats", "arguments": {}}})
    answer = wire.receive()
    assert answer["id"] == 99 and json.loads(answer["result"]["content"][0]["text"])["facts"] == 1
    assert wire.end() == (0, "")


def test_text_that_is_not_json_gets_a_parse_error_and_a_bad_notification_no_answer(store, tmp_path):
    wire = Wire(store, tmp_path / "home").open()
    wire.send("{not json")
    assert wire.receive() == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
    wire.send({"jsonrpc": "2.0", "method": 5})                  # a malformed notification: no answer
    wire.send({"jsonrpc": "2.0", "id": 1, "result": "nonsense"})  # nor to a response nobody asked for
    wire.send({"jsonrpc": "2.0", "id": 8, "method": "tools/list"})
    assert wire.receive()["id"] == 8                            # the next answer is the next request's
    assert wire.end() == (0, "")


@pytest.mark.parametrize("how", ["both ends closed", "reader gone"])
def test_a_client_that_goes_away_mid_call_ends_the_server_quietly(store, tmp_path, how):
    wire = Wire(store, tmp_path / "home").open()
    wire.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "facts", "arguments": {}}})
    wire.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "view", "arguments": {}}})
    wire.process.stdout.close()
    if how == "reader gone":
        wire.selector.unregister(wire.process.stdout)
        time.sleep(1)
    assert wire.end() == (0, "")


@pytest.mark.parametrize("line, answered_as", [
    ('{"jsonrpc": "2.0", "id": true, "method": "tools/list"}', "its id true is not a string or an integer"),
    ('{"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"}', "its id 1.5 is not a string or an integer"),
    ('{"jsonrpc": "2.0", "id": {}, "method": "tools/list"}', "its id {} is not a string or an integer"),
    ('{"jsonrpc": "2.0", "id": null, "method": "tools/list"}', "its id null is not a string or an integer"),
    ('{"jsonrpc": "2.0", "\\u0069d": false, "method": "tools/list"}', "its id false is not a string or an integer"),
    ('[{"jsonrpc": "2.0", "id": 3, "method": "tools/list"}]', "a batch; MCP sends one message a line"),
    ("[]", "a batch; MCP sends one message a line"),
])
def test_a_request_whose_id_the_sdk_cannot_take_and_a_batch_are_answered(store, tmp_path, line, answered_as):
    wire = Wire(store, tmp_path / "home").open()
    wire.send(line)
    answer = wire.receive()
    assert answer["id"] is None and answer["error"]["code"] == -32600, answer
    assert answered_as in answer["error"]["message"], answer
    wire.send({"jsonrpc": "2.0", "id": "str-id", "method": "tools/list"})   # the positive case: ids it takes
    assert wire.receive()["id"] == "str-id"
    wire.send({"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
    assert wire.receive()["id"] == 7
    assert wire.end() == (0, "")
