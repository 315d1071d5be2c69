"""JSON that can sit inside a <script type="application/json"> element without ending it."""

from __future__ import annotations

import json
from typing import Any

import orjson

# `<` and `>` stop `</script>` and `<!--` from changing how the HTML parser reads the block; `&`
# keeps entity-like text inert; U+2028/9 are line terminators to older JavaScript parsers.
_ESCAPES = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"),
            ("\u2028".encode(), b"\\u2028"), ("\u2029".encode(), b"\\u2029"))


def script_json(data: Any) -> str:
    """Compact JSON, keys sorted, with the characters above escaped; JSON.parse reads it back unchanged.

    orjson writes what `json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))`
    writes (floats may spell an exponent differently: 1e-7, not 1e-07) three times as fast: most
    of a second for a 100,000-entity page. The standard encoder is kept for what orjson refuses,
    integers beyond 64 bits (a hand-made snapshot's); orjson writes NaN, which JSON lacks, as null.
    """
    try:
        text = orjson.dumps(data, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:
        text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                          allow_nan=False).encode()
    for raw, escaped in _ESCAPES:
        text = text.replace(raw, escaped)
    return text.decode()
