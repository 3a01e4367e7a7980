"""The head office's questions over what the branches sent (schema ``chain`` on
PostgreSQL, see :mod:`chain.pg_schema`): chain leaderboards, R across branches,
each branch's and the chain's daily report (日報), occupancy per branch and a member's
history across branches. Read-only over the mirrored rows.

Members. A branch's player is one chain member when the box linked it to a chain
member id (``member_links``, the box's append-only ``chain_links``); a link that
replaced another id (``previous_chain_id``, a merge staff confirmed) makes the old id
an alias of the new one, so games played under either count as one member's. A member
without a chain id is that branch's own (``branch:player``); guests are never ranked.

Results. Every figure comes from the synced per-seat lines (``game_lines``: what the
box's engine worked out of each finished game's hand log; a correction replaces them,
a void removes them), through the same engine as the box (:mod:`club.engine`).
Two derived tables are kept in step with them: the branches' sync marks (a sync that
sent anything moves its branch's mark) are compared with the ones the tables were made
from (``ho_derived``) and, when they differ, the tables are built again in one
transaction under an advisory lock (one process does it; readers see the old tables
until it commits). The pages never wait for that: a :class:`Refresher` thread does it in
the background and builds the leaderboards people open ahead; :func:`leaderboard` and
:func:`member_history` called alone bring the tables in step first.

* ``ho_days``: each member's sums (``scoring.stats``) per family and club day, for the
  whole chain and for each branch alone, with the running count of games the current
  streaks are read from; a leaderboard of any period is the box's own leaderboard SQL
  over them, ranked by ``scoring.stats.rank_rows``;
* ``ho_rating_lines``: R across branches, ``scoring.rating``'s ladder over every
  branch's games of a family in time order (finish time, then branch, then game),
  keyed by member (the chain has no dan table: dan ladders stay each club's).

The 日報 is :mod:`chain.ho_report`: the box's own pure steps over the day's
synced rows read from PostgreSQL (one branch's, or every branch's together for the
chain's, read in its first branch's time zone and hours); the refresher builds today's
ahead.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Iterable
from datetime import date, datetime, timedelta, timezone
from typing import Any

from chain import ho_report, pg_schema
from club import engine, stats_store
from club.errors import NotFound, UserError

S = pg_schema.SCHEMA

_DAY_SUMS_SQL = ",\n    ".join(
    f"{n} {'double precision' if n in ('total', 'best') else 'bigint'}" for n in engine.SUM_NAMES)

MIGRATIONS: list[tuple[int, str, str]] = [
    (101, "derived_ratings", f"""
CREATE TABLE {S}.ho_derived (
    what text PRIMARY KEY,
    mark text NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE {S}.ho_rating_lines (
    family text NOT NULL,
    member text NOT NULL,
    branch text NOT NULL,
    game_id bigint NOT NULL,
    seat smallint NOT NULL,
    ended_at timestamptz NOT NULL,
    club_day date NOT NULL,
    games integer NOT NULL,
    r_before double precision NOT NULL,
    r_after double precision NOT NULL,
    change double precision NOT NULL,
    peak double precision NOT NULL,
    PRIMARY KEY (family, branch, game_id, seat)
);
CREATE INDEX ho_rating_lines_member ON {S}.ho_rating_lines (member, family, club_day, ended_at);
"""),
    (102, "derived_days", f"""
CREATE TABLE {S}.ho_days (
    scope text NOT NULL,
    family text NOT NULL,
    club_day date NOT NULL,
    member text NOT NULL,
    cum_games integer NOT NULL,
    {_DAY_SUMS_SQL},
    PRIMARY KEY (scope, family, club_day, member)
);
"""),
    (103, "derived_days_rating", f"""
-- the member's R across branches at the end of the day, and its games (rebuilt with the
-- rest of the derived tables: the mark is cleared so the next reading fills them)
ALTER TABLE {S}.ho_days ADD COLUMN rating double precision, ADD COLUMN rating_games integer;
DELETE FROM {S}.ho_derived;
"""),
]
"""The head office's own steps, numbered after :data:`pg_schema.MIGRATIONS`."""


def migrate(conn: Any) -> list[str]:
    """The chain schema and the head office's own tables, up to date."""
    return pg_schema.migrate(conn, MIGRATIONS)


def migrate_url(url: str) -> list[str]:
    """:func:`migrate` on a new connection to ``url``."""
    with pg_schema.connect(url) as conn:
        return migrate(conn)


def _rows(conn: Any, sql: str, params: Iterable[Any] = ()) -> list[dict]:
    from psycopg.rows import dict_row

    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(sql, list(params))
        return cur.fetchall()


def _iso(value: Any) -> str:
    """A timestamptz as the box writes its times (UTC, milliseconds)."""
    if value is None:
        return None  # type: ignore[return-value]
    return value.astimezone(timezone.utc).isoformat(timespec="milliseconds")


# --------------------------------------------------------------------------- members
class Members:
    """Who is who across the branches: each branch player's member key, chain ids with
    their aliases followed, and a name to show for each key."""

    sync_mark = ""
    """The branches' sync marks these members were read at (see :func:`members`)."""

    def __init__(self, conn: Any):
        links = _rows(conn, f"SELECT branch, player_id, chain_id, previous_chain_id, "
                            f"merged_into FROM {S}.member_links ORDER BY at, branch, id")
        self.alias: dict[str, str] = {}
        current: dict[tuple[str, int], str] = {}
        for r in links:
            current[(r["branch"], r["player_id"])] = r["chain_id"]
            prev = r["previous_chain_id"]
            if prev and prev != r["chain_id"]:
                self.alias[prev] = r["chain_id"]
        players = _rows(conn, f"SELECT branch, id, name, guest, member_no, created_at "
                              f"FROM {S}.players ORDER BY branch, id")
        self.players = {(p["branch"], p["id"]): p for p in players}
        self.key: dict[tuple[str, int], str | None] = {}
        for k, p in self.players.items():
            if p["guest"]:
                self.key[k] = None
            elif k in current:
                self.key[k] = self.resolve(current[k])
            else:
                self.key[k] = f"{k[0]}:{k[1]}"
        self.names: dict[str, str] = {}
        self._records: dict[str, list[tuple[str, int]]] = {}
        for k, member in sorted(self.key.items()):  # the newest record's name shown
            if member is not None:
                self.names[member] = self.players[k]["name"]
                self._records.setdefault(member, []).append(k)

    def resolve(self, chain_id: str) -> str:
        """A chain id with its aliases followed to the id the member carries now."""
        seen = {chain_id}
        while chain_id in self.alias and self.alias[chain_id] not in seen:
            chain_id = self.alias[chain_id]
            seen.add(chain_id)
        return chain_id

    def records(self, member: str) -> list[tuple[str, int]]:
        """The (branch, player) records of one member key."""
        return list(self._records.get(member, ()))

    def mark(self) -> str:
        return hashlib.sha256(json.dumps(sorted(
            (b, p, k or "") for (b, p), k in self.key.items())).encode()).hexdigest()


# --------------------------------------------------------------------------- reading lines
_LINE_FIELDS = ("game_id", "seat", "players", "ended_at", "rank", "result", "final_score",
                "busted", "hands", "wins", "tsumo_wins", "deal_ins", "riichi", "win_points",
                "deal_in_points", "chips", "penalties", "chombo")


def _line(r: dict, member: str) -> engine.PlayerGame:
    d = {k: r[k] for k in _LINE_FIELDS}
    d["ended_at"] = _iso(r["ended_at"])
    d["busted"] = bool(d["busted"])
    d["player"] = member
    return engine.line_from_dict(d)


def branches(conn: Any) -> list[dict]:
    """The branches that have synced, by id: ``branch``, ``name``, ``last_sync_at``."""
    return _rows(conn, f"SELECT branch, name, first_sync_at, last_sync_at FROM {S}.branches "
                       "ORDER BY branch")


def check_branch(conn: Any, branch: str) -> str:
    """A branch id that has synced, or NotFound naming the known ones."""
    known = [b["branch"] for b in branches(conn)]
    if branch not in known:
        raise NotFound("ho.err.branch", value=str(branch)[:40], options=", ".join(known))
    return branch


def families_played(conn: Any) -> list[str]:
    """The rule families with at least one synced finished game, in the box's order."""
    have = {r["family"] for r in _rows(conn, f"SELECT DISTINCT family FROM {S}.game_lines")}
    return [f for f in engine.FAMILIES if f in have]


def _leaderboard_sql() -> str:
    # The box's own leaderboard SQL (club.stats_store) over the head office's day
    # rows: sums from scoring.stats.SUMS, and current streaks in the same pass from the
    # last day of the period with a break in it (its running count before the break).
    # (a SUM of bigints is numeric in PostgreSQL: cast back to whole numbers)
    sums = ", ".join(
        f"MAX({x.name}) AS {x.name}" if x.how == "max"
        else f"SUM({x.name}){'' if x.name == 'total' else '::bigint'} AS {x.name}"
        for x in engine.SUMS)
    breaks = ", ".join(
        f"MAX(CASE WHEN {n} < games THEN club_day::text || "
        f"lpad((cum_games - {n})::text, 10, '0') END) AS brk_{n}" for n in engine.STREAKS)
    # R at the period's end: the member's last day in it (they played no later game of
    # the family before the period ended), as text that sorts by day
    rating = ("MAX(club_day::text || '|' || COALESCE(rating::text, '') || '|' || "
              "COALESCE(rating_games::text, '')) AS rating_end")
    return (f"SELECT member, {sums}, MAX(cum_games) AS cum_last, {breaks}, {rating} "
            f"FROM {S}.ho_days "
            "WHERE scope = %s AND family = %s AND club_day BETWEEN %s AND %s GROUP BY member")


LEADERBOARD_SQL = _leaderboard_sql()


def _streaks(r: dict) -> dict:
    for n in engine.STREAKS:
        brk = r.pop(f"brk_{n}")
        r[n] = r["games"] if brk is None else r["cum_last"] - int(brk[-10:])
    return r


def leaderboard(conn: Any, family: str, first_day: str, last_day: str, *, min_games: int = 1,
                order: str = "total", branch: str | None = None) -> list[dict]:
    """The chain's ranked rows of one family over club days [first_day, last_day] (every
    branch's games, or one ``branch``'s), one per member: the box's figures
    (``scoring.stats``) with ``member`` (chain id or ``branch:player``), ``name``,
    ``branches`` (where the member has a record) and the member's R across branches at
    the end of the period (``rating``, ``rating_games``). The derived tables are brought
    in step first (see :class:`Refresher` for the pages, which never wait for that)."""
    scope = _check_question(conn, family, first_day, last_day, order, branch)
    who = refresh(conn)
    # a pure function of the synced state (its marks) and the question: kept until a sync
    key = (conn.info.dsn, who.sync_mark, family, first_day, last_day, min_games, order, scope)
    if key in _BOARDS:
        return _copied(_BOARDS[key])
    rows = _board(conn, who, family, first_day, last_day, min_games, order, scope)
    if len(_BOARDS) >= BOARDS_KEPT:
        _BOARDS.clear()
    _BOARDS[key] = rows
    return _copied(rows)


def _check_question(conn: Any, family: str, first_day: str, last_day: str, order: str,
                    branch: str | None) -> str:
    """The leaderboard's question checked (UserError / NotFound in words); its scope."""
    stats_store.check_family(family)
    stats_store.parse_day(first_day)
    stats_store.parse_day(last_day)
    if order not in stats_store.ORDERS:
        raise UserError("lb.err.order", value=str(order)[:20],
                        options=", ".join(stats_store.ORDERS))
    return check_branch(conn, branch) if branch is not None else ""


def _board(conn: Any, who: Members, family: str, first_day: str, last_day: str,
           min_games: int, order: str, scope: str) -> list[dict]:
    """A leaderboard worked out over the derived tables as they stand."""
    sums = {r["member"]: _streaks(r) for r in _rows(
        conn, LEADERBOARD_SQL, [scope, family, first_day, last_day])}
    held: dict[str, dict] = {}
    for m, r in sums.items():
        r.pop("member")
        r.pop("cum_last")
        _, rating, games = r.pop("rating_end").split("|")
        if rating:
            held[m] = {"rating": float(rating), "games": int(games)}
    rows = engine.rank_rows(sums, min_games=min_games, names=who.names)
    if scope:  # a branch's days: the member may have played elsewhere since
        held = ratings_as_of(conn, family, [r["player"] for r in rows], last_day, fresh=True)
    for row in rows:
        row["member"] = row["player"]
        row["name"] = who.names.get(row["player"], row["player"])
        # a tuple: rows of atoms only, which the collector stops looking into (a page
        # held in memory must not lengthen every collection pass of the serving process)
        row["branches"] = tuple(sorted({b for b, _ in who.records(row["player"])}))
        st = held.get(row["player"]) or {}
        row["rating"] = st.get("rating")
        row["rating_games"] = st.get("games", 0)
    return engine.rank_by_rating(rows) if order == "rating" else rows


def _copied(rows: list[dict]) -> list[dict]:
    """Rows a caller may change (a kept leaderboard never is)."""
    return [{**r, "branches": list(r["branches"])} for r in rows]


BOARDS_KEPT = 64
"""Leaderboards kept per process (every one is dropped when this many are kept)."""
_BOARDS: dict[tuple, list[dict]] = {}


# --------------------------------------------------------------------------- derived tables
_MEMBERS: dict[str, Members] = {}
"""The members as of a sync state (its marks), per database: read once per sync."""


def _marks(conn: Any) -> str:
    marks = _rows(conn, f"SELECT branch, tbl, mark, token FROM {S}.sync_marks "
                        "ORDER BY branch, tbl")
    return hashlib.sha256(json.dumps([[m["branch"], m["tbl"], m["mark"], m["token"]]
                                      for m in marks]).encode()).hexdigest()


def members(conn: Any) -> tuple[Members, str]:
    """Who is who as of the synced rows now, and the mark of that state."""
    mark = _marks(conn)
    key = f"{conn.info.dsn}|{mark}"
    if key not in _MEMBERS:
        _MEMBERS.clear()
        who = Members(conn)
        who.sync_mark = mark
        _MEMBERS[key] = who
    return _MEMBERS[key], mark


def rated_games(conn: Any, family: str, who: Members | None = None) -> list[engine.RatedGame]:
    """Every branch's finished games of a family in time order (finish time, branch,
    game), each seat keyed by member (None for a guest): the input of the ladder."""
    return [g for g, _, _ in _rated(conn, family, who or Members(conn))]


def _rated(conn: Any, family: str, who: Members) -> list[tuple[engine.RatedGame, str, date]]:
    out: list[tuple[engine.RatedGame, str, date]] = []
    cur: tuple | None = None
    seats: list[engine.RatedSeat] = []
    for r in _rows(conn, f"SELECT l.branch, l.game_id, l.seat, l.player_id, l.rank, l.ended_at, "
                         f"l.club_day, g.rules -> 'game' ->> 'length' AS length "
                         f"FROM {S}.game_lines l "
                         f"JOIN {S}.games g ON g.branch = l.branch AND g.id = l.game_id "
                         "WHERE l.family = %s ORDER BY l.ended_at, l.branch, l.game_id, l.seat",
                   [family]):
        key = (r["branch"], r["game_id"])
        if cur is not None and key != cur[0]:
            out.append((engine.RatedGame(cur[0][1], cur[1], cur[2], tuple(seats)), cur[0][0],
                        cur[3]))
            seats = []
        cur = (key, _iso(r["ended_at"]), r["length"] or "hanchan", r["club_day"])
        seats.append(engine.RatedSeat(who.key.get((r["branch"], r["player_id"])), r["rank"]))
    if cur is not None:
        out.append((engine.RatedGame(cur[0][1], cur[1], cur[2], tuple(seats)), cur[0][0],
                    cur[3]))
    return out


def refresh(conn: Any, *, force: bool = False) -> Members:
    """Bring the derived tables (``ho_rating_lines``, ``ho_days``) in step with the synced
    rows: rebuilt when the branches' sync marks differ from the ones they were made
    from (a sync that sent anything moves its branch's mark). Returns the members."""
    who, mark = members(conn)
    now = _rows(conn, f"SELECT mark FROM {S}.ho_derived WHERE what = 'derived'")
    if now and now[0]["mark"] == mark and not force:
        return who
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('jantaku.headoffice.derived'))")
        now = _rows(conn, f"SELECT mark FROM {S}.ho_derived WHERE what = 'derived'")
        if now and now[0]["mark"] == mark and not force:
            return who
        conn.execute(f"DELETE FROM {S}.ho_rating_lines")
        conn.execute(f"DELETE FROM {S}.ho_days")
        day_end: dict[tuple, tuple[float, int]] = {}
        for family in engine.FAMILIES:
            _rate(conn, family, who, day_end)
        _fill_days(conn, who, day_end)
        conn.execute(f"INSERT INTO {S}.ho_derived (what, mark, updated_at) VALUES "
                     "('derived', %s, now()) ON CONFLICT (what) DO UPDATE SET "
                     "mark = excluded.mark, updated_at = now()", [mark])
    return who


def refresh_ratings(conn: Any, *, force: bool = False) -> bool:
    """:func:`refresh`; True when it rebuilt the derived tables."""
    _, mark = members(conn)
    before = _rows(conn, f"SELECT mark FROM {S}.ho_derived WHERE what = 'derived'")
    refresh(conn, force=force)
    return force or not before or before[0]["mark"] != mark


_RATING_COLUMNS = ("family", "member", "branch", "game_id", "seat", "ended_at", "club_day",
                   "games", "r_before", "r_after", "change", "peak")
_DAY_COLUMNS = ("scope", "family", "club_day", "member", "cum_games", *engine.SUM_NAMES,
                "rating", "rating_games")
_CHUNK = 20_000


def _copy(conn: Any, table: str, columns: tuple[str, ...], rows: list[tuple]) -> None:
    """Rows into a head office table by COPY (one connection runs one command at a time:
    rows are read first, then copied)."""
    if not rows:
        return
    with conn.cursor() as cur, cur.copy(
            f"COPY {S}.{table} ({', '.join(columns)}) FROM STDIN") as cp:
        for row in rows:
            cp.write_row(row)


def _rate(conn: Any, family: str, who: Members, day_end: dict) -> None:
    """Rate a family's games in order into ``ho_rating_lines``; ``day_end`` gets each
    member's R and games at the end of each club day they played."""
    ladder = engine.Ladder()
    rows: list[tuple] = []
    for game, branch, day in _rated(conn, family, who):
        for line in ladder.apply(game):
            a = line.after
            rows.append((family, line.player, branch, line.game_id, line.seat, game.ended_at,
                         day, a.games, line.before.rating, a.rating, line.change, a.peak))
            day_end[(family, line.player, day)] = (a.rating, a.games)
        if len(rows) >= _CHUNK:
            _copy(conn, "ho_rating_lines", _RATING_COLUMNS, rows)
            rows = []
    _copy(conn, "ho_rating_lines", _RATING_COLUMNS, rows)


def _fill_days(conn: Any, who: Members, day_end: dict) -> None:
    """``ho_days``: each member's sums per family and club day, for the whole chain
    (scope '') and for each branch alone (scope: the branch), with the running count of
    games (``cum_games``) the streaks are read from, as the box's ``stats_days``."""
    conn.execute("CREATE TEMP TABLE ho_keys (branch text, player_id bigint, member text) "
                 "ON COMMIT DROP")
    _copy_keys = [(b, p, m) for (b, p), m in who.key.items() if m is not None]
    with conn.cursor() as cur, cur.copy("COPY ho_keys FROM STDIN") as cp:
        for row in _copy_keys:
            cp.write_row(row)
    fields = ", ".join(f"l.{f}" for f in _LINE_FIELDS)
    for scope_sql, order in (("''", "k.member"), ("l.branch", "l.branch, k.member")):
        sql = (f"SELECT {scope_sql} AS scope, l.family, l.club_day, k.member, {fields} "
               f"FROM {S}.game_lines l JOIN ho_keys k ON k.branch = l.branch "
               f"AND k.player_id = l.player_id ORDER BY {order}, l.family, l.club_day, "
               "l.ended_at, l.game_id")
        group: tuple | None = None
        day_lines: list[engine.PlayerGame] = []
        cum = 0
        with conn.cursor(name="ho_days_read") as src:
            src.execute(sql)
            while True:
                batch = src.fetchmany(_CHUNK)
                out: list[tuple] = []
                for r in batch:
                    key = (r[0], r[1], r[2], r[3])
                    if group is not None and key != group:
                        cum = _day_row(out, group, day_lines, cum, day_end)
                        day_lines = []
                        if group[:2] != key[:2] or group[3] != key[3]:
                            cum = 0
                    group = key
                    day_lines.append(_line(dict(zip(_LINE_FIELDS, r[4:], strict=True)), key[3]))
                if not batch and group is not None:
                    _day_row(out, group, day_lines, cum, day_end)
                # the server-side cursor stays open between fetches; COPY in between
                _copy(conn, "ho_days", _DAY_COLUMNS, out)
                if not batch:
                    break


def _day_row(out: list, group: tuple, lines: list, cum: int, day_end: dict) -> int:
    sums = engine.aggregate(lines)
    cum += sums["games"]
    r, n = day_end.get((group[1], group[3], group[2]), (None, None))
    out.append((*group, cum, *(sums[n] for n in engine.SUM_NAMES), r, n))
    return cum


def ratings_as_of(conn: Any, family: str, members_: Iterable[str], last_day: str, *,
                  fresh: bool = False) -> dict:
    """Members' R across branches at the end of club day ``last_day``:
    ``{member: {"rating", "games", "peak"}}`` (members with no rated game left out)."""
    wanted = list(members_)
    if not wanted:
        return {}
    if not fresh:
        refresh(conn)
    return {r["member"]: r for r in _rows(
        conn, "SELECT m.member, r.rating, r.games, r.peak FROM unnest(%s::text[]) AS m(member) "
              "CROSS JOIN LATERAL (SELECT r_after AS rating, games, peak "
              f"FROM {S}.ho_rating_lines h WHERE h.member = m.member AND h.family = %s "
              "AND h.club_day <= %s ORDER BY h.club_day DESC, h.ended_at DESC, h.branch DESC, "
              "h.game_id DESC LIMIT 1) r", [wanted, family, last_day])}


# --------------------------------------------------------------------------- a member
def member_history(conn: Any, member: str, who: Members | None = None) -> dict:
    """A member's records at every branch and their games across branches, oldest first
    (``branch``, ``game_id``, ``club_day``, ``family``, ``rank``, ``result``, R before
    and after across branches). With ``who`` (a :class:`Refresher`'s members) the derived
    tables are read as they stand, else brought in step first."""
    who = who or refresh(conn)
    key = who.resolve(member) if member.startswith("JM-") else member
    records = who.records(key)
    if not records:
        raise NotFound("ho.err.member", value=str(member)[:40])
    branch_list = [r[0] for r in records]
    player_list = [r[1] for r in records]
    games = _rows(
        conn,
        f"SELECT l.branch, l.game_id, l.seat, l.player_id, l.family, l.club_day, l.ended_at, "
        f"l.rank, l.players, l.result, l.chips, r.r_before, r.r_after, r.change "
        f"FROM {S}.game_lines l JOIN unnest(%s::text[], %s::bigint[]) AS m(branch, player_id) "
        "ON m.branch = l.branch AND m.player_id = l.player_id "
        f"LEFT JOIN {S}.ho_rating_lines r ON r.family = l.family AND r.branch = l.branch "
        "AND r.game_id = l.game_id AND r.seat = l.seat "
        "ORDER BY l.ended_at, l.branch, l.game_id",
        [branch_list, player_list])
    for g in games:
        g["club_day"] = g["club_day"].isoformat()
        g["ended_at"] = _iso(g["ended_at"])
    return {
        "member": key,
        "name": who.names.get(key, key),
        "records": [{"branch": b, "player_id": p, "name": who.players[(b, p)]["name"],
                     "member_no": who.players[(b, p)]["member_no"]} for b, p in records],
        "branches": sorted({b for b, _ in records} | {g["branch"] for g in games}),
        "games": games,
    }


# --------------------------------------------------------------------------- the 日報
def report(conn: Any, day: str, branch: str | None = None) -> dict:
    """The 日報 of a club day for one branch, or for the whole chain (``branch`` None),
    read from PostgreSQL directly (:func:`chain.ho_report.report`)."""
    return ho_report.report(conn, day, branch)


# --------------------------------------------------------------------------- background refresh
REFRESH_LOCK = "jantaku.headoffice.refresh"
"""The advisory lock (``pg_try_advisory_lock(hashtext(…))``) a refresher holds while it
rebuilds the derived tables: one process of the head office rebuilds, the others wait
for its commit and only build their own kept leaderboards."""
REST_FACTOR = 2.0
"""After a look that took this process's processor for *s* seconds, the refresh thread
rests ``REST_FACTOR × s`` (at least its ``every``): at most a third of one core."""
BODIES_KEPT = 128
"""Rendered board pages one :class:`Built` keeps, up to about 50 KB each (the first
pages of the boards built ahead in two languages, and the pages people turned to; past
that a page is rendered each time)."""
STANDARD_PERIODS = ("month", "previous_month", "all")
"""The periods built ahead for every family played (whole chain, min 1 game, by total
and by R): the ones people open."""

_log = logging.getLogger(__name__)


def chain_settings(conn: Any) -> dict:
    """The club-day settings the chain's pages read days and times in (its first
    branch's: time zone, opening and closing hours)."""
    cfg = dict(stats_store.DEFAULT_SETTINGS)
    first = branches(conn)
    if first:
        cfg.update({r["key"]: r["value"] for r in _rows(
            conn, f"SELECT key, value FROM {S}.settings WHERE branch = %s",
            [first[0]["branch"]])})
    return cfg


def standard_ranges(today: str) -> dict[str, tuple[str, str]]:
    """The club-day ranges of :data:`STANDARD_PERIODS` as of club day ``today``."""
    d = stats_store.parse_day(today)
    prev_last = d.replace(day=1) - timedelta(days=1)
    return {"month": stats_store.period_range("month", today),
            "previous_month": stats_store.period_range("month", prev_last.isoformat()),
            "all": stats_store.period_range("all", today)}


class Built:
    """One synced state's work, swapped in whole: its ``mark``, the newest sync it holds
    (``synced_at``), the club ``settings``, the ``today`` it was built for, the members
    the families played and the leaderboards built ahead (read-only lists, keyed by the
    question); ``seconds``: how long the refresh that built it took."""

    def __init__(self, mark: str, synced_at: datetime | None, settings: dict, today: str,
                 who: Members, families: list[str], boards: dict[tuple, list[dict]],
                 seconds: float, names: dict[str, str] | None = None):
        self.mark, self.synced_at, self.settings, self.today = mark, synced_at, settings, today
        self.who, self.families, self.boards, self.seconds = who, families, boards, seconds
        self.names = names or {}
        """The names the branches showed when the boards were built (branch → name, its
        id when it has none: :func:`chain.ho_report.branch_names`)."""
        self.bodies: dict[tuple, str] = {}
        """Pages of the boards rendered ahead or on first request, keyed by the caller
        (the web app: question, page and language); bounded by :data:`BODIES_KEPT`."""

    def keep_body(self, key: tuple, body: str) -> None:
        """Keep one rendered page of a board (not once :data:`BODIES_KEPT` are kept)."""
        if len(self.bodies) < BODIES_KEPT:
            self.bodies[key] = body


class BuiltReports:
    """Today's 日報 pages read in one snapshot: that snapshot's ``mark``, the club day
    ``today``, the newest sync it holds (``synced_at``), ``pages`` keyed by branch (None:
    the chain's) and how long building them took (``seconds``)."""

    def __init__(self, mark: str, today: str, synced_at: datetime | None,
                 pages: dict[str | None, dict], seconds: float):
        self.mark, self.today, self.synced_at = mark, today, synced_at
        self.pages, self.seconds = pages, seconds
        self.bodies: dict[tuple[str | None, str], str] = {}
        """The pages' sections rendered ahead, by (branch, language)."""
        self.json: dict[str | None, bytes] = {
            b: json.dumps(page, ensure_ascii=False).encode() for b, page in pages.items()}
        """Each page as its JSON answer, made once."""


class Refresher:
    """Keeps the head office's derived tables and standard leaderboards in step with the
    branches' syncs, off the requests: :meth:`tick` looks at the sync marks and, when
    they moved, rebuilds the derived tables (under :data:`REFRESH_LOCK`, tried, never
    waited for: when another process holds it, this one looks again next time) and
    builds the leaderboards of :data:`STANDARD_PERIODS`, then swaps them in at once
    (:attr:`built`). :meth:`start` runs :meth:`tick` every ``every`` seconds in a
    thread of this process (started again in a forked process). ``today`` fixes the club
    day the standard periods end on (a benchmark over a past year); else the club's
    today."""

    def __init__(self, url: str, every: float = 5.0, today: str | None = None,
                 prepare: Any = None, prepare_boards: Any = None):
        self.url, self.every, self.fixed_today = url, every, today
        self.prepare = prepare
        """Called with each :class:`BuiltReports` before it is swapped in (the web app
        renders the heaviest sections ahead)."""
        self.prepare_boards = prepare_boards
        """Called with each :class:`Built` before it is swapped in (the web app renders
        the first page of every board built ahead)."""
        self.built: Built | None = None
        self.reports: BuiltReports | None = None
        self._days: dict[tuple, dict] = {}
        """Today's 日報 pages as of the newest synced state this refresher read."""
        self.rebuilds = 0
        """How many times this refresher rebuilt the derived tables."""
        self.last_error = ""
        self._conn: Any = None
        self._pid = 0
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._tick_lock = threading.Lock()

    # ------------------------------------------------------------------ the work
    def _connection(self) -> Any:
        if self._conn is None or self._conn.closed or self._conn.broken:
            self._conn = pg_schema.connect(self.url)
            self._conn.autocommit = True
        return self._conn

    def tick(self) -> str:
        """One look: ``same`` (nothing moved), ``busy`` (another process is rebuilding
        the derived tables), or ``built`` (new leaderboards swapped in)."""
        with self._tick_lock:
            conn = self._connection()
            mark = _marks(conn)
            today = self.fixed_today or stats_store.today(chain_settings(conn))
            try:
                self._build_reports(conn, mark, today)
            except (UserError, NotFound) as e:  # a branch's settings it cannot read
                self.last_error = str(e)[:200]  # the leaderboards are built all the same
                _log.warning("head office 日報 not built ahead: %s", self.last_error)
            built = self.built
            if built is not None and built.mark == mark and built.today == today:
                return "same"
            t0 = time.perf_counter()
            derived = _rows(conn, f"SELECT mark FROM {S}.ho_derived WHERE what = 'derived'")
            if not derived or derived[0]["mark"] != mark:
                if not self._rebuild(conn):
                    return "busy"
            return self._build(conn, t0)

    def _build_reports(self, conn: Any, mark: str, today: str) -> None:
        """Today's 日報 pages (the chain's and each branch's), built ahead in one snapshot
        when a sync moved a mark or the club day turned; swapped in whole."""
        held = self.reports
        if held is not None and held.mark == mark and held.today == today:
            return
        t0 = time.perf_counter()
        with conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            now = _marks(conn)
            names = ho_report.branch_names(conn)
            pages: dict[str | None, dict] = {}
            if names:
                pages[None] = ho_report.report_page(conn, today)
                for b in names:
                    pages[b] = ho_report.report_page(conn, today, b)
            synced = _rows(conn, f"SELECT max(last_sync_at) AS at FROM {S}.branches")
        held = BuiltReports(now, today, synced[0]["at"], pages, 0.0)
        if self.prepare is not None:
            self.prepare(held)
        held.seconds = time.perf_counter() - t0
        self.reports = held

    def report_page(self, conn: Any, day: str, branch: str | None = None) -> dict:
        """The 日報 page of ``day`` (:func:`ho_report.report_page`): today's as built ahead
        (not to be changed), another day's worked out now in the caller's snapshot."""
        held = self.reports
        if held is not None and held.today == day and branch in held.pages:
            return held.pages[branch]
        # another day's page is a pure function of the synced state it was read in
        key = (_marks(conn), day, branch)
        page = self._days.get(key)
        if page is None:
            page = ho_report.report_page(conn, day, branch)
            if len(self._days) >= BOARDS_KEPT:
                self._days.clear()
            self._days[key] = page
        return page

    def _rebuild(self, conn: Any) -> bool:
        got = conn.execute("SELECT pg_try_advisory_lock(hashtext(%s))",
                           [REFRESH_LOCK]).fetchone()[0]
        if not got:
            return False
        try:
            if refresh_ratings(conn):
                self.rebuilds += 1
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", [REFRESH_LOCK])
        return True

    def _build(self, conn: Any, t0: float) -> str:
        # one snapshot: the marks, the derived tables' mark and the rows read agree
        with conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            mark = _marks(conn)
            derived = _rows(conn, f"SELECT mark FROM {S}.ho_derived WHERE what = 'derived'")
            if not derived or derived[0]["mark"] != mark:
                return "busy"  # a sync came in between: the next look rebuilds
            cfg = chain_settings(conn)
            today = self.fixed_today or stats_store.today(cfg)
            who = Members(conn)
            who.sync_mark = mark
            synced = _rows(conn, f"SELECT max(last_sync_at) AS at FROM {S}.branches")
            names = ho_report.branch_names(conn)
            boards: dict[tuple, list[dict]] = {}
            families = families_played(conn)
            for family in families:
                for first, last in standard_ranges(today).values():
                    rows = _board(conn, who, family, first, last, 1, "total", "")
                    boards[(family, first, last, 1, "total", "")] = rows
                    boards[(family, first, last, 1, "rating", "")] = engine.rank_by_rating(
                        [dict(r) for r in rows])
        built = Built(mark, synced[0]["at"], cfg, today, who, families, boards, 0.0, names)
        if self.prepare_boards is not None:
            self.prepare_boards(built)
        built.seconds = time.perf_counter() - t0
        self.built = built
        return "built"

    def leaderboard(self, conn: Any, family: str, first_day: str, last_day: str, *,
                    min_games: int = 1, order: str = "total",
                    branch: str | None = None) -> list[dict]:
        """The newest built leaderboard of this question (not to be changed), or one
        worked out now over the derived tables as they stand (an odd period or branch):
        never a rebuild."""
        scope = _check_question(conn, family, first_day, last_day, order, branch)
        built = self.built
        if built is None:  # nothing built yet here (another process rebuilding)
            return _board(conn, Members(conn), family, first_day, last_day, min_games, order,
                          scope)
        rows = built.boards.get((family, first_day, last_day, min_games, order, scope))
        if rows is not None:
            return rows
        return _board(conn, built.who, family, first_day, last_day, min_games, order, scope)

    def member_history(self, conn: Any, member: str) -> dict:
        """:func:`member_history` with the built members (never a rebuild)."""
        built = self.built
        return member_history(conn, member, built.who if built else Members(conn))

    # ------------------------------------------------------------------ the thread
    def start(self) -> None:
        """The refresh thread of this process, started if it is not running here (a
        forked process starts its own; no connection crosses the fork)."""
        if self._pid == os.getpid() and self._thread is not None and self._thread.is_alive():
            return
        if self._pid != os.getpid():
            self._conn = None  # the parent's connection is the parent's
            self._tick_lock = threading.Lock()
        self._pid = os.getpid()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="headoffice-refresh",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread (if running here) and close the connection."""
        self._stop.set()
        if self._thread is not None and self._pid == os.getpid():
            self._thread.join(timeout=60)
        self._thread = None
        if self._conn is not None and self._pid in (0, os.getpid()):
            self._conn.close()
        self._conn = None

    def _run(self) -> None:
        pause = self.every
        while not self._stop.wait(pause):
            used = time.thread_time()
            try:
                self.tick()
                self.last_error = ""
            except Exception as e:  # noqa: BLE001 (the database away for a while: look again)
                self.last_error = str(e)[:200]
                _log.warning("head office refresh failed: %s", self.last_error)
                if self._conn is not None:
                    self._conn.close()
                self._conn = None
            # this process serves pages too: after a build, rest for REST_FACTOR times the
            # processor time it took here, so a build never takes more than its share from
            # the requests (waiting on PostgreSQL costs them nothing and is not counted)
            pause = max(self.every, REST_FACTOR * (time.thread_time() - used))
