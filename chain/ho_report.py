"""The head office's 日報, read from PostgreSQL directly: a branch's or the whole chain's
day, worked out by the box's own pure steps (:func:`club.daily_report.games_money`
over :mod:`scoring.money`, then :func:`club.daily_report.build_report`), so a
branch's report equals the box's and no figure has a second implementation.

With more than one branch (the chain's report), ids are renumbered in (branch, id) order
and tables named ``branch/table`` so they stay apart, and the day is read in the first
branch's time zone and hours. :func:`report_page` adds each branch's row for the
chain's page; :class:`chain.ho_questions.Refresher` builds today's pages ahead.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from chain import pg_schema
from club import daily_report, stats_store
from club.errors import NotFound

S = pg_schema.SCHEMA


def _rows(conn: Any, sql: str, params: list[Any]) -> list[dict]:
    from psycopg.rows import dict_row

    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(sql, params)
        return cur.fetchall()


def _iso(value: datetime) -> str:
    return value.astimezone(timezone.utc).isoformat(timespec="milliseconds")


def branch_names(conn: Any) -> dict[str, str]:
    """Every synced branch by id, with the name it shows (its id when it has none)."""
    return {b["branch"]: b["name"] or b["branch"] for b in _rows(
        conn, f"SELECT branch, name FROM {S}.branches ORDER BY branch", [])}


def settings(conn: Any, branch: str) -> dict:
    """A branch's club-day settings (time zone, hours), over the defaults."""
    cfg = dict(stats_store.DEFAULT_SETTINGS)
    cfg.update({r["key"]: r["value"] for r in _rows(
        conn, f"SELECT key, value FROM {S}.settings WHERE branch = %s", [branch])})
    return cfg


def report(conn: Any, day: str, branch: str | None = None) -> dict:
    """The 日報 of a club day for one branch, or for the whole chain (``branch`` None):
    the box's report with ``branch``, ``rule_titles`` (each rule set's title as its games
    were played under it) and ``occupancy_by_hour`` added. Read in the caller's
    transaction (a page's snapshot)."""
    stats_store.user_day(day)
    names = branch_names(conn)
    if branch is not None and branch not in names:
        raise NotFound("ho.err.branch", value=str(branch)[:40], options=", ".join(names))
    wanted = [branch] if branch else list(names)
    if not wanted:
        raise NotFound("ho.err.no_branches")
    return _report(conn, day, wanted, names, branch)


def _report(conn: Any, day: str, wanted: list[str], names: dict[str, str],
            branch: str | None) -> dict:
    cfg = settings(conn, wanted[0])
    games, seats, tables = _read(conn, day, wanted, cfg)
    return _compose(day, cfg, games, seats, tables, names, len(wanted) > 1, branch)


def _read(conn: Any, day: str, wanted: list[str], cfg: dict) -> tuple[list, list, list]:
    """The day's rows of these branches: games with summary lines that day (``on_day``)
    and the games still live that started in it (by ``cfg``'s hours), their seats'
    lines with the players (``n``: the player's place in (branch, id) order), the
    tables."""
    start, end = stats_store.day_bounds(day, cfg)
    games = _rows(
        conn,
        "SELECT g.branch, g.id, g.table_id, g.rule_set, g.started_at, g.finished_at, g.money, "
        "g.status, g.rules ->> 'title' AS title, l.game_id IS NOT NULL AS on_day FROM "
        f"{S}.games g LEFT JOIN (SELECT DISTINCT branch, game_id FROM {S}.game_lines "
        "WHERE branch = ANY(%s) AND club_day = %s) l ON l.branch = g.branch AND l.game_id = g.id "
        "WHERE g.branch = ANY(%s) AND (l.game_id IS NOT NULL "
        "OR (g.status = 'live' AND g.started_at >= %s AND g.started_at < %s)) "
        "ORDER BY g.branch, g.id", [wanted, day, wanted, start, end])
    seats = _rows(
        conn,
        "SELECT l.branch, l.game_id, l.seat, l.player_id, l.family, l.rank, l.chips, p.name, "
        "p.guest, p.member_no, p.n FROM "
        f"{S}.game_lines l JOIN (SELECT branch, id, name, guest, member_no, row_number() "
        f"OVER (ORDER BY branch, id) AS n FROM {S}.players WHERE branch = ANY(%s)) p "
        "ON p.branch = l.branch AND p.id = l.player_id "
        "WHERE l.branch = ANY(%s) AND l.club_day = %s ORDER BY l.branch, l.game_id, l.seat",
        [wanted, wanted, day])
    tables = _rows(conn, f"SELECT branch, id, name FROM {S}.club_tables WHERE branch = ANY(%s) "
                         "ORDER BY branch, id", [wanted])
    return games, seats, tables


def _compose(day: str, cfg: dict, games: list[dict], seats: list[dict], tables: list[dict],
             names: dict[str, str], many: bool, branch: str | None) -> dict:
    """The report of rows :func:`_read` read (not changed), through the box's steps."""
    gid = {(g["branch"], g["id"]): (i if many else g["id"]) for i, g in enumerate(games, 1)}

    def tid(b: str, t: str) -> str:
        return f"{b}/{t}" if many else t

    lines = []
    for s in seats:
        line = {**s, "game_id": gid[(s["branch"], s["game_id"])], "guest": int(s["guest"])}
        if many:
            line["player_id"] = s["n"]
            line["member_no"] = f"{s['branch']}/{s['member_no']}" if s["member_no"] else None
        lines.append(line)
    # the day's games are the ones with summary lines that day (finished: the box writes
    # a game's lines with its finish, and a batch carries a game whole)
    done = [{**g, "id": gid[(g["branch"], g["id"])], "table_id": tid(g["branch"], g["table_id"])}
            for g in games if g["on_day"] and g["finished_at"] is not None]
    worked = daily_report.games_money(done, lines)
    rep = daily_report.build_report(
        day, cfg, worked,
        [(tid(t["branch"], t["id"]), f"{names[t['branch']]} {t['name']}" if many else t["name"])
         for t in tables],
        [{"id": gid[(g["branch"], g["id"])], "table_id": tid(g["branch"], g["table_id"]),
          "started_at": _iso(g["started_at"])} for g in games if not g["on_day"]])
    rep["branch"] = branch
    rep["rule_titles"] = {}
    for g in games:
        rep["rule_titles"].setdefault(g["rule_set"], g["title"] or g["rule_set"])
    spans = [(g["started"], g["finished"]) for g in worked]
    rep["occupancy_by_hour"] = occupancy_by_hour(day, cfg, len(tables) or 1, spans)
    return rep


def occupancy_by_hour(day: str, cfg: dict, n_tables: int,
                      spans: list[tuple[datetime, datetime]]) -> list[dict]:
    """Each opening hour of a club day (in the club's time zone): ``hour`` (HH:00), the
    games started then and the share of table time in play (``occupancy``) over
    ``n_tables`` tables, from the finished games' (start, finish)."""
    opens, closes = stats_store.open_hours(day, cfg)
    out = []
    hour = opens
    while hour < closes:
        end = min(hour + timedelta(hours=1), closes)
        busy = sum(max(0.0, (min(f, end) - max(s, hour)).total_seconds()) for s, f in spans)
        started = sum(1 for s, _ in spans if hour <= s < end)
        out.append({"hour": hour.strftime("%H:00"), "games": started,
                    "occupancy": busy / (n_tables * (end - hour).total_seconds())})
        hour = end
    return out


def report_page(conn: Any, day: str, branch: str | None = None) -> dict:
    """:func:`report` with ``branches``: for the chain's page, each branch's games, fees,
    occupancy and occupancy by hour, worked out from the same rows read once (in the
    caller's one snapshot), each in its branch's own hours."""
    if branch is not None:
        return {**report(conn, day, branch), "branches": []}
    stats_store.user_day(day)
    names = branch_names(conn)
    if not names:
        raise NotFound("ho.err.no_branches")
    cfg = settings(conn, next(iter(names)))
    games, seats, tables = _read(conn, day, list(names), cfg)
    rep = _compose(day, cfg, games, seats, tables, names, len(names) > 1, None)
    rep["branches"] = []
    for b, name in names.items():
        one = _compose(day, settings(conn, b),
                       [g for g in games if g["branch"] == b and g["on_day"]],
                       [s for s in seats if s["branch"] == b],
                       [t for t in tables if t["branch"] == b], names, False, b)
        rep["branches"].append({"branch": b, "name": name, "games": one["total"]["games"],
                                "fees": one["total"]["fees"],
                                "occupancy": one["total"]["occupancy"],
                                "by_hour": one["occupancy_by_hour"]})
    return rep
