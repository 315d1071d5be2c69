"""Reading facts as people type them: `alice:Person --works_at--> acme:Organization`, or JSON Lines."""
from __future__ import annotations

import re
from collections.abc import Iterable

from .errors import InvalidInput
from .facts import FactInput
from .json_input import check_text, loads

_TRIPLE = re.compile(r"^\s*(?P<subject>.+?)\s+--(?P<relation>\S(?:.*?\S)?)-->\s+(?P<object>.+?)\s*$", re.S)
_TYPE = re.compile(r"[A-Za-z][\w-]*")
JSONL_FIELDS = (
    "subject", "subject_type", "relation", "object", "object_type",
    "description", "evidence", "valid_from", "valid_to",
)


def _name_and_type(text: str) -> tuple[str, str | None]:
    name, sep, type_name = text.rpartition(":")
    if sep and name.strip() and _TYPE.fullmatch(type_name.strip()):
        return name.strip(), type_name.strip()
    return text.strip(), None


def parse_triple(text: str, **details: object) -> FactInput:
    check_text(text, "the fact")
    for name, value in details.items():
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, str):
                check_text(item, name)
    match = _TRIPLE.match(text)
    if not match:
        raise InvalidInput(
            f"cannot read {text!r} as a fact; write it as 'alice:Person --works_at--> acme:Organization'"
        )
    subject, subject_type = _name_and_type(match["subject"])
    object_, object_type = _name_and_type(match["object"])
    return FactInput(subject, match["relation"].strip(), object_, subject_type, object_type, **details)  # type: ignore[arg-type]


def parse_jsonl(lines: Iterable[bytes | str]) -> list[FactInput]:
    """One JSON object a line (UTF-8 bytes, or text); every line is checked before anything is written."""
    items = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        record = loads(line, f"line {number}")
        if not isinstance(record, dict):
            raise InvalidInput(f"line {number}: expected a JSON object")
        unknown = sorted(set(record) - set(JSONL_FIELDS))
        if unknown:
            shown = ", ".join(repr(name[:40]) for name in unknown[:5])
            raise InvalidInput(f"line {number}: unknown field(s) {shown}; known: {', '.join(JSONL_FIELDS)}")
        missing = [f for f in ("subject", "relation", "object") if not isinstance(record.get(f), str) or not record[f].strip()]
        if missing:
            raise InvalidInput(f"line {number}: missing {', '.join(missing)}")
        evidence = record.get("evidence") or []
        if isinstance(evidence, str):
            evidence = [evidence]
        if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
            raise InvalidInput(f"line {number}: evidence must be a string or a list of strings")
        for field in ("subject_type", "object_type", "description", "valid_from", "valid_to"):
            if record.get(field) is not None and not isinstance(record[field], str):
                raise InvalidInput(f"line {number}: {field} must be a string")
        items.append(FactInput(
            subject=record["subject"], relation=record["relation"], object=record["object"],
            subject_type=record.get("subject_type"), object_type=record.get("object_type"),
            description=record.get("description") or "", evidence=tuple(evidence),
            valid_from=record.get("valid_from"), valid_to=record.get("valid_to"),
        ))
    if not items:
        raise InvalidInput("no facts on standard input")
    return items
