"""Word sent through real channels: the outbox written with the change that causes it, a
real SMTP server (aiosmtpd) and a stand-in for the LINE Messaging API on loopback that
the real line-bot-sdk talks to, retries with backoff, exactly once under kill -9, the
secrets file's mode and an export without secrets."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import uuid
from datetime import datetime, timedelta, timezone
from email import message_from_bytes
from email.header import decode_header, make_header
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

from club import accounts, games, roster
from club.db import now_iso
from club.errors import UserError
from club.floor import calls, seating, waiting
from club.notify import channels, outbox, sender
from club.notify.config import Settings, load
from tests.support.web import key

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "line-token-" + "s3cr3t" * 4
SMTP_PASSWORD = "smtp-pass-" + "hunter2" * 3
LINE_A = "U" + "a" * 32
LINE_STAFF = "U" + "b" * 32


# --------------------------------------------------------------------------- stand-ins
class LineStandIn:
    """A loopback stand-in for LINE's push endpoint: it records every push and, as LINE
    does, answers 409 to a retry key it has already accepted (and delivers nothing)."""

    def __init__(self) -> None:
        self.accepted: dict[str, dict] = {}
        self.requests: list[tuple[str, int]] = []
        self.down = False
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802  (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                retry_key = self.headers.get("X-Line-Retry-Key", "")
                if stand_in.down:
                    status, answer = 500, {"message": "down"}
                elif self.path != "/v2/bot/message/push" or \
                        self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    status, answer = 401, {"message": "Authentication failed"}
                elif retry_key and retry_key in stand_in.accepted:
                    status, answer = 409, {"message": "The retry key is already accepted",
                                           "sentMessages": [{"id": "1"}]}
                else:
                    stand_in.accepted[retry_key or f"none-{uuid.uuid4()}"] = body
                    status, answer = 200, {"sentMessages": [{"id": "1",
                                                             "quotaConsumptionRequest": "1"}]}
                stand_in.requests.append((retry_key, status))
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def texts(self) -> list[str]:
        return [m["text"] for b in self.accepted.values() for m in b["messages"]]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Inbox:
    """aiosmtpd's handler: every mail the server accepted."""

    def __init__(self) -> None:
        self.mails: list = []

    async def handle_DATA(self, server, session, envelope):  # noqa: N802  (aiosmtpd's name)
        self.mails.append(message_from_bytes(envelope.original_content or envelope.content))
        return "250 OK"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_smtp(port: int) -> tuple[Controller, Inbox]:
    inbox = Inbox()
    ctl = Controller(inbox, hostname="127.0.0.1", port=port)
    ctl.start()
    return ctl, inbox


def body_of(mail) -> str:
    return mail.get_payload(decode=True).decode(mail.get_content_charset() or "utf-8")


def subject_of(mail) -> str:
    return str(make_header(decode_header(mail["Subject"])))


@pytest.fixture()
def line():
    stand_in = LineStandIn()
    yield stand_in
    stand_in.close()


@pytest.fixture()
def smtp():
    port = free_port()
    ctl, inbox = start_smtp(port)
    inbox.port = port  # type: ignore[attr-defined]
    yield inbox
    ctl.stop()


def settings_for(line: LineStandIn | None, smtp_port: int, **extra) -> Settings:
    return Settings(line_api=line.url if line else "http://127.0.0.1:9", line_token=TOKEN,
                    smtp_host="127.0.0.1", smtp_port=smtp_port, smtp_starttls=False,
                    mail_from="雀荘ねこ <club@example.jp>", **{"timeout": 5.0, **extra})


# ------------------------------------------------------------------------------ a club
def member(db, name: str, *, email=None, line_id=None, seat_ready=0, report_card=0) -> int:
    pid = roster.add_player(db, name, member_no=f"M-{uuid.uuid4().hex[:6]}")["id"]
    db.execute("INSERT INTO member_profiles (player_id, email, line_user_id, optin_seat_ready, "
               "optin_report_card, updated_at, email_confirmed_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
               [pid, email, line_id, seat_ready, report_card, now_iso(),
                now_iso() if email else None])
    db.conn.commit()
    return pid


def four_waiting(db) -> dict[str, int]:
    """Four members on the waiting list: two opted in (LINE, e-mail), one gave an address
    but did not opt in, one has no profile at all."""
    ids = {"line": member(db, "相川", line_id=LINE_A, seat_ready=1),
           "mail": member(db, "Baker", email="baker@example.jp", seat_ready=1),
           "no": member(db, "千葉", email="chiba@example.jp", line_id="U" + "c" * 32),
           "none": roster.add_player(db, "土井", member_no="M-doi")["id"]}
    for pid in ids.values():
        waiting.add(db, pid, "family:riichi4", actor="staff:mika")
    return ids


def queued(db) -> list[dict]:
    return [dict(r) for r in db.execute_returning_dicts("SELECT * FROM outbox ORDER BY id")]


# ------------------------------------------------------------------------------- tests
def test_notify_seat_ready_reaches_the_opted_in_members_only(db, line, smtp):
    ids = four_waiting(db)
    seating.seat(db, "t1", list(ids.values()), actor="staff:mika")
    rows = queued(db)
    assert [(r["kind"], r["channel"], r["address"]) for r in rows] == [
        ("seat_ready", "line", LINE_A), ("seat_ready", "email", "baker@example.jp")]
    entry = db.execute("SELECT id FROM waiting WHERE player_id = ?", [ids["line"]]).fetchone()
    assert rows[0]["event_key"] == f"seat_ready:{entry[0]}:{ids['line']}"
    # the same event never queues twice
    assert outbox.seat_ready(db, 1) == 0 and len(queued(db)) == 2

    assert sender.run_once(db, settings_for(line, smtp.port)) == 2
    assert line.texts() == ["相川様、お待たせしました。卓1の席の準備ができました。"
                            "受付までお越しください。"]
    assert list(line.accepted) == [rows[0]["uuid"]]
    assert [m["To"] for m in smtp.mails] == ["baker@example.jp"]
    assert "卓1" in body_of(smtp.mails[0]) and "Baker" in body_of(smtp.mails[0])
    assert smtp.mails[0]["Message-ID"] == f"<{rows[1]['uuid']}@jantaku.notify>"
    assert {r["state"] for r in queued(db)} == {"sent"}
    assert sender.run_once(db, settings_for(line, smtp.port)) == 0       # nothing is resent


def test_notify_seat_ready_is_written_with_the_seating_or_not_at_all(db):
    ids = four_waiting(db)
    games.start_game(db, "t1", [1, 2, 3, 4], idempotency_key=key())
    with pytest.raises(UserError):
        seating.seat(db, "t1", list(ids.values()), actor="staff:mika")   # the table is busy
    assert queued(db) == []


def staff_with(db, name: str, **contact) -> int:
    accounts.create_staff(db, name, "a-long-password-1")
    sid = db.execute("SELECT id FROM staff_users WHERE name = ?", [name]).fetchone()[0]
    outbox.save_contact(db, sid, **contact)
    return sid


def test_notify_staff_call_reaches_the_staff_on_duty_only(db, line, smtp):
    on = staff_with(db, "mika", email=None, line_user_id=LINE_STAFF, lang="ja", on_duty=True)
    mail_on = staff_with(db, "ken", email="ken@example.jp", line_user_id=None, lang="en",
                         on_duty=True)
    off = staff_with(db, "sara", email="sara@example.jp", line_user_id=None, lang="ja",
                     on_duty=False)
    made = calls.call(db, "t2", "drink")
    calls.call(db, "t2", "score")                          # a second press: the same call
    rows = queued(db)
    assert sorted(r["event_key"] for r in rows) == sorted(
        [f"call:{made['id']}:{on}", f"call:{made['id']}:{mail_on}"])
    assert f"call:{made['id']}:{off}" not in {r["event_key"] for r in rows}
    sender.run_once(db, settings_for(line, smtp.port))
    assert line.texts() == ["卓2からスタッフ呼び出しです（飲み物）。"]
    assert [m["To"] for m in smtp.mails] == ["ken@example.jp"]
    assert subject_of(smtp.mails[0]) == "A call from 卓2"
    assert body_of(smtp.mails[0]).strip() == "卓2 is calling staff (drinks)."


def test_notify_staff_contact_refuses_bad_input_and_changes_nothing(db):
    sid = staff_with(db, "mika", email="mika@example.jp", line_user_id=None, lang="ja",
                     on_duty=True)
    for bad in ({"email": "not an address"}, {"line_user_id": "Uxyz"}, {"lang": "fr"}):
        args = {"email": None, "line_user_id": None, "lang": "ja", "on_duty": False, **bad}
        with pytest.raises(UserError) as e:
            outbox.save_contact(db, sid, **args)
        assert e.value.code == "invalid_field"
    with pytest.raises(UserError) as e:
        outbox.save_contact(db, 999, email=None, line_user_id=None, lang="ja", on_duty=True)
    assert e.value.status == 404
    row = db.execute("SELECT email, on_duty FROM staff_contacts WHERE staff_id = ?",
                     [sid]).fetchone()
    assert tuple(row) == ("mika@example.jp", 1)


def _finish(db, gid: int) -> None:
    ev = {"event": "win", "winners": [{"seat": 1, "han": 4, "fu": 30}], "from": 0}
    games.record_event(db, gid, ev, expected_seq=1, idempotency_key=key())
    games.end_game(db, gid, expected_seq=2, idempotency_key=key())


def test_notify_report_card_after_a_game_to_who_asked_for_it(db, smtp):
    asked = member(db, "江口", email="eguchi@example.jp", report_card=1)
    not_asked = member(db, "福田", email="fukuda@example.jp", seat_ready=1)
    gid = games.start_game(db, "t1", [asked, not_asked, 1, 2],
                           idempotency_key=key())["game"]["id"]
    games.record_event(db, gid, {"event": "win", "winners": [{"seat": 1, "han": 4, "fu": 30}],
                                 "from": 0}, expected_seq=1, idempotency_key=key())
    assert queued(db) == []                                   # not finished yet
    games.end_game(db, gid, expected_seq=2, idempotency_key=key())
    rows = queued(db)
    assert [(r["event_key"], r["address"]) for r in rows] == [
        (f"report_card:{gid}:{asked}", "eguchi@example.jp")]
    sender.run_once(db, settings_for(None, smtp.port))
    assert queued(db)[0]["state"] == "sent", queued(db)[0]["last_error"]
    assert [m["To"] for m in smtp.mails] == ["eguchi@example.jp"]
    assert subject_of(smtp.mails[0]) == "対局の成績表"
    text = body_of(smtp.mails[0])
    assert text.startswith("対局おつかれさまでした。") and len(text.splitlines()) > 2
    assert "江口" in text                       # the member's own card, from report_card


def test_notify_retries_with_backoff_while_the_smtp_server_is_down_then_sends(db):
    member_id = member(db, "Baker", email="baker@example.jp", seat_ready=1)
    waiting.add(db, member_id, "family:riichi4", actor="staff:mika")
    others = [roster.add_player(db, f"客{i}", guest=True)["id"] for i in range(3)]
    seating.seat(db, "t1", [member_id, *others], actor="staff:mika")
    port = free_port()                                        # nothing listens there yet
    said: list[str] = []
    settings = settings_for(None, port, first_retry=30.0, max_retry=100.0, attempts=5)
    waits = []
    for tries in (1, 2, 3):
        before = datetime.now(timezone.utc)
        assert sender.run_once(db, settings, said.append) == 1
        after = datetime.now(timezone.utc)
        row = queued(db)[0]
        assert (row["state"], row["attempts"]) == ("queued", tries)
        assert "SMTP" in row["last_error"]
        next_try = datetime.fromisoformat(row["next_try_at"])
        wait = min(100.0, 30.0 * 2 ** (tries - 1))
        assert before + timedelta(seconds=wait - 0.01) <= next_try
        assert next_try <= after + timedelta(seconds=wait + 0.01)
        waits.append(wait)
        assert sender.run_once(db, settings, said.append) == 0      # not due yet
        # the clock reaches the next try
        db.execute("UPDATE outbox SET next_try_at = ?", [outbox.iso(before)])
        db.conn.commit()
    assert waits == [30.0, 60.0, 100.0]                         # doubling, capped
    assert "再送します" in said[0] and "Trying again in 30 s" in said[0]
    ctl, inbox = start_smtp(port)                               # the server is back
    try:
        assert sender.run_once(db, settings, said.append) == 1
    finally:
        ctl.stop()
    assert [m["To"] for m in inbox.mails] == ["baker@example.jp"]
    assert queued(db)[0]["state"] == "sent" and queued(db)[0]["attempts"] == 4


def test_notify_gives_up_after_the_last_try_and_says_so_in_words(db, line):
    staff_with(db, "mika", email=None, line_user_id=LINE_STAFF, lang="ja", on_duty=True)
    calls.call(db, "t1", "score")
    line.down = True
    said: list[str] = []
    settings = settings_for(line, free_port(), attempts=2)
    sender.run_once(db, settings, said.append)
    db.execute("UPDATE outbox SET next_try_at = ?", ["2000-01-01T00:00:00.000+00:00"])
    db.conn.commit()
    sender.run_once(db, settings, said.append)
    row = queued(db)[0]
    assert row["state"] == "failed" and "LINE 500" in row["last_error"]
    assert "送信をあきらめました" in said[-1] and "Gave up sending message" in said[-1]
    assert line.accepted == {}
    # staff send it again once LINE is back
    line.down = False
    outbox.retry_failed(db, row["id"])
    sender.run_once(db, settings, said.append)
    assert queued(db)[0]["state"] == "sent" and len(line.accepted) == 1


def test_notify_line_resend_of_an_accepted_push_is_answered_409_and_counts_as_sent(line):
    row = {"uuid": str(uuid.uuid4()), "address": LINE_A}
    settings = settings_for(line, free_port())
    assert channels.send_line(settings, row, "一回目") is None
    assert channels.send_line(settings, row, "一回目") == "line: accepted before (409)"
    assert [s for _, s in line.requests] == [200, 409]
    assert line.texts() == ["一回目"]


# ----------------------------------------------------------------- the real process
def club_files(tmp_path: Path, line: LineStandIn, smtp_port: int, mode: int = 0o600) -> Path:
    secrets = tmp_path / "notify-secrets.toml"
    secrets.write_text(f'line_channel_access_token = "{TOKEN}"\n'
                       f'smtp_password = "{SMTP_PASSWORD}"\n', encoding="utf-8")
    secrets.chmod(mode)
    config = tmp_path / "club.toml"
    config.write_text(f'db = "club.sqlite"\n\n[notify]\nsecrets = "{secrets.name}"\n'
                      f'line_api = "{line.url}"\nsmtp_host = "127.0.0.1"\n'
                      f'smtp_port = {smtp_port}\nsmtp_starttls = false\n'
                      f'mail_from = "club@example.jp"\npoll = 0.2\n', encoding="utf-8")
    return config


def notify_process(db_path: str, config: Path, pause: str | None, *extra: str):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop(sender.PAUSE_ENV, None)
    if pause:
        env[sender.PAUSE_ENV] = pause
    return subprocess.Popen([sys.executable, "-m", "web", "notify", "--db", db_path,
                             "--config", str(config), *extra], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def kill_at_pause(proc: subprocess.Popen, point: str) -> int:
    """Wait until the sender stops at ``point``, then kill -9 it; the row it held."""
    line_ = proc.stdout.readline()                     # type: ignore[union-attr]
    assert line_.startswith(f"paused {point} "), (line_, proc.stderr.read())  # type: ignore
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(timeout=60) == -signal.SIGKILL
    return int(line_.split()[2])


def run_to_the_end(db_path: str, config: Path) -> None:
    proc = notify_process(db_path, config, None, "--once")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err


@pytest.mark.parametrize("point", ["before_send", "after_send"])
def test_notify_exactly_once_on_line_under_kill_9(app, db, line, smtp, tmp_path, point):
    ids = four_waiting(db)
    seating.seat(db, "t1", list(ids.values()), actor="staff:mika")
    rows = queued(db)
    assert rows[0]["channel"] == "line"                # the first row is the one killed
    config = club_files(tmp_path, line, smtp.port)
    proc = notify_process(app.config["DATABASE"], config, point)
    assert kill_at_pause(proc, point) == rows[0]["id"]
    # killed: the LINE push was made (after_send) or not (before_send), never marked
    assert queued(db)[0]["state"] == "queued"
    assert len(line.accepted) == (1 if point == "after_send" else 0)
    run_to_the_end(app.config["DATABASE"], config)
    # LINE delivered each retry key once; after the kill the resend was answered 409
    assert list(line.accepted) == [rows[0]["uuid"]]
    assert len(line.texts()) == 1
    expected = [200] if point == "before_send" else [200, 409]
    assert [s for k, s in line.requests if k == rows[0]["uuid"]] == expected
    assert [m["To"] for m in smtp.mails] == ["baker@example.jp"]       # the next row, once
    assert [r["state"] for r in queued(db)] == ["sent", "sent"]


@pytest.mark.parametrize("point", ["before_send", "after_send"])
def test_notify_email_under_kill_9_one_message_id(app, db, line, smtp, tmp_path, point):
    """By e-mail, a kill after the server accepted and before the row was marked sends
    the mail again (SMTP has no retry key): what is asserted is that every copy carries
    the row's one Message-ID, so the receiver's mail client shows one message; a kill
    before the send delivers exactly one."""
    pid = member(db, "Baker", email="baker@example.jp", seat_ready=1)
    waiting.add(db, pid, "family:riichi4", actor="staff:mika")
    others = [roster.add_player(db, f"客{i}", guest=True)["id"] for i in range(3)]
    seating.seat(db, "t1", [pid, *others], actor="staff:mika")
    (row,) = queued(db)
    config = club_files(tmp_path, line, smtp.port)
    proc = notify_process(app.config["DATABASE"], config, point)
    kill_at_pause(proc, point)
    run_to_the_end(app.config["DATABASE"], config)
    copies = 1 if point == "before_send" else 2
    assert [m["To"] for m in smtp.mails] == ["baker@example.jp"] * copies
    assert {m["Message-ID"] for m in smtp.mails} == {f"<{row['uuid']}@jantaku.notify>"}
    assert queued(db)[0]["state"] == "sent"


def test_notify_a_second_sender_on_the_same_club_file_is_refused(app, db, line, smtp,
                                                                 tmp_path):
    ids = four_waiting(db)
    seating.seat(db, "t1", list(ids.values()), actor="staff:mika")
    config = club_files(tmp_path, line, smtp.port)
    first = notify_process(app.config["DATABASE"], config, "before_send")
    try:
        assert first.stdout.readline().startswith("paused before_send ")  # type: ignore
        second = notify_process(app.config["DATABASE"], config, None, "--once")
        out, err = second.communicate(timeout=120)
        assert second.returncode == 2 and "already running" in err
    finally:
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=60)
    assert line.accepted == {} and smtp.mails == []
    run_to_the_end(app.config["DATABASE"], config)        # the lock went with the process
    assert len(line.accepted) == 1 and len(smtp.mails) == 1


def test_notify_secrets_file_readable_by_others_is_refused(app, line, tmp_path):
    config = club_files(tmp_path, line, free_port(), mode=0o644)
    with pytest.raises(UserError) as e:
        load(config)
    assert e.value.key == "notify.secrets_mode"
    assert "chmod 600" in e.value.message and "0644" in e.value.message
    proc = notify_process(app.config["DATABASE"], config, None, "--once")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and "chmod 600" in err and TOKEN not in err
    (tmp_path / "notify-secrets.toml").chmod(0o400)
    settings = load(config)
    assert settings.line_token == TOKEN and settings.smtp_password == SMTP_PASSWORD


def test_notify_secrets_never_reach_the_club_file_or_its_export(app, db, line, smtp, tmp_path):
    ids = four_waiting(db)
    seating.seat(db, "t1", list(ids.values()), actor="staff:mika")
    config = club_files(tmp_path, line, smtp.port)
    run_to_the_end(app.config["DATABASE"], config)
    assert [r["state"] for r in queued(db)] == ["sent", "sent"]
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    out = tmp_path / "exports"
    day = datetime.now(timezone.utc).date().isoformat()
    done = subprocess.run([sys.executable, "-m", "web", "export", "--db",
                           app.config["DATABASE"], "--date", day, "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    files = [p for p in out.rglob("*") if p.is_file()]
    assert files
    club_bytes = [Path(app.config["DATABASE"] + s) for s in ("", "-wal")]
    for path in files + [p for p in club_bytes if p.exists()]:
        data = path.read_bytes()
        assert TOKEN.encode() not in data and SMTP_PASSWORD.encode() not in data, path


# ------------------------------------------------------------------- the staff's page
def signed_in(app, db):
    from tests.web.staff_support import STAFF, staff_client

    accounts.create_staff(db, STAFF[0], STAFF[1])
    return staff_client(app)


def csrf(client) -> str:
    return client.get("/auth/csrf").get_json()["csrf_token"]


def test_notify_staff_page_sets_contacts_and_shows_the_outbox_in_words(app, db):
    client = signed_in(app, db)
    sid = db.execute("SELECT id FROM staff_users").fetchone()[0]
    r = client.post(f"/staff/notify/contacts/{sid}",
                    data={"email": "mika@example.jp", "line_user_id": "", "lang": "ja",
                          "on_duty": "1", "csrf_token": csrf(client)})
    assert r.status_code == 302
    calls.call(db, "t1", "drink")
    db.execute("UPDATE outbox SET state = 'failed', last_error = 'SMTP 550'")
    db.conn.commit()
    page = client.get("/staff/notify").get_data(as_text=True)
    assert "mika@example.jp" in page and "呼び出し" in page
    assert "送信待ち 0件・送信済み 0件・失敗 1件" in page
    assert "送信できませんでした（メール）" in page and "再送" in page
    for english in ("Outbox", "Staff call", "could not be sent", "SMTP 550", "call:"):
        assert english not in page                        # a Japanese page shows no English
    en = client.get("/staff/notify?lang=en").get_data(as_text=True)
    assert "could not be sent (E-mail)" in en and "Staff call" in en
    # staff send the failed message again
    row_id = queued(db)[0]["id"]
    r = client.post(f"/staff/notify/outbox/{row_id}/retry", json={},
                    headers={"X-CSRF-Token": csrf(client)})
    assert r.status_code == 200 and r.get_json()["message"]["state"] == "queued"
    r = client.post(f"/staff/notify/outbox/{row_id}/retry", json={},
                    headers={"X-CSRF-Token": csrf(client)})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "not_failed"
    doc = client.get("/staff/notify", headers={"Accept": "application/json"}).get_json()
    assert doc["counts"] == {"queued": 1, "sent": 0, "failed": 0}
    assert doc["contacts"][0]["email"] == "mika@example.jp"


def test_notify_staff_page_refuses_a_bad_address_in_words_and_keeps_the_old_one(app, db):
    client = signed_in(app, db)
    sid = db.execute("SELECT id FROM staff_users").fetchone()[0]
    outbox.save_contact(db, sid, email="mika@example.jp", line_user_id=None, lang="ja",
                        on_duty=True)
    r = client.post(f"/staff/notify/contacts/{sid}", json={"line_user_id": "Uxyz"},
                    headers={"X-CSRF-Token": csrf(client), "Accept-Language": "ja"})
    assert r.status_code == 400
    assert r.get_json()["error"]["code"] == "invalid_field"
    assert "LINEのユーザーID「Uxyz」は正しくありません" in r.get_json()["error"]["message"]
    r = client.post("/staff/notify/contacts/999", json={},
                    headers={"X-CSRF-Token": csrf(client)})
    assert r.status_code == 404
    row = db.execute("SELECT email, on_duty FROM staff_contacts").fetchone()
    assert tuple(row) == ("mika@example.jp", 1)


def test_notify_sample_club_toml_section_is_read_whole(tmp_path):
    sample = (ROOT / "deploy" / "club.toml").read_text(encoding="utf-8")
    secrets = tmp_path / "notify.toml"
    secrets.write_text(f'line_channel_access_token = "{TOKEN}"\n', encoding="utf-8")
    secrets.chmod(0o600)
    config = tmp_path / "club.toml"
    config.write_text(sample.replace("/etc/jantaku/notify.toml", str(secrets)),
                      encoding="utf-8")
    settings = load(config)
    assert (settings.smtp_port, settings.smtp_starttls, settings.attempts) == (587, True, 8)
    assert settings.line_token == TOKEN and settings.smtp_password == ""
    config.write_text(sample.replace("attempts = 8", "attempts = 0"), encoding="utf-8")
    with pytest.raises(UserError) as e:
        load(config)
    assert "attempts" in e.value.message and "1..100" in e.value.message
