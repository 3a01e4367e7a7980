"""The tablet at each table: one page that starts a game, records every hand and
shows the settlement sheet, and keeps working through a Wi-Fi drop.

The page is rendered here from the game's replay. ``static/tablet.js`` lays the
seats out around the table from the tablet's own side, opens the entry forms of
``static/entry.js`` (built from :func:`entry.entry_spec` of the game's rules),
prices each hand at once with ``static/pricing.js`` and asks the server to check
it, then keeps every submission in the tablet's own queue (IndexedDB, with its
idempotency key and the entry number it expects) until the server has it. The
service worker (``/tablet/sw.js``) keeps the page, its scripts and styles, so a
reload without the server shows the last known table and the queue.

Other parts of the app add to the page with their own templates, included by name
in ``tablet/table.html`` (the floor, the R strip, the day's accounts); they see
``screen`` (start, live or settlement) and the page's ``view``, ``table`` and ``seats``.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, g, make_response, render_template, send_file
from flask.typing import ResponseReturnValue

import lexicon
from club import club_tables, clubtime, engine, events, gamelog, games, readings, roster
from club.db import Db
from club.entry import entry_spec
from web.db import get_db
from web.i18n import current_lang
from web.security import tablet_required
from web.tablet import view as tablet_view

bp = Blueprint("tablet", __name__, url_prefix="/tablet")

STATIC = Path(__file__).resolve().parent.parent / "static"
ASSETS = ("jantaku.css", "entry.js", "pricing.js", "queue.js", "tablet.js", "tablet.webmanifest")
"""The files the page needs, cached by the service worker."""
WORD_AREAS = ("tablet.", "entry.", "offline.", "mcr.fan.")
"""Catalogue areas the page's scripts word things from (and the common words below)."""
WORD_KEYS = ("cancel", "ok", "close")


@cache
def asset_version() -> str:
    """A short hash of the page's files and the service worker: a new release gets new
    URLs, and the service worker drops the old copies."""
    h = hashlib.sha256()
    for name in (*ASSETS, "tablet-sw.js"):
        h.update((STATIC / name).read_bytes())
    return h.hexdigest()[:12]


@bp.app_template_global()
def round_label(label: str) -> str:
    """``"E1"`` -> ``東1局`` (Japanese) or ``East 1`` (English)."""
    return tablet_view.round_words(label)


@bp.app_template_global()
def settled_result(value: float | None, game_id: int) -> str:
    """A game's settled result in the club's one form (``+63.0`` in thousands of points,
    victory points or MCR points whole), as the tablet's settlement sheet shows it."""
    units = g.setdefault("result_units", {})
    if game_id not in units:
        units[game_id] = tablet_view.unit(gamelog.get_game(get_db(), game_id)["rules"])
    return tablet_view.result(value, units[game_id])


@bp.app_template_global()
def rule_set_title(rule_set_id: str | None) -> str:
    """A rule set by its title in the page's language (its id only if it has none)."""
    titles = g.setdefault("tablet_rule_titles", {})
    if not titles:
        titles.update({r["id"]: r["title"] for r in club_tables.list_rule_sets(get_db())})
    return tablet_view.rule_title(titles.get(rule_set_id) or "") or str(rule_set_id or "")


@bp.app_template_global()
def asset(name: str) -> str:
    """The versioned URL of a static file of the page."""
    return f"/static/{name}?v={asset_version()}"


def _words() -> dict:
    """The catalogue entries the scripts use, in the page's language."""
    lang = current_lang()
    return {k: lexicon.t(k, lang) for k in lexicon.entries()
            if k.startswith(WORD_AREAS) or k in WORD_KEYS}


def _page_data(table: club_tables.TableRow, view: dict | None, rules: engine.Rules | None,
               reading: dict | None, db: Db) -> dict:
    """What the page's scripts need: ids, next entry number, seats, state, rules spec."""
    data: dict[str, Any] = {"table_id": table["id"], "game_id": None, "next_seq": None,
                            "status": None, "lang": current_lang(),
                            "version": asset_version()}
    if view:
        game = view["game"]
        data.update(game_id=game["id"], next_seq=view["next_seq"], players=view["players"],
                    status=game["status"], names=[s["name"] for s in game["seats"]],
                    state=view.get("state"), can_undo=view.get("can_undo", False),
                    undo_state=tablet_view.undo_state(view),
                    last_hand=tablet_view.last_hand_words(view, rules) if rules else "",
                    started_at=clubtime.club_clock(db, game.get("started_at")),
                    # 新しい対局 offers the same table again: its rule set and players by seat
                    again={"rule_set": game.get("rule_set"),
                           "players": [s["player_id"] for s in game["seats"]]})
    if rules is not None:
        data["spec"] = {**entry_spec(rules), "mcr_maximum": events.MCR_MAXIMUM_FAN}
    if reading is not None:
        data["reading"] = {k: reading.get(k) for k in ("points", "differences", "mismatch",
                                                       "connected")}
    return data


def _rules_for_mode(db: Db, table: club_tables.TableRow, reading: dict | None,
                    rule_sets: list[dict]) -> str:
    """The rule set to offer first: the table's own, unless the table reports an AMOS
    mode it does not deal; then the first rule set made for that mode."""
    mode = (reading or {}).get("mode")
    own = table["rule_set"]
    if not isinstance(mode, int) or club_tables.resolve_rules(db, own).table.amos_mode == mode:
        return own
    for r in rule_sets:
        if club_tables.resolve_rules(db, r["id"]).table.amos_mode == mode:
            return r["id"]
    return own


@bp.get("/<table_id>")
@tablet_required
def table_page(table_id: str) -> ResponseReturnValue:
    """The table's page: start form, live table or settlement sheet."""
    db = get_db()
    table = club_tables.get_table(db, table_id)
    game = games.current_game(db, table_id)
    view = games.game_view(db, game["id"]) if game and game["status"] != "void" else None
    rules = gamelog.rules_of(game) if view and game else None  # a view is of a game
    raw = readings.table_reading(current_app.config["DATABASE"], table_id)
    reading = readings.compare(raw, view)
    if rules is not None and not readings.sticks_track_score(rules):
        reading = None  # no point sticks to compare (MCR totals start at 0)
    rule_sets = club_tables.list_rule_sets(db)
    how = tablet_view.unit(game["rules"]) if view and game else "thousands"
    screen = "start"
    if view and view["game"]["status"] == "live":
        screen = "live"
    elif view and view["game"]["status"] == "finished":
        screen = "settlement"
    return render_template(
        "tablet/table.html",
        table=table, view=view, seats=tablet_view.seats(view), reading=reading, screen=screen,
        history=tablet_view.history(view, rules) if view and rules else [],
        sheet=tablet_view.settlement(view, how, db) if screen == "settlement" and view else None,
        unit=how, points=tablet_view.points, signed=tablet_view.signed,
        members=roster.list_players(db), guests=roster.list_players(db, guests=True),
        rule_sets=rule_sets, offered_rules=_rules_for_mode(db, table, reading, rule_sets),
        rule_titles={r["id"]: tablet_view.rule_title(r["title"]) or r["id"] for r in rule_sets},
        rule_players={r["id"]: club_tables.resolve_rules(db, r["id"]).table.players
                      for r in rule_sets},
        data=_page_data(table, view, rules, reading, db), words=_words(),
    )


def favicon() -> ResponseReturnValue:
    """The club's icon (a 中 tile) for every page: browsers ask for it at the site's root."""
    return send_file(STATIC / "favicon.ico", mimetype="image/vnd.microsoft.icon",
                     max_age=7 * 24 * 3600)


@bp.get("/sw.js")
def service_worker() -> ResponseReturnValue:
    """The tablet's service worker, served from /tablet/ so it may control the tablet pages
    (a worker's scope is its own folder)."""
    resp = make_response(send_file(STATIC / "tablet-sw.js", mimetype="text/javascript",
                                   max_age=0))
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["Service-Worker-Allowed"] = "/tablet/"
    return resp


@bp.app_template_filter("club_time")
def club_time(iso: str | None) -> str:
    """A stored UTC time as the club reads it (``21:43``)."""
    return clubtime.club_clock(get_db(), iso)


@bp.app_template_filter("club_stamp")
def club_stamp(iso: str | None) -> str:
    """A stored UTC time with its day, as the club reads it (``2026-04-01 21:43``)."""
    return clubtime.club_clock(get_db(), iso, day=True)

