"""The guided mode change: choose a mode, see what the table needs (seat by seat, live),
set a simulated table's sticks, select the mode, apply it with a cycle, or cancel.

Selecting goes through the floor's command route (one request-and-wait client); this
page only reads the table's state and, for ``sim://`` tables, asks the daemon to put
the sticks in (the ``sim-sticks`` command), which is what staff do by hand at a real
table.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

from flask import current_app, jsonify, render_template, request
from flask.typing import ResponseReturnValue

from club import club_tables, clubtime
from club.db import Db
from club.errors import UserError
from club.floor import modechange
from tablectl import commands as table_commands
from tablectl import store
from tablectl import words as table_words
from tablectl.errors import TableError
from tablectl.modes import mode_by_name
from web.db import get_db
from web.i18n import current_lang, t
from web.limits import form_data
from web.security import staff_required
from web.staff.common import bp, db_path, done, record
from web.staff.floor_page import _command_answer, club_timezone, modes, send_command
from web.staff.names import rule_set_name, table_name


def _table(table_id: str) -> dict:
    """The daemon's state of a table (404 in words if the daemon does not drive it)."""
    try:
        return store.get_table(db_path(), table_id)
    except store.StoreError as e:
        raise UserError("floor.table_not_driven", status=404, code=e.code,
                        table=table_id) from None


def _target(raw: object) -> int:
    try:
        return mode_by_name(raw).number
    except TableError as e:
        raise UserError("floor.bad_mode", code="invalid_field", details={"field": "mode"},
                        given=str(raw)[:20], names=e.values.get("names", "")) from None


def guide_view(table_id: str, target: int) -> dict:
    """Everything the guided page shows for ``table_id`` on its way to ``target``."""
    lang = current_lang()
    state = _table(table_id)
    flight = store.in_flight(db_path(), table_id)
    # a stock table's driver waits for the mode's own amounts: the page shows the same
    start = None if modechange.is_panel(state) else _start_points(get_db(), table_id, target)
    g = modechange.guide(state, target, flight, start)
    word = lambda n: table_words.mode(n, lang)  # noqa: E731
    g.update(label=word(target), current_label=word(g["current"]),
             pending_label=word(g["pending"]) if g["pending"] is not None else None,
             seat_names=[table_words.seat(s, lang) for s in range(4)])
    if flight is not None:
        spec = table_commands.COMMANDS.get(flight["command"])
        g["running"] = spec.running(lang) if spec else flight["command"]
    g.update(_fit(table_id, target, lang))
    g["wrong"] = table_words.listing(
        (t("floor.mode.seat_fix", seat=table_words.seat(x["seat"], lang), fix=_fix(x))
         for x in g["seats"] if not x["ok"]), lang)
    if g["panel"]:
        g["step_label"] = table_words.say(f"table.panel.step.{g['progress']}", lang) \
            if g["progress"] else None
        g["shown_label"] = f"{g['shown']:02d}" if g["shown"] is not None else None
        g["numbers"] = [f"{m.number:02d}" for m in modechange.modes()]
        g["panel_at"] = _panel_at(g["step"], g["progress"])
        g["demo_sticks"] = _demo_control(table_id) is not None
    return g


def _demo_control(table_id: str) -> Path | None:
    """The control file the demo's simulated stock table follows (``python -m web demo``
    sets ``DEMO_STICKS_DIR``); None for every real table."""
    folder = current_app.config.get("DEMO_STICKS_DIR")
    return Path(folder) / f"sticks-{table_id}.json" if folder else None


PANEL_AT = {"power_off": 0, "power_on": 2, "enter": 3, "step_up": 4, "step_down": 4,
            "reset": 5}
"""Where each step of the driver's sequence stands in the page's list of six."""


def _panel_at(step: str, progress: str | None) -> int:
    """The index of the step under way in the page's list (6: all done)."""
    if step == "on":
        return 6
    if step in ("sticks", "sticks_wait"):
        return 1
    if step == "progress":
        return PANEL_AT.get(progress or "", 0)
    return 0


def _fix(seat: dict) -> str:
    """What staff do to one drawer, with the amounts (「25,000点を入れてください」)."""
    if not seat["needs"]:
        return t("floor.mode.seat_take_out")
    amount = f"{seat['amount']:,}"
    if seat["short"]:
        return t("floor.mode.seat_amount", have=f"{seat['total']:,}", amount=amount)
    return t("floor.mode.seat_put_in_amount", amount=amount)


def _fit(table_id: str, target: int, lang: str) -> dict:
    """Whether mode ``target`` fits the table's rule set, and if not the warning in words
    (shown before staff confirm the change)."""
    db = get_db()
    club = _club_table(db, table_id)
    if club is None:
        return {"misfit": None, "warning": None}
    rules = club_tables.resolve_rules(db, club["rule_set"])
    why = modechange.misfit(target, rules.table.players, rules.table.amos_mode)
    if why is None:
        return {"misfit": None, "warning": None}
    mode = mode_by_name(target)
    return {"misfit": why, "warning": t(
        f"floor.mode.misfit.{why}", mode=table_words.mode(target, lang), seats=mode.players,
        tiles=mode.tiles, rules=rule_set_name(club["rule_set"], lang),
        players=rules.table.players, want=mode_by_name(rules.table.amos_mode).tiles)}


@bp.get("/tables/<table_id>/mode")
@staff_required
def mode_guide(table_id: str) -> ResponseReturnValue:
    """The guided mode change page (``?mode=N``; without it: choose a mode)."""
    db = get_db()
    state = _table(table_id)
    club = _club_table(db, table_id)
    raw = request.args.get("mode")
    target = _target(raw) if raw not in (None, "") else None
    rules_mode, misfits = None, set()
    if club is not None:
        rules = club_tables.resolve_rules(db, club["rule_set"]).table
        rules_mode = rules.amos_mode
        misfits = {m.number for m in modechange.modes()
                   if modechange.misfit(m.number, rules.players, rules.amos_mode)}
    view = guide_view(table_id, target) if target is not None else None
    return render_template("staff/mode.html", table=state, club=club, target=target,
                           g=view, modes=modes(), rules_mode=rules_mode, misfits=misfits,
                           new_key=lambda: uuid.uuid4().hex)


def needs_mode(db: Db, table_id: str, rule_set: str) -> int | None:
    """The AMOS mode ``rule_set`` plays (``table.amos_mode`` in its rules: sanma 04, 3B 05,
    MCR 03 ...) if the table runs, or is about to run, another one; else None (also for a
    table the daemon does not drive)."""
    want = club_tables.resolve_rules(db, rule_set).table.amos_mode
    try:
        state = store.get_table(db_path(), table_id)
    except store.StoreError:
        return None
    current = state["pending_mode"] if state.get("pending_mode") is not None \
        else state.get("mode")
    return want if current is not None and current != want else None


def _start_points(db: Db, table_id: str, mode: int) -> int | None:
    """The starting points of the table's rule set when it plays ``mode`` (the sticks a
    new game starts with), else None (the mode's own default)."""
    club = _club_table(db, table_id)
    if club is None:
        return None
    rules = club_tables.resolve_rules(db, club["rule_set"])
    if rules.table.amos_mode != mode or rules.settlement.start_points <= 0:
        return None
    return rules.settlement.start_points


def _club_table(db: Db, table_id: str) -> club_tables.TableRow | None:
    try:
        return club_tables.get_table(db, table_id)
    except UserError:
        return None


@bp.get("/tables/<table_id>/mode.json")
@staff_required
def mode_guide_json(table_id: str) -> ResponseReturnValue:
    """The guided page's live part: the table's answer seat by seat, and the next step."""
    raw = request.args.get("mode")
    if raw in (None, ""):
        raise UserError("field.required", code="invalid_field", details={"field": "mode"},
                        field="mode")
    view = guide_view(table_id, _target(raw))
    html = render_template("staff/_mode_live.html", g=view, table={"table_id": table_id},
                           new_key=lambda: uuid.uuid4().hex)
    return jsonify({"ok": True, "guide": {k: v for k, v in view.items()
                                          if k != "in_flight"}, "html": html})


@bp.post("/tables/<table_id>/sticks")
@staff_required
def sim_sticks(table_id: str) -> ResponseReturnValue:
    """A simulated table only: put in the sticks a mode needs (what staff do by hand)."""
    lang = current_lang()
    data = form_data()
    target = _target(data.get("mode"))
    state = _table(table_id)
    if not modechange.is_simulated(state):
        raise UserError("floor.mode.not_simulated", status=409, code="not_simulated",
                        table=table_name(table_id))
    points = mode_by_name(target).sticks(modechange.drawers(state),
                                         _start_points(get_db(), table_id, target))
    try:
        answer = send_command(table_id, "sim-sticks", {"points": points}, data)
    except store.CommandInFlight as e:
        raise UserError("floor.in_flight", status=409, code=e.code,
                        what=e.text(lang)) from None
    except TableError as e:
        raise UserError("floor.table_refused", status=409, code=e.code,
                        what=e.text(lang)) from None
    record("table.sim-sticks", f"table:{table_id}",
           details={"command_id": answer.row["id"], "args": {"points": points},
                    "mode": target})
    if not answer.ok:
        raise UserError("floor.table_refused", status=409,
                        code=answer.row.get("error_code") or "failed",
                        what=answer.text(lang))
    return done(t("floor.mode.sticks_set", table=table_name(table_id),
                  mode=table_words.mode(target, lang)),
                "staff.mode_guide", payload={"points": points}, table_id=table_id,
                mode=f"{target:02d}")


@bp.post("/tables/<table_id>/demo-sticks")
@staff_required
def demo_sticks(table_id: str) -> ResponseReturnValue:
    """The demo's stock table only: put in the sticks a mode needs, as staff do by hand at
    a real table (the simulated table behind the simulated bridge follows the file)."""
    data = form_data()
    target = _target(data.get("mode"))
    path = _demo_control(table_id)
    _table(table_id)
    if path is None:
        raise UserError("floor.mode.not_simulated", status=409, code="not_simulated",
                        table=table_name(table_id))
    points = mode_by_name(target).sticks()
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"sticks": points}), encoding="utf-8")
    os.replace(tmp, path)
    record("table.demo-sticks", f"table:{table_id}", details={"points": points,
                                                            "mode": target})
    return done(t("floor.mode.sticks_set", table=table_name(table_id),
                  mode=table_words.mode(target, current_lang())),
                "staff.mode_guide", payload={"points": points}, table_id=table_id,
                mode=f"{target:02d}")


# ------------------------------------------------------------------ calibration
def calibrate_view(table_id: str) -> dict:
    """The calibration of a stock table: the number the driver believes the display
    shows, the one it expects next, the mismatches so far and the last answer in words."""
    lang = current_lang()
    state = _table(table_id)
    if not modechange.is_panel(state):
        raise UserError("floor.calibrate.not_panel", status=409, code="not_panel",
                        table=table_name(table_id))
    belief = modechange.panel_belief(state)
    cal = belief.get("calibration") or {}
    last = next((row for row in store.list_commands(db_path(), table_id, limit=20)
                 if row["command"] == "calibrate"), None)
    flight = store.in_flight(db_path(), table_id)
    two = lambda n: f"{n:02d}" if isinstance(n, int) else None  # noqa: E731
    view = {"table_id": table_id, "connected": bool(state.get("connected")),
            "shown": two(belief.get("shown")), "expected": two(cal.get("expected")),
            "running": cal != {}, "mismatches": [
                {"seen": two(m.get("seen")), "expected": two(m.get("expected"))}
                for m in cal.get("mismatches") or []],
            "calibrated": belief.get("calibrated"), "stage": belief.get("stage"),
            "busy": flight is not None,
            "numbers": [f"{m.number:02d}" for m in modechange.modes()], "last": None}
    if last is not None:
        result = last.get("result") or {}
        view["last"] = {"id": last["id"], "status": last["status"],
                        "missed": result.get("match") is False,
                        "words": table_commands.describe(last, lang, club_timezone()),
                        "clock": clubtime.clock(last.get("finished_at")
                                                or last.get("created_at"), club_timezone())}
    return view


@bp.get("/tables/<table_id>/calibrate")
@staff_required
def calibrate_page(table_id: str) -> ResponseReturnValue:
    """Calibrate a stock table: the driver steps its number, staff say what the display
    shows on a number pad, a number that does not follow is a missed press."""
    club = _club_table(get_db(), table_id)
    return render_template("staff/calibrate.html", c=calibrate_view(table_id), club=club,
                           table=_table(table_id))


@bp.get("/tables/<table_id>/calibrate.json")
@staff_required
def calibrate_json(table_id: str) -> ResponseReturnValue:
    """The calibration page's live part."""
    view = calibrate_view(table_id)
    return jsonify({"ok": True, "calibration": view, "html": render_template(
        "staff/_calibrate_live.html", c=view)})


@bp.post("/tables/<table_id>/calibrate")
@staff_required
def calibrate(table_id: str) -> ResponseReturnValue:
    """The number staff read on the display: the journalled ``calibrate --seen NN``."""
    lang = current_lang()
    data = form_data()
    calibrate_view(table_id)                     # a table that is not a stock table: words
    spec = table_commands.get("calibrate")
    try:
        args = spec.from_person({"seen": data.get("seen")})
    except TableError as e:
        raise UserError(e.text(lang), code=e.code) from None
    if "seen" not in args:
        raise UserError("field.required", code="invalid_field", details={"field": "seen"},
                        field="seen")
    try:
        answer = send_command(table_id, "calibrate", args, data)
    except store.CommandInFlight as e:
        raise UserError(e.text(lang), status=409, code=e.code) from None
    except TableError as e:
        raise UserError(e.text(lang), status=409, code=e.code) from None
    record("table.calibrate", f"table:{table_id}",
           details={"command_id": answer.row["id"], "args": args})
    return _command_answer(table_id, answer, lang, ("staff.calibrate_page",
                                                    {"table_id": table_id}))
