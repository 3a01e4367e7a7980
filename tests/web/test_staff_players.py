"""Players as a club keeps them: a name that reads like someone already here is caught
(NFKC, case, spaces, katakana and hiragana alike), a guest is a guest (the same walk-in
again is not a new player, and guests stay off the leaderboards unless the club says
otherwise), a retired player is not seated, and nobody sits at two live tables."""

from __future__ import annotations

import pytest

from club import games, roster, stats_store
from club.accounts import create_staff
from club.errors import UserError
from tests.support.web import bearer, key
from tests.web.staff_support import STAFF, staff_client
from web.db import get_db


@pytest.fixture()
def staff(app):
    with app.app_context():
        create_staff(get_db(), *STAFF)
    c = staff_client(app)
    return c


def csrf(c) -> str:
    return c.get("/auth/csrf").get_json()["csrf_token"]


@pytest.mark.parametrize("first, again", [
    ("中村", "中村"), ("ナカムラ", "なかむら"), ("ﾅｶﾑﾗ", "ナカムラ"), ("Kim", "ＫＩＭ"),
    ("山田 太郎", "山田太郎"), ("Mary Ann", "mary・ann"),
])
def test_players_similar_names_are_caught(db, first, again):
    roster.add_player(db, first, member_no="X1")
    with pytest.raises(UserError) as e:
        roster.add_player(db, again)
    assert e.value.code == "similar_name" and e.value.status == 409
    assert e.value.details["field"] == "name"
    other = roster.add_player(db, again, allow_similar=True)     # staff said: someone else
    assert other["id"] != roster.similar_players(db, first)[0]["id"] or first == again


def test_players_a_guest_named_like_a_member_is_not_accepted_without_a_word(client, t1, db):
    r = client.post("/api/tables/t1/guests", headers=t1, json={"name": "青木"})   # a member
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "similar_name"
    assert "青木" in r.get_json()["error"]["message"]


def test_players_the_same_guest_again_is_not_a_new_player(client, t1, db):
    first = client.post("/api/tables/t1/guests", headers=t1, json={"name": "ゲスト花子"})
    again = client.post("/api/tables/t1/guests", headers=t1, json={"name": "ゲスト花子"})
    assert first.get_json()["player"]["id"] == again.get_json()["player"]["id"]
    assert len([p for p in roster.list_players(db, guests=True) if p["guest"]]) == 1
    # while that guest plays at a table, a second 花子 is someone else: staff decide
    hanako = first.get_json()["player"]["id"]
    games.start_game(db, "t1", [1, 2, 3, hanako], idempotency_key=key())
    r = client.post("/api/tables/t2/guests", headers=bearer(client.application, "t2"),
                    json={"name": "ゲスト花子"})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "similar_name"


def test_players_retired_cannot_be_seated(db):
    roster.set_player_active(db, 4, False)
    with pytest.raises(UserError) as e:
        games.start_game(db, "t1", [1, 2, 3, 4], idempotency_key=key())
    assert e.value.code == "player_retired" and "遠藤" in e.value.message


def test_players_one_live_seat_per_player(client, t1, db):
    games.start_game(db, "t1", [1, 2, 3, 4], idempotency_key=key())
    with pytest.raises(UserError) as e:
        games.start_game(db, "t2", [5, 1, 2, 3], idempotency_key=key())
    assert e.value.code == "player_seated" and e.value.status == 409
    assert "卓1で対局中" in e.value.message            # the table as people call it


def test_players_guests_stay_off_the_leaderboards_unless_the_club_says(db, staff):
    guest = roster.add_player(db, "Walk-in", guest=True)["id"]
    gid = games.start_game(db, "t1", [1, 2, 3, guest], idempotency_key=key())["game"]["id"]
    games.record_event(db, gid, {"event": "win", "winners": [{"seat": 3, "han": 3, "fu": 30}],
                                 "from": 0}, expected_seq=1, idempotency_key=key())
    games.end_game(db, gid, expected_seq=2, idempotency_key=key())
    day = stats_store.today(stats_store.settings(db))
    ranked = lambda: [r["name"] for r in stats_store.leaderboard(db, "riichi4", day, day)]  # noqa
    assert "Walk-in" not in ranked() and len(ranked()) == 3
    r = staff.post("/staff/settings", data={"guests_ranked": "1", "csrf_token": csrf(staff)})
    assert r.status_code == 302
    assert "Walk-in" in ranked() and ranked()[0] == "Walk-in"
    r = staff.post("/staff/settings", data={"csrf_token": csrf(staff)})
    assert "Walk-in" not in ranked()
    assert stats_store.settings(db)["timezone"] == "Asia/Tokyo"


def test_players_page_keeps_what_was_typed_and_offers_a_way_on(staff, db):
    roster.add_player(db, "なかむら", member_no="M008")
    page = "http://localhost/staff/players"
    r = staff.post("/staff/players", data={"name": "ナカムラ", "member_no": "M099",
                                           "_form": "player-add", "csrf_token": csrf(staff)},
                   headers={"Referer": page})
    assert r.status_code == 303 and r.headers["Location"].endswith("/staff/players")
    html = staff.get("/staff/players").get_data(as_text=True)
    assert 'value="ナカムラ"' in html and 'value="M099"' in html        # nothing typed lost
    assert "なかむら（M008）" in html and 'data-testid="allow-similar"' in html
    assert "読みが同じ" in html                                           # in Japanese
    again = staff.get("/staff/players").get_data(as_text=True)
    assert 'value="ナカムラ"' not in again                               # shown once
    r = staff.post("/staff/players", data={"name": "ナカムラ", "member_no": "M099",
                                           "allow_similar": "1", "_form": "player-add",
                                           "csrf_token": csrf(staff)}, headers={"Referer": page})
    assert r.status_code == 302
    assert len(roster.similar_players(db, "ナカムラ")) == 2
