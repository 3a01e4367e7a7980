"""The floor's side of the tablet API: what a table's tablet shows beside the game (its
staff call, its clock and last-hand warning, the waiting list for its kind of game, the
next game made ready by staff) and what it can ask (call staff, start the game made
ready). Registered on the API blueprint; described in the OpenAPI document."""

from __future__ import annotations

from typing import Any

from flask import current_app, render_template
from flask.typing import ResponseReturnValue

from club import club_tables, clubtime, games, roster
from club.errors import UserError
from club.floor import calls, clock, seating, waiting
from web.api.views import actor, body, bp, events, ok
from web.db import get_db
from web.security import tablet_required


def tablet_floor(table_id: str) -> dict:
    """Everything the tablet shows beside the game, for ``table_id``."""
    db = get_db()
    path = current_app.config["DATABASE"]
    table = club_tables.get_table(db, table_id)
    tz = clubtime.club_zone(db)
    out: dict[str, Any] = {"table_id": table_id, "call": None, "clock": None, "ready": None,
                           "waiting": [], "members": {}}
    last = calls.last_call(db, table_id)
    if last is not None:
        at = last["ack_at"] or last["created_at"]
        # a call has its time
        if not last["ack_at"] or clubtime.minutes_since(at) < 3:  # type: ignore[operator]
            waited = clubtime.now() - clubtime.instant(last["created_at"])  # type: ignore[operator]
            out["call"] = {**last, "waited": int(waited.total_seconds()),
                           "since": clubtime.clock(last["created_at"], tz)}
    live = games.live_game_id(db, table_id)
    if live is not None:
        clock.enforce(db, live)
        game = games.get_game(db, live)
        if game["status"] == "live":
            out["clock"] = clock.status(db, path, game)
    else:
        out["ready"] = seating.ready(db, table_id)
        current = games.current_game(db, table_id)
        if current and current["status"] == "finished":
            out["members"] = {str(s["seat"]): {"name": s["name"], "member": bool(
                roster.get_player(db, s["player_id"])["member_no"])} for s in current["seats"]}
            out["confirm_game"] = current["id"]
    facts = waiting.rule_facts(db, table["rule_set"])
    out["waiting"] = [e for e in waiting.estimates(db, path, shared=True)
                      if waiting.serves(e["wants"], facts)]
    return out


@bp.app_template_global("tablet_floor")
def _tablet_floor_global(table_id: str) -> dict:
    return tablet_floor(table_id)


@bp.get("/tables/<table_id>/floor")
@tablet_required
def table_floor(table_id: str) -> ResponseReturnValue:
    """The tablet's floor part: call, clock, the game made ready, the waiting list."""
    data = tablet_floor(table_id)
    return ok({**data, "parts": {"live": render_template("tablet/_floor_live.html", fx=data)}})


@bp.post("/tables/<table_id>/calls")
@tablet_required
def table_call(table_id: str) -> ResponseReturnValue:
    """Call staff to the table (点数確認 ``score``, 飲み物 ``drink``, その他 ``other``)."""
    db = get_db()
    club_tables.get_table(db, table_id)
    reason = body({"reason": events.choice(calls.REASONS)}, required=("reason",))["reason"]
    row = calls.call(db, table_id, reason)
    return ok({"call": row}, 200 if row.get("again") else 201)


@bp.post("/tables/<table_id>/calls/cancel")
@tablet_required
def table_call_cancel(table_id: str) -> ResponseReturnValue:
    """Take back the table's open call (pressed by mistake)."""
    db = get_db()
    club_tables.get_table(db, table_id)
    return ok({"call": calls.cancel(db, table_id)})


@bp.post("/tables/<table_id>/seatings/<int:seating_id>/start")
@tablet_required
def seating_start(table_id: str, seating_id: int) -> ResponseReturnValue:
    """Start the game staff made ready at this table (a repeat starts nothing more)."""
    db = get_db()
    s = seating.get(db, seating_id)
    if s["table_id"] != table_id:
        raise UserError("floor.seat.other_table", status=403, code="wrong_table",
                        seating=seating_id, table=table_id)
    view = seating.start(db, seating_id, actor=actor())
    return ok(view, 200 if view.get("replayed") else 201)
