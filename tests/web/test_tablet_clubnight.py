"""The tablet on a club night, server side: what a walk-through at the tables found."""

from __future__ import annotations

from scoring.hand import score_hand
from scoring.rules import load_rules
from tests.support.web import bearer, start
from web import events


def test_mcr_fan_total_is_bounded_by_the_best_hand(app, client):
    """A typo of 888 for 88 is refused in words; 328 without flowers, the best hand, is not."""
    h = bearer(app, "t1")
    start(client, h, rule_set="mcr")

    def preview(w, lang="ja"):
        return client.post("/api/tables/t1/preview", headers={**h, "Accept-Language": lang},
                           json={"event": {"event": "win", "winners": [w], "from": 0}})

    r = preview({"seat": 1, "fan": 888})
    err = r.get_json()["error"]
    assert r.status_code == 422 and err["field"] == "event.winners[0].fan"
    assert "888 点の手はありません" in err["message"] and "328" in err["message"]
    r = preview({"seat": 1, "fan": 999}, lang="en")
    assert r.status_code == 422 and "no hand scores 999" in r.get_json()["error"]["message"]
    r = preview({"seat": 1, "fan": 329, "flowers": 1})       # 328 and a flower: the most
    assert r.status_code == 200
    r = preview({"seat": 1, "fan": 337, "flowers": 8})       # 329 without flowers
    assert r.status_code == 422


def test_the_mcr_ceiling_is_what_the_engine_scores_the_best_hand():
    """大三元 字一色 四杠 四暗刻 by concealed kongs, won on the last tile's kong replacement,
    with the prevalent and seat wind pair: the engine's 328, the bound the tablet uses."""
    res = score_hand({
        "hand": "22z", "win": "2z", "tsumo": True, "kong_replacement": True,
        "wall_last": True, "seat_wind": "E", "round_wind": "E",
        "melds": [{"type": "ankan", "tiles": t} for t in ("1111z", "5555z", "6666z", "7777z")],
    }, load_rules("mcr"))
    assert res["fan"] == events.MCR_MAXIMUM_FAN == 328
