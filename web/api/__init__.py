"""The JSON API: everything the tablet page does, for scripts and other clients too.

Every answer is JSON. Errors are ``{"ok": false, "error": {"code", "message"}}``
with 400 (bad input), 401/403 (not paired / wrong table), 404, 409 (already
recorded, game in progress) or 422 (the rules refuse it). Writes carry an
``idempotency_key`` (and, for hands, the ``expected_seq`` they take) so a retry
records once. The full description is ``GET /api/openapi.json``.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, request

from .. import games
from ..db import get_db
from ..errors import UserError
from ..security import current_tablet_table, tablet_required
from .. import readings
from .openapi import OPENAPI

bp = Blueprint("api", __name__, url_prefix="/api")


def body() -> dict:
    """The request's JSON object, or a 400 that says what to send."""
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise UserError("send a JSON object in the request body "
                        "(Content-Type: application/json)", code="invalid_json")
    return data


def _int_arg(name: str, default: int | None = None) -> int | None:
    raw = request.args.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise UserError(f"{name} must be a whole number, not {raw!r}") from None


def actor() -> str:
    """Who is acting, for the log: the paired tablet's table (or 'api')."""
    table = current_tablet_table()
    return f"tablet:{table}" if table else "api"


def ok(data: Any = None, status: int = 200, **extra):
    payload = {"ok": True, **(data or {}), **extra}
    return jsonify(payload), status


def table_game(db, table_id: str) -> dict:
    """The table's live game row, or a 409 saying there is none."""
    games.get_table(db, table_id)
    game = games.current_game(db, table_id)
    if game is None or game["status"] != "live":
        raise UserError(f"table {table_id} has no game in progress: start one first",
                        status=409, code="no_live_game")
    return game


# --------------------------------------------------------------------------- meta
@bp.get("/health")
def health():
    return ok({"service": "jantaku-web"})


@bp.get("/openapi.json")
def openapi():
    return jsonify(OPENAPI)


# --------------------------------------------------------------------------- players and rules
@bp.get("/players")
def players():
    db = get_db()
    return ok({"players": games.list_players(db, guests=request.args.get("guests") == "1")})


@bp.post("/tables/<table_id>/guests")
@tablet_required
def add_guest(table_id: str):
    db = get_db()
    games.get_table(db, table_id)
    player = games.add_player(db, body().get("name"), guest=True)
    return ok({"player": player}, 201)


@bp.get("/rule-sets")
def rule_sets():
    return ok({"rule_sets": games.list_rule_sets(get_db())})


@bp.get("/rule-sets/<rule_set_id>")
def rule_set(rule_set_id: str):
    return ok({"rule_set": games.get_rule_set(get_db(), rule_set_id)})


@bp.get("/rule-sets/<rule_set_id>/han-fu")
def han_fu(rule_set_id: str):
    from .. import engine

    rules = games.resolve_rules(get_db(), rule_set_id)
    tsumo = request.args.get("tsumo") in ("1", "true")
    return ok({"tsumo": tsumo, "pairs": [list(p) for p in engine.han_fu_pairs(rules, tsumo=tsumo)]})


# --------------------------------------------------------------------------- tables and games
@bp.get("/tables")
def tables():
    return ok({"tables": games.list_tables(get_db())})


@bp.get("/tables/<table_id>")
def table(table_id: str):
    db = get_db()
    tbl = games.get_table(db, table_id)
    game = games.current_game(db, table_id)
    view = games.game_view(db, game["id"]) if game else None
    reading = readings.table_reading(current_app.config["DATABASE"], table_id)
    return ok({"table": tbl, "game": view, "reading": readings.compare(reading, view)})


@bp.post("/tables/<table_id>/games")
@tablet_required
def start_game(table_id: str):
    data = body()
    view = games.start_game(
        get_db(), table_id, data.get("players"), rule_set=data.get("rule_set"),
        idempotency_key=data.get("idempotency_key"), actor=actor(),
    )
    return ok(view, 200 if view.get("replayed") else 201)


@bp.post("/tables/<table_id>/preview")
@tablet_required
def preview(table_id: str):
    db = get_db()
    game = table_game(db, table_id)
    return ok(games.preview_event(db, game["id"], body().get("event")))


@bp.post("/tables/<table_id>/hands")
@tablet_required
def record(table_id: str):
    db = get_db()
    data = body()
    game = _game_for_write(db, table_id, data)
    view = games.record_event(db, game["id"], data.get("event"),
                              expected_seq=data.get("expected_seq"),
                              idempotency_key=data.get("idempotency_key"), actor=actor())
    return ok(view, 200 if view.get("replayed") else 201)


@bp.post("/tables/<table_id>/undo")
@tablet_required
def undo(table_id: str):
    db = get_db()
    data = body()
    game = _game_for_write(db, table_id, data)
    view = games.undo_last(db, game["id"], expected_seq=data.get("expected_seq"),
                           idempotency_key=data.get("idempotency_key"), actor=actor())
    return ok(view, 200 if view.get("replayed") else 201)


def _game_for_write(db, table_id: str, data: dict) -> dict:
    """The game a write is for: ``game_id`` if given (a retry after the game ended), else live."""
    game_id = data.get("game_id")
    if game_id is None:
        return table_game(db, table_id)
    if not isinstance(game_id, int) or isinstance(game_id, bool):
        raise UserError("game_id must be the game's number")
    game = games.get_game(db, game_id)
    if game["table_id"] != table_id:
        raise UserError(f"game {game_id} is not played at table {table_id}", status=403,
                        code="wrong_table")
    return game


@bp.post("/tables/<table_id>/score-hand")
@tablet_required
def score_hand(table_id: str):
    """Score a tile-entered hand under the table's game rules (nothing is recorded)."""
    from .. import engine
    from scoring.rules import load_rules

    db = get_db()
    game = table_game(db, table_id)
    line = body().get("hand")
    if not isinstance(line, dict):
        raise UserError('send {"hand": {...}} with the hand as a scoring-batch input line')
    return ok({"result": engine.score_hand(line, load_rules(game["rules"]))})


@bp.post("/tables/<table_id>/games/<int:game_id>/confirm")
@tablet_required
def confirm(table_id: str, game_id: int):
    db = get_db()
    game = games.get_game(db, game_id)
    if game["table_id"] != table_id:
        raise UserError(f"game {game_id} is not played at table {table_id}", status=403,
                        code="wrong_table")
    return ok(games.confirm_result(db, game_id, body().get("seat"), actor=actor()))


@bp.get("/games")
def list_games():
    return ok({"games": games.list_games(
        get_db(), table_id=request.args.get("table"), status=request.args.get("status"),
        limit=_int_arg("limit", 50))})


@bp.get("/games/<int:game_id>")
def game(game_id: int):
    return ok(games.game_view(get_db(), game_id))


@bp.get("/games/<int:game_id>/events")
def game_events(game_id: int):
    """The stored log, markers included, and the effective events (game-events format)."""
    db = get_db()
    games.get_game(db, game_id)
    log = games.event_log(db, game_id)
    return ok({"log": log, "events": [e["event"] for e in games.effective_events(log)]})
