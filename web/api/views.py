"""The JSON API: everything the tablet page does, for scripts and other clients too.

Every answer is JSON. Errors are ``{"ok": false, "error": {"code", "message"}}``
with 400 (bad input), 401/403 (not paired / wrong table), 404, 409 (already
recorded, game in progress) or 422 (the rules refuse it). Writes carry an
``idempotency_key`` (and, for hands, the ``expected_seq`` they take) so a retry
records once. The full description is ``GET /api/openapi.json``.
"""

from __future__ import annotations

from typing import Any, Callable

from flask import Blueprint, current_app, jsonify, request
from flask.typing import ResponseReturnValue

from club import club_tables, engine, events, gamelog, games, readings, roster
from club.accounts import GUESTS_FROM_TABLETS, MEMBER_NO_GUESSES
from club.db import Db
from club.entry import entry_spec
from web.api.openapi import OPENAPI
from web.db import get_db
from web.errors import UserError
from web.limits import json_body, query_number
from web.security import caller_key, current_staff, current_tablet_table, tablet_required

bp = Blueprint("api", __name__, url_prefix="/api")


def body(fields: dict, required: tuple = ()) -> dict:
    """The request's JSON object with only ``fields`` (checked), or a 400/422 that says
    what to send."""
    data = json_body()
    if not isinstance(data, dict):
        raise UserError("http.send_json_object", code="invalid_json")
    return events.check_body(data, fields, required)


def _int_arg(name: str, default: int, low: int = 1, high: int = 500) -> int:
    found = query_number(name, default, low, high)
    return default if found is None else found


def actor() -> str:
    """Who is acting, for the log: the paired tablet's table (or 'api')."""
    table = current_tablet_table()
    return f"tablet:{table}" if table else "api"


def ok(data: Any = None, status: int = 200, **extra: Any) -> ResponseReturnValue:
    payload = {"ok": True, **(data or {}), **extra}
    return jsonify(payload), status


def live_game_id(db: Db, table_id: str) -> int:
    """The id of the table's live game, or a 404 (no such table) or 409 (no game on)."""
    game_id = games.live_game_id(db, table_id)
    if game_id is None:
        club_tables.get_table(db, table_id)
        raise UserError("records.no_live_game", status=409, code="no_live_game", table=table_id)
    return game_id


def table_game(db: Db, table_id: str) -> gamelog.Game:
    """The table's live game row, or a 404/409 saying why there is none."""
    return games.get_game(db, live_game_id(db, table_id))


# --------------------------------------------------------------------------- meta
@bp.get("/health")
def health() -> ResponseReturnValue:
    return ok({"service": "jantaku-web"})


@bp.get("/openapi.json")
def openapi() -> ResponseReturnValue:
    return jsonify(OPENAPI)


# --------------------------------------------------------------------------- players and rules
PUBLIC_PLAYER = ("id", "name", "guest")
"""What anyone on the club network may read of a player (the leaderboard shows names)."""


@bp.get("/players")
def players() -> ResponseReturnValue:
    rows = roster.list_players(get_db(), guests=request.args.get("guests") == "1")
    if current_staff() is None:
        return ok({"players": [{k: v for k, v in r.items() if k in PUBLIC_PLAYER}
                                 for r in rows]})
    return ok({"players": rows})


@bp.post("/tables/<table_id>/guests")
@tablet_required
def add_guest(table_id: str) -> ResponseReturnValue:
    db = get_db()
    club_tables.get_table(db, table_id)
    data = body({"name": events.text(roster.MAX_NAME * 4)}, required=("name",))
    # Every try counts (a similar-name refusal tells names too), per tablet and per table.
    keys = [caller_key(), f"table:{table_id}"]
    GUESTS_FROM_TABLETS.check(db, keys)
    GUESTS_FROM_TABLETS.count(db, keys)
    player = roster.add_player(db, data["name"], guest=True)
    return ok({"player": {k: v for k, v in player.items() if k in PUBLIC_PLAYER}}, 201)


@bp.get("/rule-sets")
def rule_sets() -> ResponseReturnValue:
    return ok({"rule_sets": club_tables.list_rule_sets(get_db())})


@bp.get("/rule-sets/<rule_set_id>")
def rule_set(rule_set_id: str) -> ResponseReturnValue:
    return ok({"rule_set": club_tables.get_rule_set(get_db(), rule_set_id)})


@bp.get("/rule-sets/<rule_set_id>/han-fu")
def han_fu(rule_set_id: str) -> ResponseReturnValue:
    rules = club_tables.resolve_rules(get_db(), rule_set_id)
    tsumo = request.args.get("tsumo") in ("1", "true")
    return ok({"tsumo": tsumo, "pairs": engine.han_fu_pairs(rules, tsumo=tsumo)})


# --------------------------------------------------------------------------- tables and games
@bp.get("/tables")
def tables() -> ResponseReturnValue:
    return ok({"tables": club_tables.list_tables(get_db())})


@bp.get("/tables/<table_id>")
def table(table_id: str) -> ResponseReturnValue:
    db = get_db()
    tbl = club_tables.get_table(db, table_id)
    game = games.current_game(db, table_id)
    view = games.game_view(db, game["id"]) if game else None
    reading = readings.table_reading(current_app.config["DATABASE"], table_id)
    return ok({"table": tbl, "game": view, "reading": readings.compare(reading, view)})


@bp.post("/tables/<table_id>/games")
@tablet_required
def start_game(table_id: str) -> ResponseReturnValue:
    data = body({"players": events.items(events.game_id, 3, 4), "rule_set": events.text(40),
                 "idempotency_key": events.idempotency_key},
                required=("players", "idempotency_key"))
    view = games.start_game(
        get_db(), table_id, data["players"], rule_set=data.get("rule_set"),
        idempotency_key=data["idempotency_key"], actor=actor(),
    )
    return ok(view, 200 if view.get("replayed") else 201)


@bp.post("/tables/<table_id>/preview")
@tablet_required
def preview(table_id: str) -> ResponseReturnValue:
    db = get_db()
    game = table_game(db, table_id)
    data = body({"event": events.event_field}, required=("event",))
    return ok(games.preview_event(db, game["id"], data["event"]))


WRITE_FIELDS = {"expected_seq": events.expected_seq, "idempotency_key": events.idempotency_key,
                "game_id": events.game_id}


@bp.post("/tables/<table_id>/hands")
@tablet_required
def record(table_id: str) -> ResponseReturnValue:
    return _write(table_id, {"event": events.event_field, **WRITE_FIELDS},
                  ("event", "expected_seq", "idempotency_key"),
                  lambda db, game_id, data: games.record_event(
                      db, game_id, data["event"], expected_seq=data["expected_seq"],
                      idempotency_key=data["idempotency_key"], actor=actor()))


@bp.post("/tables/<table_id>/undo")
@tablet_required
def undo(table_id: str) -> ResponseReturnValue:
    return _write(table_id, WRITE_FIELDS, ("expected_seq", "idempotency_key"),
                  lambda db, game_id, data: games.undo_last(
                      db, game_id, expected_seq=data["expected_seq"],
                      idempotency_key=data["idempotency_key"], actor=actor()))


@bp.post("/tables/<table_id>/void")
@tablet_required
def void_key(table_id: str) -> ResponseReturnValue:
    """Void the entry a key wrote, whether or not it arrived (an undo of a lost answer)."""
    return _write(table_id, {"target_key": events.idempotency_key,
                             "idempotency_key": events.idempotency_key,
                             "game_id": events.game_id}, ("target_key", "idempotency_key"),
                  lambda db, game_id, data: games.void_by_key(
                      db, game_id, target_key=data["target_key"],
                      idempotency_key=data["idempotency_key"], actor=actor()))


def _write(table_id: str, fields: dict, required: tuple[str, ...],
           write: Callable[[Db, int, dict], dict]) -> ResponseReturnValue:
    """A write to the table's game (``write(db, game_id, the body)``): 201, or 200 when
    it is a retry's replay of the first answer."""
    db = get_db()
    data = body(fields, required=required)
    view = write(db, _game_for_write(db, table_id, data), data)
    return ok(view, 200 if view.get("replayed") else 201)


def _game_for_write(db: Db, table_id: str, data: dict) -> int:
    """The game a write is for: ``game_id`` if given (a retry after the game ended), else live."""
    game_id = data.get("game_id")
    if game_id is None:
        return live_game_id(db, table_id)
    return _game_at(db, table_id, game_id)["id"]


def _game_at(db: Db, table_id: str, game_id: int) -> gamelog.Game:
    game = games.get_game(db, game_id)
    if game["table_id"] != table_id:
        raise UserError("records.game_elsewhere", status=403, code="wrong_table", game=game_id,
                        table=table_id)
    return game


@bp.post("/tables/<table_id>/score-hand")
@tablet_required
def score_hand(table_id: str) -> ResponseReturnValue:
    """Score a tile-entered hand under the table's game rules (nothing is recorded)."""
    db = get_db()
    game = table_game(db, table_id)
    line = body({"hand": events.HAND}, required=("hand",))["hand"]
    return ok({"result": engine.score_hand(line, gamelog.rules_of(game))})


@bp.post("/tables/<table_id>/games/<int:game_id>/confirm")
@tablet_required
def confirm(table_id: str, game_id: int) -> ResponseReturnValue:
    db = get_db()
    _game_at(db, table_id, game_id)
    data = body({"seat": events.whole(0, 3), "member_no": events.text(roster.MAX_NAME)},
                required=("seat",))
    # Member numbers are guessed at per tablet and per game: wait first, then check (a
    # confirmation without one guesses nothing: a guest's goes on).
    keys = [caller_key(), f"game:{game_id}"]
    if data.get("member_no"):
        MEMBER_NO_GUESSES.check(db, keys)
    try:
        view = games.confirm_result(db, game_id, data["seat"], actor=actor(),
                                    member_no=data.get("member_no"))
    except UserError as e:
        if e.code == "confirm_needs_member_no" and data.get("member_no"):
            MEMBER_NO_GUESSES.count(db, keys)
        raise
    return ok(view)


@bp.get("/games")
def list_games() -> ResponseReturnValue:
    return ok({"games": games.list_games(
        get_db(), table_id=request.args.get("table"), status=request.args.get("status"),
        limit=_int_arg("limit", 50))})


@bp.get("/games/<int:game_id>")
def game(game_id: int) -> ResponseReturnValue:
    return ok(games.game_view(get_db(), game_id))


@bp.get("/games/<int:game_id>/entry")
def game_entry(game_id: int) -> ResponseReturnValue:
    """What entry forms and offline pricing need of a game's rules (club/entry.py)."""
    game = games.get_game(get_db(), game_id)
    return ok({"entry": entry_spec(gamelog.rules_of(game))})


PUBLIC_LOG = ("seq", "kind", "event", "target_seq", "created_at")
"""What anyone may read of a game's stored log; who entered it and why is for staff."""


@bp.get("/games/<int:game_id>/events")
def game_events(game_id: int) -> ResponseReturnValue:
    """The stored log, markers included, and the effective events (game-events format)."""
    db = get_db()
    played = gamelog.played(db, games.get_game(db, game_id))
    log = played.log
    if current_staff() is None:
        log = [{k: r[k] for k in PUBLIC_LOG} for r in log]
    return ok({"log": log, "events": played.events})
