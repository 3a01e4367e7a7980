"""Games staff look after (correct a hand, strike one, void a game) and the audit log.

Corrections go through ``web.games`` (an appended marker, never an edit;
the game is re-replayed by the engine) and each one is audited there with
the staff member's name, the time and the reason given here.
"""

from __future__ import annotations

import json

from flask import jsonify, render_template, request

from .. import games
from ..audit import audit_entries
from ..db import get_db
from ..errors import UserError
from ..security import actor_name, staff_required, wants_json
from .common import bp, done, form_data, msg, reason_of


@bp.get("/games")
@staff_required
def game_list():
    """Recent games (any status), newest first."""
    status = request.args.get("status") or None
    rows = games.list_games(get_db(), status=status, limit=100)
    if wants_json():
        return jsonify({"games": rows})
    return render_template("staff/games.html", games=rows, status=status)


@bp.get("/games/<int:game_id>")
@staff_required
def game_detail(game_id: int):
    """A game's hands, result and audit trail, with the correction forms."""
    db = get_db()
    view = games.game_view(db, game_id)
    trail = audit_entries(db, target=f"game:{game_id}")
    if wants_json():
        return jsonify({"game": view, "audit": trail})
    return render_template("staff/game.html", view=view, audit=trail,
                           dumps=lambda e: json.dumps(e, ensure_ascii=False))


def _event_field(data: dict) -> dict:
    raw = data.get("event")
    if isinstance(raw, dict):
        return raw
    try:
        event = json.loads(str(raw or ""))
    except json.JSONDecodeError as e:
        raise UserError("records.correction_not_json", code="bad_event", reason=e.msg,
                        pos=e.pos) from None
    if not isinstance(event, dict):
        raise UserError("records.correction_not_object", code="bad_event")
    return event


@bp.post("/games/<int:game_id>/hands/<int:seq>/correct")
@staff_required
def hand_correct(game_id: int, seq: int):
    """Replace one recorded hand with a corrected event (reason required)."""
    data = form_data()
    reason, event = reason_of(data), _event_field(data)
    view = games.correct_hand(get_db(), game_id, seq, event, actor=actor_name(), reason=reason)
    return done(msg(f"対局 {game_id} の記録 {seq} を訂正しました",
                    f"Corrected entry {seq} of game {game_id}"),
                "staff.game_detail", payload={"game": view}, game_id=game_id)


@bp.post("/games/<int:game_id>/hands/<int:seq>/remove")
@staff_required
def hand_remove(game_id: int, seq: int):
    """Strike one recorded hand from a game (reason required)."""
    reason = reason_of(form_data())
    view = games.remove_hand(get_db(), game_id, seq, actor=actor_name(), reason=reason)
    return done(msg(f"対局 {game_id} の記録 {seq} を取り消しました",
                    f"Removed entry {seq} of game {game_id}"),
                "staff.game_detail", payload={"game": view}, game_id=game_id)


@bp.post("/games/<int:game_id>/void")
@staff_required
def game_void(game_id: int):
    """Void a whole game (kept, but out of the rankings; reason required)."""
    reason = reason_of(form_data())
    row = games.void_game(get_db(), game_id, actor=actor_name(), reason=reason)
    return done(msg(f"対局 {game_id} を無効にしました", f"Game {game_id} is void"),
                "staff.game_detail", payload={"game": {"id": row["id"], "status": row["status"]}},
                game_id=game_id)


@bp.get("/audit")
@staff_required
def audit_log():
    """The audit log, newest first (optionally one target, e.g. ``game:12``)."""
    target = request.args.get("target") or None
    rows = audit_entries(get_db(), target=target, limit=500)
    if wants_json():
        return jsonify({"audit": rows})
    return render_template("staff/audit.html", entries=rows, target=target)

