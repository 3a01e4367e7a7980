"""Leaderboards from the club database: the summary tables kept in step with the games
(finish, staff correction, void), club days that end at the closing hour, periods,
rule families never mixed, the pages and their errors, ``python -m web leaderboard``.

The fixture club plays the hand-computed games of ``test_stats`` through the web
app's own ``club.games`` functions (the same path as a tablet), then dates them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from datetime import date, timedelta

import pytest

from club import club_tables, corrections, games, roster, stats_store
from club.db import connect
from scoring import stats
from tests.scoring.test_stats import EXPECTED, G1, G2, G3
from tests.support.web_server import ROOT
from web import create_app

# G1 finishes 20:00 JST on 03-31; G2 at 02:30 JST on 04-02 (before the 05:00 closing:
# club day 04-01); G3 at 06:00 JST on 04-02 (club day 04-02).
FINISHED = [
    "2026-03-31T11:00:00.000+00:00",
    "2026-04-01T17:30:00.000+00:00",
    "2026-04-01T21:00:00.000+00:00",
]
NOT_FIGURES = ("name", "player_id", "rating", "rating_games", "dan_level", "dan_points")
"""Fields of a stored leaderboard row beside the pure figures: who, and their R and dan."""
SANMA = [
    {"event": "start", "players": list("ABC")},
    {"event": "win", "winners": [{"seat": 1, "han": 5, "fu": 30}], "from": 0},
    {"event": "end"},
]


def play(db, table: str, ids: list[int], events: list[dict], finished_at: str | None) -> int:
    """Start and play a game through club.games; date its finish (tests control the clock)."""
    gid = games.start_game(db, table, ids, idempotency_key=uuid.uuid4().hex)["game"]["id"]
    for seq, ev in enumerate(events[1:], start=1):
        games.record_event(db, gid, ev, expected_seq=seq, idempotency_key=uuid.uuid4().hex)
    if finished_at:
        db.execute("UPDATE games SET finished_at = ? WHERE id = ?", [finished_at, gid])
        stats_store.refresh_stored(db, gid)
    return gid


def build_club(path: str) -> dict:
    """The fixture club: players A-E, three riichi4 games, one sanma game."""
    app = create_app({"DATABASE": path, "SECRET_KEY": "x", "TESTING": True, "COOKIE_SECURE": False})
    db = connect(path)
    club_tables.save_table(db, "t1", "卓1", "nekohouse-4a")
    club_tables.save_table(db, "t3", "卓3", "nekohouse-3a")
    ids = {n: roster.add_player(db, n)["id"] for n in "ABCDE"}
    seat = lambda names: [ids[n] for n in names]  # noqa: E731
    gids = [
        play(db, "t1", seat(g[0]["players"]), g, when)
        for g, when in zip((G1, G2, G3), FINISHED, strict=True)
    ]
    gids.append(play(db, "t3", seat("ABC"), SANMA, "2026-04-01T12:00:00.000+00:00"))
    db.conn.close()
    return {"app": app, "path": path, "ids": ids, "games": gids}


@pytest.fixture()
def club(tmp_path):
    c = build_club(str(tmp_path / "club.sqlite"))
    c["db"] = connect(c["path"])
    yield c
    c["db"].conn.close()


def board(club, period="all", day="2026-04-02", family="riichi4", **kw):
    first, last = stats_store.period_range(period, day, kw.pop("start", None), kw.pop("end", None))
    return stats_store.leaderboard(club["db"], family, first, last, **kw)


def test_all_time_board_matches_the_hand_computed_figures(club):
    rows = {r["name"]: r for r in board(club)}
    assert [r["name"] for r in board(club)] == list("EDABC")
    for player, figs in EXPECTED.items():
        for fid, want in figs.items():
            got = rows[player][fid]
            assert got == (None if want is None else pytest.approx(want)), (player, fid, got)


def test_sql_sums_equal_the_pure_leaderboard(club):
    db = club["db"]
    lines = [
        stats_store._as_line(r)
        for r in db.execute(f"{stats_store._LINE_SQL} WHERE family = 'riichi4'")
    ]
    pure = stats.leaderboard(lines)
    sql = board(club)
    assert [{k: v for k, v in r.items() if k not in NOT_FIGURES} for r in sql] == pure


def test_club_day_ends_at_the_closing_hour(club):
    db = club["db"]
    days = dict(db.execute("SELECT game_id, club_day FROM stats_lines GROUP BY game_id"))
    assert [days[g] for g in club["games"][:3]] == ["2026-03-31", "2026-04-01", "2026-04-02"]
    assert [r["name"] for r in board(club, "day", "2026-04-01")] == list("EDCB")
    assert {r["name"]: r["games"] for r in board(club, "month")} == {
        "A": 1,
        "B": 2,
        "C": 2,
        "D": 2,
        "E": 1,
    }
    assert board(club, "season") == board(club, "month")
    assert {r["name"] for r in board(club, "range", start="2026-03-31", end="2026-03-31")} == set(
        "ABCD"
    )
    cfg = {"closing_hour": "05:00", "timezone": "Asia/Tokyo"}
    assert stats_store.club_day_of("2026-04-01T19:59:59+00:00", cfg) == "2026-04-01"
    assert stats_store.club_day_of("2026-04-01T20:00:00+00:00", cfg) == "2026-04-02"
    assert stats_store.day_bounds("2026-04-01", cfg) == (
        "2026-03-31T20:00:00.000+00:00",
        "2026-04-01T20:00:00.000+00:00",
    )


def test_changing_the_closing_hour_rebuilds(club):
    stats_store.configure(club["db"], closing_hour="03:00")
    days = dict(club["db"].execute("SELECT game_id, club_day FROM stats_lines GROUP BY game_id"))
    assert days[club["games"][1]] == "2026-04-01"  # 02:30 JST is still before 03:00
    stats_store.configure(club["db"], closing_hour="02:00")
    days = dict(club["db"].execute("SELECT game_id, club_day FROM stats_lines GROUP BY game_id"))
    assert days[club["games"][1]] == "2026-04-02"
    with pytest.raises(games.UserError, match="HH:MM"):
        stats_store.configure(club["db"], closing_hour="5 am")
    with pytest.raises(games.UserError, match="IANA"):
        stats_store.configure(club["db"], timezone_name="Mars/Olympus")


def test_families_are_never_mixed(club):
    assert stats_store.families_played(club["db"]) == ["riichi4", "riichi3"]
    sanma = board(club, family="riichi3")
    assert [(r["name"], r["games"], r["rank"]) for r in sanma] == [
        ("B", 1, 1),
        ("C", 1, 2),
        ("A", 1, 3),
    ]
    assert sum(r["games"] for r in board(club)) == 12  # 3 games x 4 seats, no sanma in it
    with pytest.raises(games.UserError, match="riichi4, riichi3, boo, mcr"):
        board(club, family="riichi")


def test_void_and_correction_keep_the_board_in_step(club):
    db, g2, g3 = club["db"], club["games"][1], club["games"][2]
    corrections.void_game(db, g2, actor="mika", reason="wrong players seated")
    rows = {r["name"]: r for r in board(club)}
    assert "E" not in rows and rows["B"]["games"] == 2 and rows["D"]["total"] == 52000 - 17000
    # staff correct G3's last hand: A's mangan tsumo becomes B's (B now tops G3)
    corrections.correct_hand(
        db,
        g3,
        2,
        {"event": "win", "winners": [{"seat": 1, "han": 5, "fu": 30}]},
        actor="mika",
        reason="wrong winner entered",
    )
    rows = {r["name"]: r for r in board(club)}
    assert rows["B"]["firsts"] == 1 and rows["A"]["firsts"] == 0
    assert (
        rows["B"]["total"]
        == 11000 + stats_store.leaderboard(db, "riichi4", "2026-04-02", "2026-04-02")[0]["total"]
    )
    # the summary equals a rebuild from the events
    before = db.execute_returning_dicts("SELECT * FROM stats_days ORDER BY 1, 2, 3")
    stats_store.rebuild_all(db)
    assert db.execute_returning_dicts("SELECT * FROM stats_days ORDER BY 1, 2, 3") == before


def test_a_live_game_is_not_counted_until_it_finishes(club):
    db, ids = club["db"], club["ids"]
    gid = games.start_game(db, "t1", [ids[n] for n in "ABCD"], idempotency_key=uuid.uuid4().hex)[
        "game"
    ]["id"]
    games.record_event(db, gid, G3[1], expected_seq=1, idempotency_key=uuid.uuid4().hex)
    assert not db.execute("SELECT 1 FROM stats_lines WHERE game_id = ?", [gid]).fetchone()
    games.record_event(db, gid, {"event": "end"}, expected_seq=2, idempotency_key=uuid.uuid4().hex)
    assert (
        db.execute("SELECT COUNT(*) FROM stats_lines WHERE game_id = ?", [gid]).fetchone()[0] == 4
    )


def test_minimum_games_and_bad_periods(club):
    assert [r["name"] for r in board(club, min_games=3)] == list("DBC")
    with pytest.raises(games.UserError, match="day, month, season, all, range"):
        board(club, "week")
    with pytest.raises(games.UserError, match="YYYY-MM-DD"):
        board(club, "day", "1/4/2026")
    with pytest.raises(games.UserError, match="swap"):
        board(club, "range", start="2026-04-02", end="2026-04-01")


# --------------------------------------------------------------------------- pages
def test_leaderboard_page_japanese_and_english(club):
    c = club["app"].test_client()
    r = c.get("/leaderboard/?family=riichi4&period=all&day=2026-04-02")
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and "合計" in html and "トップ率" in html and "<svg" in html
    assert html.index(">E<") < html.index(">D<") < html.index(">C<")
    html = c.get("/leaderboard/?period=month&day=2026-04-02&lang=en").get_data(as_text=True)
    assert "Leaderboard" in html and "top rate" in html
    data = c.get("/leaderboard/?period=day&day=2026-04-01&format=json").get_json()
    assert [r["name"] for r in data["rows"]] == list("EDCB")
    assert (data["first_day"], data["last_day"]) == ("2026-04-01", "2026-04-01")


def test_player_and_game_pages(club):
    c = club["app"].test_client()
    html = c.get(f"/leaderboard/players/{club['ids']['B']}?family=riichi4").get_data(as_text=True)
    assert 'class="chart results-chart"' in html and 'class="chart placement-chart"' in html
    assert "2026-03" in html and "2026-04" in html  # figures month by month
    assert html.count("<rect") >= 3 + 4  # a bar per game, a bar per placement
    html = c.get(f"/leaderboard/games/{club['games'][0]}").get_data(as_text=True)
    assert 'class="chart score-lines"' in html and html.count("<polyline") == 4
    assert "+52.0" in html  # the settled result in thousands, the club's form


@pytest.mark.parametrize(
    "url, status, words",
    [
        ("/leaderboard/?period=week", 400, "choose one of day, month"),
        ("/leaderboard/?family=riichi", 400, "unknown rule family"),
        ("/leaderboard/?min_games=abc", 400, "min_games: abc is out of range"),
        ("/leaderboard/?period=day&day=2026-13-01", 400, "is not a day: write it as YYYY-MM-DD"),
        ("/leaderboard/players/999", 404, "no player number 999"),
        ("/leaderboard/games/999", 404, "no game number 999"),
    ],
)
def test_bad_requests_are_answered_in_words(club, url, status, words):
    r = club["app"].test_client().get(url, headers={"Accept-Language": "en"})
    assert r.status_code == status and words in r.get_data(as_text=True)
    ja = club["app"].test_client().get(url)
    assert ja.status_code == status and words not in ja.get_data(as_text=True)


# --------------------------------------------------------------------------- CLI
def run_cli(*argv):
    return subprocess.run(
        [sys.executable, "-m", "web", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def test_leaderboard_command(club):
    r = run_cli(
        "leaderboard",
        "--db",
        club["path"],
        "--period",
        "all",
        "--day",
        "2026-04-02",
        "--min-games",
        "2",
    )
    assert r.returncode == 0, r.stderr
    names = [ln.split()[1] for ln in r.stdout.splitlines()[2:]]
    assert names == list("DABC")
    r = run_cli(
        "leaderboard",
        "--db",
        club["path"],
        "--json",
        "--family",
        "riichi3",
        "--period",
        "range",
        "--start",
        "2026-04-01",
        "--end",
        "2026-04-30",
    )
    assert r.returncode == 0 and [x["name"] for x in json.loads(r.stdout)["rows"]] == list("BCA")
    r = run_cli("leaderboard", "--db", club["path"], "--period", "day", "--day", "tomorrow")
    assert r.returncode == 2 and "YYYY-MM-DD" in r.stderr and "Traceback" not in r.stderr


def test_club_day_command(club):
    r = run_cli("club-day", "--db", club["path"])
    assert r.returncode == 0 and "05:00 (Asia/Tokyo)" in r.stdout
    r = run_cli("club-day", "--db", club["path"], "--closing-hour", "25:99")
    assert r.returncode == 2 and "HH:MM" in r.stderr


@pytest.mark.parametrize("seed", range(3))
def test_day_rows_kept_in_step_agree_with_the_pure_figures(tmp_path, seed):
    """Random lines added and removed day by day, in any order: the SQL board of any
    range equals ``scoring.stats.leaderboard`` of the same lines (streaks included)."""
    import random

    rng = random.Random(seed)
    path = str(tmp_path / "c.sqlite")
    create_app({"DATABASE": path, "SECRET_KEY": "x", "TESTING": True})
    db = connect(path)
    db.execute("PRAGMA foreign_keys = OFF")  # lines without games: only the sums are tested
    # four months, so ranges cover whole months (month rows) and partial ones (day rows)
    days = [(date(2026, 3, 1) + timedelta(days=d)).isoformat() for d in range(0, 122, 3)]
    live: dict[int, list[dict]] = {}
    for gid in range(1, 81):
        day = rng.choice(days)
        players = rng.sample(range(1, 7), 4)
        ranks = rng.sample(range(1, 5), 4)
        rows = [
            {
                "game_id": gid,
                "seat": s,
                "player_id": p,
                "family": "riichi4",
                "club_day": day,
                "ended_at": f"{day}T{rng.randrange(10, 23):02d}:00:{gid % 60:02d}+09:00",
                "players": 4,
                "rank": r,
                "result": (2.5 - r) * 10000,
                "final_score": 25000,
                "busted": int(r == 4 and rng.random() < 0.3),
                "hands": 8,
                "wins": rng.randrange(3),
                "tsumo_wins": 0,
                "deal_ins": rng.randrange(3),
                "riichi": 1,
                "win_points": 5000,
                "deal_in_points": 3000,
                "chips": 0,
                "penalties": 0,
                "chombo": 0,
            }
            for s, (p, r) in enumerate(zip(players, ranks, strict=True))
        ]
        stats_store.insert_lines(db, rows)
        live[gid] = rows
        for r in rows:
            stats_store._refresh_day(db, "riichi4", day, r["player_id"])
        if rng.random() < 0.2:  # a void: its lines go, the later days' running counts follow
            gone = live.pop(rng.choice(list(live)))
            db.execute("DELETE FROM stats_lines WHERE game_id = ?", [gone[0]["game_id"]])
            for r in gone:
                stats_store._refresh_day(db, "riichi4", r["club_day"], r["player_id"])
    ranges = [sorted(rng.sample(days, 2)) for _ in range(10)]
    ranges += [
        ("0001-01-01", "2026-12-31"),
        ("2026-03-01", "2026-04-30"),
        ("2026-04-01", "2026-06-15"),
    ]
    for a, b in ranges:
        lines = [
            stats_store._as_line([r[c] for c in stats_store.LINE_COLUMNS])
            for rows in live.values()
            for r in rows
            if a <= r["club_day"] <= b
        ]
        pure = stats.leaderboard(lines)
        sql = stats_store.leaderboard(db, "riichi4", a, b)
        assert [{k: v for k, v in r.items() if k not in NOT_FIGURES} for r in sql] == [
            {**r, "total": pytest.approx(r["total"]), "average": pytest.approx(r["average"])}
            for r in pure
        ]
    db.conn.close()


def test_a_failing_summary_never_blocks_the_floor_and_is_repaired(club, monkeypatch):
    db, ids = club["db"], club["ids"]
    gid = games.start_game(db, "t1", [ids[n] for n in "ABCD"], idempotency_key=uuid.uuid4().hex)[
        "game"
    ]["id"]
    games.record_event(db, gid, G3[1], expected_seq=1, idempotency_key=uuid.uuid4().hex)

    def broken(*a, **kw):
        raise RuntimeError("summary bug")

    monkeypatch.setattr(stats_store, "game_lines", broken)
    out = games.record_event(
        db, gid, {"event": "end"}, expected_seq=2, idempotency_key=uuid.uuid4().hex
    )
    assert out["game"]["status"] == "finished"  # the players' hand is recorded regardless
    assert db.execute("SELECT error FROM stats_stale WHERE game_id = ?", [gid]).fetchone() == (
        "RuntimeError: summary bug",
    )
    monkeypatch.undo()
    today = stats_store.today(stats_store.settings(db))
    rows = stats_store.leaderboard(db, "riichi4", today, today)  # repairs first
    assert sorted(r["name"] for r in rows) == list("ABCD")
    assert not db.execute("SELECT 1 FROM stats_stale").fetchone()


def test_names_are_escaped_in_pages_and_charts(club):
    from club import charts

    db = club["db"]
    db.execute("UPDATE players SET name = '<b>A&amp</b>' WHERE id = ?", [club["ids"]["A"]])
    html = (
        club["app"]
        .test_client()
        .get("/leaderboard/?period=all&day=2026-04-02")
        .get_data(as_text=True)
    )
    assert "<b>A&amp</b>" not in html and "&lt;b&gt;A&amp;amp&lt;/b&gt;" in html
    svg = charts.totals_chart([("<x>", 1.0)], "t <&>")
    assert "<x>" not in svg and "&lt;x&gt;" in svg and "t &lt;&amp;&gt;" in svg
    assert charts.totals_chart([("a", 1.5)], "t") == charts.totals_chart([("a", 1.5)], "t")
