"""scoring.points behaviour per house rule: which han/fu pairs exist, kiriage,
limits, three-player payments, ブー麻雀, honba, deposits and noten payments.
The rulebook tables themselves are reproduced cell by cell in test_points_tables.py."""

from __future__ import annotations

import pytest

from scoring.errors import InvalidInput, RulesError
from scoring.points import (
    deposit_bonus,
    han_fu_pairs,
    hand_value,
    honba_bonus,
    noten_payments,
)
from scoring.rules import PRESET_IDS, load_rules

RIICHI_PRESETS = [p for p in PRESET_IDS if p != "mcr"]


def hv(rules, han, fu, *, dealer=False, tsumo=False, **kw):
    return hand_value(
        load_rules(rules) if isinstance(rules, (str, dict)) else rules,
        han=han,
        fu=fu,
        dealer=dealer,
        tsumo=tsumo,
        **kw,
    )


# --------------------------------------------------------------------------- impossible pairs
@pytest.mark.parametrize(
    "han,fu,tsumo,words",
    [
        (1, 20, False, "never 20 fu"),
        (2, 20, False, "never 20 fu"),
        (1, 25, False, "seven pairs are at least 2 han"),
        (2, 25, True, "3 on a tsumo"),
        (1, 20, True, "pinfu tsumo of 2 han"),
        (2, 35, False, "multiple of 10"),
        (3, 42, True, "multiple of 10"),
        (1, 120, False, "more than 110"),
        (1, 0, False, "at least the 20 fu base"),
        (1, 10, True, "at least the 20 fu base"),
        (6, 33, False, "at 6 han choose one of 0, 20, 25, 30"),
    ],
)
def test_impossible_pair_is_refused_with_a_reason(han, fu, tsumo, words):
    with pytest.raises(InvalidInput) as e:
        hv("netmahjong", han, fu, tsumo=tsumo)
    assert words in e.value.message
    assert "choose one of" in e.value.message


@pytest.mark.parametrize(
    "bad", [{"han": -1}, {"fu": -10}, {"han": 1.5}, {"han": True}, {"yakuman": -1}, {"fu": "30"}]
)
def test_non_numbers_are_refused(bad):
    args = {"han": 1, "fu": 30, **bad}
    with pytest.raises(InvalidInput, match="whole number"):
        hand_value(load_rules("netmahjong"), dealer=False, tsumo=False, **args)


@pytest.mark.parametrize("preset", RIICHI_PRESETS)
@pytest.mark.parametrize("tsumo", [False, True])
def test_pairs_listed_are_exactly_the_pairs_accepted(preset, tsumo):
    rules = load_rules(preset)
    pairs = set(han_fu_pairs(rules, tsumo=tsumo))
    assert pairs, preset
    for han in range(0, 5):
        for fu in range(0, 145, 5):
            if rules.fu.use_fu and han < 5:
                try:
                    hand_value(rules, han=han, fu=fu, dealer=False, tsumo=tsumo)
                    accepted = True
                except InvalidInput:
                    accepted = False
                assert accepted == ((han, fu) in pairs), (preset, han, fu, tsumo)
    for han, fu in pairs:
        assert hand_value(rules, han=han, fu=fu, dealer=True, tsumo=tsumo).value > 0


def test_pairs_follow_the_pinfu_tsumo_switch():
    # 000 (5) 平和 【ローカルルール】「ツモあがりの場合は、ピンフは付かないように設定できます」
    assert (2, 20) in han_fu_pairs(load_rules("netmahjong"), tsumo=True)
    no_pinfu_tsumo = load_rules({"extends": "netmahjong", "hand": {"pinfu_tsumo": False}})
    assert (2, 20) not in han_fu_pairs(no_pinfu_tsumo, tsumo=True)
    assert (2, 25) in han_fu_pairs(load_rules("netmahjong"), tsumo=False)
    assert (2, 25) not in han_fu_pairs(load_rules("netmahjong"), tsumo=True)
    assert (3, 25) in han_fu_pairs(load_rules("netmahjong"), tsumo=True)


def test_no_fu_rules_list_han_only():
    assert han_fu_pairs(load_rules("nekohouse-4b"), tsumo=False) == [(h, 0) for h in range(1, 14)]
    with pytest.raises(InvalidInput, match="starts at 1 han"):
        hv("simple", 0, 0)


def test_limit_hands_ignore_fu():
    assert hv("netmahjong", 6, 0).value == hv("netmahjong", 6, 40).value == 12000
    with pytest.raises(InvalidInput):
        hv("netmahjong", 6, 33)


# --------------------------------------------------------------------------- kiriage and limits
def test_mahjongbu_rounds_up_to_mangan():
    # 001 補足事項 1 「子の7.700は8.000、2.000・3.900は2.000・4.000、親の11.600は12.000、
    # 3.900オールは4.000オールに切り上げる」
    for han, fu in ((4, 30), (3, 60)):
        assert hv("mahjongbu", han, fu).pay == {"ron": 8000}
        assert hv("mahjongbu", han, fu, tsumo=True).pay == {"dealer": 4000, "non_dealer": 2000}
        assert hv("mahjongbu", han, fu, dealer=True).pay == {"ron": 12000}
        assert hv("mahjongbu", han, fu, dealer=True, tsumo=True).pay == {"all": 4000}
        assert hv("mahjongbu", han, fu).limit == "mangan"
        assert hv("netmahjong", han, fu).pay == {"ron": 7700}


@pytest.mark.parametrize(
    "han,limit",
    [
        (5, "mangan"),
        (6, "haneman"),
        (7, "haneman"),
        (8, "baiman"),
        (10, "baiman"),
        (11, "sanbaiman"),
        (12, "sanbaiman"),
    ],
)
def test_limit_names(han, limit):
    assert hv("netmahjong", han, 30).limit == limit


def test_below_mangan_has_no_limit():
    v = hv("netmahjong", 3, 60)
    assert (v.limit, v.value) == (None, 7700)
    assert hv("netmahjong", 3, 70).limit == "mangan"


def test_counted_yakuman_follows_hand_kazoe_yakuman():
    assert hv("netmahjong", 13, 30).limit == "yakuman"
    assert hv("netmahjong", 13, 30, kazoe=True).value == 32000
    capped = load_rules({"extends": "netmahjong", "hand": {"kazoe_yakuman": False}})
    v = hv(capped, 15, 30)
    assert (v.limit, v.value) == ("sanbaiman", 24000)
    with pytest.raises(InvalidInput, match="13 han"):
        hv("netmahjong", 12, 30, kazoe=True)


def test_mahjongbu_caps_counted_hands_at_sanbaiman():
    # 001 役満 1 「数え役満はなしとする(11翻以上はすべて3倍満)」
    assert hv("mahjongbu", 14, 30).pay == {"ron": 24000}


def test_counted_yakuman_in_a_no_fu_table():
    capped = load_rules({"extends": "nekohouse-4b", "hand": {"kazoe_yakuman": False}})
    assert hv(capped, 14, 0).pay == {"ron": 24000}
    assert hv("nekohouse-4b", 14, 0).pay == {"ron": 32000}
    assert hv("nekohouse-4b", 0, 0, yakuman=2).pay == {"ron": 64000}


# --------------------------------------------------------------------------- three players
def test_three_player_tsumo_loss():
    # 002 3A 「ツモ損あり」: the absent North's share is simply not paid
    v = hv("nekohouse-3a", 1, 30, tsumo=True)
    assert v.pay == {"dealer": 500, "non_dealer": 300} and v.value == 800
    v = hv("nekohouse-3a", 5, 30, dealer=True, tsumo=True)
    assert v.pay == {"all": 4000} and v.value == 8000
    assert hv("nekohouse-3a", 1, 30).value == 1000  # a ron is unchanged


def test_three_player_without_tsumo_loss_splits_the_absent_share():
    rules = load_rules({"extends": "nekohouse-3a", "points": {"tsumo_loss": False}})
    # mangan: 2000-4000 plus North's 2000 split = 3000-5000 (as 002 3B's no-fu table)
    v = hv(rules, 5, 30, tsumo=True)
    assert v.pay == {"dealer": 5000, "non_dealer": 3000} and v.value == 8000
    v = hv(rules, 5, 30, dealer=True, tsumo=True)
    assert v.pay == {"all": 6000} and v.value == 12000


def test_four_player_tsumo_value_sums_three_payers():
    v = hv("netmahjong", 1, 30, tsumo=True)
    assert v.pay == {"dealer": 500, "non_dealer": 300} and v.value == 1100
    assert hv("netmahjong", 2, 30, dealer=True, tsumo=True).value == 3000


# --------------------------------------------------------------------------- ブー麻雀
BOO = "nekohouse-boo"  # as shipped: min_han 0, open pinfu 20 fu, dora paid per tile


def test_boo_pays_nothing_above_mangan():
    # 002 ブー麻雀 「満貫は子8000点, 親12000点で, 跳満以上の点数はありません」
    for han in (5, 8, 13):
        assert hv(BOO, han, 30).pay == {"ron": 8000}
        assert hv(BOO, han, 30, dealer=True).pay == {"ron": 12000}
    v = hv(BOO, 0, 0, yakuman=1, dealer=True, tsumo=True)
    assert v.pay == {"all": 4000} and v.limit == "mangan" and v.yakuman == 1


def test_boo_has_no_kiriage_and_a_zero_han_row():
    # 「切り上げ満貫はありません」;
    # 002 点数表 0翻 [*1] 「0翻の上がりができるのはブー麻雀ルールのみ」
    assert hv(BOO, 4, 30).pay == {"ron": 7700}
    assert hv(BOO, 0, 30).pay == {"ron": 1000 - 500}
    assert hv(BOO, 0, 40, tsumo=True).pay == {"dealer": 400, "non_dealer": 200}
    with pytest.raises(InvalidInput, match="minimum of 1 han"):
        hv("netmahjong", 0, 30)


def test_boo_dora_are_paid_per_tile():
    # 「ドラは役ではなく, 1枚につき場に1500点です」: all from the discarder, shared on a tsumo
    assert hv(BOO, 1, 30, dora=2).pay == {"ron": 1000 + 3000}
    assert hv(BOO, 1, 30, dora=1, tsumo=True).pay == {"dealer": 500 + 500, "non_dealer": 300 + 500}
    # elsewhere dora are han, never money
    assert hv("netmahjong", 1, 30, dora=2).pay == {"ron": 1000}


def test_boo_open_pinfu_ron_is_20_fu():
    rules = load_rules(BOO)
    assert (1, 20) in han_fu_pairs(rules, tsumo=False)
    assert hv(rules, 1, 20).pay == {"ron": 700}  # 002 点数表 子 20符 1翻 700
    with pytest.raises(InvalidInput, match="open pinfu"):
        hv(rules, 0, 20)


# --------------------------------------------------------------------------- honba, deposits, noten
@pytest.mark.parametrize(
    "preset,ron,tsumo_each,payers",
    [
        ("netmahjong", 300, 100, 3),  # 000 (4) 「300点×積み棒」「100点×積み棒」
        ("mahjongbu", 300, 100, 3),  # 001 基本ルール 16 「本場は1本につき300点」
        ("nekohouse-4a", 300, 100, 3),  # 002 4A 「積符は300点」
        ("nekohouse-4b", 1500, 500, 3),  # 002 4B 「積符は場に1500点」
        ("nekohouse-3a", 200, 100, 2),  # 002 3A 「積符は場に200点」
        ("nekohouse-3b", 1000, 1000, 2),  # 002 3B 「積符はロン1000点、ツモ1000オール」
        ("nekohouse-boo", 1500, 500, 3),  # 002 ブー麻雀 「積符は場に1500点」
    ],
)
def test_honba_per_rule(preset, ron, tsumo_each, payers):
    rules = load_rules(preset)
    assert honba_bonus(rules, 2, tsumo=False) == {"each": 2 * ron, "payers": 1, "total": 2 * ron}
    assert honba_bonus(rules, 2, tsumo=True) == {
        "each": 2 * tsumo_each,
        "payers": payers,
        "total": 2 * tsumo_each * payers,
    }
    assert honba_bonus(rules, 0, tsumo=True)["total"] == 0


def test_boo_yakuless_win_collects_no_honba():
    # 「役なしの上がりには積符は加算されず」
    rules = load_rules("nekohouse-boo")
    assert honba_bonus(rules, 3, tsumo=False, yakuless=True)["total"] == 0
    assert honba_bonus(load_rules("netmahjong"), 3, tsumo=False, yakuless=True)["total"] == 900


def test_deposits():
    assert deposit_bonus(load_rules("netmahjong"), 2) == 2000
    assert deposit_bonus(load_rules("nekohouse-boo"), 2) == 200  # 「立直料は100点」
    with pytest.raises(InvalidInput):
        deposit_bonus(load_rules("netmahjong"), -1)


@pytest.mark.parametrize(
    "tenpai,deltas",
    [
        # 000 (3) 荒牌: 3人 -3000/+1000, 2人 -1500/+1500, 1人 -1000/+3000
        ([True, True, True, False], [1000, 1000, 1000, -3000]),
        ([True, False, True, False], [1500, -1500, 1500, -1500]),
        ([False, False, True, False], [-1000, -1000, 3000, -1000]),
        ([True] * 4, [0] * 4),
        ([False] * 4, [0] * 4),
    ],
)
def test_noten_payments_four_players(tenpai, deltas):
    assert noten_payments(load_rules("netmahjong"), tenpai) == deltas


def test_noten_payments_three_players_and_boo():
    # 002 3A 「聴牌料は場に2000点」; ブー麻雀 「聴牌料はなく」
    assert noten_payments(load_rules("nekohouse-3a"), [True, False, False]) == [2000, -1000, -1000]
    assert noten_payments(load_rules("nekohouse-3a"), [True, True, False]) == [1000, 1000, -2000]
    assert noten_payments(load_rules("nekohouse-boo"), [True, False, False, False]) == [0] * 4
    with pytest.raises(InvalidInput, match="3 true/false"):
        noten_payments(load_rules("nekohouse-3a"), [True, False, False, False])


def test_riichi_deposit_and_noten_are_switches():
    assert load_rules("netmahjong").points.riichi_deposit == 1000
    assert load_rules("nekohouse-boo").points.riichi_deposit == 100
    assert load_rules("nekohouse-3b").points.noten_total == 2000


def test_no_fu_rule_without_a_table_is_refused():
    with pytest.raises(RulesError, match="nofu_table"):
        load_rules({"extends": "netmahjong", "fu": {"use_fu": False}})


# --------------------------------------------------------------------------- properties
@pytest.mark.parametrize("preset", RIICHI_PRESETS)
def test_more_han_never_pays_less_and_the_dealer_never_less(preset):
    rules = load_rules(preset)
    for tsumo in (False, True):
        pairs = han_fu_pairs(rules, tsumo=tsumo)
        by_fu: dict[int, list[int]] = {}
        for han, fu in sorted(pairs):
            ko = hand_value(rules, han=han, fu=fu, dealer=False, tsumo=tsumo)
            oya = hand_value(rules, han=han, fu=fu, dealer=True, tsumo=tsumo)
            assert oya.value >= ko.value, (preset, han, fu, tsumo)
            by_fu.setdefault(fu, []).append(ko.value)
        for fu, values in by_fu.items():
            assert values == sorted(values), (preset, fu, tsumo)


@pytest.mark.parametrize("preset", ["netmahjong", "nekohouse-4a", "mahjongbu", "simple"])
def test_four_player_tsumo_is_worth_a_ron_plus_rounding(preset):
    # each tsumo payment is rounded up on its own: never less than the ron, and less
    # than 300 more (three roundings); the beginner's table splits in exact thirds
    rules = load_rules(preset)
    for han, fu in han_fu_pairs(rules, tsumo=True):
        if (han, fu) not in han_fu_pairs(rules, tsumo=False):
            continue
        for dealer in (False, True):
            ron = hand_value(rules, han=han, fu=fu, dealer=dealer, tsumo=False).value
            tsumo = hand_value(rules, han=han, fu=fu, dealer=dealer, tsumo=True).value
            assert 0 <= tsumo - ron < (300 if rules.fu.use_fu else 1), (han, fu, dealer)
