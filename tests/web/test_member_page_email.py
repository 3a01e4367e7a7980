"""A member's e-mail address: one recipient, validated (no lists, no control characters,
no domain literals, a sane length), and confirmed by the member with a code sent to it
before the club mails it anything else; the mail a real SMTP server (aiosmtpd) receives
has one RCPT TO and a clean ``To:``."""

from __future__ import annotations

import json

import pytest

from club import members, roster
from club.floor import seating, waiting
from club.notify import outbox, sender
from club.text import email_address
from tests.web.test_member_page import (
    PIN,
    _csrf,
    _issue,
    _member_client,
    _open,
    _set_pin,
    desk_client,
)
from tests.web.test_notify import free_port, settings_for, start_smtp
from web.errors import UserError


@pytest.fixture()
def desk(app, db):
    """A signed-in staff client (JSON answers) and members 1-5 with member numbers."""
    return desk_client(app, db)


@pytest.mark.parametrize("bad", [
    "m10@example.test,bob,carol", "m10@example.test;bob@example.test",
    "m2\x00\x1b@example.test", "m2@exa\nmple.test", "a@[127.0.0.1].x", "a@[127.0.0.1]",
    "a@127.0.0.1", "Bob <bob@example.test>", "bob@example.test (Bob)", "a b@example.test",
    "a@@example.test", "@example.test", "a@example", "a@-example.test", "a..b@example.test",
    "x" * 65 + "@example.test", "a@" + "b" * 250 + ".test", '"a"@example.test',
    "a@exa_mple.test", "a\u200b@example.test", "a\u0085@example.test",
])
def test_member_page_email_one_clean_recipient_only(bad):
    with pytest.raises(UserError) as refused:
        email_address(bad)
    assert refused.value.details == {"field": "email"}


@pytest.mark.parametrize("good", ["aoki@example.jp", "a.b+club@mail.example.co.jp",
                                  "o'neil@example.com", "user@xn--r8jz45g.jp",
                                  "user@例え.jp"])
def test_member_page_email_ordinary_addresses_are_taken(good):
    assert email_address(good) == good


def _opened(app, desk, db):
    path = _issue(desk, 1)
    _set_pin(desk, 1)
    c = _member_client(app)
    assert _open(c, path, "M001", PIN).status_code == 303
    return path, c


def _save(c, path: str, email: str):
    return c.post(f"{path}/settings", data={"email": email, "optin_seat_ready": "1",
                                            "csrf_token": _csrf(c)})


def _rows(db, kind: str) -> list[dict]:
    return [r for r in outbox.recent(db, 50) if r["kind"] == kind]


def test_member_page_email_list_is_refused_in_words_and_changes_nothing(app, desk, db):
    path, c = _opened(app, desk, db)
    r = _save(c, path, "m10@example.test,bob,carol")
    assert r.status_code == 400 and "一つだけ" in r.get_data(as_text=True)
    assert (members.profile(db, 1) or {}).get("email") is None
    assert _rows(db, "email_confirm") == []


def test_member_page_email_is_confirmed_by_the_code_sent_to_it(app, desk, db):
    path, c = _opened(app, desk, db)
    assert _save(c, path, "aoki@example.jp").status_code == 303
    page = c.get(f"{path}/settings").get_data(as_text=True)
    assert 'data-testid="member-email-unconfirmed"' in page
    (row,) = _rows(db, "email_confirm")
    assert row["address"] == "aoki@example.jp"
    code = json.loads(row["payload"])["code"]
    # nothing else goes there until it is confirmed: the seat-ready word is not queued
    assert outbox.queue(db, "seat_ready:1:1", members.profile(db, 1), "seat_ready",
                        {"name": "青木", "table_id": "t1"}) is False
    wrong = c.post(f"{path}/settings/email", data={"email_code": "000000",
                                                   "csrf_token": _csrf(c)})
    assert wrong.status_code == 403
    ok = c.post(f"{path}/settings/email", data={"email_code": code, "csrf_token": _csrf(c)})
    assert ok.status_code == 303
    assert members.profile(db, 1)["email_confirmed_at"]
    assert outbox.queue(db, "seat_ready:1:1", members.profile(db, 1), "seat_ready",
                        {"name": "青木", "table_id": "t1"}) is True
    # a new address starts unconfirmed again
    assert _save(c, path, "aoki2@example.jp").status_code == 303
    assert members.profile(db, 1)["email_confirmed_at"] is None
    assert len(_rows(db, "email_confirm")) == 2


def test_member_page_email_confirmation_needs_the_open_settings(app, desk, db):
    path, c = _opened(app, desk, db)
    _save(c, path, "aoki@example.jp")
    stranger = _member_client(app, "10.9.9.9")
    r = stranger.post(f"{path}/settings/email", data={"email_code": "123456",
                                                      "csrf_token": _csrf(stranger)})
    assert r.status_code == 401
    assert stranger.post(f"{path}/settings/email/resend",
                         data={"csrf_token": _csrf(stranger)}).status_code == 401


def test_member_page_email_code_is_spent_after_wrong_tries(app, desk, db):
    path, c = _opened(app, desk, db)
    _save(c, path, "aoki@example.jp")
    code = json.loads(_rows(db, "email_confirm")[0]["payload"])["code"]
    for i in range(members.CODE_TRIES):
        bad = f"{(int(code) + 1 + i) % 10**6:06d}"
        assert c.post(f"{path}/settings/email", data={
            "email_code": bad, "csrf_token": _csrf(c)}).status_code == 403
    assert c.post(f"{path}/settings/email", data={
        "email_code": code, "csrf_token": _csrf(c)}).status_code == 403
    assert members.profile(db, 1)["email_confirmed_at"] is None


def test_member_page_email_resend_is_rate_limited(app, desk, db):
    path, c = _opened(app, desk, db)
    _save(c, path, "aoki@example.jp")
    r = c.post(f"{path}/settings/email/resend", data={"csrf_token": _csrf(c)})
    assert r.status_code == 429 and r.headers["Retry-After"]
    assert len(_rows(db, "email_confirm")) == 1
    db.execute("UPDATE member_profiles SET email_code_sent_at = 0")
    db.conn.commit()
    assert c.post(f"{path}/settings/email/resend",
                  data={"csrf_token": _csrf(c)}).status_code == 303
    assert len(_rows(db, "email_confirm")) == 2


def test_member_page_email_reaches_a_real_server_as_one_recipient(app, desk, db):
    path, c = _opened(app, desk, db)
    _save(c, path, "aoki@example.jp")
    code = json.loads(_rows(db, "email_confirm")[0]["payload"])["code"]
    c.post(f"{path}/settings/email", data={"email_code": code, "csrf_token": _csrf(c)})
    waiting.add(db, 1, "family:riichi4", actor="staff:mika")
    others = [roster.add_player(db, f"客{i}", guest=True)["id"] for i in range(3)]
    seating.seat(db, "t1", [1, *others], actor="staff:mika")
    port = free_port()
    ctl, inbox = start_smtp(port)
    try:
        sender.run_once(db, settings_for(None, port), lambda _s: None)
    finally:
        ctl.stop()
    assert [m["To"] for m in inbox.mails] == ["aoki@example.jp", "aoki@example.jp"]
    sent = _rows(db, "email_confirm")[0]
    assert sent["state"] == "sent" and json.loads(sent["payload"]) == {}  # the code is gone


def test_member_page_email_kept_from_before_is_confirmed_once_from_the_settings(app, desk, db):
    path, c = _opened(app, desk, db)
    db.execute("UPDATE member_profiles SET email = 'old@example.jp' WHERE player_id = 1")
    db.conn.commit()                                  # kept before confirmation existed
    assert outbox.queue(db, "seat_ready:9:1", members.profile(db, 1), "seat_ready",
                        {"name": "青木", "table_id": "t1"}) is False
    page = c.get(f"{path}/settings").get_data(as_text=True)
    assert 'data-testid="member-email-unconfirmed"' in page
    assert c.post(f"{path}/settings/email/resend",
                  data={"csrf_token": _csrf(c)}).status_code == 303
    code = json.loads(_rows(db, "email_confirm")[0]["payload"])["code"]
    assert _rows(db, "email_confirm")[0]["address"] == "old@example.jp"
    assert c.post(f"{path}/settings/email", data={"email_code": code,
                                                  "csrf_token": _csrf(c)}).status_code == 303
    assert members.profile(db, 1)["email_confirmed_at"]
