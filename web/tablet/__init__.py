"""The tablet at each table: one page that starts a game, records every hand and
shows the settlement sheet.

The page is rendered here from the game's replay; ``static/tablet.js`` opens
the entry panels, asks the API for a preview and submits with an idempotency
key and the entry number it expects to take, then reloads.
"""

from __future__ import annotations

from flask import Blueprint, current_app, render_template

from .. import engine, gamelog, games, readings
from ..db import get_db
from ..engine import ABORT_KINDS, PENALTY_KINDS, WINDS, WINDS_JA
from ..i18n import current_lang
from ..security import tablet_required

bp = Blueprint("tablet", __name__, url_prefix="/tablet")


@bp.app_template_global()
def round_label(label) -> str:
    """``"E1"`` -> ``東1局`` (Japanese) or ``East 1`` (English)."""
    text = str(label or "")
    if len(text) < 2 or text[0] not in WINDS:
        return text
    wind = WINDS.index(text[0])
    if current_lang() == "ja":
        return f"{WINDS_JA[wind]}{text[1:]}局"
    return f"{('East', 'South', 'West', 'North')[wind]} {text[1:]}"


def _pairs(rules) -> dict:
    return {"ron": engine.han_fu_pairs(rules, tsumo=False),
            "tsumo": engine.han_fu_pairs(rules, tsumo=True)}


def _seats(view: dict | None) -> list[dict]:
    """Seat cards: name, score, gap to the leader, seat wind, dealer flag."""
    if not view:
        return []
    names = [s["name"] for s in view["game"]["seats"]]
    scores = readings.current_scores(view) or [None] * len(names)
    state = view.get("state") or {}
    dealer = state.get("dealer")
    top = max((s for s in scores if s is not None), default=None)
    out = []
    for i, name in enumerate(names):
        wind = engine.seat_wind(i, dealer, len(names)) if dealer is not None else None
        out.append({"seat": i, "name": name, "score": scores[i],
                    "gap": (scores[i] - top) if top is not None and scores[i] is not None else None,
                    "dealer": dealer == i, "wind": wind,
                    "wind_ja": WINDS_JA[WINDS.index(wind)] if wind else ""})
    return out


def _page_data(table: dict, view: dict | None, rules) -> dict:
    """What the page's script needs: ids, next entry number, seats, rules, han/fu pairs."""
    data = {"table_id": table["id"], "game_id": None, "next_seq": None, "players": None}
    if view:
        data.update(game_id=view["game"]["id"], next_seq=view["next_seq"],
                    players=view["players"], status=view["game"]["status"],
                    names=[s["name"] for s in view["game"]["seats"]])
    if rules is not None:
        data.update(pairs=_pairs(rules), use_fu=bool(getattr(rules.fu, "use_fu", True)),
                    chips=bool(getattr(rules.chips, "enabled", False)),
                    family=getattr(rules.table, "family", "riichi"))
    return data


def _rules_for_mode(db, table: dict, reading: dict | None, rule_sets: list[dict]) -> str:
    """The rule set to offer first: the table's own, unless the table reports an AMOS
    mode it does not deal; then the first rule set made for that mode."""
    mode = (reading or {}).get("mode")
    own = table["rule_set"]
    if not isinstance(mode, int) or games.resolve_rules(db, own).table.amos_mode == mode:
        return own
    for r in rule_sets:
        if games.resolve_rules(db, r["id"]).table.amos_mode == mode:
            return r["id"]
    return own


@bp.get("/<table_id>")
@tablet_required
def table_page(table_id: str):
    """The table's page: start form, live table or settlement sheet."""
    db = get_db()
    table = games.get_table(db, table_id)
    game = games.current_game(db, table_id)
    view = games.game_view(db, game["id"]) if game and game["status"] != "void" else None
    rules = gamelog.rules_of(game) if view else None
    raw = readings.table_reading(current_app.config["DATABASE"], table_id)
    reading = readings.compare(raw, view)
    rule_sets = games.list_rule_sets(db)
    return render_template(
        "tablet/table.html",
        table=table, view=view, seats=_seats(view), reading=reading,
        members=games.list_players(db), guests=games.list_players(db, guests=True),
        rule_sets=rule_sets, offered_rules=_rules_for_mode(db, table, reading, rule_sets),
        rule_players={r["id"]: games.resolve_rules(db, r["id"]).table.players
                      for r in rule_sets},
        data=_page_data(table, view, rules),
        abort_kinds=ABORT_KINDS, penalty_kinds=PENALTY_KINDS,
    )
