"""scoring.rating (pure): the Tenhou-style R rating against games worked out by hand.

Formula (天鳳 マニュアル「レーティング」, scoring.rating.SOURCE):
change = (base + (table average R - own R) / 40) x (1 - 0.002 x games before; 0.2 from
400 games) x length scale; bases +30/+10/-10/-30 (four players), +30/0/-30 (three);
a hanchan scales by 1, a tonpuu by 2/3.
"""

from __future__ import annotations

import pytest

from scoring import rating
from scoring.rating import Ladder, RatedGame, RatedSeat, Standing


def game(gid: int, ranks: dict[str | None, int], length: str = "hanchan") -> RatedGame:
    return RatedGame(gid, f"2026-04-01T10:{gid:02d}:00", length,
                     tuple(RatedSeat(p, r) for p, r in ranks.items()))


def test_rating_first_game_moves_by_the_placement_base():
    # everybody new at 1500: the average term is 0, the correction 1 - 0 x 0.002 = 1
    lines = Ladder().apply(game(1, {"A": 1, "B": 2, "C": 3, "D": 4}))
    assert [(x.player, x.change, x.after.rating) for x in lines] == [
        ("A", 30.0, 1530.0), ("B", 10.0, 1510.0), ("C", -10.0, 1490.0), ("D", -30.0, 1470.0),
    ]
    assert [x.after.games for x in lines] == [1, 1, 1, 1]


def test_rating_second_game_counts_the_table_average_and_the_games_played():
    ladder = Ladder()
    ladder.apply(game(1, {"A": 1, "B": 2, "C": 3, "D": 4}))
    lines = ladder.apply(game(2, {"A": 4, "B": 3, "C": 2, "D": 1}))
    # average (1530 + 1510 + 1490 + 1470) / 4 = 1500; correction 1 - 1 x 0.002 = 0.998
    # A: (-30 + (1500 - 1530) / 40) x 0.998 = -30.75 x 0.998 = -30.6885
    # B: (-10 - 0.25) x 0.998 = -10.2295; C: (10 + 0.25) x 0.998; D: (30 + 0.75) x 0.998
    assert [x.change for x in lines] == pytest.approx([-30.6885, -10.2295, 10.2295, 30.6885])
    assert [x.after.rating for x in lines] == pytest.approx(
        [1499.3115, 1499.7705, 1500.2295, 1500.6885])
    assert ladder.standing("A").peak == 1530.0


def test_rating_settled_player_moves_a_fifth():
    # 400 games or more: correction 0.2. Own R 2000 at a table of 2100, 1900, 2000
    # (average 2000), fourth: 0.2 x (-30 + 0) = -6
    ladder = Ladder(standings={p: Standing(r, 500) for p, r in
                               {"me": 2000.0, "x": 2100.0, "y": 1900.0, "z": 2000.0}.items()})
    lines = {x.player: x for x in ladder.apply(game(1, {"x": 1, "y": 2, "z": 3, "me": 4}))}
    assert lines["me"].change == pytest.approx(-6.0)
    # x: 0.2 x (30 + (2000 - 2100) / 40) = 0.2 x 27.5 = 5.5; y: 0.2 x (10 + 2.5) = 2.5
    assert lines["x"].change == pytest.approx(5.5)
    assert lines["y"].change == pytest.approx(2.5)


def test_rating_correction_reaches_the_floor_at_400_games():
    assert rating.games_correction(0) == 1
    assert rating.games_correction(250) == pytest.approx(0.5)
    assert rating.games_correction(399) == pytest.approx(0.202)
    assert rating.games_correction(400) == 0.2
    assert rating.games_correction(5000) == 0.2


def test_rating_three_player_tonpuu_is_two_thirds_of_thirty():
    # three-player bases +30 / 0 / -30, a tonpuu scaled by 2/3: +20 / 0 / -20
    lines = Ladder().apply(game(1, {"A": 1, "B": 2, "C": 3}, "tonpuu"))
    assert [x.change for x in lines] == pytest.approx([20.0, 0.0, -20.0])
    # a four-player tonpuu: 20, 6.67, -6.67, -20
    lines = Ladder().apply(game(2, {"A": 1, "B": 2, "C": 3, "D": 4}, "tonpuu"))
    assert [x.change for x in lines] == pytest.approx([20, 20 / 3, -20 / 3, -20])


def test_rating_mcr_four_wind_game_counts_as_a_hanchan():
    lines = Ladder().apply(game(1, {"A": 2, "B": 1, "C": 4, "D": 3}, "issou"))
    assert [x.change for x in lines] == [10.0, 30.0, -30.0, -10.0]


def test_rating_shared_places_share_their_bases():
    # 1st and 2nd tied: (30 + 10) / 2 = 20 each; the others as usual
    lines = Ladder().apply(game(1, {"A": 1, "B": 1, "C": 3, "D": 4}))
    assert [x.change for x in lines] == [20.0, 20.0, -10.0, -30.0]
    # 2nd to 4th tied: (10 - 10 - 30) / 3 = -10 each
    lines = Ladder().apply(game(2, {"A": 1, "B": 2, "C": 2, "D": 2}))
    assert [x.change for x in lines] == [30.0, -10.0, -10.0, -10.0]


def test_rating_guests_count_at_1500_in_the_average_and_get_no_line():
    ladder = Ladder(standings={"A": Standing(1600.0, 10), "B": Standing(1400.0, 10),
                               "C": Standing(1500.0, 10)})
    lines = ladder.apply(game(1, {"A": 2, None: 1, "B": 3, "C": 4}))
    assert [x.player for x in lines] == ["A", "B", "C"]
    # average (1600 + 1500 + 1400 + 1500) / 4 = 1500; correction 1 - 10 x 0.002 = 0.98
    # A: (10 + (1500 - 1600) / 40) x 0.98 = 7.5 x 0.98 = 7.35
    # B: (-10 + 2.5) x 0.98 = -7.35; C: -30 x 0.98 = -29.4
    assert [x.change for x in lines] == pytest.approx([7.35, -7.35, -29.4])
    assert [x.seat for x in lines] == [0, 2, 3]


def test_rating_sum_is_zero_when_everyone_has_the_same_games():
    ladder = Ladder()
    for gid, order in enumerate(["ABCD", "DCBA", "BADC", "CDAB", "ACBD"], start=1):
        lines = ladder.apply(game(gid, {p: i + 1 for i, p in enumerate(order)}))
        assert sum(x.change for x in lines) == pytest.approx(0, abs=1e-9)


def test_rating_refuses_a_game_it_cannot_rate():
    with pytest.raises(rating.RatingError):
        rating.rating_changes([1500.0] * 2, [0, 0], [1, 2], "hanchan")
    with pytest.raises(rating.RatingError, match="unknown game length"):
        rating.rating_changes([1500.0] * 4, [0] * 4, [1, 2, 3, 4], "marathon")
    with pytest.raises(rating.RatingError, match="placements"):
        rating.rating_changes([1500.0] * 4, [0] * 4, [2, 2, 3, 4], "hanchan")


def test_rating_run_equals_one_game_at_a_time():
    games = [game(i, {p: (i + j) % 4 + 1 for j, p in enumerate("ABCD")}) for i in range(1, 30)]
    all_at_once = Ladder().run(games)
    one_by_one, ladder = [], Ladder()
    for g in games:
        # a fresh ladder each time, seeded with what the last one left (as a store does)
        ladder = Ladder(standings=dict(ladder.standings))
        one_by_one.extend(ladder.apply(g))
    assert all_at_once == one_by_one
