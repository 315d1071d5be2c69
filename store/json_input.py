"""JSON handed to memlens from outside (standard input, a snapshot file, a bundle's data): read, or
refused in one line, within a bound on what parsing it may cost.

A JSON document's size says little about the memory its parse takes: `[[],[],...]` is 3 bytes a
value and 64 bytes of Python objects each, so a 180 MB text (a 5.7 MB report's gzip-packed block)
took 4.6 GB. `parse_cost` bounds that cost from a few byte counts, before anything is parsed, and a
`ParseBudget` refuses a document (or a bundle's documents, together) whose bound exceeds it.
"""
from __future__ import annotations

import json
import re
from typing import Any

from .errors import InvalidInput

# Only a \uD800-\uDFFF escape can put a surrogate into decoded JSON (strict UTF-8 never does), so
# the walk over every string runs only when the text holds one.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")

# What a parse may take, estimated (`parse_cost`): 1 GiB, or 8 times the file it came from where
# that is more (a 100,000-entity site's 200 MB snapshot.json estimates at 0.7 GB, and its report's
# blocks at 0.7 GB; both take half that). A 32 MB bundle then costs at most about 1 GB to read.
PARSE_FLOOR = 1 << 30
PARSE_PER_FILE_BYTE = 8
# Python's bytes for one container and one other value, at their largest (an empty dict is 64 and its
# slot 8; an int, a float or a short string 28-57 and its slot 8), and for a byte of text (a string's
# characters, a number's digits, and the bytes read alongside)
_PER_CONTAINER, _PER_VALUE, _PER_BYTE = 80, 40, 2


class NotJson(ValueError):
    """Why a text is not JSON memlens reads; said without naming the text (the caller does)."""


def parse_cost(data: bytes) -> int:
    """An upper bound on the bytes of Python objects that parsing `data` makes. Every `[`, `{` and
    `,` counts (those inside strings too: a bound may be generous, never short); counting them runs
    at memory speed, so the bound costs a few milliseconds where the parse would cost seconds."""
    containers = data.count(b"[") + data.count(b"{")
    values = data.count(b",") + containers + 1
    return _PER_BYTE * len(data) + _PER_CONTAINER * containers + _PER_VALUE * values


class ParseBudget:
    """What the JSON documents of one file (a report's blocks, a site's snapshot.json) may cost to
    parse together, spent as each is parsed (`loads`)."""

    def __init__(self, file_size: int) -> None:
        self.allowed = max(PARSE_FLOOR, PARSE_PER_FILE_BYTE * file_size)
        self.left = self.allowed

    def spend(self, data: bytes) -> None:
        cost = parse_cost(data)
        if cost > self.left:
            raise NotJson(f"it holds more values than memlens reads from a file of its size (about "
                          f"{cost // 2**20:,} MiB to parse, {self.allowed // 2**20:,} MiB allowed)")
        self.left -= cost


def parsed(data: bytes | str, budget: ParseBudget | None = None) -> Any:
    """`data` as JSON, or NotJson saying why not: not UTF-8, not JSON, nested too deeply, a number
    of thousands of digits, a lone surrogate, or past `budget` (a document of its own size's budget
    when None). Python's json reads it: integers stay exact, as a store holds them."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise NotJson(f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
        raw = data
    else:
        text, raw = data, data.encode("utf-8", "surrogatepass")
    (budget or ParseBudget(len(raw))).spend(raw)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotJson(f"not JSON ({exc.msg} at offset {exc.pos})") from None
    except RecursionError:
        raise NotJson("JSON nested too deeply to read") from None
    except ValueError:  # int() refuses more than sys.get_int_max_str_digits() digits
        raise NotJson("a number too long to read (thousands of digits)") from None
    if _SURROGATE_ESCAPE.search(raw):
        _refuse_lone_surrogates(value)
    return value


def loads(data: bytes | str, what: str, budget: ParseBudget | None = None) -> Any:
    """`data` as JSON; `what` names it in the InvalidInput error ("line 3", "old.json")."""
    try:
        return parsed(data, budget)
    except NotJson as reason:
        raise InvalidInput(f"{what}: {reason}") from None


def _refuse_lone_surrogates(value: Any) -> None:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, str):
            _check_unicode(item)


def _check_unicode(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        if 0xDC80 <= code <= 0xDCFF:  # how Python carries a byte that was not UTF-8 (surrogateescape)
            raise NotJson(f"not UTF-8 (byte 0x{code - 0xDC00:02x})") from None
        raise NotJson(f"not valid Unicode text (a lone surrogate U+{code:04X})") from None


def check_text(text: str, what: str) -> None:
    """Refuse text that cannot be stored or printed: a lone surrogate (from a JSON escape, or from
    bytes that were not UTF-8 in a command-line argument)."""
    try:
        _check_unicode(text)
    except NotJson as reason:
        raise InvalidInput(f"{what}: {reason}") from None
