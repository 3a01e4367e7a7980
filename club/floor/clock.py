"""A table's clock from the table itself: the daemon's cycle events, not a stopwatch.

Every hand starts with a cycle (shuffle and build), and the daemon stores each cycle's
start (``cycle_started``, with the time it came). For a game that gives the hands
played (cycles since the game started), the average minutes per hand (from the first
cycle to the last) and the game time elapsed.

Event nights give a game a time limit (``game_clocks``; staff can give a table extra
time). At the limit the hand being played is the last one (the tablet and the console
say so); once it is recorded the game ends with ``{"event": "end", "reason": "time"}``.
That end is written by :func:`enforce`, which the console's floor and the tablets call
as they refresh (every few seconds), under a fixed idempotency key, so it happens once
however many pages see it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from club import clubtime, games
from club.db import Db, one, write_tx
from club.errors import UserError
from club.gamelog import Game
from tablectl import store

EVENT_LIMIT = 500
"""Table events read back per table (a game has a few dozen cycles among them)."""


@dataclass(frozen=True)
class Figures:
    """What a table's own cycles say about a game."""

    hands: int                  # cycles started since the game started
    per_hand: float | None      # average minutes per hand (None before the second cycle)
    elapsed: float              # minutes since the game started
    last_cycle: float | None    # epoch seconds of the last cycle's start

    def as_dict(self) -> dict:
        return {"hands": self.hands, "per_hand": None if self.per_hand is None
                else round(self.per_hand, 1), "elapsed": round(self.elapsed, 1)}


def figures(cycle_starts: list[float], started: float, now: float) -> Figures:
    """The clock of a game started at ``started`` (epoch seconds) from the times its
    table's cycles started (any order; cycles before the start are not the game's)."""
    mine = sorted(t for t in cycle_starts if t >= started)
    per_hand = None
    if len(mine) >= 2:
        per_hand = (mine[-1] - mine[0]) / 60 / (len(mine) - 1)
    return Figures(hands=len(mine), per_hand=per_hand, elapsed=max(0.0, (now - started) / 60),
                   last_cycle=mine[-1] if mine else None)


def cycle_starts(db_path: str, table_id: str) -> list[float]:
    """When the table's recent cycles started (epoch seconds), from the daemon's events;
    [] for a table the daemon does not drive."""
    try:
        rows = store.recent_events(db_path, table_id, limit=EVENT_LIMIT)
    except store.StoreError:
        return []
    return [r["at"] for r in rows if r["kind"] == "cycle_started"]


def game_figures(db_path: str, game: Game, now: datetime | None = None) -> Figures:
    """The clock of a stored game at its table."""
    start = clubtime.instant(game["started_at"])
    assert start is not None  # a stored game has its start time
    started = start.timestamp()
    at = (now or clubtime.now()).timestamp()
    return figures(cycle_starts(db_path, game["table_id"]), started, at)


# --------------------------------------------------------------------------- time limits
def limit_of(db: Db, game_id: int) -> dict | None:
    """A game's time limit (``limit_minutes``, ``extra_minutes``, ``ended``), or None."""
    return one(db, "SELECT * FROM game_clocks WHERE game_id = ?", [game_id])


def set_limit(db: Db, game_id: int, minutes: int | None = None, extra: int = 0) -> dict | None:
    """Give a game a time limit (``minutes``; None keeps the one it has) and/or ``extra``
    minutes on top (may be negative to take back a mistake). Refused for a game that is
    not live, or extra time without a limit."""
    game = games.get_game(db, game_id)
    if game["status"] != "live":
        raise UserError("floor.clock.not_live", status=409, code="game_not_live", game=game_id)
    with write_tx(db):
        row = limit_of(db, game_id)
        if minutes is not None:
            db.execute("INSERT INTO game_clocks (game_id, limit_minutes) VALUES (?, ?) "
                       "ON CONFLICT(game_id) DO UPDATE SET limit_minutes = excluded.limit_minutes",
                       [game_id, int(minutes)])
        elif row is None:
            raise UserError("floor.clock.no_limit", status=409, code="no_limit", game=game_id)
        if extra:
            db.execute("UPDATE game_clocks SET extra_minutes = MAX(0, extra_minutes + ?) "
                       "WHERE game_id = ?", [int(extra), game_id])
    return limit_of(db, game_id)


def deadline(game: Game, limit: dict | None) -> datetime | None:
    """When a game's time is up (its start plus its limit and extra time), or None."""
    if not limit:
        return None
    start = clubtime.instant(game["started_at"])
    assert start is not None  # a stored game has its start time
    return start + timedelta(
        minutes=limit["limit_minutes"] + limit["extra_minutes"])


def status(db: Db, db_path: str, game: Game, now: datetime | None = None) -> dict:
    """A live game's clock as the console and the tablet show it: the figures, and with a
    limit the minutes left, ``soon`` (less than a hand left), ``last_hand`` (time is up:
    this hand is the last)."""
    now = now or clubtime.now()
    f = game_figures(db_path, game, now)
    out = {**f.as_dict(), "limit": None, "left": None, "soon": False, "last_hand": False}
    limit = limit_of(db, game["id"])
    end = deadline(game, limit)
    if end is not None and limit:  # a deadline comes from a limit
        left = (end - now).total_seconds() / 60
        out.update(limit=limit["limit_minutes"], extra=limit["extra_minutes"],
                   deadline=end.isoformat(), left=round(max(left, 0.0), 1),
                   soon=0 < left <= (f.per_hand or DEFAULT_MINUTES_PER_HAND),
                   last_hand=left <= 0, ended=bool(limit["ended"]))
    return out


DEFAULT_MINUTES_PER_HAND = 6.0
"""A hand at a club table before its own cycles say otherwise (a four-player hand is five
to seven minutes)."""


def enforce(db: Db, game_id: int, now: datetime | None = None) -> bool:
    """End a game whose time is up once the last hand after the deadline is recorded
    (``end``, reason ``time``); True if it ended it now. Safe to call from every page."""
    game = games.get_game(db, game_id)
    limit = limit_of(db, game_id)
    end = deadline(game, limit)
    if game["status"] != "live" or end is None or not limit or limit["ended"] \
            or (now or clubtime.now()) < end:
        return False
    last = one(db, "SELECT created_at FROM hand_events WHERE game_id = ? AND kind IN "
                   "('win', 'draw', 'abort', 'chombo') ORDER BY seq DESC LIMIT 1", [game_id])
    # a stored hand has its time
    if last is None or clubtime.instant(last["created_at"]) < end:  # type: ignore[operator]
        return False          # the hand being played when time ran out is not in yet
    view = games.game_view(db, game_id)
    try:
        games.record_event(db, game_id, {"event": "end", "reason": "time"},
                           expected_seq=view["next_seq"], idempotency_key=f"clock-end-{game_id}",
                           actor="clock")
    except UserError:
        return False          # another page ended it first, or a hand came in meanwhile
    with write_tx(db):
        db.execute("UPDATE game_clocks SET ended = 1 WHERE game_id = ?", [game_id])
    return True
