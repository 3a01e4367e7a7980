"""The daily report (日報), each player's account, and the standings settings on the staff
console.

* ``/staff/report?day=YYYY-MM-DD``: the day's report (today's club day by default):
  totals, by table with occupancy, by rule set, every player's account; the same
  as JSON (``Accept: application/json``), as CSV
  (``/staff/report/<tables|rules|accounts>.csv``) and as a printable page
  (``/staff/report/print``). Games still being played are listed, not counted.
* ``/staff/standings``: the club's dan table and seasons as TOML (typed or
  uploaded); a refusal names the key at fault and keeps the text; a new dan
  table re-rates every game under it.
"""

from __future__ import annotations

from datetime import timedelta

from flask import Response, jsonify, render_template, request
from flask.typing import ResponseReturnValue

from club import (
    club_tables,
    clubtime,
    daily_report,
    money_settings,
    rating_store,
    standings,
    stats_store,
    till,
)
from club.errors import NotFound, UserError
from club.export import csv_bytes
from web.db import get_db
from web.limits import form_data
from web.security import actor_name, staff_required, wants_json
from web.staff.common import bp, done, msg
from web.staff.manage import _uploaded_toml
from web.staff.names import rule_set_name

SHEETS = {
    "tables": daily_report.table_sheet,
    "rules": daily_report.rule_sheet,
    "accounts": daily_report.account_sheet,
}


def _day() -> str:
    db = get_db()
    day = request.args.get("day") or stats_store.today(stats_store.settings(db))
    stats_store.parse_day(day)
    return day


@bp.get("/report")
@staff_required
def daily() -> ResponseReturnValue:
    """The day's report and every player's account."""
    db, day = get_db(), _day()
    rep = daily_report.report(db, day)
    if wants_json():
        return jsonify(rep)
    d = stats_store.parse_day(day)
    warnings = []
    for r in rep["rule_sets"]:
        try:
            rules = club_tables.resolve_rules(db, r["key"])
        except UserError:
            continue
        minutes = r["minutes"] / r["games"] if r["games"] else money_settings.SAMPLE_MINUTES
        for w in money_settings.cap_warnings(db, money_settings.money_of(rules),
                                             rules.table.players, minutes):
            warnings.append(f"{rule_set_name(r['key'])}: {w}")
    return render_template(
        "staff/report.html", rep=_in_club_time(rep), day=day, cap_warnings=warnings,
        till=till.close(db, day),
        prev_day=(d - timedelta(days=1)).isoformat(), next_day=(d + timedelta(days=1)).isoformat(),
        sheets=list(SHEETS),
    )


@bp.get("/report/<sheet>.csv")
@staff_required
def daily_csv(sheet: str) -> ResponseReturnValue:
    """One part of the day's report as a CSV file for Excel."""
    if sheet not in SHEETS:
        raise NotFound("report.no_sheet", sheet=sheet[:20], options=", ".join(SHEETS))
    day = _day()
    data = csv_bytes(*daily_report.labelled(SHEETS[sheet](daily_report.report(get_db(), day))))
    name = f"daily-report-{sheet}-{day}.csv" if sheet != "accounts" else f"accounts-{day}.csv"
    return Response(data, mimetype="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@bp.get("/report/print")
@staff_required
def daily_print() -> ResponseReturnValue:
    """The day's report as one printable page (no scripts)."""
    day = _day()
    rep = daily_report.report(get_db(), day)
    return render_template("staff/report_print.html", rep=_in_club_time(rep), day=day)


def _in_club_time(rep: dict) -> dict:
    """The report with each unfinished game's start as the club's clock reads it."""
    for g in rep["unfinished"]:
        g["clock"] = clubtime.clock(g["started_at"], rep["timezone"])
    return rep


# ----------------------------------------------------------------------------- standings
def _standings_page(errors: dict | None = None, texts: dict | None = None,
                    status: int = 200) -> ResponseReturnValue:
    db = get_db()
    texts = texts or {}
    shown = {
        "dan": texts.get("dan", standings.text_of(db, "dan") or standings.DAN_EXAMPLE),
        "seasons": texts.get("seasons",
                             standings.text_of(db, "seasons") or standings.SEASONS_EXAMPLE),
    }
    try:
        dan, seasons = standings.dan_tables(db), standings.seasons(db)
    except UserError:
        dan, seasons = {}, ()
    page = render_template("staff/standings.html", texts=shown, errors=errors or {}, dan=dan,
                           seasons=seasons)
    return page, status


@bp.get("/standings")
@staff_required
def standings_page() -> ResponseReturnValue:
    """The club's dan table and seasons, with forms to replace them."""
    if wants_json():
        db = get_db()
        return jsonify({"dan": standings.text_of(db, "dan"),
                        "seasons": standings.text_of(db, "seasons")})
    return _standings_page()


@bp.post("/standings/<name>")
@staff_required
def standings_save(name: str) -> ResponseReturnValue:
    """Replace the dan table or the seasons; an invalid file changes nothing."""
    if name not in standings.NAMES:
        raise NotFound("report.no_settings", name=name[:20], options=", ".join(standings.NAMES))
    data = form_data()
    text = _uploaded_toml() or str(data.get("toml", ""))
    db = get_db()
    try:
        if name == "dan":
            rated = rating_store.save_dan_table(db, text, actor=actor_name())
        else:
            standings.store(db, name, text, actor=actor_name())
            rated = None
    except UserError as e:
        if wants_json():
            raise
        return _standings_page({name: e.message}, {name: text}, e.status)
    games = sum((rated or {}).values())
    text_done = (msg(f"段位表を保存し、{games:,} 局を再計算しました",
                     f"Saved the dan table and re-rated {games:,} games") if name == "dan"
                 else msg("シーズンを保存しました", "Saved the seasons"))
    return done(text_done, "staff.standings_page")
