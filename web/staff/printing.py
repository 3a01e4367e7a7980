"""The receipt printer on the staff console: its state and the print buttons.

* ``/staff/printing``: the worker and the printer (last print, last error in words,
  how many wait), the failed jobs with a button to print them again, the recent jobs;
* ``POST /staff/printing/settlement/<game>``, ``/staff/printing/report-card/<player>``
  (``day`` or ``game_id``), ``/staff/printing/daily-report`` (``day``): queue a print;
* ``/staff/printing/preview/settlement/<game>``, ``/staff/printing/preview/daily-report``
  (``day``, ``width`` 58 or 80): the receipt on screen, line for line as it prints.

A print button only queues the job (:mod:`club.printing.queue`) and answers at
once: the worker prints it, whether or not the printer is there right now.
"""

from __future__ import annotations

from typing import Any

from flask import flash, jsonify, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from club import clubtime, gamelog, roster, stats_store
from club.db import Db, one
from club.errors import Conflict, NotFound, UserError
from club.printing import documents, queue
from club.text import whole_number
from web.db import get_db
from web.i18n import current_lang, t
from web.limits import form_data
from web.security import actor_name, staff_required, wants_json
from web.staff.common import _same_site_page, bp


def _queued(job_id: int, key: str = "print.queued") -> ResponseReturnValue:
    """The answer to a print button: JSON with the job, or back to the page it was on."""
    message = t(key, job=job_id)
    if wants_json():
        return jsonify({"ok": True, "message": message, "job": job_id}), 202
    flash(message, "ok")
    return redirect(_same_site_page(request.referrer) or url_for("staff.printing_page"), 303)


def _enqueue(kind: str, args: dict) -> int:
    return queue.enqueue(get_db(), kind, args, lang=current_lang(), by=actor_name())


def _day_field(data: dict) -> str | None:
    day = data.get("day") or request.args.get("day")
    if day in (None, ""):
        return None
    if not isinstance(day, str):
        raise UserError("print.err.day", status=422, code="invalid_field",
                        details={"field": "day"}, field="day")
    return stats_store.user_day(day).isoformat()


def _whole_field(data: dict, key: str) -> int | None:
    value = data.get(key)
    if value in (None, ""):
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)              # a JSON number, read as a form's digits are
    number = whole_number(value)
    if number is None or number < 1:
        raise UserError("print.err.number", status=422, code="invalid_field",
                        details={"field": key}, field=key)
    return number


@bp.post("/printing/settlement/<int:game_id>")
@staff_required
def print_settlement(game_id: int) -> ResponseReturnValue:
    """Queue a finished game's settlement sheet."""
    game = gamelog.get_game(get_db(), game_id)
    if game["status"] != "finished":
        raise Conflict("print.err.not_settled", code="not_settled", game=game_id)
    return _queued(_enqueue("settlement", {"game_id": game_id}))


@bp.post("/printing/report-card/<int:player_id>")
@staff_required
def print_report_card(player_id: int) -> ResponseReturnValue:
    """Queue a member's report card: of a club day (``day``, default today) or after a
    game (``game_id``)."""
    data = form_data()
    player = roster.get_player(get_db(), player_id)
    if player["guest"]:
        raise UserError("print.err.guest", name=player["name"])
    args: dict = {"player_id": player_id}
    game_id = _whole_field(data, "game_id")
    if game_id is not None:
        game = gamelog.get_game(get_db(), game_id)
        if game["status"] != "finished":
            raise Conflict("print.err.not_settled", code="not_settled", game=game_id)
        if player_id not in [seat["player_id"] for seat in game["seats"]]:
            raise UserError("card.err.not_in_game", code="not_in_game", player=player["name"],
                            game=game_id)
        args["game_id"] = game_id
    else:
        args["day"] = _day_field(data) or stats_store.today(stats_store.settings(get_db()))
    return _queued(_enqueue("report_card", args))


@bp.post("/printing/daily-report")
@staff_required
def print_daily_report() -> ResponseReturnValue:
    """Queue the daily report (日報) of a club day (``day``, default today)."""
    day = _day_field(form_data()) or stats_store.today(stats_store.settings(get_db()))
    return _queued(_enqueue("daily_report", {"day": day}))


@bp.post("/printing/jobs/<int:job_id>/retry")
@staff_required
def print_retry(job_id: int) -> ResponseReturnValue:
    """Queue a failed print job again."""
    db = get_db()
    if queue.job(db, job_id) is None:
        raise NotFound("print.err.no_job", job=job_id)
    if not queue.requeue(db, job_id):
        raise Conflict("print.err.not_failed", code="not_failed", job=job_id)
    return _queued(job_id, "print.queued_retry")


def _what(db: Db, job: dict) -> str:
    """A job in words: 精算表 #12, 成績表 佐藤, 日報 2026-11-27."""
    args = job["args"]
    if job["kind"] == "settlement":
        return t("print.kind.settlement", game=args.get("game_id"))
    if job["kind"] == "report_card":
        p = one(db, "SELECT name FROM players WHERE id = ?", [args.get("player_id")])
        name = p["name"] if p else f"#{args.get('player_id')}"
        more = f" #{args['game_id']}" if args.get("game_id") else f" {args.get('day', '')}"
        return t("print.kind.report_card", name=name) + more
    return t("print.kind.daily_report", day=args.get("day", ""))


def _error(err: tuple[str, dict] | None) -> str:
    return t(err[0], **err[1]) if err else ""


@bp.get("/printing")
@staff_required
def printing_page() -> ResponseReturnValue:
    """The printer's state, the failed and the recent print jobs."""
    db = get_db()
    st = queue.status(db)
    if wants_json():
        return jsonify({"ok": True, **{k: v for k, v in st.items() if k != "jobs"},
                        "last_error_words": _error(st["last_error"]),
                        "jobs": [{k: j[k] for k in ("id", "kind", "args", "state", "attempts",
                                                     "created_at", "done_at")}
                                 | {"error": _error(j["error"])} for j in st["jobs"]]})
    tz = clubtime.club_zone(db)
    jobs = [{**j, "what": _what(db, j), "error_words": _error(j["error"]),
             "asked": clubtime.clock(j["created_at"], tz)} for j in st["jobs"]]
    return render_template(
        "staff/printing.html", st=st, jobs=jobs,
        last_ok=clubtime.clock(st["last_ok_at"], tz) if st["last_ok_at"] else None,
        last_error=_error(st["last_error"]),
        last_error_at=clubtime.clock(st["last_error_at"], tz) if st["last_error_at"] else "")


PREVIEW_WIDTHS = (80, 58)


def _preview(sheet_of: Any, what: str) -> ResponseReturnValue:
    """A receipt on screen, line for line as the printer lays it out on the chosen paper."""
    width = request.args.get("width", "80")
    width_mm = int(width) if width in ("58", "80") else 80
    sheet = sheet_of(documents.receipt_columns(width_mm))
    return render_template("staff/print_preview.html", sheet=sheet, what=what,
                           width_mm=width_mm, widths=PREVIEW_WIDTHS)


@bp.get("/printing/preview/settlement/<int:game_id>")
@staff_required
def preview_settlement(game_id: int) -> ResponseReturnValue:
    """A finished game's settlement sheet as it would print."""
    db, lang = get_db(), current_lang()
    return _preview(lambda cols: documents.settlement(db, game_id, cols, lang),
                    t("print.kind.settlement", game=game_id))


@bp.get("/printing/preview/daily-report")
@staff_required
def preview_daily_report() -> ResponseReturnValue:
    """The daily report (日報) receipt of a club day (``day``, default today) as it would
    print."""
    db, lang = get_db(), current_lang()
    day = _day_field(dict(request.args)) or stats_store.today(stats_store.settings(db))
    return _preview(lambda cols: documents.daily(db, day, cols, lang),
                    t("print.kind.daily_report", day=day))
