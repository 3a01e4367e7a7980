"""The tablet at each table: one page that starts a game, records every hand and
shows the settlement sheet, and keeps working through a Wi-Fi drop.

Its views are in :mod:`web.tablet.views`."""

from web.tablet.views import bp, favicon

__all__ = ["bp", "favicon"]
