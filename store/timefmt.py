"""Record time and valid time as strings that sort the way time does."""
from __future__ import annotations

from datetime import date, datetime, timezone

from .errors import InvalidInput

RECORD_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def record_time(moment: datetime) -> str:
    """A record time: UTC with microseconds, so string order is time order. A naive moment is UTC."""
    if moment.tzinfo is not None and moment.tzinfo is not timezone.utc:
        moment = moment.astimezone(timezone.utc)
    if moment.year < 1000:  # strftime writes these years without leading zeros; isoformat would pad them
        return moment.strftime(RECORD_FORMAT)
    # isoformat is C all the way, strftime with %f is not: 0.1 s less in reading a 10,000-entity
    # memoose store (113,000 record times), 0.17 s instead of 0.28
    return moment.isoformat(timespec="microseconds")[:26] + "Z"


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _iso_text(text: str, what: str) -> str:
    """`text` without the ASCII blanks around it (str.strip would also take U+2028 and the like),
    refused if empty or not ASCII: an ISO date is neither."""
    stripped = text.strip(" \t\r\n")
    if not stripped or not stripped.isascii():
        raise InvalidInput(f"{what} {text!r} is not an ISO date or datetime (e.g. 2025-01-01)")
    return stripped


def parse_instant(text: str, *, what: str = "time") -> str:
    """A record time given by a person (a date or a datetime) as a record-time string.

    A bare date means the end of that day, so `--as-of-record 2026-03-01` includes what was
    recorded on the first of March.
    """
    text = _iso_text(text, what)
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            return f"{day.isoformat()}T23:59:59.999999Z"
        return record_time(datetime.fromisoformat(text.replace("Z", "+00:00")))
    except ValueError:
        raise InvalidInput(f"{what} {text!r} is not an ISO date or datetime (e.g. 2026-03-01)") from None


def parse_valid_time(text: str | None, *, what: str = "valid time") -> str | None:
    """A valid time: an ISO date stays a date; a datetime becomes UTC `YYYY-MM-DDTHH:MM:SSZ`."""
    if text is None:
        return None
    text = _iso_text(str(text), what)
    try:
        if len(text) == 10:
            return date.fromisoformat(text).isoformat()
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"{what} {text!r} is not an ISO date or datetime (e.g. 2025-01-01)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
