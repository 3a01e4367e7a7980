"""OpenAPI entries for the sign-in, pairing and staff console endpoints, the daily
report and the standings settings among them.

Merged into ``web.api.openapi.PATHS`` so ``GET /api/openapi.json`` describes
everything. Staff endpoints answer JSON when asked (``Accept:
application/json`` or a JSON body) and need the staff session cookie plus the
session's CSRF token in ``X-CSRF-Token`` for every POST.
"""

from __future__ import annotations

from collections.abc import Iterable

from web.api.openapi.shared import (
    BOOL,
    ERR,
    GAME,
    INT,
    PLAYER,
    RULES,
    SEQ,
    STR,
    TABLE,
    TABLET,
    json_body,
    obj,
    op,
    path_param,
    ref,
)

MODE_Q = {"name": "mode", "in": "query", "required": True, "schema": STR,
          "description": "the mode to change to: 0-8, '04' or a name such as sanma"}
REASON = obj(["reason"], reason={"type": "string", "minLength": 3,
                                  "description": "why: goes into the audit log"})


def _put_sticks(how: str) -> dict:
    """A way the console puts in the point sticks a mode needs where no hand can."""
    return {"post": op(f"{how}; 409 not_simulated on a real table", params=[TABLE],
                       errors=("400", "404", "409"),
                       body=obj(["mode"], mode={"description": "0-8, '04' or a name such as "
                                                "sanma"}, idempotency_key=STR))}


STAFF_PATHS: dict = {
    "/auth/csrf": {"get": op("the session's CSRF token (send it as X-CSRF-Token)",
                              errors=(), staff=False)},
    "/auth/login": {"post": op(
        "staff sign-in; answers a fresh csrf_token (the old one stops working)",
        body=obj(["name", "password"], name=STR, password=STR),
        errors=("400", "401", "403", "429"), staff=False)},
    "/auth/logout": {"post": op("sign out", errors=("400", "403"), staff=False)},
    "/auth/pair": {"post": op(
        "exchange a one-time pairing code (from the staff QR code) for the tablet token: "
        "set as the httponly cookie jantaku_tablet and returned as token",
        body=obj(["code"], code=STR), errors=("400", "403", "404", "409"), staff=False)},
    "/staff/floor.json": {"get": op(
        "every table live: daemon state (connected, mode, pending mode, cycle, lid, errors, "
        "points), last command, game in progress (replayed)", errors=())},
    "/staff/tables/{table_id}/command": {"post": op(
        "send a command to a table through the daemon; 200 done, 202 still running, "
        "409 the table refused (message in the table's words), 504 not answered",
        params=[TABLE], errors=("400", "404", "409"),
        body=obj(["command"], command={"type": "string",
                                        "enum": ["mode", "cycle", "check", "dice", "points",
                                                 "status"]},
                  mode={"description": "for mode: 0-8, '04' or a name such as sanma"},
                  idempotency_key=STR,
                  back={"type": "string", "description": "a form's page to return to: "
                                                         "mode:NN (the guided mode page)"}))},
    "/staff/tables/{table_id}/mode": {"get": op(
        "the guided mode change page (HTML): choose a mode, what each drawer needs, the "
        "table's live answer; its data is mode.json", params=[TABLE, MODE_Q],
        errors=("400", "404"))},
    "/staff/tables/{table_id}/mode.json": {"get": op(
        "where a table stands on its way to a mode: step (on, pending, offline, busy, sticks, "
        "ready; a jpex-panel table: unknown, start, sticks, sticks_wait, progress, on), each "
        "seat's drawer (needs sticks or must be empty, the amount, what it holds, ok), "
        "cancels (the mode is the current one and another is pending), simulated, and the "
        "live part of the page as html", params=[TABLE, MODE_Q], errors=("400", "404"))},
    "/staff/tables/{table_id}/calibrate": {
        "get": op("a stock (jpex-panel) table's calibration page (HTML): the number the "
                   "driver believes the display shows, a number pad; its data is "
                   "calibrate.json", params=[TABLE], errors=("404", "409")),
        "post": op("the number staff read on the display: the journalled calibrate --seen NN "
                    "(the driver presses up or down once); 409 not_panel for another table",
                    params=[TABLE], errors=("400", "404", "409"),
                    body=obj(["seen"], seen={"description": "00-08, as the display shows it"},
                              idempotency_key=STR))},
    "/staff/tables/{table_id}/calibrate.json": {"get": op(
        "a stock table's calibration: shown, expected, mismatches (seen, expected), the last "
        "answer in words, and the live part of the page as html", params=[TABLE],
        errors=("404", "409"))},
    "/staff/tables/{table_id}/camera": {
        "get": op("a table's camera page (HTML): the camera's picture with the digits' region "
                   "drawn over it to drag, what the reader reads now; its data is camera.json",
                   params=[TABLE], errors=("404",)),
        "post": op("keep the digits' region of a table's camera (audited); 422 invalid_field "
                    "for anything but four corners [x, y] in 0..10000, clockwise from the top "
                    "left, a convex box of at least 100 square pixels; 404 no_camera",
                    params=[TABLE], errors=("400", "404", "422"),
                    body=obj(["region"], region={
                        "description": "four [x, y] corners in the picture's pixels, or the "
                                       "JSON text of them (the page's form)"}))},
    "/staff/tables/{table_id}/camera.json": {"get": op(
        "a table's camera: the region in force (null: not set), from_console, updated_by, the "
        "picture's size, the reading (number, certain, dark) and its words, or picture_error",
        params=[TABLE], errors=("404",))},
    "/staff/tables/{table_id}/camera.png": {"get": {
        **op("the camera's picture now (image/png)", params=[TABLE], errors=("404", "503")),
        "responses": {"200": {"description": "the picture",
                              "content": {"image/png": {"schema": {"type": "string",
                                                                   "format": "binary"}}}},
                      **{c: {"description": ERR[c], **json_body(ref("Error"))}
                         for c in ("404", "503", "401", "403")}}}},
    "/staff/tables/{table_id}/sticks": _put_sticks(
        "simulated (sim://) tables only: put in the point sticks a mode needs, through the "
        "daemon's sim-sticks command (what staff do by hand at a real table)"),
    "/staff/tables/{table_id}/demo-sticks": _put_sticks(
        "the demo's stock table only (python -m web demo): put in the point sticks a mode "
        "needs, through the file its simulated drawers follow"),
    "/staff/players": {
        "get": op("members, guests and retired players", errors=()),
        "post": op("add a member or guest; 409 similar_name (with error.similar, the ids of "
                    "the players it reads like: NFKC, case, spaces, katakana/hiragana) unless "
                    "allow_similar; a guest named like an earlier guest not at a table is "
                    "that guest again (200, player.reused)", ok="201", errors=("400", "409"),
                    body=obj(["name"], name=STR, member_no=STR, guest=BOOL,
                              allow_similar=BOOL))},
    "/staff/settings": {
        "get": op("the club's settings: timezone, closing_hour (a club day's end), "
                   "guests_ranked ('1': guests on the leaderboards)", errors=()),
        "post": op("change the club's settings (a new time zone or closing hour re-files every "
                    "game's club day); audited with the old and new values",
                    errors=("400",),
                    body=obj([], timezone=STR, closing_hour=STR, guests_ranked=BOOL))},
    "/staff/players/{player_id}/active": {"post": op(
        "retire (active false) or restore a player", params=[PLAYER], errors=("400", "404"),
        body=obj(["active"], active=BOOL))},
    "/staff/players/{player_id}/data": {"get": op(
        "what the club holds about a player: the player row, whether they have a member "
        "profile and contacts, how many games, waiting-list and audit entries, their live "
        "game (if any) and whether their personal data is erased", params=[PLAYER],
        errors=("404",))},
    "/staff/players/{player_id}/data/export": {"get": op(
        "everything the club file holds about a player as a JSON file (Content-Disposition: "
        "attachment), times in the club's time zone; the stored forms of the PIN and the "
        "personal link are withheld (withheld says why)", params=[PLAYER], errors=("404",))},
    "/staff/players/{player_id}/erase": {"post": op(
        "erase a member's personal data (a manager or owner; 403 role_required otherwise): "
        "the name becomes 退会者 #N, the member number, page link, PIN, contacts and opt-ins "
        "go, an open waiting-list place closes; every game's results stay; audited with the "
        "reason. confirm is the player's number typed again. 409 player_seated while they "
        "play, already_erased", params=[PLAYER], errors=("400", "404", "409"),
        body=obj(["reason", "confirm"], reason=STR, confirm=STR))},
    "/staff/tables": {
        "get": op("the club's tables", errors=()),
        "post": op("create a table or change its name / rule set; answers mode_needed: the "
                    "AMOS mode the rule set plays when the table runs another (the page then "
                    "leads to the guided mode change), else null", errors=("400", "404"),
                    body=obj(["id", "name", "rule_set"], id=STR, name=STR, rule_set=STR))},
    "/staff/rulesets": {
        "get": op("presets and club rule sets", errors=()),
        "post": op("create or replace a club rule set (TOML that extends a preset); "
                    "an invalid file changes nothing", errors=("400", "409"),
                    body=obj(["id", "toml"], id=STR, toml=STR))},
    "/staff/rulesets/{rule_set_id}": {"get": op(
        "a rule set: TOML and every resolved switch", params=[RULES], errors=("404",))},
    "/staff/tablets": {
        "get": op("tablets and pairing codes (no secrets)", errors=()),
        "post": op("issue a one-time pairing code for a table; answers pair_url (QR)",
                    ok="201", errors=("400", "404"),
                    body=obj(["table_id"], table_id=STR, label=STR))},
    "/staff/tablets/{tablet_id}/revoke": {"post": op(
        "unpair a tablet: its next request is refused (tablet_revoked)", params=[TABLET],
        errors=("404", "409"))},
    "/staff/accounts": {
        "get": op("staff accounts (names, roles, last sign-in)", errors=()),
        "post": op("add a staff account (role owner/manager/staff, not above your own), or "
                    "set a new password with reset (your own, with current_password: a wrong "
                    "one is 403 and counts as a failed sign-in, throttled alike (429 with "
                    "Retry-After); another's needs manager or owner); a new password ends "
                    "every session of the account",
                    errors=("400", "403", "404", "409", "422", "429"),
                    body=obj(["name", "password"], name=STR, password=STR, reset=BOOL,
                              current_password=STR,
                              role={"type": "string", "enum": ["staff", "manager", "owner"]}))},
    "/staff/accounts/{name}/role": {"post": op(
        "change an account's role (manager or owner, never above your own; the last owner "
        "stays owner)", params=[path_param("name", STR)], errors=("400", "403", "404", "409"),
        body=obj(["role"], role={"type": "string", "enum": ["staff", "manager", "owner"]}))},
    "/staff/accounts/{name}/active": {"post": op(
        "disable (active false) or re-enable a staff account; a disabled account is signed "
        "out at once; your own and the last active account cannot be disabled",
        params=[path_param("name", STR)], errors=("400", "404", "409"),
        body=obj(["active"], active=BOOL))},
    "/staff/games": {"get": op(
        "recent games", errors=("400",),
        params=[{"name": "status", "in": "query",
                 "schema": {"type": "string", "enum": ["live", "finished", "void"]}}])},
    "/staff/games/{game_id}": {"get": op("a game with its hands and audit trail",
                                          params=[GAME], errors=("404",))},
    "/staff/games/{game_id}/hands/{seq}/correct": {"post": op(
        "replace a recorded hand (audited with the reason)", params=[GAME, SEQ],
        errors=("400", "404", "409", "422"),
        body=obj(["event", "reason"], event={"description": "a game-events object (or its "
                                                             "JSON text)"}, reason=STR))},
    "/staff/games/{game_id}/hands/{seq}/preview": {"post": op(
        "what a correction would make of the whole game, changing nothing: kind replace (with "
        "event), void (strike) or restore; answers the entry before and after, each player's "
        "score and result before and after, and html (the page's preview table)",
        params=[GAME, SEQ], errors=("400", "404", "409", "422"),
        body=obj([], kind={"type": "string", "enum": ["replace", "void", "restore"]},
                  event={"description": "for replace: a game-events object (or its JSON "
                                        "text)"}))},
    "/staff/games/{game_id}/hands/{seq}/remove": {"post": op(
        "strike a recorded hand (audited as hand.remove with the reason and the game's scores "
        "before and after)", params=[GAME, SEQ],
        errors=("400", "404", "409", "422"), body=REASON)},
    "/staff/games/{game_id}/hands/{seq}/restore": {"post": op(
        "put back a struck hand (by undo or staff) where it was, as it last stood (audited as "
        "hand.restore); 404 if it was not struck, 422 if the game no longer replays with it",
        params=[GAME, SEQ], errors=("400", "404", "409", "422"), body=REASON)},
    "/staff/games/{game_id}/void": {"post": op(
        "void a game (kept, out of rankings; audited with the reason)", params=[GAME],
        errors=("400", "404", "409"), body=REASON)},
    "/staff/games/{game_id}/unvoid": {"post": op(
        "make a voided game valid again: live or finished as its events say, back in the "
        "rankings (audited as game.unvoid); 409 if it is not void or its table has another "
        "game in progress", params=[GAME], errors=("400", "404", "409"), body=REASON)},
    "/staff/games/{game_id}/seats/{seat}/confirm": {"post": op(
        "staff confirm the settlement for the named player of a seat (kept as confirmed by "
        "staff:NAME, audited as game.confirm)", params=[GAME, path_param("seat", INT)],
        errors=("400", "404", "409", "422"))},
    "/staff/audit": {"get": op(
        "the audit log, newest first: who, when, what, target, why and the details (before "
        "and after) as stored; the page puts them in words", errors=("400",),
        params=[{"name": "target", "in": "query", "schema": STR,
                 "description": "e.g. game:12, table:t1"},
                {"name": "game", "in": "query", "schema": STR, "description": "a game's id"},
                {"name": "table", "in": "query", "schema": STR,
                 "description": "a table: its own entries and its games'"},
                {"name": "actor", "in": "query", "schema": STR,
                 "description": "who acted, e.g. staff:mika"},
                {"name": "day", "in": "query", "schema": STR,
                 "description": "a club day YYYY-MM-DD (it ends at the closing hour)"}])},
}

NIGHT, SEATING = path_param("night_id", INT), path_param("seating_id", INT)
CALL = path_param("call_id", INT)
ENTRY = path_param("entry_id", INT)
TABLET_SECURITY: list[dict[str, list[str]]] = [{"tabletToken": []}, {"tabletCookie": []}]
WISH = {"type": "string", "description": "family:riichi4 | family:riichi3 | family:boo | "
                                         "family:mcr, or rules:<rule set id>"}


def _tablet_op(summary: str, *, params: Iterable[dict] = (), body: dict | None = None,
               ok: str = "200", errors: Iterable[str] = ("400", "404")) -> dict:
    entry = op(summary, params=params, body=body, ok=ok, errors=errors, staff=False)
    entry["tags"] = ["tablet"]
    entry["security"] = TABLET_SECURITY
    entry["responses"]["401"] = {"description": "no paired tablet token",
                                 **json_body(ref("Error"))}
    entry["responses"]["403"] = {"description": "a tablet of another table",
                                 **json_body(ref("Error"))}
    return entry


FLOOR_PATHS: dict = {
    "/staff/waiting": {
        "get": op("the waiting list with each player's place for their wish and estimated "
                   "minutes (from the tables' progress), and each table's outlook (free, "
                   "playing: free in N minutes, ready) with the players proposed for a free "
                   "table", errors=()),
        "post": op("put a walk-in on the waiting list: player_id (a member or guest) or name "
                    "(a guest, added or found again), and what they want", ok="201",
                    errors=("400", "404", "409", "422"),
                    body=obj(["wants"], player_id=INT, name=STR, wants=WISH,
                              allow_similar=BOOL))},
    "/staff/waiting.json": {"get": op(
        "the waiting page's data and its live parts (list, tables) as html", errors=())},
    "/staff/waiting/{entry_id}/leave": {"post": op(
        "take someone off the waiting list", params=[ENTRY], errors=("400", "404", "409"))},
    "/staff/tables/{table_id}/seat": {"post": op(
        "seat players at a free table for its next game with a seat draw: method random (the "
        "server draws) or wind (winds: player id -> E/S/W/N, the tile each drew); the draw is "
        "kept, the players leave the waiting list, the game is made ready for the tablet; "
        "another rule_set gives the table that rule set (the page then leads to the guided "
        "mode change)", params=[TABLE], ok="201", errors=("400", "404", "409", "422"),
        body=obj(["players"], players={"type": "array", "items": INT},
                  method={"type": "string", "enum": ["random", "wind"]},
                  winds={"type": "object"}, rule_set=STR))},
    "/staff/seatings/{seating_id}/cancel": {"post": op(
        "take back a game made ready; its players go back to their places on the list",
        params=[SEATING], errors=("400", "404", "409"))},
    "/staff/calls/{call_id}/ack": {"post": op(
        "answer a staff call (it leaves the console's list; the tablet says staff come)",
        params=[CALL], errors=("400", "404", "409"))},
    "/staff/tables/{table_id}/clock": {"post": op(
        "a live game's time limit (limit, minutes) and extra time (extra, minutes, may be "
        "negative); at the limit the hand being played is the last, and once it is recorded "
        "the game ends (reason time)", params=[TABLE], errors=("400", "404", "409"),
        body=obj([], limit=INT, extra=INT))},
    "/staff/nights": {
        "get": op("event nights", errors=()),
        "post": op("set up an event night: name, rule_set, rounds, pairing (swiss: no rematch "
                    "where avoidable; random), tables, players (filling whole tables), "
                    "time_limit (minutes)", ok="201", errors=("400", "404"),
                    body=obj(["name", "rule_set", "rounds", "tables", "players"], name=STR,
                              rule_set=STR, rounds=INT, time_limit=INT,
                              pairing={"type": "string", "enum": ["swiss", "random"]},
                              tables={"type": "array", "items": STR},
                              players={"type": "array", "items": INT}))},
    "/staff/nights/{night_id}": {"get": op(
        "an event night: standings (total result, games) and its rounds' tables, seats and "
        "games", params=[NIGHT], errors=("404",))},
    "/staff/nights/{night_id}/round": {"post": op(
        "seat the night's next round at its tables (round 1 at random, then swiss by "
        "standing without rematches where possible); 409 while a table of the last round "
        "still plays", params=[NIGHT], ok="201", errors=("400", "404", "409"))},
    "/staff/games/{game_id}/swap": {"post": op(
        "swap two players' seats in a game (a, b: seat numbers): each hand stays with its "
        "players at their true seats and the replay prices the game again (audited as "
        "game.seat_swap with the names and scores before and after)", params=[GAME],
        errors=("400", "404", "409", "422"),
        body=obj(["a", "b", "reason"], a=INT, b=INT, reason=STR))},
    "/board": {"get": op("the public waiting board (HTML): places, names, what each wants, "
                          "estimated waits, free tables; refreshes from board.json",
                          errors=(), staff=False)},
    "/board.json": {"get": op("the public waiting board as data (place, name, guest, wish, "
                               "minutes; each table's state and minutes until free) and its "
                               "html", errors=(), staff=False)},
    "/api/tables/{table_id}/floor": {"get": _tablet_op(
        "what the tablet shows beside the game: its staff call (open, or answered in the last "
        "minutes), the clock (hands from the table's cycles, minutes per hand, elapsed; time "
        "limit, soon, last_hand), the game staff made ready (ready: seats in order), the "
        "waiting list for the table's kind of game; parts.live is the same as html",
        params=[TABLE])},
    "/api/tables/{table_id}/calls": {"post": _tablet_op(
        "call staff to the table: reason score (点数確認), drink (飲み物) or other (その他); a "
        "second press while a call is open is the same call (200)", params=[TABLE],
        ok="201", errors=("400", "404", "413", "422"),
        body=obj(["reason"], reason={"type": "string", "enum": ["score", "drink", "other"]}))},
    "/api/tables/{table_id}/calls/cancel": {"post": _tablet_op(
        "take back the table's open call", params=[TABLE])},
    "/api/tables/{table_id}/seatings/{seating_id}/start": {"post": _tablet_op(
        "start the game staff made ready at this table (players in the drawn seats; a repeat "
        "answers the same game with replayed: true)", params=[TABLE, SEATING], ok="201",
        errors=("400", "404", "409", "422"))},
}
STAFF_PATHS.update(FLOOR_PATHS)

STAFF_SECURITY: dict = {
    "staffSession": {"type": "apiKey", "in": "cookie", "name": "jantaku_session",
                     "description": "signed session cookie set by POST /auth/login"},
    "csrfHeader": {"type": "apiKey", "in": "header", "name": "X-CSRF-Token",
                   "description": "the session's CSRF token (GET /auth/csrf, or the page's "
                                  "<meta name=\"csrf-token\">); needed on every POST"},
}


# ---- the daily report (日報) and the standings settings (web/staff/report.py)
DAY = {"name": "day", "in": "query", "required": False,
       "schema": {"type": "string", "format": "date"},
       "description": "the club day, YYYY-MM-DD (default: today's)"}
WIDTH = {"name": "width", "in": "query", "required": False,
         "schema": {"type": "string", "enum": ["58", "80"]}}

REPORT_PATHS: dict = {
    "/staff/report": {"get": op(
        "the daily report (日報) of a club day: tables, rule_sets and total rows (games, "
        "players, minutes, occupancy, fees, top prizes, chips), every player's account "
        "(fee, prize, chips, chip_yen, net in yen), summary, unfinished games",
        params=[DAY], errors=("400",))},
    "/staff/report/{sheet}.csv": {"get": op(
        "one part of the daily report as CSV for Excel (UTF-8 with BOM, Japanese headings, "
        "yen with separators, a total row): tables, rules or accounts",
        params=[path_param("sheet", STR), DAY], errors=("400", "404"))},
    "/staff/report/print": {"get": op(
        "the daily report as one printable HTML page", params=[DAY], errors=("400",))},
    "/staff/report-cards": {"get": op(
        "a member's report card of a club day (player) or after one game (player and game): "
        "today, this month and all time (games, places, average place, total points), R, "
        "dan, rank and R change per rule family, the day's R risers (members who opted in) "
        "and the card as fixed-width lines (32 columns for paper=58, else 48); without "
        "player only the risers. A printable page for browsers. 404 card.err.guest for a "
        "guest, no_game for a game not finished",
        params=[DAY, {"name": "player", "in": "query", "required": False, "schema": INT},
                {"name": "game", "in": "query", "required": False, "schema": INT},
                {"name": "paper", "in": "query", "required": False,
                 "schema": {"type": "string", "enum": ["58", "80", "a4"]},
                 "description": "print width: 58 or 80 mm thermal paper, or A4 (default 80)"}],
        errors=("400", "404"))},
    "/staff/standings": {"get": op(
        "the club's dan table and seasons as stored TOML (null: not set)", errors=())},
    "/staff/standings/{name}": {"post": op(
        "replace the dan table (name = dan: every game is re-rated under it) or the seasons "
        "(name = seasons) with TOML; an empty text removes it; a refusal (422, "
        "invalid_settings) names the key at fault in error.field and changes nothing",
        params=[path_param("name", STR)], errors=("400", "404", "422"),
        body=obj(["toml"], toml=STR))},
}


# ---- the receipt printer (web/staff/printing.py)
_QUEUED = ("queue a print job and answer at once, printer or not (202: job is its id; a "
           "form goes back to its page)")
PRINT_PATHS: dict = {
    "/staff/printing": {"get": op(
        "the receipt printer: worker_running, kind and printer (from club.toml), last_ok_at, "
        "last_error and last_error_words (in the reader's language), queued and failed "
        "counts, the recent jobs (id, kind, args, state queued/printing/done/failed, "
        "attempts, error in words)", errors=())},
    "/staff/printing/settlement/{game_id}": {"post": op(
        f"{_QUEUED}: a finished game's settlement sheet; 409 not_settled before its end",
        params=[GAME], ok="202", errors=("400", "404", "409"))},
    "/staff/printing/report-card/{player_id}": {"post": op(
        f"{_QUEUED}: a member's report card of a club day (day, default today) or after a "
        "game (game_id, a finished game they played: 409 not_settled, 400 not_in_game); "
        "400 for a guest",
        params=[PLAYER], ok="202", errors=("400", "404", "409", "422"),
        body=obj([], day={"type": "string", "format": "date"}, game_id=INT))},
    "/staff/printing/daily-report": {"post": op(
        f"{_QUEUED}: the daily report (日報) of a club day (day, default today)",
        ok="202", errors=("400", "422"), body=obj([], day={"type": "string", "format": "date"}))},
    "/staff/printing/preview/settlement/{game_id}": {"get": op(
        "a finished game's settlement receipt on screen, line for line as it prints "
        "(width 58 or 80 mm)", params=[GAME, WIDTH], errors=("404", "422"))},
    "/staff/printing/preview/daily-report": {"get": op(
        "the daily report (日報) receipt of a club day on screen (day, default today; width "
        "58 or 80 mm)", params=[DAY, WIDTH], errors=("400", "422"))},
    "/staff/printing/jobs/{job_id}/retry": {"post": op(
        "queue a failed print job again (202); 409 not_failed for any other job",
        params=[path_param("job_id", INT)], ok="202", errors=("400", "404", "409"))},
}
REPORT_PATHS.update(PRINT_PATHS)

# ---- the club's money and the till (web/staff/money_page.py)
_MONEY_FIELDS = {k: {"type": "string"} for k in (
    "fee_mode", "fee", "fee_unit_minutes", "fee_payer", "top_prize", "top_prize_from", "chip_yen")}
_PLAYER = path_param("player_id", INT)
_DAY_PATH = path_param("day", {"type": "string", "format": "date"})
MONEY_PATHS: dict = {
    "/staff/money": {"get": op(
        "every rule set's money (fee, top prize, chip cash-out) with a sample game; edit=<id> "
        "and the fields preview typed values without saving", params=[DAY])},
    "/staff/money/{rule_set_id}": {"post": op(
        "a manager sets a rule set's money (checked as the rules engine checks [money]; "
        "audited as money.update)", params=[path_param("rule_set_id", STR)],
        errors=("400", "403", "404", "422"), body=obj([], **_MONEY_FIELDS))},
    "/staff/money/club": {"post": op(
        "a manager sets the fee caps, the invoice registration number (T and 13 digits) and "
        "the club's name for receipts", errors=("400", "403"),
        body=obj([], fee_cap_person_hour=STR, fee_cap_table_hour=STR,
                  invoice_registration=STR, club_name=STR))},
    "/staff/money/fees": {"get": op("the fee list the club displays, printable")},
    "/staff/money/accounting.csv": {"get": op(
        "the day's takings as a freee 取引 import CSV (UTF-8 with a BOM)", params=[DAY])},
    "/staff/money/receipt/{player_id}": {"get": op(
        "a player's receipt for the day's fees (a simplified qualified invoice when the club "
        "has a registration number)", params=[_PLAYER, DAY])},
    "/staff/till": {"get": op(
        "the day's till: each player's account, checked off or open, and the drawer",
        params=[DAY])},
    "/staff/till/{day}/{player_id}/paid": {"post": op(
        "check a player's account off as paid (409 when it already is)",
        params=[_DAY_PATH, _PLAYER], errors=("400", "404", "409"),
        body=obj(["method"], method={"type": "string", "enum": ["cash", "card", "chips"]}))},
    "/staff/till/{day}/{player_id}/correct": {"post": op(
        "undo a check-off with a reason (audited as till.correct)",
        params=[_DAY_PATH, _PLAYER], errors=("400", "404"), body=REASON)},
}
REPORT_PATHS.update(MONEY_PATHS)
