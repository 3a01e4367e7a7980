"""The OpenAPI 3.1 description of the JSON API, served at ``GET /api/openapi.json``.

It is plain data so each part of the app adds its own paths to ``PATHS``
(staff endpoints are added the same way). A test checks that every API
route of the app is described here.
"""

from __future__ import annotations

from collections.abc import Iterable

from web.api.openapi.chain import CHAIN_PATHS
from web.api.openapi.members import MEMBER_PATHS
from web.api.openapi.notify import NOTIFY_PATHS
from web.api.openapi.shared import json_body, ref
from web.api.openapi.staff import REPORT_PATHS, STAFF_PATHS, STAFF_SECURITY


def _answer(description: str, schema: dict | None = None) -> dict:
    out = {"description": description}
    if schema is not None:
        out.update(json_body(schema))
    return out


ERRORS = {
    "400": _answer("bad input (not JSON, nested deeper than 32, ...); the message says what "
                   "to send", ref("Error")),
    "401": _answer("no paired tablet token (pair the tablet from the staff console)",
                   ref("Error")),
    "403": _answer("the tablet is paired to another table, or revoked", ref("Error")),
    "404": _answer("no such table, game, player or rule set", ref("Error")),
    "409": _answer("already recorded (code already_recorded), a game in progress, "
                   "or an idempotency key reused for a different request", ref("Error")),
    "413": _answer("the body is larger than this route takes (a hand: 16 KB)", ref("Error")),
    "422": _answer("the request schema refuses a field (code invalid_field, error.field names "
                   "it, e.g. event.winners[0].yakuman) or the rules refuse the event (the "
                   "message names the rule)", ref("Error")),
}

TABLE_ID = {"name": "table_id", "in": "path", "required": True, "schema": {"type": "string"},
            "description": "the table's id (the same as in tablectl)"}
GAME_ID = {"name": "game_id", "in": "path", "required": True, "schema": {"type": "integer"}}
RULE_SET_ID = {"name": "rule_set_id", "in": "path", "required": True,
               "schema": {"type": "string"}, "description": "a preset id or a club rule set id"}
BEARER: list[dict[str, list[str]]] = [{"tabletToken": []}, {"tabletCookie": []}]


def op(summary: str, *, params: Iterable[dict] = (), body: dict | None = None,
        ok: tuple = ("200", "OK"), secure: bool = False,
        errors: Iterable[str] = ("400", "404")) -> dict:
    op: dict = {"summary": summary, "parameters": list(params),
                "responses": {ok[0]: _answer(ok[1], ref("Ok"))}}
    for code in errors:
        op["responses"][code] = ERRORS[code]
    if body is not None:
        op["requestBody"] = {"required": True, **json_body(body)}
    if secure:
        op["security"] = BEARER
        for code in ("401", "403"):
            op["responses"][code] = ERRORS[code]
    return op


WRITE_ERRORS = ("400", "404", "409", "413", "422")
WRITTEN = ("recorded: recorded_seq and the event as stored, its hand as the engine scored it "
           "(deltas, scores, kyoutaku), next_seq, the live state, finished and final; the "
           "same size however long the game (the whole game is GET /api/games/{game_id})")

def _write(summary: str, answer: str, body: dict) -> dict:
    """A tablet's write to its table's game: 201 with ``answer`` (200 for a retry's
    replay), the write errors."""
    return {"post": op(summary, params=[TABLE_ID], secure=True, ok=("201", answer),
                       errors=WRITE_ERRORS, body=body)}


def _keyed(**required: dict) -> dict:
    """The body of a write by key: the ``required`` fields, and the game's id when the
    write is a retry after the game ended."""
    return {"type": "object", "required": list(required),
            "properties": {**required, "game_id": {"type": "integer"}}}


PATHS: dict = {
    "/api/health": {"get": op("liveness: the server answers", errors=())},
    "/api/openapi.json": {"get": op("this document", errors=())},
    "/api/players": {"get": op(
        "members (and guests with ?guests=1)",
        params=[{"name": "guests", "in": "query",
                 "schema": {"type": "string", "enum": ["0", "1"]}}],
        errors=())},
    "/api/tables/{table_id}/guests": {"post": op(
        "add a guest player", params=[TABLE_ID], secure=True, ok=("201", "the new player"),
        body={"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}})},
    "/api/rule-sets": {"get": op("shipped presets and the club's rule sets", errors=())},
    "/api/rule-sets/{rule_set_id}": {"get": op("a rule set, fully resolved",
                                                params=[RULE_SET_ID])},
    "/api/rule-sets/{rule_set_id}/han-fu": {"get": op(
        "the (han, fu) pairs that exist under the rules",
        params=[RULE_SET_ID, {"name": "tsumo", "in": "query",
                              "schema": {"type": "string", "enum": ["0", "1"]}}])},
    "/api/tables": {"get": op("the club's tables with their live game", errors=())},
    "/api/tables/{table_id}": {"get": op(
        "a table, its current game (state replayed by the engine) and the table's own "
        "score reading compared with the recorded scores", params=[TABLE_ID])},
    "/api/tables/{table_id}/games": {"post": op(
        "start a game (players in seat order, the first dealer first)",
        params=[TABLE_ID], secure=True, ok=("201", "the new game"), errors=WRITE_ERRORS,
        body={"type": "object", "required": ["players", "idempotency_key"], "properties": {
            "players": {"type": "array", "items": {"type": "integer"},
                        "minItems": 3, "maxItems": 4},
            "rule_set": {"type": "string", "description": "default: the table's rule set"},
            "idempotency_key": {"type": "string", "minLength": 8, "maxLength": 100}}})},
    "/api/tables/{table_id}/preview": {"post": op(
        "what an event would pay, per seat, without recording it",
        params=[TABLE_ID], secure=True, errors=WRITE_ERRORS,
        body={"type": "object", "required": ["event"], "properties": {"event": ref("Event")}})},
    "/api/tables/{table_id}/hands": _write(
        "record one event exactly once (a retry with the same key answers 200 with "
        "replayed: true; a slot already taken answers 409 already_recorded)",
        WRITTEN, ref("Submission")),
    "/api/tables/{table_id}/undo": _write(
        "void the last hand (appends a void marker; nothing is deleted)",
        "undone: the answer of a recorded hand, with undone (the entry struck) and no event "
        "or hand", _keyed(expected_seq={"type": "integer"},
                          idempotency_key={"type": "string"})),
    "/api/tables/{table_id}/void": _write(
        "void the entry an idempotency key wrote, whether or not it ever arrived (the undo of "
        "a hand whose answer was lost): a stored entry, which must be the last, gets a void "
        "marker; a key that wrote nothing gets a tombstone, so the hand is refused if it "
        "arrives later. The server chooses the entry number: next_seq in the answer",
        "the answer of an undo, with voided (a stored entry was struck) and undone (which)",
        _keyed(target_key={"type": "string", "minLength": 8, "maxLength": 100},
               idempotency_key={"type": "string", "minLength": 8, "maxLength": 100})),
    "/api/tables/{table_id}/score-hand": {"post": op(
        "score a tile-entered hand under the game's rules (scoring-batch contract result)",
        params=[TABLE_ID], secure=True, errors=("400", "404", "409"),
        body={"type": "object", "required": ["hand"], "properties": {"hand": {"type": "object"}}})},
    "/api/tables/{table_id}/games/{game_id}/confirm": {"post": op(
        "a player confirms the final settlement sheet for themself: a member gives their "
        "member number (422 confirm_needs_member_no otherwise); a player without one "
        "confirms at the tablet",
        params=[TABLE_ID, GAME_ID], secure=True, errors=WRITE_ERRORS,
        body={"type": "object", "required": ["seat"],
              "properties": {"seat": {"type": "integer"},
                             "member_no": {"type": "string"}}})},
    "/api/games": {"get": op(
        "recent games, newest first",
        params=[{"name": "table", "in": "query", "schema": {"type": "string"}},
                {"name": "status", "in": "query",
                 "schema": {"type": "string", "enum": ["live", "finished", "void"]}},
                {"name": "limit", "in": "query", "schema": {"type": "integer"}}],
        errors=("400",))},
    "/api/games/{game_id}": {"get": op(
        "a game: seats, effective events, engine replay (hands, final settlement), live state",
        params=[GAME_ID], errors=("404",))},
    "/api/games/{game_id}/entry": {"get": op(
        "what entry forms need of the game's rules and the price list of every han/fu pair, "
        "honba, sticks, chips and how the game moves on (a tablet prices hands offline from "
        "it); yaku from the registry with their closed/open han, or the 81 MCR fans with "
        "their exclusions",
        params=[GAME_ID], errors=("404",))},
    "/api/games/{game_id}/events": {"get": op(
        "the stored log (markers included) and the effective events in game-events format",
        params=[GAME_ID], errors=("404",))},
}

SCHEMAS: dict = {
    "Ok": {"type": "object", "required": ["ok"], "properties": {"ok": {"const": True}},
           "additionalProperties": True},
    "Error": {"type": "object", "required": ["ok", "error"], "properties": {
        "ok": {"const": False},
        "error": {"type": "object", "required": ["code", "message"], "properties": {
            "code": {"type": "string"},
            "message": {"type": "string", "description": "a sentence a person can act on"}}}}},
    "Event": {"type": "object", "required": ["event"],
              "description": "one event of the game-events contract "
                             "(win, draw, abort, chombo, penalty, end). A winner may carry, "
                             "besides seat and han/fu/yakuman or a hand: yaku (picked yaku "
                             "[{id, han}] or [{id, yakuman}], checked against the registry "
                             "and summed into han), open, dora, aka, ura, nukidora (counts), "
                             "ippatsu, pocchi (chip facts: chips are counted from them when "
                             "not given), and under MCR fan (paid on, flowers included), "
                             "flowers and fans [{id, count}]",
              "properties": {"event": {"type": "string",
                                       "enum": ["win", "draw", "abort", "chombo", "penalty",
                                                "end"]}},
              "additionalProperties": True},
    "Submission": {"type": "object", "required": ["event", "expected_seq", "idempotency_key"],
                   "properties": {
                       "event": ref("Event"),
                       "expected_seq": {"type": "integer", "minimum": 1,
                                        "description": "the entry number this takes: next_seq "
                                                       "from the game's state"},
                       "idempotency_key": {"type": "string", "minLength": 8, "maxLength": 100},
                       "game_id": {"type": "integer"}}},
}

OPENAPI: dict = {
    "openapi": "3.1.0",
    "info": {"title": "Jantaku club web API", "version": "1",
             "description": "Tablets record hands; staff run the floor. Errors are JSON with a "
                            "message a person can act on."},
    "paths": PATHS,
    "components": {
        "schemas": SCHEMAS,
        "securitySchemes": {
            "tabletToken": {"type": "http", "scheme": "bearer",
                            "description": "the tablet pairing token issued by staff"},
            "tabletCookie": {"type": "apiKey", "in": "cookie", "name": "jantaku_tablet"},
        },
    },
}

# Sign-in, pairing and staff console endpoints, described beside their routes.
PATHS.update(STAFF_PATHS)
PATHS.update(REPORT_PATHS)
PATHS.update(MEMBER_PATHS)
PATHS.update(NOTIFY_PATHS)
PATHS.update(CHAIN_PATHS)
OPENAPI["components"]["securitySchemes"].update(STAFF_SECURITY)
