"""Times as the club reads them: in its own time zone (``stats_store`` settings, default
Asia/Tokyo, set with ``python -m web club-day --timezone``), never UTC ISO strings."""

from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from . import stats_store


def zone(db) -> ZoneInfo:
    """The club's time zone."""
    return ZoneInfo(stats_store.settings(db)["timezone"])


def local(db, iso: str | None) -> datetime | None:
    """A stored UTC ISO time in the club's zone (None stays None)."""
    if not iso:
        return None
    at = datetime.fromisoformat(iso)
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    return at.astimezone(zone(db))


def clock(db, iso: str | None) -> str:
    """``21:43`` in the club's zone ("" for none)."""
    at = local(db, iso)
    return at.strftime("%H:%M") if at else ""


def stamp(db, iso: str | None) -> str:
    """``2026-04-01 21:43`` in the club's zone ("" for none)."""
    at = local(db, iso)
    return at.strftime("%Y-%m-%d %H:%M") if at else ""
