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


# =========================================================================== 2. tied tops
# 7 hands that pass the deal and leave A 25000, B 25000, C 28000, D 22000; then the last
# hand (南4局, D deals) is drawn with B alone tenpai after a riichi: A 24000, B 27000,
# C 27000, D 21000 and B's stick on the table
TIED_TOPS = [ron(2, 3), ron(2, 3), ron(0, 3), ron(1, 0), ron(2, 1), ron(0, 3), ron(3, 0),
             draw(tenpai=[1], riichi=[1])]


def test_mahjongbu_tied_tops_share_the_last_stick_and_stay_tied():
    # 001 リーチ 6 「オーラスが流局した場合リーチ棒はトップ者に渡る」 with 基本ルール 6
    # 「順位は上家優先なし。同得点の場合は同順位。オカ・ウマとも同得点者の人数で割り」
    assert load_rules("mahjongbu").game.leftover_tied_tops == "split"
    out = play("mahjongbu", *TIED_TOPS)
    assert out["finished"] and out["hands"][-1]["scores"] == [24000, 27000, 27000, 21000]
    final = out["final"]
    assert final["scores"] == [24000, 27500, 27500, 21000]
    assert final["ranks"] == [3, 1, 1, 4] and final["leftover_deposits"] == 0
    assert final["result"] == [-16000, 22500, 22500, -29000]


def test_seat_order_gives_the_stick_to_the_tied_top_nearest_the_first_dealer():
    # 000 (3) 清算 「同点の場合は、起家、起家の下家…の順に優先」: the other reading, as a
    # club's file on top of #麻雀部 may choose it
    rules = {"extends": "mahjongbu", "name": "seat-order", "game": {"leftover_tied_tops":
                                                                    "seat_order"}}
    out = replay([start("mahjongbu"), *TIED_TOPS], rules)
    assert out["final"]["scores"] == [24000, 28000, 27000, 21000]
    assert out["final"]["result"] == [-16000, 38000, 7000, -29000]


def test_an_odd_split_keeps_the_odd_hundreds_on_the_table():
    # 001 基本ルール 6 「上家優先なし」: 1000 among three tied tops is 300 each; the last 100
    # would make one of them sole top, so it stays on the table (leftover_deposits)
    rules = {"extends": "mahjongbu", "name": "mb-tonpuu", "game": {"length": "tonpuu"}}
    penalty = {"event": "penalty", "seat": 3, "kind": "deposit_1000"}
    events = [start("mahjongbu"), draw(), draw(), draw(), penalty, draw(tenpai=[0, 1, 2])]
    out = replay(events, rules)
    assert out["hands"][-1]["scores"] == [26000, 26000, 26000, 21000]
    assert out["final"]["scores"] == [26300, 26300, 26300, 21000]
    assert out["final"]["leftover_deposits"] == 100
    assert out["final"]["ranks"] == [1, 1, 1, 4]


def test_every_preset_names_its_tied_tops_rule():
    # only #麻雀部 gives leftover sticks to the top (001 リーチ 6); the others leave them
    # (000 has no such line), so their value is never read
    for preset in ("netmahjong", "nekohouse-4a", "simple", "mcr"):
        rules = load_rules(preset)
        assert rules.game.leftover_deposits == "none"
        assert rules.game.leftover_tied_tops == "seat_order"


# =========================================================================== 3. simple (003)
def test_simple_has_no_dealer_repeat_on_a_win_or_at_a_draw():
    # 003 「1つの局が終了すると、それまで南家だったプレイヤーが次の局の東家となります」
    assert load_rules("simple").game.renchan == "never"
    out = play("simple", ron(0, 1))  # the dealer wins
    assert out["state"]["round"] == "E2" and out["state"]["dealer"] == 1
    assert out["state"]["honba"] == 0
    out = play("simple", draw(tenpai=[0]))  # the dealer is tenpai at a draw
    assert out["state"]["round"] == "E2" and out["state"]["honba"] == 1  # 000 (3): a draw adds one


def test_simple_pinfu_on_any_wait_netmahjong_only_two_sided():
    # 003 平和 「面子が全て順子で、雀頭が役牌以外を使っている。※門前のみ」 (no wait named);
    # 000 (5) 平和 「両面待ち」
    from scoring.hand import score_hand

    kanchan = {"hand": "123m456p234789s66s", "win": "2m"}
    simple = score_hand(kanchan, "simple")
    assert [y["name"] for y in simple["yaku"]] == ["pinfu"] and simple["pay"] == {"ron": 1500}
    assert score_hand(kanchan, "netmahjong")["error"]["reason"] == "no_yaku"
    # a club's fu rule with pinfu on any wait: the wait then adds no fu
    rules = {"extends": "netmahjong", "name": "any-wait", "hand": {"pinfu_wait": "any"}}
    tsumo = score_hand({**kanchan, "tsumo": True}, rules)
    assert tsumo["fu"] == 20 and {y["name"] for y in tsumo["yaku"]} == {"pinfu", "menzen_tsumo"}
    assert score_hand(kanchan, rules)["fu"] == 30


def test_simple_pays_no_double_yakuman():
    # 003 点数 「13飜以上(役満/4倍満) 48,000」: 字一色 and 四暗刻 together are 48,000
    from scoring.hand import score_hand

    hand = {"hand": "11122255566677z", "win": "7z"}
    assert score_hand(hand, "simple")["pay"] == {"ron": 48000}
    assert score_hand(hand, "netmahjong")["pay"] == {"ron": 96000}  # 000 (4) 注


def test_docs_say_which_simple_flow_rules_003_states_and_which_come_from_000():
    # docs/rules.md's table of the simple preset (scoring/docs.py SIMPLE_FLOW): a switch
    # said to come from 003 is set by simple.toml; one said to come from 000 is not
    from scoring import docs
    from scoring.rules import set_switches

    own = {f"{sec}.{key}" for sec, key in set_switches("simple")}
    for name, line in docs.SIMPLE_FLOW:
        if line:
            assert line.startswith("003") and name in own, name
        else:
            assert name not in own, name
    text = docs.render()
    assert "## The simple rule (003)" in text and "| `game.renchan` | `never` | 003" in text


# =========================================================================== 4. what a hand says
def test_a_chombo_deferred_to_the_draw_is_paid_as_noten():
    # 002 4A 「チョンボは親、子にかかわらず3000オールの支払いとします。ただし、同卓者全員の
    # 合意のもとこれを免除し、もしくは流局時チョンボ、和了放棄、1000点供託のいずれかに
    # 変更できます」: the dealer's deferred chombo makes them noten at the draw
    assert load_rules("nekohouse-4a").game.chombo_at_draw
    out = play("nekohouse-4a", draw(tenpai=[1, 2], chombo=[0]))
    assert out["hands"][0]["deltas"] == [-1500, 1500, 1500, -1500]
    assert out["state"]["round"] == "E2" and out["state"]["honba"] == 1  # noten: the deal moves
    # the same hand with the dealer tenpai and no chombo: the dealer keeps the deal
    out = play("nekohouse-4a", draw(tenpai=[0, 1, 2]))
    assert out["hands"][0]["deltas"] == [1000, 1000, 1000, -3000]
    assert out["state"]["round"] == "E1"


def test_a_chombo_at_the_draw_is_never_tenpai():
    # the same line: 流局時チョンボ is paid as noten, so the offender cannot be tenpai too
    e = refused("nekohouse-3b", draw(tenpai=[0, 1], chombo=[1]))
    assert e.reason == "chombo_at_draw_tenpai" and e.values["seat"] == 1


@pytest.mark.parametrize("preset", ["nekohouse-boo", "netmahjong", "mahjongbu"])
def test_no_chombo_at_the_draw_where_the_book_has_none(preset):
    # 002 ブー麻雀（続き） 「ただし、同卓者全員の合意のもとこれを免除し、もしくは和了放棄に
    # 変更できます」 (no 流局時チョンボ); 000 (3) 錯和 and 001 チョンボ name none
    e = refused(preset, draw(tenpai=[1], chombo=[0]))
    assert e.reason == "no_chombo_at_draw" and e.values["switch"] == "game.chombo_at_draw"


def test_a_chombo_gives_back_the_riichi_sticks_of_the_voided_hand():
    # 001 チョンボ 2 「チョンボが発生したらその局はノーゲーム扱いとなる。…チョンボが発生した局に
    # 出されたリーチ棒などは出した本人に戻る」: the chombo says whose sticks were out
    out = play("mahjongbu", {"event": "chombo", "seat": 0, "riichi": [1, 2]})
    assert out["hands"][0]["deltas"] == [-12000, 4000, 4000, 4000]
    assert out["hands"][0]["kyoutaku"] == 0 and out["state"]["round"] == "E1"


def test_a_club_may_leave_the_voided_hands_sticks_on_the_table():
    # the other reading of the same switch: the sticks stay for the next winner
    rules = {"extends": "mahjongbu", "name": "sticks-stay",
             "game": {"chombo_returns_riichi": False}}
    events = [start("mahjongbu"), {"event": "chombo", "seat": 0, "riichi": [1]}, ron(2, 3)]
    out = replay(events, rules)
    assert out["hands"][0]["deltas"] == [-12000, 3000, 4000, 4000]
    assert out["hands"][0]["kyoutaku"] == 1000
    assert out["hands"][1]["deltas"] == [0, 0, 2000, -1000]  # 1,000 and the stick
    # a noten riichi at the draw (001 リーチ 5 「ノーテンリーチは流局時にチョンボ」) is the same
    out = replay([start("mahjongbu"), draw(tenpai=[2], riichi=[1, 2])], rules)
    assert out["hands"][0]["kyoutaku"] == 2000
    assert out["hands"][0]["deltas"] == [4000, -13000, 3000, 4000]
    out = play("mahjongbu", draw(tenpai=[2], riichi=[1, 2]))
    assert out["hands"][0]["kyoutaku"] == 0
    assert out["hands"][0]["deltas"] == [4000, -12000, 4000, 4000]


def test_nine_terminals_after_flowers_keeps_its_right_in_3b():
    # 002 3B 「花牌を抜いても一発、天和、地和、人和、嶺上開花、海底摸月、九種九牌の権利は
    # 維持されます」: the abort carries who declared and the flowers set aside
    abort = {"event": "abort", "kind": "kyuushu", "seat": 1, "nukidora": 2}
    out = play("nekohouse-3b", abort)
    assert out["hands"][0]["deltas"] == [0, 0, 0] and out["state"]["honba"] == 1
    assert refused("nekohouse-3b", {**abort, "nukidora": 5}).reason == "too_many_set_aside"


def test_nine_terminals_after_a_north_is_refused_in_3a():
    # 002 3A 「北を抜くと一発, 天和, 地和, 人和の権利は消滅します」: 九種九牌 is a first-turn
    # right of the same kind (3B names it among those it keeps); without a North it stands
    abort = {"event": "abort", "kind": "kyuushu", "seat": 1, "nukidora": 1}
    e = refused("nekohouse-3a", abort)
    assert e.reason == "kyuushu_after_nukidora" and e.values["seat"] == 1
    assert play("nekohouse-3a", {**abort, "nukidora": 0})["state"]["honba"] == 1


def test_tiles_set_aside_only_with_nine_terminals_and_nukidora():
    # 002 4A has 九種九牌 but no nukidora; the count belongs to 九種九牌 alone
    e = refused("nekohouse-4a", {"event": "abort", "kind": "kyuushu", "seat": 0, "nukidora": 1})
    assert e.reason == "no_nukidora"
    e = refused("nekohouse-4a", {"event": "abort", "kind": "suufon", "seat": 0, "nukidora": 1})
    assert e.reason == "abort_seat_kind"
