"""The floor's logic against a real club file: the waiting list and its estimates, seating
with a recorded draw, the game made ready and started once, event nights seated round by
round without rematches, a seat swap priced again by the replay, staff calls."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from club import club_tables, clubtime, corrections, games, roster
from club.audit import audit_entries
from club.errors import UserError
from club.floor import calls, clock, nights, pairing, seating, waiting
from tests.support.web import key

RON = {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "from": 0}


@pytest.fixture()
def path(app):
    return app.config["DATABASE"]


def members(db, n: int) -> list[int]:
    return [roster.add_player(db, f"会員{i:02d}", member_no=f"N{i:02d}")["id"] for i in range(n)]


def test_waiting_list_in_order_with_estimates_from_the_tables(db, path):
    ids = members(db, 6)
    for pid in ids[:5]:
        waiting.add(db, pid, "family:riichi4", actor="staff:mika")
    waiting.add(db, ids[5], "family:riichi3", actor="staff:mika")
    est = {e["player_id"]: e for e in waiting.estimates(db, path)}
    assert [est[p]["place"] for p in ids] == [1, 2, 3, 4, 5, 1]
    # t1 and t2 (four-player) are free: two tables' worth seated now
    assert est[ids[0]]["minutes"] == 0 and est[ids[4]]["minutes"] == 0
    # a game starts at t1: the first table's worth takes t2, the next waits for t1
    games.start_game(db, "t1", [1, 2, 3, 4], idempotency_key=key())
    out = {t["table_id"]: t for t in waiting.outlook(db, path)}
    assert out["t1"]["state"] == "playing" and out["t2"]["state"] == "free"
    expected = out["t1"]["expected_hands"] * clock.DEFAULT_MINUTES_PER_HAND
    assert out["t1"]["expected_hands"] == 2 * 4 * waiting.DEALER_REPEATS      # a hanchan
    assert out["t1"]["free_in"] == pytest.approx(expected, abs=0.1)
    est = {e["player_id"]: e for e in waiting.estimates(db, path)}
    assert est[ids[0]]["minutes"] == 0                       # t2 is free
    assert est[ids[4]]["minutes"] == round(expected)         # the second table's worth: t1
    with pytest.raises(UserError) as e:
        waiting.add(db, ids[0], "family:riichi4", actor="staff:mika")
    assert e.value.code == "already_waiting"
    with pytest.raises(UserError) as e:
        waiting.add(db, 1, "family:riichi4", actor="staff:mika")     # playing at t1
    assert e.value.code == "player_seated"
    with pytest.raises(UserError):
        waiting.add(db, ids[0], "family:chess", actor="staff:mika")


def test_seating_by_wind_tiles_makes_the_game_ready_and_starts_it_once(db):
    ids = members(db, 4)
    for pid in ids:
        waiting.add(db, pid, "rules:nekohouse-4a", actor="staff:mika")
    prop = seating.proposal(db, "t1")
    assert [p["player_id"] for p in prop["players"]] == ids and prop["seats"] == 4
    winds = {ids[0]: "北", ids[1]: "E", ids[2]: "W", ids[3]: "南"}
    made = seating.seat(db, "t1", ids, method="wind", winds=winds, actor="staff:mika")
    assert made["players"] == [ids[1], ids[3], ids[2], ids[0]]      # 東 南 西 北
    assert made["draw"]["tiles"][str(ids[1])] == "E"
    assert waiting.waiting(db) == []
    entry = audit_entries(db, table="t1")[0]
    assert entry["action"] == "seating.ready" and entry["details"]["draw"]["method"] == "wind"
    view = seating.start(db, made["id"], actor="tablet:t1")
    again = seating.start(db, made["id"], actor="tablet:t1")
    assert again["game"]["id"] == view["game"]["id"] and again.get("replayed")
    assert [s["player_id"] for s in view["game"]["seats"]] == made["players"]
    with pytest.raises(UserError) as e:                 # two East tiles
        seating.draw([1, 2, 3, 4], "wind", {1: "E", 2: "E", 3: "W", 4: "N"})
    assert "東南西北" in e.value.message


def test_seating_cancelled_gives_back_the_places(db):
    ids = members(db, 5)
    for pid in ids:
        waiting.add(db, pid, "family:riichi4", actor="staff:mika")
    made = seating.seat(db, "t1", ids[1:5], actor="staff:mika", rng=random.Random(1))
    assert [w["player_id"] for w in waiting.waiting(db)] == [ids[0]]
    with pytest.raises(UserError) as e:                 # one ready game per table
        seating.seat(db, "t1", ids[:1] + [1, 2, 3], actor="staff:mika")
    assert e.value.code == "already_ready"
    seating.cancel(db, made["id"], actor="staff:mika")
    assert [w["player_id"] for w in waiting.waiting(db)] == ids       # their own places
    with pytest.raises(UserError):
        seating.start(db, made["id"], actor="tablet:t1")


def test_seating_at_a_table_of_another_rule_set_gives_it_that_rule_set(db):
    ids = members(db, 3)
    made = seating.seat(db, "t1", ids, rule_set="nekohouse-3a", actor="staff:mika")
    assert club_tables.get_table(db, "t1")["rule_set"] == "nekohouse-3a"
    assert len(made["seats"]) == 3
    assert audit_entries(db, table="t1")[1]["action"] == "table.update"


def _finish(db, gid, winner=1, loser=0):
    ev = {"event": "win", "winners": [{"seat": winner, "han": 4, "fu": 30}], "from": loser}
    games.record_event(db, gid, ev, expected_seq=1, idempotency_key=key())
    games.end_game(db, gid, expected_seq=2, idempotency_key=key())


def test_seating_event_night_rounds_swiss_without_rematch(db):
    club_tables.save_table(db, "t4", "卓4", "nekohouse-4a")
    ids = members(db, 8)
    night = nights.create(db, name="月例会", rule_set="nekohouse-4a", rounds=3,
                          pairing_method="swiss", tables=["t1", "t2", "t4"], players=ids,
                          time_limit=60, actor="staff:mika")
    with pytest.raises(UserError) as e:
        nights.create(db, name="x", rule_set="nekohouse-4a", rounds=2, pairing_method="swiss",
                      tables=["t1"], players=ids[:6], time_limit=None, actor="staff:mika")
    assert "2人余ります" in e.value.message or "2 left over" in e.value.message
    first = nights.next_round(db, night["id"], actor="staff:mika", rng=random.Random(7))
    assert [s["table_id"] for s in first] == ["t1", "t2"]      # two tables' worth, in order
    with pytest.raises(UserError) as e:
        nights.next_round(db, night["id"], actor="staff:mika")
    assert e.value.code in ("round_running", "already_ready")
    for s in first:
        view = seating.start(db, s["id"], actor="tablet")
        assert clock.limit_of(db, view["game"]["id"])["limit_minutes"] == 60
        _finish(db, view["game"]["id"])
    second = nights.next_round(db, night["id"], actor="staff:mika")
    met = pairing.met_pairs(s["players"] for s in first)
    assert pairing.rematches([s["players"] for s in second], met) == 4   # 8 in 4s: unavoidable
    board = nights.standings(db, night["id"])
    assert len(board) == 8 and board[0]["total"] >= board[-1]["total"]
    assert {p for s in second for p in s["players"]} == set(ids)


def test_seat_swap_prices_every_hand_again(db):
    gid = games.start_game(db, "t1", [1, 2, 3, 4], idempotency_key=key())["game"]["id"]
    games.record_event(db, gid, RON, expected_seq=1, idempotency_key=key())
    before = games.game_view(db, gid)["state"]["scores"]
    view = corrections.swap_seats(db, gid, 0, 1, actor="staff:mika", reason="座り間違い")
    assert [s["name"] for s in view["game"]["seats"]][:2] == ["伊藤", "青木"]
    # 伊藤 won from 青木 as recorded, now as the dealer (East): a dealer's 3 han 30 fu
    assert view["events"][1]["event"]["winners"][0]["seat"] == 0
    assert view["state"]["scores"][0] - 25000 == 5800 and before[1] - 25000 == 3900
    entry = audit_entries(db, game=gid)[0]
    assert entry["action"] == "game.seat_swap"
    assert entry["details"]["after_names"][:2] == ["伊藤", "青木"]
    with pytest.raises(UserError):
        corrections.swap_seats(db, gid, 2, 2, actor="staff:mika", reason="same seat")


def test_call_staff_once_per_table_until_answered(db):
    first = calls.call(db, "t1", "drink")
    again = calls.call(db, "t1", "score")
    assert again["id"] == first["id"] and again["reason"] == "score"
    assert [c["table_id"] for c in calls.open_calls(db)] == ["t1"]
    later = clubtime.now() + timedelta(seconds=75)
    assert calls.open_calls(db, later)[0]["waited"] >= 75
    calls.acknowledge(db, first["id"], actor="staff:mika")
    assert calls.open_calls(db) == []
    with pytest.raises(UserError):
        calls.acknowledge(db, first["id"], actor="staff:mika")
    assert calls.call(db, "t1", "other")["id"] != first["id"]
    with pytest.raises(UserError):
        calls.call(db, "t1", "pizza")
