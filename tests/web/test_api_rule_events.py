"""The API records what a hand could not say before, each under the rules of its table
(rulebooks in /work/shared/seeds/): a chombo deferred to the draw (002 「流局時チョンボ」),
the riichi sticks of a hand a chombo voids (001 チョンボ 2; 000 (3) 錯和), and nine
terminals declared after flowers were set aside (002 3B 「九種九牌の権利は維持」)."""

from __future__ import annotations

from club import club_tables, roster
from club.db import connect
from scoring import game as engine_game
from tests.support.web import bearer, record, start


def stored_events(db, game_id):
    from club.gamelog import effective_events, event_log

    return [e["event"] for e in effective_events(event_log(db, game_id))]


def replayed(db, game_id, preset):
    return engine_game.replay(stored_events(db, game_id), preset)["state"]


def test_api_records_a_chombo_deferred_to_the_draw(client, t1, db):
    # 002 4A 「…もしくは流局時チョンボ、和了放棄、1000点供託のいずれかに変更できます」: the
    # dealer's deferred chombo is paid as noten at the draw (t1 plays nekohouse-4a)
    g = start(client, t1)
    ev = {"event": "draw", "tenpai": [1, 2], "riichi": [], "chombo": [0]}
    out = record(client, t1, ev, 1)
    assert out["state"]["scores"] == [23500, 26500, 26500, 23500]
    assert out["state"]["round"] == "E2"
    assert stored_events(db, g["game"]["id"])[1]["chombo"] == [0]
    assert replayed(db, g["game"]["id"], "nekohouse-4a")["scores"] == out["state"]["scores"]


def test_api_refuses_a_deferred_chombo_that_is_also_tenpai_in_words(client, t1):
    start(client, t1)
    r = record(client, t1, {"event": "draw", "tenpai": [0, 1], "chombo": [0]}, 1, expect=422)
    assert r["error"]["reason"] == "chombo_at_draw_tenpai"
    assert "noten" in r["error"]["message"] and "seat 0" not in r["error"]["message"]


def test_api_records_the_riichi_sticks_a_chombo_gives_back(client, t1, db):
    # 002 4A 「チョンボは親、子にかかわらず3000オールの支払い」, and the riichi stick of the
    # voided hand goes back (000 (3) 錯和 「リーチ棒は、リーチをかけた人に返されます」)
    g = start(client, t1)
    out = record(client, t1, {"event": "chombo", "seat": 0, "riichi": [1]}, 1)
    assert out["state"]["scores"] == [16000, 28000, 28000, 28000]
    assert out["state"]["kyoutaku"] == 0 and out["state"]["round"] == "E1"
    assert stored_events(db, g["game"]["id"])[1]["riichi"] == [1]


def test_api_records_nine_terminals_after_flowers_in_3b_and_refuses_it_in_3a(app, client, db):
    # 002 3B 「花牌を抜いても…九種九牌の権利は維持されます」; 3A 「北を抜くと一発, 天和, 地和,
    # 人和の権利は消滅します」
    conn = connect(app.config["DATABASE"])
    club_tables.save_table(conn, "t4", "卓4 三麻B", "nekohouse-3b")
    roster.add_player(conn, "佐藤")  # a sixth member: three more players for the 3A table
    conn.conn.close()
    t4 = bearer(app, "t4")
    g = start(client, t4, table="t4", players=(1, 2, 3))
    abort = {"event": "abort", "kind": "kyuushu", "seat": 1, "nukidora": 2}
    out = record(client, t4, abort, 1, table="t4")
    assert out["state"]["scores"] == [35000, 35000, 35000] and out["state"]["honba"] == 1
    assert stored_events(db, g["game"]["id"])[1] == abort
    t3 = bearer(app, "t3")
    start(client, t3, table="t3", players=(4, 5, 6))
    r = record(client, t3, {**abort, "nukidora": 1}, 1, table="t3", expect=422)
    assert r["error"]["reason"] == "kyuushu_after_nukidora"
    # the schema bounds the count as the flowers of any set: 8 at most
    r = record(client, t4, {**abort, "nukidora": 9}, 2, table="t4", expect=422)
    assert r["error"]["field"] == "event.nukidora"
