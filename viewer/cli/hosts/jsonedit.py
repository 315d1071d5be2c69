"""Editing a host's JSON settings the way a careful person would by hand: the text of everything
memlens does not touch stays as it was, byte for byte (the user's keys, their order, comments
where the host allows them, and numbers as written: `1e400` stays `1e400`, where a load and a
dump would turn it into `Infinity`, which is no longer JSON).

The text is parsed once into nodes that know where they start and end; an edit is a splice of
the text, and the result is parsed again. Insertion and removal are each other's inverse, so an
install followed by an uninstall gives back the bytes that were there.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from memlens.store.errors import InvalidInput

# Nesting a settings file never needs; deeper is refused before Python's own recursion limit.
MAX_DEPTH = 100
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_WHITESPACE = " \t\r\n"


class Number(str):
    """A JSON number kept as its text (a fraction, an exponent or a huge integer never becomes
    a float); an integer that Python holds exactly is given as an int instead."""


@dataclass
class Node:
    start: int
    end: int
    value: Any
    # an object's members as (key, node); an array's elements as (None, node)
    children: list[tuple[str | None, "Node"]] = field(default_factory=list)
    kind: str = "scalar"   # "object", "array" or "scalar"
    lead: int = -1         # where it begins as a child: its member name, else itself

    def member(self, key: str) -> "Node | None":
        found = [node for name, node in self.children if name == key]
        return found[-1] if found else None


class JsonText:
    """A JSON document (with // and /* */ comments where `comments`) and its parse."""

    def __init__(self, text: str, *, name: str, comments: bool = False) -> None:
        self.name, self.comments = name, comments
        self.text = text
        self.newline = "\r\n" if "\r\n" in text else "\n"   # a file from Windows keeps its line ends
        self.root = _Parser(text, name, comments).document()
        if self.root.kind != "object":
            raise InvalidInput(f"{name} does not hold a JSON object; fix it first")

    @property
    def value(self) -> dict[str, Any]:
        return self.root.value

    def find(self, path: tuple[str, ...]) -> Node | None:
        """The node at `path` (member names from the root), None where a part is missing; a part
        that is not an object on the way, or a name given twice, is an error naming it."""
        node = self.root
        for depth, key in enumerate(path):
            if node.kind != "object":
                raise InvalidInput(f"{self.name}: {'.'.join(path[:depth]) or 'the top'} is not an object; fix it first")
            if sum(1 for name, _ in node.children if name == key) > 1:
                raise InvalidInput(f"{self.name}: {'.'.join(path[:depth + 1])} is given twice; fix it first")
            child = node.member(key)
            if child is None:
                return None
            node = child
        return node

    # --- edits: each returns the new text; the caller parses it again -------------------------

    def add(self, container: Node, item: Any, key: str | None = None) -> str:
        """`container` with `item` added last (as member `key` of an object)."""
        unit, outer = self._unit(), self._line_indent(container.start)
        inner = self._item_indent(container, outer + unit)
        close = container.end - 1
        if not container.children:
            interior = self.text[container.start + 1:close]
            if not interior.strip(_WHITESPACE):
                rendered = _render(item, key, inner, unit)
                return self._splice([(container.start + 1, close, self._lines(f"\n{inner}{rendered}\n{outer}"))])
        last = container.children[-1][1] if container.children else None
        if last is not None and "\n" not in self.text[container.start:container.end]:
            return self._splice([(last.end, last.end, ", " + _render(item, key, "", None))])
        at = self._last_newline(last.end if last else container.start + 1, close)
        edits = [(at, at, self._lines(f"\n{inner}{_render(item, key, inner, unit)}"))]
        if last is not None:
            edits.append((last.end, last.end, ","))
        return self._splice(edits)

    def replace(self, node: Node, value: Any) -> str:
        rendered = _render(value, None, self._line_indent(node.start), self._unit())
        return self._splice([(node.start, node.end, self._lines(rendered))])

    def remove(self, container: Node, index: int) -> str:
        """`container` without its child `index`: the inverse of `add`."""
        items = [node for _, node in container.children]
        begin, target = items[index].lead, items[index]
        whole_line = self._starts_line(begin)
        if len(items) == 1:
            if not self._has_comment(container.start + 1, container.end - 1):
                return self._splice([(container.start + 1, container.end - 1, "")])
            return self._splice([(self._break_before(begin) if whole_line else begin, target.end, "")])
        if index == len(items) - 1:
            comma = self._comma_after(items[index - 1].end)
            if whole_line:
                return self._splice([(comma, comma + 1, ""), (self._break_before(begin), target.end, "")])
            return self._splice([(items[index - 1].end, target.end, "")])
        comma = self._comma_after(target.end)
        if whole_line:
            return self._splice([(self._break_before(begin), comma + 1, "")])
        return self._splice([(begin, items[index + 1].lead, "")])

    # --- positions ---------------------------------------------------------------------------

    def _splice(self, edits: list[tuple[int, int, str]]) -> str:
        text = self.text
        # from the end, so earlier positions hold; at one position, the edits listed first end up last
        for start, end, new in sorted(edits, key=lambda edit: edit[0], reverse=True):
            text = text[:start] + new + text[end:]
        return text

    def _line_start(self, position: int) -> int:
        return self.text.rfind("\n", 0, position) + 1

    def _break_before(self, position: int) -> int:
        """Where the line break before the line holding `position` begins."""
        start = self._line_start(position) - 1
        return start - 1 if self.text[start - 1:start] == "\r" else start

    def _lines(self, text: str) -> str:
        return text.replace("\n", self.newline) if self.newline != "\n" else text

    def _line_indent(self, position: int) -> str:
        line = self.text[self._line_start(position):position]
        return line[:len(line) - len(line.lstrip(" \t"))]

    def _starts_line(self, position: int) -> bool:
        return not self.text[self._line_start(position):position].strip(" \t") and self._line_start(position) > 0

    def _item_indent(self, container: Node, default: str) -> str:
        if container.children:
            first = container.children[0][1].lead
            if self._starts_line(first):
                return self._line_indent(first)
        return default

    def _unit(self) -> str:
        """The file's indentation step, from its first member on a line of its own (two spaces else)."""
        if self.root.children:
            first = self.root.children[0][1].lead
            if self._starts_line(first):
                indent = self._line_indent(first)
                if indent:
                    return indent
        return "  "

    def _trivia(self, start: int, end: int) -> list[tuple[int, int, bool]]:
        """The stretches of [start, end) as (from, to, is_comment)."""
        parts, at = [], start
        while at < end:
            if self.text.startswith("//", at):
                stop = self.text.find("\n", at)
                stop = end if stop == -1 or stop > end else stop
                parts.append((at, stop, True))
            elif self.text.startswith("/*", at):
                stop = self.text.index("*/", at) + 2
                parts.append((at, stop, True))
            else:
                stop = at + 1
                parts.append((at, stop, False))
            at = stop
        return parts

    def _has_comment(self, start: int, end: int) -> bool:
        return any(comment for _, _, comment in self._trivia(start, end))

    def _last_newline(self, start: int, end: int) -> int:
        """The last line break outside comments in [start, end), or `end` if there is none."""
        breaks = [a for a, _, comment in self._trivia(start, end) if not comment and self.text[a] == "\n"]
        if not breaks:
            return end
        return breaks[-1] - 1 if self.text[breaks[-1] - 1] == "\r" else breaks[-1]

    def _comma_after(self, position: int) -> int:
        for at, _, comment in self._trivia(position, len(self.text)):
            if not comment and self.text[at] == ",":
                return at
        raise AssertionError("a child that is not last is followed by a comma")


def _render(value: Any, key: str | None, indent: str, unit: str | None) -> str:
    """`value` (as member `key`) written with `unit` steps under `indent`, or on one line."""
    if unit is None:
        text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    else:
        text = json.dumps(value, ensure_ascii=False, indent=unit).replace("\n", "\n" + indent)
    return text if key is None else f"{json.dumps(key, ensure_ascii=False)}: {text}"


class _Parser:
    def __init__(self, text: str, name: str, comments: bool) -> None:
        self.text, self.name, self.comments, self.at = text, name, comments, 0

    def fail(self, what: str) -> InvalidInput:
        line = self.text.count("\n", 0, self.at) + 1
        column = self.at - (self.text.rfind("\n", 0, self.at) + 1) + 1
        return InvalidInput(f"{self.name} is not valid JSON ({what} at line {line} column {column}); fix it first")

    def document(self) -> Node:
        self.skip()
        node = self.value(0)
        self.skip()
        if self.at != len(self.text):
            raise self.fail("more text after the end")
        return node

    def skip(self) -> None:
        text = self.text
        while self.at < len(text):
            char = text[self.at]
            if char in _WHITESPACE:
                self.at += 1
            elif self.comments and text.startswith("//", self.at):
                stop = text.find("\n", self.at)
                self.at = len(text) if stop == -1 else stop
            elif self.comments and text.startswith("/*", self.at):
                stop = text.find("*/", self.at + 2)
                if stop == -1:
                    raise self.fail("a comment that never ends")
                self.at = stop + 2
            else:
                return

    def value(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise self.fail(f"nesting deeper than {MAX_DEPTH}")
        if self.at >= len(self.text):
            raise self.fail("the text ends where a value should be")
        char, start = self.text[self.at], self.at
        if char == "{":
            return self.container(depth, "object", "}")
        if char == "[":
            return self.container(depth, "array", "]")
        if char == '"':
            return Node(start, self.at, self.string())
        for word, meaning in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(word, start):
                self.at += len(word)
                return Node(start, self.at, meaning)
        match = _NUMBER.match(self.text, start)
        if not match:
            raise self.fail("an unexpected character")
        self.at = match.end()
        text = match.group()
        plain = text.lstrip("-").isdigit() and len(text) < 4000
        return Node(start, self.at, int(text) if plain else Number(text))

    def string(self) -> str:
        match = _STRING.match(self.text, self.at)
        if not match:
            raise self.fail("a malformed string")
        self.at = match.end()
        return json.loads(match.group())

    def container(self, depth: int, kind: str, close: str) -> Node:
        node = Node(self.at, self.at, {} if kind == "object" else [], kind=kind)
        self.at += 1
        self.skip()
        if self.text.startswith(close, self.at):
            self.at += 1
            node.end = self.at
            return node
        while True:
            key, lead = None, self.at
            if kind == "object":
                if not self.text.startswith('"', self.at):
                    raise self.fail("a member name should be here")
                key = self.string()
                self.skip()
                if not self.text.startswith(":", self.at):
                    raise self.fail("':' should follow a member name")
                self.at += 1
                self.skip()
            child = self.value(depth + 1)
            child.lead = lead
            node.children.append((key, child))
            if kind == "object":
                node.value[key] = child.value
            else:
                node.value.append(child.value)
            self.skip()
            if self.text.startswith(",", self.at):
                self.at += 1
                self.skip()
                continue
            if self.text.startswith(close, self.at):
                self.at += 1
                node.end = self.at
                return node
            raise self.fail(f"',' or '{close}' should be here")
