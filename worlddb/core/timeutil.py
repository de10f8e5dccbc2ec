"""Time as the engine stores it: integer microseconds since the Unix epoch, UTC.

Integers compare exactly and index well in SQLite; ISO-8601 strings exist only at the
edges (the MCP surface, the CLI). A timestamp without a zone is read as UTC, and a bare
date means its midnight UTC; both are documented behaviour, not guesses.
"""

from __future__ import annotations

import time
from datetime import UTC, date, datetime

from worlddb.core.errors import InvalidInput

US = 1_000_000
#: Bounds that keep every stored time representable as a datetime (years 1..9999).
MIN_US = -62_135_596_800 * US
MAX_US = 253_402_300_800 * US - 1


def now_us() -> int:
    return time.time_ns() // 1000


def from_datetime(value: datetime) -> int:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    delta = value - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * US + delta.microseconds


def parse_time(value: str | int | datetime | date, *, field: str = "time") -> int:
    """Accept ISO-8601 text, a datetime/date, or integer microseconds; return microseconds,
    within years 1..9999 in UTC (an offset that moves a time out of them is refused)."""
    us = _parse_time(value, field)
    if not MIN_US <= us <= MAX_US:
        raise InvalidInput(f"{field}: {value!r} is outside years 1-9999 in UTC")
    return us


def _parse_time(value: str | int | datetime | date, field: str) -> int:
    if isinstance(value, bool):
        raise InvalidInput(f"{field}: expected an ISO-8601 timestamp, got a boolean")
    if isinstance(value, int):
        if not MIN_US <= value <= MAX_US:
            raise InvalidInput(f"{field}: {value} is outside the representable range")
        return value
    if isinstance(value, datetime):
        return from_datetime(value)
    if isinstance(value, date):
        return from_datetime(datetime(value.year, value.month, value.day))
    if not isinstance(value, str):
        raise InvalidInput(f"{field}: expected an ISO-8601 timestamp, got {type(value).__name__}")
    text = value.strip()
    if not text or len(text) > 64:
        raise InvalidInput(f"{field}: {value!r} is not an ISO-8601 timestamp")
    try:
        if len(text) == 10:
            parsed = datetime.combine(date.fromisoformat(text), datetime.min.time())
        else:
            parsed = datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        raise InvalidInput(
            f"{field}: {value!r} is not an ISO-8601 timestamp (e.g. 2024-05-01 or 2024-05-01T12:00:00Z)"
        ) from None
    return from_datetime(parsed)


def to_datetime(us: int) -> datetime:
    """The UTC moment of `us` microseconds, exactly (a float of seconds rounds the last
    microsecond of 9999 into year 10000)."""
    seconds, micros = divmod(us, US)
    return datetime.fromtimestamp(seconds, tz=UTC).replace(microsecond=micros)


def to_iso(us: int | None) -> str | None:
    if us is None:
        return None
    return to_datetime(us).isoformat().replace("+00:00", "Z")
