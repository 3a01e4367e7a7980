"""Readings and waits, checked against 000 (2) あがり形 / テンパイと待ち of the Net Mahjong
rulebook (seeds/000_75219193aaae2e91.txt), which names each wait and its winning tiles."""

from __future__ import annotations

import pytest

from scoring import decompose as dec
from scoring.tiles import counts34, parse_tiles, tiles_to_str


def c(text):
    return tuple(counts34(parse_tiles(text)))


def waits(text13):
    """Every kind that completes 13 tiles, by the readings (what テンパイ means)."""
    base = list(c(text13))
    out = []
    for k in range(34):
        if base[k] == 4:
            continue
        base[k] += 1
        t = tuple(base)
        if dec.readings(t) or dec.is_chiitoitsu(t) or dec.is_kokushi(t):
            out.append(k)
        base[k] -= 1
    return tiles_to_str(out)


@pytest.mark.parametrize(
    "tenpai, want, kind",
    [
        ("78m123999p234s44z", "69m", dec.RYANMEN),  # 両面待ち 七八 ... 待ち牌: 六 九
        ("89m123999p234s44z", "7m", dec.PENCHAN),  # ペンチャン待ち 八九 ... 待ち牌: 七
        ("79m123999p234s44z", "8m", dec.KANCHAN),  # カンチャン待ち 七九 ... 待ち牌: 八
        ("789m123999p234s4z", "4z", dec.TANKI),  # 単騎待ち ... 北 待ち牌: 北
        ("789m12399p234s44z", "9p4z", dec.SHANPON),  # シャボ待ち ... 待ち牌: (9) 北
    ],
)
def test_the_five_waits(tenpai, want, kind):
    assert waits(tenpai) == want
    win = parse_tiles(want)[0]
    slots = {
        w
        for pair, sets in dec.readings(c(tenpai + tiles_to_str([win])))
        for _, w in dec.wait_slots(pair, sets, win)
    }
    assert slots == {kind}


@pytest.mark.parametrize(
    "tenpai, want",
    [
        ("45678m999p234s44z", "369m"),  # 多面待ち 四伍六七八 (9)(9)(9) 2 3 4 北北: 三 六 九
        ("789m78999p234s44z", "69p4z"),  # 七八九 (7)(8)(9)(9)(9) 2 3 4 北北: (6) (9) 北
        ("1112345666m444z", "1234567m"),  # 一一一二三四伍六六六北北北: 一 二 三 四 伍 六 七
    ],
)
def test_multi_waits(tenpai, want):
    assert waits(tenpai) == want


def test_one_tile_can_complete_several_ways():
    """000 (2) 多面待ち 「あがったときには、上記のどれかに決める必要があります」: 12 + 45m won on 3m
    is both a penchan (123) and a ryanmen (345); scoring tries each."""
    hand = c("123345m999p234s44z")
    win = parse_tiles("3m")[0]
    found = {w for pair, sets in dec.readings(hand) for _, w in dec.wait_slots(pair, sets, win)}
    assert found == {dec.PENCHAN, dec.RYANMEN}


def test_readings_are_every_split_and_each_suit_is_memoized():
    hand = c("111222333m456p77s")
    rs = dec.readings(hand)
    shapes = {tuple(sorted(s[0] for s in sets)) for _, sets in rs}
    assert (dec.SEQ, dec.SEQ, dec.SEQ, dec.SEQ) in shapes and (
        dec.SEQ,
        dec.TRIP,
        dec.TRIP,
        dec.TRIP,
    ) in shapes
    kinds = tuple(k for k, n in enumerate(hand) for _ in range(n))
    assert dec.shape(kinds)[0] == rs
    # each suit's readings are memoized on its kinds: asked again, the same answer object
    assert dec._suit_options(kinds[:9]) is dec._suit_options(kinds[:9])


def test_not_a_hand_has_no_reading():
    assert dec.readings(c("123m456p789s1234z")) == ()
    assert dec.readings(c("1133557799m1357p")) == ()


def test_seven_pairs_and_four_of_a_kind():
    """002 4A 「七対子の4枚使いはできません」 / 4B 「可能です」: the caller chooses."""
    assert dec.is_chiitoitsu(c("1133557799m1122z"))
    four = c("1111557799m1122z")
    assert not dec.is_chiitoitsu(four) and dec.is_chiitoitsu(four, four_as_two_pairs=True)


def test_kokushi_thirteen_sided():
    """000 (5) 国士無双: 13 kinds of terminals and honours plus one of them twice."""
    assert waits("19m19p19s1234567z") == "19m19p19s1234567z"
    assert dec.is_kokushi(c("119m19p19s1234567z"))
    assert not dec.is_kokushi(c("129m19p19s1234567z"))
