"""A list of snapshot records read as one tuple per field, shared by everything a page is built from."""

from __future__ import annotations

from operator import itemgetter
from typing import Any

# every field of a snapshot fact that the viewer reads
FACT_FIELDS = ("id", "subject", "relation", "object", "status", "superseded_by", "reason", "contested",
               "valid_from", "valid_to", "recorded_at", "retired_at", "actor", "description", "evidence",
               "reassertions", "history", "contradictions", "functional")


class Columns:
    """Records read as one tuple per field. The fields are read from each record in one C call
    (a dict is visited once, not once per field: at 300,000 records each pass over the dicts costs
    ~50 ms in cache misses alone) and then transposed. `complete`: every record had every field."""

    def __init__(self, records: list[dict[str, Any]], fields: tuple[str, ...]) -> None:
        getter = itemgetter(*fields) if len(fields) > 1 else (lambda record: (record[fields[0]],))
        self.complete = True
        try:
            rows = list(map(getter, records))
        except KeyError:  # a record that lacks some field (an importer's) reads None there
            self.complete = False
            rows = [tuple(record.get(name) for name in fields) for record in records]
        self._read = dict(zip(fields, zip(*rows))) if rows else dict.fromkeys(fields, ())

    def __getitem__(self, key: str) -> tuple[Any, ...]:
        return self._read[key]
