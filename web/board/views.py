"""The public board (blueprint ``board``, ``/board``): the waiting list as players see it
on a wall screen or their phone, with each place and the estimated wait, and which
tables are free; it refreshes itself. Open to everyone on the club network (names only,
as on the club's whiteboard), Japanese first, ``?lang=en`` for English."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, render_template
from flask.typing import ResponseReturnValue

from club import clubtime
from club.db import Db
from club.floor import waiting
from web.db import get_db
from web.i18n import current_lang, t

bp = Blueprint("board", __name__)

PUBLIC_ENTRY = ("place", "name", "guest", "wants", "wish", "minutes")
PUBLIC_TABLE = ("table_id", "name", "rule_set", "family", "state", "free_in")


def board_data(db: Db) -> dict:
    """What the public may see: places, names, wishes and waits; the tables' state."""
    lang = current_lang()
    titles = {f"rules:{r}": r for r in (e["wants"][6:] for e in waiting.waiting(db)
                                         if e["wants"].startswith("rules:"))}
    entries = []
    for e in waiting.estimates(db, current_app.config["DATABASE"], shared=True):
        kind, _, value = e["wants"].partition(":")
        wish = waiting.family_words(value, lang) if kind == "family" \
            else titles.get(e["wants"], value)
        entries.append({k: v for k, v in {**e, "wish": wish}.items() if k in PUBLIC_ENTRY})
    tables = [{k: v for k, v in tb.items() if k in PUBLIC_TABLE}
              for tb in waiting.shared_outlook(db, current_app.config["DATABASE"])]
    return {"waiting": entries, "tables": tables,
            "clock": clubtime.clock(clubtime.now(), clubtime.club_zone(db))}


@bp.get("/board")
def board() -> ResponseReturnValue:
    """The waiting board page (refreshes its list from /board.json)."""
    data = board_data(get_db())
    return render_template("board/board.html", data=data, title=t("floor.board.title"))


@bp.get("/board.json")
def board_json() -> ResponseReturnValue:
    """The waiting board as data, with the page's live part."""
    data = board_data(get_db())
    return jsonify({"ok": True, **data,
                    "html": render_template("board/_board_live.html", data=data)})
