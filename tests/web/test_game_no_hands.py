"""A game ended before any hand was recorded is void: never settled, never ranked.

Uma and oka by seat order would rank four players who never played; the table is freed
for the next game instead (the engine ends such a game with ``end_reason`` no_hands)."""

from __future__ import annotations

import pytest

from club import corrections, games
from club.errors import UserError
from tests.support.web import cookie_client, record, start


def _count(db, table: str, game_id: int) -> int:
    return db.execute(f"SELECT COUNT(*) FROM {table} WHERE game_id = ?", [game_id]).fetchone()[0]


def test_end_before_the_first_hand_voids_the_game_and_frees_the_table(client, t1, db):
    gid = start(client, t1)["game"]["id"]
    out = record(client, t1, {"event": "end"}, 1)
    assert out["game"]["status"] == "void" and out["final"] is None and out["state"] is None
    detail = client.get(f"/api/games/{gid}").get_json()
    assert detail["game"]["status"] == "void" and detail["replay"]["final"] is None
    assert detail["replay"]["void"] is True
    # nothing reaches the leaderboard or the ratings
    assert _count(db, "stats_lines", gid) == 0 and _count(db, "rating_lines", gid) == 0
    r = client.post(f"/api/tables/t1/games/{gid}/confirm", headers=t1, json={"seat": 0})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "game_not_finished"
    # the table is free: the next game starts at once
    assert start(client, t1)["game"]["status"] == "live"


def test_the_tablet_shows_the_start_form_after_a_void_end(app, client, t1):
    start(client, t1)
    record(client, t1, {"event": "end"}, 1)
    page = cookie_client(app, "t1").get("/tablet/t1")
    assert page.status_code == 200
    assert "screen-start" in page.text and 'data-testid="live"' not in page.text
    assert 'data-testid="settlement"' not in page.text


def test_a_void_no_hands_game_cannot_be_made_valid_again(client, t1, db):
    gid = start(client, t1)["game"]["id"]
    record(client, t1, {"event": "end"}, 1)
    with pytest.raises(UserError) as e:
        corrections.unvoid_game(db, gid, actor="staff:mika", reason="try")
    assert e.value.code == "no_hands"
    assert games.get_game(db, gid)["status"] == "void"


def test_end_after_one_hand_is_still_scored(client, t1, db):
    gid = start(client, t1)["game"]["id"]
    record(client, t1, {"event": "draw", "tenpai": [0]}, 1)
    out = record(client, t1, {"event": "end"}, 2)
    assert out["game"]["status"] == "finished" and out["final"]["ranks"]
    assert _count(db, "stats_lines", gid) == 4


def test_a_correction_that_leaves_no_hand_is_refused_in_words(client, t1, db):
    gid = start(client, t1)["game"]["id"]
    record(client, t1, {"event": "draw", "tenpai": [0]}, 1)
    record(client, t1, {"event": "end"}, 2)
    with pytest.raises(UserError) as e:
        corrections.remove_hand(db, gid, 1, actor="staff:mika", reason="wrong table")
    assert e.value.args[0] == "records.would_void"
    assert games.get_game(db, gid)["status"] == "finished" and _count(db, "stats_lines", gid) == 4
