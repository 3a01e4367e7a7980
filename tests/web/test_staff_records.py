"""Staff corrections through ``club.corrections`` and the console's routes: a correction's
preview of the whole game, a struck hand put back, a voided game made valid again, each with
its own audit name and the scores before and after; who confirmed whose result; the audit
log filtered and put in words."""

from __future__ import annotations

import pytest

from club import corrections, gamelog, games, roster
from club.accounts import create_staff
from club.audit import audit_entries
from club.errors import UserError
from tests.support.web import key
from tests.web.staff_support import STAFF, staff_client
from web.db import get_db

RON = {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "from": 0}
TSUMO = {"event": "win", "winners": [{"seat": 2, "han": 2, "fu": 40}]}


@pytest.fixture()
def staff(app):
    with app.app_context():
        create_staff(get_db(), *STAFF)
    c = staff_client(app)
    c.environ_base["HTTP_ACCEPT_LANGUAGE"] = "ja"
    return c


def post_json(c, path, body, lang="en"):
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    return c.post(path, json=body, headers={"X-CSRF-Token": token, "Accept": "application/json",
                                            "Accept-Language": lang})


def game(db, events=(RON, TSUMO), end=True, table="t1", players=(1, 2, 3, 4)) -> int:
    gid = games.start_game(db, table, list(players), idempotency_key=key())["game"]["id"]
    for i, e in enumerate(events, 1):
        games.record_event(db, gid, e, expected_seq=i, idempotency_key=key())
    if end:
        games.end_game(db, gid, expected_seq=len(events) + 1, idempotency_key=key())
    return gid


def test_staff_correct_preview_shows_the_whole_game_before_and_after(db, staff):
    gid = game(db)
    fixed = {"event": "win", "winners": [{"seat": 1, "han": 4, "fu": 30}], "from": 0}
    # The oracle: the same game recorded with the corrected hand from the start.
    oracle = games.game_view(db, game(db, events=(fixed, TSUMO), table="t2"))
    r = post_json(staff, f"/staff/games/{gid}/hands/1/preview", {"event": fixed})
    body = r.get_json()
    assert r.status_code == 200, body
    assert body["before"]["scores"] == games.game_view(db, gid)["replay"]["final"]["scores"]
    assert body["after"]["scores"] == oracle["replay"]["final"]["scores"]
    assert body["after"]["result"] == oracle["replay"]["final"]["result"]
    assert body["before"]["scores"] != body["after"]["scores"]
    gain = body["after"]["scores"][1] - body["before"]["scores"][1]
    assert "伊藤" in body["html"] and f"+{gain:,}" in body["html"]
    # The preview changed nothing.
    assert games.game_view(db, gid)["replay"]["hands"][0]["deltas"] == [-3900, 3900, 0, 0]
    # An event the engine refuses is refused in words, naming what is wrong.
    bad = {"event": "win", "winners": [{"seat": 1, "han": 1, "fu": 20}], "from": 0}
    r = post_json(staff, f"/staff/games/{gid}/hands/1/preview", {"event": bad})
    assert r.status_code == 422 and "fu" in r.get_json()["error"]["message"]


def test_staff_correct_is_audited_with_scores_before_and_after(db, staff):
    gid = game(db)
    before = games.game_view(db, gid)["replay"]["final"]["scores"]
    fixed = {"event": "win", "winners": [{"seat": 3, "han": 3, "fu": 30}], "from": 0}
    r = post_json(staff, f"/staff/games/{gid}/hands/1/correct",
                  {"event": fixed, "reason": "伊藤ではなく上田の和了"})
    assert r.status_code == 200, r.get_json()
    entry = audit_entries(db, game=gid)[0]
    assert entry["action"] == "hand.correct" and entry["details"]["seq"] == 1
    assert entry["details"]["old"] == RON and entry["details"]["new"]["winners"][0]["seat"] == 3
    assert entry["details"]["before"]["scores"] == before
    assert entry["details"]["after"]["scores"] == \
        games.game_view(db, gid)["replay"]["final"]["scores"] != before


def test_staff_restore_puts_a_struck_hand_back_where_it_was(db, staff):
    gid = game(db, end=False)
    before = games.game_view(db, gid)["state"]["scores"]
    corrections.remove_hand(db, gid, 1, actor="staff:mika", reason="wrong table")
    played = gamelog.played(db, games.get_game(db, gid))
    assert [e["seq"] for e in played.effective] == [0, 2]
    assert [e["seq"] for e in corrections.removed_entries(played)] == [1]
    r = post_json(staff, f"/staff/games/{gid}/hands/1/restore", {"reason": "it was right"})
    assert r.status_code == 200, r.get_json()
    view = games.game_view(db, gid)
    assert [e["seq"] for e in view["events"]] == [0, 1, 2]     # in its place, not appended
    assert view["state"]["scores"] == before
    actions = [a["action"] for a in audit_entries(db, game=gid)]
    assert actions == ["hand.restore", "hand.remove"]
    # Only a struck hand can be restored; twice is refused, in words.
    r = post_json(staff, f"/staff/games/{gid}/hands/1/restore", {"reason": "again"})
    assert r.status_code == 404 and "only a removed entry" in r.get_json()["error"]["message"]
    kinds = [row["kind"] for row in gamelog.event_log(db, gid)]
    assert kinds == ["start", "win", "win", "void", "restore"]   # appended, nothing rewritten


def test_staff_restore_of_an_undone_hand_and_a_corrected_one(db, staff, client, t1):
    gid = game(db, end=False)
    fixed = {"event": "win", "winners": [{"seat": 2, "han": 2, "fu": 40}]}
    corrections.correct_hand(db, gid, 2, {**fixed, "winners": [{"seat": 3, "han": 2, "fu": 40}]},
                       actor="staff:mika", reason="who won")
    games.undo_last(db, gid, expected_seq=4, idempotency_key=key(), actor="tablet:t1")
    removed = corrections.removed_entries(gamelog.played(db, games.get_game(db, gid)))
    assert removed[0]["seq"] == 2 and removed[0]["event"]["winners"][0]["seat"] == 3
    corrections.restore_hand(db, gid, 2, actor="staff:mika", reason="undone by mistake")
    assert games.game_view(db, gid)["events"][-1]["event"]["winners"][0]["seat"] == 3


def test_staff_restore_refused_when_the_game_no_longer_replays_with_it(db):
    """Without hand 1, 青木 survives a 24,000 hand with 1,000 points and the game goes on;
    with it, 青木 busts there and the draw after it could not have been played."""
    gid = game(db, events=(RON,), end=False)
    corrections.remove_hand(db, gid, 1, actor="staff:mika", reason="never happened")
    big = {"event": "win", "winners": [{"seat": 1, "han": 11}], "from": 0}
    games.record_event(db, gid, big, expected_seq=3, idempotency_key=key())
    games.record_event(db, gid, {"event": "draw", "tenpai": [1]}, expected_seq=4,
                       idempotency_key=key())
    with pytest.raises(UserError) as e:
        corrections.restore_hand(db, gid, 1, actor="staff:mika", reason="it did happen")
    assert e.value.status == 422 and "over" in e.value.message
    kinds = [r["kind"] for r in gamelog.event_log(db, gid)]
    assert kinds == ["start", "win", "void", "win", "draw"]    # nothing was written


def test_staff_void_and_unvoid_a_game(db, staff):
    gid = game(db)
    r = post_json(staff, f"/staff/games/{gid}/void", {"reason": "wrong rule set"})
    assert r.status_code == 200
    r = post_json(staff, f"/staff/games/{gid}/unvoid", {"reason": "the rule set was right"})
    assert r.status_code == 200 and r.get_json()["game"]["status"] == "finished"
    assert [a["action"] for a in audit_entries(db, game=gid)][:2] == ["game.unvoid", "game.void"]
    r = post_json(staff, f"/staff/games/{gid}/unvoid", {"reason": "again"})
    assert r.status_code == 409 and "not void" in r.get_json()["error"]["message"]


def test_staff_unvoid_of_a_live_game_waits_for_its_table(db, staff):
    gid = game(db, end=False)
    corrections.void_game(db, gid, actor="staff:mika", reason="started at the wrong table")
    other = game(db, events=(), end=False, players=(2, 3, 4, 5))
    r = post_json(staff, f"/staff/games/{gid}/unvoid", {"reason": "it was right"})
    assert r.status_code == 409
    assert f"game {other} in progress" in r.get_json()["error"]["message"]
    assert games.get_game(db, gid)["status"] == "void"
    corrections.void_game(db, other, actor="staff:mika", reason="duplicate")
    assert post_json(staff, f"/staff/games/{gid}/unvoid", {"reason": "it was right"}) \
        .get_json()["game"]["status"] == "live"


def test_staff_confirm_settlement_says_who_confirmed_for_whom(db, staff, client, t1):
    sato = roster.add_player(db, "佐藤", member_no="M001")["id"]
    gid = game(db, players=(sato, 2, 3, 4))
    url = f"/api/tables/t1/games/{gid}/confirm"
    # A member confirms for themself with their member number; one tablet cannot do it
    # for them.
    r = client.post(url, headers=t1, json={"seat": 0})
    assert r.status_code == 422 and "member number" in r.get_json()["error"]["message"]
    r = client.post(url, headers=t1, json={"seat": 0, "member_no": "M002"})
    assert r.status_code == 422
    assert client.post(url, headers=t1, json={"seat": 0, "member_no": "m001"}).status_code == 200
    # A player without a member number confirms at the tablet; staff confirm for a name.
    assert client.post(url, headers=t1, json={"seat": 1}).status_code == 200
    r = post_json(staff, f"/staff/games/{gid}/seats/2/confirm", {})
    assert r.status_code == 200
    by = {r["seat"]: r["confirmed_by"] for r in db.execute_returning_dicts(
        "SELECT seat, confirmed_by FROM game_seats WHERE game_id = ?", [gid])}
    assert by == {0: "self", 1: "tablet", 2: "staff:mika", 3: None}
    page = staff.get(f"/staff/games/{gid}").get_data(as_text=True)
    assert "本人（会員番号）" in page and "卓のタブレット" in page and "スタッフ mika" in page
    assert "遠藤 の代わりに確認" in page and "上田 の代わりに確認" not in page
    log = staff.get(f"/staff/audit?game={gid}").get_data(as_text=True)
    assert "上田 の結果を確認（確認: mika）" in log


def test_staff_audit_in_words_filtered_by_game_table_staff_and_day(app, db, staff):
    gid = game(db)
    g2 = game(db, table="t2", events=(RON, TSUMO))  # a hand stays after the removal
    corrections.correct_hand(db, gid, 1, {**RON, "winners": [{"seat": 1, "han": 4, "fu": 30}]},
                       actor="staff:mika", reason="4翻でした")
    corrections.remove_hand(db, g2, 1, actor="staff:ken", reason="卓2の記録ミス")
    page = staff.get(f"/staff/audit?game={gid}").get_data(as_text=True)
    assert "対局 #{} の記録 1 を訂正".format(gid) in page
    assert "ロン 伊藤←青木 3翻30符" in page and "ロン 伊藤←青木 4翻30符" in page   # before, after
    assert "4翻でした" in page and "卓2の記録ミス" not in page
    page = staff.get("/staff/audit?table=t2").get_data(as_text=True)
    assert "卓2の記録ミス" in page and "4翻でした" not in page
    page = staff.get("/staff/audit?actor=staff:ken").get_data(as_text=True)
    assert "卓2の記録ミス" in page and "4翻でした" not in page
    from club import stats_store
    today = stats_store.today(stats_store.settings(db))
    assert "4翻でした" in staff.get(f"/staff/audit?day={today}").get_data(as_text=True)
    assert "4翻でした" not in staff.get("/staff/audit?day=2001-01-01").get_data(as_text=True)
    r = staff.get("/staff/audit?day=yesterday", headers={"Accept": "application/json"})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "invalid_field"
    en = staff.get(f"/staff/audit?game={gid}&lang=en").get_data(as_text=True)
    assert f"corrected entry 1 of game #{gid}" in en and "Ron 伊藤 from 青木 4 han 30 fu" in en


def test_staff_seat_swap_from_the_game_page(db, staff):
    gid = game(db, end=False)
    r = post_json(staff, f"/staff/games/{gid}/swap", {"a": 0, "b": 1, "reason": "座り間違い"})
    assert r.status_code == 200, r.get_json()
    assert [s["name"] for s in r.get_json()["game"]["game"]["seats"]][:2] == ["伊藤", "青木"]
    r = post_json(staff, f"/staff/games/{gid}/swap", {"a": 1, "b": 1, "reason": "同じ席"})
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "invalid_field"
    page = staff.get(f"/staff/audit?game={gid}").get_data(as_text=True)
    assert "席の入れ替え" in page and "伊藤 / 青木" in page
