"""Times as the providers write them (RFC 3339, with up to nine digits of
a second as Go writes them, ``2025-05-12T10:00:00.123456789Z``) and the neutral
vocabulary's (Unix seconds): the mirror of ``rust/rfc3339.rs``."""

from __future__ import annotations

import re

__all__ = ["rfc3339", "unix_nanoseconds", "unix_seconds"]

_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?"
    r"(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))"
)


def _days_from_civil(year: int, month: int, day: int) -> int:
    if month <= 2:
        year -= 1
    era = year // 400
    of_era = year - era * 400
    of_year = (153 * ((month + 9) % 12) + 2) // 5 + day - 1
    return era * 146_097 + of_era * 365 + of_era // 4 - of_era // 100 + of_year - 719_468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    days += 719_468
    era = days // 146_097
    of_era = days - era * 146_097
    year_of_era = (of_era - of_era // 1460 + of_era // 36524 - of_era // 146_096) // 365
    of_year = of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    shifted_month = (5 * of_year + 2) // 153
    day = of_year - (153 * shifted_month + 2) // 5 + 1
    month = shifted_month + 3 if shifted_month < 10 else shifted_month - 9
    return year_of_era + era * 400 + int(month <= 2), month, day


def unix_seconds(text: str) -> int | None:
    """The Unix seconds of an RFC 3339 time (a fraction of a second
    dropped); None for any other text."""
    read = _read(text)
    return None if read is None else read[0]


def unix_nanoseconds(text: str) -> int | None:
    """The Unix nanoseconds of an RFC 3339 time (digits past the ninth of
    its fraction dropped); None for any other text."""
    read = _read(text)
    return None if read is None else read[0] * 1_000_000_000 + int(read[1][:9].ljust(9, "0"))


def _read(text: str) -> tuple[int, str] | None:
    """An RFC 3339 time's Unix seconds and the digits of its fraction."""
    found = _TIME.fullmatch(text) if text.isascii() else None
    if found is None:
        return None
    year, month, day, hour, minute, second = (int(part) for part in found.groups()[:6])
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour <= 23 and minute <= 59 and second <= 60):
        return None
    offset = 0
    if found[9] is not None:
        offset = int(found[10]) * 60 + int(found[11])
        if found[9] == "-":
            offset = -offset
    days = _days_from_civil(year, month, day)
    return days * 86_400 + hour * 3_600 + minute * 60 + second - offset * 60, found[7] or ""


def rfc3339(seconds: int) -> str:
    """Unix seconds as RFC 3339 in UTC, as Go writes a whole second."""
    days, of_day = divmod(seconds, 86_400)
    year, month, day = _civil_from_days(days)
    return f"{year:04}-{month:02}-{day:02}T{of_day // 3600:02}:{of_day % 3600 // 60:02}:{of_day % 60:02}Z"
