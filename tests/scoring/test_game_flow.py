"""Game progression scenarios, one or more per rulebook line about the flow of a
game (files in shared/seeds/: 000 Net Mahjong, 001 #麻雀部, 002 ねこはうす,
003 beginner's guide, 004 国際ルール).  Each test quotes the line it checks.
"""

import pytest

from scoring.game import GameEventError, allowed_events, preview, replay, state_after
from scoring.rules import load_rules

P4 = ["A", "B", "C", "D"]
P3 = ["A", "B", "C"]


def start(preset):
    return [{"event": "start", "players": P3 if load_rules(preset).table.players == 3 else P4}]


def ron(winner, src, han=1, fu=30, **kw):
    return {
        "event": "win",
        "winners": [{"seat": winner, "han": han, "fu": fu, **kw.pop("w", {})}],
        "from": src,
        **kw,
    }


def tsumo(winner, han=1, fu=30, **kw):
    return {
        "event": "win",
        "winners": [{"seat": winner, "han": han, "fu": fu, **kw.pop("w", {})}],
        **kw,
    }


def draw(tenpai=(), riichi=(), **kw):
    return {"event": "draw", "tenpai": list(tenpai), "riichi": list(riichi), **kw}


def play(preset, *events):
    return replay(start(preset) + list(events), preset)


def state(preset, *events):
    return state_after(start(preset) + list(events), preset)


def refused(preset, *events):
    with pytest.raises(GameEventError) as e:
        play(preset, *events)
    return e.value


def pass_deal(preset, hands):
    """Events where each hand is a 1-han ron by the next seat off the dealer (the deal moves)."""
    n = load_rules(preset).table.players
    return [ron((d % n + 1) % n, d % n) for d in range(hands)]


# =========================================================================== 000 Net Mahjong
def test_nm_tonpuu_is_the_default_and_ends_after_east_4():
    # 000 (3) 半荘 【ローカルルール】「ネットマージャンでは、東風戦がデフォルト」
    out = play("netmahjong", *pass_deal("netmahjong", 4))
    assert out["finished"] and out["final"]["end_reason"] == "last_hand"
    assert [h["round"] for h in out["hands"]] == ["E1", "E2", "E3", "E4"]


def test_nm_dealer_rotation_and_round_labels():
    # 000 (3) 「親以外の人があがった場合、南家が新しい親になります。このときは、積み棒をなくします」
    s = state("netmahjong", draw(tenpai=[0]), ron(2, 0))
    assert (s.round, s.round_ja, s.dealer, s.honba) == ("E2", "東2局", 1, 0)
    assert s.seat_winds == ["N", "E", "S", "W"]


def test_nm_dealer_win_is_renchan_with_a_honba():
    # 000 (3) 「親があがった場合、親を続けることができます…100点棒を卓に置き、連荘を示します」
    s = state("netmahjong", ron(0, 1))
    assert (s.round, s.honba, s.dealer) == ("E1", 1, 0)


def test_nm_draw_renchan_on_dealer_tenpai_and_honba_either_way():
    # 000 (3) 荒牌 「親がテンパイの場合、連荘になりますが、ノーテンの場合 南家が親になります。
    #  どちらの場合にも積み棒を増やします」
    s = state("netmahjong", draw(tenpai=[0]))
    assert (s.round, s.honba) == ("E1", 1)
    s = state("netmahjong", draw(tenpai=[1]))
    assert (s.round, s.honba) == ("E2", 1)


@pytest.mark.parametrize(
    "tenpai,deltas",
    [
        ([0], [3000, -1000, -1000, -1000]),
        ([0, 1], [1500, 1500, -1500, -1500]),
        ([0, 1, 2], [1000, 1000, 1000, -3000]),
        ([], [0, 0, 0, 0]),
        ([0, 1, 2, 3], [0, 0, 0, 0]),
    ],
)
def test_nm_noten_payments(tenpai, deltas):
    # 000 (3) 荒牌 表 「3人 −3000 +1000 / 2人 −1500 +1500 / 1人 −1000 +3000」
    assert play("netmahjong", draw(tenpai=tenpai))["hands"][0]["deltas"] == deltas


def test_nm_deposits_carry_to_the_next_winner():
    # 000 (3) 「供託されたリーチ棒は、積み棒のところに置き次にあがった人が貰えます」
    out = play("netmahjong", draw(tenpai=[1, 2], riichi=[1, 2]), ron(3, 0))
    assert out["hands"][0]["kyoutaku"] == 2000
    last = out["hands"][1]
    # 1 han 30 fu = 1000, one honba = 300, two sticks = 2000
    assert last["deltas"] == [-1300, 0, 0, 3300] and last["kyoutaku"] == 0


def test_nm_honba_300_on_ron_100_each_on_tsumo():
    # 000 (4) 「300点×積み棒を加算」「100点×積み棒を加算した点数を…貰えます」
    out = play("netmahjong", draw(tenpai=[0]), draw(tenpai=[0]), tsumo(2, 1, 30))
    assert out["hands"][2]["deltas"] == [-700, -500, 1700, -500]
    out = play("netmahjong", draw(tenpai=[0]), ron(1, 2, 1, 30))
    assert out["hands"][1]["deltas"] == [0, 1300, -1300, 0]


def test_nm_double_ron_head_bump_takes_honba_deposits_and_renchan():
    # 000 (2) 「2人ともあがれますが、頭ハネされた人は、あがりの点数を貰うことはできますが、
    #  リーチ棒 積み棒連荘の権利は ありません」; 下家 first
    ev = {
        "event": "win",
        "from": 1,
        "riichi": [0],
        "winners": [{"seat": 0, "han": 2, "fu": 30}, {"seat": 2, "han": 1, "fu": 30}],
    }
    out = play("netmahjong", draw(tenpai=[0]), ev)
    h = out["hands"][1]
    # seat 2 is nearest the discarder's right: it takes the honba (300) and the stick
    assert h["deltas"] == [2900 - 1000, -2900 - 1000 - 300, 1000 + 300 + 1000, 0]
    s = state("netmahjong", draw(tenpai=[0]), ev)
    assert (s.round, s.dealer, s.honba) == ("E2", 1, 0)  # the dealer was head-bumped: no renchan


def test_nm_triple_ron_is_sanchahou():
    # 000 (2) 「3人がロンあがりしようとする場合は、三家和といって、流局になります」
    triple = {
        "event": "win",
        "from": 0,
        "winners": [{"seat": s, "han": 1, "fu": 30} for s in (1, 2, 3)],
    }
    e = refused("netmahjong", triple)
    assert e.line == 2 and "sanchahou" in str(e) and "multi_ron" in str(e)
    # 000 (3) 三家和 「親は、連荘できず、南家が親になります。この場合にも積み棒を増やします」
    s = state("netmahjong", {"event": "abort", "kind": "sanchahou", "riichi": [1]})
    assert (s.round, s.honba, s.kyoutaku) == ("E2", 1, 1000)


def test_nm_triple_ron_local_rule():
    # 000 (3) 三家和 【ローカルルール】「三家和なしの設定もできます…トリプルロンありになります」
    r = load_rules({"extends": "netmahjong", "game": {"multi_ron": "triple"}})
    triple = {
        "event": "win",
        "from": 0,
        "winners": [{"seat": s, "han": 1, "fu": 30} for s in (1, 2, 3)],
    }
    out = replay(start("netmahjong") + [triple], r)
    assert out["hands"][0]["deltas"] == [-3000, 1000, 1000, 1000]


@pytest.mark.parametrize("kind", ["suufon", "suukan"])
def test_nm_abortive_draws_move_the_deal(kind):
    # 000 (3) 四風連打/四槓流れ 「このときはノーテン罰符はありません。親は、連荘できず、南家が親になります」  # noqa: E501
    out = play("netmahjong", {"event": "abort", "kind": kind})
    assert out["hands"][0]["deltas"] == [0, 0, 0, 0]
    assert state("netmahjong", {"event": "abort", "kind": kind}).round == "E2"


@pytest.mark.parametrize("kind", ["kyuushu", "suucha_riichi"])
def test_nm_has_no_kyuushu_nor_four_riichi_abort(kind):
    # 000 (8) 「ネットマージャンでは、4人リーチでは流局しません」; 九種九牌 is not among its draws
    e = refused("netmahjong", {"event": "abort", "kind": kind, "riichi": [0, 1, 2, 3]})
    assert "abortive_draws" in str(e) and "line 2" in str(e)


def test_nm_bust_ends_the_game():
    # 000 (3) 「半荘の途中でも誰かの持ち点が0点未満になったらゲームが終了します(ブットビ)」
    out = play("netmahjong", ron(1, 0, 13, 0))
    assert out["final"]["end_reason"] == "bust" and out["hands"][0]["scores"][0] == -7000
    assert refused("netmahjong", ron(1, 0, 13, 0), draw()).line == 3


ZERO = [ron(1, 0, 8, 0), ron(2, 0, 5, 0), ron(3, 0, 1, 30)]  # seat 0: 25000-16000-8000-1000


def test_nm_exactly_zero_is_not_busted():
    # 000 (3) 「0点未満」: 0 points plays on
    s = state("netmahjong", *ZERO)
    assert s.scores[0] == 0 and not s.finished


def test_nm_agari_yame_is_optional_for_the_top_dealer():
    # 000 (3) あがりやめ 「最後の局…に親があがった場合、親がトップであれば、あがりやめを宣言して…終了することができます」  # noqa: E501
    ev = pass_deal("netmahjong", 3) + [ron(3, 0, 5, 0)]
    s = state("netmahjong", *ev)
    assert not s.finished and s.yame_offer == "agari_yame" and "end" in allowed_events(s)
    out = play("netmahjong", *ev, {"event": "end", "reason": "agari_yame"})
    assert out["finished"] and out["final"]["end_reason"] == "agari_yame"
    # playing on is allowed too: the same dealer again with a honba
    s2 = state("netmahjong", *ev, draw(tenpai=[3]))
    assert (s2.round, s2.honba) == ("E4", 2)


def test_nm_agari_yame_refused_when_the_dealer_is_not_top():
    ev = [ron(1, 0, 5, 0)] + pass_deal("netmahjong", 3)[1:] + [ron(3, 0, 1, 30)]
    e = refused("netmahjong", *ev, {"event": "end", "reason": "agari_yame"})
    assert e.line == 6 and "agari_yame is not possible" in str(e)


def test_nm_a_second_agari_yame_is_refused():
    ev = pass_deal("netmahjong", 3) + [ron(3, 0, 5, 0), {"event": "end", "reason": "agari_yame"}]
    e = refused("netmahjong", *ev, {"event": "end", "reason": "agari_yame"})
    assert "already over" in str(e) and e.line == 7


def test_nm_no_bust_local_rule_forbids_agari_yame():
    # 000 (3) 【ローカルルール】「ブットビなしの設定もできます。(ただしこの場合、あがりやめはなしになります)」  # noqa: E501
    from scoring.errors import RulesError

    assert load_rules({"extends": "netmahjong", "game": {"bust": False}}).game.agari_yame == (
        "forbidden"
    )
    with pytest.raises(RulesError, match="game.agari_yame = 'forbidden'"):
        load_rules({"extends": "netmahjong", "game": {"bust": False, "agari_yame": "optional"}})


def test_nm_riichi_noten_at_draw_is_chombo_mangan_reversed():
    # 000 (3) 荒牌 「リーチをかけた人は…ノーテンの場合は、チョンボになります」;
    # 錯和 「罰符は、満貫をツモあがりしたときの点数とちょうど逆」「リーチ棒は、リーチをかけた人に返されます」  # noqa: E501
    out = play("netmahjong", draw(tenpai=[2], riichi=[1, 2]))
    h = out["hands"][0]
    assert h["deltas"] == [4000, -8000, 2000, 2000] and h["kyoutaku"] == 0
    s = state("netmahjong", draw(tenpai=[2], riichi=[1, 2]))
    assert (s.round, s.honba) == ("E1", 0)  # 「局はなかったことになり、やりなおします」


def test_nm_dealer_chombo_pays_4000_all():
    # 000 (3) 錯和 「満貫払い」: a dealer's mangan tsumo is 4000 all
    assert play("netmahjong", {"event": "chombo", "seat": 0})["hands"][0]["deltas"] == [
        -12000,
        4000,
        4000,
        4000,
    ]


def test_nm_nagashi_mangan_is_a_mangan_tsumo():
    # 000 (5) 流し満貫 「満貫のツモあがりの扱いになります」
    out = play("netmahjong", draw(tenpai=[1], nagashi=[2]))
    assert out["hands"][0]["deltas"] == [-4000, -2000, 8000, -2000]


def test_nm_has_no_pao_by_default_and_a_local_rule_for_it():
    # 000 (8) 包 「ネットマージャンでは、包をなくしました」【ローカルルール】「包(パオ)ありの設定もできます」  # noqa: E501
    ev = tsumo(1, 0, 0, w={"yakuman": 1, "pao": 3})
    assert "pao" in str(refused("netmahjong", ev))
    r = load_rules({"extends": "netmahjong", "game": {"pao": True}})
    out = replay(start("netmahjong") + [ev], r)
    # 「確定させた人が放銃したものとして扱います」: seat 3 pays the whole 32000
    assert out["hands"][0]["deltas"] == [0, 32000, 0, -32000]


def test_nm_impossible_han_fu_refused():
    # contract: 「a han/fu pair that cannot exist such as 1 han 20 fu ron」
    e = refused("netmahjong", ron(1, 0, 1, 20))
    assert "1 han 20 fu" in str(e) and e.line == 2


def test_nm_riichi_needs_1000_points():
    # 000 (5) リーチ 「千点を卓に置き…リーチを宣言することができます」
    assert 0 not in state("netmahjong", *ZERO).riichi_able
    e = refused("netmahjong", *ZERO, draw(riichi=[0], tenpai=[0]))
    assert "riichi_short" in str(e) and e.line == 5


# =========================================================================== 001 #麻雀部
def test_mb_hanchan_east_south():
    # 001 基本ルール 1 「東南戦半荘戦」; 19 「オーラスの場合終局」; 20 「西入なし」
    out = play("mahjongbu", *pass_deal("mahjongbu", 8))
    assert out["finished"] and out["hands"][-1]["round"] == "S4"
    assert out["final"]["end_reason"] == "last_hand"


def test_mb_no_abortive_draws():
    # 001 基本ルール 9 「途中流局なし。(トリプルロン、九種九牌、四風連打、四開槓、4人リーチ等)」
    for kind in ("kyuushu", "suufon", "suukan", "suucha_riichi", "sanchahou"):
        assert "001 基本ルール 9" in str(
            refused("mahjongbu", {"event": "abort", "kind": kind, "riichi": [0, 1, 2, 3]})
        )


def test_mb_no_agari_yame_nor_tenpai_yame():
    # 001 基本ルール 10 「オーラスの親の和了り止めなし。テンパイ止めなし」
    ev = pass_deal("mahjongbu", 7) + [ron(3, 0, 8, 0)]
    s = state("mahjongbu", *ev)
    assert not s.finished and s.round == "S4" and s.yame_offer == ""
    assert "agari_yame" in str(refused("mahjongbu", *ev, {"event": "end", "reason": "agari_yame"}))
    s = state("mahjongbu", *pass_deal("mahjongbu", 7), draw(tenpai=[3]))
    assert not s.finished and s.round == "S4"


def test_mb_no_bust():
    # 001 基本ルール 11 「ハコ割れ終了なし」
    s = state("mahjongbu", ron(1, 0, 0, 0, w={"yakuman": 1}))
    assert not s.finished and s.scores[0] == -7000 and s.round == "E2"


def test_mb_atamahane_only():
    # 001 基本ルール 12 「ダブロン、トリプルロンなし。上家の頭ハネとなる」
    ev = {
        "event": "win",
        "from": 0,
        "winners": [{"seat": 3, "han": 1, "fu": 30}, {"seat": 2, "han": 1, "fu": 30}],
    }
    e = refused("mahjongbu", ev)
    assert "seat 2" in str(e) and "atamahane" in str(e)


def test_mb_noten_3000_and_honba_300():
    # 001 基本ルール 15 「ノーテン罰符は場3.000点。形式テンパイでよい」; 16 「本場は1本につき300点」
    out = play("mahjongbu", draw(tenpai=[0]), ron(2, 1, 1, 30))
    assert out["hands"][0]["deltas"] == [3000, -1000, -1000, -1000]
    assert out["hands"][1]["deltas"] == [0, -1300, 1300, 0]


def test_mb_renchan_rule():
    # 001 基本ルール 19 「連荘は親の和了り、または流局時に親がテンパイしていれば成立。
    #  流局時に親がノーテンであるか、子の和了りがあれば、次局へ移る」
    assert state("mahjongbu", ron(0, 1)).round == "E1"
    assert state("mahjongbu", draw(tenpai=[0])).round == "E1"
    assert state("mahjongbu", draw(tenpai=[1])).round == "E2"
    assert state("mahjongbu", ron(2, 1)).round == "E2"


def test_mb_leftover_sticks_go_to_the_top():
    # 001 リーチ 6 「オーラスが流局した場合リーチ棒はトップ者に渡る」
    ev = pass_deal("mahjongbu", 7) + [draw(tenpai=[1], riichi=[1])]
    out = play("mahjongbu", *ev)
    assert out["finished"] and out["state"]["kyoutaku"] == 1000
    assert out["final"]["leftover_deposits"] == 0
    top = out["final"]["ranks"].index(1)
    assert out["final"]["scores"][top] == out["hands"][-1]["scores"][top] + 1000
    assert sum(out["final"]["result"]) == 0


def test_mb_pao_full_on_tsumo_half_on_ron():
    # 001 パオ 1 「ツモ和了ったら責任払い、別の放銃者がいたら折半払い」
    out = play("mahjongbu", tsumo(1, 0, 0, w={"yakuman": 1, "pao": 2}))
    assert out["hands"][0]["deltas"] == [0, 32000, -32000, 0]
    out = play("mahjongbu", ron(1, 3, 0, 0, w={"yakuman": 1, "pao": 2}))
    assert out["hands"][0]["deltas"] == [0, 32000, -16000, -16000]


def test_mb_chombo_4000_each_same_dealer_deposits_back():
    # 001 チョンボ 1 「親子に関わらず他家に4,000点ずつ、計12,000点支払」;
    # 2 「積棒は増えず、同じ親での再ゲーム…リーチ棒などは出した本人に戻る」
    ev = [
        draw(tenpai=[0]),
        {"event": "penalty", "seat": 2, "kind": "deposit_1000"},
        {"event": "chombo", "seat": 1},
    ]
    out = play("mahjongbu", *ev)
    assert out["hands"][2]["deltas"] == [4000, -12000, 4000 + 1000, 4000]
    s = state("mahjongbu", *ev)
    assert (s.round, s.honba, s.kyoutaku) == ("E1", 1, 0)


def test_mb_agari_houki_cannot_win_or_declare_tenpai():
    # 001 和了り放棄 1 「和了り・テンパイ宣言・ポン・チー・カン・リーチの行為は禁止される」
    houki = {"event": "penalty", "seat": 1, "kind": "agari_houki"}
    assert "agari-houki" in str(refused("mahjongbu", houki, ron(1, 0)))
    assert "agari-houki" in str(refused("mahjongbu", houki, draw(tenpai=[1])))
    # the next hand it is lifted
    assert not state("mahjongbu", houki, draw(tenpai=[0]), ron(1, 0)).finished


def test_mb_deposit_penalty_1000():
    # 001 1000点供託 1 「1,000点の罰符を支払う。罰符は供託として扱う」
    out = play("mahjongbu", {"event": "penalty", "seat": 3, "kind": "deposit_1000"}, ron(1, 0))
    assert out["hands"][0]["deltas"] == [0, 0, 0, -1000] and out["hands"][0]["kyoutaku"] == 1000
    assert out["hands"][1]["deltas"] == [-1000, 2000, 0, 0]


def test_mb_deposit_penalty_is_1000_even_under_1000_and_no_bust():
    # 001 1000点供託 1 「1,000点の罰符を支払う。罰符は供託として扱う。」: the penalty is 1,000
    # points whatever the player holds (ねこはうす's 「持ち点すべての供託」 is not 001's), and
    # 001 基本ルール 11 「ハコ割れ終了なし」 keeps the game going below zero
    ev = [ron(1, 0, 8, 0), ron(2, 0, 3, 50), ron(3, 0, 1, 70)]  # seat 0 down to 300
    assert state("mahjongbu", *ev).scores[0] == 300
    out = play("mahjongbu", *ev, {"event": "penalty", "seat": 0, "kind": "deposit_1000"})
    assert out["hands"][-1]["deltas"] == [-1000, 0, 0, 0]
    assert out["hands"][-1]["kyoutaku"] == 1000 and out["hands"][-1]["scores"][0] == -700
    assert not out["finished"]
    assert load_rules("mahjongbu").game.deposit_penalty_short == "full"


def test_deposit_penalty_short_per_preset():
    # 001 1000点供託 1 「1,000点の罰符を支払う」 against 002 「発覚した時点で持ち点が1000点未満の
    # 場合は持ち点すべての供託となります」 (4A, 4B, 3A, 3B)
    assert load_rules("mahjongbu").game.deposit_penalty_short == "full"
    for preset in ("nekohouse-4a", "nekohouse-4b", "nekohouse-3a", "nekohouse-3b"):
        assert load_rules(preset).game.deposit_penalty_short == "all_in", preset


# =========================================================================== 002 ねこはうす
def test_nh4a_west_entry_when_all_below_30000():
    # 002 4A 「南4局終了時全員が3万点未満のとき西入し、1人以上が3万点以上となるか西4局が終了した時点でゲーム終了」  # noqa: E501
    ev = pass_deal("nekohouse-4a", 8)  # 1000-point rons: nobody reaches 30000
    s = state("nekohouse-4a", *ev)
    assert not s.finished and s.round == "W1" and s.round_ja == "西1局"
    out = play("nekohouse-4a", *ev, *pass_deal("nekohouse-4a", 4))
    assert out["finished"] and out["hands"][-1]["round"] == "W4"
    s = state("nekohouse-4a", *ev, ron(1, 0, 5, 0))
    assert s.finished and s.end_reason == "extension_target"


def test_nh4a_no_west_when_someone_has_30000():
    out = play("nekohouse-4a", ron(1, 0, 5, 0), *pass_deal("nekohouse-4a", 8)[1:])
    assert out["finished"] and out["hands"][-1]["round"] == "S4"


def test_nh4b_has_no_west_round():
    # 002 4B 「西入はありません」
    assert play("nekohouse-4b", *pass_deal("nekohouse-4b", 8))["finished"]


def test_nh4a_bust():
    # 002 4A 「途中で1人以上の持ち点が0点未満となった場合ゲーム終了です」
    assert play("nekohouse-4a", ron(1, 0, 13, 0))["final"]["end_reason"] == "bust"


def test_nh4b_ends_at_60000():
    # 002 4B 「途中で1人以上の持ち点が0点未満または6万点以上となった場合ゲーム終了です」
    s = state("nekohouse-4b", ron(1, 0, 8, 0), ron(1, 2, 8, 0))
    assert s.scores[1] >= 60000 and s.end_reason == "points"


def test_nh_tenpai_renchan():
    # 002 4A 「聴牌連荘です。形式聴牌も有効です」
    assert state("nekohouse-4a", draw(tenpai=[0])).round == "E1"
    assert state("nekohouse-4a", draw(tenpai=[1])).round == "E2"


def test_nh_agari_yame_forced_for_the_leading_dealer_only():
    # 002 4A 「オーラスの親がトップの場合、和了やめおよび聴牌やめは強制です。2着以下の場合はできません」  # noqa: E501
    ev = pass_deal("nekohouse-4a", 7)
    won = state("nekohouse-4a", ron(3, 1, 5, 0), *ev[1:], ron(3, 0, 1, 30))
    assert won.finished and won.end_reason == "agari_yame"
    tenpai = state("nekohouse-4a", ron(3, 1, 5, 0), *ev[1:], draw(tenpai=[3]))
    assert tenpai.finished and tenpai.end_reason == "tenpai_yame"
    behind = state("nekohouse-4a", ron(1, 3, 5, 0), *ev[1:], draw(tenpai=[3]))
    assert not behind.finished and behind.round == "S4"
    assert "agari_yame" in str(
        refused(
            "nekohouse-4a",
            ron(1, 3, 5, 0),
            *ev[1:],
            ron(3, 0, 1, 30),
            {"event": "end", "reason": "agari_yame"},
        )
    )


def test_nh_noten_3000_and_honba_300():
    # 002 4A 「聴牌料は場に3000点、積符は300点です」
    out = play("nekohouse-4a", draw(tenpai=[0, 1]), ron(2, 3))
    assert out["hands"][0]["deltas"] == [1500, 1500, -1500, -1500]
    assert out["hands"][1]["deltas"] == [0, 0, 1300, -1300]


def test_nh4b_honba_1500():
    # 002 4B 「積符は場に1500点です」
    out = play("nekohouse-4b", draw(tenpai=[0]), ron(2, 3))
    assert out["hands"][1]["deltas"][2] == 1000 + 1500


def test_nh_short_riichi_deposits_everything():
    # 002 4A 「持ち点が1000点未満の場合、持ち点をすべて供託して立直が可能です」
    ev2 = [ron(1, 0, 8, 0), ron(2, 0, 3, 50), ron(3, 0, 1, 70)]  # seat 0: 25000-16000-6400-2300
    s = state("nekohouse-4a", *ev2)
    assert s.scores[0] == 300 and 0 in s.riichi_able
    out = play("nekohouse-4a", *ev2, draw(tenpai=[0], riichi=[0]))
    assert out["hands"][-1]["kyoutaku"] == 300


def test_nh_double_and_triple_ron_with_head_bump():
    # 002 4A 「ダブルロン、トリロンあり。親権、積符、供託点は頭ハネです」
    triple = {
        "event": "win",
        "from": 1,
        "riichi": [3],
        "winners": [{"seat": s, "han": 1, "fu": 30} for s in (0, 2, 3)],
    }
    out = play("nekohouse-4a", draw(tenpai=[0]), triple)
    # seat 2 is nearest the discarder's right: honba 300 and the stick
    assert out["hands"][1]["deltas"] == [1500, -1500 - 1000 - 1000 - 300, 1000 + 300 + 1000, 0]
    s = state("nekohouse-4a", draw(tenpai=[0]), triple)
    assert s.round == "E2"  # 親権 is head-bumped too


def test_nh_abortive_draws_are_renchan():
    # 002 4A 「途中流局は九種九牌、四風連打、四槓散了、四家立直に適用します。無条件に連荘となります」  # noqa: E501
    for kind in ("kyuushu", "suufon", "suukan"):
        s = state("nekohouse-4a", {"event": "abort", "kind": kind})
        assert (s.round, s.honba) == ("E1", 1)
    s = state("nekohouse-4a", {"event": "abort", "kind": "suucha_riichi", "riichi": [0, 1, 2, 3]})
    assert s.kyoutaku == 4000


def test_nh4b_only_kyuushu():
    # 002 4B 「途中流局は九種九牌のみに適用します」
    assert state("nekohouse-4b", {"event": "abort", "kind": "kyuushu"}).round == "E1"
    assert "abortive_draws" in str(refused("nekohouse-4b", {"event": "abort", "kind": "suufon"}))


def test_nh_chombo_3000_all_four_player():
    # 002 4A 「チョンボは親、子にかかわらず3000オールの支払いとします」
    assert play("nekohouse-4a", {"event": "chombo", "seat": 2})["hands"][0]["deltas"] == [
        3000,
        3000,
        -9000,
        3000,
    ]


def test_nh_nagashi():
    # 002 4A 「流し満貫あり」
    assert play("nekohouse-4a", draw(nagashi=[1]))["hands"][0]["deltas"] == [
        -4000,
        8000,
        -2000,
        -2000,
    ]


def test_nh_pao_first_completed():
    # 002 4A 「包則は大三元、大四喜、四槓子のうち最初に成立したものに適用します」
    out = play("nekohouse-4a", ron(2, 0, 0, 0, w={"yakuman": 1, "pao": 1}))
    assert out["hands"][0]["deltas"] == [-16000, -16000, 32000, 0]


# --- three-player
def test_nh3a_three_player_rotation_south_3_last():
    # 002 3A 「三人打ち半荘戦」「南3局終了時全員が4万点未満のとき西入」
    ev = pass_deal("nekohouse-3a", 6)
    s = state("nekohouse-3a", *ev)
    assert s.round == "W1"  # everyone below 40000
    out = play("nekohouse-3a", *ev, *pass_deal("nekohouse-3a", 3))
    assert out["finished"] and out["hands"][-1]["round"] == "W3"
    assert [h["round"] for h in out["hands"]][:6] == ["E1", "E2", "E3", "S1", "S2", "S3"]


def test_nh3b_ends_after_south_3():
    # 002 3B 「西入はありません」
    out = play("nekohouse-3b", *pass_deal("nekohouse-3b", 6))
    assert out["finished"] and out["hands"][-1]["round"] == "S3"


def test_nh3_noten_2000():
    # 002 3A 「聴牌料は場に2000点」
    assert play("nekohouse-3a", draw(tenpai=[0]))["hands"][0]["deltas"] == [2000, -1000, -1000]
    assert play("nekohouse-3a", draw(tenpai=[0, 1]))["hands"][0]["deltas"] == [1000, 1000, -2000]


def test_nh3_chombo_6000_all():
    # 002 3A 「チョンボは親、子にかかわらず6000オールの支払いとします」
    assert play("nekohouse-3a", {"event": "chombo", "seat": 1})["hands"][0]["deltas"] == [
        6000,
        -12000,
        6000,
    ]


def test_nh3b_nagashi_is_yakuman():
    # 002 3B 「流しは役満とします」
    out = play("nekohouse-3b", draw(nagashi=[0]))
    assert out["hands"][0]["deltas"][0] >= 32000


def test_nh3b_honba_ron_1000():
    # 002 3B 「積符はロン1000点、ツモ1000オールです」
    out = play("nekohouse-3b", draw(tenpai=[0]), ron(1, 2))
    assert out["hands"][1]["deltas"][1] == 1000 + 1000


# --- ブー麻雀
def test_boo_renchan_only_on_a_win():
    # 002 ブー麻雀 「上がり連荘です」
    assert state("nekohouse-boo", draw(tenpai=[0])).round == "E2"
    assert state("nekohouse-boo", ron(0, 1)).round == "E1"


def test_boo_ends_at_16000():
    # 002 ブー麻雀 「1人以上の持ち点が16000点以上または0点未満となるか, 南4局が終了すればゲーム終了」  # noqa: E501
    s = state("nekohouse-boo", tsumo(1, 5, 0))  # mangan tsumo: B 16000, the rest sink
    assert s.scores == [4000, 16000, 6000, 6000] and s.finished and s.end_reason == "points"


def test_boo_no_noten_payments_and_riichi_100():
    # 002 ブー麻雀 「聴牌料はなく」「立直料は100点です」
    out = play("nekohouse-boo", draw(tenpai=[1], riichi=[2]))
    assert out["hands"][0]["deltas"] == [0, 0, -100, 0] and out["hands"][0]["kyoutaku"] == 100


def test_boo_riichi_noten_is_not_chombo():
    # 002 ブー麻雀 「ノーテンでも立直が可能です」
    assert state("nekohouse-boo", draw(tenpai=[], riichi=[1])).kyoutaku == 100


def test_boo_yakuman_ends_the_game_as_double_maru_a():
    # 002 ブー麻雀 「役満は無条件にゲーム終了となり, 達成者のダブルマルAとします」
    out = play("nekohouse-boo", tsumo(2, 0, 0, w={"yakuman": 1}))
    assert out["finished"] and out["final"]["end_reason"] == "yakuman"
    assert out["final"]["victory_points"] == [-6, -6, 18, -6]


def test_boo_atamahane_and_no_nagashi():
    # 002 ブー麻雀 「ダブルロン, トリロンはいずれも頭ハネです」「流し満貫はありません」
    ev = {
        "event": "win",
        "from": 0,
        "winners": [{"seat": 1, "han": 1, "fu": 30}, {"seat": 2, "han": 1, "fu": 30}],
    }
    assert "atamahane" in str(refused("nekohouse-boo", ev))
    assert "nagashi" in str(refused("nekohouse-boo", draw(nagashi=[1])))


def test_boo_chombo_is_one_victory_point_to_each():
    # 002 ブー麻雀（続き） 「チョンボは通算成績を計算する場合は他家に各1勝利点の支払い」
    out = play("nekohouse-boo", {"event": "chombo", "seat": 1}, *pass_deal("nekohouse-boo", 8))
    assert out["finished"]
    plain = play("nekohouse-boo", *pass_deal("nekohouse-boo", 8))
    diff = [
        a - b
        for a, b in zip(
            out["final"]["victory_points"], plain["final"]["victory_points"], strict=True
        )
    ]
    assert diff == [1, -3, 1, 1]


def test_boo_dabuken_in_and_out():
    # 002 ブー麻雀（続き） 「マルA以上の場合は次のゲームでも続けてマルA以上を獲得した際ダブルマルA」;  # noqa: E501
    # 「トップ者は次のゲームの起家となります」
    ev = tsumo(1, 5, 0)  # mangan tsumo: B 16000 ends it, everyone else sinks: マルA
    first = play("nekohouse-boo", ev)["final"]
    assert first["victory_points"] == [-3, 9, -3, -3]
    assert first["dabuken"] == "B" and first["next_first_dealer"] == "B"
    again = replay([{"event": "start", "players": P4, "dabuken": "B"}, ev], "nekohouse-boo")
    assert again["final"]["victory_points"] == [-6, 18, -6, -6]


# =========================================================================== 003 simple, 004 MCR
def test_simple_one_han_is_1500():
    # 003 点数 「1飜 1,500」
    out = play("simple", ron(1, 0, 1, 30))
    assert out["hands"][0]["deltas"] == [-1500, 1500, 0, 0]


def test_mcr_sixteen_hands_no_renchan():
    # 004 大前提 「自風は局毎に交代します」: the deal moves every hand, four winds of four
    ev = [{"event": "win", "winners": [{"seat": 0, "fan": 8}]}] * 16
    out = play("mcr", *ev)
    assert out["finished"] and len(out["hands"]) == 16 and out["hands"][-1]["round"] == "N4"


def test_mcr_payments_8_plus():
    # 004 点数計算 「ロン上がりの場合、放銃者は全点を、残りのプレイヤーは1人につき8点を…支払います」
    out = play("mcr", {"event": "win", "winners": [{"seat": 1, "fan": 10}], "from": 0})
    assert out["hands"][0]["deltas"] == [-18, 34, -8, -8]
    out = play("mcr", {"event": "win", "winners": [{"seat": 1, "fan": 10}]})
    assert out["hands"][0]["deltas"] == [-18, 54, -18, -18]
    assert "8-fan" in str(refused("mcr", {"event": "win", "winners": [{"seat": 1, "fan": 7}]}))


# =========================================================================== API
def test_preview_does_not_commit():
    events = start("netmahjong") + [draw(tenpai=[0])]
    p = preview(events, ron(1, 0, 2, 30), "netmahjong")
    assert p["deltas"] == [-2300, 2300, 0, 0]
    assert p["state"]["round"] == "E2"
    assert state_after(events, "netmahjong").round == "E1"


def test_events_before_start_and_unknown_events_refused():
    with pytest.raises(GameEventError, match="line 1"):
        replay([draw()], "netmahjong")
    with pytest.raises(GameEventError, match="'event' must be one of"):
        replay(start("netmahjong") + [{"event": "pon"}], "netmahjong")


def test_nothing_after_a_refused_event_is_applied():
    e = refused("netmahjong", ron(1, 0, 1, 20), ron(2, 0))
    assert e.line == 2


# =========================================================================== more rule lines
def test_mb_stacked_yakuman_pao_covers_one_yakuman():
    # 001 役満 2 「複数種類以上、同時成立する場合に限りダブル/トリプル役満等を認める」 with
    # 001 パオ 1 「ツモ和了ったら責任払い」: the responsible player pays one yakuman in full,
    # the second yakuman is an ordinary tsumo (8000/16000 from the non-dealer's tsumo)
    out = play("mahjongbu", tsumo(1, 0, 0, w={"yakuman": 2, "pao": 2}))
    assert out["hands"][0]["deltas"] == [-16000, 64000, -32000 - 8000, -8000]


def test_mb_riichi_stick_and_noten_riichi_chombo():
    # 001 リーチ 1 「リーチ棒は1.000点」; 5 「ノーテンリーチは流局時にチョンボ」 (4000 to each)
    out = play("mahjongbu", draw(tenpai=[0], riichi=[0]))
    assert out["hands"][0]["deltas"] == [-1000 + 3000, -1000, -1000, -1000]
    out = play("mahjongbu", draw(tenpai=[0], riichi=[2]))
    assert out["hands"][0]["deltas"] == [4000, 4000, -12000, 4000]


def test_nh_deposit_penalty_takes_everything_under_1000():
    # 002 4A 「発覚した時点で持ち点が1000点未満の場合は持ち点すべての供託となります」
    ev = [ron(1, 0, 8, 0), ron(2, 0, 3, 50), ron(3, 0, 1, 70)]  # seat 0 down to 300
    out = play("nekohouse-4a", *ev, {"event": "penalty", "seat": 0, "kind": "deposit_1000"})
    assert out["hands"][-1]["deltas"] == [-300, 0, 0, 0] and out["hands"][-1]["kyoutaku"] == 300


def test_nh3b_only_kyuushu():
    # 002 3B 「途中流局は九種九牌のみに適用します。無条件に連荘となります」
    assert state("nekohouse-3b", {"event": "abort", "kind": "kyuushu"}).round == "E1"
    assert "abortive_draws" in str(refused("nekohouse-3b", {"event": "abort", "kind": "suukan"}))


def test_boo_riichi_with_no_points_deposits_nothing():
    # 002 ブー麻雀 「立直料は100点です. 持ち点が0点の場合, 供託なしで立直が可能です」
    ev = [ron(1, 0, 2, 30), ron(2, 0, 2, 30), ron(3, 0, 2, 30), ron(1, 0, 2, 30)]
    s = state("nekohouse-boo", *ev)
    assert s.scores[0] == 0 and not s.finished and 0 in s.riichi_able
    out = play("nekohouse-boo", *ev, draw(riichi=[0, 1]))
    assert out["hands"][-1]["deltas"] == [0, -100, 0, 0] and out["hands"][-1]["kyoutaku"] == 100


def test_boo_abortive_draws_are_renchan():
    # 002 ブー麻雀 「途中流局は九種九牌, 四風連打, 四槓散了, 四家立直に適用します. 無条件に連荘となります」  # noqa: E501
    s = state("nekohouse-boo", {"event": "abort", "kind": "suufon"})
    assert (s.round, s.honba) == ("E1", 1)


def test_boo_yakuless_win_gets_no_honba_and_honba_go_up():
    # 002 ブー麻雀 「積符は場に1500点です. ただし, 役なしの上がりには積符は加算されず,
    # 流局時と同様に次局の積符が増えます」
    bare = play("nekohouse-boo", ron(2, 3, 0, 30))["hands"][0]["deltas"]
    out = play("nekohouse-boo", draw(), ron(2, 3, 0, 30))
    assert out["hands"][1]["deltas"] == bare  # one honba on the table, none paid
    s = state("nekohouse-boo", draw(), ron(2, 3, 0, 30))
    assert s.honba == 2
    with_yaku = play("nekohouse-boo", draw(), ron(2, 3, 1, 30))
    assert with_yaku["hands"][1]["deltas"][2] == 1000 + 1500
    assert state("nekohouse-boo", draw(), ron(2, 3, 1, 30)).honba == 0


def test_simple_dealer_rotation_and_four_wind_length():
    # 003 「1つの局が終了すると、それまで南家だったプレイヤーが次の局の東家となります」;
    # 「北場で終了するゲームを「一荘戦」と呼びます」 -> game.length = "issou"
    s = state("simple", ron(3, 0))
    assert s.dealer == 1 and s.round == "E2"
    r = load_rules({"extends": "simple", "game": {"length": "issou"}})
    out = replay(start("simple") + pass_deal("simple", 16), r)
    assert out["finished"] and out["hands"][-1]["round"] == "N4"


def test_nm_chips_from_the_discarder_or_from_everyone():
    # 000 (7) チップ 「ツモあがりの場合全員から…枚数づつ、ロンあがりの場合放銃者から…枚数だけ」
    assert state("netmahjong", ron(1, 0, w={"chips": 2})).chips == [-2, 2, 0, 0]
    assert state("netmahjong", tsumo(1, w={"chips": 1})).chips == [-1, 3, -1, -1]


def test_nm_pao_tsumo_chips_paid_as_if_dealt_in():
    # 000 (8) 包 【ローカルルール】「役満御祝儀は、確定させた人が放銃したものとして払います」;
    # 000 (7) 役満 「ロンあがりの場合は、ツモあがりのときの枚数の 1.5 倍」
    r = load_rules({"extends": "netmahjong", "game": {"pao": True}})
    s = state_after(
        start("netmahjong") + [tsumo(1, 0, 0, w={"yakuman": 1, "pao": 3, "chips": 2})], r
    )
    assert s.chips == [0, 3, 0, -3]


HAND = {"hand": "234m456p678s23455s", "win": "5s", "riichi": True, "dora": "1m"}


def test_a_winner_given_as_tiles_is_scored_by_the_hand_engine():
    # contract: winners may be {"seat": i, "hand": {...a scoring-batch input line...}};
    # riichi tanyao menzen-tsumo dora 1 = 4 han 30 fu, non-dealer tsumo 2000/3900 (000 (4))
    ev = {"event": "win", "winners": [{"seat": 1, "hand": HAND}], "riichi": [1]}
    out = play("netmahjong", ev)
    assert out["hands"][0]["deltas"] == [-3900, 7900, -2000, -2000]


def test_a_hand_with_the_wrong_seat_wind_is_refused():
    ev = {"event": "win", "winners": [{"seat": 1, "hand": dict(HAND, seat_wind="E")}]}
    e = refused("netmahjong", ev)
    assert "seat_wind" in str(e) and "'S'" in str(e)


def test_a_hand_that_does_not_score_is_refused_with_the_engines_words():
    ev = {"event": "win", "winners": [{"seat": 1, "hand": dict(HAND, hand="234m456p678s2345s")}]}
    assert "14" in str(refused("netmahjong", ev))


def test_mcr_winner_as_tiles():
    # 004 点数計算 「ツモ上がりの場合、他のプレイヤー全員が上がったプレイヤーへ支払います」:
    # 清龍 16 + 不求人 4 + 平和 2 + 喜相逢 1 + 絶一門 1 + 単釣将 1 = 25, so 8 + 25 from each
    hand = {"hand": "123m456m789m123p55p", "win": "5p"}
    out = play("mcr", {"event": "win", "winners": [{"seat": 2, "hand": hand}]})
    assert out["hands"][0]["deltas"] == [-33, -33, 99, -33]


def test_boo_chombo_as_points_is_a_club_switch():
    # 002 ブー麻雀（続き） 「…それ以外の場合は親、子にかかわらず1500オール支払い」
    r = load_rules({"extends": "nekohouse-boo", "game": {"chombo": "each", "chombo_points": 1500}})
    out = replay(start("nekohouse-boo") + [{"event": "chombo", "seat": 0}], r)
    assert out["hands"][0]["deltas"] == [-4500, 1500, 1500, 1500]


def test_boo_dora_are_paid_1500_to_the_table():
    # 002 ブー麻雀 「ドラは役ではなく, 1枚につき場に1500点です」: the winner's "dora" count
    out = play("nekohouse-boo", ron(1, 0, 1, 30, w={"dora": 1}))
    assert out["hands"][0]["deltas"] == [-2500, 2500, 0, 0]


def test_nm_worked_settlement_example_through_a_whole_replay():
    # 000 (3) 清算 【例】 「35600 +26000 / 27400 −3000 / 22800 −7000 / 14200 −16000」:
    # ruled point transfers bring the table to the example's scores, then time is called
    def pay(src, to, points):
        return {"event": "penalty", "seat": src, "kind": "points", "points": points, "to": to}

    out = play("netmahjong", pay(3, 0, 10600), pay(2, 1, 2200), pay(3, 1, 200), {"event": "end"})
    assert out["final"]["scores"] == [35600, 27400, 22800, 14200]
    assert out["final"]["base"] == [26000, -3000, -7000, -16000]
    assert out["final"]["result"] == [46000, 7000, -17000, -36000]  # with the ワンツー uma


def _boo_pay(src, to, points):
    return {"event": "penalty", "seat": src, "kind": "points", "points": points, "to": to}


BOO_TABLE = [_boo_pay(3, 2, 7500), _boo_pay(0, 1, 2000)]  # [6000, 10000, 15500, 500]


def test_boo_win_that_ends_the_game_still_sinking_is_chombo():
    # 002 ブー麻雀（続き） 「上がる直前に沈みの場合 - 自分の沈みを確定させてゲーム終了となる上がり」
    e = refused("nekohouse-boo", *BOO_TABLE, ron(0, 3, 1, 30))  # 6000 -> 7000, D busts
    assert "自分の沈みを確定" in str(e) and '"chombo", "seat": 0' in str(e) and e.line == 4


def test_boo_floating_win_that_ends_the_game_not_top_is_chombo():
    # 002 ブー麻雀（続き） 「上がる直前に浮きの場合 - 自分がトップになれずゲーム終了となる上がり」
    e = refused("nekohouse-boo", *BOO_TABLE, ron(1, 3, 1, 30))  # B 10000 -> 11000 < C 15500
    assert "トップになれず" in str(e)


def test_boo_maru_c_ending_is_chombo_except_in_the_last_hand():
    # 002 ブー麻雀（続き） 「自分のマルCを確定させてゲーム終了となる上がり（例外として、オーラスのみ反則となりません。）」  # noqa: E501
    e = refused("nekohouse-boo", ron(1, 0, 5, 0))  # B 16000, C and D float at 8000: マルC
    assert "マルC" in str(e)
    ev = [ron(1, 0)] + pass_deal("nekohouse-boo", 8)[1:7]  # to S4, 1000-point rons
    s = state("nekohouse-boo", *ev)
    assert s.round == "S4" and not s.finished
    out = play("nekohouse-boo", *ev, ron(2, 3, 1, 30))  # C floats, ends top with マルC: allowed
    assert out["finished"] and out["final"]["end_reason"] == "last_hand"
    assert out["final"]["victory_points"] == [-1, 0, 1, 0]


def test_a_copied_state_takes_the_next_event_and_leaves_the_original_as_it_was():
    from scoring.game import apply_event

    s = state("netmahjong", ron(1, 0))
    assert s.last_line == 2
    before = s.to_dict()
    nxt = s.copy()
    apply_event(nxt, s.last_line + 1, ron(2, 1, 3, 30))
    assert s.to_dict() == before and len(s.hands) == 1
    assert nxt.last_line == 3 and nxt.round == "E3" and len(nxt.hands) == 2
    assert nxt.to_dict() == state("netmahjong", ron(1, 0), ron(2, 1, 3, 30)).to_dict()
    assert state("netmahjong").last_line == 1  # after start alone, the next event is line 2


# =========================================================================== a game with no hand
@pytest.mark.parametrize("preset", ["nekohouse-4a", "nekohouse-3a", "mcr"])
def test_end_before_any_hand_is_void_not_settled(preset):
    # uma and oka by seat order would rank players who never played a hand
    out = play(preset, {"event": "end"})
    assert out["finished"] and out["void"] and out["final"] is None
    assert out["state"]["end_reason"] == "no_hands"
    later = play(preset, draw(tenpai=[0]), {"event": "end"})
    assert later["finished"] and not later["void"] and later["final"]["ranks"]
