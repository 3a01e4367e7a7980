"""Hostile input answered in words, never a 500 nor a wrong type: lone surrogates and
NaN in JSON, digits that are not ASCII, a sign-in ``next`` with CR/LF, invisible
characters in names, staff JSON typed strictly, the current password to change one's
own, throttled member-number and guest guesses, tablet answers never cached, and
staff confirming any seat's settlement from the game page."""

from __future__ import annotations

import re
import time
from types import SimpleNamespace

import pytest

from club import games, roster
from club.accounts import create_staff
from club.db import connect
from tests.support.web import english, key, start
from web.security import issue_tablet_token

OWNER = ("mika", "mahjong-club")


def _signed_in(app, name=OWNER[0], password=OWNER[1], ip="10.1.0.1"):
    """A test client signed in (JSON) as ``name``, and its CSRF header."""
    c = english(app.test_client())
    c.environ_base["REMOTE_ADDR"] = ip
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    r = c.post("/auth/login", json={"name": name, "password": password},
               headers={"X-CSRF-Token": token})
    assert r.status_code == 200, r.get_json()
    return c, {"X-CSRF-Token": r.get_json()["csrf_token"]}


@pytest.fixture()
def owner(app):
    # These tests sign in many times in a second; the global gate (password checks per
    # second per process, test_security's) would refuse the burst on a fast machine.
    app.config.update(LOGIN_GLOBAL_PER_SECOND=1000.0, LOGIN_GLOBAL_BURST=1000)
    db = connect(app.config["DATABASE"])
    create_staff(db, *OWNER, role="owner")
    db.conn.close()
    return _signed_in(app)


def _raw(client, path, text, headers):
    return client.post(path, data=text, content_type="application/json",
                       headers={**headers, "Accept": "application/json"})


# --------------------------------------------------------------------------- JSON itself
def test_a_lone_surrogate_in_anonymous_pairing_is_400_naming_the_field(client):
    token = client.get("/auth/csrf").get_json()["csrf_token"]
    r = _raw(client, "/auth/pair", '{"code": "ab\\ud800cd"}', {"X-CSRF-Token": token})
    assert r.status_code == 400
    error = r.get_json()["error"]
    assert error["field"] == "code" and "lone surrogate" in error["message"]


def test_a_lone_surrogate_anywhere_in_a_body_names_its_path(client, t1):
    start(client, t1)
    body = ('{"event": {"event": "draw", "tenpai": [], "x": ["\\udfff"]},'
            ' "expected_seq": 1, "idempotency_key": "%s"}' % key())
    r = _raw(client, "/api/tables/t1/hands", body, t1)
    assert r.status_code == 400 and r.get_json()["error"]["field"] == "event.x[0]"
    r = _raw(client, "/api/tables/t1/guests", '{"name": "\\ud83d"}', t1)
    assert r.status_code == 400 and r.get_json()["error"]["field"] == "name"
    # a pair that makes one character is text
    r = _raw(client, "/api/tables/t1/guests", '{"name": "Guest \\ud83c\\udc04"}', t1)
    assert r.status_code == 201, r.get_json()


@pytest.mark.parametrize("word", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(client, t1, word):
    g = start(client, t1)
    body = '{"seat": %s}' % word
    r = _raw(client, f"/api/tables/t1/games/{g['game']['id']}/confirm", body, t1)
    assert r.status_code == 400
    assert word in r.get_json()["error"]["message"]


# --------------------------------------------------------------------------- staff confirm any seat
def _finished_game(db) -> int:
    gid = games.start_game(db, "t1", [1, 2, 3, 4], idempotency_key=key())["game"]["id"]
    games.record_event(db, gid, {"event": "draw", "tenpai": [0]}, expected_seq=1,
                       idempotency_key=key())  # a game ended with no hand is void
    games.end_game(db, gid, expected_seq=2, idempotency_key=key())
    return gid


def test_staff_confirm_every_seat_through_the_game_pages_own_forms(app, db, owner):
    staff, _headers = owner
    gid = _finished_game(db)
    for seat in range(4):
        page = staff.get(f"/staff/games/{gid}").get_data(as_text=True)
        form = re.search(r'<form method="post" action="([^"]+)"[^>]*>\s*<input type="hidden" '
                         r'name="csrf_token" value="([^"]+)">\s*<button[^>]*data-testid='
                         rf'"confirm-for-{seat}"', page)
        assert form, f"no confirm form for seat {seat}"
        r = staff.post(form.group(1), data={"csrf_token": form.group(2)})
        assert r.status_code == 302, (seat, r.status_code)
        by = dict(db.execute("SELECT seat, confirmed_by FROM game_seats WHERE game_id = ?",
                             [gid]).fetchall())
        assert by[seat] == "staff:mika"
    assert f"/staff/games/{gid}/seats/4/confirm" not in page
    for seat in ("4", "²", "-1"):
        r = staff.post(f"/staff/games/{gid}/seats/{seat}/confirm",
                       headers={"Accept": "application/json"}, data={"csrf_token": form.group(2)})
        assert r.status_code in (404, 422), (seat, r.status_code)


# --------------------------------------------------------------------------- no-store
def test_tablet_and_api_answers_are_never_stored_by_a_cache(client, t1):
    start(client, t1)
    answers = {
        "refused tablet page": client.get("/tablet/t1"),
        "tablet page": client.get("/tablet/t1", headers=t1),
        "floor": client.get("/api/tables/t1/floor", headers=t1),
        "refused floor": client.get("/api/tables/t1/floor"),
        "game": client.get("/api/tables/t1", headers=t1),
        "not found": client.get("/api/games/999999"),
    }
    for what, r in answers.items():
        assert r.headers.get("Cache-Control") == "no-store", (what, r.status_code)
    assert answers["refused tablet page"].status_code == 401


# --------------------------------------------------------------------------- digits
ODD_DIGITS = ["²", "١٢", "１２", "9" * 5000, "-1"]


@pytest.mark.parametrize("raw", ODD_DIGITS)
def test_only_ascii_digits_are_numbers_in_queries(client, owner, raw):
    staff, _headers = owner
    for c, url, field in ((client, "/api/games", "limit"),
                          (client, "/leaderboard/", "min_games"),
                          (staff, "/staff/audit", "game")):
        r = c.get(url, query_string={field: raw}, headers={"Accept": "application/json"})
        assert r.status_code == 400, (url, raw[:10], r.status_code)
        assert r.get_json()["error"]["field"] == field


def test_the_one_number_helper_takes_ascii_digits_only():
    from club.text import whole_number
    assert whole_number("0042") == 42 and whole_number("9" * 19) == int("9" * 19)
    for raw in ODD_DIGITS + ["", " 1", "9" * 20, None, 12, "1.5", "1e3"]:
        assert whole_number(raw) is None, raw


# --------------------------------------------------------------------------- sign-in next
@pytest.mark.parametrize("target", ["/staff/players\r\nSet-Cookie: x=1", "/staff/\n",
                                    "/staff/\x00", "/staff/\t"])
def test_a_next_with_control_characters_goes_to_the_floor(app, client, target):
    db = connect(app.config["DATABASE"])
    create_staff(db, *OWNER, role="owner")
    db.conn.close()
    token = client.get("/auth/csrf").get_json()["csrf_token"]
    r = client.post("/auth/login", data={"name": OWNER[0], "password": OWNER[1],
                                         "csrf_token": token, "next": target})
    assert r.status_code == 302
    assert r.headers["Location"].endswith("/staff/") and "Set-Cookie: x" not in str(r.headers)
    token = client.get("/auth/csrf").get_json()["csrf_token"]
    r = client.post("/auth/login", data={"name": OWNER[0], "password": OWNER[1],
                                         "csrf_token": token, "next": "/staff/players?x=1"})
    assert r.headers["Location"].endswith("/staff/players?x=1")


# --------------------------------------------------------------------------- invisible characters
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\ufeff", "\u2060", "\u180e", "\u00ad", "\u034f",
             "\u061c", "\U000e0001", "\u3164", "\ufe0f"]


@pytest.mark.parametrize("mark", INVISIBLE, ids=[f"U+{ord(c):04X}" for c in INVISIBLE])
def test_names_with_invisible_characters_are_refused_in_words(app, db, owner, mark):
    staff, headers = owner
    roster.add_player(db, "Player001")
    before = {"players": db.execute("SELECT COUNT(*) FROM players").fetchone()[0],
              "staff": db.execute("SELECT COUNT(*) FROM staff_users").fetchone()[0]}
    for url, body in (("/staff/players", {"name": f"Player{mark}001"}),
                      ("/staff/accounts", {"name": f"owner1{mark}", "password": "long-enough-1"}),
                      ("/staff/tables", {"id": "t9", "name": f"卓{mark}9",
                                         "rule_set": "nekohouse-4a"})):
        r = staff.post(url, json=body, headers={**headers, "Accept": "application/json"})
        assert r.status_code == 400, (url, r.status_code, r.get_json())
        error = r.get_json()["error"]
        assert error["field"] == "name" and "invisible" in error["message"], error
    assert db.execute("SELECT COUNT(*) FROM players").fetchone()[0] == before["players"]
    assert db.execute("SELECT COUNT(*) FROM staff_users").fetchone()[0] == before["staff"]
    assert db.execute("SELECT COUNT(*) FROM club_tables WHERE id = 't9'").fetchone()[0] == 0


def test_a_kanjis_variant_form_is_a_name_not_an_invisible_character(db):
    assert roster.add_player(db, "葛\U000e0100西")["name"] == "葛\U000e0100西"
    with pytest.raises(Exception, match="invisible"):
        roster.add_player(db, "Ken\U000e0100")


# --------------------------------------------------------------------------- strict staff JSON
def _staff_json(staff, headers, url, raw):
    return staff.post(url, data=raw, content_type="application/json",
                      headers={**headers, "Accept": "application/json"})


WRONG_TYPES = [
    ("/staff/accounts/ken/active", '{"active": 0}', "active"),
    ("/staff/accounts/ken/active", '{"active": "false"}', "active"),
    ("/staff/accounts/ken/active", '{"active": []}', "active"),
    ("/staff/accounts/ken/active", '{"active": {}}', "active"),
    ("/staff/accounts/ken/active", '{"active": null}', "active"),
    ("/staff/accounts/ken/active", '{}', "active"),
    ("/staff/players/1/active", '{"active": 1}', "active"),
    ("/staff/tables", '{"id": 1.5, "name": "x", "rule_set": "nekohouse-4a"}', "id"),
    ("/staff/tables", '{"id": "t9", "name": false, "rule_set": "nekohouse-4a"}', "name"),
    ("/staff/tables", '{"id": "t9", "name": "x", "rule_set": 0}', "rule_set"),
    ("/staff/rulesets", '{"id": 1e400, "toml": "extends = \\"simple\\""}', "id"),
    ("/staff/players", '{"name": 0}', "name"),
    ("/staff/players", '{"name": ["Ken"]}', "name"),
    ("/staff/players", '{"name": "Ken", "guest": "yes"}', "guest"),
    ("/staff/players", '{"name": "Ken", "member_no": 12}', "member_no"),
    ("/staff/accounts", '{"name": "aki", "password": 1234567890123}', "password"),
    ("/staff/accounts", '{"name": "aki", "password": "long-enough-1", "role": 2}', "role"),
    ("/staff/settings", '{"timezone": 9}', "timezone"),
    ("/staff/settings", '{"guests_ranked": "1"}', "guests_ranked"),
    ("/staff/tablets", '{"table_id": "t1", "label": {}}', "label"),
    ("/staff/waiting", '{"wants": "rules:nekohouse-4a", "name": 1.5}', "name"),
    ("/staff/waiting", '{"wants": "rules:nekohouse-4a", "player_id": 0, "name": "Ken"}',
     "player_id"),
    ("/staff/waiting", '{"wants": "rules:nekohouse-4a", "player_id": "²"}', "player_id"),
    ("/staff/waiting", '{"wants": "rules:nekohouse-4a", "name": "Ken", "allow_similar": "1"}',
     "allow_similar"),
    ("/staff/waiting", '{"wants": 4}', "wants"),
    ("/staff/tables/t1/command", '{"command": ["dice"]}', "command"),
    ("/staff/games/1/swap", '{"a": "١", "b": 2, "reason": "seated wrong"}', "a"),
    ("/staff/games/1/swap", '{"a": 0, "b": true, "reason": "seated wrong"}', "b"),
    ("/staff/games/1/void", '{"reason": 12345}', "reason"),
]
"""A staff JSON body with a field of the wrong type, and the field the refusal names."""


def test_staff_json_takes_its_own_types_only(app, db, owner):
    staff, headers = owner
    create_staff(db, "ken", "ron-ron-ron-ron")
    counts = "SELECT (SELECT COUNT(*) FROM players), (SELECT COUNT(*) FROM club_tables), " \
             "(SELECT COUNT(*) FROM staff_users WHERE active = 1), (SELECT COUNT(*) FROM " \
             "rule_sets), (SELECT COUNT(*) FROM tablet_tokens), (SELECT COUNT(*) FROM " \
             "audit_log)"
    before = db.execute(counts).fetchone()
    for url, raw, field in WRONG_TYPES:
        r = _staff_json(staff, headers, url, raw)
        assert r.status_code in (400, 422), (url, raw, r.status_code, r.get_json())
        assert r.get_json()["error"]["field"] == field, (url, raw, r.get_json())
        assert r.get_json()["error"]["message"].startswith(field), (url, raw)
        assert db.execute(counts).fetchone() == before, (url, raw)


def test_nan_never_disables_an_account(app, db, owner):
    staff, headers = owner
    create_staff(db, "ken", "ron-ron-ron-ron")
    r = _staff_json(staff, headers, "/staff/accounts/ken/active", '{"active": NaN}')
    assert r.status_code == 400 and "NaN" in r.get_json()["error"]["message"]
    assert db.execute("SELECT active FROM staff_users WHERE name = 'ken'").fetchone()[0] == 1
    r = _staff_json(staff, headers, "/staff/accounts/ken/active", '{"active": false}')
    assert r.status_code == 200
    assert db.execute("SELECT active FROM staff_users WHERE name = 'ken'").fetchone()[0] == 0


# --------------------------------------------------------------------------- one's own password
def _can_sign_in(app, name, password, ip="10.9.9.9") -> bool:
    c = english(app.test_client())
    c.environ_base["REMOTE_ADDR"] = ip
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    return c.post("/auth/login", json={"name": name, "password": password},
                  headers={"X-CSRF-Token": token}).status_code == 200


def test_changing_ones_own_password_needs_the_current_one(app, owner):
    staff, headers = owner
    new = {"name": OWNER[0], "password": "taken-over-123", "reset": True}
    for current in (None, "", "wrong-password", 12345):
        body = new if current is None else {**new, "current_password": current}
        r = staff.post("/staff/accounts", json=body,
                       headers={**headers, "Accept": "application/json"})
        assert r.status_code in (400, 403, 422), (current, r.status_code)
        assert r.get_json()["error"]["field"] == "current_password"
        if r.status_code == 403:
            assert "current password is wrong" in r.get_json()["error"]["message"]
    assert _can_sign_in(app, *OWNER) and not _can_sign_in(app, OWNER[0], "taken-over-123")
    r = staff.post("/staff/accounts", json={**new, "current_password": OWNER[1]},
                   headers={**headers, "Accept": "application/json"})
    assert r.status_code == 200, r.get_json()
    assert _can_sign_in(app, OWNER[0], "taken-over-123", ip="10.9.9.8")


def test_wrong_current_passwords_are_throttled_like_sign_ins(app, owner, clock):
    staff, headers = owner
    body = {"name": OWNER[0], "password": "taken-over-123", "reset": True}
    answers = [staff.post("/staff/accounts", json={**body, "current_password": f"guess-{i}"},
                          headers={**headers, "Accept": "application/json"}) for i in range(6)]
    codes = [r.status_code for r in answers]
    assert codes == [403, 403, 403, 429, 429, 429], codes
    refused = next(r for r in answers if r.status_code == 429)
    assert int(refused.headers["Retry-After"]) >= 1
    assert "Wait" in refused.get_json()["error"]["message"]
    # the right one while the address must wait is refused too
    r = staff.post("/staff/accounts", json={**body, "current_password": OWNER[1]},
                   headers={**headers, "Accept": "application/json"})
    assert r.status_code == 429
    assert _can_sign_in(app, *OWNER, ip="10.9.9.7")


# --------------------------------------------------------------------------- throttled guesses
def _member_game(db) -> tuple[int, int]:
    sato = roster.add_player(db, "Sato", member_no="M0042")["id"]
    gid = games.start_game(db, "t1", [sato, 2, 3, 4], idempotency_key=key())["game"]["id"]
    games.record_event(db, gid, {"event": "draw", "tenpai": [0]}, expected_seq=1,
                       idempotency_key=key())
    games.end_game(db, gid, expected_seq=2, idempotency_key=key())
    return sato, gid


@pytest.fixture()
def clock(monkeypatch):
    """The throttles' clock, standing still until a test moves it (no sleeps, no races
    with a loaded machine)."""
    from club import accounts as auth
    now = [time.time()]
    monkeypatch.setattr(auth, "time", SimpleNamespace(time=lambda: now[0],
                                                      monotonic=time.monotonic))
    return now


def _time_passes(clock, seconds: float) -> None:
    clock[0] += seconds


def test_member_number_guesses_wait_longer_and_longer(app, db, client, t1, clock):
    _sato, gid = _member_game(db)
    url = f"/api/tables/t1/games/{gid}/confirm"
    codes = [client.post(url, headers=t1, json={"seat": 0, "member_no": f"M{n:04d}"}
                         ).status_code for n in range(200)]
    assert codes[:3] == [422, 422, 422] and set(codes[3:]) == {429}, codes[:10]
    r = client.post(url, headers=t1, json={"seat": 0, "member_no": "M0042"})
    assert r.status_code == 429, "the right number is refused until the wait ends"
    assert int(r.headers["Retry-After"]) >= 1 and "wrong member numbers" in \
        r.get_json()["error"]["message"]
    # another tablet of the same table: the game's own count still holds it back
    other = {"Authorization": "Bearer " + issue_tablet_token(db, "t1")}
    assert client.post(url, headers=other, json={"seat": 0, "member_no": "M0042"}
                       ).status_code == 429
    # a guest's confirmation guesses nothing and goes on
    assert client.post(url, headers=t1, json={"seat": 1}).status_code == 200
    _time_passes(clock, 60)
    assert client.post(url, headers=t1, json={"seat": 0, "member_no": "M0001"}
                       ).status_code == 422
    r = client.post(url, headers=t1, json={"seat": 0, "member_no": "M0042"})
    assert r.status_code == 429  # the wait doubled with that guess
    _time_passes(clock, 120)
    r = client.post(url, headers=t1, json={"seat": 0, "member_no": "M0042"})
    assert r.status_code == 200, r.get_json()
    by = db.execute("SELECT confirmed_by FROM game_seats WHERE game_id = ? AND seat = 0",
                    [gid]).fetchone()[0]
    assert by == "self"


def test_a_right_number_for_one_seat_buys_no_guesses_at_another(db, client, t1, clock):
    sato = roster.add_player(db, "Sato", member_no="M0042")["id"]
    suzuki = roster.add_player(db, "Suzuki", member_no="M0077")["id"]
    gid = games.start_game(db, "t1", [sato, suzuki, 3, 4], idempotency_key=key())["game"]["id"]
    games.record_event(db, gid, {"event": "draw", "tenpai": [0]}, expected_seq=1,
                       idempotency_key=key())
    games.end_game(db, gid, expected_seq=2, idempotency_key=key())
    url = f"/api/tables/t1/games/{gid}/confirm"
    codes = []
    for n in range(12):
        codes.append(client.post(url, headers=t1, json={"seat": 1, "member_no": f"X{n}"}
                                 ).status_code)
        client.post(url, headers=t1, json={"seat": 0, "member_no": "M0042"})
    assert codes.count(422) == 3 and 429 in codes


def test_guests_from_one_tablet_are_throttled_staff_are_not(app, db, client, t1, owner, clock):
    added = [client.post("/api/tables/t1/guests", headers=t1, json={"name": f"Walk-in {n}"})
             for n in range(30)]
    codes = [r.status_code for r in added]
    assert codes == [201] * 8 + [429] * 22, codes
    refused = next(r for r in added if r.status_code == 429)
    assert int(refused.headers["Retry-After"]) >= 1
    assert "guests were added" in refused.get_json()["error"]["message"]
    staff, headers = owner
    r = staff.post("/staff/players", json={"name": "Walk-in staff", "guest": True},
                   headers={**headers, "Accept": "application/json"})
    assert r.status_code == 201
    _time_passes(clock, 3600)
    assert client.post("/api/tables/t1/guests", headers=t1, json={"name": "Later"}
                       ).status_code == 201


@pytest.mark.parametrize("raw", ["9" * 5000, "١٢", "１", "²"])
def test_ids_in_paths_are_ascii_digits_else_404(client, raw):
    r = client.get(f"/api/games/{raw}")
    assert r.status_code == 404
