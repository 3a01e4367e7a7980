"""Bounded input and what the app shows: the strict event schema, body and JSON limits, ids,
rule-set ranges, the anonymous API, response headers and sessions that end."""

from __future__ import annotations

import re

import pytest

from club import club_tables, engine, games, roster
from club.accounts import create_staff
from club.db import connect
from tests.support.web import bearer, english, key, record, start
from web import create_app
from web.db import get_db

HUGE = 1_000_000_000_000_000


def win(**winner):
    return {"event": "win", "from": 0, "winners": [{"seat": 1, **winner}]}


# --------------------------------------------------------------------------- the event schema
@pytest.mark.parametrize("event, field, words", [
    (win(han=1, fu=30, yakuman=HUGE), "event.winners[0].yakuman", "out of range"),
    (win(yakuman=7), "event.winners[0].yakuman", "7 is out of range; give 0 to"),
    (win(han=200, fu=30), "event.winners[0].han", "out of range"),
    (win(han=3, fu=30, junk="x" * 1000), "event.winners[0].junk", "not accepted"),
    ({"event": "draw", "tenpai": [0], "note": "hi"}, "event.note", "not accepted"),
    ({"event": "penalty", "seat": 0, "kind": "points", "points": HUGE}, "event.points",
     "out of range"),
    ({"event": "penalty", "seat": 0, "kind": "points", "points": 2**70}, "event.points",
     "out of range"),
    (win(han=True, fu=30), "event.winners[0].han", "whole number"),
    (win(hand={"hand": "123m456p789s11122z", "win": "2z", "rules": "mcr"}),
     "event.winners[0].hand.rules", "not accepted"),
    ({"event": "abort", "kind": "meteor"}, "event.kind", "choose one of kyuushu"),
    ({"event": "draw", "tenpai": [0, 0]}, "event.tenpai", "seat twice"),
])
def test_events_outside_the_schema_are_422_naming_the_field(client, t1, db, event, field,
                                                            words):
    g = start(client, t1)
    before = db.execute("SELECT COUNT(*) FROM hand_events").fetchone()[0]
    r = record(client, t1, event, 1, expect=422)
    assert r["error"]["code"] == "invalid_field" and r["error"]["field"] == field
    assert r["error"]["message"].startswith(field) and words in r["error"]["message"]
    assert db.execute("SELECT COUNT(*) FROM hand_events").fetchone()[0] == before
    assert client.get(f"/api/games/{g['game']['id']}").get_json()["next_seq"] == 1


def test_the_yakuman_bound_is_the_rules_largest_stack():
    rules = engine.preset("nekohouse-4a")
    assert engine.max_yakuman(rules) == (
        1 if not rules.hand.yakuman_stacking else 6 if rules.hand.double_yakuman_hands else 4)
    assert all(1 <= engine.max_yakuman(engine.preset(p)) <= 6 for p in engine.PRESET_IDS)


def test_a_double_yakuman_records_and_scores_stay_within_64_bits(client, t1, db):
    start(client, t1)
    top = engine.max_yakuman(engine.preset("nekohouse-4a"))
    out = record(client, t1, win(yakuman=top), 1)
    assert all(abs(s) < 2**31 for s in out["hand"]["scores"])


def test_a_body_over_the_routes_cap_is_413_and_stores_nothing(client, t1, db):
    start(client, t1)
    body = {"event": win(han=1, fu=30), "expected_seq": 1, "idempotency_key": key(),
            "pad": "x" * 900_000}
    r = client.post("/api/tables/t1/hands", headers=t1, json=body)
    assert r.status_code == 413 and r.get_json()["error"]["code"] == "request_entity_too_large"
    assert db.execute("SELECT COUNT(*) FROM hand_events").fetchone()[0] == 1


def test_json_nested_thousands_deep_is_400_not_500(client, t1):
    start(client, t1)
    deep = "[" * 7_000 + "]" * 7_000  # deeper than Python's recursion limit, within 16 KB
    r = client.post("/api/tables/t1/hands", headers={**t1, "Content-Type": "application/json"},
                    data='{"event": ' + deep + "}")
    assert r.status_code == 400 and "nested too deeply" in r.get_json()["error"]["message"]
    shallow = "[" * 40 + "]" * 40
    r = client.post("/api/tables/t1/hands", headers={**t1, "Content-Type": "application/json"},
                    data='{"event": ' + shallow + "}")
    assert r.status_code == 400
    r = client.post("/api/tables/t1/hands", headers={**t1, "Content-Type": "application/json"},
                    data='{"event": ')
    assert r.status_code == 400 and "not valid JSON" in r.get_json()["error"]["message"]


@pytest.mark.parametrize("path", ["/api/games/9223372036854775808",
                                  "/api/games/99999999999999999999999/events",
                                  "/leaderboard/players/18446744073709551616",
                                  "/leaderboard/games/9223372036854775808",
                                  "/api/games/0"])
def test_ids_outside_64_bits_in_paths_are_404(client, path):
    assert client.get(path).status_code == 404


def test_ids_outside_64_bits_in_bodies_are_422(client, t1):
    start(client, t1)
    r = client.post("/api/tables/t1/hands", headers=t1, json={
        "event": {"event": "draw"}, "expected_seq": 1, "idempotency_key": key(),
        "game_id": 2**63})
    assert r.status_code == 422 and r.get_json()["error"]["field"] == "game_id"
    r = client.post("/api/tables/t1/hands", headers=t1, json={
        "event": {"event": "draw"}, "expected_seq": 2**64, "idempotency_key": key()})
    assert r.status_code == 422 and r.get_json()["error"]["field"] == "expected_seq"


def test_names_with_control_characters_are_refused(client, t1):
    for name in ("A\x00B", "A\x1bB", "A\u202eB", "A\nB"):
        r = client.post("/api/tables/t1/guests", headers=t1, json={"name": name})
        assert r.status_code == 400 and "control characters" in r.get_json()["error"]["message"]
    r = client.post("/api/tables/t1/guests", headers=t1, json={"name": "ＡＢＣ"})
    assert r.status_code == 201 and r.get_json()["player"]["name"] == "ABC"  # NFKC


# --------------------------------------------------------------------------- rule sets
@pytest.mark.parametrize("toml, words", [
    ('extends = "netmahjong"\n[settlement]\nstart_points = -99999999999999999999\n',
     "settlement.start_points = -99999999999999999999 is out of range"),
    ('extends = "netmahjong"\n[settlement]\nstart_points = -99999999999999\n',
     "settlement.start_points = -99999999999999 is out of range"),
    ('extends = "netmahjong"\n[points]\nriichi_deposit = inf\n', "points.riichi_deposit"),
    ('extends = "netmahjong"\nx = ' + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    ('extends = "netmahjong"\nx = ' + "[" * 20 + "]" * 20 + "\n", "nested too deeply"),
])
def test_rule_sets_are_range_checked_and_nesting_bounded(app, toml, words):
    with app.app_context():
        db = get_db()
        with pytest.raises(games.UserError) as e:
            club_tables.save_rule_set(db, "club-a", toml, actor="staff:test")
        assert words in str(e.value)
        assert db.execute("SELECT COUNT(*) FROM rule_sets").fetchone()[0] == 0


# --------------------------------------------------------------------------- what anyone may read
def test_the_anonymous_api_shows_only_what_a_leaderboard_needs(app, client, t1, db):
    roster.add_player(db, "会員", member_no="M-77")
    g = start(client, t1)
    record(client, t1, {"event": "draw", "tenpai": [0]}, 1)
    anon = english(app.test_client())
    listed = anon.get("/api/players").get_json()["players"]
    assert listed and all(set(p) == {"id", "name", "guest"} for p in listed)
    log = anon.get(f"/api/games/{g['game']['id']}/events").get_json()["log"]
    assert log and all(set(r) == {"seq", "kind", "event", "target_seq", "created_at"}
                       for r in log)
    view = anon.get(f"/api/games/{g['game']['id']}").get_json()
    assert not {"start_key", "started_by", "rules", "rules_json"} & set(view["game"])
    # staff see the whole log
    with app.app_context():
        create_staff(get_db(), "mika", "mahjong-club")
    staff = english(app.test_client())
    token = staff.get("/auth/csrf").get_json()["csrf_token"]
    staff.post("/auth/login", json={"name": "mika", "password": "mahjong-club"},
               headers={"X-CSRF-Token": token})
    full = staff.get(f"/api/games/{g['game']['id']}/events").get_json()["log"]
    assert {"actor", "idempotency_key", "request_hash"} <= set(full[0])
    assert "M-77" in str(staff.get("/api/players").get_json())


# --------------------------------------------------------------------------- headers
def _inline_scripts(html: str) -> list[str]:
    return [m for m in re.findall(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>",
                                  html)]


def test_pages_have_a_csp_without_inline_scripts_and_staff_pages_are_not_stored(app, client):
    with app.app_context():
        create_staff(get_db(), "mika", "mahjong-club")
    token = client.get("/auth/csrf").get_json()["csrf_token"]
    client.post("/auth/login", data={"name": "mika", "password": "mahjong-club",
                                     "csrf_token": token})
    for path in ("/staff/", "/staff/players", "/staff/accounts", "/auth/login",
                 "/leaderboard/", "/tablet/t1"):
        r = client.get(path)
        assert r.status_code == 200, path
        csp = r.headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert not _inline_scripts(r.text), path
        assert "style=" not in r.text and "<style" not in r.text, path
        assert "Server" not in r.headers
        if path.startswith(("/staff", "/auth")):
            assert r.headers["Cache-Control"] == "no-store", path


@pytest.mark.parametrize("path", ["/auth/login", "/staff/players", "/auth/pair"])
def test_json_callers_get_json_errors_from_auth_and_staff(app, path):
    c = app.test_client()
    r = c.post(path, json={"name": "x"}, headers={"Accept": "application/json"})
    assert r.is_json and r.get_json()["ok"] is False and r.get_json()["error"]["code"]


def test_the_pairing_address_never_comes_from_the_host_header(app):
    """A request's Host (or X-Forwarded-Host) is the client's to set: the QR code's address
    is the configured public URL, else the address the server is bound to."""
    from web.staff.manage import pairing_url

    evil = {"Host": "evil.example", "X-Forwarded-Host": "evil.example"}
    with app.test_request_context("/staff/tablets", method="POST", headers=evil):
        assert pairing_url("abc") == "http://localhost/auth/pair?code=abc"
    with app.test_request_context("/staff/tablets", method="POST", headers=evil,
                                  base_url="http://192.168.1.20:8000"):
        assert pairing_url("abc") == "http://192.168.1.20:8000/auth/pair?code=abc"
    app.config["PUBLIC_URL"] = "https://club.example:8443"
    with app.test_request_context("/staff/tablets", method="POST", headers=evil):
        assert pairing_url("abc") == "https://club.example:8443/auth/pair?code=abc"


# --------------------------------------------------------------------------- sessions that end
def _signed_in(app, name, password):
    c = app.test_client()
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    r = c.post("/auth/login", data={"name": name, "password": password, "csrf_token": token})
    assert r.status_code == 302
    return c


def test_logout_and_a_new_password_end_every_session(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "s.sqlite"), "SECRET_KEY": "k",
                      "TESTING": True, "LOGIN_GLOBAL_PER_SECOND": 100.0})
    with app.app_context():
        create_staff(get_db(), "mika", "mahjong-club")
        create_staff(get_db(), "ken", "ron-ron-ron", role="manager")
    phone, desk = _signed_in(app, "mika", "mahjong-club"), _signed_in(app, "mika", "mahjong-club")
    saved = desk.get_cookie("jantaku_session").value
    assert phone.get("/staff/floor.json").status_code == 200
    token = desk.get("/auth/csrf").get_json()["csrf_token"]
    assert desk.post("/auth/logout", data={"csrf_token": token}).status_code == 302
    assert phone.get("/staff/floor.json").status_code in (302, 401)  # the other device too
    replay = app.test_client()
    replay.set_cookie("jantaku_session", saved)  # a cookie saved before the logout
    assert replay.get("/staff/floor.json", headers={"Accept": "application/json"}
                      ).status_code == 401
    # a password reset (by a manager) ends the sessions of that account as well
    again = _signed_in(app, "mika", "mahjong-club")
    ken = _signed_in(app, "ken", "ron-ron-ron")
    with app.test_request_context():
        from club.accounts import set_staff_password
        set_staff_password(get_db(), "mika", "brand-new-pass", by={"id": 2, "role": "owner"})
    assert again.get("/staff/floor.json", headers={"Accept": "application/json"}
                     ).status_code == 401
    assert ken.get("/staff/floor.json").status_code == 200


def test_the_session_cookie_does_not_live_for_a_month(app):
    assert app.permanent_session_lifetime.total_seconds() <= 16 * 3600


def test_a_db_file_made_by_the_app_is_private(tmp_path):
    path = tmp_path / "new.sqlite"
    create_app({"DATABASE": str(path), "SECRET_KEY": "k"})
    assert path.stat().st_mode & 0o777 == 0o600
    db = connect(str(path))
    db.execute("CREATE TABLE IF NOT EXISTS t (a)")
    for suffix in ("-wal", "-shm"):
        side = tmp_path / f"new.sqlite{suffix}"
        if side.exists():
            assert side.stat().st_mode & 0o777 == 0o600
    db.conn.close()


def test_an_existing_readable_db_file_is_made_private(tmp_path):
    path = tmp_path / "old.sqlite"
    create_app({"DATABASE": str(path), "SECRET_KEY": "k"})  # a club made earlier
    path.chmod(0o644)
    create_app({"DATABASE": str(path), "SECRET_KEY": "k"})
    assert path.stat().st_mode & 0o777 == 0o600


def test_bearer_of_another_table_is_refused(app, client):
    start(client, bearer(app, "t1"))
    r = client.post("/api/tables/t1/hands", headers=bearer(app, "t2"),
                    json={"event": {"event": "draw"}, "expected_seq": 1,
                          "idempotency_key": key()})
    assert r.status_code == 403
