"""Staff actions on a member's data: what the club holds about them, its download as a
JSON file, and the erasure of their personal data (a manager or owner, with a reason and
the member's number typed again to confirm; audited)."""

from __future__ import annotations

import json

from flask import Response, jsonify, render_template
from flask.typing import ResponseReturnValue

from club import club_tables, member_data, roster
from club.db import Db, one, rows
from club.errors import UserError
from web.db import get_db
from web.i18n import current_lang, t
from web.limits import form_data
from web.security import actor_name, current_staff, staff_required, wants_json
from web.staff.common import bp, done

ERASERS = ("manager", "owner")
"""Roles that may erase a member's personal data (it cannot be undone)."""


def _summary(db: Db, player_id: int) -> dict:
    player = roster.get_player(db, player_id)
    pid = player["id"]
    prof = one(db, "SELECT * FROM member_profiles WHERE player_id = ?", [pid])
    live = one(db, "SELECT g.id, g.table_id FROM game_seats s JOIN games g ON g.id = s.game_id "
                   "WHERE s.player_id = ? AND g.status = 'live' LIMIT 1", [pid])
    count = one(db, "SELECT COUNT(*) AS n FROM game_seats WHERE player_id = ?", [pid])
    return {
        "player": player,
        "profile": prof is not None,
        "contacts": bool(prof and (prof["email"] or prof["line_user_id"])),
        "games": count["n"] if count else 0,
        "waiting": len(rows(db, "SELECT id FROM waiting WHERE player_id = ?", [pid])),
        "audit": len(rows(db, "SELECT id FROM audit_log WHERE target = ?", [f"player:{pid}"])),
        "live_game": live,
        "erased": member_data.erased(db, pid),
        "free_text_matches": member_data.free_text_matches(db, pid),
        "outside_the_file": member_data.outside_the_file(current_lang()),
    }


@bp.get("/players/<int:player_id>/data")
@staff_required
def member_data_page(player_id: int) -> ResponseReturnValue:
    """What the club holds about a player, with the download and the erase form."""
    db = get_db()
    info = _summary(db, player_id)
    if wants_json():
        return jsonify({"ok": True, **info})
    staff = current_staff() or {}
    return render_template("staff/member_data.html", info=info,
                           may_erase=staff.get("role") in ERASERS,
                           former=member_data.former_name(info["player"]["id"]),
                           table_name=lambda tid: club_tables.get_table(db, tid)["name"] or tid)


@bp.get("/players/<int:player_id>/data/export")
@staff_required
def member_data_export(player_id: int) -> ResponseReturnValue:
    """Everything the club holds about a player, as a JSON file to hand to them."""
    data = member_data.export(get_db(), player_id)
    body = json.dumps(data, ensure_ascii=False, indent=2, sort_keys=False, default=str)
    name = f"member-{data['player']['id']}-data.json"
    return Response(body.encode("utf-8"), mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{name}"',
                             "Cache-Control": "no-store"})


@bp.post("/players/<int:player_id>/erase")
@staff_required
def member_data_erase(player_id: int) -> ResponseReturnValue:
    """Erase a member's personal data (``reason``; ``confirm``: the player's number typed
    again). A manager or owner only; the games' results stay."""
    db = get_db()
    player = roster.get_player(db, player_id)
    staff = current_staff() or {}
    if staff.get("role") not in ERASERS:
        raise UserError("member_data.manager_only", status=403, code="role_required")
    data = form_data()
    reason = member_data.check_reason(data.get("reason"))
    confirm = data.get("confirm")
    typed = str(confirm).strip() if isinstance(confirm, (str, int)) \
        and not isinstance(confirm, bool) else ""
    if typed != str(player["id"]):
        raise UserError("member_data.confirm_required", code="confirm_required",
                        details={"field": "confirm"}, number=player["id"])
    out = member_data.erase(db, player["id"], actor_name(), reason)
    return done(t("member_data.erased", former=out["player"]["name"]),
                "staff.member_data_page", payload={"erased": out}, player_id=player["id"])

