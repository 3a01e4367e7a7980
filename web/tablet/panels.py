"""The small panels other pages include, with the data they need as template globals.

* ``tablet/_rating.html`` (the tablet, when a game starts): each seat's R and dan in
  the game's rule family and the table's average R (:func:`seat_ratings`);
* ``tablet/_account.html`` (the tablet's settlement sheet): each player's account for
  the club day so far, this game included (:func:`seat_accounts`);
* ``tablet/_report_cards.html`` (the settlement sheet): each member's report card after
  the game (:func:`seat_report_cards`).

They read the club database through the request's connection and never change it.
"""

from __future__ import annotations

from typing import Any

from flask import Flask

from club import daily_report, engine, gamelog, rating_store, report_card, standings, stats_store
from club.errors import UserError
from web.db import get_db
from web.i18n import current_lang


def seat_ratings(view: dict | None) -> dict | None:
    """``{"family", "seats": [{seat, name, guest, rating, games, dan}], "average"}`` for a
    game's view (None without a game). Guests are not rated and count 1500 in the average."""
    if not view:
        return None
    db = get_db()
    game = gamelog.get_game(db, view["game"]["id"])
    family = engine.rule_family(game["rules"])
    ids = [s["player_id"] for s in game["seats"] if not s["guest"]]
    held = rating_store.current(db, family, ids)
    table = standings.dan_tables(db).get(family)
    seats: list[dict[str, Any]] = []
    for s in game["seats"]:
        row = None if s["guest"] else held.get(s["player_id"])
        level = row["dan_level"] if row else (table.first if table and not s["guest"] else None)
        seats.append({
            "seat": s["seat"], "name": s["name"], "guest": bool(s["guest"]),
            "rating": row["rating"] if row else (None if s["guest"] else rating_store.INITIAL_R),
            "games": row["games"] if row else 0,
            "dan": table.name(level, current_lang()) if table and level is not None else "",
        })
    rs = [x["rating"] if x["rating"] is not None else rating_store.INITIAL_R for x in seats]
    return {"family": family, "seats": seats, "average": sum(rs) / len(rs) if rs else None}


def seat_accounts(view: dict | None) -> list[dict]:
    """The account for the day of each player of a finished game, in seat order ([] where
    the club's rules charge and pay nothing, so the sheet shows no empty money table)."""
    if not view or view["game"].get("status") != "finished" or not view["game"]["finished_at"]:
        return []
    db = get_db()
    day = stats_store.club_day_of(view["game"]["finished_at"], stats_store.settings(db))
    seats = view["game"]["seats"]
    found = {a["player_id"]: a for a in
             daily_report.accounts(db, day, [s["player_id"] for s in seats])}
    out = [{"seat": s["seat"], "day": day, **found[s["player_id"]]}
           for s in seats if s["player_id"] in found]
    if not any(a["fee"] or a["prize"] or a["chip_yen"] for a in out):
        return []
    return out


def seat_report_cards(view: dict | None) -> list[dict]:
    """``[{seat, name, guest, card}]`` of a finished game in seat order: each member's
    report card after it (``card`` None for a guest: guests get no card)."""
    if not view or view["game"].get("status") != "finished":
        return []
    db = get_db()
    out = []
    for s in view["game"]["seats"]:
        card = None
        if not s.get("guest"):
            try:
                card = report_card.build(db, s["player_id"], game_id=view["game"]["id"],
                                         lang=current_lang())
            except UserError:
                card = None  # the game's summary is not written yet: no card to show
        out.append({"seat": s["seat"], "name": s["name"], "guest": bool(s.get("guest")),
                    "card": card})
    return out


def init_app(app: Flask) -> None:
    """Make the panels' data functions template globals."""
    app.jinja_env.globals["seat_ratings"] = seat_ratings
    app.jinja_env.globals["seat_accounts"] = seat_accounts
    app.jinja_env.globals["seat_report_cards"] = seat_report_cards
    app.jinja_env.globals["yen"] = daily_report.yen
