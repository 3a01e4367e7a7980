"""Chips per house rule: 000 (7) チップ (Net Mahjong) and the ねこはうす ★ of 002."""

from __future__ import annotations

import pytest

from scoring.chips import award_chips
from scoring.errors import InvalidInput
from scoring.rules import load_rules


def chips(rules, **facts):
    return award_chips(load_rules(rules) if isinstance(rules, (str, dict)) else rules, facts)


# --------------------------------------------------------------------------- Net Mahjong (000 (7))
def test_net_ura_chips_from_each_on_tsumo_from_discarder_on_ron():
    # 「ツモあがりの場合全員からウラドラの枚数づつ、ロンあがりの場合放銃者からウラドラの枚数だけ」
    c = chips("netmahjong", ura=2, tsumo=True, closed=True)
    assert (c["ura"], c["from"], c["payers"], c["total"]) == (2, "each", 3, 6)
    c = chips("netmahjong", ura=2, tsumo=False, closed=True)
    assert (c["ura"], c["from"], c["payers"], c["total"]) == (2, "discarder", 1, 2)


def test_net_red_fives_and_all_star():
    # 赤ドラ: one per red five; オールスター: all three reds, 2 more each / from the discarder
    c = chips("netmahjong", aka=2, closed=False)
    assert (c["aka"], c["all_star"], c["total"]) == (2, 0, 2)
    c = chips("netmahjong", aka=3, all_star=True, tsumo=True, closed=True)
    assert (c["aka"], c["all_star"], c["each"], c["total"]) == (3, 2, 5, 15)


def test_net_ippatsu_chip():
    assert chips("netmahjong", ippatsu=True)["total"] == 1
    assert chips("netmahjong", ippatsu=True, tsumo=True)["total"] == 3


def test_net_yakuman_chips_two_each_or_three_from_the_discarder():
    # 「ツモあがりの場合全員から2枚づつ、ロンあがりの場合放銃者から3枚だけ」
    assert chips("netmahjong", yakuman=1, tsumo=True)["yakuman"] == 2
    assert chips("netmahjong", yakuman=1, tsumo=True)["total"] == 6
    assert chips("netmahjong", yakuman=1)["total"] == 3
    # a counted yakuman is a 4倍満, not a 役満: no yakuman chips in 000
    assert chips("netmahjong", kazoe=True, tsumo=True)["total"] == 0


@pytest.mark.parametrize("tsumo_each,ron", [(0, 0), (1, 2), (2, 3), (4, 6), (5, 8), (8, 12)])
def test_net_yakuman_chip_switch_0_to_8(tsumo_each, ron):
    # 【ローカルルール】「ツモあがりのときの役満チップの枚数を設定できます。( 0 〜 8 )
    # ロンあがりの場合は、ツモあがりのときの枚数の 1.5 倍」; halves round up
    rules = load_rules({"extends": "netmahjong", "chips": {"yakuman_tsumo": tsumo_each}})
    assert chips(rules, yakuman=1, tsumo=True)["yakuman"] == tsumo_each
    assert chips(rules, yakuman=1)["yakuman"] == ron


def test_net_local_rules_switch_chips_off():
    off = load_rules(
        {"extends": "netmahjong", "chips": {"ura": 0, "aka": 0, "all_star": 0, "ippatsu": 0}}
    )
    assert chips(off, ura=3, aka=3, all_star=True, ippatsu=True, closed=True)["total"] == 0
    closed_only = load_rules({"extends": "netmahjong", "chips": {"aka_closed_only": True}})
    # 「赤ドラチップは面前のときにしか付かないように設定できます」
    assert chips(closed_only, aka=3, all_star=True, closed=False)["total"] == 0
    assert chips(closed_only, aka=3, all_star=True, closed=True)["total"] == 5


# --------------------------------------------------------------------------- ねこはうす ★ (002)
def test_nekohouse_stars_for_ippatsu_ura_red():
    # 4A 「一発★、裏ドラ★あり。赤伍萬、赤伍筒、赤伍索は各1枚です★」
    c = chips("nekohouse-4a", ippatsu=True, ura=1, aka=2, all_star=False, tsumo=True, closed=True)
    assert (c["ippatsu"], c["ura"], c["aka"], c["all_star"], c["each"], c["total"]) == (
        1,
        1,
        2,
        0,
        4,
        12,
    )


@pytest.mark.parametrize(
    "preset,payers",
    [("nekohouse-4a", 3), ("nekohouse-4b", 3), ("nekohouse-3a", 2), ("nekohouse-3b", 2)],
)
def test_nekohouse_yakuman_and_kazoe_stars(preset, payers):
    # 「本役満★10or★5オール、数え役満★6or★3オール」
    assert chips(preset, yakuman=1)["total"] == 10
    assert chips(preset, yakuman=1, tsumo=True)["each"] == 5
    assert chips(preset, yakuman=1, tsumo=True)["total"] == 5 * payers
    assert chips(preset, kazoe=True)["total"] == 6
    assert chips(preset, kazoe=True, tsumo=True)["each"] == 3
    # no double yakuman ★ either: one award per win
    assert chips(preset, yakuman=2)["total"] == 10


def test_nekohouse_pocchi_star_only_where_the_pocchi_is():
    # 4B/3B 白ポッチ ★; 4A has no pocchi
    assert chips("nekohouse-4b", pocchi=1, tsumo=True, closed=True)["pocchi"] == 1
    assert chips("nekohouse-3b", pocchi=True, tsumo=True, closed=True)["total"] == 2
    assert chips("nekohouse-4a", pocchi=1, tsumo=True)["pocchi"] == 0


def test_nekohouse_3b_red_fives_carry_no_star():
    # 3B 「赤伍筒、赤伍索は各4枚です」 without ★ (3A: 「各1枚です★」)
    assert chips("nekohouse-3b", aka=3, closed=True)["aka"] == 0
    assert chips("nekohouse-3a", aka=2, closed=True)["aka"] == 2


@pytest.mark.parametrize("preset", ["mahjongbu", "nekohouse-boo", "simple", "mcr"])
def test_rules_without_chips(preset):
    # 001 基本ルール 21 「赤ドラ,チップ,その他祝儀なし」; ブー麻雀 and 003/004 have no chips
    c = chips(preset, ura=2, aka=1, ippatsu=True, yakuman=1, tsumo=True, closed=True)
    assert c["total"] == 0 and c["each"] == 0


# --------------------------------------------------------------------------- input
@pytest.mark.parametrize(
    "facts,words",
    [
        ({"ura": -1}, "count of 0 or more"),
        ({"aka": "2"}, "count of 0 or more"),
        ({"tsumo": "yes"}, "true or false"),
    ],
)
def test_bad_facts_are_refused(facts, words):
    with pytest.raises(InvalidInput, match=words):
        award_chips(load_rules("netmahjong"), facts)


def test_facts_must_be_a_mapping():
    with pytest.raises(InvalidInput, match="mapping"):
        award_chips(load_rules("netmahjong"), [("ura", 1)])


def test_extra_hand_facts_are_ignored():
    assert award_chips(load_rules("netmahjong"), {"ura": 1, "dora": 3, "nukidora": 1})["total"] == 1
