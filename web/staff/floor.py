"""The floor view: every table live, and table commands through ``tablectl.store``.

The web app never talks to a table itself: it writes a request into the
shared store's command journal (idempotent on a key the page generated, so
a double click sends one command) and waits a few seconds for the daemon's
answer. A refusal from the table (mid-cycle, wrong point sticks...) comes
back as the daemon's words and is shown as is.
"""

from __future__ import annotations

import uuid

from flask import current_app, jsonify, render_template

from tablectl import store

from ..db import get_db
from ..errors import UserError
from ..security import staff_required
from . import bp
from .common import db_path, form_data, msg, record

# Commands staff may send from the console (the store knows a few more).
CONSOLE_COMMANDS = ("mode", "cycle", "check", "dice", "points", "status")
DEFAULT_COMMAND_WAIT = 5.0


def modes() -> list[dict]:
    """The table modes as ``{number, label}`` (from the protocol's one table of modes)."""
    from tablectl.modes import MODES

    from ..i18n import current_lang
    return [{"number": int(m.number), "label": m.label(current_lang())} for m in MODES]


def _mode_number(value) -> int:
    text = str(value if value is not None else "").strip()
    if text.isdigit():
        return int(text)
    try:
        from tablectl.modes import mode_by_name
        return int(mode_by_name(text).number)
    except (ImportError, AttributeError):
        pass
    except Exception as e:  # noqa: BLE001 - mode_by_name's own words list the valid names
        raise UserError(str(e), code="bad_mode") from None
    raise UserError(f"Choose a table mode 00-08, not {text!r}.", code="bad_mode")


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
    """Everything the floor view shows, as JSON-ready data.

    Tables are the daemon's configured tables plus any club table the daemon
    does not know (shown as not connected, so a typo in either config shows).
    """
    from .. import games

    path, db = db_path(), get_db()
    club = {str(t["id"]): t for t in games.list_tables(db)}
    tables = store.list_tables(path)
    known = {str(t["table_id"]) for t in tables}
    blank = dict.fromkeys(("mode", "pending_mode", "cycle_state", "lid", "errors", "last_error",
                           "points", "model"))
    tables += [{**blank, "table_id": tid, "name": c["name"], "connected": 0, "in_daemon": False}
               for tid, c in club.items() if tid not in known]
    last = {}
    for row in store.list_commands(path, limit=200):
        last.setdefault(str(row["table_id"]), row)
    in_play = _games_by_table(db)
    for t in tables:
        tid = str(t["table_id"])
        t.setdefault("in_daemon", True)
        t["connected"] = bool(t.get("connected"))
        t["rule_set"] = club[tid]["rule_set"] if tid in club else None
        t["club_name"] = club[tid]["name"] if tid in club else None
        t["last_command"] = _command_view(last.get(tid))
        t["game"] = in_play.get(tid)
        t["events"] = store.recent_events(path, tid, limit=3) if t["in_daemon"] else []
        t.update(_labels(t))
    return {"daemon": store.daemon_status(path), "tables": tables}


def _labels(t: dict) -> dict:
    """Words for the daemon's state codes in the page's language (codes stay for scripts)."""
    import lexicon
    from ..i18n import current_lang, t as tr

    def label(prefix: str, value):
        if value is None:
            return None
        key = f"{prefix}.{value}"
        return tr(key) if lexicon.has(key) else str(value)

    return {"cycle_label": label("staff.cycle_state", t.get("cycle_state")),
            "lid_label": label("staff.lid_state", t.get("lid")),
            "error_words": [_error_words(e, current_lang()) for e in (t.get("errors") or [])]}


def _error_words(name: str, lang: str) -> str:
    """A table error code name (``lid_open``) in words, from the protocol's one table of texts."""
    import lexicon
    key = f"table.code.{name}"
    return lexicon.t(key, lang) if lexicon.has(key) else str(name)


def _command_view(row: dict | None) -> dict | None:
    if row is None:
        return None
    return {"id": row["id"], "command": row["command"], "args": row["args"],
            "status": row["status"], "error_message": row["error_message"],
            "result": row["result"], "message": describe(row)}


def describe(row: dict) -> str:
    """A journal row in words."""
    if row["status"] == "done":
        try:
            from tablectl.cli import describe_result
            return describe_result(row["command"], row["result"] or {})
        except ImportError:  # pragma: no cover - cli ships with the store
            return "done"
    if row["status"] in ("queued", "sending"):
        what = f"#{row['id']} {row['command']}"
        return msg(f"{what} 実行中…", f"{what} in progress…")
    return row["error_message"] or row["status"]


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
    data = form_data()
    command = str(data.get("command", "")).strip()
    if command not in CONSOLE_COMMANDS:
        raise UserError(f"Unknown table command {command!r}: choose one of "
                        f"{', '.join(CONSOLE_COMMANDS)}.", code="bad_command")
    args = {"mode": _mode_number(data.get("mode"))} if command == "mode" else {}
    key = str(data.get("idempotency_key") or "").strip() or f"staff-{uuid.uuid4().hex}"
    wait = float(current_app.config.get("TABLE_COMMAND_WAIT", DEFAULT_COMMAND_WAIT))
    try:
        cid = store.request_command(db_path(), table_id, command, args, f"web-{key}",
                                    expires_in=max(wait, 30.0), source="web")
    except store.StoreError as e:
        raise UserError(e.message, status=404 if e.code == "unknown_table" else 400,
                        code=e.code) from None
    record(f"table.{command}", f"table:{table_id}", details={"command_id": cid, "args": args})
    row = store.wait_command(db_path(), cid, wait)
    return _command_answer(table_id, row)


def _command_answer(table_id: str, row: dict):
    from flask import flash, redirect, url_for

    from ..security import wants_json

    view = _command_view(row)
    status = {"done": 200, "failed": 409, "timed_out": 504}.get(row["status"], 202)
    ok = row["status"] in ("done", "queued", "sending")
    text = f"{table_id}: {view['message']}"
    if wants_json():
        body = {"ok": ok, "command": view, "message": text}
        if not ok:
            body["error"] = {"code": row.get("error_code") or row["status"], "message": text}
        return jsonify(body), status
    flash(text, "ok" if ok else "error")
    return redirect(url_for("staff.floor"))
