"""Settlement: rounding, oka, uma, ties, chips, victory points.

Each test cites the rulebook line it checks (files in shared/seeds/).
"""

import pytest

from scoring.rules import load_rules
from scoring.settlement import ranks, round_points, settle


def rules(base, **settlement):
    return load_rules({"extends": base, "settlement": settlement})


def test_netmahjong_worked_example_exactly():
    # 000 (3) 清算 【例】 「1位 35600 +26000 / 2位 27400 −3000 / 3位 22800 −7000 / 4位 14200 −16000」  # noqa: E501
    out = settle([35600, 27400, 22800, 14200], "netmahjong")
    assert out["base"] == [26000, -3000, -7000, -16000]
    assert out["ranks"] == [1, 2, 3, 4]
    # the example row without uma: the ウマなし local rule
    bare = settle([35600, 27400, 22800, 14200], rules("netmahjong", uma=[0, 0, 0, 0]))
    assert bare["result"] == [26000, -3000, -7000, -16000]


def test_netmahjong_default_uma_is_one_two():
    # 000 (3) ウマ 「1位+20000 2位+10000 3位−10000 4位−20000」
    out = settle([35600, 27400, 22800, 14200], "netmahjong")
    assert out["uma"] == [20000, 10000, -10000, -20000]
    assert out["result"] == [46000, 7000, -17000, -36000]
    assert out["oka"] == [20000, 0, 0, 0]


def test_gosha_rokunyu_500_down_600_up():
    # 001 基本ルール 4 「500点以下切捨て、600点以上切上げ(五捨六入)」
    assert round_points(27500, "gosha_rokunyu") == 27000
    assert round_points(27600, "gosha_rokunyu") == 28000
    assert round_points(-5500, "gosha_rokunyu") == -5000
    assert round_points(27500, "shisha_gonyu") == 28000
    assert round_points(27900, "down") == 27000
    assert round_points(27100, "up") == 28000
    assert round_points(27150, "none") == 27150


def test_mahjongbu_oka_20000_to_the_top():
    # 001 基本ルール 4 「25.000点持ちの30.000点返し。トップ者にはオカの20.000点が加点される」
    out = settle([40000, 30000, 20000, 10000], "mahjongbu")
    assert out["oka"] == [20000, 0, 0, 0]
    # 001 基本ルール 5 「1位+20.000点、2位+10.000点、3位△10.000点、4位に△20.000点」
    assert out["result"] == [50000, 10000, -20000, -40000]


def test_mahjongbu_ties_share_rank_and_split_oka_and_uma():
    # 001 基本ルール 6 「同得点の場合は同順位。オカ・ウマとも同得点者の人数で割り、加減される」
    out = settle([35000, 35000, 20000, 10000], "mahjongbu")
    assert out["ranks"] == [1, 1, 3, 4]
    assert out["uma"] == [15000, 15000, -10000, -20000]
    assert out["oka"] == [10000, 10000, 0, 0]
    assert out["result"][0] == out["result"][1] == 30000
    assert sum(out["result"]) == 0


def test_netmahjong_ties_by_seat_priority():
    # 000 (3) 清算 「同点の場合は、起家、起家の 下家対面上家の順に優先されます」
    assert ranks([30000, 30000, 20000, 20000], "seat") == [1, 2, 3, 4]
    out = settle([20000, 30000, 30000, 20000], "netmahjong")
    assert out["ranks"] == [3, 1, 2, 4]


def test_nekohouse_ties_by_first_dealer():
    # 002 4A 「ゲーム終了時同点の場合は起家優先とします」
    out = settle([20000, 30000, 20000, 30000], "nekohouse-4a")
    assert out["ranks"] == [3, 1, 4, 2]


def test_nekohouse_uma_10_30():
    # 002 4A 「25000点持ち3万点返しの四人打ち半荘戦です。馬は10-30です」
    out = settle([45000, 30000, 15000, 10000], "nekohouse-4a")
    assert out["uma"] == [30000, 10000, -10000, -30000]
    assert out["result"] == [65000, 10000, -25000, -50000]


def test_three_player_uma_0_30_and_oka():
    # 002 3A 「35000点持ち4万点返しの三人打ち半荘戦です。馬は0-30です」
    out = settle([50000, 35000, 20000], "nekohouse-3a")
    assert out["uma"] == [30000, 0, -30000]
    assert out["oka"] == [15000, 0, 0]
    # top: 50000 - 40000 + oka 15000 + uma 30000
    assert out["result"] == [55000, -5000, -50000]


def test_negative_score_counts_as_zero_without_box_under():
    # 000 (3) 清算 「持ち点が0点未満の場合、0点として計算します。(箱下計算なし)」
    out = settle([60000, 30000, 15000, -5000], rules("netmahjong", uma=[0, 0, 0, 0]))
    assert out["result"] == [45000, 0, -15000, -30000]
    # 【ローカルルール】「箱下計算ありの設定ができます」
    boxed = settle(
        [60000, 30000, 15000, -5000], rules("netmahjong", uma=[0, 0, 0, 0], box_under=True)
    )
    assert boxed["result"] == [50000, 0, -15000, -35000]


def test_no_busting_means_box_under():
    # 000 (3) 清算 【ローカルルール】「ブットビなしの場合、自動的に箱下計算はありになります」
    r = load_rules(
        {
            "extends": "netmahjong",
            "game": {"bust": False, "agari_yame": "forbidden"},
            "settlement": {"uma": [0, 0, 0, 0]},
        }
    )
    assert settle([60000, 30000, 15000, -5000], r)["result"] == [50000, 0, -15000, -35000]


SHICHIGOSAN = {
    "1": [15000, -3000, -5000, -7000],
    "2": [10000, 5000, -5000, -10000],
    "3": [7000, 5000, 3000, -15000],
}
SHIZUMI = {
    "1": [30000, -10000, -10000, -10000],
    "2": [20000, 0, -10000, -10000],
    "3": [10000, 0, 0, -10000],
}


@pytest.mark.parametrize(
    "scores,row",
    [
        ([40000, 25000, 20000, 15000], "1"),
        ([35000, 31000, 20000, 14000], "2"),
        ([31000, 30000, 30000, 9000], "3"),
    ],
)
def test_floating_uma_by_how_many_float(scores, row):
    # 000 (3) ウマ 【ローカルルール】 シチゴサン 「1人浮き+15000-3000-5000-7000 2人浮き… 3人浮き…」
    out = settle(scores, rules("netmahjong", uma_by_floaters=SHICHIGOSAN))
    assert out["uma"] == SHICHIGOSAN[row]
    assert sum(out["result"]) == 0


def test_sinking_uma():
    # 000 (3) ウマ 【ローカルルール】 沈みウマ 「1人浮き+30000-10000-10000-10000」
    out = settle([40000, 25000, 20000, 15000], rules("netmahjong", uma_by_floaters=SHIZUMI))
    assert out["uma"] == [30000, -10000, -10000, -10000]
    out = settle([35000, 31000, 20000, 14000], rules("netmahjong", uma_by_floaters=SHIZUMI))
    assert out["uma"] == [20000, 0, -10000, -10000]


def test_chips_are_worth_5000_in_netmahjong():
    # 000 (7) チップ 「チップは、一枚5000点相当になります」
    out = settle([35600, 27400, 22800, 14200], "netmahjong", chips=[2, 0, -1, -1])
    assert out["result"] == [56000, 7000, -22000, -41000]
    assert sum(out["result"]) == 0


def test_mahjongbu_keeps_no_chips():
    # 001 基本ルール 21 「赤ドラ,チップ,その他祝儀なし」 -> chips never enter the result
    out = settle([40000, 30000, 20000, 10000], "mahjongbu", chips=[1, -1, 0, 0])
    assert out["result"] == [50000, 10000, -20000, -40000]


# --------------------------------------------------------------------------- ブー麻雀
@pytest.mark.parametrize(
    "scores,vp",
    [
        ([17000, 7000, 5000, 3000], [9, -3, -3, -3]),  # マルA: only the top floats
        ([12000, 9000, 7000, 4000], [4, 0, -2, -2]),  # マルB
        ([10000, 9000, 8000, 5000], [1, 0, 0, -1]),  # マルC; 原点 8000 floats
    ],
)
def test_boo_victory_points(scores, vp):
    # 002 ブー麻雀（続き） 「マルA +9 0 -3 / マルB +4 0 -2 / マルC +1 0 -1」;
    # 002 ブー麻雀 「原点は浮きとして扱います」
    out = settle(scores, "nekohouse-boo")
    assert out["victory_points"] == vp
    assert out["result"] == vp


def test_boo_four_sinking_count_as_three_floating():
    # 002 ブー麻雀 「4人沈みの場合は持ち点の多い順に3人を浮きとして扱います」 (with leftover deposits)  # noqa: E501
    out = settle([7900, 7900, 7800, 7400], "nekohouse-boo")
    assert out["victory_points"] == [1, 0, 0, -1]


def test_boo_yakuman_is_a_double_maru_a():
    # 002 ブー麻雀 「役満は無条件にゲーム終了となり, 達成者のダブルマルAとします」
    out = settle(
        [40000, -8000, 0, 0], "nekohouse-boo", yakuman_end={"winner": 0, "from": 1, "pao": None}
    )
    assert out["victory_points"] == [18, -6, -6, -6]


def test_boo_pao_pays_the_double_maru_a():
    # 002 ブー麻雀（続き） 「ツモ上がりの場合は包責者がトップの収入分の全額を支払う…
    # ロン上がりの場合9勝利点を包責者の支払いとし、9勝利点を放銃者の支払い」
    tsumo = settle(
        [32000, 0, 0, 0], "nekohouse-boo", yakuman_end={"winner": 0, "from": None, "pao": 2}
    )
    assert tsumo["victory_points"] == [18, 0, -18, 0]
    ron = settle(
        [40000, -8000, 0, 0], "nekohouse-boo", yakuman_end={"winner": 0, "from": 1, "pao": 2}
    )
    assert ron["victory_points"] == [18, -9, -9, 0]


def test_boo_dabuken_doubles_a_second_maru_a():
    # 002 ブー麻雀（続き） 「マルA以上の場合は次のゲームでも続けてマルA以上を獲得した際ダブルマルA」
    first = settle([17000, 7000, 5000, 3000], "nekohouse-boo")
    assert first["dabuken"] == 0
    again = settle([17000, 7000, 5000, 3000], "nekohouse-boo", dabuken=0)
    assert again["victory_points"] == [18, -6, -6, -6]
    other = settle([7000, 17000, 5000, 3000], "nekohouse-boo", dabuken=0)
    assert other["victory_points"] == [-3, 9, -3, -3]
    # マルB does not carry the right on
    assert settle([12000, 9000, 7000, 4000], "nekohouse-boo")["dabuken"] is None


def test_mcr_result_is_the_raw_total():
    # 004 点数計算: MCR totals are the sum of payments, no oka or uma
    out = settle([40, -8, -24, -8], "mcr")
    assert out["result"] == [40, -8, -24, -8]
    assert out["uma"] == [0, 0, 0, 0]


def test_three_way_tie_splits_in_whole_points_and_sums_to_zero():
    # 001 基本ルール 6 「オカ・ウマとも同得点者の人数で割り」: 3 do not divide 20000 + 30000;
    # the odd points go to the seats nearest the first dealer
    out = settle([30000, 30000, 30000, 10000], "mahjongbu")
    assert out["ranks"] == [1, 1, 1, 4]
    assert out["oka"] == [6667, 6667, 6666, 0]
    assert sum(out["result"]) == 0 and out["result"][3] == -40000
    assert max(out["result"][:3]) - min(out["result"][:3]) <= 1


def test_below_zero_players_still_rank_by_their_points():
    # 000 (3) 清算: 「持ち点が0点未満の場合、0点として計算します」 - for the amount only;
    # 「点数が多い順に順位を付けます」 still orders -1000 above -5000
    out = settle([70000, 36000, -5000, -1000], "netmahjong")
    assert out["ranks"] == [1, 2, 4, 3]
    assert out["result"][2:] == [-30000 - 20000, -30000 - 10000]


@pytest.mark.parametrize(
    "bad,words",
    [
        ({"uma": [10000, 0, 0, 0]}, "sum to 0"),
        ({"return_points": 20000}, "oka would be negative"),
        ({"uma_by_floaters": {"4": [0, 0, 0, 0]}}, "floater counts"),
    ],
)
def test_contradictory_settlement_rules_are_refused(bad, words):
    from scoring.errors import RulesError

    with pytest.raises(RulesError, match=words):
        load_rules({"extends": "netmahjong", "settlement": bad})


def test_netmahjong_start_points_local_rule():
    # 000 (3) 【ローカルルール】「最初の持ち点は、25000 点から 30000点の範囲で設定できます」
    out = settle([40000, 30000, 30000, 20000], rules("netmahjong", start_points=30000))
    assert out["oka"] == [0, 0, 0, 0]
    assert out["result"] == [30000, 10000, -10000, -30000]
