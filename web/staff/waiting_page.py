"""Running the floor: the waiting list, seating the next game of a table, event nights,
staff calls and the table clock's time limits.

The logic and its tables are in :mod:`club.floor`; here are the pages and their JSON
twins. Every change is audited under the signed-in staff member's name.
"""

from __future__ import annotations

from flask import jsonify, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from club import club_tables, clubtime, games, roster
from club.db import Db
from club.errors import UserError
from club.floor import calls, clock, modechange, nights, seating, waiting
from club.text import text_of, whole_number
from tablectl import store
from tablectl import words as table_words
from web.db import get_db
from web.i18n import current_lang, t
from web.limits import flag_of, form_data
from web.security import actor_name, staff_required, wants_json
from web.staff.common import bp, db_path, done, given, record
from web.staff.modes import needs_mode
from web.staff.names import rule_set_name, table_name


def wish_choices(db: Db) -> list[tuple[str, str]]:
    """What a walk-in may ask for: a kind of game, or one of the club's rule sets."""
    lang = current_lang()
    out = [(f"family:{k}", waiting.family_words(k, lang)) for k in waiting.families()]
    out += [(f"rules:{r['id']}", rule_set_name(r["id"], lang))
            for r in club_tables.list_rule_sets(db)]
    return out


def wish_words(db: Db, wants: str) -> str:
    return dict(wish_choices(db)).get(wants, wants)


@bp.app_template_global("family_words")
def family_words(family: str) -> str:
    """A rule family's name in the page's language (its code if it has none)."""
    return waiting.family_words(family, current_lang())


def _int(data: dict, name: str, low: int = 1, high: int = 2**63 - 1) -> int:
    raw = data.get(name)
    # JSON gives a JSON whole number; a form's text is ASCII digits (an optional sign).
    if isinstance(raw, str):
        text = raw.strip()
        negative = text.startswith("-")
        value = whole_number(text[1:] if negative else text)
        if value is not None and negative:
            value = -value
    else:
        value = raw if isinstance(raw, int) and not isinstance(raw, bool) else None
    if value is None:
        raise UserError("field.not_whole", code="invalid_field", details={"field": name},
                        field=name, low=low, high=high)
    if not low <= value <= high:
        raise UserError("field.out_of_range", code="invalid_field", details={"field": name},
                        field=name, low=low, high=high, value=value)
    return value


def _ids(data: dict, name: str) -> list[int]:
    """A list of ids from JSON (a list) or a form (repeated fields or one comma list)."""
    raw = data.get(name) if request.is_json else request.form.getlist(name)
    if isinstance(raw, list) and len(raw) == 1 and isinstance(raw[0], str):
        raw = raw[0]                                  # one form field holding "3,5,8,9"
    if isinstance(raw, str):
        raw = [x for x in raw.split(",") if x.strip()]
    if not isinstance(raw, list):
        raise UserError("field.not_list", code="invalid_field", details={"field": name},
                        field=name)
    return [_int({name: v}, name) for v in raw]


# ----------------------------------------------------------------------------- waiting list
def waiting_view(db: Db) -> dict:
    """The waiting page's data: the list with estimates, the tables' outlook, proposals."""
    tz = clubtime.club_zone(db)
    entries = waiting.estimates(db, db_path())
    for e in entries:
        e["since"] = clubtime.clock(e["added_at"], tz)
        e["wish"] = wish_words(db, e["wants"])
    tables = waiting.outlook(db, db_path())
    lang = current_lang()
    for tb in tables:
        tb.update(_mode_fit(db, tb, lang))
        tb["rules_name"] = rule_set_name(tb["rule_set"], lang)
        tb["family_name"] = waiting.family_words(tb["family"], lang)
        tb["ready"] = seating.ready(db, tb["table_id"])
        # a table whose mode does not fit its rules is offered to nobody until it is changed
        tb["proposal"] = seating.proposal(db, tb["table_id"]) \
            if tb["state"] == "free" and not tb["ready"] and not tb["misfit"] else None
    return {"entries": entries, "tables": tables}


def _mode_fit(db: Db, tb: dict, lang: str) -> dict:
    """The mode the table is set to (pending one first) in words, and whether it fits the
    table's rule set (a table the daemon does not drive is trusted to fit)."""
    try:
        state = store.get_table(db_path(), tb["table_id"])
    except store.StoreError:
        return {"mode_label": None, "misfit": None, "rules_mode": None}
    mode = state["pending_mode"] if state.get("pending_mode") is not None \
        else state.get("mode")
    rules = club_tables.resolve_rules(db, tb["rule_set"]).table
    return {"mode_label": table_words.mode(mode, lang) if mode is not None else None,
            "misfit": modechange.misfit(mode, rules.players, rules.amos_mode),
            "rules_mode": rules.amos_mode}


@bp.get("/waiting")
@staff_required
def waiting_page() -> ResponseReturnValue:
    """The waiting list (待ち席): add walk-ins, see estimates, seat free tables."""
    db = get_db()
    data = waiting_view(db)
    if wants_json():
        return jsonify({"ok": True, **data})
    free = [p for p in roster.list_players(db, guests=True) if p["active"]]
    return render_template("staff/waiting.html", data=data, players=free,
                           wishes=wish_choices(db))


@bp.get("/waiting.json")
@staff_required
def waiting_live() -> ResponseReturnValue:
    """The waiting list and the tables as data, with the page's live parts (polled)."""
    db = get_db()
    data = waiting_view(db)
    parts = {"list": render_template("staff/_waiting_list.html", data=data),
             "tables": render_template("staff/_waiting_tables.html", data=data)}
    return jsonify({"ok": True, **data, "parts": parts})


@bp.post("/waiting")
@staff_required
def waiting_add() -> ResponseReturnValue:
    """Put a walk-in on the list: a player (``player_id``) or a guest by ``name``."""
    data = form_data()
    db = get_db()
    wants = waiting.check_wish(db, text_of(data, "wants") or "")
    if given(data, "player_id"):
        player = roster.get_player(db, _int(data, "player_id"))
    else:
        name = (text_of(data, "name") or "").strip()
        if not name:
            raise UserError("floor.wait.who", code="invalid_field", details={"field": "name"})
        player = roster.add_player(db, name, guest=True,
                                  allow_similar=flag_of(data, "allow_similar"))
        if not player.get("reused"):
            record("player.create", f"player:{player['id']}",
                   details={"name": player["name"], "guest": True})
    entry = waiting.add(db, player["id"], wants, actor=actor_name())
    record("waiting.add", f"player:{player['id']}",
           details={"name": player["name"], "wants": wants, "entry": entry["id"]})
    return done(t("floor.wait.added", name=player["name"], wish=wish_words(db, wants)),
                "staff.waiting_page", 201, {"entry": entry})


@bp.post("/waiting/<int:entry_id>/leave")
@staff_required
def waiting_leave(entry_id: int) -> ResponseReturnValue:
    """Take someone off the list (they left)."""
    entry = waiting.leave(get_db(), entry_id)
    record("waiting.leave", f"player:{entry['player_id']}", details={"name": entry["name"]})
    return done(t("floor.wait.left", name=entry["name"]), "staff.waiting_page",
                payload={"entry": entry})


# ----------------------------------------------------------------------------- seating
@bp.post("/tables/<table_id>/seat")
@staff_required
def table_seat(table_id: str) -> ResponseReturnValue:
    """Seat players at a table for its next game, with a seat draw (``random``, or
    ``wind``: the wind tile each drew); the table then shows the game ready to start."""
    data = form_data()
    db = get_db()
    players = _ids(data, "players")
    winds = data.get("winds")
    if winds is None and not request.is_json:
        winds = {str(p): request.form.get(f"wind_{p}", "") for p in players}
    rule_set = (text_of(data, "rule_set") or "").strip() or None
    made = seating.seat(db, table_id, players, method=text_of(data, "method") or "random",
                        winds=winds if isinstance(winds, dict) else None, rule_set=rule_set,
                        actor=actor_name())
    names = " ".join(f"{t('floor.wind.' + 'ESWN'[s['seat']])} {s['name']}" for s in made["seats"])
    message = t("floor.seat.done", table=table_name(table_id), seats=names)
    if wants_json():
        return jsonify({"ok": True, "message": message, "seating": made}), 201
    target = needs_mode(db, table_id, made["rule_set"])
    if target is not None:       # the rule set plays another AMOS mode: the guided change
        from flask import flash

        flash(message + " " + t("floor.seat.mode_next"), "ok")
        return redirect(url_for("staff.mode_guide", table_id=table_id, mode=f"{target:02d}"))
    return done(message, text_of(data, "back") == "floor" and "staff.floor"
                or "staff.waiting_page", 201, {"seating": made})


@bp.post("/seatings/<int:seating_id>/cancel")
@staff_required
def seating_cancel(seating_id: int) -> ResponseReturnValue:
    """Take back a game made ready; its players go back to their places on the list."""
    s = seating.cancel(get_db(), seating_id, actor=actor_name())
    return done(t("floor.seat.cancelled_done", table=table_name(s["table_id"])),
                "staff.waiting_page",
                payload={"seating": s})


# ----------------------------------------------------------------------------- calls
@bp.post("/calls/<int:call_id>/ack")
@staff_required
def call_ack(call_id: int) -> ResponseReturnValue:
    """Someone goes to the table: the call leaves the list (the tablet says staff come)."""
    row = calls.acknowledge(get_db(), call_id, actor=actor_name())
    record("call.ack", f"table:{row['table_id']}", details={"call": call_id,
                                                            "reason": row["reason"]})
    return done(t("floor.call.acked", table=table_name(row["table_id"])), "staff.floor",
                payload={"call": row})


# ----------------------------------------------------------------------------- clock
@bp.post("/tables/<table_id>/clock")
@staff_required
def table_clock(table_id: str) -> ResponseReturnValue:
    """A live game's time limit (``limit`` minutes) and extra time (``extra``, minutes)."""
    data = form_data()
    db = get_db()
    gid = games.live_game_id(db, table_id)
    if gid is None:
        club_tables.get_table(db, table_id)
        raise UserError("records.no_live_game", status=409, code="no_live_game", table=table_id)
    limit = _int(data, "limit", 5, 600) if given(data, "limit") else None
    extra = _int(data, "extra", -120, 120) if given(data, "extra") else 0
    row = clock.set_limit(db, gid, limit, extra)
    assert row is not None  # the limit just set
    record("clock.set", f"game:{gid}", details={"limit": row["limit_minutes"],
                                                 "extra": row["extra_minutes"]})
    return done(t("floor.clock.set", table=table_name(table_id), limit=row["limit_minutes"],
                  extra=row["extra_minutes"]), "staff.floor", payload={"clock": row})


# ----------------------------------------------------------------------------- event nights
@bp.get("/nights")
@staff_required
def night_list() -> ResponseReturnValue:
    """Event nights, with the form to set one up."""
    db = get_db()
    rows = nights.list_nights(db)
    if wants_json():
        return jsonify({"nights": rows})
    return render_template("staff/nights.html", nights=rows,
                           rule_sets=club_tables.list_rule_sets(db),
                           tables=club_tables.list_tables(db),
                           players=[p for p in roster.list_players(db, guests=True)
                                    if p["active"]])


@bp.post("/nights")
@staff_required
def night_create() -> ResponseReturnValue:
    """Set up an event night: players, tables, rule set, rounds, pairing, time limit."""
    data = form_data()
    tables = data.get("tables")
    if tables is None and not request.is_json:
        tables = request.form.getlist("tables")
    if not isinstance(tables, list) or not all(isinstance(x, str) for x in tables):
        raise UserError("field.not_list", code="invalid_field", details={"field": "tables"},
                        field="tables")
    limit = _int(data, "time_limit", 5, 600) if given(data, "time_limit") else None
    night = nights.create(get_db(), name=text_of(data, "name") or "",
                          rule_set=text_of(data, "rule_set") or "",
                          rounds=_int(data, "rounds", 1, 20),
                          pairing_method=text_of(data, "pairing") or "swiss", tables=tables,
                          players=_ids(data, "players"), time_limit=limit, actor=actor_name())
    return done(t("floor.night.created", name=night["name"]), "staff.night_detail", 201,
                {"night": night}, night_id=night["id"])


@bp.get("/nights/<int:night_id>")
@staff_required
def night_detail(night_id: int) -> ResponseReturnValue:
    """An event night: its standings and its rounds (tables, seats, games)."""
    db = get_db()
    night = nights.get(db, night_id)
    rounds = nights.rounds_of(db, night_id)
    for seats in rounds.values():
        for s in seats:
            s["game"] = games.get_game(db, s["game_id"]) if s["game_id"] else None
    board = nights.standings(db, night_id)
    if wants_json():
        return jsonify({"night": night, "standings": board,
                        "rounds": {str(k): v for k, v in rounds.items()}})
    return render_template("staff/night.html", night=night, rounds=rounds, standings=board,
                           tables={t["id"]: t for t in club_tables.list_tables(db)})


@bp.post("/nights/<int:night_id>/round")
@staff_required
def night_round(night_id: int) -> ResponseReturnValue:
    """Seat the night's next round (random first, then swiss without rematches)."""
    made = nights.next_round(get_db(), night_id, actor=actor_name())
    return done(t("floor.night.seated", round=made[0]["round"], tables=len(made)),
                "staff.night_detail", 201, {"seatings": made}, night_id=night_id)

