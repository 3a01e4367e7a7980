"""A member's PIN against a stranger who holds their link: tries counted and recorded
before the check (40 at once get no more checks than the limit, in the app and through a
real server), an address locked without the member being slowed elsewhere, a guarded link
opened with a one-time code sent to the member, the member and the desk told, weak PINs
refused, a PIN reset at the desk closing every open settings session, and a close button.
"""

from __future__ import annotations

import json
import threading
from urllib.parse import urlsplit

import pytest
import requests

from club import members
from club.audit import audit_entries
from club.db import connect, write_tx
from club.notify import outbox
from tests.support.web_server import WebServer
from tests.web.staff_support import staff_client
from tests.web.test_member_page import (
    PIN,
    _csrf,
    _issue,
    _member_client,
    _open,
    _set_pin,
    desk_client,
)

LINE_ID = "U" + "ab" * 16


def _line_linked(db, player_id: int) -> None:
    """The member's LINE linked, as the club's account does when they send their code."""
    with write_tx(db):
        members.set_line_user(db, player_id, LINE_ID)


@pytest.fixture()
def desk(app, db):
    """A signed-in staff client (JSON answers) and members 1-5 with member numbers."""
    return desk_client(app, db)
ATTACKERS = 40


def _checks(monkeypatch) -> list[int]:
    """Every PIN hash check the app makes, counted."""
    seen: list[int] = []
    real = members.check_password_hash

    def counting(stored: str, typed: str) -> bool:
        seen.append(1)
        return real(stored, typed)

    monkeypatch.setattr(members, "check_password_hash", counting)
    return seen


def _storm(app, path: str, pin: str, count: int = ATTACKERS) -> list[int]:
    """``count`` members' phones, each from its own address, typing ``pin`` at once."""
    clients = [_member_client(app, f"10.8.{i // 200}.{i % 200 + 1}") for i in range(count)]
    tokens = [_csrf(c) for c in clients]
    gate = threading.Barrier(count)
    codes: list[int] = [0] * count

    def one(i: int) -> None:
        gate.wait()
        r = clients[i].post(f"{path}/settings/pin",
                            data={"member_no": "M001", "pin": pin, "csrf_token": tokens[i]})
        codes[i] = r.status_code

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    return codes


@pytest.mark.parametrize("pin", ["000000", "111111", "123456", "987654", "890123", "121212",
                                 "123123", "112233", "654321", "12345678", "11112222"])
def test_member_page_pin_weak_ones_are_refused_at_the_desk(app, desk, db, pin):
    r = _set_pin(desk, 1, pin)
    assert r.status_code == 400, pin
    assert r.get_json()["error"]["code"] == "weak_pin"
    assert members.profile(db, 1) is None                         # nothing changed


@pytest.mark.parametrize("pin", ["284619", "50738291", "9071356"])
def test_member_page_pin_of_six_to_eight_digits_is_taken(app, desk, db, pin):
    assert _set_pin(desk, 1, pin).status_code == 200
    assert not members.weak_pin(pin)


def test_member_page_pin_forty_simultaneous_wrong_pins_get_at_most_the_limit_checked(
        app, desk, db, monkeypatch):
    path = _issue(desk, 1)
    _set_pin(desk, 1)
    checks = _checks(monkeypatch)
    codes = _storm(app, path, "000000")
    assert len(checks) <= members.LINK_TRIES, len(checks)
    assert codes.count(403) <= members.LINK_TRIES
    assert set(codes) <= {403, 429}
    recorded = db.execute("SELECT COUNT(*) FROM login_attempts WHERE ip = 'member_pin:1'"
                          " AND ok = 0").fetchone()[0]
    assert recorded <= members.LINK_TRIES
    assert members.guarded(db, 1)
    # the right PIN alone no longer opens it, and is not even checked
    before = len(checks)
    assert _open(_member_client(app, "10.9.0.1"), path, "M001", PIN).status_code == 429
    assert len(checks) == before


def test_member_page_pin_forty_simultaneous_wrong_pins_through_a_real_server(tmp_path):
    path = tmp_path / "club.sqlite"
    from club import roster
    from web import create_app

    create_app({"DATABASE": str(path), "SECRET_KEY": "x", "TESTING": True})
    db = connect(str(path))
    pid = roster.add_player(db, "青木", member_no="M001")["id"]
    token, _ = members.issue_link(db, pid)
    members.set_pin(db, pid, PIN)
    server = WebServer(str(path), args=("--behind-proxy",)).start()
    try:
        sessions = [requests.Session() for _ in range(ATTACKERS)]
        heads = []
        for i, s in enumerate(sessions):
            forwarded = {"X-Forwarded-For": f"10.7.{i // 200}.{i % 200 + 1}"}
            csrf = s.get(server.url + "/auth/csrf", headers=forwarded).json()["csrf_token"]
            heads.append({**forwarded, "X-CSRF-Token": csrf, "Accept": "application/json"})
        gate = threading.Barrier(ATTACKERS)
        codes = [0] * ATTACKERS

        def one(i: int) -> None:
            gate.wait()
            codes[i] = sessions[i].post(f"{server.url}/m/{token}/settings/pin",
                                        json={"member_no": "M001", "pin": "000000"},
                                        headers=heads[i], timeout=120).status_code

        threads = [threading.Thread(target=one, args=(i,)) for i in range(ATTACKERS)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(180)
        assert set(codes) <= {403, 429}, codes
        checked = db.execute("SELECT COUNT(*) FROM login_attempts WHERE ip = ?",
                             [f"member_pin:{pid}"]).fetchone()[0] - 2   # issue + set: ok rows
        assert checked <= members.LINK_TRIES, checked
        assert codes.count(403) <= members.LINK_TRIES
        assert members.guarded(db, pid)
    finally:
        server.stop()
        db.conn.close()


def test_member_page_pin_one_address_is_locked_not_the_member(app, desk, db, still_clock):
    one, two = _issue(desk, 1), _issue(desk, 2)
    _set_pin(desk, 1)
    _set_pin(desk, 2)
    stranger = _member_client(app, "10.5.0.9")
    for i in range(members.SOURCE_TRIES):
        still_clock[0] += 100                  # past the growing delays, inside the lock
        path, no = (one, "M001") if i % 2 else (two, "M002")
        assert _open(stranger, path, no, "000000").status_code == 403, i
    still_clock[0] += 120
    r = _open(stranger, one, "M001", PIN)
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 60
    assert "この端末" in r.get_data(as_text=True)
    assert not members.guarded(db, 1) and not members.guarded(db, 2)
    assert _open(_member_client(app, "10.5.0.10"), one, "M001", PIN).status_code == 303
    still_clock[0] += members.PIN_LOCK_S + 1
    assert _open(stranger, two, "M002", PIN).status_code == 303


def _guard(app, db, path: str) -> None:
    for i in range(members.LINK_TRIES):
        assert _open(_member_client(app, f"10.6.0.{i + 1}"), path, "M001",
                     "000000").status_code == 403


def _codes(db) -> list[dict]:
    return [r for r in outbox.recent(db, 50) if r["kind"] == "pin_code"]


def test_member_page_pin_guarded_link_opens_with_a_code_sent_to_the_member(
        app, desk, db, monkeypatch):
    path = _issue(desk, 1)
    _set_pin(desk, 1)
    _line_linked(db, 1)
    _guard(app, db, path)
    assert members.guarded(db, 1)
    told = [r for r in outbox.recent(db, 50) if r["kind"] == "pin_locked"]
    assert len(told) == 1 and told[0]["address"] == LINE_ID      # the member is told, once
    assert [e["action"] for e in audit_entries(db, target="player:1")].count(
        "member.pin_locked") == 1

    checks = _checks(monkeypatch)
    stranger = _member_client(app, "10.6.1.1")
    page = stranger.get(f"{path}/settings").get_data(as_text=True)
    assert 'data-testid="member-guarded"' in page and 'name="code"' in page
    r = _open(stranger, path, "M001", PIN)               # the right PIN, no code
    assert r.status_code == 401 and "確認コード" in r.get_data(as_text=True)
    wrong = stranger.post(f"{path}/settings/pin", data={
        "member_no": "M001", "pin": PIN, "code": "000000", "csrf_token": _csrf(stranger)})
    assert wrong.status_code == 403
    assert checks == []                                  # no PIN was checked without a code

    phone = _member_client(app, "10.6.2.1")
    sent = phone.post(f"{path}/settings/code", data={"csrf_token": _csrf(phone)})
    assert sent.status_code == 303
    again = phone.post(f"{path}/settings/code", data={"csrf_token": _csrf(phone)})
    assert again.status_code == 429                      # one code a minute
    (row,) = _codes(db)
    assert row["address"] == LINE_ID
    code = json.loads(row["payload"])["code"]
    ok = phone.post(f"{path}/settings/pin", data={
        "member_no": "M001", "pin": PIN, "code": code, "csrf_token": _csrf(phone)})
    assert ok.status_code == 303, ok.get_data(as_text=True)
    assert not members.guarded(db, 1)
    assert 'data-testid="member-settings-form"' in phone.get(f"{path}/settings").get_data(True)
    # spent: the same code opens nothing a second time
    _guard(app, db, path)
    reuse = stranger.post(f"{path}/settings/pin", data={
        "member_no": "M001", "pin": PIN, "code": code, "csrf_token": _csrf(stranger)})
    assert reuse.status_code == 403


def test_member_page_pin_code_is_spent_after_a_few_wrong_tries(app, desk, db):
    path = _issue(desk, 1)
    _set_pin(desk, 1)
    _line_linked(db, 1)
    _guard(app, db, path)
    members.send_code(db, 1)
    code = json.loads(_codes(db)[0]["payload"])["code"]
    for i in range(members.CODE_TRIES):
        c = _member_client(app, f"10.6.3.{i + 1}")
        bad = f"{(int(code) + 1 + i) % 10**6:06d}"
        assert c.post(f"{path}/settings/pin", data={
            "member_no": "M001", "pin": PIN, "code": bad,
            "csrf_token": _csrf(c)}).status_code == 403
    c = _member_client(app, "10.6.4.1")
    assert c.post(f"{path}/settings/pin", data={
        "member_no": "M001", "pin": PIN, "code": code,
        "csrf_token": _csrf(c)}).status_code == 403


def test_member_page_pin_code_is_forgotten_once_sent(app, desk, db):
    path = _issue(desk, 1)
    _set_pin(desk, 1)
    _line_linked(db, 1)
    _guard(app, db, path)
    members.send_code(db, 1)
    row = _codes(db)[0]
    outbox.mark_sent(db, row["id"])
    assert json.loads(_codes(db)[0]["payload"]) == {}


def test_member_page_pin_code_not_sent_for_an_unguarded_link(app, desk, db):
    path = _issue(desk, 1)
    _set_pin(desk, 1)
    _line_linked(db, 1)
    c = _member_client(app)
    r = c.post(f"{path}/settings/code", data={"csrf_token": _csrf(c)})
    assert r.status_code == 409 and _codes(db) == []


def test_member_page_pin_reset_at_the_desk_ends_open_sessions(app, desk, db):
    path = _issue(desk, 1)
    _set_pin(desk, 1)
    c = _member_client(app)
    assert _open(c, path, "M001", PIN).status_code == 303
    form = {"email": "aoki@example.jp", "csrf_token": _csrf(c)}
    _set_pin(desk, 1, "50738291")                       # reset at the desk
    r = c.post(f"{path}/settings", data=form)
    assert r.status_code == 401
    assert (members.profile(db, 1) or {}).get("email") is None
    assert 'data-testid="member-pin-form"' in c.get(f"{path}/settings").get_data(True)
    assert _open(c, path, "M001", "50738291").status_code == 303


def test_member_page_pin_close_button_ends_the_session_on_this_device(app, desk, db):
    path = _issue(desk, 1)
    _set_pin(desk, 1)
    c = _member_client(app)
    assert _open(c, path, "M001", PIN).status_code == 303
    page = c.get(f"{path}/settings").get_data(as_text=True)
    assert 'data-testid="member-close"' in page and "設定を閉じる" in page
    closed = c.post(f"{path}/settings/close", data={"csrf_token": _csrf(c)})
    assert closed.status_code == 303
    assert "設定を閉じました" in c.get(urlsplit(closed.headers["Location"]).path).get_data(True)
    r = c.post(f"{path}/settings", data={"email": "x@example.jp", "csrf_token": _csrf(c)})
    assert r.status_code == 401
    assert c.post(f"{path}/settings/close", data={}).status_code == 400   # CSRF still holds


def test_member_page_pin_of_four_digits_set_before_opens_and_the_desk_is_asked_to_renew(
        app, desk, db):
    from werkzeug.security import generate_password_hash

    path = _issue(desk, 1)
    _set_pin(desk, 1)
    db.execute("UPDATE member_profiles SET pin_hash = ? WHERE player_id = 1",
               [generate_password_hash("2468")])                 # kept from before
    db.conn.commit()
    assert _open(_member_client(app), path, "M001", "2468").status_code == 303
    assert desk.get("/staff/players/1/member").get_json()["pin_guard"]["too_easy"] is True
    page = staff_client(app).get("/staff/players/1/member").get_data(as_text=True)
    assert 'data-testid="member-pin-too-easy"' in page
    _set_pin(desk, 1, "50738291")
    assert desk.get("/staff/players/1/member").get_json()["pin_guard"]["too_easy"] is False


def test_member_page_pin_member_and_desk_are_told_once_per_guard(app, desk, db):
    path = _issue(desk, 1)
    _set_pin(desk, 1)
    _line_linked(db, 1)
    member = members.member_for_token(db, path.rsplit("/", 1)[1])
    start = members.time.time()

    def wrong(at: float, i: int) -> None:
        with pytest.raises(members.UserError):
            members.check_pin(db, member, "M001", "000000", f"10.12.{i // 200}.{i % 200}",
                              now=at)

    for i in range(members.LINK_TRIES + 3):              # more wrong tries: told once
        wrong(start + i, i)
    told = [r for r in outbox.recent(db, 50) if r["kind"] == "pin_locked"]
    assert len(told) == 1
    later = start + members.PIN_WINDOW_S + 100            # a day on: a new attack
    for i in range(members.LINK_TRIES):
        wrong(later + i, 100 + i)
    told = [r for r in outbox.recent(db, 50) if r["kind"] == "pin_locked"]
    assert len(told) == 2
    assert [e["action"] for e in audit_entries(db, target="player:1")].count(
        "member.pin_locked") == 2
