"""Ratings, seasons and money where people read them: the leaderboard (R and dan
columns, order by R, a named season with its minimum of games), the player page (R over
time), the tablet (R at game start, the day's account at settlement) and the staff
console (the daily report, its CSV and printable page, the dan table and seasons
uploads with refusals that name the key)."""

from __future__ import annotations

import csv
import io
import re
import subprocess
import sys
import uuid

import pytest

from club import stats_store
from club.accounts import create_staff
from club.db import connect
from tests.club.test_daily_report import DAY, build_day, jst
from tests.support.web import cookie_client
from tests.support.web_server import ROOT

DAN = """
[riichi4]
points = [20, 10, 0, -10]
[[riichi4.level]]
name = ["新人", "Novice"]
promote = 20
[[riichi4.level]]
name = ["初段", "1 dan"]
"""
SEASONS = """
[[season]]
id = "spring"
name = ["春季リーグ", "Spring league"]
start = 2026-04-01
end = 2026-04-30
min_games = 3
family = "riichi4"
"""


@pytest.fixture()
def club(tmp_path):
    from web import create_app

    d = build_day(str(tmp_path / "club.sqlite"))
    app = create_app({"DATABASE": d["path"], "SECRET_KEY": "x", "TESTING": True,
                      "COOKIE_SECURE": False, "LOGIN_GLOBAL_PER_SECOND": 1000.0,
                      "LOGIN_GLOBAL_BURST": 1000})
    db = connect(d["path"])
    create_staff(db, "mika", "mahjong-club")
    stats_store.rank_guests(db, True)  # this club ranks its guests: they show, without an R
    db.conn.close()
    d["app"] = app
    return d


def signed_in(app):
    c = app.test_client()
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    r = c.post("/auth/login", data={"name": "mika", "password": "mahjong-club",
                                    "csrf_token": token})
    assert r.status_code == 302
    return c


def post(c, path, **fields):
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    return c.post(path, data={**fields, "csrf_token": token})


def test_rating_columns_on_the_leaderboard(club):
    c = club["app"].test_client()
    page = c.get(f"/leaderboard/?family=riichi4&period=day&day={DAY}").data.decode()
    assert ">R<" in page and "段位" in page
    rows = c.get(f"/leaderboard/?family=riichi4&period=day&day={DAY}&format=json").get_json()
    by = {r["name"]: r for r in rows["rows"]}
    assert by["ゲスト1"]["rating"] is None  # guests are never rated
    assert all(by[n]["rating"] is not None for n in "ABCDE")
    ranked = c.get(f"/leaderboard/?family=riichi4&period=day&day={DAY}&order=rating"
                   "&format=json").get_json()["rows"]
    ratings = [r["rating"] for r in ranked if r["rating"] is not None]
    assert ratings == sorted(ratings, reverse=True) and ranked[-1]["rank"] is None
    bad = c.get("/leaderboard/?order=luck", headers={"Accept-Language": "en"})
    assert bad.status_code == 400 and "unknown order luck" in bad.data.decode()


def test_rating_guests_stay_off_the_board_unless_the_club_ranks_them(club):
    c = club["app"].test_client()
    url = f"/leaderboard/?family=riichi4&period=day&day={DAY}&format=json"
    assert "ゲスト1" in {r["name"] for r in c.get(url).get_json()["rows"]}
    db = connect(club["path"])
    stats_store.rank_guests(db, False)
    db.conn.close()
    names = {r["name"] for r in c.get(url).get_json()["rows"]}
    assert "ゲスト1" not in names and set("ABCDE") <= names


def test_rating_dan_and_season_standings(club):
    staff = signed_in(club["app"])
    r = post(staff, "/staff/standings/dan", toml=DAN)
    assert r.status_code == 302
    assert "再計算" in staff.get("/staff/standings").data.decode()
    r = post(staff, "/staff/standings/seasons", toml=SEASONS)
    assert r.status_code == 302
    c = club["app"].test_client()
    page = c.get("/leaderboard/?season=spring").data.decode()
    assert "春季リーグ" in page and 'data-testid="provisional"' in page
    q = c.get("/leaderboard/?season=spring&format=json").get_json()
    assert (q["first_day"], q["last_day"], q["min_games"]) == ("2026-04-01", "2026-04-30", 3)
    # riichi4 games in April: A 2 (games 1, 3 + the next day's), B 4, C 4, D 4, E 2, guest 1
    assert {r["name"] for r in q["rows"]} == {"A", "B", "C", "D"}
    assert {r["name"]: r["games"] for r in q["provisional"]} == {"E": 2, "ゲスト1": 1}
    assert {r["name"]: r["dan"] for r in q["rows"]}["D"] in ("新人", "初段")
    missing = c.get("/leaderboard/?season=autumn", headers={"Accept-Language": "en"})
    assert missing.status_code == 404 and "there is no season autumn" in missing.data.decode()


def test_rating_settings_refusals_name_the_key_and_keep_the_text(club):
    staff = signed_in(club["app"])
    bad = DAN.replace("promote = 20", "promote = 0")
    r = post(staff, "/staff/standings/dan", toml=bad)
    page = r.data.decode()
    assert r.status_code == 422
    assert "riichi4.level[0].promote: 0 は 1 未満です" in page
    assert "promote = 0" in page  # the text typed is shown again
    r = post(staff, "/staff/standings/seasons?lang=en",
             toml=SEASONS.replace("2026-04-30", "2026-03-01"))
    assert r.status_code == 422
    assert "season[0].end: the season ends (2026-03-01) before it starts (2026-04-01)" in \
        r.data.decode()
    r = staff.post("/staff/standings/seasons", json={"toml": "[[season]]\nid = 'x y'\n"},
                   headers={"X-CSRF-Token": staff.get("/auth/csrf").get_json()["csrf_token"],
                            "Accept-Language": "en"})
    assert r.status_code == 422
    assert r.get_json()["error"]["field"] == "season[0].name"
    # nothing was stored by the refusals
    assert "[[season]]" not in (staff.get("/staff/standings", headers={
        "Accept": "application/json"}).get_json()["seasons"] or "")


def test_rating_on_the_player_page(club):
    c = club["app"].test_client()
    page = c.get(f"/leaderboard/players/{club['ids']['B']}?family=riichi4").data.decode()
    assert 'data-testid="rating-chart"' in page and 'class="chart rating-chart"' in page
    assert "現在の R" in page
    guest = c.get(f"/leaderboard/players/{club['ids']['G']}?family=riichi4").data.decode()
    assert "ゲストは R の対象外です" in guest and 'data-testid="rating-chart"' not in guest


def test_rating_at_game_start_on_the_tablet(club):
    app = club["app"]
    db = connect(club["path"])
    from club import games

    ids = [club["ids"][n] for n in "GBCD"]
    games.start_game(db, "t4", ids, idempotency_key=uuid.uuid4().hex)
    db.conn.close()
    page = cookie_client(app, "t4").get("/tablet/t4").data.decode()
    assert 'data-testid="seat-ratings"' in page and " open>" in page.replace('"', "")
    assert "ゲスト（R対象外）" in page
    # B's R now (after the next day's game too), as the leaderboard of all time shows it
    rows = app.test_client().get("/leaderboard/?family=riichi4&period=all&day=2026-12-31"
                                 "&format=json").get_json()["rows"]
    b = next(r for r in rows if r["name"] == "B")
    assert f"<b>R{b['rating']:,.0f}</b>" in page


def test_fee_account_of_the_day_at_settlement(club):
    app = club["app"]
    # the last game of the day on t2 is finished: its sheet shows the players' day so far
    page = cookie_client(app, "t2").get("/tablet/t2").data.decode()
    assert 'data-testid="day-accounts"' in page and "本日の精算（2026-04-01）" in page
    assert "-¥2,450" in page  # B's net (test_daily_report)
    assert "-¥3,550" in page  # B's fees, paid: the sign of the net column and the 日報


def test_daily_report_on_the_staff_console(club):
    staff = signed_in(club["app"])
    assert club["app"].test_client().get(f"/staff/report?day={DAY}").status_code in (302, 401)
    page = staff.get(f"/staff/report?day={DAY}").data.decode()
    assert "日報" in page and "¥10,600" in page and 'data-testid="report-accounts"' in page
    assert "卓別" in page and "ルール別" in page and "個人精算" in page
    rep = staff.get(f"/staff/report?day={DAY}", headers={"Accept": "application/json"}).get_json()
    assert rep["summary"]["kept"] == 8600
    r = staff.get(f"/staff/report/accounts.csv?day={DAY}")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    assert 'filename="accounts-2026-04-01.csv"' in r.headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(r.data[3:].decode())))
    assert rows[-1][0] == "合計" and rows[-1][-1] == "-8,600"
    printable = staff.get(f"/staff/report/print?day={DAY}").data.decode()
    assert printable.startswith("<!doctype html>") and "<script" not in printable
    assert staff.get(f"/staff/report/nope.csv?day={DAY}").status_code == 404
    assert staff.get("/staff/report?day=2026-13-01").status_code == 400
    # an empty day: zero totals, every table at 0 %
    empty = staff.get("/staff/report?day=2026-05-01", headers={"Accept": "application/json"})
    assert empty.get_json()["total"]["games"] == 0
    assert "日報" in staff.get("/staff/").data.decode()  # the console's nav links to it


def test_daily_report_counts_a_live_game_only_when_finished(club):
    db = connect(club["path"])
    from club import games

    gid = games.start_game(db, "t4", [club["ids"][n] for n in "ABCD"],
                           idempotency_key=uuid.uuid4().hex)["game"]["id"]
    db.execute("UPDATE games SET started_at = ? WHERE id = ?", [jst(DAY, "23:30"), gid])
    db.conn.close()
    staff = signed_in(club["app"])
    page = staff.get(f"/staff/report?day={DAY}").data.decode()
    assert "対局中（未集計）" in page and f"対局 #{gid}（卓4、{DAY} 23:30 開始）" in page


def test_fee_free_rules_show_no_money_on_the_settlement_sheet(app_plain):
    page = cookie_client(app_plain, "t1").get("/tablet/t1").data.decode()
    assert 'data-testid="settlement"' in page
    assert 'data-testid="day-accounts"' not in page


@pytest.fixture()
def app_plain(tmp_path):
    from club import club_tables, games, roster
    from web import create_app

    path = str(tmp_path / "plain.sqlite")
    app = create_app({"DATABASE": path, "SECRET_KEY": "x", "TESTING": True,
                      "COOKIE_SECURE": False})
    db = connect(path)
    club_tables.save_table(db, "t1", "卓1", "nekohouse-4a")
    ids = [roster.add_player(db, n)["id"] for n in "ABCD"]
    gid = games.start_game(db, "t1", ids, idempotency_key=uuid.uuid4().hex)["game"]["id"]
    for seq, ev in enumerate([{"event": "win", "winners": [{"seat": 0, "han": 5, "fu": 30}]},
                              {"event": "end"}], start=1):
        games.record_event(db, gid, ev, expected_seq=seq, idempotency_key=uuid.uuid4().hex)
    db.conn.close()
    return app


def test_rating_refusal_reasons_are_worded_in_both_languages():
    import lexicon
    from scoring import rating

    for code, english in rating.DAN_ERRORS.items():
        key = f"standings.dan.{code}"
        assert lexicon.has(key), key
        names = set(re.findall(r"{(\w+)}", english))
        for lang in lexicon.LANGS:
            assert set(re.findall(r"{(\w+)}", lexicon.t(key, lang))) == names, (key, lang)


def test_rating_leaderboard_command_by_r(club):
    r = subprocess.run([sys.executable, "-m", "web", "leaderboard", "--db", club["path"],
                        "--period", "all", "--day", "2026-12-31", "--order", "rating"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[1].split()[:3] == ["rank", "player", "R"]
    assert lines[-1].split()[:2] == ["-", "ゲスト1"]  # the guest: no R, no rank by R
