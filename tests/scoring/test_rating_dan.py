"""scoring.rating: a club's dan (段位) table, promotion and demotion, worked by hand."""

from __future__ import annotations

import tomllib

import pytest

from scoring import rating
from scoring.rating import Ladder, RatedGame, RatedSeat

FAMILIES = {"riichi4": 4, "riichi3": 3, "boo": 4, "mcr": 4}

TABLE = """
[riichi4]
points = [20, 10, 0, -10]
[[riichi4.level]]
name = ["新人", "Novice"]
promote = 30
[[riichi4.level]]
name = ["初段", "1 dan"]
promote = 60
start = 20
demote = true
[[riichi4.level]]
name = ["二段", "2 dan"]
start = 30
demote = true
points = [20, 10, 0, -30]

[riichi3]
start = "初段"
[[riichi3.level]]
name = "初段"
promote = 40
points = [30, 0, -10]
[[riichi3.level]]
name = "二段"
points = [30, 0, -20]
"""


def tables() -> dict[str, rating.DanTable]:
    return rating.dan_tables(tomllib.loads(TABLE), FAMILIES)


def play(ladder: Ladder, gid: int, ranks: dict[str, int]) -> dict[str, rating.RatingLine]:
    g = RatedGame(gid, f"t{gid:03d}", "hanchan", tuple(RatedSeat(p, r) for p, r in ranks.items()))
    return {x.player: x for x in ladder.apply(g)}


def test_rating_dan_promotion_resets_to_the_start_points():
    ladder = Ladder(tables()["riichi4"])
    assert ladder.standing("A").level == 0  # everyone starts at 新人
    play(ladder, 1, {"A": 1, "B": 2, "C": 3, "D": 4})  # A 20, B 10, C 0, D 0 (新人 floors at 0)
    assert (ladder.standing("A").points, ladder.standing("D").points) == (20, 0)
    line = play(ladder, 2, {"A": 2, "B": 1, "C": 3, "D": 4})["A"]  # A 20 + 10 = 30: 初段
    assert (line.after.level, line.after.points, line.dan_moved, line.dan_change) == (1, 20, 1, 10)
    # 初段 20: 1st +20 = 40, 1st +20 = 60 -> 二段 at 30
    play(ladder, 3, {"A": 1, "B": 2, "C": 3, "D": 4})
    line = play(ladder, 4, {"A": 1, "B": 2, "C": 3, "D": 4})["A"]
    assert (line.after.level, line.after.points, line.dan_moved) == (2, 30, 1)


def test_rating_dan_demotion_below_zero_where_the_level_allows():
    t = tables()["riichi4"]
    # 二段 with 10 points, 4th: 10 - 30 = -20 < 0 -> back to 初段 at its start, 20
    step = rating.dan_step(t, 2, 10, -30)
    assert (step.level, step.points, step.moved) == (1, 20, -1)
    # 初段 at 5 points, 4th: -5 -> 新人 at 0
    assert rating.dan_step(t, 1, 5, -10) == rating.DanStep(0, 0, -10, -1)
    # 新人 cannot drop: points stop at 0
    assert rating.dan_step(t, 0, 5, -10) == rating.DanStep(0, 0, -10, 0)
    # exactly 0 stays
    assert rating.dan_step(t, 1, 10, -10) == rating.DanStep(1, 0, -10, 0)


def test_rating_dan_highest_level_never_promotes():
    t = tables()["riichi4"]
    assert rating.dan_step(t, 2, 10_000, 20) == rating.DanStep(2, 10_020, 20, 0)


def test_rating_dan_three_player_ladder_and_its_start_level():
    t = tables()["riichi3"]
    assert t.first == 0 and t.name(1, "en") == "二段"
    ladder = Ladder(t)
    lines = play(ladder, 1, {"A": 1, "B": 2, "C": 3})
    assert [(x.after.level, x.after.points) for x in lines.values()] == [(0, 30), (0, 0), (0, 0)]
    # a four-player game does not move a three-player ladder
    four = Ladder(t)
    lines = play(four, 2, {"A": 1, "B": 2, "C": 3, "D": 4})
    assert all(x.after.points == 0 and x.dan_change == 0 for x in lines.values())


def test_rating_dan_shared_place_shares_points_rounded_half_up():
    ladder = Ladder(tables()["riichi4"])
    lines = play(ladder, 1, {"A": 1, "B": 1, "C": 3, "D": 3})
    # (20 + 10) / 2 = 15; (0 - 10) / 2 = -5 -> 新人 stops at 0
    assert [x.dan_change for x in lines.values()] == [15, 15, -5, -5]


def test_rating_without_a_dan_table_has_no_level():
    lines = play(Ladder(), 1, {"A": 1, "B": 2, "C": 3, "D": 4})
    assert all(x.after.level is None for x in lines.values())


@pytest.mark.parametrize(
    "text, key, reason",
    [
        ("[riichi5]\n", "riichi5", "unknown_family"),
        ("riichi4 = 3\n", "riichi4", "not_table"),
        ("[riichi4]\nlevels = []\n", "riichi4.levels", "unknown_key"),
        ("[riichi4]\n", "riichi4.level", "no_levels"),
        ("[[riichi4.level]]\npoints = [1, 0, 0, -1]\n", "riichi4.level[0].name", "missing_name"),
        ("[[riichi4.level]]\nname = 3\npoints = [1, 0, 0, -1]\n", "riichi4.level[0].name",
         "name_form"),
        ("[[riichi4.level]]\nname = \"a\"\n", "riichi4.level[0].points", "missing_points"),
        ("[[riichi4.level]]\nname = \"a\"\npoints = [1, 0, 0]\n", "riichi4.level[0].points",
         "points_count"),
        ("[[riichi4.level]]\nname = \"a\"\npoints = [1, 0, 0, 1.5]\n",
         "riichi4.level[0].points[3]", "not_whole"),
        ("[riichi4]\npoints = [1, 0, 0, -1]\n[[riichi4.level]]\nname = \"a\"\n"
         "[[riichi4.level]]\nname = \"b\"\n", "riichi4.level[0].promote", "missing_promote"),
        ("[riichi4]\npoints = [1, 0, 0, -1]\n[[riichi4.level]]\nname = \"a\"\npromote = 10\n",
         "riichi4.level[0].promote", "top_promotes"),
        ("[riichi4]\npoints = [1, 0, 0, -1]\n[[riichi4.level]]\nname = \"a\"\npromote = 0\n"
         "[[riichi4.level]]\nname = \"b\"\n", "riichi4.level[0].promote", "too_low"),
        ("[riichi4]\npoints = [1, 0, 0, -1]\n[[riichi4.level]]\nname = \"a\"\npromote = 10\n"
         "start = 10\n[[riichi4.level]]\nname = \"b\"\n", "riichi4.level[0].start",
         "start_promotes"),
        ("[riichi4]\npoints = [1, 0, 0, -1]\n[[riichi4.level]]\nname = \"a\"\ndemote = true\n",
         "riichi4.level[0].demote", "lowest_demotes"),
        ("[riichi4]\npoints = [1, 0, 0, -1]\n[[riichi4.level]]\nname = \"a\"\npromote = 5\n"
         "[[riichi4.level]]\nname = \"b\"\ndemote = \"yes\"\n", "riichi4.level[1].demote",
         "not_bool"),
        ("[riichi4]\npoints = [1, 0, 0, -1]\n[[riichi4.level]]\nname = \"a\"\npromote = 5\n"
         "[[riichi4.level]]\nname = \"a\"\n", "riichi4.level", "name_twice"),
        ("[riichi4]\nstart = \"z\"\npoints = [1, 0, 0, -1]\n[[riichi4.level]]\nname = \"a\"\n",
         "riichi4.start", "unknown_start"),
        ("[riichi4]\npoints = [1, 0, 0, 2000000]\n[[riichi4.level]]\nname = \"a\"\n",
         "riichi4.points[3]", "too_big"),
    ],
)
def test_rating_dan_table_refusals_name_the_key(text, key, reason):
    with pytest.raises(rating.DanTableError) as e:
        rating.dan_tables(tomllib.loads(text), FAMILIES)
    assert (e.value.key, e.value.reason) == (key, reason)
    assert e.value.message.startswith(key + ": ")


# a ladder that starts newcomers above its first rung (docs/stats.md, Dan table)
ABOVE = """
[riichi4]
points = [20, 10, 0, -10]
start = "二段"
[[riichi4.level]]
name = ["初段", "1 dan"]
promote = 100
[[riichi4.level]]
name = ["二段", "2 dan"]
promote = 200
start = 50
demote = true
points = [20, 10, 0, -20]
[[riichi4.level]]
name = ["三段", "3 dan"]
"""


def test_rating_dan_a_newcomer_starts_with_the_start_levels_points():
    # as a promoted player would arrive: a single fourth place does not demote a newcomer
    t = rating.dan_tables(tomllib.loads(ABOVE), FAMILIES)["riichi4"]
    assert (t.first, t.first_points) == (1, 50)
    ladder = Ladder(t)
    assert (ladder.standing("A").level, ladder.standing("A").points) == (1, 50)
    line = play(ladder, 1, {"A": 4, "B": 1, "C": 2, "D": 3})["A"]
    assert (line.after.level, line.after.points, line.dan_moved) == (1, 30, 0)


def test_rating_dan_start_points_on_the_family_override():
    t = rating.dan_tables(tomllib.loads(ABOVE.replace('start = "二段"',
                                                      'start = "二段"\nstart_points = 0')),
                          FAMILIES)["riichi4"]
    assert t.first_points == 0
    line = play(Ladder(t), 1, {"A": 4, "B": 1, "C": 2, "D": 3})["A"]
    assert (line.after.level, line.dan_moved) == (0, -1)  # the club asked for it


@pytest.mark.parametrize("value, reason", [("200", "start_promotes"), ("-1", "too_low"),
                                           ("\"x\"", "not_whole")])
def test_rating_dan_start_points_refusals_name_the_key(value, reason):
    text = ABOVE.replace('start = "二段"', f'start = "二段"\nstart_points = {value}')
    with pytest.raises(rating.DanTableError) as e:
        rating.dan_tables(tomllib.loads(text), FAMILIES)
    assert (e.value.key, e.value.reason) == ("riichi4.start_points", reason)
