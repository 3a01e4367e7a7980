"""The JSON API: every route, idempotency, the two-tablet
race, token scope, CSRF for cookie tablets, errors in words, and that a game's state is
always the engine's replay of the stored events."""

from __future__ import annotations

import threading

import pytest
from werkzeug.routing import Rule

from scoring import game as engine_game
from scoring.hand import score_hand
from scoring.points import han_fu_pairs
from scoring.rules import PRESET_IDS, load_rules
from tests.support.web import bearer, cookie_client, english, key, record, start

# shared fixtures (a real SQLite file per test, a club, paired tablets)

RON = {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "from": 0}


def stored_events(db, game_id):
    from club.gamelog import effective_events, event_log

    return [e["event"] for e in effective_events(event_log(db, game_id))]


# --------------------------------------------------------------------------- meta
def test_health_and_openapi_describe_every_api_route(app, client):
    assert client.get("/api/health").get_json()["ok"] is True
    doc = client.get("/api/openapi.json").get_json()
    assert doc["openapi"].startswith("3.")
    described = {(p, m.upper()) for p, ops in doc["paths"].items() for m in ops}
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = Rule_to_openapi(rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            assert (path, method) in described, f"{method} {path} is not in openapi.json"


def Rule_to_openapi(rule: Rule) -> str:  # noqa: N802
    import re

    return re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule.rule)


def test_unknown_api_path_is_json_404_in_words(client):
    r = client.get("/api/nothing-here")
    assert r.status_code == 404
    assert r.get_json()["ok"] is False and r.get_json()["error"]["message"]


# --------------------------------------------------------------------------- players, rules, tables
def test_players_lists_members_and_guests_on_request(client, t1):
    names = [p["name"] for p in client.get("/api/players").get_json()["players"]]
    assert "青木" in names
    r = client.post("/api/tables/t1/guests", headers=t1, json={"name": "  山田   太郎 "})
    assert r.status_code == 201 and r.get_json()["player"]["name"] == "山田 太郎"
    assert "山田 太郎" not in [p["name"] for p in client.get("/api/players").get_json()["players"]]
    guests = client.get("/api/players?guests=1").get_json()["players"]
    assert any(p["name"] == "山田 太郎" and p["guest"] == 1 for p in guests)


def test_add_guest_refuses_empty_name_and_unpaired_or_other_tablets(app, client, t1):
    r = client.post("/api/tables/t1/guests", headers=t1, json={"name": "   "})
    assert r.status_code == 400 and "name" in r.get_json()["error"]["message"]
    assert client.post("/api/tables/t1/guests", json={"name": "x"}).status_code in (400, 401)
    r = client.post("/api/tables/t1/guests", headers=bearer(app, "t2"), json={"name": "x"})
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "wrong_table"


def test_rule_sets_list_every_preset_and_resolve(client):
    ids = [r["id"] for r in client.get("/api/rule-sets").get_json()["rule_sets"]]
    assert set(PRESET_IDS) <= set(ids)
    body = client.get("/api/rule-sets/nekohouse-3a").get_json()["rule_set"]
    assert body["rules"] == load_rules("nekohouse-3a").to_dict()
    r = client.get("/api/rule-sets/no-such-rules")
    assert r.status_code == 404 and "netmahjong" in r.get_json()["error"]["message"]


@pytest.mark.parametrize("tsumo", [False, True])
def test_han_fu_pairs_are_the_engines(client, tsumo):
    r = client.get(f"/api/rule-sets/nekohouse-4a/han-fu?tsumo={int(tsumo)}").get_json()
    pairs = [tuple(p) for p in r["pairs"]]
    assert pairs == [tuple(p) for p in han_fu_pairs(load_rules("nekohouse-4a"), tsumo=tsumo)]
    # 1 han 20 fu never exists on a ron (000 符計算: pinfu ron is 30 fu)
    assert (1, 20) not in pairs


def test_tables_and_table_detail(client, t1):
    tables = client.get("/api/tables").get_json()["tables"]
    assert [t["id"] for t in tables] == ["t1", "t2", "t3"] and tables[0]["live_game"] is None
    r = client.get("/api/tables/t1").get_json()
    assert r["table"]["rule_set"] == "nekohouse-4a" and r["game"] is None
    r = client.get("/api/tables/t9")
    assert r.status_code == 404 and "t1" in r.get_json()["error"]["message"]


# --------------------------------------------------------------------------- games
def test_start_game_is_idempotent_and_one_live_game_per_table(client, t1):
    body = {"players": [1, 2, 3, 4], "idempotency_key": key()}
    first = client.post("/api/tables/t1/games", headers=t1, json=body)
    assert first.status_code == 201
    again = client.post("/api/tables/t1/games", headers=t1, json=body)
    assert again.status_code == 200 and again.get_json()["replayed"] is True
    assert again.get_json()["game"]["id"] == first.get_json()["game"]["id"]
    other = client.post("/api/tables/t1/games", headers=t1,
                        json={"players": [1, 2, 3, 5], "idempotency_key": key()})
    assert other.status_code == 409 and other.get_json()["error"]["code"] == "game_in_progress"
    assert len(client.get("/api/games").get_json()["games"]) == 1


@pytest.mark.parametrize("players, status, words", [
    ([1, 2, 3], 422, "4 players"),
    ([1, 1, 2, 3], 422, "two seats"),
    ([1, 2, 3, 99], 404, "no player"),
    (["a", 2, 3, 4], 422, "players[0]: give a whole number"),
    ([1, 2, 3, 2**63], 422, "players[3]: 9223372036854775808 is out of range"),
    (None, 422, "players: send a list"),
])
def test_start_game_refuses_bad_seating_in_words(client, t1, players, status, words):
    r = client.post("/api/tables/t1/games", headers=t1,
                    json={"players": players, "idempotency_key": key()})
    assert r.status_code == status and words in r.get_json()["error"]["message"]
    assert client.get("/api/games").get_json()["games"] == []


def test_start_game_needs_a_key_and_json(client, t1):
    r = client.post("/api/tables/t1/games", headers=t1, json={"players": [1, 2, 3, 4]})
    err = r.get_json()["error"]
    assert r.status_code == 422 and err["code"] == "invalid_field"
    assert err["field"] == "idempotency_key" and "required" in err["message"]
    r = client.post("/api/tables/t1/games", headers=t1, data="players=1",
                    content_type="application/x-www-form-urlencoded")
    assert r.status_code == 400 and "JSON" in r.get_json()["error"]["message"]


def test_three_player_table_uses_its_rules(client, app):
    h = bearer(app, "t3")
    g = start(client, h, table="t3", players=(1, 2, 3))
    assert g["players"] == 3 and g["game"]["rule_set"] == "nekohouse-3a"
    assert g["state"]["scores"] == [load_rules("nekohouse-3a").settlement.start_points] * 3


def test_preview_changes_nothing(client, t1):
    g = start(client, t1)
    r = client.post("/api/tables/t1/preview", headers=t1, json={"event": RON})
    assert r.status_code == 200
    assert r.get_json()["preview"]["deltas"] == [-3900, 3900, 0, 0]
    view = client.get(f"/api/games/{g['game']['id']}").get_json()
    assert view["next_seq"] == 1 and view["state"]["scores"] == [25000] * 4


def test_preview_refusal_names_the_rule(client, t1):
    start(client, t1)
    bad = {"event": "win", "winners": [{"seat": 1, "han": 1, "fu": 20}], "from": 0}
    r = client.post("/api/tables/t1/preview", headers=t1, json={"event": bad})
    assert r.status_code == 422 and "20 fu" in r.get_json()["error"]["message"]


def test_record_hand_then_retry_records_once(client, t1, db):
    g = start(client, t1)
    k = key()
    first = record(client, t1, RON, 1, k=k)
    assert first["recorded_seq"] == 1 and first["state"]["scores"] == [21100, 28900, 25000, 25000]
    again = record(client, t1, RON, 1, k=k, expect=200)
    assert again["replayed"] is True and again["state"] == first["state"]
    assert {**again, "replayed": False} == {**first, "replayed": False}
    assert len(stored_events(db, g["game"]["id"])) == 2  # start + one win


def test_a_late_retry_answers_its_own_hand_and_the_game_as_it_stands(client, t1):
    start(client, t1)
    k = key()
    first = record(client, t1, RON, 1, k=k)
    later = record(client, t1, {"event": "draw", "tenpai": [1]}, 2)
    again = record(client, t1, RON, 1, k=k, expect=200)
    assert again["recorded_seq"] == 1 and again["hand"] == first["hand"]
    assert again["event"] == first["event"] and again["hand"]["type"] == "win"
    assert again["next_seq"] == 3 and again["state"] == later["state"]


def test_a_writes_answer_stays_the_same_size_however_long_the_game(client, t1):
    """The tablet's answer is the entry, its hand and the state; the whole game is GET."""
    start(client, t1)
    sizes = []
    for seq in range(1, 21):
        r = client.post("/api/tables/t1/hands", headers=t1, json={
            "event": {"event": "draw", "tenpai": [0, 1, 2, 3]}, "expected_seq": seq,
            "idempotency_key": key()})
        assert r.status_code == 201
        sizes.append(len(r.data))
    assert max(sizes) - min(sizes) < 40          # digits of the growing counters only
    whole = client.get(f"/api/games/{r.get_json()['game']['id']}").get_json()
    assert len(whole["replay"]["hands"]) == 20 and len(whole["events"]) == 21


def test_same_key_for_a_different_hand_is_refused(client, t1):
    start(client, t1)
    k = key()
    record(client, t1, RON, 1, k=k)
    r = client.post("/api/tables/t1/hands", headers=t1, json={
        "event": {"event": "draw", "tenpai": []}, "expected_seq": 2, "idempotency_key": k})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "idempotency_key_reused"


def test_stale_or_skipping_seq_is_already_recorded_in_words(client, t1):
    start(client, t1)
    record(client, t1, RON, 1)
    r = record(client, t1, {"event": "draw", "tenpai": [0]}, 1, expect=409)
    assert r["error"]["code"] == "already_recorded" and "already recorded" in r["error"]["message"]
    assert r["error"]["next_seq"] == 2
    r = record(client, t1, {"event": "draw", "tenpai": [0]}, 5, expect=409)
    assert "out of date" in r["error"]["message"]


@pytest.mark.parametrize("body, field", [
    ({"event": {"event": "draw", "tenpai": []}, "idempotency_key": "k" * 12}, "expected_seq"),
    ({"event": {"event": "draw", "tenpai": []}, "expected_seq": 1}, "idempotency_key"),
    ({"event": {"event": "start", "players": ["a"]}, "expected_seq": 1,
      "idempotency_key": "k" * 12}, "event.event"),
    ({"event": "ron!", "expected_seq": 1, "idempotency_key": "k" * 12}, "event"),
    ({"event": {"event": "draw", "tenpai": [7]}, "expected_seq": 1,
      "idempotency_key": "k" * 12}, "event.tenpai[0]"),
])
def test_bad_submissions_are_422_naming_the_field_and_change_nothing(client, t1, db, body,
                                                                     field):
    g = start(client, t1)
    r = client.post("/api/tables/t1/hands", headers=t1, json=body)
    assert r.status_code == 422
    err = r.get_json()["error"]
    assert err["code"] == "invalid_field" and err["field"] == field
    assert err["message"].startswith(field + ": ") and len(err["message"]) > 15
    assert len(stored_events(db, g["game"]["id"])) == 1


def test_no_live_game_is_409(client, t1):
    r = client.post("/api/tables/t1/hands", headers=t1,
                    json={"event": RON, "expected_seq": 1, "idempotency_key": key()})
    assert r.status_code == 409 and "start one" in r.get_json()["error"]["message"]


def test_undo_appends_a_void_marker_and_deletes_nothing(client, t1, db):
    g = start(client, t1)
    gid = g["game"]["id"]
    record(client, t1, RON, 1)
    r = client.post("/api/tables/t1/undo", headers=t1,
                    json={"expected_seq": 2, "idempotency_key": key()})
    assert r.status_code == 201
    assert r.get_json()["state"]["scores"] == [25000] * 4 and r.get_json()["next_seq"] == 3
    log = client.get(f"/api/games/{gid}/events").get_json()
    assert [row["kind"] for row in log["log"]] == ["start", "win", "void"]
    assert log["events"] == [{"event": "start", "players": ["青木", "伊藤", "上田", "遠藤"]}]
    r = client.post("/api/tables/t1/undo", headers=t1,
                    json={"expected_seq": 3, "idempotency_key": key()})
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "nothing_to_undo"


def test_two_tablets_racing_get_one_success_and_one_already_recorded(app):
    """Two paired tablets of the same table submit different hands for the same slot at once."""
    c = english(app.test_client())
    tablets = [bearer(app, "t1"), bearer(app, "t1")]
    start(c, tablets[0])
    events = [RON, {"event": "draw", "tenpai": [2]}]
    barrier = threading.Barrier(2)
    results = [None, None]

    def submit(i):
        client = english(app.test_client())
        barrier.wait()
        results[i] = client.post("/api/tables/t1/hands", headers=tablets[i], json={
            "event": events[i], "expected_seq": 1, "idempotency_key": key()})

    for _ in range(1):
        threads = [threading.Thread(target=submit, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    codes = sorted(r.status_code for r in results)
    assert codes == [201, 409]
    loser = next(r for r in results if r.status_code == 409).get_json()["error"]
    assert loser["code"] == "already_recorded" and "already recorded" in loser["message"]
    view = c.get("/api/tables/t1").get_json()["game"]
    assert view["next_seq"] == 2 and len(view["events"]) == 2


def test_cookie_tablet_needs_the_csrf_token(app):
    c = cookie_client(app, "t1")
    page = c.get("/tablet/t1")
    assert page.status_code == 200
    import re

    token = re.search(rb'name="csrf-token" content="([^"]+)"', page.data).group(1).decode()
    body = {"players": [1, 2, 3, 4], "idempotency_key": key()}
    r = c.post("/api/tables/t1/games", json=body)
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "csrf_missing"
    r = c.post("/api/tables/t1/games", json=body, headers={"X-CSRF-Token": "wrong"})
    assert r.status_code == 403
    r = c.post("/api/tables/t1/games", json=body, headers={"X-CSRF-Token": token})
    assert r.status_code == 201


@pytest.mark.parametrize("path", ["/api/tables/t1/games", "/api/tables/t1/hands",
                                  "/api/tables/t1/undo", "/api/tables/t1/preview",
                                  "/api/tables/t1/score-hand", "/api/tables/t1/games/1/confirm"])
def test_writes_need_a_tablet_of_that_table(app, client, path):
    r = client.post(path, json={}, headers={"Authorization": "Bearer not-a-token"})
    assert r.status_code == 401 and r.get_json()["error"]["message"]
    r = client.post(path, json={}, headers=bearer(app, "t2"))
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "wrong_table"


def test_score_hand_with_tiles(client, t1):
    start(client, t1)
    hand = {"hand": "123m456p789s11122z", "win": "2z", "tsumo": False, "riichi": True}
    r = client.post("/api/tables/t1/score-hand", headers=t1, json={"hand": hand})
    result = r.get_json()["result"]
    assert r.status_code == 200 and result["ok"] is True
    assert "riichi" in [y["name"] for y in result["yaku"]]
    bad = client.post("/api/tables/t1/score-hand", headers=t1,
                      json={"hand": {"hand": "123m45", "win": "5m"}})
    assert bad.status_code == 200 and bad.get_json()["result"]["ok"] is False
    assert bad.get_json()["result"]["error"]["message"]
    r = client.post("/api/tables/t1/score-hand", headers=t1, json={"hand": {"hand": "123m45"}})
    assert r.status_code == 422 and r.get_json()["error"]["field"] == "hand.win"
    r = client.post("/api/tables/t1/score-hand", headers=t1,
                    json={"hand": {**hand, "rules": "mcr"}})
    assert r.status_code == 422 and r.get_json()["error"]["field"] == "hand.rules"


def test_tile_entered_win_gets_winds_from_the_game(client, t1, db):
    """The engine owns the game's facts: the web passes the hand on without winds or tsumo,
    the engine scores it as seat 1's (South) ron in East 1, and refuses a hand that says
    otherwise; riichi comes from the event's own riichi list."""
    g = start(client, t1)
    # a South triplet is a seat-wind yakuhai only for seat 1 (South in E1)
    tiles = {"hand": "123m456p789s11z222z", "win": "1z"}
    ev = {"event": "win", "from": 0, "riichi": [1],
          "winners": [{"seat": 1, "hand": dict(tiles)}]}
    r = client.post("/api/tables/t1/preview", headers=t1, json={"event": ev})
    assert r.status_code == 200, r.get_json()
    sent = r.get_json()["event"]["winners"][0]["hand"]
    assert "seat_wind" not in sent and "tsumo" not in sent and sent["riichi"] is True
    rules = load_rules("nekohouse-4a")
    as_south = score_hand({**tiles, "seat_wind": "S", "round_wind": "E", "riichi": True}, rules)
    as_east = score_hand({**tiles, "seat_wind": "E", "round_wind": "E", "riichi": True}, rules)
    assert as_south["han"] == as_east["han"] + 1  # the seat wind counted for seat 1 only
    deltas = r.get_json()["preview"]["deltas"]
    # the riichi stick seat 1 put down comes back to the winner with the pot
    assert deltas[0] == -as_south["pay"]["ron"] and deltas[1] == as_south["pay"]["ron"]
    wrong = {**ev, "winners": [{"seat": 1, "hand": {**tiles, "seat_wind": "E"}}]}
    r = record(client, t1, wrong, 1, expect=422)
    assert r["error"]["reason"] == "hand_seat_wind"  # worded for players: wind and name
    assert r["error"]["message"] == ("South (伊藤): the hand gives the seat wind 'E', "
                                     "but in E1 it is S")
    said_no = {**ev, "winners": [{"seat": 1, "hand": {**tiles, "riichi": False}}]}
    r = record(client, t1, said_no, 1, expect=422)
    assert r["error"]["field"] == "event.winners[0].hand.riichi"
    record(client, t1, ev, 1)
    stored = stored_events(db, g["game"]["id"])[1]["winners"][0]["hand"]
    assert stored == {**tiles, "riichi": True}


def play_to_end(client, h, table="t1"):
    seq = 1
    for ev in (RON, {"event": "draw", "tenpai": [0, 2]},
               {"event": "win", "winners": [{"seat": 3, "han": 2, "fu": 30}]},
               {"event": "end"}):
        out = record(client, h, ev, seq, table=table)
        seq += 1
    return out


def test_finished_game_settlement_is_the_engines_replay(client, t1, db):
    g = start(client, t1)
    gid = g["game"]["id"]
    out = play_to_end(client, t1)
    assert out["game"]["status"] == "finished" and out["state"] is None
    engine = engine_game.replay(stored_events(db, gid), load_rules("nekohouse-4a"))
    assert out["final"] == engine["final"] and out["finished"] is engine["finished"] is True
    assert out["hand"] == engine["hands"][-1] and out["hand"]["type"] == "end"
    assert sum(engine["final"]["result"]) == 0
    assert client.get("/api/tables/t1").get_json()["table"]["id"] == "t1"
    r = record(client, t1, RON, 5, expect=409)
    assert r["error"]["code"] in ("no_live_game", "game_not_live")


def test_confirm_result_only_after_the_end(client, t1):
    g = start(client, t1)
    gid = g["game"]["id"]
    r = client.post(f"/api/tables/t1/games/{gid}/confirm", headers=t1, json={"seat": 0})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "game_not_finished"
    play_to_end(client, t1)
    for seat in range(4):
        r = client.post(f"/api/tables/t1/games/{gid}/confirm", headers=t1, json={"seat": seat})
        assert r.status_code == 200
    seats = r.get_json()["game"]["seats"]
    assert all(s["confirmed_at"] for s in seats)
    r = client.post(f"/api/tables/t1/games/{gid}/confirm", headers=t1, json={"seat": 4})
    assert r.status_code == 422 and r.get_json()["error"]["field"] == "seat"


def test_games_list_detail_and_events(client, t1):
    g = start(client, t1)
    gid = g["game"]["id"]
    record(client, t1, RON, 1)
    games = client.get("/api/games?table=t1&status=live").get_json()["games"]
    assert [x["id"] for x in games] == [gid] and games[0]["names"][0] == "青木"
    assert client.get("/api/games?status=nope").status_code == 400
    assert client.get("/api/games?limit=x").status_code == 400
    assert client.get("/api/games/999").status_code == 404
    assert client.get(f"/api/games/{gid}").get_json()["replay"]["hands"][0]["deltas"] == \
        [-3900, 3900, 0, 0]


def test_state_is_always_the_replay_of_stored_events(client, t1, db):
    g = start(client, t1)
    gid = g["game"]["id"]
    seq = 1
    for ev in (RON, {"event": "draw", "tenpai": [1], "riichi": [1]},
               {"event": "chombo", "seat": 2}):
        view = record(client, t1, ev, seq)
        seq += 1
        engine = engine_game.replay(stored_events(db, gid), load_rules("nekohouse-4a"))
        assert view["state"] == engine["state"] and view["hand"] == engine["hands"][-1]
        whole = client.get(f"/api/games/{gid}").get_json()
        assert whole["replay"]["hands"] == engine["hands"] and whole["state"] == engine["state"]


@pytest.mark.parametrize("event", [
    {"event": "abort", "kind": "kyuushu"},
    {"event": "penalty", "seat": 1, "kind": "deposit_1000"},
    {"event": "penalty", "seat": 2, "kind": "points", "points": 3000},
    {"event": "penalty", "seat": 3, "kind": "agari_houki"},
    {"event": "draw", "tenpai": [1], "nagashi": [2]},
    {"event": "win", "winners": [{"seat": 1, "yakuman": 1, "pao": 2, "chips": 2}], "from": 0},
], ids=["abort", "deposit", "points", "houki", "nagashi", "pao-chips"])
def test_every_event_kind_records_as_the_engine_replays_it(client, t1, db, event):
    g = start(client, t1)
    view = record(client, t1, event, 1)
    engine = engine_game.replay(stored_events(db, g["game"]["id"]), load_rules("nekohouse-4a"))
    assert view["hand"]["type"] == event["event"] and view["recorded_seq"] == 1
    assert [view["hand"]] == engine["hands"] and view["state"] == engine["state"]


def test_points_penalty_that_cannot_be_split_is_refused_in_words(client, t1):
    start(client, t1)
    bad = {"event": "penalty", "seat": 2, "kind": "points", "points": 2000}
    r = record(client, t1, bad, 1, expect=422)
    assert "split" in r["error"]["message"]
    record(client, t1, {**bad, "to": 0}, 1)
