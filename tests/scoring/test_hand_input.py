"""Bad input to score_hand: refused with a code and words a person can act on, never a crash.

Impossible input (a fifth copy of a tile, a red five where the rules have none, a chi in
a three-player rule, 15 tiles) is refused with a message a person can act on.
"""

from __future__ import annotations

import pytest

from scoring.hand import HandInput, parse_input, score_hand
from scoring.rules import load_rules

GOOD = {"hand": "234m456p678s23455s", "win": "5s", "riichi": True, "seat_wind": "S"}


def err(line, rules="netmahjong"):
    out = score_hand(line, rules)
    assert out["ok"] is False, out
    return out["error"]["code"], out["error"]["message"]


@pytest.mark.parametrize(
    "change, code, words",
    [
        ({"hand": "234m456p678s23455s1z"}, "invalid_tiles", "has 15 tiles"),
        ({"hand": "222m456p678s2345s"}, "invalid_tiles", "has 13 tiles"),
        ({"hand": "22222m456p678s555s", "win": "2m"}, "invalid_tiles", "5 copies of 2m"),
        ({"hand": "234m456p678s2345x"}, "invalid_tiles", "unexpected character 'x'"),
        ({"hand": "234m456p678s23455"}, "invalid_tiles", "no suit letter"),
        ({"hand": "234m456p678s2348z"}, "invalid_tiles", "8z"),
        ({"win": "9s"}, "invalid_tiles", "not in the hand"),
        ({"win": "5s5s"}, "invalid_tiles", "exactly one tile"),
        ({"hand": None}, "invalid_input", "'hand' is missing"),
        ({"hand": 234}, "invalid_tiles", "must be written as text"),
        ({"riichi": "yes"}, "invalid_input", "'riichi' must be true or false"),
        ({"seat_wind": "East"}, "invalid_input", "'seat_wind' must be one of"),
        ({"honba": -1}, "invalid_input", "'honba' must be a whole number"),
        ({"melds": "pon"}, "invalid_input", "'melds' must be a list"),
        (
            {"melds": [{"type": "kong", "tiles": "555z"}]},
            "invalid_tiles",
            "meld type 'kong' is unknown",
        ),
        ({"ippatsu": True, "riichi": False}, "invalid_input", "ippatsu needs riichi"),
        ({"chankan": True, "tsumo": True}, "invalid_input", "ron wins"),
        ({"rinshan": True}, "invalid_input", "tsumo wins"),
        ({"tenhou": True, "tsumo": True}, "invalid_input", "dealer"),
        ({"dora": "1f"}, "invalid_tiles", "flowers"),
        ({"dora": "1m2m3m4m5m6m"}, "invalid_input", "too many dora indicators"),
        ({"nukidora": 1}, "invalid_input", "no nukidora"),
        ({"hand": "234m456p678s23400s", "win": "0s"}, "invalid_tiles", "has only 1"),
        ({"dora": "5p5p5p"}, "invalid_tiles", "4 plain 5p"),
    ],
)
def test_refused_with_a_reason(change, code, words):
    line = {**GOOD, **change}
    got_code, message = err({k: v for k, v in line.items() if v is not None})
    assert got_code == code and words in message, message


def test_riichi_with_an_open_hand():
    line = {
        "hand": "234m456p23455s",
        "win": "5s",
        "melds": [{"type": "pon", "tiles": "777z"}],
        "riichi": True,
    }
    code, message = err(line)
    assert code == "invalid_input" and "closed hand" in message


def test_red_five_where_the_rules_have_none():
    """003 (simple) has no red fives: 0m must be written 5m."""
    code, message = err({**GOOD, "hand": "234m406p678s23455s"}, "simple")
    assert code == "invalid_tiles" and "write it as 5p" in message


def test_chi_in_three_player():
    line = {
        "hand": "11m123999p",
        "win": "1m",
        "melds": [{"type": "chi", "tiles": "789s"}, {"type": "pon", "tiles": "111z"}],
    }
    code, message = err(line, "nekohouse-3a")
    assert code == "invalid_input" and "no chi" in message


def test_north_seat_in_three_player():
    code, message = err(
        {"hand": "123789p11999s777z", "win": "3p", "seat_wind": "N"}, "nekohouse-3a"
    )
    assert code == "invalid_input" and "E, S and W" in message


def test_not_a_line():
    assert err([1, 2])[0] == "invalid_input"
    assert err("hand")[0] == "invalid_input"


def test_not_agari_and_no_yaku():
    assert err({"hand": "123m456p789s12344z", "win": "1z"})[0] == "not_agari"
    assert err({"hand": "123m456p789s234s11z", "win": "2s"})[0] == "no_yaku"


def test_unknown_fields_are_ignored_and_id_is_echoed():
    out = score_hand({**GOOD, "id": {"table": 3}, "comment": "from the tablet"}, "netmahjong")
    assert out["ok"] and out["id"] == {"table": 3}


def test_a_refused_line_changes_nothing():
    """Scoring a bad line leaves nothing behind: the same good line scores the same after it."""
    before = score_hand(GOOD, "netmahjong")
    err({**GOOD, "hand": "22222m456p678s555s", "win": "2m"})
    assert score_hand(GOOD, "netmahjong") == before


def test_parse_input_gives_a_hand_input():
    inp = parse_input({**GOOD, "dora": "1m", "melds": []}, load_rules("netmahjong"))
    assert isinstance(inp, HandInput) and inp.riichi and not inp.dealer and inp.dora == [0]


def test_mcr_rules_go_to_the_mcr_engine():
    out = score_hand({"id": 1, "hand": "123m456p789s123s11z", "win": "1z", "tsumo": True}, "mcr")
    assert out["id"] == 1 and "fan" in out
