"""A tile set aside as nukidora and the first-turn rights (hand.nukidora_ends_first_turn).

002 ねこはうす 三人打ち半荘戦Aルール (seeds/002_752de4ce5ec4d27d.txt): 「北を抜くと一発, 天和,
地和, 人和の権利は消滅します。」 — 三人打ち半荘戦Bルール: 「花牌を抜いても一発、天和、地和、
人和、嶺上開花、海底摸月、九種九牌の権利は維持されます。」
"""

from __future__ import annotations

import pytest

from scoring.game import GameEventError, state_after
from scoring.rules import load_rules
from tests.support.hand import score

HAND, WIN = "123789p11999s777z", "3p"


def test_each_presets_value():
    assert load_rules("nekohouse-3a").hand.nukidora_ends_first_turn is True
    assert load_rules("nekohouse-3b").hand.nukidora_ends_first_turn is False


@pytest.mark.parametrize("flag, seat", [("tenhou", "E"), ("chiihou", "S")])
def test_3a_a_north_set_aside_ends_tenhou_and_chiihou(flag, seat):
    out = score(HAND, WIN, rules="nekohouse-3a", tsumo=True, seat_wind=seat, nukidora=1,
                **{flag: True})
    assert not out["ok"] and out["error"]["reason"] == "first_turn_after_nukidora"
    kept = score(HAND, WIN, rules="nekohouse-3a", tsumo=True, seat_wind=seat, **{flag: True})
    assert kept["ok"] and kept["yakuman"] == 1


def test_3a_ippatsu_is_refused_on_the_tile_that_replaced_a_north():
    # the win is on the replacement tile of a North set aside (rinshan with no kan): that
    # North was set aside after the riichi, so the ippatsu right is gone
    out = score(HAND, WIN, rules="nekohouse-3a", tsumo=True, riichi=True, ippatsu=True,
                rinshan=True, nukidora=1)
    assert not out["ok"] and out["error"]["reason"] == "ippatsu_after_nukidora"
    # without ippatsu the same win is rinshan (002 3A 「嶺上開花が成立します」)
    ok = score(HAND, WIN, rules="nekohouse-3a", tsumo=True, riichi=True, rinshan=True,
               nukidora=1)
    assert ok["ok"] and "rinshan" in {y["name"] for y in ok["yaku"]}


@pytest.mark.parametrize("flag, seat", [("tenhou", "E"), ("chiihou", "S")])
def test_3b_flowers_set_aside_keep_the_first_turn_rights(flag, seat):
    out = score(HAND, WIN, rules="nekohouse-3b", tsumo=True, seat_wind=seat, nukidora=1,
                **{flag: True})
    assert out["ok"] and out["yakuman"] == 1


def test_3a_game_refuses_a_picked_tenhou_beside_a_north_set_aside():
    start = {"event": "start", "players": ["A", "B", "C"]}
    win = {"event": "win", "winners": [{"seat": 0, "yakuman": 1, "nukidora": 1,
                                        "yaku": [{"id": "tenhou", "yakuman": 1}]}]}
    with pytest.raises(GameEventError) as e:
        state_after([start, win], "nekohouse-3a")
    assert e.value.reason == "first_turn_after_nukidora"
    without = {"event": "win", "winners": [{"seat": 0, "yakuman": 1,
                                            "yaku": [{"id": "tenhou", "yakuman": 1}]}]}
    assert state_after([start, without], "nekohouse-3a").scores[0] > 35000
    assert state_after([start, win], "nekohouse-3b").scores[0] > 35000
