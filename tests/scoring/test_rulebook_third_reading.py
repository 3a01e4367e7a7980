"""A third reading of the club's rulebooks (files in /work/shared/seeds/): the MCR minimum
inside a game, the leftover riichi stick among tied tops, the simple rule's game flow, and
what a hand could not say before (a chombo at the draw, the riichi sticks of a voided hand,
nine terminals after flowers were set aside). Each test quotes the line it checks."""

from __future__ import annotations

import pytest

from scoring.game import GameEventError, replay
from scoring.rules import load_rules

P4 = ["A", "B", "C", "D"]
P3 = ["A", "B", "C"]


def start(preset: str) -> dict:
    return {"event": "start", "players": P3 if load_rules(preset).table.players == 3 else P4}


def play(preset: str, *events: dict) -> dict:
    return replay([start(preset), *events], preset)


def refused(preset: str, *events: dict) -> GameEventError:
    with pytest.raises(GameEventError) as e:
        play(preset, *events)
    return e.value


def ron(winner: int, src: int, han: int = 1, fu: int = 30, **kw) -> dict:
    return {"event": "win", "winners": [{"seat": winner, "han": han, "fu": fu}], "from": src,
            **kw}


def draw(tenpai=(), riichi=(), **kw) -> dict:
    return {"event": "draw", "tenpai": list(tenpai), "riichi": list(riichi), **kw}


# =========================================================================== 1. MCR minimum
def mcr_win(fan: int, flowers: int, src: int | None = 1) -> dict:
    ev = {"event": "win", "winners": [{"seat": 0, "fan": fan, "flowers": flowers}]}
    return ev if src is None else {**ev, "from": src}


def test_mcr_game_refuses_a_win_that_flowers_lift_to_eight():
    # 004 花牌 「花牌1枚につき1点つく。8点縛りにはカウントされないため、花牌以外の役の合計が
    # 8点ないと上がることができない」: 10 fan with 3 flowers is 7 fan, not a win
    e = refused("mcr", mcr_win(10, 3, src=None))
    assert e.reason == "mcr_below_minimum"
    assert e.values["fan"] == 7 and e.values["flowers"] == 3 and e.values["minimum"] == 8
    assert "8点縛りにはカウントされない" in str(e)


def test_mcr_game_pays_flowers_on_top_of_eight_fan():
    # 004 花牌 「花牌1枚につき1点つく」 and 点数計算 (8 + total from the discarder, 8 from the
    # rest): 8 fan and 3 flowers is paid on 11
    out = play("mcr", mcr_win(11, 3, src=1))
    assert out["hands"][0]["deltas"] == [35, -19, -8, -8]
    out = play("mcr", mcr_win(11, 3, src=None))
    assert out["hands"][0]["deltas"] == [57, -19, -19, -19]


def test_mcr_game_refuses_more_flowers_than_the_set_or_the_fan():
    # 004 「花牌と季節牌をボーナスポイントとして使用」: eight tiles in all
    assert refused("mcr", mcr_win(20, 9)).reason == "too_many_flowers"
    assert refused("mcr", mcr_win(8, 9)).reason == "too_many_flowers"


def test_mcr_game_and_hand_scorer_refuse_the_same_hand():
    # the same 004 花牌 line through the hand scorer: a chicken-less hand worth less than 8
    # fan with flowers is refused both ways
    from scoring import mcr

    line = {"hand": "123m456p678s23455s", "win": "2s", "flowers": 4}
    alone = mcr.score_hand(line)
    assert not alone["ok"] and alone["error"]["reason"] == "mcr_below_minimum"
    e = refused("mcr", {"event": "win", "winners": [{"seat": 0, "hand": line}], "from": 1})
    assert e.reason == "mcr_below_minimum"
    # and the same hand given as its total: what the hand scorer counted, flowers included
    fan = alone["fan"] + 4
    assert refused("mcr", mcr_win(fan, 4)).reason == "mcr_below_minimum"
