"""MCR batch lines: the output contract, bad input, the 8-fan minimum, payments and the CLI.

Contract: docs/contracts/scoring-batch.md (MCR section).
Rulebook: /work/shared/seeds/004_31b80ee9b4db5b91.txt (004:<line>).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.errors import InvalidInput
from scoring.mcr import explanation, payments, score_hand
from scoring.rules import load_rules
from tests.support.mcr import random_hands

MCR = load_rules("mcr")
STRAIGHT = {"id": 7, "hand": "123456789m234p55s", "win": "5s"}  # 清龍 門前清 平和 単釣将 = 21


def test_success_line_follows_the_contract():
    out = score_hand({**STRAIGHT, "flowers": 2}, MCR)
    assert out["id"] == 7 and out["ok"] is True
    assert out["fan"] == 21 and out["flowers"] == 2 and out["total"] == 23
    assert [f["name"] for f in out["fans"]] == [
        "pure_straight",
        "concealed_hand",
        "all_chows",
        "single_wait",
    ]
    assert sum(f["points"] for f in out["fans"]) == out["fan"]
    # ron: discarder 8 + total, the other two 8 each (004:276)
    assert out["pay"] == {"ron": 31, "others": 8} and out["value"] == 31 + 16


def test_self_drawn_pay():
    out = score_hand({**STRAIGHT, "tsumo": True}, MCR)
    # 不求人 replaces 門前清 and 自摸 (004:213): 16 + 4 + 2 + 1 = 23
    assert out["fan"] == 23 and out["pay"] == {"all": 31} and out["value"] == 93  # 004:274


def test_below_minimum_is_refused_with_the_fans_it_had():
    out = score_hand({"id": 1, "hand": "123m456p678s23455s", "win": "2s", "flowers": 8}, MCR)
    assert out["ok"] is False and out["error"]["code"] == "below_minimum"
    assert out["fan"] == 4 and "8 fan" in out["error"]["message"]  # 004:10, 004:266


def test_not_a_winning_hand():
    out = score_hand({"hand": "123456789m234p56s", "win": "6s"}, MCR)
    assert out["ok"] is False and out["error"]["code"] == "not_agari"


@pytest.mark.parametrize(
    "line, code, words",
    [
        ({"hand": "123456789m234p5x", "win": "5s"}, "invalid_tiles", "unexpected character"),
        ({"hand": "123456789m234p55s"}, "invalid_input", "'win' field is missing"),
        ({"hand": "123456789m234p55s", "win": "9z"}, "invalid_tiles", "honour 9z"),
        (
            {"hand": "123456789m234p55s", "win": "6s"},
            "invalid_tiles",
            "must also be written in 'hand'",
        ),
        ({"hand": "123456789m234p5s", "win": "5s"}, "invalid_tiles", "needs 14"),
        ({"hand": "11111m23456789p55s", "win": "5s"}, "invalid_tiles", "only 4 of each"),
        ({"hand": "123406789m234p55s", "win": "5s"}, "invalid_tiles", "red five"),
        ({**STRAIGHT, "flowers": 9}, "invalid_input", "only 8 flower"),
        ({**STRAIGHT, "flowers": "2"}, "invalid_input", "whole number"),
        ({**STRAIGHT, "tsumo": "yes"}, "invalid_input", "true or false"),
        ({**STRAIGHT, "riichi": True}, "invalid_input", "no meaning under MCR"),
        ({**STRAIGHT, "rinshan": True}, "invalid_input", "kong_replacement"),
        ({**STRAIGHT, "seat_wind": "X"}, "invalid_input", "E, S, W, N"),
        ({**STRAIGHT, "colour": 1}, "invalid_input", "unknown field"),
        ({**STRAIGHT, "kong_replacement": True, "tsumo": True}, "invalid_input", "needs a kong"),
        ({**STRAIGHT, "kong_replacement": True}, "invalid_input", "self-drawn"),
        ({**STRAIGHT, "robbing_kong": True, "tsumo": True}, "invalid_input", "tsumo to false"),
        (
            {**STRAIGHT, "robbing_kong": True, "wall_last": True, "win": "2p"},
            "invalid_input",
            "004:185",
        ),
        ({**STRAIGHT, "last_tile": True}, "invalid_input", "holds another copy"),
        ({**STRAIGHT, "melds": "pon"}, "invalid_input", "list"),
        ({**STRAIGHT, "melds": [{"type": "pon", "tiles": "556z"}]}, "invalid_tiles", "identical"),
        ("not a dict", "invalid_input", "JSON object"),
    ],
)
def test_bad_input_is_an_error_result(line, code, words):
    out = score_hand(line, MCR)
    assert out["ok"] is False
    assert out["error"]["code"] == code
    assert words in out["error"]["message"]


def test_rules_may_be_named_and_a_bad_name_is_an_error_result():
    assert score_hand(STRAIGHT, "mcr")["fan"] == 21
    out = score_hand({**STRAIGHT, "rules": "no-such-preset"}, MCR)
    assert out["ok"] is False and out["error"]["code"] == "invalid_input"
    assert "unknown rule preset" in out["error"]["message"]


def test_flowers_may_be_written_as_tiles():
    out = score_hand({**STRAIGHT, "hand": "123456789m234p55s12f"}, MCR)
    assert out["flowers"] == 2 and out["total"] == 23
    out = score_hand({**STRAIGHT, "hand": "123456789m234p55s12f", "flowers": 1}, MCR)
    assert out["error"]["code"] == "invalid_input"


def test_last_tile_is_set_when_the_other_three_are_in_own_meld():
    # 777s called as a pon, the fourth 7s completes 789s: 和絶張 by the tiles alone (004:216)
    out = score_hand(
        {"hand": "123m456p789s11z", "win": "7s", "melds": [{"type": "pon", "tiles": "777s"}]}, MCR
    )
    assert "last_tile" in {f["name"] for f in out["fans"]}


@pytest.mark.parametrize(
    "total, winner, discarder, expected",
    [
        (8, 0, None, [48, -16, -16, -16]),
        (8, 2, 1, [-8, -16, 32, -8]),
        (25, 3, 0, [-33, -8, -8, 49]),
        (0, 1, None, [-8, 24, -8, -8]),
    ],
)
def test_payments(total, winner, discarder, expected):
    deltas = payments(total, winner, discarder)
    assert deltas == expected and sum(deltas) == 0


@pytest.mark.parametrize(
    "args, words",
    [
        ((8, 4, None), "winner seat"),
        ((8, 0, 0), "another player's seat"),
        ((-1, 0, None), "whole number"),
        ((True, 0, None), "whole number"),
    ],
)
def test_payments_refuse_bad_seats(args, words):
    with pytest.raises(InvalidInput, match=words):
        payments(*args)


def test_batch_cli_through_mcr():
    lines = [
        {**STRAIGHT, "flowers": 1},
        {"id": 8, "hand": "123m456p678s23455s", "win": "2s"},
        {"id": 9, "hand": "oops", "win": "5s"},
        {"id": 10, "hand": "111222333444z55m", "win": "5m", "tsumo": True},
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "scoring", "batch", "--rules", "mcr"],
        input="\n".join(json.dumps(x) for x in lines) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    outs = [json.loads(x) for x in proc.stdout.splitlines()]
    assert [o["id"] for o in outs] == [7, 8, 9, 10]
    assert outs[0]["ok"] and outs[0]["total"] == 22
    assert outs[1]["error"]["code"] == "below_minimum"
    assert outs[2]["error"]["code"] == "invalid_tiles"
    assert (
        outs[3]["fans"][0]["name"] == "big_four_winds"
        and outs[3]["fans"][0]["name_ja"] == "スーフォンフィ"
    )
    assert "Traceback" not in proc.stderr


_TILES = st.text(alphabet="0123456789mpszf", max_size=20)
_FIELD = st.one_of(
    st.booleans(), st.integers(-3, 12), _TILES, st.none(), st.lists(st.integers(), max_size=2)
)
_MELD = st.fixed_dictionaries(
    {"type": st.sampled_from(["chi", "pon", "minkan", "ankan", "kakan", "x"]), "tiles": _TILES}
)


@settings(max_examples=300, deadline=None)
@given(
    hand=st.one_of(_TILES, _FIELD),
    win=st.one_of(_TILES, _FIELD),
    melds=st.one_of(st.lists(_MELD, max_size=5), _FIELD),
    extra=st.dictionaries(
        st.sampled_from(
            [
                "tsumo",
                "flowers",
                "last_tile",
                "wall_last",
                "kong_replacement",
                "robbing_kong",
                "seat_wind",
                "riichi",
                "dora",
            ]
        ),
        _FIELD,
        max_size=4,
    ),
)
def test_any_line_gives_a_result_never_an_exception(hand, win, melds, extra):
    out = score_hand({"id": 1, "hand": hand, "win": win, "melds": melds, **extra}, MCR)
    assert out["id"] == 1 and isinstance(out["ok"], bool)
    if not out["ok"]:
        assert out["error"]["code"] in {
            "invalid_tiles",
            "invalid_input",
            "not_agari",
            "below_minimum",
        }
        assert out["error"]["message"]


@settings(max_examples=200, deadline=None)
@given(st.randoms(use_true_random=False))
def test_winning_hands_with_any_flags_score_or_refuse_cleanly(rnd):
    line = random_hands(rnd.randrange(10**6), 1)[0]
    for flag in ("tsumo", "last_tile", "wall_last", "kong_replacement", "robbing_kong"):
        line[flag] = rnd.random() < 0.3
    out = score_hand(line, MCR)
    if out["ok"]:
        assert out["total"] == out["fan"] + line["flowers"] >= 8
    else:
        assert out["error"]["code"] in {"invalid_input", "below_minimum"}, out


def test_explanation_rows_name_every_fan_and_the_pay():
    line = {**STRAIGHT, "flowers": 2}
    rows = explanation(line, score_hand(line, MCR))
    text = "\n".join(rows)
    for word in ("pure_straight", "清龍", "チンロン", "total", "23", "31 from the discarder"):
        assert word in text
    bad = explanation({"hand": "x", "win": "5s"}, score_hand({"hand": "x", "win": "5s"}, MCR))
    assert bad[-1].startswith("not scored (invalid_tiles)")
