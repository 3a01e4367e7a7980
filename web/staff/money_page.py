"""The club's money on the console and the till.

* ``/staff/money``: per rule set, the game fee (per game / per hour), the top prize and
  the chip cash-out, previewed on a sample game before it is saved (a manager saves;
  audited), the fee caps and the invoice registration number;
* ``/staff/money/fees``: the fee list a club displays, printable;
* ``/staff/till``: per player and day, what they owe or are owed, checked off when paid
  (cash, card, chips); the drawer at closing beside the 日報's cash line;
* ``/staff/money/accounting.csv``: the day's takings as a freee 取引 CSV;
* ``/staff/money/receipt/<player>``: a player's receipt for the day on screen (適格簡易請求書
  with a registration number).
"""

from __future__ import annotations

from typing import Any

from flask import Response, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from club import bookkeeping, club_tables, daily_report, money_settings, stats_store, till
from club.text import whole_number
from web.db import get_db
from web.errors import UserError
from web.i18n import current_lang, t
from web.limits import form_data
from web.security import actor_name, current_staff, staff_required
from web.staff.common import bp, done

MANAGERS = ("manager", "owner")


def _manager() -> None:
    staff = current_staff() or {}
    if staff.get("role") not in MANAGERS:
        raise UserError("money.err.manager", status=403, code="forbidden")


def _day() -> str:
    raw = request.values.get("day")
    if raw:
        return stats_store.user_day(str(raw)).isoformat()
    return stats_store.today(stats_store.settings(get_db()))


def _sample_minutes() -> int:
    value = whole_number(str(request.values.get("minutes") or ""))
    return value if value and value <= 24 * 60 else money_settings.SAMPLE_MINUTES


def _rule_set_rows(db: Any, typed: dict | None, editing: str | None) -> list[dict]:
    minutes = _sample_minutes()
    out = []
    for r in club_tables.list_rule_sets(db):
        rules = club_tables.resolve_rules(db, r["id"])
        row: dict[str, Any] = {"id": r["id"], "money": money_settings.money_of(rules),
                               "club": money_settings.club_money(db, r["id"]) is not None,
                               "players": rules.table.players}
        if editing == r["id"] and typed is not None:
            try:
                money, rules = money_settings.check(rules, typed)
                row["money"] = money
            except UserError as e:
                row["error"] = e.message
        row["preview"] = money_settings.preview(rules, minutes)
        row["warnings"] = money_settings.cap_warnings(db, row["money"], row["players"], minutes)
        out.append(row)
    return out


@bp.get("/money")
@staff_required
def money_page() -> ResponseReturnValue:
    """Every rule set's money with a sample game; ``?edit=<id>&fee=…`` previews typed
    values without saving them."""
    db = get_db()
    editing = request.args.get("edit") or None
    typed = {k: request.args[k] for k in money_settings.FIELDS if k in request.args}
    return render_template("staff/money.html", rows=_rule_set_rows(db, typed or None, editing),
                           editing=editing, minutes=_sample_minutes(),
                           facts=money_settings.facts(db), fields=money_settings.FIELDS)


@bp.post("/money/<rule_set_id>")
@staff_required
def money_save(rule_set_id: str) -> ResponseReturnValue:
    """A manager sets a rule set's money (checked by the engine, audited)."""
    _manager()
    db = get_db()
    base = club_tables.written_rules(db, rule_set_id)
    money = money_settings.save(db, rule_set_id, form_data(), actor=actor_name(), base=base)
    return done(t("money.saved", rules=rule_set_id), "staff.money_page",
                payload={"money": money})


@bp.post("/money/club")
@staff_required
def money_facts() -> ResponseReturnValue:
    """A manager sets the fee caps, the registration number and the club's name."""
    _manager()
    new = money_settings.save_facts(get_db(), form_data(), actor=actor_name())
    return done(t("money.facts_saved"), "staff.money_page", payload={"facts": new})


@bp.get("/money/fees")
@staff_required
def fee_list() -> ResponseReturnValue:
    """The fee list (料金表) the club displays, printable."""
    db = get_db()
    return render_template("staff/fee_list.html", rows=_rule_set_rows(db, None, None),
                           facts=money_settings.facts(db))


@bp.get("/money/accounting.csv")
@staff_required
def accounting_csv() -> ResponseReturnValue:
    """The day's takings as a freee 取引 import CSV."""
    day = _day()
    return Response(bookkeeping.accounting_csv(get_db(), day), mimetype="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="freee-{day}.csv"'})


@bp.get("/money/receipt/<int:player_id>")
@staff_required
def player_receipt(player_id: int) -> ResponseReturnValue:
    """A player's receipt for the day's game fees, line for line as it prints."""
    db, day = get_db(), _day()
    sheet = bookkeeping.receipt(db, day, player_id, 48, current_lang())
    return render_template("staff/print_preview.html", sheet=sheet, what=t("invoice.receipt"),
                           width_mm=80, widths=(80,))


# --------------------------------------------------------------------------- the till
@bp.get("/till")
@staff_required
def till_page() -> ResponseReturnValue:
    """The day's till: every player's account, checked off or open, and the drawer."""
    db, day = get_db(), _day()
    return render_template("staff/till.html", day=day, lines=till.sheet(db, day),
                           closing=till.close(db, day), methods=till.METHODS)


@bp.post("/till/<day>/<int:player_id>/paid")
@staff_required
def till_paid(day: str, player_id: int) -> ResponseReturnValue:
    """Check a player's account off as paid (cash, card or chips)."""
    day = stats_store.user_day(day).isoformat()
    row = till.check_off(get_db(), day, player_id, str(form_data().get("method") or ""),
                         actor=actor_name())
    return done(t("till.done", amount=daily_report.yen(row["amount"])), "staff.till_page",
                payload={"payment": row}, day=day)


@bp.post("/till/<day>/<int:player_id>/correct")
@staff_required
def till_correct(day: str, player_id: int) -> ResponseReturnValue:
    """Undo a check-off with a reason (audited), so it can be checked off again."""
    day = stats_store.user_day(day).isoformat()
    till.correct(get_db(), day, player_id, reason=str(form_data().get("reason") or ""),
                 actor=actor_name())
    flash(t("till.corrected"), "ok")
    return redirect(url_for("staff.till_page", day=day))
