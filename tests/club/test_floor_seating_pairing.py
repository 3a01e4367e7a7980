"""Swiss pairing and random seating for event nights (club.floor.pairing), as properties
over random nights: everyone plays each round at exactly one table of the right size, and
no two players meet again when a seating without a rematch exists (the fewest rematches
possible otherwise), checked against every possible seating."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from club.floor import pairing


def partitions(players: list, size: int):
    """Every way to split ``players`` into unordered tables of ``size`` (the oracle)."""
    if not players:
        yield []
        return
    head, rest = players[0], players[1:]
    for others in itertools.combinations(rest, size - 1):
        left = [p for p in rest if p not in others]
        for tail in partitions(left, size):
            yield [[head, *others], *tail]


@st.composite
def nights(draw):
    size = draw(st.sampled_from([3, 4]))
    tables = draw(st.integers(1, 3))
    n = size * tables
    players = list(range(1, n + 1))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    earlier = []
    for _ in range(draw(st.integers(0, 4))):          # rounds already played
        earlier += pairing.random_tables(players, size, rng=rng)
    ranking = players[:]
    rng.shuffle(ranking)
    return size, ranking, pairing.met_pairs(earlier)


@settings(max_examples=120, deadline=None, derandomize=True)
@given(nights())
def test_swiss_everyone_plays_and_no_rematch_when_avoidable(night):
    size, ranking, met = night
    tables = pairing.swiss(ranking, size, met)
    seated = [p for t in tables for p in t]
    assert sorted(seated) == sorted(ranking)                     # everyone, once
    assert all(len(t) == size for t in tables)
    best = min(pairing.rematches(p, met) for p in partitions(sorted(ranking), size))
    assert pairing.rematches(tables, met) == best                # 0 whenever avoidable


def test_swiss_keeps_standing_order_when_nobody_has_met():
    tables = pairing.swiss(list("ABCDEFGH"), 4)
    assert tables == [list("ABCD"), list("EFGH")]


def test_swiss_moves_a_rematch_away_from_the_top_table():
    met = pairing.met_pairs([["A", "B", "E", "F"], ["C", "D", "G", "H"]])
    tables = pairing.swiss(list("ABCDEFGH"), 4, met)
    assert pairing.rematches(tables, met) == 4      # 8 players, tables of 4: 4 are unavoidable
    met = pairing.met_pairs([["A", "B", "C", "D"]])
    tables = pairing.swiss(list("ABCDEFGHIJKLMNOP"), 4, met)
    assert pairing.rematches(tables, met) == 0
    assert tables[0] == ["A", "E", "F", "G"]          # the leader with the next who are new


@pytest.mark.parametrize("players, size, code", [
    (list(range(10)), 4, "not_divisible"), ([1, 1, 2, 3], 4, "player_twice"),
    ([], 4, "not_divisible"),
])
def test_pairing_refuses_what_cannot_be_seated(players, size, code):
    with pytest.raises(pairing.PairingError) as e:
        pairing.swiss(players, size)
    assert e.value.code == code


def test_random_tables_seat_everyone_once():
    tables = pairing.random_tables(range(12), 3)
    assert sorted(p for t in tables for p in t) == list(range(12)) and len(tables) == 4
