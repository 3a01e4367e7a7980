"""A member's own page (``/m/<token>``) and the desk's side of it: the personal link issued,
reissued and revoked, the PIN set at the desk and its throttle, settings saved only after
the member number and PIN, audit entries, both languages, on a real SQLite club."""

from __future__ import annotations

import re
import time
from urllib.parse import urlsplit

import pytest
import segno

from club import members
from club.accounts import create_staff
from club.audit import audit_entries
from tests.support.web import english, record, start
from tests.web.staff_support import staff_client
from web.security import CSRF_HEADER

RON = {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "from": 0}
PIN = "284619"


@pytest.fixture()
def desk(app, db):
    """A signed-in staff client (JSON answers) and members 1-5 with member numbers."""
    return desk_client(app, db)


def desk_client(app, db):
    """The :func:`desk` fixture's client, for other test files."""
    create_staff(db, "mika", "mahjong-club")
    for pid in range(1, 6):
        db.execute("UPDATE players SET member_no = ? WHERE id = ?", [f"M{pid:03d}", pid])
    db.conn.commit()
    c = english(staff_client(app))
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    c.environ_base["HTTP_" + CSRF_HEADER.upper().replace("-", "_")] = token
    c.environ_base["HTTP_ACCEPT"] = "application/json"
    return c


def _issue(desk, pid: int) -> str:
    r = desk.post(f"/staff/players/{pid}/member/link", json={})
    assert r.status_code == 201, r.get_json()
    return urlsplit(r.get_json()["url"]).path


def _set_pin(desk, pid: int, pin: str = PIN):
    return desk.post(f"/staff/players/{pid}/member/pin", json={"pin": pin})


def _member_client(app, address: str = "10.1.0.1"):
    """A member's phone: its own session, an address of its own, Japanese by default."""
    c = app.test_client()
    c.environ_base["REMOTE_ADDR"] = address
    return c


def _csrf(c) -> str:
    return c.get("/auth/csrf").get_json()["csrf_token"]


def _open(c, path: str, member_no: str, pin: str):
    return c.post(f"{path}/settings/pin", data={"member_no": member_no, "pin": pin,
                                                 "csrf_token": _csrf(c)})


def _actions(db, pid: int) -> list[str]:
    return [e["action"] for e in audit_entries(db, target=f"player:{pid}")][::-1]


def test_member_page_link_issue_reissue_revoke_with_audit(app, desk, db):
    first = _issue(desk, 1)
    page = _member_client(app).get(first)
    assert page.status_code == 200 and "青木" in page.get_data(as_text=True)
    assert page.headers["Referrer-Policy"] == "no-referrer"
    assert page.headers["Cache-Control"] == "no-store"

    second = _issue(desk, 1)          # reissued: the old link stops working at once
    assert second != first
    gone = _member_client(app).get(first)
    assert gone.status_code == 404
    assert "リンクが無効" in gone.get_data(as_text=True)
    assert gone.headers["Referrer-Policy"] == "no-referrer"
    assert _member_client(app).get(second).status_code == 200

    r = desk.post("/staff/players/1/member/link/revoke", json={})
    assert r.status_code == 200, r.get_json()
    assert _member_client(app).get(second).status_code == 404
    again = desk.post("/staff/players/1/member/link/revoke", json={})
    assert again.status_code == 409 and again.get_json()["error"]["message"]

    assert _actions(db, 1) == ["member.link_issue", "member.link_reissue",
                               "member.link_revoke"]
    entries = audit_entries(db, target="player:1")
    assert {e["actor"] for e in entries} == {"staff:mika"}
    tokens = [first.rsplit("/", 1)[1], second.rsplit("/", 1)[1]]
    stored = " ".join(str(v) for e in entries for v in e.values())
    stored += " ".join(str(v) for v in (members.profile(db, 1) or {}).values())
    assert not any(tok in stored for tok in tokens)   # only the hash is ever kept


def test_member_page_unknown_or_bad_token_gets_words_in_both_languages(app):
    c = _member_client(app)
    for path in ("/m/not-a-token-at-all-0123456789", "/m/x", "/m/" + "a" * 300):
        r = c.get(path)
        assert r.status_code == 404, path
        text = r.get_data(as_text=True)
        assert "受付でお尋ねください" in text and "Traceback" not in text
    en = c.get("/m/not-a-token-at-all-0123456789?lang=en")
    assert en.status_code == 404 and "ask at the desk" in en.get_data(as_text=True)
    js = _member_client(app).get("/m/not-a-token-at-all-0123456789",
                                 headers={"Accept": "application/json"})
    assert js.status_code == 404 and js.get_json()["error"]["code"] == "member_link_unknown"


def test_member_page_shows_only_their_own_data(app, desk, db, client, t1):
    game = start(client, t1)
    gid = game["game"]["id"]
    record(client, t1, RON, 1)
    record(client, t1, {"event": "chombo", "seat": 2}, 2)      # 上田 (player 3)
    record(client, t1, {"event": "end"}, 3)
    mine, theirs = _issue(desk, 1), _issue(desk, 3)

    own = _member_client(app).get(mine).get_data(as_text=True)
    assert "青木" in own and 'data-testid="member-penalties-none"' in own
    assert "上田" not in own and "M003" not in own        # nobody else's name or number
    assert 'data-testid="member-rating-chart"' in own and "<svg" in own
    assert 'data-testid="member-figures"' in own and 'data-testid="member-history"' in own

    other = _member_client(app).get(theirs).get_data(as_text=True)
    assert "上田" in other and "青木" not in other
    assert 'data-testid="member-penalties"' in other
    assert f"#{gid}" in other and "2局目 (東2局)" in other and "チョンボ" in other
    assert 'data-testid="member-account"' in other and 'data-testid="member-net"' in other


def test_member_page_japanese_first_english_on_the_switch(app, desk):
    path = _issue(desk, 2)
    c = _member_client(app)
    ja = c.get(path).get_data(as_text=True)
    assert "マイページ" in ja and "連絡先と通知の設定" in ja
    assert "My page" not in ja and "Report card" not in ja
    assert not re.search(r"\b(member|lb|card)\.(?!css)[a-z_]+", ja)     # no raw catalogue key
    en = c.get(path + "?lang=en").get_data(as_text=True)
    assert "My page" in en and "Contacts and notices" in en and "マイページ" not in en
    settings = c.get(path + "/settings").get_data(as_text=True)   # the session keeps English
    assert "Enter your member number" not in settings or "PIN" in settings
    assert "member number and the PIN set at the desk" in settings


def test_member_page_pin_set_at_the_desk_checked_and_refused_in_words(app, desk, db):
    assert _set_pin(desk, 1, "12a4").status_code == 400
    assert _set_pin(desk, 1, "123").status_code == 400
    assert _set_pin(desk, 1, "١٢٣٤").status_code == 400          # digits of another script
    assert _set_pin(desk, 1, "123456789").status_code == 400
    assert _set_pin(desk, 1, "2468").status_code == 400            # four digits: too short
    assert members.profile(db, 1) is None                         # nothing changed
    db.execute("UPDATE players SET member_no = NULL WHERE id = 5")
    db.conn.commit()
    r = _set_pin(desk, 5)
    assert r.status_code == 409 and "member number" in r.get_json()["error"]["message"]
    guest = desk.post("/staff/players", json={"name": "ゲスト花子", "guest": True})
    gid = guest.get_json()["player"]["id"]
    r = desk.post(f"/staff/players/{gid}/member/link", json={})
    assert r.status_code == 409 and "guest" in r.get_json()["error"]["message"]
    assert _set_pin(desk, 1).status_code == 200
    row = members.profile(db, 1)
    assert row["pin_hash"] and PIN not in row["pin_hash"] and row["pin_set_at"]
    assert _actions(db, 1) == ["member.pin_set"]


def test_member_page_settings_saved_only_with_the_right_number_and_pin(app, desk, db):
    path = _issue(desk, 1)
    _set_pin(desk, 1)
    c = _member_client(app)
    form = {"email": "aoki@example.jp", "optin_seat_ready": "1", "optin_risers": "1"}

    r = c.post(f"{path}/settings", data={**form, "csrf_token": _csrf(c)})
    assert r.status_code == 401 and "暗証番号" in r.get_data(as_text=True)
    assert c.post(f"{path}/settings", data=form).status_code == 400      # no CSRF token
    assert _open(c, path, "M001", "9999").status_code == 403
    assert _open(c, path, "M002", PIN).status_code == 403          # another member's number
    assert (members.profile(db, 1) or {}).get("email") is None

    assert _open(c, path, "M001", PIN).status_code == 303
    bad = c.post(f"{path}/settings", data={**form, "email": "not an address",
                                            "csrf_token": _csrf(c)})
    assert bad.status_code == 400 and "メールアドレス" in bad.get_data(as_text=True)
    assert (members.profile(db, 1) or {}).get("email") is None     # refused: nothing kept
    typed = c.post(f"{path}/settings", data={**form, "line_user_id": "U" + "0a" * 16,
                                              "csrf_token": _csrf(c)})
    assert typed.status_code == 422 and "コード" in typed.get_data(as_text=True)
    assert (members.profile(db, 1) or {}).get("email") is None     # LINE is linked by code
    ok = c.post(f"{path}/settings", data={**form, "csrf_token": _csrf(c)})
    assert ok.status_code == 303
    row = members.profile(db, 1)
    assert (row["email"], row["line_user_id"]) == (form["email"], None)
    assert (row["optin_seat_ready"], row["optin_report_card"], row["optin_risers"]) == (1, 0, 1)
    entry = audit_entries(db, target="player:1")[0]
    assert (entry["actor"], entry["action"]) == ("member:1", "member.settings")
    assert "email" in entry["details"]["changed"]
    log = staff_client(app).get("/staff/audit").get_data(as_text=True)
    assert "会員 #1（本人）" in log and "連絡先と通知の設定を変更" in log
    assert ">member:1<" not in log and "（member:1）" not in log

    # the PIN opens this member's settings only, under this link only
    other = _issue(desk, 2)
    assert c.post(f"{other}/settings", data={**form, "csrf_token": _csrf(c)}).status_code == 401
    new = _issue(desk, 1)                                           # reissued: closed again
    assert c.post(f"{new}/settings", data={**form, "csrf_token": _csrf(c)}).status_code == 401


def test_member_page_pin_session_is_short(app, desk, db, monkeypatch):
    path = _issue(desk, 1)
    _set_pin(desk, 1)
    c = _member_client(app)
    assert _open(c, path, "M001", PIN).status_code == 303
    assert 'data-testid="member-settings-form"' in c.get(f"{path}/settings").get_data(True)
    later = time.time() + members.PIN_SESSION_S + 1
    monkeypatch.setattr("web.member.views.time.time", lambda: later)
    assert 'data-testid="member-pin-form"' in c.get(f"{path}/settings").get_data(True)


def test_member_page_pin_throttle_guards_the_link_after_eight_wrong_tries(app, desk, db):
    path = _issue(desk, 1)
    _set_pin(desk, 1)
    for i in range(members.LINK_TRIES):     # each from its own address: the link counts
        r = _open(_member_client(app, f"10.2.0.{i + 1}"), path, "M001", "000000")
        assert r.status_code == 403, i
    # no channel for a code: the link is locked and the desk's new link is the way out
    locked = _open(_member_client(app, "10.3.0.1"), path, "M001", PIN)
    assert locked.status_code == 429
    assert "新しいリンク" in locked.get_data(as_text=True)
    assert int(locked.headers["Retry-After"]) > 60
    assert members.pin_wait(db, 1) > 0 and members.guarded(db, 1)
    assert not members.guarded(db, 1, now=time.time() + members.PIN_WINDOW_S + 1)
    # the desk is told: an audit entry and a banner on the member's desk page
    assert "member.pin_locked" in _actions(db, 1)
    assert desk.get("/staff/players/1/member").get_json()["pin_guard"]["guarded"] is True
    banner = staff_client(app).get("/staff/players/1/member").get_data(as_text=True)
    assert 'data-testid="member-pin-guarded"' in banner and "新しいリンク" in banner
    # another member is not locked; a new link from the desk ends the guard
    other = _issue(desk, 2)
    _set_pin(desk, 2)
    assert _open(_member_client(app, "10.4.0.1"), other, "M002", PIN).status_code == 303
    fresh = _issue(desk, 1)
    assert _open(_member_client(app, "10.4.0.2"), fresh, "M001", PIN).status_code == 303


def test_member_page_pin_throttle_slows_one_address_as_sign_in_does(app, desk, db, still_clock):
    one, two = _issue(desk, 1), _issue(desk, 2)
    _set_pin(desk, 1)
    _set_pin(desk, 2)
    c = _member_client(app, "10.5.0.1")
    for path, no in ((one, "M001"), (two, "M002"), (one, "M001")):   # guesses across members
        assert _open(c, path, no, "000000").status_code == 403
    r = _open(c, two, "M002", PIN)
    assert r.status_code == 429 and r.headers["Retry-After"]
    assert _open(_member_client(app, "10.5.0.2"), two, "M002", PIN).status_code == 303


def test_member_page_desk_pages_and_card_carry_the_link(app, desk, db):
    c = staff_client(app)
    page = c.get("/staff/players/1/member")
    assert page.status_code == 200 and "青木" in page.get_data(as_text=True)
    players = c.get("/staff/players").get_data(as_text=True)
    assert 'href="/staff/players/1/member"' in players
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    issued = c.post("/staff/players/1/member/link", data={"csrf_token": token})
    assert issued.status_code == 201
    html = issued.get_data(as_text=True)
    assert 'data-testid="member-qr"' in html and "<svg" in html
    card = c.post("/staff/players/1/member/card", data={"csrf_token": token})
    assert card.status_code == 201
    text = card.get_data(as_text=True)
    url = text.split('data-url="', 1)[1].split('"', 1)[0]
    chain_id = text.split('data-chain-id="', 1)[1].split('"', 1)[0]
    # the card's one QR code: the personal link, the chain member id after it
    qr = segno.make(f"{url}#{chain_id}", error="m").svg_inline(border=2, omitsize=True)
    assert qr in text and "青木" in text and "M001" in text
    assert _member_client(app).get(urlsplit(url).path).status_code == 200
    assert _actions(db, 1) == ["member.link_issue", "member.link_reissue", "chain.issue"]
    en = c.get("/staff/audit?lang=en").get_data(as_text=True)
    assert "personal link reissued" in en
    assert c.get("/staff/players/999/member").status_code == 404
    anon = _member_client(app).get("/staff/players/1/member")
    assert anon.status_code in (302, 401)


def test_member_page_dan_progress_toward_the_next_level(app, desk, db, client, t1):
    from club import rating_store
    from tests.web.test_rating_pages import DAN

    rating_store.save_dan_table(db, DAN, actor="test")
    start(client, t1)
    record(client, t1, RON, 1)          # seat 1 (伊藤) tops, seat 0 (青木) is last
    record(client, t1, {"event": "end"}, 2)
    last, top = _issue(desk, 1), _issue(desk, 2)
    page = _member_client(app).get(last).get_data(as_text=True)
    dan = page.split('data-testid="member-dan"', 1)[1].split("</div>", 1)[0]
    assert "新人" in dan and "0</b> / 20" in dan and "初段まであと 20 pt" in dan
    assert '<meter min="0" max="20" value="0">' in dan
    en = _member_client(app).get(top + "?lang=en").get_data(as_text=True)
    dan = en.split('data-testid="member-dan"', 1)[1].split("</div>", 1)[0]
    assert "1 dan" in dan and "The highest level" in dan


def test_member_page_link_never_reaches_the_log(app, desk, monkeypatch, caplog):
    path = _issue(desk, 1)
    token = path.rsplit("/", 1)[1]

    def broken(*_a, **_k):
        raise RuntimeError("a bug")

    monkeypatch.setattr("web.member.views.page_data", broken)
    r = _member_client(app).get(path)
    assert r.status_code == 500 and "Traceback" not in r.get_data(as_text=True)
    assert r.headers["Referrer-Policy"] == "no-referrer"
    assert "/m/<token>" in caplog.text and "a bug" in caplog.text
    assert token not in caplog.text
