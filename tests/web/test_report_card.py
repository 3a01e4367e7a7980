"""A member's report card (club/report_card.py): figures of a game played through the
real API, the club's days at the month and all-time boundaries, the R risers board of
members who opted in, no card for a guest, both languages, the fixed-width text, the
tablet's settlement sheet and the desk's print page."""

from __future__ import annotations

import re
from html import unescape

import pytest

import lexicon
from club import club_tables, rating_store, report_card, roster
from club.errors import NotFound, UserError
from tests.scoring.test_stats import G1
from tests.support.web import bearer, record, start
from tests.web.test_leaderboard import play

# G1 by hand (tests/scoring/test_stats.py, nekohouse-4a): seats A B C D end 4th, 2nd, 3rd,
# 1st with settled results -45.0, +11.0, -18.0, +52.0 (thousands of points)
G1_RANKS = [4, 2, 3, 1]
G1_RESULTS = [-45000, 11000, -18000, 52000]


def _play_api(client, headers, players=(1, 2, 3, 4)) -> tuple[int, dict]:
    game = start(client, headers, players=players)
    for seq, ev in enumerate(G1[1:], start=1):
        last = record(client, headers, ev, seq)
    return game["game"]["id"], last


def _opt_in(db, player_id: int, risers: int = 1, card: int = 0) -> None:
    db.execute(
        "INSERT INTO member_profiles (player_id, optin_risers, optin_report_card, updated_at) "
        "VALUES (?, ?, ?, '2026-01-01T00:00:00+00:00')", [player_id, risers, card])


def test_report_card_of_a_game_played_through_the_api(client, t1, db):
    gid, last = _play_api(client, t1)
    assert last["final"]["ranks"] == G1_RANKS and last["final"]["result"] == G1_RESULTS
    for seat, pid in enumerate((1, 2, 3, 4)):
        card = report_card.build(db, pid, game_id=gid)
        held = rating_store.history(db, pid, "riichi4")[-1]
        assert card["game"]["rank"] == G1_RANKS[seat]
        assert card["game"]["result"] == G1_RESULTS[seat]
        assert card["game"]["result_text"] == f"{G1_RESULTS[seat] / 1000:+.1f}"
        (s,) = card["sections"]
        assert s["family"] == "riichi4"
        places = [0, 0, 0, 0]
        places[G1_RANKS[seat] - 1] = 1
        for p in report_card.PERIODS:
            f = s["periods"][p]
            assert (f["games"], f["places"], f["avg_rank"], f["total"]) == (
                1, places, float(G1_RANKS[seat]), G1_RESULTS[seat])
        assert s["game_change"] == held["change"] == s["day_change"]
        assert s["rating"] == held["r_after"]
        assert s["rating"] == rating_store.current(db, "riichi4", [pid])[pid]["rating"]
        # rank by R among the four rated members: places order R after one game
        assert s["rank"] == G1_RANKS[seat] and s["rated_members"] == 4
    # the day's card without a game sums the same day
    day = report_card.build(db, 4)
    assert day["game"] is None and day["day"] == card["day"]
    assert day["sections"][0]["periods"]["today"]["games"] == 1


def test_report_card_month_and_all_time_follow_the_club_day_in_its_time_zone(app, db):
    club_tables.save_table(db, "t9", "卓9", "nekohouse-4a")
    # the club day ends at 05:00 in Asia/Tokyo (UTC+9)
    times = {
        "march": "2026-03-31T15:30:00.000+00:00",   # 04-01 00:30 JST: club day 03-31
        "april": "2026-04-30T19:30:00.000+00:00",   # 05-01 04:30 JST: club day 04-30
        "may": "2026-04-30T20:30:00.000+00:00",     # 05-01 05:30 JST: club day 05-01
    }
    gids = {k: play(db, "t9", [1, 2, 3, 4], G1, when) for k, when in times.items()}
    april = report_card.build(db, 4, day="2026-04-30")
    s = april["sections"][0]["periods"]
    assert (s["today"]["games"], s["month"]["games"], s["all"]["games"]) == (1, 1, 2)
    may = report_card.build(db, 4, day="2026-05-01")
    s = may["sections"][0]["periods"]
    assert (s["today"]["games"], s["month"]["games"], s["all"]["games"]) == (1, 1, 3)
    assert s["all"]["total"] == 3 * 52000 and s["all"]["places"] == [3, 0, 0, 0]
    march = report_card.build(db, 4, day="2026-03-31")
    s = march["sections"][0]["periods"]
    assert (s["today"]["games"], s["month"]["games"], s["all"]["games"]) == (1, 1, 1)
    # a game's card belongs to its club day
    assert report_card.build(db, 4, game_id=gids["april"])["day"] == "2026-04-30"
    # R at the end of a past day, not today's
    lines = rating_store.history(db, 1, "riichi4")
    first = report_card.build(db, 1, day="2026-03-31")["sections"][0]
    assert first["rating"] == lines[0]["r_after"] != lines[-1]["r_after"]
    assert first["day_change"] == lines[0]["change"]
    assert (first["rank"], first["rated_members"]) == (4, 4)  # the lowest R after G1
    # a day with no games still shows the month and all time
    quiet = report_card.build(db, 4, day="2026-04-15")["sections"][0]["periods"]
    assert (quiet["today"]["games"], quiet["month"]["games"], quiet["all"]["games"]) == (0, 0, 1)


def test_report_card_risers_only_members_who_opted_in(client, t1, db):
    _opt_in(db, 4)               # 1st: R rises
    _opt_in(db, 2)               # 2nd: R rises
    _opt_in(db, 3)               # 3rd: R falls, never on the board
    _opt_in(db, 1, risers=0, card=1)  # agreed to a card, not to the board
    gid, _ = _play_api(client, t1)
    day = report_card.build(db, 4, game_id=gid)["day"]
    board = report_card.risers(db, day)
    assert [e["player_id"] for e in board] == [4, 2]
    assert [e["place"] for e in board] == [1, 2]
    for e in board:
        held = rating_store.history(db, e["player_id"], "riichi4")[-1]
        assert e["change"] == held["change"] > 0 and e["rating"] == held["r_after"]
    assert board[0]["change"] > board[1]["change"]
    assert report_card.build(db, 1, game_id=gid)["risers"] == board
    # a member who says no leaves the board
    db.execute("UPDATE member_profiles SET optin_risers = 0 WHERE player_id = 4")
    assert [e["player_id"] for e in report_card.risers(db, day)] == [2]


def test_report_card_guests_get_none(app, client, t1, db):
    guest = roster.add_player(db, "ゲスト", guest=True)["id"]
    gid, _ = _play_api(client, t1, players=(1, 2, 3, guest))
    with pytest.raises(NotFound) as refused:
        report_card.build(db, guest, game_id=gid)
    assert refused.value.key == "card.err.guest"
    assert "guest" in lexicon.t("card.err.guest", "en", player="x")
    assert report_card.build(db, 1, game_id=gid)["game"]["rank"] == G1_RANKS[0]
    # the tablet's settlement sheet: a card for each member, none for the guest
    html = client.get("/tablet/t1?lang=ja", headers=t1).get_data(as_text=True)
    for seat in (0, 1, 2):
        assert f'data-testid="report-card-open-{seat}"' in html
    assert 'data-testid="report-card-open-3"' not in html
    assert 'data-testid="report-card-none-3"' in html
    assert f'data-testid="report-card-{guest}"' not in html
    assert "成績表" in html and lexicon.t("card.guest_none", "ja") in html


def test_report_card_refuses_bad_input_in_words(client, t1, db):
    gid, _ = _play_api(client, t1)
    with pytest.raises(UserError) as e:
        report_card.build(db, 5, game_id=gid)  # member 5 did not play
    assert e.value.key == "card.err.not_in_game"
    assert e.value.values["player"] == "Ota"  # named, not numbered
    with pytest.raises(NotFound) as e:
        report_card.build(db, 1, game_id=999)
    assert e.value.key == "card.err.no_game"
    with pytest.raises(UserError) as e:
        report_card.build(db, 1, day="2026-13-40")
    assert e.value.key == "lb.err.day"
    with pytest.raises(NotFound):
        report_card.build(db, 999)
    card = report_card.build(db, 1, game_id=gid)
    with pytest.raises(UserError) as e:
        report_card.as_lines(card, "ja", width=20)
    assert e.value.key == "card.err.width"


JA = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def test_report_card_text_lines_fit_the_paper_in_both_languages(client, t1, db):
    _opt_in(db, 4)
    gid, _ = _play_api(client, t1)
    card = report_card.build(db, 4, game_id=gid)
    for lang in ("ja", "en"):
        for width in (32, 42, 48):
            lines = report_card.as_lines(card, lang, width)
            assert all(report_card.text_width(x) <= width for x in lines), (lang, width)
            assert lines[0] == lexicon.t("card.title", lang)
            assert any(x.startswith(lexicon.t("card.change_game", lang)) and x.endswith(
                card["sections"][0]["game_change_text"]) for x in lines)
    ja = report_card.as_lines(card, "ja")
    assert "四人打ち" in ja and any(x.endswith("1着 +52.0") for x in ja)
    en = report_card.as_lines(card, "en")
    # English words on the English card (the member's name aside)
    assert not [x for x in en if JA.search(x.replace(card["name"], ""))]
    assert report_card.text_width("成績表ab") == 8
    assert report_card.text_width("—1") == 3  # printed wide in Kanji mode
    # a long name is cut to the paper, never wrapped past it
    db.execute("UPDATE players SET name = ? WHERE id = 4", ["長" * 30])
    long = report_card.as_lines(report_card.build(db, 4, game_id=gid), "ja", 32)
    assert all(report_card.text_width(x) <= 32 for x in long) and long[2].startswith("長")


def test_report_card_on_the_tablet_reads_in_both_languages(app, client, t1, db):
    _play_api(client, t1)
    ja = client.get("/tablet/t1?lang=ja", headers=t1).get_data(as_text=True)
    en = client.get("/tablet/t1?lang=en", headers=t1).get_data(as_text=True)
    card = report_card.build(db, 4, game_id=1)
    section = card["sections"][0]
    for html, lang in ((ja, "ja"), (en, "en")):
        assert 'data-testid="report-card-4"' in html
        assert lexicon.t("card.change_game", lang) in html
        assert lexicon.t("card.period.month", lang) in html
        assert section["game_change_text"] in html
    assert "Report card" not in ja and "Report card" in en
    # a second tablet of another table sees no card of this game
    other = bearer(app, "t2")
    assert "report-card-4" not in client.get("/tablet/t2", headers=other).get_data(as_text=True)


def test_report_card_reads_only_the_summary_tables(client, t1, db, monkeypatch):
    gid, _ = _play_api(client, t1)
    from club import gamelog

    def no_replay(*a, **k):
        raise AssertionError("a card must not replay a game")

    monkeypatch.setattr(gamelog, "played", no_replay)
    assert report_card.build(db, 4, game_id=gid)["game"]["rank"] == 1



def _desk(app, db):
    from club.accounts import create_staff
    from tests.web.staff_support import staff_client

    create_staff(db, "mika", "mahjong-club")
    return staff_client(app)


def test_report_card_desk_page_prints_a_members_card_and_the_risers(app, client, t1, db):
    _opt_in(db, 4)
    gid, _ = _play_api(client, t1)
    desk = _desk(app, db)
    day = report_card.build(db, 4, game_id=gid)["day"]
    # the daily report links the desk's page
    report = desk.get(f"/staff/report?day={day}&lang=ja").get_data(as_text=True)
    assert f"/staff/report-cards?day={day}" in report
    assert 'data-testid="report-cards-link"' in report
    ja = desk.get(f"/staff/report-cards?day={day}&player=4&paper=58&lang=ja")
    assert ja.status_code == 200
    html = ja.get_data(as_text=True)
    assert 'data-testid="report-card-4"' in html and "paper-58" in html
    assert 'data-testid="rc-riser-4"' in html and "本日のR上昇ランキング" in html
    assert "Report card" not in html
    en = unescape(desk.get(f"/staff/report-cards?day={day}&player=4&lang=en").get_data(
        as_text=True))
    assert "Today's R risers" in en and "paper-80" in en
    # only the board without a member
    board = desk.get(f"/staff/report-cards?day={day}&lang=ja").get_data(as_text=True)
    assert 'data-testid="rc-risers-board"' in board and 'data-testid="rc-riser-4"' in board
    # the same as JSON, with the receipt's lines
    js = desk.get(f"/staff/report-cards?player=4&game={gid}&paper=58",
                  headers={"Accept": "application/json"}).get_json()
    assert js["card"]["game"]["rank"] == 1 and [e["player_id"] for e in js["risers"]] == [4]
    assert all(report_card.text_width(x) <= 32 for x in js["lines"])


def test_report_card_desk_page_refuses_bad_input_in_words(app, client, t1, db):
    guest = roster.add_player(db, "ゲスト", guest=True)["id"]
    _play_api(client, t1, players=(1, 2, 3, guest))
    desk = _desk(app, db)
    cases = {
        f"player={guest}": (404, "guests get no report card"),
        "player=abc": (400, "player must be a number"),
        "player=4&paper=a3": (400, "Paper width a3 cannot be used"),
        "day=2026-02-30": (400, None),
        "player=1&game=77": (404, "Game #77 is not finished"),
    }
    for query, (status, words) in cases.items():
        r = desk.get(f"/staff/report-cards?{query}&lang=en", headers={"Accept": "application/json"})
        assert r.status_code == status, (query, r.get_json())
        if words:
            assert words in r.get_json()["error"]["message"], query
        page = desk.get(f"/staff/report-cards?{query}&lang=ja")
        assert page.status_code == status and "Traceback" not in page.get_data(as_text=True)
    # a tablet may not open the desk's page
    assert client.get("/staff/report-cards", headers=t1).status_code in (401, 403)
