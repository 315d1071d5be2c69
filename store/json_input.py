"""JSON handed to memlens from outside (standard input, a snapshot file): read, or refused in one line."""
from __future__ import annotations

import json
import re
from typing import Any

from .errors import InvalidInput

# Only a \uD800-\uDFFF escape can put a surrogate into decoded JSON (strict UTF-8 never does), so
# the walk over every string runs only when the text holds one.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def loads(data: bytes | str, what: str) -> Any:
    """`data` as JSON; `what` names it in the error ("line 3", "old.json")."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInput(f"{what}: not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
    try:
        value = json.loads(data)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{what}: not JSON ({exc.msg} at offset {exc.pos})") from None
    except RecursionError:
        raise InvalidInput(f"{what}: JSON nested too deeply to read") from None
    except ValueError:  # int() refuses more than sys.get_int_max_str_digits() digits
        raise InvalidInput(f"{what}: a number too long to read (thousands of digits)") from None
    if _SURROGATE_ESCAPE.search(data):
        _refuse_lone_surrogates(value, what)
    return value


def _refuse_lone_surrogates(value: Any, what: str) -> None:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, str):
            check_text(item, what)


def check_text(text: str, what: str) -> None:
    """Refuse text that cannot be stored or printed: a lone surrogate (from a JSON escape, or from
    bytes that were not UTF-8 in a command-line argument)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        if 0xDC80 <= code <= 0xDCFF:  # how Python carries a byte that was not UTF-8 (surrogateescape)
            raise InvalidInput(f"{what}: not UTF-8 (byte 0x{code - 0xDC00:02x})") from None
        raise InvalidInput(f"{what}: not valid Unicode text (a lone surrogate U+{code:04X})") from None
