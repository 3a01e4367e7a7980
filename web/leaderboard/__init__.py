"""Leaderboards, player pages and game pages (blueprint ``leaderboard``, under ``/leaderboard``).

Its views are in :mod:`web.leaderboard.views`."""

from web.leaderboard.views import bp

__all__ = ["bp"]
