"""A member's report card (成績表) after a game or for a club day, and the day's R risers.

A card holds, per rule family: today's, this month's (to the day) and all-time (to the
day) games, places, average place and total points, the member's R, dan and rank
among the members at the end of the day, and the R change of the day (and of the game,
for a game's card). Everything is read from the summary tables (``stats_days``,
``stats_months``, ``stats_lines``, ``rating_lines``, ``ratings``): nothing is
replayed per card.

Guests get no card (they are not rated); :func:`build` refuses them in words.

:func:`as_lines` renders a card as fixed-width text (32 or 48 columns, a Japanese
character counted as two) for a receipt printer or a plain-text message.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import lexicon
from club import engine, rating_store, standings, stats_store
from club.db import Db, one, rows
from club.errors import NotFound, UserError

PERIODS = ("today", "month", "all")
"""The periods of a card, in the order it shows them."""
POINT_FAMILIES = ("riichi4", "riichi3")
"""Families whose totals are points, written in thousands (+23.4) as the leaderboard does."""
RISERS_SHOWN = 10
WIDTHS = (32, 48)
"""The usual receipt widths in columns: 58 mm and 80 mm paper."""
WIDTH_RANGE = (24, 80)
"""The widths :func:`as_lines` takes: a printer's profile may name its own (42 columns)."""

_SUMS = ("games", "total", "rank_sum", "firsts", "seconds", "thirds", "fourths")


# --------------------------------------------------------------------------- figures
def _figures(sums: dict | None) -> dict:
    """Games, places, average place and total points of one period's sums."""
    s = {k: (sums or {}).get(k) or 0 for k in _SUMS}
    games = int(s["games"])
    return {
        "games": games,
        "places": [int(s["firsts"]), int(s["seconds"]), int(s["thirds"]), int(s["fourths"])],
        "avg_rank": (s["rank_sum"] / games) if games else None,
        "total": float(s["total"]),
    }


_SUM_SQL = ", ".join(f"SUM({k}) AS {k}" for k in _SUMS)


def _period_sums(db: Db, player_id: int, family: str, day: str) -> dict[str, dict]:
    """The sums of the day, the month to the day, and all time to the day: day rows for
    the month so far, month rows before it."""
    month_first = day[:8] + "01"
    today = one(db, f"SELECT {_SUM_SQL} FROM stats_days WHERE player_id = ? AND family = ? "
                    "AND club_day = ?", [player_id, family, day])
    month = one(db, f"SELECT {_SUM_SQL} FROM stats_days WHERE player_id = ? AND family = ? "
                    "AND club_day BETWEEN ? AND ?", [player_id, family, month_first, day])
    before = one(db, f"SELECT {_SUM_SQL} FROM stats_months WHERE player_id = ? AND family = ? "
                     "AND club_day < ?", [player_id, family, day[:7]])
    whole = {k: ((month or {}).get(k) or 0) + ((before or {}).get(k) or 0) for k in _SUMS}
    return {"today": _figures(today), "month": _figures(month), "all": _figures(whole)}


def total_text(value: float | None, family: str) -> str:
    """A total as the club writes it: thousands of points in point families (+23.4),
    the rule's own unit elsewhere."""
    if value is None:
        return "—"
    if family in POINT_FAMILIES:
        return f"{value / 1000:+.1f}"
    return engine.format_figure("total", value)


def _avg_text(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _r_text(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


def _change_text(value: float | None) -> str:
    return "—" if value is None else f"{value:+.1f}"


# --------------------------------------------------------------------------- R and rank
def _later_games(db: Db, family: str, day: str) -> bool:
    """Whether the family has rated games after the club day ``day`` ends."""
    _, end = stats_store.day_bounds(day, stats_store.settings(db))
    return db.conn.execute(
        "SELECT 1 FROM rating_lines WHERE family = ? AND ended_at >= ? LIMIT 1", [family, end]
    ).fetchone() is not None


def _rank(db: Db, family: str, rating: float, day: str) -> tuple[int, int]:
    """(rank, members rated) by R among the members at the end of ``day``."""
    if not _later_games(db, family, day):
        row = db.conn.execute(
            "SELECT SUM(rating > ?), COUNT(*) FROM ratings WHERE family = ?", [rating, family]
        ).fetchone()
    else:  # each member's last line of the day or before (one index probe per member)
        row = db.conn.execute(
            "WITH held AS MATERIALIZED (SELECT (SELECT x.r_after FROM rating_lines x "
            "WHERE x.player_id = p.player_id AND x.family = p.family AND x.club_day <= ? "
            "ORDER BY x.club_day DESC, x.ended_at DESC, x.game_id DESC LIMIT 1) AS r "
            "FROM ratings p WHERE p.family = ?) SELECT SUM(r > ?), COUNT(r) FROM held",
            [day, family, rating],
        ).fetchone()
    return int(row[0] or 0) + 1, int(row[1] or 0)


def _dan(db: Db, family: str, level: int | None, lang: str) -> str:
    table = standings.dan_tables(db).get(family)
    if table is None or level is None or level >= len(table.levels):
        return ""
    return table.name(level, lang)


def _family_name(family: str, lang: str) -> str:
    ja, en = engine.FAMILIES[family]
    return ja if lang == "ja" else en


def _section(db: Db, player_id: int, family: str, day: str, lang: str,
             game_line: dict | None) -> dict:
    """One family's part of a card."""
    held = rating_store.as_of(db, family, [player_id], day).get(player_id)
    if game_line is not None:  # a game's card shows the R this game left
        held = {"rating": game_line["r_after"], "games": game_line["games"],
                "dan_level": game_line["dan_level"], "dan_points": game_line["dan_points"]}
    rating = held["rating"] if held else None
    rank, rated = _rank(db, family, rating, day) if rating is not None else (None, 0)
    day_change = one(db, "SELECT SUM(change) AS c, COUNT(*) AS n FROM rating_lines "
                         "WHERE player_id = ? AND family = ? AND club_day = ?",
                     [player_id, family, day])
    periods = _period_sums(db, player_id, family, day)
    return {
        "family": family,
        "family_name": _family_name(family, lang),
        "periods": periods,
        "totals": {p: total_text(periods[p]["total"], family) for p in PERIODS},
        "avg_ranks": {p: _avg_text(periods[p]["avg_rank"]) for p in PERIODS},
        "rating": rating,
        "rating_text": _r_text(rating),
        "rated_games": held["games"] if held else 0,
        "dan": _dan(db, family, held.get("dan_level") if held else None, lang),
        "rank": rank,
        "rated_members": rated,
        "day_change": day_change["c"] if day_change and day_change["n"] else None,
        "day_change_text": _change_text(day_change["c"] if day_change and day_change["n"]
                                        else None),
        "game_change": game_line["change"] if game_line else None,
        "game_change_text": _change_text(game_line["change"]) if game_line else "",
        "players": 3 if family == "riichi3" else 4,
    }


# --------------------------------------------------------------------------- the card
def _member(db: Db, player_id: int) -> dict:
    p = stats_store.player(db, int(player_id))
    if p["guest"]:
        raise NotFound("card.err.guest", player=p["name"])
    return p


def _game(db: Db, game_id: int, member: dict) -> tuple[dict, dict | None]:
    """A finished game's summary line of this member and its rating line."""
    line = one(db, "SELECT * FROM stats_lines WHERE game_id = ? AND player_id = ?",
               [int(game_id), member["id"]])
    if line is None:
        if one(db, "SELECT 1 AS x FROM stats_lines WHERE game_id = ?", [int(game_id)]) is None:
            raise NotFound("card.err.no_game", game=game_id)
        raise UserError("card.err.not_in_game", game=game_id, player=member["name"])
    rated = one(db, "SELECT * FROM rating_lines WHERE game_id = ? AND player_id = ?",
                [int(game_id), member["id"]])
    return line, rated


def build(db: Db, player_id: int, *, day: str | None = None, game_id: int | None = None,
          lang: str = "ja") -> dict:
    """A member's report card for a club day (default: today) or after a game.

    Keys: ``player_id``, ``name``, ``day`` (the club day), ``lang``, ``game`` (None for a
    day's card; else its ``game_id``, ``rank``, ``players``, ``final_score``, ``result``
    and their texts), ``sections`` (one per family: the game's, or those the member
    played that day, else every family they ever played; see :func:`_section`) and
    ``risers`` (:func:`risers` of the day). Refuses a guest, an unknown player, a game
    not finished and a member who did not play it, in words."""
    lang = lang if lang in lexicon.LANGS else lexicon.DEFAULT_LANG
    p = _member(db, player_id)
    pid = int(p["id"])
    stats_store.repair_stale(db)
    game = None
    rated = None
    if game_id is not None:
        line, rated = _game(db, game_id, p)
        day = line["club_day"]
        families = [line["family"]]
        game = {
            "game_id": int(game_id), "family": line["family"], "rank": line["rank"],
            "players": line["players"], "final_score": line["final_score"],
            "result": line["result"], "result_text": total_text(line["result"], line["family"]),
            "ended_at": line["ended_at"],
        }
    else:
        day = stats_store.user_day(day).isoformat() if day else \
            stats_store.today(stats_store.settings(db))
        families = [
            f for f in engine.FAMILIES
            if one(db, "SELECT 1 AS x FROM stats_days WHERE player_id = ? AND family = ? "
                       "AND club_day = ?", [pid, f, day])
        ] or stats_store.player_families(db, pid)
    sections = [_section(db, pid, f, day, lang, rated if game and f == game["family"] else None)
                for f in families]
    return {"player_id": pid, "name": p["name"], "day": day, "lang": lang, "game": game,
            "sections": sections, "risers": risers(db, day, lang=lang)}


def risers(db: Db, day: str, *, lang: str = "ja") -> list[dict]:
    """The day's largest R rises among members who agreed to be on the board
    (``member_profiles.optin_risers``), at most :data:`RISERS_SHOWN`, largest first:
    ``{place, player_id, name, family, family_name, change, change_text, rating,
    rating_text, games}``. A member who lost R that day is not on it."""
    day = stats_store.user_day(day).isoformat()
    start, end = stats_store.day_bounds(day, stats_store.settings(db))
    marks = ", ".join("?" for _ in engine.FAMILIES)
    # the day's lines along (family, ended_at), then the opted-in members among them
    found = rows(
        db,
        "SELECT l.player_id, l.family, l.change, l.r_after, l.ended_at, l.game_id, p.name "
        "FROM rating_lines l JOIN member_profiles m ON m.player_id = l.player_id "
        "JOIN players p ON p.id = l.player_id "
        f"WHERE l.family IN ({marks}) AND l.ended_at >= ? AND l.ended_at < ? "
        "AND l.club_day = ? AND m.optin_risers = 1 AND p.guest = 0 "
        "ORDER BY l.ended_at, l.game_id",
        [*engine.FAMILIES, start, end, day],
    )
    by: dict[tuple[int, str], dict[str, Any]] = {}
    for r in found:
        k = (r["player_id"], r["family"])
        e = by.setdefault(k, {"player_id": r["player_id"], "name": r["name"],
                              "family": r["family"], "change": 0.0, "games": 0})
        e["change"] += r["change"]
        e["games"] += 1
        e["rating"] = r["r_after"]  # the last of the day: rows come in order
    board = sorted((e for e in by.values() if e["change"] > 0),
                   key=lambda e: (-e["change"], e["name"], e["player_id"]))[:RISERS_SHOWN]
    for i, e in enumerate(board, start=1):
        e.update(place=i, family_name=_family_name(e["family"], lang),
                 change_text=_change_text(e["change"]), rating_text=_r_text(e["rating"]))
    return board


# --------------------------------------------------------------------------- plain text
def text_width(text: str) -> int:
    """Columns ``text`` takes on a receipt: a wide (Japanese) character counts two, and so
    does an ambiguous one (``—``, ``○``): a Japanese printer's Kanji mode prints it wide."""
    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F", "A") else 1 for c in text)


def _cut(text: str, width: int) -> str:
    out, used = "", 0
    for c in text:
        w = text_width(c)
        if used + w > width:
            break
        out, used = out + c, used + w
    return out


def _pair(left: str, right: str, width: int) -> str:
    """``left`` and ``right`` on one line, right-aligned; the left side cut to fit."""
    left = _cut(left, max(0, width - text_width(right) - 1))
    return left + " " * (width - text_width(left) - text_width(right)) + right


def as_lines(card: dict, lang: str = "ja", width: int = 32) -> list[str]:
    """A card as fixed-width lines for a receipt or a message (``width`` columns: 32 on
    58 mm paper, 48 on 80 mm, or what the printer names within :data:`WIDTH_RANGE`; a
    Japanese character takes two). No line is wider than ``width``."""
    low, high = WIDTH_RANGE
    if not isinstance(width, int) or not low <= width <= high:
        raise UserError("card.err.width", value=width, low=low, high=high)

    def t(key: str, **values: object) -> str:
        return lexicon.t(key, lang, **values)

    out = [_cut(t("card.title"), width), "=" * width,
           _pair(card["name"], card["day"], width)]
    game = card.get("game")
    if game:
        out.append(_pair(t("card.game", game=game["game_id"]),
                         t("card.place_n", n=game["rank"]) + " " + game["result_text"], width))
    for s in card["sections"]:
        out += ["-" * width, _cut(_family_name(s["family"], lang), width)]
        for p in PERIODS:
            f = s["periods"][p]
            out.append(_pair(t(f"card.period.{p}"), t("card.games_n", n=f["games"]), width))
            places = " ".join(str(n) for n in f["places"][:s["players"]])
            label = t("card.places3" if s["players"] == 3 else "card.places")
            out.append(_pair(" " + label, places, width))
            out.append(_pair(" " + t("card.avg_rank"), s["avg_ranks"][p], width))
            out.append(_pair(" " + t("card.total"), s["totals"][p], width))
        r = "R " + s["rating_text"] + (f" {s['dan']}" if s["dan"] else "")
        out.append(_pair(t("card.rating"), _cut(r, width - 8), width))
        if s["rank"] is not None:
            out.append(_pair(t("card.rank"), t("card.rank_of", rank=s["rank"],
                                                 n=s["rated_members"]), width))
        if game and s["family"] == game["family"]:
            out.append(_pair(t("card.change_game"), s["game_change_text"], width))
        out.append(_pair(t("card.change_day"), s["day_change_text"], width))
    if card.get("risers"):
        out += ["-" * width, _cut(t("card.risers"), width)]
        for e in card["risers"]:
            out.append(_pair(f"{e['place']}. {e['name']}", e["change_text"], width))
    out.append("=" * width)
    return out

