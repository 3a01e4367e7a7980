"""R ratings and dan levels kept in step with the games played through ``club.games``: a
game's finish rates it, a staff correction, a void or a later finish re-rates what
follows, and every time the stored ratings equal a rebuild from the events.

Games are the hand-computed ones of ``tests/scoring/test_stats.py`` (nekohouse-4a
hanchan, 002 ねこはうす 4A) plus a netmahjong tonpuu (000 (3) 「東風戦がデフォルト」).
"""

from __future__ import annotations

import uuid

import pytest

from club import club_tables, corrections, games, rating_store, roster, stats_store
from club.db import connect
from club.errors import UserError
from club.standings import KeyRefused
from tests.scoring.test_stats import G1, G2, G3
from tests.web.test_leaderboard import play
from web import create_app

TONPUU = [
    {"event": "start", "players": list("ABCD")},
    {"event": "win", "winners": [{"seat": 3, "han": 5, "fu": 30}], "from": 0},
    {"event": "end"},
]
DAN = """
[riichi4]
points = [20, 10, 0, -10]
[[riichi4.level]]
name = ["新人", "Novice"]
promote = 15
[[riichi4.level]]
name = ["初段", "1 dan"]
start = 5
demote = true
"""


def snapshot(db) -> tuple:
    lines = db.execute(
        f"SELECT {', '.join(rating_store.LINE_COLUMNS)} FROM rating_lines "
        "ORDER BY family, ended_at, game_id, seat"
    ).fetchall()
    now = db.execute("SELECT * FROM ratings ORDER BY family, player_id").fetchall()
    return lines, now


def rebuilt(db) -> tuple:
    """The ratings as a rebuild from every game's events makes them (then put back)."""
    before = snapshot(db)
    stats_store.rebuild_all(db)
    after = snapshot(db)
    return before, after


@pytest.fixture()
def club(tmp_path):
    path = str(tmp_path / "club.sqlite")
    create_app({"DATABASE": path, "SECRET_KEY": "x", "TESTING": True, "COOKIE_SECURE": False})
    db = connect(path)
    club_tables.save_table(db, "t1", "卓1", "nekohouse-4a")
    club_tables.save_table(db, "t2", "卓2", "netmahjong")
    ids = {n: roster.add_player(db, n)["id"] for n in "ABCDE"}
    ids["G"] = roster.add_player(db, "ゲスト", guest=True)["id"]
    yield {"db": db, "ids": ids, "seat": lambda names: [ids[n] for n in names]}
    db.conn.close()


def r_of(db, ids: dict, name: str, family: str = "riichi4"):
    row = rating_store.current(db, family, [ids[name]]).get(ids[name])
    return None if row is None else (round(row["rating"], 6), row["games"])


def test_rating_follows_each_finished_game(club):
    db, ids, seat = club["db"], club["ids"], club["seat"]
    # G1 (players ABCD): ranks A 4th, B 2nd, C 3rd, D 1st (test_stats EXPECTED)
    play(db, "t1", seat("ABCD"), G1, "2026-03-31T11:00:00.000+00:00")
    assert {n: r_of(db, ids, n) for n in "ABCD"} == {
        "A": (1470.0, 1), "B": (1510.0, 1), "C": (1490.0, 1), "D": (1530.0, 1)}
    assert r_of(db, ids, "E") is None
    # G2 (BCDE): E 1st, D 2nd, C 3rd, B 4th; average (1510 + 1490 + 1530 + 1500) / 4 = 1507.5
    # B: (-30 + (1507.5 - 1510) / 40) x 0.998 = -30.0625 x 0.998 = -30.002375
    # E (new): (30 + 7.5 / 40) x 1 = 30.1875
    play(db, "t1", seat("BCDE"), G2, "2026-04-01T17:30:00.000+00:00")
    assert r_of(db, ids, "B") == (round(1510 - 30.002375, 6), 2)
    assert r_of(db, ids, "E") == (1530.1875, 1)
    before, after = rebuilt(db)
    assert before == after


def test_rating_guest_has_no_rating_and_counts_as_1500(club):
    db, ids, seat = club["db"], club["ids"], club["seat"]
    play(db, "t1", seat("ABCD"), G1, "2026-03-31T11:00:00.000+00:00")  # A 1470, D 1530
    # G3 with the guest in B's seat: A 2nd? G3: seat 1 rons seat 2, seat 0 tsumo mangan
    play(db, "t1", seat("AGCD"), G3, "2026-04-01T21:00:00.000+00:00")
    assert rating_store.current(db, "riichi4", [ids["G"]]) == {}
    guest_lines = db.execute("SELECT COUNT(*) FROM rating_lines WHERE player_id = ?",
                             [ids["G"]]).fetchone()[0]
    assert guest_lines == 0
    # the table average takes the guest at 1500: (1470 + 1500 + 1490 + 1530) / 4 = 1497.5
    line = db.execute("SELECT r_before, change FROM rating_lines WHERE player_id = ? AND "
                      "game_id = (SELECT MAX(id) FROM games)", [ids["A"]]).fetchone()
    rank = db.execute("SELECT rank FROM stats_lines WHERE player_id = ? AND "
                      "game_id = (SELECT MAX(id) FROM games)", [ids["A"]]).fetchone()[0]
    base = {1: 30, 2: 10, 3: -10, 4: -30}[rank]
    assert line[0] == 1470.0
    assert line[1] == pytest.approx((base + (1497.5 - 1470) / 40) * 0.998)


def test_rating_tonpuu_moves_two_thirds(club):
    db, seat = club["db"], club["seat"]
    play(db, "t2", seat("ABCD"), TONPUU, "2026-03-31T11:00:00.000+00:00")
    ranks = dict(db.execute("SELECT player_id, rank FROM stats_lines").fetchall())
    changes = dict(db.execute("SELECT player_id, change FROM rating_lines").fetchall())
    for pid, rank in ranks.items():
        assert changes[pid] == pytest.approx({1: 30, 2: 10, 3: -10, 4: -30}[rank] * 2 / 3)


def test_rating_correction_and_void_rerate_the_later_games(club):
    db, ids, seat = club["db"], club["ids"], club["seat"]
    g1 = play(db, "t1", seat("ABCD"), G1, "2026-03-31T11:00:00.000+00:00")
    g2 = play(db, "t1", seat("BCDE"), G2, "2026-04-01T17:30:00.000+00:00")
    play(db, "t1", seat("ABCD"), G3, "2026-04-01T21:00:00.000+00:00")
    first = snapshot(db)
    # staff correct G1's last win (D's mangan tsumo becomes A's): A's placement changes
    seq = [e["seq"] for e in games.game_view(db, g1)["events"]
           if e["event"].get("event") == "win"][-1]
    corrections.correct_hand(db, g1, seq,
                             {"event": "win", "winners": [{"seat": 0, "han": 5, "fu": 30}]},
                             actor="staff", reason="wrong winner entered")
    corrected = snapshot(db)
    assert corrected != first
    assert rebuilt(db)[0] == corrected
    # voiding G2 takes E out of the ratings and re-rates G3 from G1's standings
    corrections.void_game(db, g2, actor="staff", reason="played under the wrong rules")
    assert r_of(db, ids, "E") is None
    voided = snapshot(db)
    assert rebuilt(db)[0] == voided
    assert all(line[1] != g2 for line in voided[0])


def test_rating_game_finished_earlier_is_rated_in_its_place(club):
    db, seat = club["db"], club["seat"]
    play(db, "t1", seat("ABCD"), G1, "2026-04-02T11:00:00.000+00:00")
    play(db, "t1", seat("BCDE"), G2, "2026-04-02T12:00:00.000+00:00")
    # a game that finished before both, entered late: every later game is re-rated
    play(db, "t1", seat("ABCD"), G3, "2026-04-01T11:00:00.000+00:00")
    order = [r[0] for r in db.execute(
        "SELECT DISTINCT game_id FROM rating_lines ORDER BY ended_at, game_id")]
    assert order == [3, 1, 2]
    before, after = rebuilt(db)
    assert before == after


def test_rating_dan_table_upload_rerates_and_refuses_naming_the_key(club):
    db, ids, seat = club["db"], club["ids"], club["seat"]
    play(db, "t1", seat("ABCD"), G1, "2026-03-31T11:00:00.000+00:00")  # D 1st, B 2nd
    play(db, "t1", seat("BCDE"), G2, "2026-04-01T17:30:00.000+00:00")  # E 1st, D 2nd
    rating_store.save_dan_table(db, DAN, actor="owner")
    levels = {n: rating_store.current(db, "riichi4", [ids[n]])[ids[n]] for n in "ABCDE"}
    # D: 20 + 10 = 30 >= 15 after the first game: 初段 at 5, then +10 = 15 (no higher level)
    assert (levels["D"]["dan_level"], levels["D"]["dan_points"]) == (1, 15)
    # E: 20 -> 初段 at 5; B: 10 then 4th (-10) = 0; A: 4th -> 0
    assert (levels["E"]["dan_level"], levels["E"]["dan_points"]) == (1, 5)
    assert (levels["B"]["dan_level"], levels["B"]["dan_points"]) == (0, 0)
    # the next game goes on from there: D 4th in 初段, 15 - 10 = 5
    play(db, "t1", seat("ABCD"), G3, "2026-04-01T21:00:00.000+00:00")
    assert rebuilt(db)[0] == snapshot(db)
    with pytest.raises(KeyRefused) as e:
        rating_store.save_dan_table(db, DAN.replace("promote = 15", "promote = -1"), actor="x")
    assert "riichi4.level[0].promote" in e.value.message
    with pytest.raises(UserError):
        rating_store.save_dan_table(db, "[riichi4\n", actor="x")
    # nothing changed by the refusals
    assert rating_store.current(db, "riichi4", [ids["D"]])[ids["D"]]["dan_level"] is not None


def test_rating_rows_on_the_leaderboard_are_as_of_the_periods_end(club):
    db, seat = club["db"], club["seat"]
    play(db, "t1", seat("ABCD"), G1, "2026-03-31T11:00:00.000+00:00")
    play(db, "t1", seat("BCDE"), G2, "2026-04-01T17:30:00.000+00:00")
    march = {r["name"]: r for r in stats_store.leaderboard(db, "riichi4", "2026-03-01",
                                                            "2026-03-31")}
    assert march["B"]["rating"] == 1510.0 and march["B"]["rating_games"] == 1
    april = {r["name"]: r for r in stats_store.leaderboard(db, "riichi4", "2026-01-01",
                                                            "2026-04-30")}
    assert april["B"]["rating"] == pytest.approx(1510 - 30.002375)
    by_r = stats_store.leaderboard(db, "riichi4", "2026-01-01", "2026-04-30", order="rating")
    # D 2nd in G2: 1530 + (10 + (1507.5 - 1530) / 40) x 0.998 = 1539.418625; E 1530.1875
    assert [r["name"] for r in by_r][:2] == ["D", "E"]
    assert by_r[0]["rating"] == pytest.approx(1539.418625)
    assert [r["rank"] for r in by_r] == list(range(1, len(by_r) + 1))
    with pytest.raises(UserError):
        stats_store.leaderboard(db, "riichi4", "2026-01-01", "2026-04-30", order="luck")


def test_rating_key_of_start_is_stable(club):
    """Starting a game and recording hands (not finished) rates nothing."""
    db, seat = club["db"], club["seat"]
    gid = games.start_game(db, "t1", seat("ABCD"), idempotency_key=uuid.uuid4().hex)["game"]["id"]
    games.record_event(db, gid, G1[1], expected_seq=1, idempotency_key=uuid.uuid4().hex)
    assert snapshot(db) == ([], [])
