"""The club's money set on the console, the till, the law and the tax office, and LINE as
players use it: on a real SQLite club through the app's routes; the LINE platform is a
stand-in HTTP server on this machine that receives the replies and pushes (real HTTP)."""

from __future__ import annotations

import csv
import io
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from club import (
    bookkeeping,
    club_tables,
    daily_report,
    games,
    line_link,
    member_data,
    members,
    money_settings,
    till,
)
from club.audit import audit_entries
from tests.support.web import key
from tests.web.staff_support import STAFF, staff_client
from web.db import get_db

RON = {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "from": 0}
MONEY = {"fee_mode": "per_game", "fee": "600", "fee_unit_minutes": "15", "fee_payer": "each",
         "top_prize": "1000", "top_prize_from": "others", "chip_yen": "100"}


@pytest.fixture()
def owner(app):
    with app.app_context():
        from club.accounts import create_staff
        create_staff(get_db(), *STAFF)
    c = staff_client(app)
    c.environ_base["HTTP_ACCEPT_LANGUAGE"] = "ja"
    return c


def _csrf(c) -> str:
    return c.get("/auth/csrf").get_json()["csrf_token"]


def _post(c, path, data, json_answer=True):
    headers = {"Accept": "application/json"} if json_answer else \
        {"Referer": "http://localhost/staff/money"}
    return c.post(path, data={**data, "csrf_token": _csrf(c)}, headers=headers)


def _game(db, table="t1", players=(1, 2, 3, 4), events=(RON,)) -> int:
    gid = games.start_game(db, table, list(players), idempotency_key=key())["game"]["id"]
    for i, e in enumerate(events, 1):
        games.record_event(db, gid, e, expected_seq=i, idempotency_key=key())
    games.end_game(db, gid, expected_seq=len(events) + 1, idempotency_key=key())
    return gid


def _yen_texts(text: str) -> list[str]:
    return re.findall(r"-?¥[\d,]+", text)


# --------------------------------------------------------------------------- money settings
def test_money_settings_saved_on_the_form_apply_to_the_next_game_and_are_audited(owner, db):
    r = _post(owner, "/staff/money/nekohouse-4a", MONEY)
    assert r.status_code == 200, r.get_json()
    rules = club_tables.resolve_rules(db, "nekohouse-4a")
    assert money_settings.money_of(rules) == {**{k: MONEY[k] for k in ("fee_mode", "fee_payer",
                                              "top_prize_from")}, "fee": 600,
                                              "fee_unit_minutes": 15, "top_prize": 1000,
                                              "chip_yen": 100}
    # the preset's TOML is untouched: the club's money is data over it
    assert money_settings.money_of(club_tables.written_rules(db, "nekohouse-4a"))["fee"] == 0
    gid = _game(db)
    assert games.get_game(db, gid)["rules"]["money"]["fee"] == 600
    entry = audit_entries(db)[0]
    assert entry["action"] == "money.update" and entry["target"] == "rule_set:nekohouse-4a"
    assert entry["details"]["before"]["fee"] == 0 and entry["details"]["after"]["fee"] == 600


def test_money_settings_refuse_bad_input_in_words_and_change_nothing(owner, db):
    for form, words in (({**MONEY, "fee": "六百"}, "場代（円） は 0 以上の整数"),
                        ({**MONEY, "fee_mode": "per_hour", "fee": "601"}, "割り切れません"),
                        ({**MONEY, "fee_mode": "none", "top_prize": "-5"}, "0 以上の整数")):
        r = _post(owner, "/staff/money/nekohouse-4a", form)
        assert r.status_code in (400, 422), form
        assert words in r.get_json()["error"]["message"]
    assert money_settings.club_money(db, "nekohouse-4a") is None
    assert not [e for e in audit_entries(db) if e["action"] == "money.update"]


def test_money_settings_preview_a_sample_game_before_saving(owner, db):
    q = "&".join(f"{k}={v}" for k, v in MONEY.items())
    page = owner.get(f"/staff/money?edit=nekohouse-4a&{q}").get_data(as_text=True)
    sample = re.search(r'data-testid="money-sample-nekohouse-4a">(.*?)</table>', page,
                       re.S).group(1)
    nets = re.findall(r'data-testid="sample-net-nekohouse-4a-\d">(.*?)</td>', sample)
    # top: -600 fee, +3,000 prize (1,000 from each other), +200 chips; the others pay
    assert nets == ["¥2,600", "-¥1,600", "-¥1,700", "-¥1,700"]
    assert money_settings.club_money(db, "nekohouse-4a") is None          # only previewed


def test_money_settings_a_staff_account_cannot_save(app, owner, db):
    from club.accounts import create_staff
    create_staff(db, "ken", "mahjong-ken-1", role="staff",
                 by={"name": STAFF[0], "role": "owner"})
    ken = staff_client(app, "ken", "mahjong-ken-1")
    r = _post(ken, "/staff/money/nekohouse-4a", MONEY)
    assert r.status_code == 403 and "店長" in r.get_json()["error"]["message"]
    assert money_settings.club_money(db, "nekohouse-4a") is None


def test_money_settings_one_game_shows_the_same_signed_amounts_everywhere(app, owner, db, t1):
    """One game under the club's money, walked through the settlement receipt, the tablet's
    account, the member page and the 日報: 伊藤 (top) and 青木 (dealt in) with the same
    signed amounts in each, in the one format (-¥1,700 paid, ¥2,600 received)."""
    from club.printing import documents
    assert _post(owner, "/staff/money/nekohouse-4a", {**MONEY, "chip_yen": "0"}).status_code == 200
    gid = _game(db)
    accts = {a["name"]: a for a in daily_report.accounts(
        db, _club_day(db, gid))}
    want = {"伊藤": "¥2,400", "青木": "-¥1,600"}
    assert {n: daily_report.yen(accts[n]["net"]) for n in want} == want
    receipt = documents.settlement(db, gid, 48, "ja").text()
    for name, amount in want.items():
        block = receipt[receipt.index(name):]
        assert _yen_texts(block)[0] == amount
    tablet = app.test_client().get("/tablet/t1", headers=t1).get_data(as_text=True)
    for seat, name in ((1, "伊藤"), (0, "青木")):
        net = re.search(rf'data-testid="account-net-{seat}">(.*?)</td>', tablet)
        assert net and net.group(1) == want[name]
    token, _ = members.issue_link(db, 1)
    member = app.test_client().get(f"/m/{token}").get_data(as_text=True)
    assert re.search(r'data-testid="member-net">(.*?)</b>', member).group(1) == want["青木"]
    assert re.search(r'data-testid="member-fee">(.*?)</b>', member).group(1) == "-¥600"
    report = owner.get(f"/staff/report?day={_club_day(db, gid)}").get_data(as_text=True)
    for name, amount in want.items():
        row = re.search(rf'<tr data-player="{name}">(.*?)</tr>', report, re.S).group(1)
        assert _yen_texts(row)[-1] == amount


def _club_day(db, gid) -> str:
    from club import stats_store
    row = db.execute("SELECT club_day FROM stats_lines WHERE game_id = ?", [gid]).fetchone()
    return row[0] if row else stats_store.today(stats_store.settings(db))


def test_money_settings_fee_over_the_caps_is_warned_on_the_form_and_the_daily_report(owner, db):
    """¥700 a game of an hour is ¥700 per person per hour: over the ¥600 cap (and ¥2,800
    per table over ¥2,400); the form and the 日報 say so. The caps are club data."""
    r = _post(owner, "/staff/money/nekohouse-4a", {**MONEY, "fee": "700"})
    assert r.status_code == 200
    page = owner.get("/staff/money").get_data(as_text=True)
    warns = re.findall(r'data-testid="money-cap-nekohouse-4a">(.*?)</p>', page)
    assert len(warns) == 2 and "¥700" in warns[0] and "¥600" in warns[0] and "¥2,800" in warns[1]
    gid = _game(db)
    from datetime import datetime, timedelta

    from club import stats_store
    started = datetime.fromisoformat(games.get_game(db, gid)["started_at"])
    db.execute("UPDATE games SET finished_at = ? WHERE id = ?",
               [(started + timedelta(minutes=60)).isoformat(), gid])
    stats_store.refresh_stored(db, gid)
    db.conn.commit()
    report = owner.get(f"/staff/report?day={_club_day(db, gid)}").get_data(as_text=True)
    assert 'data-testid="report-cap-warning"' in report
    r = _post(owner, "/staff/money/club", {"fee_cap_person_hour": "800",
                                           "fee_cap_table_hour": "3200"})
    assert r.status_code == 200
    page = owner.get("/staff/money").get_data(as_text=True)
    assert 'data-testid="money-cap-nekohouse-4a"' not in page


# --------------------------------------------------------------------------- the till
def _day_with_money(owner, db) -> str:
    assert _post(owner, "/staff/money/nekohouse-4a", MONEY).status_code == 200
    gid = _game(db)
    _game(db, table="t2", players=(5, 1, 2, 3),
          events=({"event": "win", "winners": [{"seat": 2, "han": 2, "fu": 30}], "from": 3},))
    return _club_day(db, gid)


def test_the_till_checks_off_once_and_refuses_a_second_time(owner, db):
    day = _day_with_money(owner, db)
    r = _post(owner, f"/staff/till/{day}/1/paid", {"method": "cash"})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["payment"]["amount"] == daily_report.accounts(db, day, [1])[0]["net"]
    r = _post(owner, f"/staff/till/{day}/1/paid", {"method": "card"})
    assert r.status_code == 409 and "訂正" in r.get_json()["error"]["message"]
    lines = {x["player_id"]: x for x in till.sheet(db, day)}
    assert lines[1]["paid"]["method"] == "cash"


def test_the_till_refuses_a_method_it_does_not_know(owner, db):
    day = _day_with_money(owner, db)
    r = _post(owner, f"/staff/till/{day}/1/paid", {"method": "bitcoin"})
    assert r.status_code == 400 and "現金" in r.get_json()["error"]["message"]
    assert all(x["paid"] is None for x in till.sheet(db, day))


def test_the_till_changes_a_check_off_only_through_an_audited_correction(owner, db):
    day = _day_with_money(owner, db)
    _post(owner, f"/staff/till/{day}/2/paid", {"method": "cash"})
    r = _post(owner, f"/staff/till/{day}/2/correct", {"reason": ""}, json_answer=True)
    assert r.status_code == 400                                      # no reason, no change
    assert {x["player_id"]: x for x in till.sheet(db, day)}[2]["paid"]["method"] == "cash"
    r = owner.post(f"/staff/till/{day}/2/correct",
                   data={"reason": "カードでした", "csrf_token": _csrf(owner)})
    assert r.status_code == 302
    assert _post(owner, f"/staff/till/{day}/2/paid", {"method": "card"}).status_code == 200
    entry = audit_entries(db)[1]
    assert entry["action"] == "till.correct" and entry["reason"] == "カードでした"
    assert entry["details"]["was"]["method"] == "cash"
    kept = db.execute("SELECT count(*) FROM till_payments WHERE player_id = 2").fetchone()[0]
    assert kept == 2                                                  # the first one stays, void


def test_the_till_demo_day_closes_with_everyone_checked_off_and_the_drawer_matching(owner, db):
    """Every player of the day checked off in cash: nobody open, and the drawer equals the
    日報's cash line (the club's fees less the top prizes it paid), on the till and on the
    日報 page alike."""
    day = _day_with_money(owner, db)
    for line in till.sheet(db, day):
        assert _post(owner, f"/staff/till/{day}/{line['player_id']}/paid",
                     {"method": "cash"}).status_code == 200
    closing = till.close(db, day)
    rep = daily_report.report(db, day)
    assert closing["open"] == 0 and closing["balanced"]
    assert closing["drawer"] == closing["cash_line"] == rep["summary"]["kept"] == 4 * 600 * 2
    page = owner.get(f"/staff/till?day={day}").get_data(as_text=True)
    assert 'data-testid="till-balanced"' in page
    report = owner.get(f"/staff/report?day={day}").get_data(as_text=True)
    cash = re.search(r'data-testid="report-cash-line">(.*?)</b>', report).group(1)
    drawer = re.search(r'data-testid="report-drawer">(.*?)</b>', report).group(1)
    assert cash == drawer == "¥4,800"


def test_the_till_card_payments_leave_the_drawer_short_by_them(owner, db):
    day = _day_with_money(owner, db)
    lines = till.sheet(db, day)
    for i, line in enumerate(lines):
        _post(owner, f"/staff/till/{day}/{line['player_id']}/paid",
              {"method": "card" if i == 0 else "cash"})
    closing = till.close(db, day)
    assert closing["card"] == -lines[0]["net"]
    assert closing["drawer"] == closing["cash_line"] == closing["kept"] - closing["card"]


# --------------------------------------------------------------------------- the tax office
def test_invoice_receipt_carries_every_field_of_a_simplified_invoice(owner, db):
    day = _day_with_money(owner, db)
    r = _post(owner, "/staff/money/club", {"invoice_registration": "t1234567890123",
                                           "club_name": "雀荘ねこはうす"})
    assert r.status_code == 200
    bad = _post(owner, "/staff/money/club", {"invoice_registration": "T12345"})
    assert bad.status_code == 400 and "13桁" in bad.get_json()["error"]["message"]
    text = bookkeeping.receipt(db, day, 4, 40).text()             # 遠藤: one game
    assert "適格簡易請求書" in text and "雀荘ねこはうす" in text
    assert "T1234567890123" in text and day in text
    assert "場代" in text and "×1" in text
    assert re.search(r"合計（税込）\s+¥600", text)
    assert re.search(r"10%対象\s+¥600", text) and re.search(r"内消費税（10%）\s+¥54", text)
    money_settings.save_facts(db, {"invoice_registration": ""}, actor="staff:mika")
    plain = bookkeeping.receipt(db, day, 4, 40).text()
    assert "適格" not in plain and "登録番号" not in plain and "¥600" in plain


def test_accounting_csv_reads_back_by_its_columns_and_balances_with_the_daily_report(owner, db):
    day = _day_with_money(owner, db)
    db.execute("UPDATE club_money SET money = json_set(money, '$.top_prize_from', 'house')")
    db.conn.commit()
    _game(db, table="t1")                      # one more game under a house-paid prize
    r = owner.get(f"/staff/money/accounting.csv?day={day}")
    assert r.status_code == 200 and r.data.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(io.StringIO(r.data[3:].decode("utf-8"))))
    assert tuple(rows[0]) == bookkeeping.ACCOUNTING_COLUMNS
    income = sum(int(x["金額"]) for x in rows if x["収支区分"] == "収入")
    out = sum(int(x["金額"]) for x in rows if x["収支区分"] == "支出")
    rep = daily_report.report(db, day)
    assert income == rep["summary"]["fees"] and out == rep["summary"]["house_prize"] > 0
    assert income - out == rep["summary"]["kept"]
    for x in rows:
        assert int(x["税額"]) == int(x["金額"]) * 10 // 110 and x["決済金額"] == x["金額"]
        assert x["発生日"] == day.replace("-", "/")


# --------------------------------------------------------------------------- LINE
class _Platform(BaseHTTPRequestHandler):
    """The LINE Messaging API as a stand-in: it keeps what it is sent."""

    def do_POST(self):  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.received.append((self.path, dict(self.headers), json.loads(body)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


@pytest.fixture()
def platform(app):
    server = HTTPServer(("127.0.0.1", 0), _Platform)
    server.received = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    app.config["LINE_LINK"] = {"api_base": f"http://127.0.0.1:{server.server_port}",
                               "channel_secret": "s3cret-of-the-channel",
                               "channel_token": "token-of-the-channel", "account_id": "@nekohouse"}
    yield server
    server.shutdown()
    server.server_close()


def _webhook(app, payload, secret="s3cret-of-the-channel", signature=None):
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    sig = signature if signature is not None else line_link.signature(secret, body)
    return app.test_client().post("/m/line/webhook", data=body,
                                  headers={"Content-Type": "application/json",
                                           "X-Line-Signature": sig})


def _text(user, text, token="rt-1"):
    return {"events": [{"type": "message", "replyToken": token, "source": {"userId": user},
                        "message": {"type": "text", "text": text}}]}


def test_line_friend_sends_the_code_on_their_page_and_is_linked(app, db, platform):
    token, _ = members.issue_link(db, 1)
    page = app.test_client().get(f"/m/{token}").get_data(as_text=True)
    code = re.search(r'data-testid="member-line-code">(.*?)</p>', page).group(1)
    assert 'href="https://line.me/R/ti/p/@nekohouse"' in page
    follow = {"events": [{"type": "follow", "replyToken": "rt-0", "source": {"userId": "U1"}}]}
    assert _webhook(app, follow).status_code == 200
    user = "U" + "a" * 32
    r = _webhook(app, _text(user, f" {code.lower()} "))        # as typed on a phone
    assert r.status_code == 200 and r.get_json()["done"][0]["event"] == "linked"
    assert members.profile(db, 1)["line_user_id"] == user
    paths = [p for p, _, _ in platform.received]
    assert paths == ["/v2/bot/message/reply", "/v2/bot/message/reply"]
    _, headers, body = platform.received[1]
    assert headers["Authorization"] == "Bearer token-of-the-channel"
    assert body["replyToken"] == "rt-1" and "青木" in body["messages"][0]["text"]
    page = app.test_client().get(f"/m/{token}").get_data(as_text=True)
    assert 'data-testid="member-line-code"' not in page and "LINE 登録済み" in page
    assert audit_entries(db)[0]["action"] == "member.line_linked"


def test_line_friend_webhook_refuses_a_body_not_signed_by_the_channel(app, db, platform):
    members.issue_link(db, 1)
    code = line_link.code_for(db, 1)
    r = _webhook(app, _text("U" + "b" * 32, code), secret="another-secret")
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "bad_signature"
    r = _webhook(app, _text("U" + "b" * 32, code), signature="")
    assert r.status_code == 403
    assert (members.profile(db, 1) or {}).get("line_user_id") is None
    assert platform.received == []


def test_line_friend_with_a_wrong_code_is_told_what_to_send(app, db, platform):
    line_link.code_for(db, 1)
    r = _webhook(app, _text("U" + "c" * 32, "hello"))
    assert r.get_json()["done"][0]["event"] == "unknown"
    assert "6文字" in platform.received[0][2]["messages"][0]["text"]
    assert (members.profile(db, 1) or {}).get("line_user_id") is None


def test_line_friend_push_reaches_the_platform(app, db, platform):
    status = line_link.push(app.config["LINE_LINK"], "U" + "d" * 32, "席の準備ができました")
    assert status == 200
    path, headers, body = platform.received[0]
    assert path == "/v2/bot/message/push" and body["to"] == "U" + "d" * 32
    assert body["messages"] == [{"type": "text", "text": "席の準備ができました"}]


def test_line_friend_channel_comes_from_club_toml_and_its_secrets_file(tmp_path):
    """``python -m web serve --config club.toml``: the web app takes the LINE channel of
    ``[notify]`` (line_api, line_account) and the secrets file (line_channel_secret,
    line_channel_access_token), so a member's code sent to the club's account links them
    on a real install; a secrets file others can read is refused at start, in words."""
    import os

    from club import roster
    from club.db import connect
    from club.errors import UserError
    from web.cli import build_app
    server = HTTPServer(("127.0.0.1", 0), _Platform)
    server.received = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        secrets = tmp_path / "notify.toml"
        secrets.write_text('line_channel_access_token = "tok-from-file"\n'
                           'line_channel_secret = "secret-from-file"\n', encoding="utf-8")
        os.chmod(secrets, 0o600)
        config = tmp_path / "club.toml"
        config.write_text(f'[notify]\nsecrets = "notify.toml"\n'
                          f'line_api = "http://127.0.0.1:{server.server_port}"\n'
                          f'line_account = "@nekohouse"\n', encoding="utf-8")
        web_app = build_app(str(tmp_path / "club.sqlite"), secret="x", club_config=str(config))
        assert web_app.config["LINE_LINK"]["account_id"] == "@nekohouse"
        db = connect(str(tmp_path / "club.sqlite"))
        try:
            pid = roster.add_player(db, "森田 花子")["id"]
            token, _ = members.issue_link(db, pid)
            page = web_app.test_client().get(f"/m/{token}").get_data(as_text=True)
            assert 'href="https://line.me/R/ti/p/@nekohouse"' in page
            code = line_link.code_for(db, pid)
            user = "U" + "f" * 32
            r = _webhook(web_app, _text(user, code), secret="secret-from-file")
            assert r.status_code == 200 and r.get_json()["done"][0]["event"] == "linked"
            assert members.profile(db, pid)["line_user_id"] == user
            assert server.received[0][1]["Authorization"] == "Bearer tok-from-file"
        finally:
            db.conn.close()
        os.chmod(secrets, 0o644)
        with pytest.raises(UserError) as e:
            build_app(str(tmp_path / "club.sqlite"), secret="x", club_config=str(config))
        assert "chmod 600" in e.value.message
    finally:
        server.shutdown()
        server.server_close()


# --------------------------------------------------------------------------- a member's own
def test_member_downloads_their_own_data_after_the_pin_and_sees_their_receipt(app, owner, db):
    day = _day_with_money(owner, db)
    db.execute("UPDATE players SET member_no = 'M001' WHERE id = 1")
    db.conn.commit()
    members.set_pin(db, 1, "482157")
    token, _ = members.issue_link(db, 1)
    c = app.test_client()
    assert c.get(f"/m/{token}/data.json").status_code == 401          # the PIN first
    c.post(f"/m/{token}/settings/pin", data={"member_no": "M001", "pin": "482157",
                                             "csrf_token": _csrf(c)})
    r = c.get(f"/m/{token}/data.json")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    data = json.loads(r.data)
    assert data == json.loads(json.dumps(member_data.export(db, 1), ensure_ascii=False))
    receipt = c.get(f"/m/{token}/receipt/{day}").get_data(as_text=True)
    assert "領収書" in receipt and "×2" in receipt and "¥1,200" in receipt   # two games
