"""Fu, line by line, as the ねこはうす 符計算ガイド (seeds/002_752de4ce5ec4d27d.txt) and the
Net Mahjong 符計算 (seeds/000_75219193aaae2e91.txt (4)) state them."""

from __future__ import annotations

import pytest

from scoring.hand import score_hand
from tests.support.hand import score


def fu_of(hand, win, melds=(), rules="nekohouse-4a", **flags):
    out = score(hand, win, melds, rules, **flags)
    assert out["ok"], out
    assert sum(f for _, f in out["fu_detail"]) == out["fu"], "the lines must add up to the total"
    return out["fu"], dict(out["fu_detail"])


# 002 2. 面子構成: 暗槓 32/16, 明槓 16/8,
# 暗刻 (ツモ和了での完成含む) 8/4, 明刻 (ロン和了での完成含む) 4/2
@pytest.mark.parametrize(
    "meld, line, fu",
    [
        (("ankan", "1111z"), "closed_kan 1z (terminal/honour)", 32),
        (("ankan", "6666m"), "closed_kan 6m", 16),
        (("minkan", "9999p"), "open_kan 9p (terminal/honour)", 16),
        (("kakan", "8888s"), "open_kan 8s", 8),
        (("pon", "777z"), "open_pon 7z (terminal/honour)", 4),
        (("pon", "444p"), "open_pon 4p", 2),
    ],
)
def test_set_fu_table(meld, line, fu):
    """002 符計算ガイド 2. 面子構成 (haitei gives every hand its yaku)."""
    _total, detail = fu_of("234m567p23455s", "5s", [meld], tsumo=True, haitei=True)
    assert detail[line] == fu


def test_triplet_completed_by_tsumo_is_concealed_by_ron_open():
    """002 「暗刻 (ツモ和了での完成含む)」「明刻 (ロン和了での完成含む)」: a shanpon win on 5z."""
    _, tsumo = fu_of("234m567p678s99s555z", "5z", tsumo=True)
    assert tsumo["closed_pon 5z (terminal/honour)"] == 8
    _, ron = fu_of("234m567p678s99s555z", "5z")
    assert ron["open_pon 5z (terminal/honour)"] == 4


def test_pair_fu_yakuhai_and_double_wind():
    """002 3. 雀頭: 連風牌 4符, それ以外の役牌 2符 (4A 「連風牌の雀頭は4符」);
    001 補足 3 「連風牌トイツは2符とする」."""
    _, round_only = fu_of("234m567p234678s11z", "8s", riichi=True)  # seat S, round E
    assert round_only["pair 1z (yakuhai)"] == 2
    line = {
        "hand": "234m567p234678s11z",
        "win": "8s",
        "seat_wind": "E",
        "round_wind": "E",
        "riichi": True,
    }
    assert dict(score_hand(line, "nekohouse-4a")["fu_detail"])["pair 1z (double wind)"] == 4
    assert dict(score_hand(line, "mahjongbu")["fu_detail"])["pair 1z (double wind)"] == 2


def test_ron_tsumo_and_wait_fu():
    """002 4. ロン 門前 10 / ツモ 2 (鳴きでも 2); 5. 嵌張, 辺張, 単騎 2符."""
    hand = "234m567p123789s55z"
    _, kanchan = fu_of(hand, "2s", riichi=True)
    assert kanchan["kanchan wait"] == 2 and kanchan["closed ron (門前加符)"] == 10
    assert fu_of(hand, "3s", riichi=True)[1]["penchan wait"] == 2
    assert fu_of(hand, "5z", riichi=True)[1]["tanki wait"] == 2
    _, opened = fu_of("567p123789s55z", "5z", [("chi", "234m")], tsumo=True, haitei=True)
    assert opened["tsumo"] == 2 and "closed ron (門前加符)" not in opened


def test_special_cases():
    """002 特例: 平和ツモ 20符; 七対子 25符; 鳴いて20符 (喰い平和形) は30符."""
    assert fu_of("234789m567p45677s", "7p", tsumo=True)[0] == 20
    assert fu_of("33556688m99p6699s", "6m")[0] == 25
    fu, detail = fu_of("234m567p45699s", "4s", [("chi", "345s")], rules="netmahjong", houtei=True)
    assert fu == 30 and detail["open hand with no fu (喰い平和形)"] == 10


def test_pinfu_ron_is_30():
    """000 (4) 符計算: base 20 + 門前 ron 10 = 30 for a pinfu ron."""
    assert fu_of("234789m567p45677s", "7p", rules="netmahjong") == (
        30,
        {"base (副底)": 20, "closed ron (門前加符)": 10},
    )


def test_rinshan_tsumo_fu_switch():
    """002 4A 「嶺上開花の場合はツモの2符を加えて計算します」; the switch can drop it."""
    hand = ("234m567p234s55z", "5z", [("ankan", "7777s")])
    _, detail = fu_of(*hand, tsumo=True, rinshan=True)
    assert detail["tsumo"] == 2
    _, without = fu_of(
        *hand,
        tsumo=True,
        rinshan=True,
        rules={"extends": "nekohouse-4a", "fu": {"rinshan_tsumo_fu": False}},
    )
    assert "tsumo" not in without


def test_highest_scoring_reading_is_chosen():
    """000 (2) 多面待ち: a hand that reads several ways is scored the way worth most:
    111222333m as three concealed triplets (sanankou, 3 han) beats three runs (iipeikou, 2 han)."""
    out = score_hand(
        {"hand": "111222333m456p77s", "win": "7s", "tsumo": True, "seat_wind": "S"}, "netmahjong"
    )
    assert sorted(y["name"] for y in out["yaku"]) == ["menzen_tsumo", "sanankou"]
    assert out["fu"] == 40  # 20 + 8 (111m) + 4 + 4 + 2 tanki + 2 tsumo
