"""The floor view: every table live, and table commands through ``tablectl``'s client.

The web app never talks to a table itself: a staff command goes through
:class:`tablectl.client.TableClient` (the same request-and-wait client as the
``tablectl`` CLI), which writes it into the shared store's command journal
(idempotent on a key the page generated, so a double click sends one command)
and waits a few seconds for the daemon's answer. The commands, their arguments
and their words come from :mod:`tablectl.commands`; what the daemon stored as
codes and values is put in the page's language here.

The page refreshes itself by short polling (``floor.json`` every 2 s, which also
carries each table's card as rendered here): a request a few milliseconds long
on a waitress worker, where a server-sent event stream would hold a worker
thread per open console for as long as it is open.
"""

from __future__ import annotations

import uuid
from typing import Any

from flask import current_app, jsonify, render_template
from flask.typing import ResponseReturnValue

from club import club_tables, clubtime, gamelog, games, readings
from club.db import Db
from club.errors import UserError
from club.floor import calls, clock, modechange, seating
from club.text import text_of, whole_number
from tablectl import commands as table_commands
from tablectl import store
from tablectl import words as table_words
from tablectl.client import TableClient
from tablectl.errors import TableError
from tablectl.modes import MODES
from web import i18n
from web.db import get_db
from web.i18n import current_lang
from web.limits import form_data
from web.security import current_staff, staff_required, wants_json
from web.staff.common import bp, db_path, record
from web.staff.names import table_name

CONSOLE_COMMANDS = table_commands.console_commands()
DEFAULT_COMMAND_WAIT = 5.0
CARD_COMMANDS = ("cycle", "check", "points")
"""The buttons on a table's card (the mode has its own guided page)."""


def modes() -> list[dict]:
    """The table modes as ``{number, label}`` in the page's language."""
    return [{"number": m.number, "label": m.label(current_lang())} for m in MODES]


def club_timezone() -> str:
    """The club's time zone, for the times staff read (the club-day settings)."""
    return clubtime.club_zone(get_db())


def _sticks_beside(table: dict | None, players: int) -> list | None:
    """The drawers of a game's seats, when the table reads sticks and plays this many
    (a table between modes has nothing to compare)."""
    if not table or not modechange.reads_sticks(table) or table.get("mode") is None:
        return None
    mode = MODES[table["mode"]] if 0 <= table["mode"] < len(MODES) else None
    if mode is None or mode.players != players:
        return None
    drawers = modechange.drawers(table)
    return [drawers[s] for s in mode.seats]


def game_summary(db: Db, game_id: int, reading: dict | None = None, tz: str = "Asia/Tokyo") -> dict:
    """A live game as the floor shows it, from the engine's replay (never a stored copy):
    seats with names, winds and scores, round, honba, deposits, hands played, time since
    the start, and the point sticks that differ from the recorded scores, seat by seat
    (only under rules whose score the sticks track: never MCR's running totals)."""
    try:
        view = games.game_view(db, game_id)
    except Exception as e:  # noqa: BLE001 - one broken game must not blank the whole floor
        current_app.logger.exception("floor view: game %s could not be replayed", game_id)
        return {"id": game_id, "error": str(e)}
    hands = (view.get("replay") or {}).get("hands") or []
    state = view.get("state") or {}
    last = hands[-1] if hands else {}
    game = view["game"]
    scores = readings.current_scores(view) or []
    rules = gamelog.rules_of(games.get_game(db, game_id))
    track = readings.sticks_track_score(rules)
    sticks = _sticks_beside(reading, len(game.get("seats", []))) if track else None
    approx = readings.reads_by_resistance(reading)
    dealer = state.get("dealer", last.get("dealer"))
    winds = state.get("seat_winds") or []
    seats = []
    for i, s in enumerate(game.get("seats", [])):
        seats.append({"seat": i, "name": s["name"], "guest": bool(s.get("guest")),
                      "score": scores[i] if i < len(scores) else None,
                      "wind": winds[i] if i < len(winds) else None, "dealer": dealer == i,
                      "sticks": sticks[i] if sticks else None,
                      "diff": (sticks[i] - scores[i]) if sticks and i < len(scores)
                      and readings.differs(sticks[i], scores[i], approx) else 0})
    return {
        "id": game_id,
        "names": [s["name"] for s in seats],
        "rule_set": game.get("rule_set"),
        "round": state.get("round") or last.get("round"),
        # None where the rules have no honba (MCR) or no riichi sticks (MCR): not shown
        "honba": state.get("honba", last.get("honba")) if rules.game.honba else None,
        "kyoutaku": state.get("kyoutaku", last.get("kyoutaku"))
        if rules.table.family != "mcr" else None,
        "dealer": dealer,
        "scores": scores,
        "seats": seats,
        "hands": len(hands),
        "started_at": game.get("started_at"),
        "started": clubtime.clock(game.get("started_at"), tz),
        "minutes": clubtime.minutes_since(game.get("started_at")),
        "mismatch": [s["seat"] for s in seats if s["diff"]],
    }


def floor_data() -> dict:
    """Everything the floor view shows, as JSON-ready data, in the page's language.

    Tables are the daemon's configured tables plus any club table the daemon
    does not know (shown as not connected, so a typo in either config shows).
    While the daemon's heartbeat is stale no table is shown as connected: its
    state is only as of the last heartbeat.
    """
    path, db = db_path(), get_db()
    lang, tz = current_lang(), club_timezone()
    daemon = store.daemon_status(path)
    club = {str(t["id"]): t for t in club_tables.list_tables(db)}
    tables = store.list_tables(path)
    known = {str(t["table_id"]) for t in tables}
    blank = dict.fromkeys(("mode", "pending_mode", "cycle_state", "lid", "errors", "last_error",
                           "points", "model", "commands", "last_error_values", "url"))
    tables += [{**blank, "table_id": tid, "name": c["name"], "connected": 0, "in_daemon": False}
               for tid, c in club.items() if tid not in known]
    last: dict = {}
    for row in store.list_commands(path, limit=200):
        last.setdefault(str(row["table_id"]), row)
    for t in tables:
        tid = str(t["table_id"])
        t.setdefault("in_daemon", True)
        t["stale"] = daemon["state"] == "stale"
        t["connected"] = bool(t.get("connected")) and daemon["state"] == "running"
        t["rule_set"] = club[tid]["rule_set"] if tid in club else None
        t["club_name"] = club[tid]["name"] if tid in club else None
        t["last_command"] = _command_view(last.get(tid), lang, tz)
        live = club[tid]["live_game"] if tid in club else None
        if live and clock.enforce(db, live):          # its time is up and its last hand is in
            live = None
        t["game"] = game_summary(db, live, t if t["in_daemon"] else None, tz) if live else None
        if live and t["game"] and "error" not in t["game"]:  # a game summary is of a live game
            t["game"]["clock"] = clock.status(db, path, games.get_game(db, live))
        t["ready"] = seating.ready(db, tid) if tid in club and not live else None
        t["proposal"] = seating.proposal(db, tid) \
            if tid in club and not live and not t["ready"] else None
        t["events"] = [{**e, "message": table_words.event(_named(e, lang), lang),
                        "clock": clubtime.clock(e.get("at"), tz)}
                       for e in store.recent_events(path, tid, limit=3)] if t["in_daemon"] else []
        can = t.get("commands") or CONSOLE_COMMANDS
        t["commands"] = [c for c in CONSOLE_COMMANDS if c in can]
        t["simulated"] = modechange.is_simulated(t)
        t["panel"] = modechange.panel_belief(t) if modechange.is_panel(t) else None
        t["drawers"] = modechange.drawers(t) if t["in_daemon"] else None
        t["rules_mode"] = _rules_mode(db, t["rule_set"])
        t.update(_labels(t, lang))
    open_calls = calls.open_calls(db)
    for c in open_calls:
        c["since"] = clubtime.clock(c["created_at"], tz)
        c["waited_words"] = _waited(c["waited"])
    return {"daemon": daemon, "tables": tables, "timezone": tz, "calls": open_calls,
            "clock": clubtime.clock(clubtime.now(), tz)}


def _waited(seconds: int) -> str:
    """``2分15秒`` / ``2 min 15 s``."""
    return i18n.t("floor.waited", m=seconds // 60, s=seconds % 60)


def _named(event: dict, lang: str) -> dict:
    """A table event whose data names a staff command by its code, with the command's
    words instead (「#27 モード変更 失敗: …」, not 「#27 mode 失敗」)."""
    data = event.get("data") or {}
    spec = table_commands.COMMANDS.get(data.get("command"))  # type: ignore[arg-type]  # None: no such
    if spec is None:
        return event
    return {**event, "data": {**data, "command": spec.label(lang)}}


def _rules_mode(db: Db, rule_set: str | None) -> int | None:
    if not rule_set:
        return None
    try:
        return club_tables.resolve_rules(db, rule_set).table.amos_mode
    except UserError:
        return None


def _labels(t: dict, lang: str) -> dict:
    """Words for the daemon's state codes in the page's language (codes stay for scripts)."""
    def label(prefix: str, value: object) -> str | None:
        return None if value is None else table_words.say(f"{prefix}.{value}", lang)

    code = t.get("last_error")
    why = None
    if code:
        why = (table_words.code(code, lang, t.get("last_error_values")) if t["connected"]
               else table_words.link(code, lang, t.get("last_error_values")))
    pending = t.get("pending_mode")
    return {"cycle_label": label("table.cycle", t.get("cycle_state")),
            "lid_label": label("table.lid", t.get("lid")),
            "error_words": [table_words.code(e, lang) for e in (t.get("errors") or [])],
            "mode_label": table_words.mode(t.get("mode"), lang) if t.get("mode") is not None
            else None,
            "pending_label": table_words.mode(pending, lang)
            if pending is not None and pending != t.get("mode") else None,
            "rules_mode_label": table_words.mode(t["rules_mode"], lang)
            if t.get("rules_mode") is not None else None,
            "seat_words": [table_words.seat(s, lang) for s in range(4)],
            "last_error_code": code, "last_error": why}


def _command_view(row: dict | None, lang: str, tz: str) -> dict | None:
    if row is None:
        return None
    return {"id": row["id"], "command": row["command"], "args": row["args"],
            "status": row["status"], "error_code": row["error_code"],
            "error_message": table_commands.describe(row, lang, tz)
            if row["status"] in ("failed", "timed_out") else None,
            "result": row["result"], "message": table_commands.describe(row, lang, tz),
            "clock": clubtime.clock(row.get("finished_at") or row.get("created_at"), tz)}


def floor_parts(data: dict) -> dict:
    """Each live part of the floor page, rendered (the page swaps in what changed)."""
    parts = {"daemon": render_template("staff/_floor_daemon.html", data=data),
             "calls": render_template("staff/_floor_calls.html", data=data)}
    for t in data["tables"]:
        parts[f"table-{t['table_id']}"] = render_template("staff/_table_live.html", tb=t)
    return parts


@bp.get("/")
@staff_required
def floor() -> ResponseReturnValue:
    """The floor view page (refreshes its live parts from floor.json)."""
    data = floor_data()
    return render_template("staff/floor.html", data=data, modes=modes(),
                           commands=CARD_COMMANDS)


@bp.get("/floor.json")
@staff_required
def floor_json() -> ResponseReturnValue:
    """The floor as JSON (polled every 2 s by the page), with each card's live part."""
    data = floor_data()
    return jsonify({**data, "parts": floor_parts(data)})


@bp.post("/tables/<table_id>/command")
@staff_required
def table_command(table_id: str) -> ResponseReturnValue:
    """Send a command to a table through the daemon and report the table's answer."""
    lang = current_lang()
    data = form_data()
    command = (text_of(data, "command") or "").strip()
    if command not in CONSOLE_COMMANDS:
        raise UserError(table_words.code("unknown_command", lang, {
            "command": command, "choices": ", ".join(CONSOLE_COMMANDS)}), code="bad_command")
    spec = table_commands.get(command)
    try:
        args = spec.from_person({a.name: data.get(a.name) for a in spec.args})
    except TableError as e:
        raise UserError(e.text(lang), code=e.code) from None
    try:
        answer = send_command(table_id, command, args, data, through_pending=False)
    except store.CommandInFlight as e:
        raise UserError(e.text(lang), status=409, code=e.code) from None
    except TableError as e:
        raise UserError(e.text(lang), status=404 if e.code == "unknown_table" else 400,
                        code=e.code) from None
    record(f"table.{command}", f"table:{table_id}",
           details={"command_id": answer.row["id"], "args": args})
    return _command_answer(table_id, answer, lang, _back(data, table_id))


def send_command(table_id: str, command: str, args: dict[str, Any], data: dict, *,
                 through_pending: bool = True) -> Any:
    """Journal ``command`` for the table in the signed-in staff member's name (under the
    form's idempotency key, or a fresh one) and wait a few seconds for the daemon's answer;
    raises the journal's refusal (a command in flight, an unknown table)."""
    key = (text_of(data, "idempotency_key") or "").strip() or f"staff-{uuid.uuid4().hex}"
    wait = float(current_app.config.get("TABLE_COMMAND_WAIT", DEFAULT_COMMAND_WAIT))
    staff = current_staff()
    client = TableClient(db_path(), source="web", actor=staff["name"] if staff else "",
                         tz=club_timezone())
    return client.send(table_id, command, args, key=f"web-{key}", wait=wait,
                       expires_in=max(wait, 30.0), withdraw=False,
                       through_pending=through_pending)


def _back(data: dict, table_id: str) -> tuple:
    """Where a page form returns to: the guided mode page (``back=mode:NN``) or the floor."""
    back = text_of(data, "back") or ""
    if back.startswith("mode:") and whole_number(back[5:]) is not None:
        return "staff.mode_guide", {"table_id": table_id, "mode": back[5:]}
    return "staff.floor", {}


def _command_answer(table_id: str, answer: Any, lang: str,
                    back: tuple = ("staff.floor", {})) -> ResponseReturnValue:
    from flask import flash, redirect, url_for

    row = answer.row
    view = _command_view(row, lang, answer.tz)
    status = {"done": 200, "failed": 409, "timed_out": 504}.get(answer.state, 202)
    text = f"{table_name(table_id)}: {answer.text(lang)}"
    if wants_json():
        body = {"ok": answer.ok, "command": view, "message": text}
        if not answer.ok:
            body["error"] = {"code": row.get("error_code") or row["status"], "message": text}
        return jsonify(body), status
    flash(text, "ok" if answer.ok else "error")
    return redirect(url_for(back[0], **back[1]))
