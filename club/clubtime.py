"""Times as the club reads them: in its own time zone (``stats_store`` settings, default
Asia/Tokyo, set with ``python -m web club-day --timezone``), to the minute, never UTC
ISO strings."""

from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from club.db import Db
from club.stats_store import settings


def club_zone(db: Db) -> str:
    """The club's time zone (the club-day settings; default Asia/Tokyo)."""
    return settings(db)["timezone"]


def instant(value: object) -> datetime | None:
    """An ISO timestamp (UTC when it names no zone) or epoch seconds, as an aware time."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value, timezone.utc)
    t = datetime.fromisoformat(str(value))
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


def now() -> datetime:
    return datetime.now(timezone.utc)


def clock(value: object, tz: str, *, seconds: bool = False, day: bool | None = None) -> str:
    """``18:02`` in the zone ``tz`` (``05-11 18:02`` when it is not today there; ``day``
    True/False forces the date on or off); ``—`` for no time."""
    t = instant(value)
    if t is None:
        return "—"
    local = t.astimezone(ZoneInfo(tz))
    fmt = "%H:%M:%S" if seconds else "%H:%M"
    if day or (day is None and local.date() != now().astimezone(ZoneInfo(tz)).date()):
        fmt = "%Y-%m-%d " + fmt
    return local.strftime(fmt)


def club_clock(db: Db, value: object, *, day: bool = False) -> str:
    """``21:43`` (with ``day``: ``2026-04-01 21:43``) in the club's zone; "" for no time."""
    return clock(value, club_zone(db), day=day) if instant(value) else ""


def minutes_since(value: object, at: datetime | None = None) -> int | None:
    """Whole minutes from ``value`` to now (or ``at``)."""
    t = instant(value)
    if t is None:
        return None
    return max(0, int(((at or now()) - t).total_seconds() // 60))
