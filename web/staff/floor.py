"""The floor view: every table live, and table commands through ``tablectl``'s client.

The web app never talks to a table itself: a staff command goes through
:class:`tablectl.client.TableClient` (the same request-and-wait client as the
``tablectl`` CLI), which writes it into the shared store's command journal
(idempotent on a key the page generated, so a double click sends one command)
and waits a few seconds for the daemon's answer. The commands, their arguments
and their words come from :mod:`tablectl.commands`; what the daemon stored as
codes and values is put in the page's language here.
"""

from __future__ import annotations

import uuid

from flask import current_app, jsonify, render_template

from tablectl import commands as table_commands
from tablectl import store
from tablectl import words as table_words
from tablectl.client import TableClient
from tablectl.errors import TableError
from tablectl.modes import MODES

from ..db import get_db
from ..errors import UserError
from ..i18n import current_lang
from ..security import current_staff, staff_required
from .common import bp
from .common import db_path, form_data, record

CONSOLE_COMMANDS = table_commands.console_commands()
DEFAULT_COMMAND_WAIT = 5.0


def modes() -> list[dict]:
    """The table modes as ``{number, label}`` in the page's language."""
    return [{"number": m.number, "label": m.label(current_lang())} for m in MODES]


def club_timezone() -> str:
    """The club's time zone, for the times staff read (the club-day settings)."""
    from .. import stats_store

    return stats_store.settings(get_db())["timezone"]


def _games_by_table(db) -> dict:
    """Game in progress per table id, summarised from its replay (never a stored copy)."""
    from .. import games

    out = {}
    for table in games.list_tables(db):
        if table.get("live_game"):
            out[str(table["id"])] = game_summary(db, table["live_game"])
    return out


def game_summary(db, game_id: int) -> dict:
    """Round, honba, deposits and scores of a game, from the engine's replay."""
    from .. import games

    try:
        view = games.game_view(db, game_id)
    except Exception as e:  # noqa: BLE001 - one broken game must not blank the whole floor
        current_app.logger.exception("floor view: game %s could not be replayed", game_id)
        return {"id": game_id, "error": str(e)}
    hands = (view.get("replay") or {}).get("hands") or []
    state = view.get("state") or {}
    last = hands[-1] if hands else {}
    return {
        "id": game_id,
        "names": [s["name"] for s in view["game"].get("seats", [])],
        "rule_set": view["game"].get("rule_set"),
        "round": state.get("round") or last.get("round"),
        "honba": state.get("honba", last.get("honba")),
        "kyoutaku": state.get("kyoutaku", last.get("kyoutaku")),
        "dealer": state.get("dealer", last.get("dealer")),
        "scores": state.get("scores") or last.get("scores"),
        "hands": len(hands),
    }


def floor_data() -> dict:
    """Everything the floor view shows, as JSON-ready data, in the page's language.

    Tables are the daemon's configured tables plus any club table the daemon
    does not know (shown as not connected, so a typo in either config shows).
    While the daemon's heartbeat is stale no table is shown as connected: its
    state is only as of the last heartbeat.
    """
    from .. import games

    path, db = db_path(), get_db()
    lang, tz = current_lang(), club_timezone()
    daemon = store.daemon_status(path)
    club = {str(t["id"]): t for t in games.list_tables(db)}
    tables = store.list_tables(path)
    known = {str(t["table_id"]) for t in tables}
    blank = dict.fromkeys(("mode", "pending_mode", "cycle_state", "lid", "errors", "last_error",
                           "points", "model", "commands", "last_error_values"))
    tables += [{**blank, "table_id": tid, "name": c["name"], "connected": 0, "in_daemon": False}
               for tid, c in club.items() if tid not in known]
    last = {}
    for row in store.list_commands(path, limit=200):
        last.setdefault(str(row["table_id"]), row)
    in_play = _games_by_table(db)
    for t in tables:
        tid = str(t["table_id"])
        t.setdefault("in_daemon", True)
        t["stale"] = daemon["state"] == "stale"
        t["connected"] = bool(t.get("connected")) and daemon["state"] == "running"
        t["rule_set"] = club[tid]["rule_set"] if tid in club else None
        t["club_name"] = club[tid]["name"] if tid in club else None
        t["last_command"] = _command_view(last.get(tid), lang, tz)
        t["game"] = in_play.get(tid)
        t["events"] = [{**e, "message": table_words.event(e, lang)}
                       for e in store.recent_events(path, tid, limit=3)] if t["in_daemon"] else []
        can = t.get("commands") or CONSOLE_COMMANDS
        t["commands"] = [c for c in CONSOLE_COMMANDS if c in can]
        t.update(_labels(t, lang))
    return {"daemon": daemon, "tables": tables}


def _labels(t: dict, lang: str) -> dict:
    """Words for the daemon's state codes in the page's language (codes stay for scripts)."""
    def label(prefix: str, value):
        return None if value is None else table_words.say(f"{prefix}.{value}", lang)

    code = t.get("last_error")
    why = None
    if code:
        why = (table_words.code(code, lang, t.get("last_error_values")) if t["connected"]
               else table_words.link(code, lang, t.get("last_error_values")))
    return {"cycle_label": label("table.cycle", t.get("cycle_state")),
            "lid_label": label("table.lid", t.get("lid")),
            "error_words": [table_words.code(e, lang) for e in (t.get("errors") or [])],
            "last_error_code": code, "last_error": why}


def _command_view(row: dict | None, lang: str, tz: str) -> dict | None:
    if row is None:
        return None
    return {"id": row["id"], "command": row["command"], "args": row["args"],
            "status": row["status"], "error_code": row["error_code"],
            "error_message": table_commands.describe(row, lang, tz)
            if row["status"] in ("failed", "timed_out") else None,
            "result": row["result"], "message": table_commands.describe(row, lang, tz)}


@bp.get("/")
@staff_required
def floor():
    """The floor view page (fills itself from floor.json)."""
    return render_template("staff/floor.html", data=floor_data(), modes=modes(),
                           new_key=lambda: uuid.uuid4().hex)


@bp.get("/floor.json")
@staff_required
def floor_json():
    """The floor as JSON (polled every 2 s by the page)."""
    return jsonify(floor_data())


@bp.post("/tables/<table_id>/command")
@staff_required
def table_command(table_id: str):
    """Send a command to a table through the daemon and report the table's answer."""
    lang = current_lang()
    data = form_data()
    command = str(data.get("command", "")).strip()
    if command not in CONSOLE_COMMANDS:
        raise UserError(table_words.code("unknown_command", lang, {
            "command": command, "choices": ", ".join(CONSOLE_COMMANDS)}), code="bad_command")
    spec = table_commands.get(command)
    try:
        args = spec.from_person({a.name: data.get(a.name) for a in spec.args})
    except TableError as e:
        raise UserError(e.text(lang), code=e.code) from None
    key = str(data.get("idempotency_key") or "").strip() or f"staff-{uuid.uuid4().hex}"
    wait = float(current_app.config.get("TABLE_COMMAND_WAIT", DEFAULT_COMMAND_WAIT))
    staff = current_staff()
    client = TableClient(db_path(), source="web", actor=staff["name"] if staff else "",
                         tz=club_timezone())
    try:
        answer = client.send(table_id, command, args, key=f"web-{key}", wait=wait,
                             expires_in=max(wait, 30.0), withdraw=False,
                             through_pending=False)
    except store.CommandInFlight as e:
        raise UserError(e.text(lang), status=409, code=e.code) from None
    except TableError as e:
        raise UserError(e.text(lang), status=404 if e.code == "unknown_table" else 400,
                        code=e.code) from None
    record(f"table.{command}", f"table:{table_id}",
           details={"command_id": answer.row["id"], "args": args})
    return _command_answer(table_id, answer, lang)


def _command_answer(table_id: str, answer, lang: str):
    from flask import flash, redirect, url_for

    from ..security import wants_json

    row = answer.row
    view = _command_view(row, lang, answer.tz)
    status = {"done": 200, "failed": 409, "timed_out": 504}.get(answer.state, 202)
    text = f"{table_id}: {answer.text(lang)}"
    if wants_json():
        body = {"ok": answer.ok, "command": view, "message": text}
        if not answer.ok:
            body["error"] = {"code": row.get("error_code") or row["status"], "message": text}
        return jsonify(body), status
    flash(text, "ok" if answer.ok else "error")
    return redirect(url_for("staff.floor"))
