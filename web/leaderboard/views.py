"""Leaderboards, player pages and game pages (blueprint ``leaderboard``, under ``/leaderboard``).

Read-only and open to everyone on the club network (the rankings are posted
on the wall anyway). Japanese first, ``?lang=en`` for English.

* ``/leaderboard/?family=riichi4&period=month&day=YYYY-MM-DD&min_games=5``
  (``period=range&start=...&end=...`` for a custom range; ``season=<id>`` for one
  of the club's named seasons, with its own minimum of games; ``order=rating``
  to rank by R; ``format=json`` for the same rows as JSON). Every row shows the
  member's R and dan at the end of the period.
* ``/leaderboard/players/<id>?family=riichi4``: R and dan, R over time (SVG),
  figures month by month, the settled result of every game (SVG) and the
  placement distribution (SVG)
* ``/leaderboard/games/<id>``: the score line of every hand (SVG)
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, render_template, request
from flask.typing import ResponseReturnValue

from club import charts, engine, gamelog, rating_store, standings, stats_store
from club.db import Db
from club.engine import family_name, figure_name
from web.db import get_db
from web.i18n import current_lang, t
from web.limits import query_number

bp = Blueprint("leaderboard", __name__, url_prefix="/leaderboard", template_folder="templates")



RESULT_FIGURES = engine.RESULT_FIGURES
POINT_FAMILIES = engine.POINT_FAMILIES
shown_result = engine.shown_result


@bp.app_template_global("fmt_figure")
def _fmt_figure(fid: str, value: Any, family: str | None = None) -> str:
    return engine.shown_figure(fid, value, family)


CHART_WIDTH = 360
"""The leaderboard's charts are drawn for a phone's width (their words stay readable at
390 px) and grow with the page up to the width the stylesheet allows."""


def dan_name(family: str, level: int | None) -> str:
    """The name of a dan level in the request's language ('' without a dan table)."""
    table = standings.dan_tables(get_db()).get(family)
    if table is None or level is None or level >= len(table.levels):
        return ""
    return table.name(level, current_lang())


@bp.app_template_global("fmt_rating")
def fmt_rating(value: float | None) -> str:
    """An R as players read it: 1,623 (— for a guest or no game yet)."""
    return "—" if value is None else f"{value:,.0f}"


def _figure_columns(family: str) -> list[str]:
    # Three-player tables have no fourth place; MCR has no busting or riichi.
    skip = {"riichi3": {"fourths"}, "mcr": {"bust_rate", "riichi_rate"}}.get(family, set())
    return [f for f in engine.FIGURE_IDS if f not in skip]


def _int_arg(name: str, default: int, low: int = 0, high: int = 100_000) -> int:
    found = query_number(name, default, low, high)
    return default if found is None else found


def board_query(db: Db) -> dict:
    """The leaderboard a request asks for (every parameter checked, defaults filled).

    A named season sets the days, the minimum of games (members below it are listed
    apart as ``provisional``) and, where it has one, the rule family."""
    cfg = stats_store.settings(db)
    played = stats_store.families_played(db)
    season = standings.season(db, request.args["season"]) if request.args.get("season") else None
    family = (season.family if season and season.family else None) or request.args.get("family")
    family = stats_store.check_family(family or (played or ["riichi4"])[0])
    period = "league" if season else (request.args.get("period") or "month")
    day = request.args.get("day") or stats_store.today(cfg)
    order = request.args.get("order") or "total"
    if season:
        first, last, min_games = season.start, season.end, season.min_games
    else:
        first, last = stats_store.period_range(
            period, day, request.args.get("start"), request.args.get("end")
        )
        min_games = _int_arg("min_games", 1, 1)
    rows = stats_store.leaderboard(db, family, first, last, min_games=min_games, order=order)
    provisional = []
    if season and min_games > 1:
        provisional = [r for r in stats_store.leaderboard(db, family, first, last)
                       if r["games"] < min_games]
    for r in rows + provisional:
        r["dan"] = dan_name(family, r["dan_level"])
    return {
        "family": family,
        "period": period,
        "day": day,
        "first_day": first,
        "last_day": last,
        "min_games": min_games,
        "order": order,
        "season": season.id if season else None,
        "season_name": season.name(current_lang()) if season else None,
        "rows": rows,
        "provisional": provisional,
        "families": played,
        "seasons": [{"id": x.id, "name": x.name(current_lang()), "start": x.start,
                     "end": x.end, "min_games": x.min_games} for x in standings.seasons(db)],
        "settings": cfg,
        "columns": _figure_columns(family),
    }


@bp.get("/")
def board() -> ResponseReturnValue:
    db = get_db()
    q = board_query(db)
    if request.args.get("format") == "json":
        return jsonify({k: v for k, v in q.items() if k not in ("families", "columns")})
    if q["order"] == "rating":
        rated = [r for r in q["rows"] if r["rating"] is not None][:30]
        chart = charts.totals_chart([(r["name"], r["rating"] - rating_store.INITIAL_R)
                                     for r in rated], t("lb.rating_chart"),
                                    width=CHART_WIDTH) if rated else ""
    else:
        chart = (
            charts.totals_chart([(r["name"], shown_result(r["total"], q["family"]))
                                 for r in q["rows"][:30]], t("lb.title"), width=CHART_WIDTH)
            if q["rows"]
            else ""
        )
    return render_template(
        "leaderboard/board.html",
        q=q,
        chart=chart,
        periods=stats_store.PERIODS,
        orders=stats_store.ORDERS,
        family_name=family_name,
        figure_name=figure_name,
        all_families=list(engine.FAMILIES),
    )


@bp.get("/players/<int:player_id>")
def player_page(player_id: int) -> ResponseReturnValue:
    db = get_db()
    person = stats_store.player(db, player_id)
    families = stats_store.player_families(db, player_id)
    family = request.args.get("family") or (families or ["riichi4"])[0]
    stats_store.check_family(family)
    lines = stats_store.player_lines(db, player_id, family)
    sums = engine.aggregate(lines)
    figs = engine.figures(sums)
    n_places = 3 if family == "riichi3" else 4
    places = (
        ["1着", "2着", "3着", "4着"] if current_lang() == "ja" else ["1st", "2nd", "3rd", "4th"]
    )[:n_places]
    counts = [sum(1 for x in lines if x.rank == i) for i in range(1, len(places) + 1)]
    history = rating_store.history(db, player_id, family)
    now = history[-1] if history else None
    return render_template(
        "leaderboard/player.html",
        person=person,
        family=family,
        families=families,
        figs=figs,
        columns=_figure_columns(family),
        months=stats_store.player_months(db, player_id, family),
        lines=lines,
        results_svg=charts.results_chart([shown_result(x.result, family) for x in lines],
                                         t("lb.results_chart"), width=CHART_WIDTH)
        if lines
        else "",
        placement_svg=charts.placement_chart(counts, places, t("lb.placements")) if lines else "",
        rating=now,
        dan=dan_name(family, now["dan_level"]) if now else "",
        rating_svg=charts.rating_chart([h["r_after"] for h in history], t("lb.rating_chart"),
                                       start=rating_store.INITIAL_R, width=CHART_WIDTH,
                                       moves=[h["dan_moved"] for h in history])
        if history else "",
        family_name=family_name,
        figure_name=figure_name,
    )


@bp.get("/games/<int:game_id>")
def game_page(game_id: int) -> ResponseReturnValue:
    db = get_db()
    game = gamelog.get_game(db, game_id)
    result = gamelog.played(db, game).result
    names = [s["name"] for s in game["seats"]]
    start = game["rules"]["settlement"]["start_points"]
    hands = [h for h in result["hands"] if h.get("type") != "end"]
    svg = charts.score_lines([start] * len(names), hands, names, t("lb.score_line"))
    return render_template(
        "leaderboard/game.html",
        game=game,
        names=names,
        hands=hands,
        svg=svg,
        final=result.get("final"),
        family_name=family_name,
        family=engine.rule_family(game["rules"]),
    )
