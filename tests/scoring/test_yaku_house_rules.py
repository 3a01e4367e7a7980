"""House-rule yaku of ねこはうす (seeds/002_752de4ce5ec4d27d.txt) and #麻雀部 (001), from the text.

Each test quotes the sentence it checks. These cover what the ``mahjong``
oracle cannot express (overrides, pocchi, North yakuhai, open riichi,
nukidora of flowers, ブー麻雀's values).
"""

from __future__ import annotations

import pytest

from scoring.hand import next_kind
from scoring.rules import load_rules
from scoring.yaku import han_table
from tests.support.hand import score

# 002 麻雀役一覧: 役名 and 翻数 (門前/鳴き); 役満 as (0, 0, 1) and 役満/役満 as yakuman open too
NEKO_TABLE = {
    "riichi": (1, 0),
    "ippatsu": (1, 0),
    "menzen_tsumo": (1, 0),
    "tanyao": (1, 1),
    "pinfu": (1, 0),
    "iipeikou": (1, 0),
    "yakuhai_haku": (1, 1),
    "yakuhai_hatsu": (1, 1),
    "yakuhai_chun": (1, 1),
    "yakuhai_seat_wind": (1, 1),
    "yakuhai_round_wind": (1, 1),
    "rinshan": (1, 1),
    "haitei": (1, 1),
    "houtei": (1, 1),
    "chankan": (1, 1),
    "double_riichi": (2, 0),
    "chiitoitsu": (2, 0),
    "sanshoku": (2, 1),
    "ittsu": (2, 1),
    "chanta": (2, 1),
    "toitoi": (2, 2),
    "sanankou": (2, 2),
    "shousangen": (2, 2),
    "honroutou": (2, 2),
    "sanshoku_doukou": (2, 2),
    "sankantsu": (2, 2),
    "honitsu": (3, 2),
    "junchan": (3, 2),
    "ryanpeikou": (3, 0),
    "chinitsu": (6, 5),
}
NEKO_YAKUMAN = [
    "tenhou",
    "chiihou",
    "renhou",
    "suuankou",
    "kokushi",
    "daisangen",
    "shousuushii",
    "daisuushii",
    "tsuuiisou",
    "chinroutou",
    "ryuuiisou",
    "suukantsu",
    "chuuren",
]


def table_of(preset):
    per_hand, groups = han_table(load_rules(preset).hand)
    rows = list(per_hand) + [r for g in groups for r in g]
    return {y.id: (c, o, m) for y, c, o, m, _per_wait in rows}


def yaku(out):
    assert out["ok"], out
    return {y["name"]: y["han"] for y in out["yaku"]}


@pytest.mark.parametrize("preset", ["nekohouse-4a", "nekohouse-4b", "nekohouse-3a"])
def test_nekohouse_yaku_list_han(preset):
    """002 麻雀役一覧 翻数 (門前/鳴き) for every ordinary yaku, and 役満 for the limit hands."""
    table = table_of(preset)
    for yid, (closed, opened) in NEKO_TABLE.items():
        assert table[yid][:2] == (closed, opened), yid
    for yid in NEKO_YAKUMAN:
        assert table[yid][2] == 1, yid  # 002 4A 「人和は役満とします」 included


def test_3b_chanta_honroutou_junchan_overrides():
    """002 3B 「チャンタ, 混老頭は門前 4翻 / 鳴き 2翻, 純チャンは門前 6翻 / 鳴き 4翻とします」."""
    table = table_of("nekohouse-3b")
    assert (
        table["chanta"][:2] == (4, 2)
        and table["honroutou"][:2] == (4, 2)
        and table["junchan"][:2] == (6, 4)
    )
    closed_chanta = score("123789p11999s777z", "3p", rules="nekohouse-3b")
    assert yaku(closed_chanta)["chanta"] == 4
    open_junchan = score(
        "11m123999p", "2p", [("pon", "999s"), ("pon", "111s")], rules="nekohouse-3b"
    )
    assert yaku(open_junchan)["junchan"] == 4


def test_3b_north_is_always_yakuhai():
    """002 3B 「北は常時役牌です」 (and in 3A it is not)."""
    hand = ("123999p11999s444z", "1s")
    assert yaku(score(*hand, rules="nekohouse-3b"))["yakuhai_north"] == 1
    assert "yakuhai_north" not in yaku(score(*hand, rules="nekohouse-3a", riichi=True))


def test_3b_open_riichi_is_two_han_and_refused_elsewhere():
    """002 3B 「オープン立直(2翻)あり」; no other preset has it."""
    out = score("123789p11999s777z", "3p", rules="nekohouse-3b", open_riichi=True, riichi=True)
    assert yaku(out)["open_riichi"] == 2 and "riichi" not in yaku(out)
    refused = score("123789p11999s777z", "3p", rules="nekohouse-4a", open_riichi=True, riichi=True)
    assert (
        refused["error"]["code"] == "invalid_input" and "open riichi" in refused["error"]["message"]
    )


def test_3b_flowers_are_nukidora():
    """002 3B 「花牌は抜きドラです」: each flower set aside is a dora; there are four."""
    out = score("123789p11999s777z", "3p", rules="nekohouse-3b", nukidora=3)
    assert yaku(out)["nukidora"] == 3
    assert (
        score("123789p11999s777z", "3p", rules="nekohouse-3b", nukidora=5)["error"]["code"]
        == "invalid_input"
    )


def test_3a_north_nukidora_and_the_9m_indicator():
    """002 3A 「北は抜きドラです」; two-through-eight man are out of the set, so 1m points at 9m."""
    removed = frozenset(range(1, 8))
    assert next_kind(0, removed) == 8 and next_kind(8, removed) == 0
    out = score(
        "99m123789p111999s", "9m", rules="nekohouse-3a", riichi=True, nukidora=2, dora="1m4z"
    )
    got = yaku(out)
    # 99m pair: 2 dora from the 1m indicator; 4z indicator points at East (not in hand)
    assert got["dora"] == 2 and got["nukidora"] == 2
    # the 3z indicator points at North: each North set aside counts again
    again = yaku(
        score("99m123789p111999s", "9m", rules="nekohouse-3a", riichi=True, nukidora=2, dora="3z")
    )
    assert again["dora"] == 2 and again["nukidora"] == 2


def test_3a_refuses_chi_and_two_to_eight_man():
    """002 3A 「チーはできません」「二萬～八萬…は使用しません」."""
    chi = score("11m123789p", "1m", [("chi", "789s"), ("pon", "111z")], rules="nekohouse-3a")
    assert chi["error"]["code"] == "invalid_input"
    man = score("234m123789p11999s", "2m", rules="nekohouse-3a")
    assert man["error"]["code"] == "invalid_tiles" and "2m" in man["error"]["message"]


def test_pocchi_takes_the_best_tile_after_riichi():
    """002 4B 「白ポッチあり。立直後にツモった場合★のみオールマイティ…高目取りで点数を計算します。
    赤牌には取れません」; 3B 「伍筒または伍索に取る場合は赤牌として扱います」."""
    # 123m 456p 56p 789s 44z waits on 4p (iipeikou) or 7p; the pocchi is written as 5z
    out4b = score(
        "123m45566p789s44z5z", "5z", rules="nekohouse-4b", riichi=True, tsumo=True, pocchi=True
    )
    assert out4b["pocchi_as"] == "4p" and "iipeikou" in yaku(out4b)
    not_red = score(
        "123m46p789s555s44z5z", "5z", rules="nekohouse-4b", riichi=True, tsumo=True, pocchi=True
    )
    assert not_red["pocchi_as"] == "5p" and "aka" not in yaku(not_red)
    red = score(
        "12378946p11999s5z", "5z", rules="nekohouse-3b", riichi=True, tsumo=True, pocchi=True
    )
    assert red["pocchi_as"] == "0p" and yaku(red)["aka"] == 1


def test_pocchi_needs_riichi_tsumo_and_a_pocchi_rule():
    line = dict(hand="123m45566p789s44z5z", win="5z", tsumo=True, pocchi=True)
    assert score(rules="nekohouse-4b", **line)["error"]["code"] == "invalid_input"  # no riichi
    assert score(rules="nekohouse-4a", riichi=True, **line)["error"]["code"] == "invalid_input"


def test_4b_chiitoitsu_may_use_four_of_a_kind_4a_not():
    """002 4B 「七対子の4枚使いが可能です」; 4A 「七対子の4枚使いはできません」."""
    hand = ("338888m99p6699s11z", "3m")
    assert yaku(score(*hand, rules="nekohouse-4b")) == {"chiitoitsu": 2}
    assert score(*hand, rules="nekohouse-4a")["error"]["code"] == "not_agari"


def test_nekohouse_single_yakuman_and_renhou_yakuman():
    """002 4A 「ダブル役満なし…」「人和は役満とします。国士無双の暗槓ロンは可能です」."""
    out = score("11555666777z", "1z", [("pon", "222z")], tsumo=True)
    assert out["yakuman"] == 1
    ren = score("45m123999p234s44z6m", "6m", renhou=True)
    assert ren["yakuman"] == 1 and ren["value"] == 32000
    assert score("19m19p19s12234567z", "1m", chankan=True, ankan_chankan=True)["yakuman"] == 1


# --------------------------------------------------------------------------- ブー麻雀
BOO = "nekohouse-boo"


def test_boo_wins_without_yaku():
    """002 ブー麻雀 「一翻縛りなし. 役なしでも上がれます」: a hand with no yaku is a 0-han win."""
    out = score("123m456p789s234s11z", "2s", rules=BOO)
    assert out["ok"] and out["han"] == 0 and out["yaku"] == []


def test_boo_red_five_is_a_yaku_and_dora_are_paid_per_tile():
    """「赤牌: ドラではなく1翻役として扱います. 赤伍筒1枚のみです」
    「ドラは役ではなく, 1枚につき場に1500点です」."""
    plain = score("123m406p789s234s11z", "2s", rules=BOO)
    assert yaku(plain) == {"aka": 1} and plain["han"] == 1
    with_dora = score("123m406p789s234s11z", "2s", rules=BOO, dora="1m")
    assert yaku(with_dora) == {"aka": 1} and with_dora["dora_count"] == 1
    assert with_dora["value"] == plain["value"] + 1500


def test_boo_mangan_yaku_and_mangan_cap():
    """「小三元, 混老頭, 三色同刻, 三槓子, 二盃口, 清一色: 満貫」「跳満以上の点数はありません」."""
    chin = score("12223445566789m", "9m", rules=BOO)
    assert yaku(chin)["chinitsu"] == 5 and chin["limit"] == "mangan" and chin["value"] == 8000
    ryan = score("11223344556688m", "8m", rules=BOO, riichi=True)
    assert yaku(ryan)["ryanpeikou"] == 5 and ryan["han"] > 5 and ryan["value"] == 8000


def test_boo_honitsu_two_han_open_or_closed():
    """「混一色: 2翻. 喰い下がりはありません」."""
    closed = score("123456789m11777z", "1m", rules=BOO)
    assert yaku(closed)["honitsu"] == 2
    opened = score("123456m11777z", "1m", [("chi", "789m")], rules=BOO)
    assert yaku(opened)["honitsu"] == 2


def test_boo_open_pinfu_20_fu_and_no_pinfu_tsumo():
    """「平和: 鳴いても成立します. 平和ツモはありません」
    「喰い平和のロン上がりは20符として計算します」."""
    opened = score("234m567p45699s", "4s", [("chi", "345s")], rules=BOO)
    assert yaku(opened) == {"pinfu": 1} and opened["fu"] == 20
    tsumo = score("234789m567p45677s", "7p", rules=BOO, tsumo=True)
    assert "pinfu" not in yaku(tsumo) and tsumo["fu"] == 30


def test_boo_no_ippatsu_ura_kan_dora_or_kuitan():
    """「喰いタン, 平和ツモ無しです. 一発, 裏ドラ, 槓ドラもありません」."""
    out = score("234789m567p45677s", "7p", rules=BOO, riichi=True, ippatsu=True, ura="3m")
    assert set(yaku(out)) == {"riichi", "pinfu"} and out["dora_count"] == 0
    two = score("234789m567p45677s", "7p", rules=BOO, dora="1m2m")
    assert two["error"]["code"] == "invalid_input" and "kan dora" in two["error"]["message"]
    kuitan = score("345m66m567p567s", "5s", [("chi", "567s")], rules=BOO)
    assert kuitan["ok"] and "tanyao" not in yaku(kuitan)


# --------------------------------------------------------------------------- #麻雀部
BU = "mahjongbu"


def test_mahjongbu_kazoe_is_sanbaiman():
    """001 役満 1 「数え役満はなしとする(11翻以上はすべて3倍満)」."""
    # riichi 1 + tsumo 1 + ryanpeikou 3 + chinitsu 6 + dora 2 (7m indicator, 88m) = 13 han
    line = dict(hand="11223344556688m", win="8m", riichi=True, tsumo=True, dora="7m")
    out = score(rules=BU, **line)
    assert out["han"] == 13 and out["limit"] == "sanbaiman"
    net = score(rules="netmahjong", **line)
    assert net["limit"] == "yakuman" and net["yakuman"] == 0


def test_mahjongbu_ryuuiisou_without_hatsu_and_houtei_separate():
    """001 役満 「緑一色:發を含まなくても成立」; 001 和了り役 lists 海底摸月 and 河底撈魚."""
    green = score("22233344466688s", "8s", rules=BU)
    assert "ryuuiisou" in yaku(green)
    strict = score(
        "22233344466688s", "8s", rules={"extends": BU, "hand": {"ryuuiisou_needs_hatsu": True}}
    )
    assert "ryuuiisou" not in yaku(strict)
    assert "houtei" in yaku(score("45m123999p234s44z6m", "6m", rules=BU, houtei=True))


def test_mahjongbu_only_combined_yakuman_are_double():
    """001 役満 2 「複数種類以上、同時成立する場合に限りダブル/トリプル役満等を認める」: a
    thirteen-sided kokushi alone is a single yakuman, daisangen + tsuuiisou a double."""
    assert score("119m19p19s1234567z", "1m", rules=BU)["yakuman"] == 1
    both = score("11555666777z", "1z", [("pon", "222z")], tsumo=True, rules=BU)
    assert both["yakuman"] == 2


def test_double_yakuman_hands_switch():
    """The switch making kokushi 13-sided, suuankou tanki, junsei chuuren, daisuushii double."""
    rules = {"extends": "netmahjong", "hand": {"double_yakuman_hands": True}}
    k13 = score("119m19p19s1234567z", "1m", rules=rules)
    assert yaku(k13) == {"kokushi_13": 26} and k13["yakuman"] == 2
    k1 = score("119m19p19s1234567z", "9m", rules=rules)
    assert k1["yakuman"] == 1
    tanki = score("111333m555p777s11z", "1z", rules=rules, tsumo=True)
    assert "suuankou_tanki" in yaku(tanki)
    junsei = score("11112345678999m", "1m", rules=rules)
    assert "junsei_chuuren" in yaku(junsei)


def test_han_override_must_name_a_yaku_and_two_numbers():
    from scoring.errors import RulesError

    with pytest.raises(RulesError, match="unknown yaku id"):
        load_rules({"extends": "netmahjong", "hand": {"han_override": {"chantaa": [4, 2]}}})
    with pytest.raises(RulesError, match="closed han, open han"):
        load_rules({"extends": "netmahjong", "hand": {"han_override": {"chanta": 4}}})
