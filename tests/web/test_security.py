"""Safety of the web app: staff sign-in, rate limit, CSRF, cookies, tablet tokens and scope.

A tablet writes only to its own table; staff actions need a signed-in staff
account (hashed passwords, session cookies marked secure/httponly/samesite, a
sign-in rate limit); every form and state-changing request carries CSRF protection.
"""

from __future__ import annotations

import os
import re
import threading

import pytest

from club.accounts import check_login, create_staff
from club.db import connect
from club.errors import UserError
from tests.support.web import english
from web import create_app, signin
from web.db import get_db
from web.security import (
    TABLET_COOKIE,
    create_pairing,
    issue_tablet_token,
    list_tablets,
    redeem_pairing,
)
from web.signin import sign_in_wait


@pytest.fixture()
def app(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "club.sqlite"), "SECRET_KEY": "test-key",
                      "TESTING": True, **OPEN_GATE})
    from club import club_tables
    with app.app_context():
        db = get_db()
        create_staff(db, "staff", "mahjong-club")
        club_tables.save_table(db, "t1", "卓1", "nekohouse-4a")
        club_tables.save_table(db, "t2", "卓2", "nekohouse-4a")
    return app


@pytest.fixture()
def client(app):
    return english(app.test_client())


OPEN_GATE = {"LOGIN_GLOBAL_PER_SECOND": 1000.0, "LOGIN_GLOBAL_BURST": 1000}
"""Tests sign in many times a second; the global gate has its own test."""



def csrf(client) -> str:
    return client.get("/auth/csrf").get_json()["csrf_token"]


def login(client, name="staff", password="mahjong-club", ip="10.0.0.1"):
    return client.post("/auth/login", data={"name": name, "password": password,
                                            "csrf_token": csrf(client)},
                       environ_base={"REMOTE_ADDR": ip})


def tablet_client(app, table_id: str):
    """A test client holding a paired tablet cookie for ``table_id``."""
    with app.app_context():
        secret = issue_tablet_token(get_db(), table_id, label="test")
    c = english(app.test_client())
    c.set_cookie(TABLET_COOKIE, secret)
    return c, secret


def player_names(app) -> list[str]:
    db = connect(app.config["DATABASE"])
    try:
        return [r[0] for r in db.execute("SELECT name FROM players ORDER BY id").fetchall()]
    finally:
        db.conn.close()


# ----------------------------------------------------------------------------- sign-in
def test_login_page_has_csrf_field_and_success_redirects_to_floor(client):
    page = client.get("/auth/login")
    assert page.status_code == 200
    assert re.search(r'name="csrf_token" value="[^"]{20,}"', page.text)
    r = login(client)
    assert r.status_code == 302 and r.headers["Location"].endswith("/staff/")
    assert client.get("/staff/").status_code == 200


def test_wrong_password_and_unknown_name_get_the_same_clear_401(client):
    for name, pw in (("staff", "wrong-pass"), ("nobody", "mahjong-club")):
        r = login(client, name, pw)
        assert r.status_code == 401
        assert "Wrong staff name or password" in r.text
    assert client.get("/staff/floor.json").status_code == 401


def test_json_login_returns_new_csrf_token(client):
    token = csrf(client)
    r = client.post("/auth/login", json={"name": "staff", "password": "mahjong-club"},
                    headers={"X-CSRF-Token": token})
    body = r.get_json()
    assert r.status_code == 200 and body["ok"] and body["staff"]["name"] == "staff"
    # The token is rotated at sign-in: the pre-login one is now useless.
    assert body["csrf_token"] != token
    r = client.post("/staff/players", json={"name": "A"}, headers={"X-CSRF-Token": token})
    assert r.status_code == 403
    r = client.post("/staff/players", json={"name": "A"},
                    headers={"X-CSRF-Token": body["csrf_token"]})
    assert r.status_code == 201


def test_failures_from_one_device_bring_growing_delays_not_a_lockout(app, client, still_clock):
    for _ in range(3):  # the first failures cost nothing
        assert login(client, password="bad-guess-1").status_code == 401
    r = login(client)  # then even the right password must wait its turn
    assert r.status_code == 429 and "Too many failed sign-ins" in r.text
    assert r.headers["Retry-After"] == "2"
    other = english(app.test_client())
    assert login(other, ip="10.0.0.2").status_code == 302  # another device is not held up


def test_delays_grow_are_kept_in_the_database_and_end(app):
    """Per address: after 3 failures each attempt waits 2, 4, 8 ... seconds after the last
    failure (at most 15 minutes); a success starts the count again."""
    with app.test_request_context():
        guard = signin.guard(app)
        db = get_db()
        t = 1000.0
        for i in range(3):
            with pytest.raises(UserError) as e:
                check_login(db, "staff", "nope", "1.2.3.4", now=t + i, guard=guard)
            assert e.value.status == 401
        waits = []
        last = t + 2
        for _ in range(12):
            with pytest.raises(UserError) as e:
                # too soon
                check_login(db, "staff", "mahjong-club", "1.2.3.4", now=last, guard=guard)
            assert e.value.status == 429 and e.value.code == "login_rate_limited"
            wait = e.value.details["retry_after"]
            waits.append(wait)
            last += wait
            with pytest.raises(UserError) as e:  # once the wait is over: one more guess
                check_login(db, "staff", "nope", "1.2.3.4", now=last, guard=guard)
            assert e.value.status == 401
        assert waits[:5] == [2, 4, 8, 16, 32] and max(waits) == 15 * 60
        # the right password after the wait: in, and the count starts again
        staff = check_login(db, "STAFF", "mahjong-club", "1.2.3.4", now=last + 15 * 60, guard=guard)
        assert staff["name"] == "staff"
        for i in range(3):
            with pytest.raises(UserError) as e:
                check_login(db, "staff", "nope", "1.2.3.4", now=last + 2000 + i, guard=guard)
            assert e.value.status == 401
        # every attempt checked is kept in the database: a restart forgets none
        kept = db.execute("SELECT COUNT(*) FROM login_attempts WHERE ip = '1.2.3.4'")
        assert kept.fetchone()[0] == 19


def test_the_global_gate_refuses_a_burst_from_many_addresses(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "g.sqlite"), "SECRET_KEY": "k",
                      "LOGIN_GLOBAL_PER_SECOND": 0.001, "LOGIN_GLOBAL_BURST": 2})
    with app.test_request_context():
        guard = signin.guard(app)
        db = get_db()
        create_staff(db, "staff", "mahjong-club")
        codes = []
        for i in range(4):
            try:
                check_login(db, f"guess{i}", "nope-nope-nope", f"10.9.0.{i}", guard=guard)
            except UserError as e:
                codes.append(e.code)
        assert codes == ["login_failed", "login_failed", "login_busy", "login_busy"]
        # a busy refusal checked no password and recorded nothing
        assert db.execute("SELECT COUNT(*) FROM login_attempts").fetchone()[0] == 2
        # but its address waits the second the answer names, so the server holds its next
        # tries back (web/server.py) instead of refusing each one at full cost
        assert [sign_in_wait(app, f"10.9.0.{i}") for i in range(4)] == [0, 0, 1, 1]


def test_sign_in_is_checked_outside_any_write_transaction(app, monkeypatch):
    """The slow password check runs while no write lock is held: another writer (a hand)
    commits during it."""
    import club.accounts as auth

    seen = []

    def slow_check(stored, password):
        other = connect(app.config["DATABASE"])
        try:
            other.conn.execute("BEGIN IMMEDIATE")  # fails if a write transaction were open
            other.conn.execute("COMMIT")
            seen.append("a writer went ahead")
        finally:
            other.conn.close()
        return True

    monkeypatch.setattr(auth, "check_password_hash", slow_check)
    with app.test_request_context():
        guard = signin.guard(app)
        db = get_db()
        assert not db.conn.in_transaction
        check_login(db, "staff", "whatever", "10.1.1.1", guard=guard)
    assert seen == ["a writer went ahead"]


def test_passwords_are_checked_on_a_thread_of_low_cpu_priority(app, monkeypatch):
    """A flood's scrypt work gives way to the tablets: each check runs on the process's
    checker thread at nice CHECK_NICE (or lower still); the request's thread keeps its own."""
    import club.accounts as auth

    seen = []

    def check(stored, password):
        tid = threading.get_native_id()
        seen.append((tid, os.getpriority(os.PRIO_PROCESS, tid)))
        return True

    monkeypatch.setattr(auth, "check_password_hash", check)
    me = threading.get_native_id()
    mine = os.getpriority(os.PRIO_PROCESS, me)
    with app.test_request_context():
        guard = signin.guard(app)
        staff = check_login(get_db(), "staff", "whatever", "10.1.1.2", guard=guard)
        assert staff["name"] == "staff"
        check_login(get_db(), "staff", "whatever", "10.1.1.3", guard=guard)
    assert len(seen) == 2 and seen[0][0] == seen[1][0] != me
    assert seen[0][1] >= auth.CHECK_NICE and seen[0][1] >= mine
    assert os.getpriority(os.PRIO_PROCESS, me) == mine


def test_passwords_are_stored_hashed(app):
    db = connect(app.config["DATABASE"])
    try:
        stored = db.execute("SELECT password_hash FROM staff_users").fetchone()[0]
    finally:
        db.conn.close()
    assert "mahjong-club" not in stored and stored.startswith(("scrypt:", "pbkdf2:"))


def test_session_cookie_flags(client):
    r = login(client)
    cookie = next(h for h in r.headers.getlist("Set-Cookie") if h.startswith("jantaku_session="))
    assert "HttpOnly" in cookie and "Secure" in cookie and "SameSite=Lax" in cookie


def test_secure_flag_can_be_turned_off_for_plain_http_demo(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "c.sqlite"), "SECRET_KEY": "k",
                      "COOKIE_SECURE": False})
    r = english(app.test_client()).get("/auth/csrf")
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie


def test_logout_needs_csrf_and_ends_the_session(client):
    login(client)
    assert client.post("/auth/logout").status_code == 400
    assert client.get("/staff/floor.json").status_code == 200
    r = client.post("/auth/logout", data={"csrf_token": csrf(client)})
    assert r.status_code == 302
    assert client.get("/staff/floor.json").status_code == 401


def test_next_parameter_cannot_send_staff_to_another_site(client):
    for target in ("https://evil.example/", "//evil.example/x", "/\\evil.example"):
        r = client.post("/auth/login", data={"name": "staff", "password": "mahjong-club",
                                             "next": target, "csrf_token": csrf(client)})
        assert r.status_code == 302 and r.headers["Location"] == "/staff/"
    r = client.post("/auth/login", data={"name": "staff", "password": "mahjong-club",
                                         "next": "/staff/audit", "csrf_token": csrf(client)})
    assert r.headers["Location"] == "/staff/audit"


# ----------------------------------------------------------------------------- CSRF
def test_csrf_missing_is_400_and_wrong_is_403_and_nothing_changes(app, client):
    login(client)
    r = client.post("/staff/players", data={"name": "Mallory"})
    assert r.status_code == 400 and "CSRF" in r.text and "Reload the page" in r.text
    r = client.post("/staff/players", data={"name": "Mallory", "csrf_token": "forged"})
    assert r.status_code == 403 and "does not match" in r.text
    r = client.post("/staff/players", json={"name": "Mallory"},
                    headers={"X-CSRF-Token": "forged", "Accept": "application/json"})
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "csrf_invalid"
    assert "Mallory" not in player_names(app)
    r = client.post("/staff/players", data={"name": "Alice", "csrf_token": csrf(client)})
    assert r.status_code == 302 and "Alice" in player_names(app)


def test_csrf_applies_to_tablet_cookie_requests_on_the_api(app):
    c, _ = tablet_client(app, "t1")
    r = c.post("/api/tables/t1/guests", json={"name": "Guest A"})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "csrf_missing"
    assert "Guest A" not in player_names(app)
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    r = c.post("/api/tables/t1/guests", json={"name": "Guest A"}, headers={"X-CSRF-Token": token})
    assert r.status_code in (200, 201), r.text
    assert "Guest A" in player_names(app)


def test_login_form_itself_needs_csrf(client):
    r = client.post("/auth/login", data={"name": "staff", "password": "mahjong-club"})
    assert r.status_code == 400
    assert client.get("/staff/floor.json").status_code == 401


# ----------------------------------------------------------------------------- tablet scope
def test_bearer_tablet_writes_to_its_own_table_only(app):
    _, secret = tablet_client(app, "t1")
    c = english(app.test_client())
    auth = {"Authorization": f"Bearer {secret}"}
    r = c.post("/api/tables/t2/guests", json={"name": "Intruder"}, headers=auth)
    assert r.status_code == 403
    err = r.get_json()["error"]
    assert err["code"] == "wrong_table" and "paired to table t1" in err["message"]
    assert "Intruder" not in player_names(app)
    r = c.post("/api/tables/t1/guests", json={"name": "Guest B"}, headers=auth)
    assert r.status_code in (200, 201), r.text
    assert "Guest B" in player_names(app)


def test_no_token_and_unknown_token_are_refused_in_words(app):
    c = english(app.test_client())
    r = c.post("/api/tables/t1/guests", json={"name": "X"}, headers={"Authorization": "Bearer x"})
    assert r.status_code == 401 and r.get_json()["error"]["code"] == "tablet_unknown"
    r = c.get("/tablet/t1")
    assert r.status_code == 401 and "not paired" in r.text and "Ask staff" in r.text


def test_revoked_tablet_gets_unpaired_page_and_json(app, client):
    tab, secret = tablet_client(app, "t1")
    assert tab.get("/tablet/t1").status_code == 200
    login(client)
    with app.app_context():
        tablet_id = next(t["id"] for t in list_tablets(get_db()) if t["status"] == "paired")
    r = client.post(f"/staff/tablets/{tablet_id}/revoke", data={"csrf_token": csrf(client)})
    assert r.status_code == 302
    page = tab.get("/tablet/t1")
    assert page.status_code == 401 and "unpaired" in page.text and "Ask staff" in page.text
    r = english(app.test_client()).post("/api/tables/t1/guests", json={"name": "Late"},
                               headers={"Authorization": f"Bearer {secret}"})
    assert r.status_code == 401 and r.get_json()["error"]["code"] == "tablet_revoked"
    assert "Late" not in player_names(app)


def test_staff_routes_refuse_tablets(app):
    tab, secret = tablet_client(app, "t1")
    r = tab.get("/staff/floor.json")
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "staff_only"
    r = tab.get("/staff/players")
    assert r.status_code == 403 and "staff only" in r.text
    token = tab.get("/auth/csrf").get_json()["csrf_token"]
    r = tab.post("/staff/players", data={"name": "Sneaky", "csrf_token": token})
    assert r.status_code == 403 and "Sneaky" not in player_names(app)
    r = english(app.test_client()).post("/staff/tablets", json={"table_id": "t2"},
                               headers={"Authorization": f"Bearer {secret}"})
    assert r.status_code == 403


def test_bearer_request_never_uses_the_staff_session(app, client):
    login(client)
    _, secret = tablet_client(app, "t1")
    # CSRF is skipped for bearer requests, so the session must not count either.
    r = client.post("/staff/players", json={"name": "Smuggled"},
                    headers={"Authorization": f"Bearer {secret}"})
    assert r.status_code == 403 and "Smuggled" not in player_names(app)


def test_anonymous_staff_page_redirects_to_login_and_json_gets_401(client):
    r = client.get("/staff/players")
    assert r.status_code == 302 and "/auth/login?next=/staff/players" in r.headers["Location"]
    r = client.get("/staff/players", headers={"Accept": "application/json"})
    assert r.status_code == 401 and r.get_json()["error"]["code"] == "staff_login_required"


def test_staff_may_act_for_any_table(app, client):
    login(client)
    r = client.post("/api/tables/t2/guests", json={"name": "Walk-in"},
                    headers={"X-CSRF-Token": csrf(client)})
    assert r.status_code in (200, 201), r.text


# ----------------------------------------------------------------------------- pairing
def test_pairing_flow_qr_confirm_cookie_and_single_use(app, client):
    login(client)
    r = client.post("/staff/tablets", data={"table_id": "t1", "label": "窓側",
                                            "csrf_token": csrf(client)})
    assert r.status_code == 201
    assert "<svg" in r.text
    url = re.search(r'data-pair-url>([^<]+)<', r.text).group(1).replace("&amp;", "&")
    path = url.replace("http://localhost", "")
    tab = english(app.test_client())
    page = tab.get(path)
    assert page.status_code == 200 and '<strong data-testid="pair-table">卓1</strong>' in page.text
    code = re.search(r'name="code" value="([^"]+)"', page.text).group(1)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    r = tab.post("/auth/pair", data={"code": code, "csrf_token": token})
    assert r.status_code == 302 and r.headers["Location"] == "/tablet/t1"
    cookie = next(h for h in r.headers.getlist("Set-Cookie") if h.startswith(TABLET_COOKIE))
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Max-Age=" in cookie
    assert tab.get("/tablet/t1").status_code == 200
    assert tab.get("/tablet/t2").status_code == 403
    # The same device scanning the QR again carries on; another device is told why not.
    assert tab.get(path).status_code == 302
    other = english(app.test_client())
    again = other.get(path)
    assert again.status_code == 409 and "already used" in again.text


def test_unknown_pairing_code_is_404_in_words(client):
    r = client.get("/auth/pair?code=not-a-code")
    assert r.status_code == 404 and "not known" in r.text


def test_expired_pairing_code_is_refused(app):
    with app.app_context():
        db = get_db()
        p = create_pairing(db, "t1", actor="test", now=1000.0, ttl=60)
        with pytest.raises(Exception) as e:
            redeem_pairing(db, p["code"], now=1061.0)
        assert e.value.code == "pairing_expired"


def test_two_devices_redeeming_one_code_get_one_token(app):
    with app.app_context():
        code = create_pairing(get_db(), "t1", actor="test")["code"]
    results, barrier = [], threading.Barrier(2)

    def redeem():
        db = connect(app.config["DATABASE"])
        barrier.wait()
        try:
            results.append(("ok", redeem_pairing(db, code)[0]))
        except Exception as e:  # noqa: BLE001 - the refusal is what we check
            results.append(("refused", getattr(e, "code", repr(e))))
        finally:
            db.conn.close()

    threads = [threading.Thread(target=redeem) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r[0] for r in results) == ["ok", "refused"]
    assert [r[1] for r in results if r[0] == "refused"] == ["pairing_used"]


def test_security_headers(client):
    r = client.get("/auth/login")
    assert r.headers["X-Frame-Options"] == "DENY"
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Referrer-Policy"] == "same-origin"


def test_tokens_are_stored_only_as_hashes(app):
    _, secret = tablet_client(app, "t1")
    db = connect(app.config["DATABASE"])
    try:
        dump = "\n".join(db.conn.iterdump())
    finally:
        db.conn.close()
    assert secret not in dump


def test_tablet_last_seen_is_noted_but_not_rewritten_on_every_request(app):
    tab, _ = tablet_client(app, "t1")
    with app.app_context():
        db = get_db()
        db.execute("UPDATE tablet_tokens SET last_seen_at = NULL")
    assert tab.get("/tablet/t1").status_code == 200
    with app.app_context():
        first = list_tablets(get_db())[0]["last_seen_at"]
    assert first is not None
    assert tab.get("/tablet/t1").status_code == 200
    with app.app_context():
        # Within the minute the row is left alone (no extra durable write per hand).
        assert list_tablets(get_db())[0]["last_seen_at"] == first


def test_refusals_are_in_the_callers_language_japanese_first(app):
    c = app.test_client()
    page = c.get("/tablet/t1")
    assert page.status_code == 401
    assert "登録されていません" in page.text and "not paired" not in page.text
    page = c.get("/tablet/t1?lang=en")
    assert "not paired" in page.text and "登録されていません" not in page.text
    # a script says which language it reads with Accept-Language
    r = app.test_client().get("/tablet/t1", headers={"Accept": "application/json",
                                                     "Accept-Language": "en-GB,en;q=0.9"})
    assert "not paired" in r.get_json()["error"]["message"]
    r = app.test_client().get("/tablet/t1", headers={"Accept": "application/json",
                                                     "Accept-Language": "ja"})
    assert "登録されていません" in r.get_json()["error"]["message"]


def test_json_pairing_returns_a_bearer_token_bound_to_the_table(app):
    with app.app_context():
        code = create_pairing(get_db(), "t2", actor="test")["code"]
    c = english(app.test_client())
    r = c.post("/auth/pair", json={"code": code}, headers={"X-CSRF-Token": csrf(c)})
    body = r.get_json()
    assert r.status_code == 200 and body["table_id"] == "t2" and body["token"]
    api = english(app.test_client())
    auth = {"Authorization": f"Bearer {body['token']}"}
    assert api.post("/api/tables/t2/guests", json={"name": "Q"}, headers=auth).status_code in (
        200, 201)
    assert api.post("/api/tables/t1/guests", json={"name": "R"}, headers=auth).status_code == 403
    r = c.post("/auth/pair", json={"code": code}, headers={"X-CSRF-Token": csrf(c)})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "pairing_used"


def test_an_address_that_must_wait_is_refused_before_any_work(app, client, monkeypatch,
                                                            still_clock):
    """Once an address is in a wait, its sign-ins are answered 429 by the WSGI layer:
    no session, no CSRF check, no database (a flood costs the server next to nothing)."""
    import club.accounts as auth

    for _ in range(4):
        login(client, password="bad-guess-1")
    calls = []
    monkeypatch.setattr(auth, "login_wait", lambda *a, **k: calls.append(a) or 0)
    r = client.post("/auth/login", json={"name": "staff", "password": "mahjong-club"},
                    environ_base={"REMOTE_ADDR": "10.0.0.1"})  # not even a CSRF token
    assert r.status_code == 429 and calls == []
    assert int(r.headers["Retry-After"]) > 0
    assert "Too many failed sign-ins" in r.get_json()["error"]["message"]
    other = english(app.test_client())
    assert login(other, ip="10.0.0.3").status_code == 302 and calls  # the normal path


def test_hsts_is_sent_by_the_app_when_the_request_came_over_tls(app):
    c = app.test_client()
    tls = c.get("/auth/login", base_url="https://club-host")
    assert tls.headers["Strict-Transport-Security"] == "max-age=31536000"
    assert "Strict-Transport-Security" not in c.get("/auth/login").headers   # plain http
