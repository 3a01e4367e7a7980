"""Games staff look after and the audit log.

A recorded hand is corrected with the tablet's kinds of entry (who won from whom, han
and fu, fan or yakuman, or the tiles; riichi, tenpai...), by name, with a preview of the
whole game's scores before and after (raw JSON stays as an advanced fallback); a hand
is struck or put back, a game voided or made valid again, a settlement confirmed for a
named player. Every change goes through ``club.corrections`` (an appended marker, never
an edit; the game is replayed by the engine) and is audited with the staff member's name,
the time, the reason given here and the game's scores before and after.
"""

from __future__ import annotations

import json
from datetime import date

from flask import abort, current_app, jsonify, render_template, request
from flask.typing import ResponseReturnValue

from club import club_tables, clubtime, corrections, engine, gamelog, games
from club.audit import audit_entries
from club.db import Db
from club.errors import UserError
from club.text import whole_number
from web.db import get_db
from web.i18n import current_lang, t
from web.limits import form_data, json_refusal, query_number
from web.security import actor_name, staff_required, wants_json
from web.staff import auditwords, eventwords
from web.staff.common import bp, done, reason_of


@bp.get("/games")
@staff_required
def game_list() -> ResponseReturnValue:
    """Recent games (any status), newest first."""
    status = request.args.get("status") or None
    db = get_db()
    rows = games.list_games(db, status=status, limit=100)
    if wants_json():
        return jsonify({"games": rows})
    tz = clubtime.club_zone(db)
    for g in rows:
        g["started"] = clubtime.clock(g["started_at"], tz, day=True)
    return render_template("staff/games.html", games=rows, status=status)


def _entry_rows(view: dict, names: list[str]) -> list[dict]:
    """The game's entries with their hand (round, honba, payments) and their words."""
    hands = (view.get("replay") or {}).get("hands") or []
    by_event = {h.get("event"): h for h in hands}
    rows = []
    for i, e in enumerate(view["events"]):
        hand = by_event.get(i + 1)  # the replay numbers events by line, from 1
        rows.append({"seq": e["seq"], "event": e["event"],
                     "words": eventwords.describe(e["event"], names), "hand": hand})
    return rows


def _fix_data(game: gamelog.Game, names: list[str], rows: list[dict], removed: list[dict]) -> dict:
    """What the correction form needs: names, the rules' kind of entry, the entries."""
    rules = gamelog.rules_of(game)
    return {
        "names": names, "players": len(names), "family": rules.table.family,
        "use_fu": bool(rules.fu.use_fu), "chips": bool(rules.chips.enabled),
        "max_yakuman": engine.max_yakuman(rules), "chombo_at_draw": rules.game.chombo_at_draw,
        "pairs": {"ron": engine.han_fu_pairs(rules, tsumo=False),
                  "tsumo": engine.han_fu_pairs(rules, tsumo=True)},
        "abort_kinds": list(engine.ABORT_KINDS), "penalty_kinds": list(engine.PENALTY_KINDS),
        "end_reasons": list(engine.END_REASONS),
        "entries": {str(r["seq"]): games.seat_names(r["event"], names) for r in rows + removed},
        "words": {k: t(f"staff.fix.{k}") for k in FIX_WORDS}
        | {f"abort.{k}": t(f"staff.abort.{k}") for k in engine.ABORT_KINDS}
        | {f"penalty.{k}": t(f"staff.penalty.{k}") for k in engine.PENALTY_KINDS}
        | {f"end.{k}": t(f"staff.end.{k}") for k in engine.END_REASONS},
    }


FIX_WORDS = ("ron", "tsumo", "draw", "abort", "chombo", "penalty", "end", "winner",
             "discarder", "han", "fu", "fan", "yakuman", "chips", "dora", "riichi", "tenpai",
             "nagashi", "chombo_at_draw", "kind", "points", "to", "seat", "reason_end", "none",
             "add_winner", "remove_winner", "by_hanfu", "by_tiles", "hand", "win_tile",
             "dora_tiles", "ura_tiles", "preview_failed", "what")


@bp.get("/games/<int:game_id>")
@staff_required
def game_detail(game_id: int) -> ResponseReturnValue:
    """A game's hands in words, its result, the correction forms and its audit trail."""
    db = get_db()
    view = games.game_view(db, game_id)
    trail = audit_entries(db, target=f"game:{game_id}")
    if wants_json():
        return jsonify({"game": view, "audit": trail})
    game = gamelog.get_game(db, game_id)
    played = gamelog.played(db, game)
    names = [s["name"] for s in game["seats"]]
    rows = _entry_rows(view, names)
    removed = [{**e, "words": eventwords.describe(e["event"], names)}
               for e in corrections.removed_entries(played)]
    tz = clubtime.club_zone(db)
    return render_template(
        "staff/game.html", view=view, rows=rows, removed=removed, names=names,
        standing=corrections.standing(game, played), started=clubtime.clock(game["started_at"], tz,
                                                                     day=True),
        confirmations=_confirmations(db, game, tz),
        audit=auditwords.entries(db, trail, tz), fix=_fix_data(game, names, rows, removed))


def _confirmations(db: Db, game: gamelog.Game, tz: str) -> list[dict]:
    """Each seat's settlement confirmation: when, and who confirmed for the player."""
    by = dict(db.execute("SELECT seat, confirmed_by FROM game_seats WHERE game_id = ?",
                         [game["id"]]).fetchall())
    return [{"seat": s["seat"], "name": s["name"], "by": by.get(s["seat"]),
             "at": clubtime.clock(s["confirmed_at"], tz) if s.get("confirmed_at") else None}
            for s in game["seats"]]


def _event_field(data: dict) -> dict:
    raw = data.get("event")
    if isinstance(raw, dict):
        return raw
    try:
        event = current_app.json.loads(str(raw or ""))
    except json.JSONDecodeError as e:
        raise UserError("records.correction_not_json", code="bad_event", reason=e.msg,
                        pos=e.pos, details={"field": "event"}) from None
    except ValueError as e:  # NaN, a lone surrogate, too deep: the body's own rules
        raise json_refusal(e) from None
    if not isinstance(event, dict):
        raise UserError("records.correction_not_object", code="bad_event",
                        details={"field": "event"})
    return event


@bp.post("/games/<int:game_id>/hands/<int:seq>/preview")
@staff_required
def hand_preview(game_id: int, seq: int) -> ResponseReturnValue:
    """What a correction (kind ``replace`` with ``event``, ``void`` or ``restore``) would
    make of the whole game: each player's score and result before and after. Changes
    nothing."""
    data = form_data()
    kind = str(data.get("kind") or "replace")
    event = _event_field(data) if kind == "replace" else None
    db = get_db()
    out = corrections.preview_correction(db, game_id, seq, kind=kind, event=event)
    names = out["before"]["names"]
    html = render_template("staff/_fix_preview.html", p=out, game_id=game_id,
                           old=eventwords.describe(out["old"], names),
                           new=eventwords.describe(out["new"], names) if event else None)
    return jsonify({"ok": True, **out, "html": html})


@bp.post("/games/<int:game_id>/hands/<int:seq>/correct")
@staff_required
def hand_correct(game_id: int, seq: int) -> ResponseReturnValue:
    """Replace one recorded hand with a corrected event (reason required)."""
    data = form_data()
    reason, event = reason_of(data), _event_field(data)
    view = corrections.correct_hand(get_db(), game_id, seq, event, actor=actor_name(),
                                    reason=reason)
    return _hand_fixed("correct", game_id, seq, view)


_STRIKE = {"remove": corrections.remove_hand, "restore": corrections.restore_hand}


@bp.post("/games/<int:game_id>/hands/<int:seq>/remove", endpoint="hand_remove")
@bp.post("/games/<int:game_id>/hands/<int:seq>/restore", endpoint="hand_restore")
@staff_required
def hand_strike(game_id: int, seq: int) -> ResponseReturnValue:
    """Strike one recorded hand from a game (``remove``), or put a struck hand back where
    it was (``restore``); reason required."""
    how = request.path.rsplit("/", 1)[1]
    view = _STRIKE[how](get_db(), game_id, seq, actor=actor_name(),
                        reason=reason_of(form_data()))
    return _hand_fixed(how, game_id, seq, view)


def _hand_fixed(how: str, game_id: int, seq: int, view: dict) -> ResponseReturnValue:
    """The answer to a fixed hand (``how``: correct, remove, restore): back to the game."""
    return done(t(f"staff.fix.done_{how}", game=game_id, seq=seq),
                "staff.game_detail", payload={"game": view}, game_id=game_id)


@bp.post("/games/<int:game_id>/void")
@staff_required
def game_void(game_id: int) -> ResponseReturnValue:
    """Void a whole game (kept, but out of the rankings; reason required)."""
    reason = reason_of(form_data())
    row = corrections.void_game(get_db(), game_id, actor=actor_name(), reason=reason)
    return done(t("staff.fix.done_void", game=game_id), "staff.game_detail",
                payload={"game": {"id": row["id"], "status": row["status"]}}, game_id=game_id)


@bp.post("/games/<int:game_id>/unvoid")
@staff_required
def game_unvoid(game_id: int) -> ResponseReturnValue:
    """Make a voided game valid again (live or finished as its events say; reason
    required)."""
    reason = reason_of(form_data())
    row = corrections.unvoid_game(get_db(), game_id, actor=actor_name(), reason=reason)
    return done(t("staff.fix.done_unvoid", game=game_id, status=t(f"staff.status.{row['status']}")),
                "staff.game_detail",
                payload={"game": {"id": row["id"], "status": row["status"]}}, game_id=game_id)


def _seat_number(value: object) -> int | None:
    """A seat given as a JSON whole number or as a form's ASCII digits, else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return whole_number(value)


@bp.post("/games/<int:game_id>/swap")
@staff_required
def game_swap(game_id: int) -> ResponseReturnValue:
    """Swap two players' seats (``a``, ``b``: seat numbers) in a game; every hand stays with
    its players and is priced again at their true seats (reason required)."""
    data = form_data()
    reason = reason_of(data)
    a, b = _seat_number(data.get("a")), _seat_number(data.get("b"))
    if a is None or b is None:
        field = "a" if a is None else "b"
        raise UserError("field.not_whole", code="invalid_field", details={"field": field},
                        field=field, low=0, high=3)
    view = corrections.swap_seats(get_db(), game_id, a, b, actor=actor_name(), reason=reason)
    names = [s["name"] for s in view["game"]["seats"]]
    return done(t("staff.fix.done_swap", game=game_id, names=" / ".join(names)),
                "staff.game_detail", payload={"game": view}, game_id=game_id)


@bp.post("/games/<int:game_id>/seats/<seat>/confirm")
@staff_required
def seat_confirm(game_id: int, seat: str) -> ResponseReturnValue:
    """Staff confirm the settlement for the named player of ``seat`` (who confirmed for
    whom goes into the game and the audit log)."""
    # Seats count from 0 (the first dealer): the id converter, which starts at 1 like a
    # row id, would make seat 0 a 404.
    number = whole_number(seat)
    if number is None:
        abort(404)
    view = games.confirm_result(get_db(), game_id, number, actor=actor_name())
    seats = view["game"]["seats"]
    name = seats[number]["name"] if number < len(seats) else number
    return done(t("staff.fix.done_confirm", name=name), "staff.game_detail",
                payload={"game": view}, game_id=game_id)


# ----------------------------------------------------------------------------- the audit log
@bp.get("/audit")
@staff_required
def audit_log() -> ResponseReturnValue:
    """The audit log in words, newest first, filtered by game, table, staff member, day."""
    db = get_db()
    query = _audit_query()
    rows = audit_entries(db, **query["filters"], limit=500)
    if wants_json():
        return jsonify({"audit": rows})
    tz = clubtime.club_zone(db)
    staff_names = [(a, auditwords.who(a)) for a in
                   sorted({r["actor"] for r in audit_entries(db, limit=2000)})]
    return render_template("staff/audit.html", entries=auditwords.entries(db, rows, tz),
                           query=query["values"], actors=staff_names,
                           tables=club_tables.list_tables(db), target=query["values"].get("target"))


def _audit_query() -> dict:
    """The audit filters a request asks for, checked (400 naming the field otherwise)."""
    args = request.args
    values = {k: (args.get(k) or "").strip() for k in ("target", "game", "table", "actor",
                                                        "day")}
    filters: dict = {}
    if values["target"]:
        filters["target"] = values["target"]
    if values["game"]:
        filters["game"] = query_number("game")
    if values["table"]:
        filters["table"] = values["table"]
    if values["actor"]:
        filters["actor"] = values["actor"]
    if values["day"]:
        try:
            date.fromisoformat(values["day"])
        except ValueError:
            raise UserError("staff.audit.bad_day", code="invalid_field",
                            details={"field": "day"}, value=values["day"][:20]) from None
        filters["between"] = auditwords.club_day(get_db(), values["day"])
    return {"filters": filters, "values": values, "lang": current_lang()}
