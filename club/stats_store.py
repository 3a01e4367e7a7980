"""The leaderboards' summary tables, kept in step with the games.

* ``stats_lines``: one :class:`scoring.stats.PlayerGame` line per seat of every
  finished (not void) game, with its rule family and club day;
* ``stats_days``: the sums (:data:`scoring.stats.SUMS` and the streak tails)
  of each player, family and club day.

A leaderboard of any period adds up day rows (a year is a few tens of
thousands of them, not 240,000 lines), with SQL generated from ``SUMS`` so
each figure stays defined once in ``scoring/stats.py``.

``refresh_game(db, game, played)`` is called by ``club.games`` and
``club.corrections`` inside the same transaction whenever a finished game's
status or events change (its last hand recorded, a staff correction, a void),
with the engine's result it already has, so the tables can never disagree with
the events and a hand is not replayed again for them; the ratings
(:mod:`club.rating_store`) follow in the same transaction.
``rebuild_all(db)`` recomputes everything from the events.

A *club day* ends at the club's closing hour (``stats_settings``: default
05:00 in Asia/Tokyo): a game finished at 02:30 on the 2nd belongs to the 1st.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import sqlite3
from datetime import date, datetime, time, timedelta, timezone
from typing import Any, Iterable, Sequence
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import sqlite_utils

from club import engine, gamelog, merges, rating_store
from club.db import Db, Migrations, now_iso, write_tx
from club.errors import NotFound, UserError

log = logging.getLogger(__name__)

DEFAULT_SETTINGS = {"closing_hour": "05:00", "timezone": "Asia/Tokyo", "opening_hour": "12:00",
                    "guests_ranked": "0"}
"""``guests_ranked``: "1" puts guests on the leaderboards (off by default: walk-ins are
not ranked among the members)."""
PERIODS = ("day", "month", "season", "all", "range")
LINE_COLUMNS = ("game_id", "seat", "player_id", "family", "club_day") + tuple(
    f.name for f in dataclasses.fields(engine.PlayerGame) if f.name not in ("game_id", "seat",
                                                                           "player"))
"""The columns of ``stats_lines``: a PlayerGame's fields (its player as ``player_id``) and
the family and club day it is filed under."""


MIGRATIONS = Migrations("stats")


@MIGRATIONS(legacy=("migrations", "number", 300))
def _create_stats(db: sqlite_utils.Database) -> None:
    sums = ",\n".join(
        f"{n} {'REAL' if n in ('total', 'best') else 'INTEGER'}" for n in engine.SUM_NAMES
    )
    db.executescript(
        f"""
        CREATE TABLE stats_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE stats_lines (
            game_id INTEGER NOT NULL REFERENCES games(id),
            seat INTEGER NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players(id),
            family TEXT NOT NULL,
            club_day TEXT NOT NULL,
            ended_at TEXT NOT NULL,
            players INTEGER NOT NULL, rank INTEGER NOT NULL, result REAL NOT NULL,
            final_score INTEGER NOT NULL, busted INTEGER NOT NULL, hands INTEGER NOT NULL,
            wins INTEGER NOT NULL, tsumo_wins INTEGER NOT NULL, deal_ins INTEGER NOT NULL,
            riichi INTEGER NOT NULL, win_points INTEGER NOT NULL,
            deal_in_points INTEGER NOT NULL, chips INTEGER NOT NULL,
            penalties INTEGER NOT NULL, chombo INTEGER NOT NULL,
            PRIMARY KEY (game_id, seat)
        );
        -- the day's games (export); one player's games in order (player page, day rows)
        CREATE INDEX stats_lines_day ON stats_lines(club_day, game_id);
        CREATE INDEX stats_lines_player ON stats_lines(player_id, family, club_day, ended_at);
        CREATE TABLE stats_days (
            family TEXT NOT NULL,
            club_day TEXT NOT NULL,
            player_id INTEGER NOT NULL,
            {sums},
            PRIMARY KEY (family, club_day, player_id)
        );
        CREATE INDEX stats_days_player ON stats_days(player_id, family, club_day);
        """
    )
    for k, v in DEFAULT_SETTINGS.items():
        db.execute("INSERT INTO stats_settings (key, value) VALUES (?, ?)", [k, v])
    # History is filled in by migration 301 (rebuild_days after rebuild of the lines).
    insert_all_lines(db)


def _sums_table(table: str, period_note: str) -> str:
    """The SQL of a table of each player's running sums per family and period (a club
    day, a month), with its index by player; ``period_note`` comments the period."""
    sums = ",\n".join(
        f"{n} {'REAL' if n in ('total', 'best') else 'INTEGER'}" for n in engine.SUM_NAMES
    )
    return f"""
        CREATE TABLE {table} (
            family TEXT NOT NULL,
            club_day TEXT NOT NULL,{period_note}
            player_id INTEGER NOT NULL,
            cum_games INTEGER NOT NULL,
            {sums},
            PRIMARY KEY (family, club_day, player_id)
        ) WITHOUT ROWID;
        CREATE INDEX {table}_player ON {table}(player_id, family, club_day);
        """


@MIGRATIONS(legacy=("migrations", "number", 301))
def _stats_days_v2(db: sqlite_utils.Database) -> None:
    # cum_games (the player's games in the family up to and including the day)
    # lets one GROUP BY pass find current streaks: see LEADERBOARD_SQL.
    db.executescript("DROP TABLE stats_days;" + _sums_table("stats_days", ""))
    rebuild_days(db)


@MIGRATIONS(legacy=("migrations", "number", 302))
def _stats_months(db: sqlite_utils.Database) -> None:
    # A year-long leaderboard adds ~12 month rows per player plus the days of the
    # months the period only partly covers, instead of ~365 day rows.
    db.executescript(_sums_table("stats_months", "  -- the month, YYYY-MM"))
    rebuild_months(db)


@MIGRATIONS(legacy=("migrations", "number", 303))
def _stats_stale(db: sqlite_utils.Database) -> None:
    db.execute(
        "CREATE TABLE stats_stale (game_id INTEGER PRIMARY KEY, error TEXT NOT NULL, "
        "at TEXT NOT NULL)"
    )


# --------------------------------------------------------------------------- club days
def settings(db: Db) -> dict:
    """The club-day settings: ``closing_hour`` (HH:MM), ``timezone`` (IANA name) and
    ``opening_hour`` (HH:MM: when the floor opens, for the daily report's occupancy)."""
    out = dict(DEFAULT_SETTINGS)
    out.update({r[0]: r[1] for r in db.execute("SELECT key, value FROM stats_settings")})
    return out


def _closing(value: str, key: str = "lb.err.closing_hour") -> time:
    try:
        h, m = (int(p) for p in str(value).split(":"))
        return time(h, m)
    except ValueError:
        raise UserError(key, value=str(value)[:20]) from None


ZONE_NAME_MAX = 64
"""The longest time-zone name taken (the IANA names are at most about 30 characters)."""


def _zone(name: str) -> ZoneInfo:
    name = str(name)
    try:
        if len(name) > ZONE_NAME_MAX:
            raise ValueError(name)
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a name too long for a file
        raise UserError("lb.err.timezone", value=name[:60]) from None


def club_day_of(ended_at: str, cfg: dict) -> str:
    """The club day (YYYY-MM-DD) an ISO UTC timestamp falls in."""
    t = datetime.fromisoformat(ended_at)
    if t.tzinfo is None:
        t = t.replace(tzinfo=timezone.utc)
    c = _closing(cfg["closing_hour"])
    local = t.astimezone(_zone(cfg["timezone"])) - timedelta(hours=c.hour, minutes=c.minute)
    return local.date().isoformat()


def day_bounds(day: str, cfg: dict) -> tuple[str, str]:
    """The UTC instants [start, end) of a club day, as ISO strings."""
    c, zone = _closing(cfg["closing_hour"]), _zone(cfg["timezone"])
    d = user_day(day)
    start = datetime.combine(d, c, zone)
    end = datetime.combine(d + timedelta(days=1), c, zone)
    return (
        start.astimezone(timezone.utc).isoformat(timespec="milliseconds"),
        end.astimezone(timezone.utc).isoformat(timespec="milliseconds"),
    )


def open_hours(day: str, cfg: dict) -> tuple[datetime, datetime]:
    """When the floor is open on a club day: from the opening hour to the closing hour
    that ends the day (the whole club day when they are the same)."""
    c, zone = _closing(cfg["closing_hour"]), _zone(cfg["timezone"])
    o = _closing(cfg.get("opening_hour", DEFAULT_SETTINGS["opening_hour"]), "lb.err.opening_hour")
    d = user_day(day)
    start = datetime.combine(d, c, zone)
    opens = datetime.combine(d, o, zone)
    if opens < start:
        opens += timedelta(days=1)
    return opens, datetime.combine(d + timedelta(days=1), c, zone)


def today(cfg: dict, now: datetime | None = None) -> str:
    """The current club day."""
    now = now or datetime.now(timezone.utc)
    return club_day_of(now.isoformat(), cfg)


def parse_day(text: str) -> date:
    """A YYYY-MM-DD day, or a UserError saying how to write it."""
    try:
        return date.fromisoformat(str(text))
    except ValueError:
        raise UserError("lb.err.day", value=str(text)[:20]) from None


def user_day(text: str) -> date:
    """A club day a person gave (a URL, a form, ``--date``): a YYYY-MM-DD day whose day
    before and day after exist too, else a UserError in words. A club day runs into the
    next calendar day and pages link the day before, so the calendar's first and last
    days (0001-01-01, 9999-12-31) are refused here rather than overflowing later."""
    d = parse_day(text)
    if not date.min < d < date.max:
        raise UserError("lb.err.day_range", value=d.isoformat(),
                        first=(date.min + timedelta(days=1)).isoformat(),
                        last=(date.max - timedelta(days=1)).isoformat())
    return d


def period_range(
    period: str, day: str, start: str | None = None, end: str | None = None
) -> tuple[str, str]:
    """The first and last club day of a period ending on ``day`` (to date)."""
    d = user_day(day)
    if period == "day":
        first = d
    elif period == "month":
        first = d.replace(day=1)
    elif period == "season":
        first = date(d.year, 3 * ((d.month - 1) // 3) + 1, 1)
    elif period == "all":
        first = date(1, 1, 1)
    elif period == "range":
        if not (start and end):
            raise UserError("lb.err.range_needs_both")
        first, d = user_day(start), user_day(end)
        if first > d:
            raise UserError("lb.err.range_reversed", start=start, end=end)
    else:
        raise UserError("lb.err.period", value=str(period)[:20], options=", ".join(PERIODS))
    return first.isoformat(), d.isoformat()


def configure(db: Db, *, closing_hour: str | None = None, timezone_name: str | None = None,
              opening_hour: str | None = None) -> dict:
    """Change the club-day settings; a new closing hour or time zone moves games between
    club days, so the summary tables are rebuilt under them."""
    cfg = settings(db)
    if closing_hour is not None:
        c = _closing(closing_hour)
        cfg["closing_hour"] = f"{c.hour:02d}:{c.minute:02d}"
    if timezone_name is not None:
        _zone(timezone_name)
        cfg["timezone"] = timezone_name
    if opening_hour is not None:
        o = _closing(opening_hour, "lb.err.opening_hour")
        cfg["opening_hour"] = f"{o.hour:02d}:{o.minute:02d}"
    with write_tx(db):
        for k, v in cfg.items():
            db.execute(
                "INSERT INTO stats_settings (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [k, v],
            )
        if closing_hour is not None or timezone_name is not None:
            rebuild_all(db)
    return cfg


def rank_guests(db: Db, on: bool) -> dict:
    """Put guests on the leaderboards (``on``) or keep them off (read at ranking time:
    nothing to rebuild)."""
    with write_tx(db):
        db.execute("INSERT INTO stats_settings (key, value) VALUES ('guests_ranked', ?) "
                   "ON CONFLICT(key) DO UPDATE SET value = excluded.value", ["1" if on else "0"])
    return settings(db)


# --------------------------------------------------------------------------- keeping in step
def game_lines(game: gamelog.Game, played: gamelog.Played | None, cfg: dict) -> list[dict]:
    """The summary lines a game should have now (none unless it is finished), from the
    engine's result of its events."""
    if (game["status"] != "finished" or not game["finished_at"] or played is None
            or not played.result.get("finished")):
        return []
    ids = [s["player_id"] for s in game["seats"]]
    lines = engine.player_games(
        game["id"],
        game["finished_at"],
        played.events,
        played.result,
        keys=[str(i) for i in ids],
        **engine.line_options(game["rules"]),
    )
    extra = {
        "family": engine.rule_family(game["rules"]),
        "club_day": club_day_of(game["finished_at"], cfg),
    }
    return [_line_row(x, extra) for x in lines]


def _stored_lines(db: Db, game_id: int, cfg: dict) -> list[dict]:
    """The lines of a stored game, replayed once (rebuilds and repairs)."""
    game = gamelog.get_game(db, game_id)
    if game["status"] != "finished":
        return []
    return game_lines(game, gamelog.played(db, game), cfg)


def _line_row(x: engine.PlayerGame, extra: dict) -> dict:
    d = engine.line_to_dict(x)
    d["player_id"] = int(d.pop("player"))
    d["busted"] = int(d["busted"])
    d.update(extra)
    return {k: d[k] for k in LINE_COLUMNS}


def refresh_game(db: Db, game: gamelog.Game, played: gamelog.Played | None) -> None:
    """Bring the summary tables in step with one game's status (``game``, its row as
    it now stands) and the engine's result of its events (``played``).

    Called inside the caller's transaction (nested: a savepoint). If the
    refresh fails for any reason but the database itself, only its savepoint is
    rolled back: the hand the players just entered is still recorded (the floor
    never stops for a leaderboard), the game is noted in ``stats_stale`` and
    :func:`repair_stale` retries before the next leaderboard or export."""
    try:
        _refresh_game(db, game, played)
    except sqlite3.OperationalError:
        raise  # busy or locked: the caller's write fails as any write would
    except Exception as e:  # noqa: BLE001 (see the docstring: isolate the floor from stats)
        _note_stale(db, game["id"], e)


def _note_stale(db: Db, game_id: int, e: Exception) -> None:
    log.exception("leaderboard summary of game %s not refreshed", game_id)
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'stats_stale'").fetchone():
        db.execute(
            "INSERT OR REPLACE INTO stats_stale (game_id, error, at) VALUES (?, ?, ?)",
            [game_id, f"{type(e).__name__}: {e}", now_iso()],
        )


def repair_stale(db: Db) -> list[dict]:
    """Retry the games noted in ``stats_stale``; returns those that still fail."""
    if not db.execute("SELECT 1 FROM stats_stale LIMIT 1").fetchone():
        return []
    with write_tx(db):
        for (gid,) in db.execute("SELECT game_id FROM stats_stale ORDER BY game_id").fetchall():
            db.execute("DELETE FROM stats_stale WHERE game_id = ?", [gid])
            refresh_stored(db, gid)  # notes it again if it still fails
    return db.execute_returning_dicts("SELECT * FROM stats_stale ORDER BY game_id")


def refresh_stored(db: Db, game_id: int) -> None:
    """:func:`refresh_game` for a stored game, replayed once (repairs, corrected dates)."""
    try:
        game = gamelog.get_game(db, game_id)
        played = gamelog.played(db, game) if game["status"] == "finished" else None
    except Exception as e:  # noqa: BLE001 (a game that no longer replays stays noted)
        _note_stale(db, game_id, e)
        return
    refresh_game(db, game, played)


def _refresh_game(db: Db, game: gamelog.Game, played: gamelog.Played | None) -> None:
    game_id = game["id"]
    if game["status"] != "finished" and not db.execute(
        "SELECT 1 FROM stats_lines WHERE game_id = ? LIMIT 1", [game_id]
    ).fetchone():
        return  # no lines to take back
    with write_tx(db):
        touched = {
            tuple(r)
            for r in db.execute(
                "SELECT family, club_day, player_id FROM stats_lines WHERE game_id = ?", [game_id]
            )
        }
        db.execute("DELETE FROM stats_lines WHERE game_id = ?", [game_id])
        rows = game_lines(game, played, settings(db))
        insert_lines(db, rows)
        touched |= {(r["family"], r["club_day"], r["player_id"]) for r in rows}
        for key in touched:
            _refresh_day(db, *key)
        rating_store.refresh(db, game_id)


def insert_lines(db: Db, rows: Iterable[dict]) -> None:
    """Insert summary lines (dicts with :data:`LINE_COLUMNS`); day rows are not touched."""
    cols = ", ".join(LINE_COLUMNS)
    marks = ", ".join("?" for _ in LINE_COLUMNS)
    db.conn.executemany(
        f"INSERT INTO stats_lines ({cols}) VALUES ({marks})",
        [[r[c] for c in LINE_COLUMNS] for r in rows],
    )


def _as_line(row: Sequence[Any]) -> engine.PlayerGame:
    d = dict(zip(LINE_COLUMNS, row, strict=True))
    d["player"] = str(d["player_id"])
    d["busted"] = bool(d["busted"])
    return engine.line_from_dict(d)


_LINE_SQL = f"SELECT {', '.join(LINE_COLUMNS)} FROM stats_lines"


def _refresh_day(db: Db, family: str, club_day: str, player_id: int) -> None:
    lines = [
        _as_line(r)
        for r in db.execute(
            f"{_LINE_SQL} WHERE player_id = ? AND family = ? AND club_day = ?",
            [player_id, family, club_day],
        )
    ]
    key = [family, club_day, player_id]
    old = db.execute(
        "SELECT games FROM stats_days WHERE family = ? AND club_day = ? AND player_id = ?", key
    ).fetchone()
    db.execute("DELETE FROM stats_days WHERE family = ? AND club_day = ? AND player_id = ?", key)
    if lines:
        prev = db.execute(
            "SELECT cum_games FROM stats_days WHERE player_id = ? AND family = ? "
            "AND club_day < ? ORDER BY club_day DESC LIMIT 1",
            [player_id, family, club_day],
        ).fetchone()
        sums = engine.aggregate(lines)
        _insert_day(db, family, club_day, player_id, (prev[0] if prev else 0) + sums["games"], sums)
    change = len(lines) - (old[0] if old else 0)
    if change:  # later days of this player count this day's games in their running total
        for table, after in (("stats_days", club_day), ("stats_months", club_day[:7])):
            db.execute(
                f"UPDATE {table} SET cum_games = cum_games + ? WHERE player_id = ? "
                "AND family = ? AND club_day > ?",
                [change, player_id, family, after],
            )
    _refresh_month(db, family, club_day[:7], player_id)


def _refresh_month(db: Db, family: str, month: str, player_id: int) -> None:
    days = db.execute_returning_dicts(
        "SELECT * FROM stats_days WHERE player_id = ? AND family = ? AND club_day BETWEEN ? AND ? "
        "ORDER BY club_day",
        [player_id, family, month + "-01", month + "-31"],
    )
    db.execute(
        "DELETE FROM stats_months WHERE family = ? AND club_day = ? AND player_id = ?",
        [family, month, player_id],
    )
    if days:
        _insert_row(db, "stats_months", family, month, player_id, days[-1]["cum_games"],
                    engine.combine(days))


def _insert_day(db: Db, family: str, club_day: str, player_id: int, cum: int, sums: dict) -> None:
    _insert_row(db, "stats_days", family, club_day, player_id, cum, sums)


def _insert_row(
    db: Db, table: str, family: str, key: str, player_id: int, cum: int, sums: dict
) -> None:
    names = engine.SUM_NAMES
    db.execute(
        f"INSERT INTO {table} (family, club_day, player_id, cum_games, {', '.join(names)}) "
        f"VALUES (?, ?, ?, ?, {', '.join('?' for _ in names)})",
        [family, key, player_id, cum, *(sums[n] for n in names)],
    )


def rebuild_days(db: Db) -> int:
    """Recompute every day row from ``stats_lines``; returns the number of rows."""
    with write_tx(db):
        db.execute("DELETE FROM stats_days")
        n, cum = 0, 0
        key: Any = None
        group: list[Any] = []
        cur = db.execute(f"{_LINE_SQL} ORDER BY family, player_id, club_day")
        for row in cur:
            k = (row[3], row[4], row[2])
            if k != key and group:
                cum = _flush_day(db, key, group, cum)
                n, group = n + 1, []
                if k[0] != key[0] or k[2] != key[2]:
                    cum = 0  # a new player (or family): the running count restarts
            key = k
            group.append(_as_line(row))
        if group:
            _flush_day(db, key, group, cum)
            n += 1
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'stats_months'").fetchone():
            rebuild_months(db)
    return n


def rebuild_months(db: Db) -> int:
    """Recompute every month row from ``stats_days``; returns the number of rows."""
    with write_tx(db):
        db.execute("DELETE FROM stats_months")
        n = 0
        key: Any = None
        group: list[Any] = []
        cur = db.execute_returning_dicts(
            "SELECT * FROM stats_days ORDER BY family, player_id, club_day"
        )
        for row in cur:
            k = (row["family"], row["club_day"][:7], row["player_id"])
            if k != key and group:
                _insert_row(db, "stats_months", key[0], key[1], key[2], group[-1]["cum_games"],
                            engine.combine(group))
                n, group = n + 1, []
            key = k
            group.append(row)
        if group:
            _insert_row(db, "stats_months", key[0], key[1], key[2], group[-1]["cum_games"],
                        engine.combine(group))
            n += 1
    return n


def _flush_day(db: Db, key: tuple[str, str, int], group: list, cum: int) -> int:
    sums = engine.aggregate(group)
    cum += sums["games"]
    _insert_day(db, *key, cum, sums)
    return cum


def insert_all_lines(db: Db) -> int:
    """Fill ``stats_lines`` from every finished game's events (it must be empty)."""
    cfg = settings(db)
    ids = [r[0] for r in db.execute("SELECT id FROM games WHERE status = 'finished' ORDER BY id")]
    for gid in ids:
        try:
            rows = _stored_lines(db, gid, cfg)
        except Exception as e:  # noqa: BLE001 (one bad game must not stop an upgrade or rebuild)
            _note_stale(db, gid, e)
            continue
        insert_lines(db, rows)
    return len(ids)


def rebuild_all(db: Db) -> dict:
    """Recompute both summary tables from every game's events (after a settings change,
    or to repair); returns the counts."""
    with write_tx(db):
        db.execute("DELETE FROM stats_lines")
        n = insert_all_lines(db)
        days = rebuild_days(db)
        rating_store.rebuild(db)
    lines = db.execute("SELECT COUNT(*) FROM stats_lines").fetchone()[0]
    return {"games": n, "lines": lines, "day_rows": days}


# --------------------------------------------------------------------------- reading
def _sum_sql() -> str:
    return ", ".join(
        f"{'MAX' if s.how == 'max' else 'SUM'}({s.name}) AS {s.name}" for s in engine.SUMS
    )


def _leaderboard_sql() -> str:
    # Current streaks in the same pass: per player, the last day of the period with
    # a break in it, written as club_day + the games up to the breaking game
    # (cum_games - the day's tail); the streak is then MAX(cum_games) minus that
    # (the games after the break), or every game of the period if none broke it.
    breaks = ", ".join(
        f"MAX(CASE WHEN {n} < games THEN club_day || printf('%010d', cum_games - {n}) END) "
        f"AS brk_{n}"
        for n in engine.STREAKS
    )
    # Whole months come from stats_months, the days of partly covered months from
    # stats_days (their keys, YYYY-MM and YYYY-MM-DD, sort together correctly).
    cols = f"club_day, player_id, cum_games, {', '.join(engine.SUM_NAMES)}"
    return (
        f"SELECT player_id, {_sum_sql()}, MAX(cum_games) AS cum_last, {breaks} FROM ("
        f"SELECT {cols} FROM stats_days WHERE family = :f "
        "AND (club_day BETWEEN :d1 AND :d2 OR club_day BETWEEN :d3 AND :d4) "
        f"UNION ALL SELECT {cols} FROM stats_months WHERE family = :f "
        "AND club_day BETWEEN :m1 AND :m2) GROUP BY player_id"
    )


LEADERBOARD_SQL = _leaderboard_sql()


def _split(first_day: str, last_day: str) -> dict:
    """A range of days as whole months [m1, m2] and the days before and after them."""
    first, last = parse_day(first_day), parse_day(last_day)
    days_only = {"d1": first_day, "d2": last_day, "d3": "", "d4": "", "m1": "~", "m2": ""}
    try:
        m_start = first if first.day == 1 else (first.replace(day=28) + timedelta(days=4))
        m_start = m_start.replace(day=1)
        month_end = last + timedelta(days=1)
        m_end = last if month_end.day == 1 else last.replace(day=1) - timedelta(days=1)
    except OverflowError:  # the last representable month: count its days
        return days_only
    if m_start > m_end:  # no whole month inside
        return days_only
    # BETWEEN x AND "" matches nothing: no days before a range that starts on the 1st
    before = (m_start - timedelta(days=1)).isoformat() if m_start > first else ""
    return {
        "d1": first_day,
        "d2": before,
        "d3": (m_end + timedelta(days=1)).isoformat(),
        "d4": last_day,
        "m1": m_start.isoformat()[:7],
        "m2": m_end.isoformat()[:7],
    }


def _streaks(r: dict) -> dict:
    for n in engine.STREAKS:
        brk = r.pop(f"brk_{n}")
        r[n] = r["games"] if brk is None else r["cum_last"] - int(brk[-10:])
    return r


def check_family(family: str) -> str:
    """A rule family id, or a UserError listing them."""
    if family not in engine.FAMILIES:
        raise UserError("lb.err.family", value=str(family)[:20], options=", ".join(engine.FAMILIES))
    return family


ORDERS = ("total", "rating")


def leaderboard(
    db: Db, family: str, first_day: str, last_day: str, *, min_games: int = 1, order: str = "total"
) -> list[dict]:
    """Ranked rows (``scoring.stats.rank_rows``) of one family over club days
    [first_day, last_day]; each row has ``player_id``, ``name`` and the member's R and
    dan at the end of the period (``rating``, ``rating_games``, ``dan_level``,
    ``dan_points``; None for a guest or a member with no rated game). ``order="rating"``
    ranks by R instead of the total (``scoring.rating.rank_by_rating``)."""
    check_family(family)
    if order not in ORDERS:
        raise UserError("lb.err.order", value=str(order)[:20], options=", ".join(ORDERS))
    repair_stale(db)
    sums = {
        str(r["player_id"]): _streaks(r)
        for r in db.execute_returning_dicts(
            LEADERBOARD_SQL, {"f": family, **_split(first_day, last_day)}
        )
    }
    # a player merged into another counts as that member, not as a row of their own
    sums = merges.fold(db, sums, family, first_day, last_day, _LINE_SQL, _as_line)
    names = {str(i): n for i, n in db.execute("SELECT id, name FROM players")}
    if settings(db)["guests_ranked"] != "1":
        guests = {str(i) for (i,) in db.execute("SELECT id FROM players WHERE guest = 1")}
        sums = {p: v for p, v in sums.items() if p not in guests}
    rows = engine.rank_rows(sums, min_games=min_games, names=names)
    for row in rows:
        row["player_id"] = int(row["player"])
        row["name"] = names.get(row["player"], f"#{row['player']}")
    held = rating_store.as_of(db, family, [r["player_id"] for r in rows], last_day)
    for row in rows:
        st = held.get(row["player_id"]) or {}
        row["rating"] = st.get("rating")
        row["rating_games"] = st.get("games", 0)
        row["dan_level"] = st.get("dan_level")
        row["dan_points"] = st.get("dan_points")
    return engine.rank_by_rating(rows) if order == "rating" else rows


def families_played(db: Db) -> list[str]:
    """The families that have at least one finished game, in :data:`FAMILIES` order."""
    # one index probe per family (a DISTINCT would read the whole table)
    return [
        f
        for f in engine.FAMILIES
        if db.execute("SELECT 1 FROM stats_days WHERE family = ? LIMIT 1", [f]).fetchone()
    ]


def player_lines(db: Db, player_id: int, family: str) -> list[engine.PlayerGame]:
    """One player's lines in a family, oldest first."""
    return [
        _as_line(r)
        for r in db.execute(
            f"{_LINE_SQL} WHERE player_id = ? AND family = ? ORDER BY club_day, ended_at, game_id",
            [player_id, family],
        )
    ]


def player_families(db: Db, player_id: int) -> list[str]:
    have = {
        r[0]
        for r in db.execute(
            "SELECT DISTINCT family FROM stats_days WHERE player_id = ?", [player_id]
        )
    }
    return [f for f in engine.FAMILIES if f in have]


def player_months(db: Db, player_id: int, family: str) -> list[dict]:
    """A player's figures month by month (``month``: YYYY-MM), oldest first."""
    months: dict[str, list[dict]] = {}
    for r in db.execute_returning_dicts(
        "SELECT * FROM stats_days WHERE player_id = ? AND family = ? ORDER BY club_day",
        [player_id, family],
    ):
        months.setdefault(r["club_day"][:7], []).append(r)
    return [{"month": m, **engine.figures(engine.combine(parts))} for m, parts in months.items()]


def player(db: Db, player_id: int) -> dict:
    row = db.execute_returning_dicts("SELECT * FROM players WHERE id = ?", [player_id])
    if not row:
        raise NotFound("records.no_player", player=player_id)
    return row[0]


def day_games(db: Db, day: str) -> list[int]:
    """Ids of the games finished on a club day (not void), in order."""
    return [
        r[0]
        for r in db.execute(
            "SELECT DISTINCT game_id FROM stats_lines WHERE club_day = ? ORDER BY game_id", [day]
        )
    ]


def unfinished_games(db: Db, day: str, cfg: dict | None = None) -> list[dict]:
    """Games started during a club day that are still being played."""
    start, end = day_bounds(day, cfg or settings(db))
    return db.execute_returning_dicts(
        "SELECT id, table_id, started_at FROM games WHERE status = 'live' "
        "AND started_at >= ? AND started_at < ? ORDER BY id",
        [start, end],
    )


def dumps(data: Any) -> str:
    """JSON written the same way every time (sorted keys, UTF-8)."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1)
