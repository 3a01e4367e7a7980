"""The outbox survives any answer, against real local servers: a LINE endpoint answering
200 with HTML (a captive portal), an SMTP server that accepts the connection and never
answers, aiosmtpd refusing with 451 at RCPT or at DATA (temporary) and 550 (permanent).
A bad answer is a counted temporary failure, a row past its limit is failed and shown on
the console, a hung channel never holds up the other, SIGTERM is honoured while SMTP
hangs, and a try is counted only when a send was made."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from aiosmtpd.controller import Controller

from club import roster
from club.floor import calls, seating, waiting
from club.notify import sender
from tests.web.staff_support import staff_client
from tests.web.test_notify import (
    LINE_A,
    LINE_STAFF,
    Inbox,
    LineStandIn,
    club_files,
    free_port,
    member,
    notify_process,
    queued,
    settings_for,
    staff_with,
    start_smtp,
)


class HtmlPortal:
    """A loopback "LINE" that answers every push 200 with an HTML page, as a captive
    portal or a misconfigured proxy does."""

    def __init__(self) -> None:
        self.hits = 0
        portal = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802  (http.server's name)
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                portal.hits += 1
                body = b"<html><body>Welcome to the hotel Wi-Fi</body></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class HungSmtp:
    """A mail server that takes the connection and never says a word."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.held: list[socket.socket] = []
        self.running = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self) -> None:
        self.running = False
        self.sock.close()
        for c in self.held:
            c.close()


class Refusing(Inbox):
    """aiosmtpd refusing at RCPT or at DATA with a given reply."""

    def __init__(self, at: str, reply: str) -> None:
        super().__init__()
        self.at, self.reply = at, reply

    async def handle_RCPT(self, server, session, envelope, address, options):  # noqa: N802
        if self.at == "rcpt":
            return self.reply
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: N802
        if self.at == "data":
            return self.reply
        return await super().handle_DATA(server, session, envelope)


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


@pytest.fixture()
def portal():
    p = HtmlPortal()
    yield p
    p.close()


@pytest.fixture()
def hung():
    h = HungSmtp()
    yield h
    h.close()


def _mail_row(db, name: str = "Baker", address: str = "baker@example.jp") -> int:
    pid = member(db, name, email=address, seat_ready=1)
    waiting.add(db, pid, "family:riichi4", actor="staff:mika")
    others = [roster.add_player(db, f"客{name}{i}", guest=True)["id"] for i in range(3)]
    seating.seat(db, "t1", [pid, *others], actor="staff:mika")
    return pid


def _line_row(db) -> None:
    staff_with(db, "mika", email=None, line_user_id=LINE_STAFF, lang="ja", on_duty=True)
    calls.call(db, "t1", "score")


def _due_now(db) -> None:
    db.execute("UPDATE outbox SET next_try_at = ? WHERE state = 'queued'",
               ["2000-01-01T00:00:00.000+00:00"])
    db.conn.commit()


def test_notify_line_answering_html_is_a_counted_temporary_failure(db, portal, smtp):
    _line_row(db)
    _mail_row(db)
    said: list[str] = []
    settings = settings_for(None, smtp.port, attempts=3)
    settings = type(settings)(**{**settings.__dict__, "line_api": portal.url})
    assert sender.run_once(db, settings, said.append) == 2
    line_row, mail_row = queued(db)
    assert portal.hits == 1
    assert (line_row["state"], line_row["attempts"]) == ("queued", 1)
    assert "unexpected answer" in line_row["last_error"]
    assert mail_row["state"] == "sent"                 # the e-mail behind it went out
    assert [m["To"] for m in smtp.mails] == ["baker@example.jp"]
    for _ in range(2):
        _due_now(db)
        sender.run_once(db, settings, said.append)
    line_row = queued(db)[0]
    assert (line_row["state"], line_row["attempts"]) == ("failed", 3)
    assert "送信をあきらめました" in said[-1]


def test_notify_row_past_its_limit_is_failed_without_another_try(db, line, smtp):
    _line_row(db)
    db.execute("UPDATE outbox SET attempts = 4, last_error = 'LINE: ValidationError'")
    db.conn.commit()
    said: list[str] = []
    sender.run_once(db, settings_for(line, smtp.port, attempts=3), said.append)
    row = queued(db)[0]
    assert (row["state"], row["attempts"]) == ("failed", 4)
    assert line.requests == [] and "ValidationError" in said[-1]


def test_notify_failed_row_is_shown_on_the_console(app, db, portal, smtp):
    _line_row(db)
    settings = settings_for(None, smtp.port, attempts=1)
    settings = type(settings)(**{**settings.__dict__, "line_api": portal.url})
    sender.run_once(db, settings, lambda _s: None)
    client = staff_client(app, "mika", "a-long-password-1")
    page = client.get("/staff/notify").get_data(as_text=True)
    assert "失敗 1件" in page and "送信できませんでした（LINE）" in page
    doc = client.get("/staff/notify", headers={"Accept": "application/json"}).get_json()
    assert doc["counts"]["failed"] == 1
    assert "unexpected answer" in doc["outbox"][0]["error"]


def test_notify_any_exception_from_a_sender_is_counted_not_fatal(db, smtp, monkeypatch):
    _mail_row(db)

    def broken(*_a, **_k):
        raise KeyError("a bug in a library")

    monkeypatch.setattr("club.notify.channels.send_mail", broken)
    assert sender.run_once(db, settings_for(None, smtp.port, attempts=5), lambda _s: None) == 1
    row = queued(db)[0]
    assert (row["state"], row["attempts"]) == ("queued", 1)
    assert "KeyError" in row["last_error"]


@pytest.mark.parametrize("at, reply, state", [
    ("rcpt", "451 4.7.1 Greylisted, try again later", "queued"),
    ("data", "451 4.3.0 Local error in processing", "queued"),
    ("rcpt", "550 5.1.1 No such user", "failed"),
    ("data", "554 5.7.1 Message refused", "failed"),
])
def test_notify_smtp_4xx_is_temporary_and_5xx_permanent(db, at, reply, state):
    port = free_port()
    handler = Refusing(at, reply)
    ctl = Controller(handler, hostname="127.0.0.1", port=port)
    ctl.start()
    try:
        _mail_row(db)
        sender.run_once(db, settings_for(None, port, attempts=5), lambda _s: None)
    finally:
        ctl.stop()
    row = queued(db)[0]
    assert (row["state"], row["attempts"]) == (state, 1), row["last_error"]
    assert reply.split()[0] in row["last_error"]
    assert handler.mails == []


def test_notify_greylisted_mail_goes_once_the_server_takes_it(db):
    port = free_port()
    handler = Refusing("rcpt", "451 4.7.1 Greylisted")
    ctl = Controller(handler, hostname="127.0.0.1", port=port)
    ctl.start()
    try:
        _mail_row(db)
        settings = settings_for(None, port, attempts=3)
        sender.run_once(db, settings, lambda _s: None)
        handler.at = "none"                      # the greylist lets it through now
        _due_now(db)
        sender.run_once(db, settings, lambda _s: None)
    finally:
        ctl.stop()
    row = queued(db)[0]
    assert (row["state"], row["attempts"]) == ("sent", 2)
    assert [m["To"] for m in handler.mails] == ["baker@example.jp"]


def test_notify_hung_smtp_server_is_a_temporary_failure_after_the_deadline(db, hung):
    _mail_row(db)
    sender.run_once(db, settings_for(None, hung.port, attempts=5, timeout=1.0),
                    lambda _s: None)
    row = queued(db)[0]
    assert (row["state"], row["attempts"]) == ("queued", 1)
    assert "SMTP" in row["last_error"]


def _wait_for(check, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "the condition never came"
        time.sleep(0.1)


def test_notify_hung_smtp_holds_up_no_line_message_and_sigterm_is_honoured(
        app, db, line, hung, tmp_path):
    _mail_row(db)                          # the e-mail is queued first and hangs
    _line_row(db)
    config = club_files(tmp_path, line, hung.port)
    config.write_text(config.read_text() + "timeout = 120\n", encoding="utf-8")
    proc = notify_process(app.config["DATABASE"], config, None)
    try:
        path = app.config["DATABASE"]

        def line_sent() -> bool:
            with sqlite3.connect(path) as conn:
                return conn.execute("SELECT state FROM outbox WHERE channel = 'line'"
                                    ).fetchone()[0] == "sent"

        _wait_for(line_sent)
        assert len(line.accepted) == 1
        _wait_for(lambda: len(hung.held) == 1)          # the mail is in the hung server
        proc.send_signal(signal.SIGTERM)
        # the SMTP deadline is 120 s: an exit well before it is the stop honoured
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(30)
    mail = [r for r in queued(db) if r["channel"] == "email"][0]
    assert (mail["state"], mail["attempts"]) == ("queued", 0)   # cut off: not a try


def test_notify_a_killed_send_is_not_counted_as_a_try(app, db, line, smtp, tmp_path):
    _line_row(db)
    config = club_files(tmp_path, line, smtp.port)
    for _ in range(3):
        proc = notify_process(app.config["DATABASE"], config, "before_send")
        assert proc.stdout.readline().startswith("paused before_send")  # type: ignore
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(60)
    row = queued(db)[0]
    assert (row["state"], row["attempts"]) == ("queued", 0)
    proc = notify_process(app.config["DATABASE"], config, None, "--once")
    proc.communicate(timeout=120)
    row = queued(db)[0]
    assert (row["state"], row["attempts"]) == ("sent", 1)
    assert json.loads(row["payload"])["table_id"] == "t1"
    assert list(line.accepted) == [row["uuid"]] and LINE_A not in line.accepted


class TricklingSmtp(HungSmtp):
    """A mail server that sends its greeting one byte at a time, never ending the line:
    no single wait runs out."""

    def _accept(self) -> None:
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)
            threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn: socket.socket) -> None:
        try:
            while self.running:
                conn.sendall(b"2")
                time.sleep(0.2)
        except OSError:
            return


def test_notify_trickling_smtp_server_is_cut_off_at_the_send_deadline(db):
    trickle = TricklingSmtp()
    try:
        _mail_row(db)
        sender.run_once(db, settings_for(None, trickle.port, attempts=5, timeout=1.0),
                        lambda _s: None)
    finally:
        trickle.close()
    row = queued(db)[0]
    assert (row["state"], row["attempts"]) == ("queued", 1)
    assert "SMTP" in row["last_error"]
