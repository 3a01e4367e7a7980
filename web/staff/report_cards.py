"""The desk's report cards: a member's card of a club day (or after one game) and the
day's R risers board, on one printable page.

* ``/staff/report-cards?day=YYYY-MM-DD&player=<id>&game=<id>&paper=58|80|a4``: the
  page (today's club day by default; without ``player`` only the risers board);
  ``paper`` sets the print width, 58 or 80 mm thermal paper or A4. The same card as
  JSON with ``Accept: application/json``. Linked from the daily report.
"""

from __future__ import annotations

from flask import jsonify, render_template, request
from flask.typing import ResponseReturnValue

from club import report_card, roster, stats_store
from club.errors import UserError
from web.db import get_db
from web.i18n import current_lang
from web.limits import query_number
from web.security import staff_required, wants_json
from web.staff.common import bp

PAPERS = ("58", "80", "a4")
"""Print widths: 58 mm and 80 mm thermal rolls, or an A4 sheet."""


def _id_arg(name: str) -> int | None:
    try:
        return query_number(name)
    except UserError:
        raise UserError("card.err.id", code="invalid_field", details={"field": name},
                        field=name, value=request.args.get(name, "")[:20]) from None


def _paper() -> str:
    paper = request.args.get("paper", "") or "80"
    if paper not in PAPERS:
        raise UserError("card.err.paper", code="invalid_field", details={"field": "paper"},
                        value=paper[:20], options=", ".join(PAPERS))
    return paper


@bp.get("/report-cards")
@staff_required
def report_cards() -> ResponseReturnValue:
    """A member's report card of a day (or of a game) and the day's risers, printable."""
    db, lang = get_db(), current_lang()
    player, game = _id_arg("player"), _id_arg("game")
    paper = _paper()
    raw_day = request.args.get("day", "")
    day = (stats_store.user_day(raw_day).isoformat() if raw_day
           else stats_store.today(stats_store.settings(db)))
    card = None
    if player is not None:
        card = report_card.build(db, player, day=None if game else day, game_id=game, lang=lang)
        day = card["day"]
    risers = card["risers"] if card else report_card.risers(db, day, lang=lang)
    if wants_json():
        return jsonify({"ok": True, "day": day, "card": card, "risers": risers,
                        "lines": report_card.as_lines(card, lang, 48 if paper != "58" else 32)
                        if card else []})
    return render_template("staff/report_card.html", card=card, risers=risers, day=day,
                           player=player, game=game, paper=paper, papers=PAPERS,
                           members=roster.list_players(db))
