"""Where the club's rulebooks (files in /work/shared/seeds/) go further than the peers:
four engine bugs, each against the line it breaks, and the decisions the rulebooks force,
each a switch of scoring/rules.py set in the presets and checked here both ways.
"""

from __future__ import annotations

import pytest

from scoring.errors import RulesError
from scoring.game import replay, state_after
from scoring.hand import score_hand
from scoring.rules import load_rules, set_switches, switches
from scoring.settlement import box_under, settle

P4 = ["A", "B", "C", "D"]
START = {"event": "start", "players": P4}


def ron(winner: int, src: int, han: int = 1, fu: int = 30) -> dict:
    return {"event": "win", "winners": [{"seat": winner, "han": han, "fu": fu}], "from": src}


def draw(tenpai=(), riichi=(), nagashi=()) -> dict:
    return {"event": "draw", "tenpai": list(tenpai), "riichi": list(riichi),
            "nagashi": list(nagashi)}


def yaku_of(out: dict) -> set[str]:
    return {y["name"] for y in out["yaku"]}


# =========================================================================== engine bugs
def test_an_mcr_draw_moves_no_money():
    # 004 点数計算 「ツモ上がりの場合、他のプレイヤー全員が上がったプレイヤーへ支払います。
    # ロン上がりの場合、放銃者は全点を、残りのプレイヤーは1人につき8点を…」: only a win pays
    out = replay([START, draw(tenpai=[1])], "mcr")
    assert out["hands"][0]["deltas"] == [0, 0, 0, 0]
    assert out["state"]["scores"] == [0, 0, 0, 0] and out["state"]["round"] == "E2"


def test_the_mcr_preset_sets_every_switch_itself():
    # 004 大前提 「点数計算はワンステップで行われます」: nothing of 000 (the schema defaults)
    # may reach an MCR game unchecked, so scoring/presets/mcr.toml names every switch
    every = {(sec, name) for sec, name, *_ in switches()}
    assert every - set_switches("mcr") == set()
    g = load_rules("mcr").game
    assert (g.honba, g.renchan, g.nagashi, g.abortive_draws, g.chombo) == (
        False, "never", "none", [], "none")
    assert load_rules("mcr").points.noten_total == 0


def test_docs_show_which_preset_values_are_inherited():
    from scoring import docs

    text = docs.render()
    row = next(line for line in text.splitlines() if line.startswith("| `noten_total` |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[-1] == "**`0`**"  # mcr sets it: 004 pays only wins
    assert cells[4] == "*`3000`*"  # netmahjong inherits the schema default (000 (3) 荒牌)


DAISANGEN_RED_FIVE = {
    # 067m has the red five; 555z and 666z called, 777z concealed: 大三元
    "hand": "067m777z11p", "win": "1p",
    "melds": [{"type": "pon", "tiles": "555z", "from": "across"},
              {"type": "pon", "tiles": "666z", "from": "right"}],
}


@pytest.mark.parametrize("winner", [
    {"seat": 1, "hand": DAISANGEN_RED_FIVE, "pao": 2},
    {"seat": 1, "yakuman": 1, "chips": 3, "pao": 2},  # 2 yakuman chips + 1 red five, each
])
def test_a_pao_tsumo_pays_only_the_yakuman_chips_at_the_ron_factor(winner):
    # 000 (8) 包 【ローカルルール】 「ツモあがりされた場合、確定させた人が放銃したものとして
    # 扱います。役満御祝儀は、確定させた人が放銃したものとして払います。」;
    # 000 (7) 役満 「ロンあがりの場合は、ツモあがりのときの枚数の 1.5 倍」:
    # 2 x 1.5 = 3, and the red five as from a discarder, 1
    rules = load_rules({"extends": "netmahjong", "name": "pao", "game": {"pao": True}})
    state = state_after([START, {"event": "win", "winners": [winner]}], rules)
    assert state.chips == [0, 4, -4, 0]


FLOWER_REPLACEMENT = {"hand": "123p406p789p234s99s", "win": "4s", "tsumo": True,
                      "riichi": True, "rinshan": True, "nukidora": 1, "seat_wind": "S"}


def test_3b_a_win_on_a_flowers_replacement_tile_is_not_rinshan():
    # 002 3B 「補充牌でのツモ上がりの場合、新たに嶺上開花はつきません。(空気扱い)」
    out = score_hand(FLOWER_REPLACEMENT, "nekohouse-3b")
    assert out["ok"] and "rinshan" not in yaku_of(out)
    # 002 3B 「花牌を抜いても…嶺上開花…の権利は維持されます」: after a kan it still counts
    with_kan = dict(FLOWER_REPLACEMENT, hand="123p406p234s99s",
                    melds=[{"type": "ankan", "tiles": "7777p"}])
    assert "rinshan" in yaku_of(score_hand(with_kan, "nekohouse-3b"))


def test_3a_a_win_on_a_norths_replacement_tile_is_rinshan():
    # 002 3A 「北を抜いて補充した嶺上牌によるツモ上りの場合, 嶺上開花が成立します」
    assert "rinshan" in yaku_of(score_hand(FLOWER_REPLACEMENT, "nekohouse-3a"))


@pytest.mark.parametrize("preset,line", [
    # 000 (5) 嶺上開花 「カンをしたとき、王牌からとってきた補充牌があがり牌のとき」:
    # no kan, no rinshan
    ("netmahjong", {"hand": "123m456p789s23455s", "win": "5s", "tsumo": True, "rinshan": True}),
    # 002 3A: the replacement comes after a kan or a North set aside; this hand has neither
    ("nekohouse-3a", dict(FLOWER_REPLACEMENT, nukidora=0)),
])
def test_rinshan_without_a_replacement_draw_is_refused(preset, line):
    out = score_hand(line, preset)
    assert not out["ok"] and out["error"]["code"] == "invalid_input"
    assert "rinshan" in out["error"]["message"]


# =========================================================================== decisions
def _to_south_4() -> list[dict]:
    """E1..S3 each a 1,000-point ron by the next seat off the dealer: at 南4局 the dealer
    (seat 3) is top with 26,000 and nobody has 30,000."""
    return [START] + [ron((d + 1) % 4, d % 4) for d in range(7)]


def test_4a_a_forced_agari_yame_below_30000_goes_to_the_west_round():
    # 002 4A 「オーラスの親がトップの場合、和了やめおよび聴牌やめは強制です」 and
    # 「南4局終了時全員が3万点未満のとき西入」: the yame ends 南4局, then the West round
    events = _to_south_4() + [ron(3, 0)]
    state = state_after(events, "nekohouse-4a")
    assert max(state.scores) < 30000 and state.scores[3] == max(state.scores)
    assert not state.finished and state.round == "W1" and state.extension
    ended = load_rules({"extends": "nekohouse-4a", "game": {"extension_over_yame": False}})
    assert state_after(events, ended).end_reason == "agari_yame"


def test_nagashi_as_a_mangan_tsumo_win_or_as_a_draw():
    # 000 (5) 流し満貫 「満貫のツモあがりの扱いになります」: the honba go to the nagashi player and
    # the deal passes as after a non-dealer's tsumo (000 (3) 「積み棒をなくします」)
    events = [START, draw(tenpai=[0]), draw(tenpai=[0], nagashi=[2])]
    out = replay(events, "netmahjong")
    assert out["hands"][1]["deltas"] == [-4100, -2100, 8300, -2100]
    assert (out["state"]["round"], out["state"]["honba"]) == ("E2", 0)
    # 002 4A 「流し満貫あり」 says no more: a draw, the tenpai dealer keeps the deal, honba +1
    out = replay(events, "nekohouse-4a")
    assert out["hands"][1]["deltas"] == [-4000, -2000, 8000, -2000]
    assert (out["state"]["round"], out["state"]["honba"]) == ("E1", 2)


def test_boo_yakuman_victory_points_when_others_float():
    # 002 ブー麻雀 「役満は無条件にゲーム終了となり, 達成者のダブルマルAとします」; row
    # 「ダブルマルA +18 0 -6」: マルA means the top alone floats, so the others pay -6 each
    end = {"winner": 0, "from": None, "pao": None}
    scores = [20000, 9000, 8000, -5000]  # seats 1 and 2 are above 8000: they float
    out = settle(scores, "nekohouse-boo", yakuman_end=end)
    assert out["victory_points"] == [18, -6, -6, -6]
    standing = load_rules({"extends": "nekohouse-boo", "settlement": {"yakuman_vp": "standing"}})
    assert settle(scores, standing, yakuman_end=end)["victory_points"] == [6, 0, 0, -6]


PINFU_AFTER_NORTH = {"hand": "123p456p678p23499s", "win": "4s", "tsumo": True, "rinshan": True,
                     "nukidora": 1, "seat_wind": "S"}


def test_3a_rinshan_after_a_north_in_pinfu_shape_is_30_fu():
    # 002 3A 「嶺上開花の場合はツモの2符を加えて計算します」 (no exception for 平和): menzen
    # tsumo, pinfu, rinshan and the North 4 han 30 fu, 「30符4翻…は満貫として計算します」
    out = score_hand(PINFU_AFTER_NORTH, "nekohouse-3a")
    assert {"pinfu", "rinshan", "menzen_tsumo"} <= yaku_of(out)
    assert (out["han"], out["fu"], out["limit"]) == (4, 30, "mangan")
    twenty = load_rules({"extends": "nekohouse-3a", "fu": {"rinshan_pinfu_fu": False}})
    out = score_hand(PINFU_AFTER_NORTH, twenty)
    assert (out["han"], out["fu"], out["limit"]) == (4, 20, None)


def test_without_busting_there_is_no_agari_yame():
    # 000 (3) 【ローカルルール】 「ブットビなしを選択した場合は、あがりやめはできません」
    rules = load_rules({"extends": "netmahjong", "game": {"bust": False}})
    assert rules.game.agari_yame == "forbidden" and box_under(rules)
    with pytest.raises(RulesError) as e:
        load_rules({"extends": "netmahjong", "game": {"bust": False, "agari_yame": "forced"}})
    assert "game.agari_yame = 'forbidden'" in e.value.message


def test_mahjongbu_three_way_tie_gives_the_odd_point_to_the_top():
    # 001 基本ルール 6 「順位は上家優先なし。同得点の場合は同順位。
    # オカ・ウマとも同得点者の人数で割り」:
    # -20,000 of uma (2nd-4th) does not divide by 3; no tied seat is preferred, so each takes
    # -6,667 and the top, who takes minus everyone else (4 「トップ者にはオカ…が加点」), the point
    out = settle([40000, 20000, 20000, 20000], "mahjongbu")
    assert out["ranks"] == [1, 2, 2, 2] and out["uma"][1:] == [-6667, -6667, -6667]
    assert out["result"] == [50001, -16667, -16667, -16667]
    assert out["tie_splits"] == [{
        "part": "uma", "rank": 2, "seats": [1, 2, 3], "total": -20000,
        "shares": [-6667, -6667, -6667], "odd_points": 1, "odd_points_to": "top",
    }]
    seat = load_rules({"extends": "mahjongbu", "settlement": {"tie_remainder": "first_dealer"}})
    out = settle([40000, 20000, 20000, 20000], seat)
    assert out["uma"][1:] == [-6666, -6667, -6667] and sum(out["result"]) == 0
    assert out["tie_splits"][0]["odd_points_to"] == [1]


def test_every_decision_is_a_documented_switch_citing_its_line():
    from scoring import docs

    text = docs.render()
    for switch, line in [
        ("extension_over_yame", "南4局終了時全員が3万点未満のとき西入"),
        ("nagashi_as", "満貫のツモあがりの扱いになります"),
        ("yakuman_vp", "達成者のダブルマルAとします"),
        ("rinshan_pinfu_fu", "嶺上開花の場合はツモの2符を加えて計算します"),
        ("agari_yame", "ブットビなしを選択した場合は、あがりやめは"),
        ("tie_remainder", "順位は上家優先なし"),
        ("nukidora_rinshan", "新たに嶺上開花はつきません"),
    ]:
        row = next(r for r in text.splitlines() if r.startswith(f"| `{switch}` |"))
        assert line in row, switch


@pytest.mark.parametrize("bad,fix", [
    ({"game": {"bust": False, "agari_yame": "optional"}}, "game.agari_yame = 'forbidden'"),
    ({"table": {"removed_tiles": "2345678m", "red_fives": [0, 1, 1]}}, "table.amos_mode = 4"),
    ({"hand": {"nukidora": "north"}}, "hand.nukidora = 'none'"),
    ({"points": {"riichi_deposit": 0}}, "points.riichi_deposit = 1000"),
    ({"points": {"dora_per_tile": 1500}}, "hand.dora_as_han = false"),
    ({"settlement": {"return_points": 20000}}, "settlement.return_points = 25000"),
    ({"game": {"bust": "no"}}, "game.bust = true"),
])
def test_a_refused_club_file_is_told_the_switch_and_value_that_fix_it(bad, fix):
    with pytest.raises(RulesError) as e:
        load_rules({"extends": "netmahjong", "name": "club", **bad})
    assert fix in e.value.message and e.value.values.get("switch")
