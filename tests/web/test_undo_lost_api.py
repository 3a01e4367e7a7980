"""Undo of a hand whose answer never came: the tablet voids the hand's idempotency key
(POST /api/tables/<table>/void), and the server does what the players meant whether the
hand arrived or not (named ``undo_lost`` so ``-k undo_lost`` selects them)."""

from __future__ import annotations

from tests.support.web import key, record, start

RON = {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "from": 0}


def log_kinds(db, game_id):
    from club.gamelog import event_log

    return [r["kind"] for r in event_log(db, game_id)]


def void(client, headers, target, k, table="t1", expect=201):
    r = client.post(f"/api/tables/{table}/void", headers=headers,
                    json={"target_key": target, "idempotency_key": k})
    assert r.status_code == expect, r.get_json()
    return r.get_json()


def test_undo_lost_void_by_key_strikes_the_stored_hand_once(client, t1, db):
    g = start(client, t1)
    hand_key, void_key = key(), key()
    record(client, t1, RON, 1, k=hand_key)      # stored; the tablet never heard back
    out = void(client, t1, hand_key, void_key)
    assert out["voided"] is True and out["undone"]["seq"] == 1
    assert out["state"]["scores"] == [25000] * 4 and out["next_seq"] == 3
    again = void(client, t1, hand_key, void_key, expect=200)   # the answer lost again
    assert again["replayed"] is True and again["state"] == out["state"]
    assert log_kinds(db, g["game"]["id"]) == ["start", "win", "void"]
    # the hand's own retry still answers as it did, and changes nothing
    record(client, t1, RON, 1, k=hand_key, expect=200)
    assert log_kinds(db, g["game"]["id"]) == ["start", "win", "void"]


def test_undo_lost_void_of_a_hand_that_never_arrived_refuses_it_later(client, t1, db):
    g = start(client, t1)
    hand_key = key()
    out = void(client, t1, hand_key, key())
    assert out["voided"] is False and out["undone"] is None
    assert out["state"]["scores"] == [25000] * 4 and out["next_seq"] == 2
    # the hand turns up after all (a request stuck on the way): it is not recorded
    r = record(client, t1, RON, 1, k=hand_key, expect=409)
    assert r["error"]["code"] == "idempotency_key_reused"
    r = record(client, t1, RON, 2, k=hand_key, expect=409)
    assert r["error"]["code"] == "idempotency_key_reused"
    # a retry of the void (another key, as after a reload) answers as the first did
    assert void(client, t1, hand_key, key(), expect=200)["replayed"] is True
    later = record(client, t1, RON, 2)
    assert later["state"]["scores"] == [21100, 28900, 25000, 25000]
    assert log_kinds(db, g["game"]["id"]) == ["start", "void", "win"]


def test_undo_lost_void_of_a_hand_that_is_no_longer_the_last_is_refused(client, t1, db):
    g = start(client, t1)
    first = key()
    record(client, t1, RON, 1, k=first)
    record(client, t1, {"event": "draw", "tenpai": [0]}, 2)   # another device, meanwhile
    r = void(client, t1, first, key(), expect=409)
    assert r["error"]["code"] == "void_key_not_last" and r["error"]["next_seq"] == 3
    assert "undo them first" in r["error"]["message"]
    assert log_kinds(db, g["game"]["id"]) == ["start", "win", "draw"]


def test_undo_lost_void_needs_its_own_key_and_a_paired_tablet(client, t1):
    start(client, t1)
    hand_key = key()
    record(client, t1, RON, 1, k=hand_key)
    r = void(client, t1, hand_key, hand_key, expect=422)
    assert r["error"]["code"] == "void_own_key"
    r = client.post("/api/tables/t1/void", headers=t1, json={"target_key": "short"})
    assert r.status_code == 422 and r.get_json()["error"]["field"] in ("target_key",
                                                                       "idempotency_key")
    r = client.post("/api/tables/t1/void", json={"target_key": hand_key,
                                                 "idempotency_key": key()})
    assert r.status_code in (400, 401)   # no tablet, no void
