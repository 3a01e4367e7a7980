"""Every example hand of the Net Mahjong rulebook's yaku section, scored as the text says.

Source: seeds/000_75219193aaae2e91.txt, section (5) 役 (each yaku's 【例】) and
section (4) 点数計算 / 符計算 (the 82 -> 90 fu example). Where the tiles of an
example also make another yaku (the 三槓子 example is also 対々, the 三色 example
also タンヤオ), that yaku is expected too. The rulebook draws
tiles as 一..九 (man, 伍+ red), (1)..(9) (pin, [5] red), 1..9 (sou, 5+ red),
東南西北 □発中; the last tile of an example is the winning tile, ポン/チー/カン
above a group mark calls, ■ a face-down tile of a closed kan. Each case
below gives the example in mpsz with the melds the marks show.
"""

from __future__ import annotations

import functools

import pytest

from scoring.hand import score_hand
from tests.support import hand as hand_support

NET = "netmahjong"
score = functools.partial(hand_support.score, rules=NET)


def names(out):
    assert out["ok"], out
    return [y["name"] for y in out["yaku"]]


# (yaku heading in 000 (5), hand, win, melds, flags, yaku the example shows, han)
EXAMPLES = [
    ("ツモ (門前清自摸和)", "45m123999p234s44z6m", "6m", [], {"tsumo": True}, ["menzen_tsumo"], 1),
    ("リーチ", "45m123999p234s44z6m", "6m", [], {"riichi": True}, ["riichi"], 1),
    (
        "翻牌",
        "345m234p05789s",
        "9s",
        [("pon", "555z")],
        {"tsumo": True},
        ["yakuhai_haku", "aka"],
        2,
    ),
    ("平和", "234789m567p45677s", "7p", [], {}, ["pinfu"], 1),
    ("タンヤオ", "345m66m567p567s", "5s", [("chi", "567s")], {}, ["tanyao"], 1),
    (
        "イイペイコウ",
        "11666789m445660s",
        "0s",
        [],
        {"tsumo": True},
        ["menzen_tsumo", "iipeikou", "aka"],
        3,
    ),
    (
        "対々",
        "88999p666s",
        "6s",
        [("pon", "444m"), ("pon", "666z")],
        {"tsumo": True},
        ["yakuhai_hatsu", "toitoi"],
        3,
    ),
    (
        "三暗刻",
        "11678m055777p444s",
        "5p",
        [],
        {"tsumo": True},
        ["menzen_tsumo", "sanankou", "aka"],
        4,
    ),
    (
        "三色同刻",
        "78999p666s",
        "6s",
        [("pon", "666m"), ("pon", "666p")],
        {"tsumo": True},
        ["sanshoku_doukou"],
        2,
    ),
    (
        "小三元",
        "333m66777z",
        "3m",
        [("pon", "555z"), ("chi", "789p")],
        {"tsumo": True},
        ["yakuhai_haku", "yakuhai_chun", "shousangen"],
        4,
    ),
    (
        "チャンタ",
        "123p55577z",
        "2p",
        [("chi", "789s"), ("chi", "123s")],
        {},
        ["yakuhai_haku", "chanta"],
        2,
    ),
    (
        "混老頭",
        "111p77555z",
        "1p",
        [("pon", "999s"), ("pon", "111s")],
        {},
        ["yakuhai_haku", "toitoi", "honroutou"],
        5,
    ),
    (
        "三槓子",
        "88p666s",
        "6s",
        [("minkan", "9999p"), ("minkan", "4444m"), ("ankan", "6666z")],
        {"tsumo": True},
        ["yakuhai_hatsu", "toitoi", "sankantsu"],
        5,
    ),
    (
        "三色",
        "345m66p345s",
        "3s",
        [("chi", "345p"), ("chi", "678m")],
        {},
        ["tanyao", "sanshoku"],
        2,
    ),
    ("一通", "88m067p123456789s", "0p", [], {}, ["pinfu", "ittsu", "aka"], 4),
    (
        "リャンペイコウ",
        "11667788m445660s",
        "0s",
        [],
        {"tsumo": True},
        ["menzen_tsumo", "ryanpeikou", "aka"],
        5,
    ),
    (
        "混一",
        "33344566778s",
        "4s",
        [("pon", "777z")],
        {"tsumo": True},
        ["yakuhai_chun", "honitsu"],
        3,
    ),
    ("純チャン", "11m123999p", "2p", [("chi", "789s"), ("chi", "123s")], {}, ["junchan"], 2),
    ("清一", "12345566799p", "6p", [("pon", "888p")], {}, ["chinitsu"], 5),
    ("七対子", "33556688m99p6699s", "6m", [], {}, ["chiitoitsu"], 2),
]
YAKUMAN = [
    ("国士無双", "19m19p19s12234567z", "1m", [], {}, ["kokushi"]),
    ("四暗刻", "11666m055777p444s", "5p", [], {"tsumo": True}, ["suuankou"]),
    (
        "大三元",
        "33m666777z",
        "6z",
        [("pon", "555z"), ("chi", "789p")],
        {"tsumo": True},
        ["daisangen"],
    ),
    ("緑一色", "22334466888s", "4s", [("pon", "666z")], {"tsumo": True}, ["ryuuiisou"]),
    (
        "字一色",
        "11122244z",
        "1z",
        [("pon", "777z"), ("pon", "666z")],
        {"tsumo": True},
        ["tsuuiisou"],
    ),
    (
        "大四喜",
        "11m111222z",
        "2z",
        [("pon", "444z"), ("pon", "333z")],
        {"tsumo": True},
        ["daisuushii"],
    ),
    (
        "小四喜",
        "234m11122z",
        "4m",
        [("pon", "444z"), ("pon", "333z")],
        {"tsumo": True},
        ["shousuushii"],
    ),
    (
        "四槓子",
        "66s",
        "6s",
        [("ankan", "8888p"), ("minkan", "9999p"), ("minkan", "4444m"), ("ankan", "6666z")],
        {"tsumo": True},
        ["suukantsu"],
    ),
    ("清老頭", "111m111p99p", "1p", [("pon", "999s"), ("pon", "111s")], {}, ["chinroutou"]),
    ("九蓮宝燈", "11122345678999m", "6m", [], {}, ["chuuren"]),
]


@pytest.mark.parametrize("case", EXAMPLES, ids=[c[0] for c in EXAMPLES])
def test_netmahjong_yaku_examples(case):
    """000 (5) 役: the example of each yaku scores that yaku (and only what the tiles add)."""
    _title, hand, win, melds, flags, want, han = case
    out = score(hand, win, melds, **flags)
    assert sorted(names(out)) == sorted(want)
    assert out["han"] == han


@pytest.mark.parametrize("case", YAKUMAN, ids=[c[0] for c in YAKUMAN])
def test_netmahjong_yakuman_examples(case):
    """000 (5): the yakuman examples; 000 (4) 役満 is 4倍満: 32,000 for a non-dealer."""
    _title, hand, win, melds, flags, want = case
    out = score(hand, win, melds, **flags)
    assert names(out) == want
    assert out["yakuman"] == 1 and out["limit"] == "yakuman" and out["value"] == 32000


def test_fu_example_82_rounds_to_90():
    """000 (4) 符計算 【例】: 20 + 0 (pair) + 4 (closed 666s) + 16 (open kan 9p) + 8 (open kan 4m)
    + 32 (closed kan 發) + 0 (shanpon) + 2 (tsumo) = 82, rounded up to 90."""
    out = score(
        "88p666s", "6s", [("minkan", "9999p"), ("minkan", "4444m"), ("ankan", "6666z")], tsumo=True
    )
    assert out["fu"] == 90
    detail = dict(out["fu_detail"])
    assert sum(detail.values()) == 90
    assert detail["rounded up from 82"] == 8
    assert sorted(f for r, f in out["fu_detail"] if "pon" in r or "kan" in r) == [4, 8, 16, 32]


def test_chiitoitsu_is_25_fu_and_excludes_four_of_a_kind():
    """000 (4) 「七対子は…25符固定」; (5) 七対子 【注】「同一牌を4枚使った形は認められません」."""
    out = score("33556688m99p6699s", "6m")
    assert out["fu"] == 25 and out["han"] == 2
    four = ("338888m99p6699s11z", "3m")  # 8888m as two pairs
    assert score(*four)["error"]["code"] == "not_agari"
    allowed = score(*four, rules="nekohouse-4b")  # 002 4B 「七対子の4枚使いが可能です」
    assert names(allowed) == ["chiitoitsu"]


def test_chiitoitsu_never_with_ryanpeikou():
    """000 (5) 七対子 【注】「七対子は、リャンペーコー と複合しません」:
    the ryanpeikou reading wins."""
    out = score("11667788m445566s", "6s", tsumo=True)
    assert "ryanpeikou" in names(out) and "chiitoitsu" not in names(out)


def test_pinfu_tsumo_counts_with_20_fu_and_the_local_rule_turns_it_off():
    """000 (5) 平和 【注】: Net Mahjong gives pinfu on a tsumo without tsumo fu (20 fu);
    【ローカルルール】 it can be turned off (then 2 tsumo fu, 30 fu, no pinfu)."""
    hand, win = "234789m567p45677s", "7p"
    on = score(hand, win, tsumo=True)
    assert names(on) == ["menzen_tsumo", "pinfu"] and on["fu"] == 20
    off = score(hand, win, tsumo=True, rules={"extends": NET, "hand": {"pinfu_tsumo": False}})
    assert names(off) == ["menzen_tsumo"] and off["fu"] == 30


def test_kuitan_local_rule():
    """000 (5) タンヤオ 【ローカルルール】「面前でないとタンヤオが付かないように設定できます」."""
    args = ("345m66m567p567s", "5s", [("chi", "567s")])
    assert names(score(*args)) == ["tanyao"]
    off = score(*args, rules={"extends": NET, "hand": {"kuitan": False}})
    assert off["error"]["code"] == "no_yaku"


def test_houtei_is_folded_into_haitei():
    """000 (5) ハイテイ:
    「河底牌でロンあがるのは本来別の役ですが、ネットマージャンでは、ハイテイに含めています」."""
    out = score("45m123999p234s44z6m", "6m", houtei=True)
    assert names(out) == ["haitei"]
    separate = score("45m123999p234s44z6m", "6m", houtei=True, rules="nekohouse-4a")
    assert names(separate) == ["houtei"]


def test_renhou_is_baiman_in_net_mahjong():
    """000 (5) 人和: 「純粋な役満扱いではなく、倍満になります」; 002: 「人和は役満とします」."""
    net = score("45m123999p234s44z6m", "6m", renhou=True)
    assert names(net) == ["renhou"] and net["limit"] == "baiman" and net["value"] == 16000
    neko = score("45m123999p234s44z6m", "6m", renhou=True, rules="nekohouse-4a")
    assert names(neko) == ["renhou"] and neko["yakuman"] == 1


def test_kokushi_may_rob_a_closed_kan_in_net_mahjong_only():
    """000 (5) 国士無双: 「あがり牌を暗カンされた場合でも ロンあがりをすることができます」;
    001 カン 5 「暗カンにチャンカンは該当しない。国士の特例はなし」."""
    kokushi = ("19m19p19s12234567z", "1m")
    assert names(score(*kokushi, ankan_chankan=True, chankan=True))[0] == "kokushi"
    bu = score(*kokushi, ankan_chankan=True, chankan=True, rules="mahjongbu")
    assert bu["ok"] is False and bu["error"]["code"] == "invalid_input"
    other = score("45m123999p234s44z6m", "6m", ankan_chankan=True, chankan=True)
    assert other["error"]["code"] == "not_agari"


def test_double_yakuman_stacks_in_net_mahjong():
    """000 (4) 注「役満同士の複合を認めています (ダブル役満あり)」:
    daisangen + tsuuiisou = 2 yakuman."""
    out = score("11555666777z", "1z", [("pon", "222z")], tsumo=True)
    assert sorted(names(out)) == ["daisangen", "tsuuiisou"]
    assert out["yakuman"] == 2 and out["value"] == 64000


def test_single_yakuman_in_nekohouse():
    """002 4A 「ダブル役満なし。複数の役満が複合してもシングル役満です」."""
    out = score("11555666777z", "1z", [("pon", "222z")], tsumo=True, rules="nekohouse-4a")
    assert out["yakuman"] == 1 and out["value"] == 32000


def test_yakuhai_double_wind_is_two_han():
    """000 (5) 翻牌: 「場風牌と自風牌が重なっている場合は、2翻となります」."""
    line = {
        "hand": "234m456p67899s",
        "win": "8s",
        "melds": [{"type": "pon", "tiles": "111z"}],
        "seat_wind": "E",
        "round_wind": "E",
    }
    out = score_hand(line, NET)
    assert sorted(names(out)) == ["yakuhai_round_wind", "yakuhai_seat_wind"] and out["han"] == 2


def test_dora_needs_a_yaku():
    """000 (6) ドラ: 「これらは、あがるための条件を満たすものではありません」."""
    out = score("123m456p789s234s11z", "2s", dora="1s")
    assert (
        out["ok"] is False
        and out["error"]["code"] == "no_yaku"
        and "dora" in out["error"]["message"]
    )


def test_kan_dora_and_ura_count_each_tile_of_a_kan():
    """000 (6) カンドラ/裏ドラ: every indicator's next tile counts once per tile in the hand."""
    out = score("45m123999p234s44z6m", "6m", riichi=True, dora="8p3z", ura="3s")
    counts = {y["name"]: y["han"] for y in out["yaku"]}
    assert counts == {"riichi": 1, "dora": 5, "ura": 1}
