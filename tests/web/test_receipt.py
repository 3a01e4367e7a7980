"""The receipt printer (club/printing/): the settlement sheet, the report card and the
daily report as ESC/POS bytes that carry the Japanese text in the printer's Kanji mode
(Shift JIS), on 58 and 80 mm paper; the print queue (a request only enqueues, the worker
retries a printer that is down and prints when it is back, a failed job in words on the
console); a network printer as a real TCP listener on loopback; ``[printer]`` in
club.toml checked key by key."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from datetime import datetime

import pytest

from club import club_tables, daily_report, stats_store
from club.accounts import create_staff
from club.errors import UserError
from club.printing import config, documents, queue
from club.printing.receipt import ENCODING, KANJI_ON, Sheet, escpos_bytes, width
from club.printing.worker import PrinterDown, Worker
from tests.scoring.test_stats import G1
from tests.web.test_leaderboard import play

# G1 (tests/scoring/test_stats.py, nekohouse-4a) seated 青木 伊藤 上田 遠藤: they end 4th,
# 2nd, 3rd, 1st with -45.0, +11.0, -18.0, +52.0
FINISHED = "2026-04-01T12:00:00.000+00:00"
CUT = b"\x1dV\x00"
HOUSE_4A = ('extends = "nekohouse-4a"\n[money]\nfee_mode = "per_game"\nfee = 500\n'
            'top_prize = 1000\nchip_yen = 500\n')


@pytest.fixture()
def game(db) -> int:
    return play(db, "t1", [1, 2, 3, 4], G1, FINISHED)


@pytest.fixture()
def staff(app, db):
    create_staff(db, "mika", "mahjong-club")
    c = app.test_client()
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    c.post("/auth/login", data={"name": "mika", "password": "mahjong-club", "csrf_token": token})
    c.environ_base["HTTP_X_CSRF_TOKEN"] = c.get("/auth/csrf").get_json()["csrf_token"]
    return c


def _text(data: bytes) -> str:
    """What the paper shows: CP932 text, 0x5C printed as ¥ (the Japanese set)."""
    return data.decode(ENCODING, errors="replace").replace("\\", "¥")


def _lines(sheet: Sheet) -> list[str]:
    return sheet.text().split("\n")


# --------------------------------------------------------------------------- the three sheets
@pytest.mark.parametrize("mm, cols", [(58, 32), (80, 48)])
def test_receipt_settlement_sheet_in_kanji_mode(db, game, mm, cols):
    sheet = documents.settlement(db, game, config.PrinterConfig(width_mm=mm).columns())
    assert sheet.columns == cols
    assert all(width(line) <= cols for line in _lines(sheet))
    assert "-" * cols in _lines(sheet)
    data = escpos_bytes(sheet)
    # reset, Shift JIS code system, Kanji mode and the Japanese set before any text;
    # a full cut after the last line
    assert data.startswith(b"\x1b@" + KANJI_ON)
    assert data.endswith(CUT)
    text = _text(data)
    for word in ("精算表", "青木", "伊藤", "上田", "遠藤", "1位", "+52.0", "-45.0", "卓1"):
        assert word in text, word
    assert "精算表".encode("cp932") in data and "精算表".encode("utf-8") not in data
    # rank order: 遠藤 (1st) above 伊藤 (2nd) above 上田 above 青木
    assert text.index("遠藤") < text.index("伊藤") < text.index("上田") < text.index("青木")
    # the finish time in the club's zone: 12:00 UTC is 21:00 in Tokyo
    assert "2026-04-01 21:00" in text


def test_receipt_settlement_sheet_in_english(db, game):
    text = _text(escpos_bytes(documents.settlement(db, game, 48, "en")))
    assert "Settlement" in text and "#1" in text and "精算表" not in text


def test_receipt_settlement_sheet_carries_the_games_money(db):
    club_tables.save_rule_set(db, "house-4a", HOUSE_4A, actor="owner")
    club_tables.save_table(db, "t9", "卓9", "house-4a")
    gid = play(db, "t9", [1, 2, 3, 4], G1, FINISHED)
    day = stats_store.club_day_of(FINISHED, stats_store.settings(db))
    nets = {a["name"]: a["net"] for a in daily_report.report(db, day)["accounts"]}
    sheet = documents.settlement(db, gid, 32)
    text = _text(escpos_bytes(sheet))
    assert "精算（円）" in text and "場代合計" in text and "¥2,000" in text
    lines = _lines(sheet)
    for name, net in nets.items():
        seat = next(i for i, line in enumerate(lines) if name in line)
        # the seat's own net for the game, under its score: the day's account of one game
        assert daily_report.Yen(net).text() in lines[seat + 2], (name, lines[seat:seat + 3])
    # rules that charge nothing print no money lines
    assert "精算（円）" not in _text(escpos_bytes(documents.settlement(
        db, play(db, "t1", [1, 2, 3, 4], G1, FINISHED), 32)))


def test_receipt_report_card_carries_the_members_name(db, game):
    for cols in (32, 48):
        sheet = documents.report_card_sheet(db, 4, cols, game_id=game)
        assert all(width(line) <= cols for line in _lines(sheet))
        data = escpos_bytes(sheet)
        text = _text(data)
        assert "成績表" in text and "遠藤" in text and "+52.0" in text
        assert data.endswith(CUT)


def test_receipt_daily_report_carries_the_totals(db):
    club_tables.save_rule_set(db, "house-4a", HOUSE_4A, actor="owner")
    club_tables.save_table(db, "t9", "卓9", "house-4a")
    play(db, "t9", [1, 2, 3, 4], G1, FINISHED)
    day = stats_store.club_day_of(FINISHED, stats_store.settings(db))
    rep = daily_report.report(db, day)
    assert rep["summary"] == {"fees": 2000, "house_prize": 1000, "kept": 1000}
    sheet = documents.daily(db, day, 32)
    assert all(width(line) <= 32 for line in _lines(sheet))
    text = _text(escpos_bytes(sheet))
    assert "日報" in text and day in text and "合計" in text and "卓9" in text
    assert "¥2,000" in text and "¥1,000" in text
    for a in rep["accounts"]:
        assert a["name"] in text and daily_report.Yen(a["net"]).text() in text


def test_receipt_yen_sign_prints_from_the_japanese_set():
    sheet = Sheet(32)
    sheet.pair("場代", "¥1,200")
    data = escpos_bytes(sheet)
    assert b"\x1bR\x08" in data                 # 0x5C is ¥ in the Japanese set
    assert "場代".encode("cp932") + b" " in data and b"\\1,200" in data


# --------------------------------------------------------------------------- club.toml
def test_receipt_printer_config_is_checked_key_by_key(tmp_path):
    assert config.from_mapping(None).kind == "none"
    net = config.from_mapping({"kind": "network", "host": "10.0.0.5", "width_mm": 58})
    assert (net.host, net.port, net.columns()) == ("10.0.0.5", 9100, 32)
    usb = config.from_mapping({"kind": "usb", "vendor_id": "0x04b8", "product_id": 0x0202})
    assert usb.where() == "usb 04b8:0202"
    for raw, key in (({"kind": "serial"}, "kind"),
                     ({"kind": "network"}, "host"),
                     ({"kind": "network", "host": "h", "port": 70000}, "port"),
                     ({"kind": "network", "host": "h", "width_mm": 76}, "width_mm"),
                     ({"kind": "usb", "vendor_id": 1}, "product_id"),
                     ({"kind": "network", "host": "h", "path": "/dev/usb/lp0"}, "path"),
                     ({"kind": "file", "path": "x", "profile": "no-such"}, "profile")):
        with pytest.raises(UserError) as e:
            config.from_mapping(raw, "club.toml")
        assert f"[printer] の {key} =" in e.value.message and key in e.value.message
    # the table daemon reads the same file: a [printer] section is not refused there
    from tablectl.config import load_config

    path = tmp_path / "club.toml"
    path.write_text('db = "x.db"\n[printer]\nkind = "network"\nhost = "10.0.0.5"\n',
                    encoding="utf-8")
    assert load_config(path).db.endswith("x.db")
    assert config.load(path).host == "10.0.0.5"


# --------------------------------------------------------------------------- a real network printer
class Listener:
    """A printer on loopback: a TCP listener that keeps every byte it is sent."""

    def __init__(self, port: int = 0):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.received: list[bytes] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                chunks = []
                while chunk := conn.recv(65536):
                    chunks.append(chunk)
                self.received.append(b"".join(chunks))

    def wait(self, n: int = 1, timeout: float = 10.0) -> list[bytes]:
        deadline = time.monotonic() + timeout
        while len(self.received) < n and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.received

    def close(self) -> None:
        self.sock.close()


def _due(db, job_id: int) -> None:
    """Let a job's backoff run out (the tests move the clock, they do not wait)."""
    db.execute("UPDATE print_jobs SET next_try_at = NULL WHERE id = ?", [job_id])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_receipt_network_printer_down_then_back(app, db, staff, game):
    port = _free_port()                       # nothing listens there yet: the printer is off
    cfg = config.from_mapping({"kind": "network", "host": "127.0.0.1", "port": port,
                               "width_mm": 58, "timeout": 2})
    # the request only enqueues: it answers while the printer is down
    r = staff.post(f"/staff/printing/settlement/{game}", headers={"Accept": "application/json"})
    assert r.status_code == 202, r.get_json()
    job_id = r.get_json()["job"]
    assert queue.job(db, job_id)["state"] == "queued"

    worker = Worker(db, cfg, backoff=(30, 60), poll_s=0.05)
    assert worker.step() == 0
    job = queue.job(db, job_id)
    assert (job["state"], job["attempts"]) == ("queued", 1)
    assert job["error"][0] == "print.err.printer"
    # the console says so in words, in Japanese first
    page = staff.get("/staff/printing").get_data(as_text=True)
    assert f"プリンター 127.0.0.1:{port} に印刷できません" in page
    assert 'data-testid="printer-queued">1<' in page
    assert page.count("Connection refused") == 2   # the last error, and the job's
    assert worker.step() > 0                  # not due yet: the backoff holds it
    _due(db, job_id)                          # its 30 s have passed
    assert worker.step() == 0                 # tried again: still down
    job = queue.job(db, job_id)
    assert (job["state"], job["attempts"]) == ("queued", 2)
    # the wait doubled: 60 s from the second failure
    assert 50 < (datetime.fromisoformat(job["next_try_at"])
                 - datetime.fromisoformat(job["updated_at"])).total_seconds() <= 60
    _due(db, job_id)

    printer = Listener(port)                  # the printer is switched on
    try:
        deadline = time.monotonic() + 5
        while queue.job(db, job_id)["state"] != "done" and time.monotonic() < deadline:
            time.sleep(worker.step())
        assert queue.job(db, job_id)["state"] == "done"
        (received,) = printer.wait(1)
        assert "精算表".encode("cp932") in received and "遠藤".encode("cp932") in received
        assert received.endswith(CUT)
    finally:
        printer.close()
    st = queue.status(db)
    assert st["last_ok_at"] and st["last_error"] is None and st["queued"] == 0
    ok = staff.get("/staff/printing", headers={"Accept": "application/json"}).get_json()
    assert ok["queued"] == 0 and ok["jobs"][0]["state"] == "done"


def test_receipt_failed_job_shows_on_the_console_in_words(app, db, staff):
    job_id = queue.enqueue(db, "settlement", {"game_id": 999})
    sent: list[bytes] = []
    worker = Worker(db, config.from_mapping({"kind": "file", "path": "unused"}),
                    sender=lambda _cfg, data: sent.append(data))
    worker.step()
    job = queue.job(db, job_id)
    assert job["state"] == "failed" and not sent
    page = staff.get("/staff/printing").get_data(as_text=True)
    assert 'data-state="failed"' in page and "失敗" in page
    assert "999" in page and "records.no_game" not in page
    en = staff.get("/staff/printing?lang=en").get_data(as_text=True)
    assert "failed" in en and "records.no_game" not in en
    # staff queue it again; still failing, it comes back failed, never printed
    r = staff.post(f"/staff/printing/jobs/{job_id}/retry",
                   headers={"Accept": "application/json"})
    assert r.status_code == 202 and queue.job(db, job_id)["state"] == "queued"
    r = staff.post(f"/staff/printing/jobs/{job_id}/retry",
                   headers={"Accept": "application/json"})
    assert r.status_code == 409 and r.get_json()["error"]["message"]


def test_receipt_job_left_printing_by_a_crash_is_printed_again(db, game):
    job_id = queue.enqueue(db, "settlement", {"game_id": game})
    assert queue.claim(db, job_id)            # the worker died after marking it printing
    sent: list[bytes] = []
    worker = Worker(db, config.from_mapping({"kind": "file", "path": "unused"}),
                    sender=lambda _cfg, data: sent.append(data))
    assert queue.next_job(db) is None
    queue.recover(db)                         # what a starting worker does first
    worker.step()
    assert queue.job(db, job_id)["state"] == "done" and len(sent) == 1


def test_receipt_jobs_print_in_order_behind_a_backoff(db, game):
    first = queue.enqueue(db, "settlement", {"game_id": game})
    second = queue.enqueue(db, "daily_report", {"day": "2026-04-01"})
    up = {"on": False}
    sent: list[bytes] = []

    def printer(_cfg, data):
        if not up["on"]:
            raise PrinterDown("Connection refused")
        sent.append(data)

    worker = Worker(db, config.from_mapping({"kind": "file", "path": "unused"}),
                    backoff=(30, 60), sender=printer)
    worker.step()
    assert worker.step() > 0                  # the second waits behind the first
    assert queue.job(db, second)["attempts"] == 0
    up["on"] = True
    _due(db, first)
    worker.step()
    worker.step()
    assert [queue.job(db, j)["state"] for j in (first, second)] == ["done", "done"]
    assert "精算表" in _text(sent[0]) and "日報" in _text(sent[1])


# --------------------------------------------------------------------------- the print buttons
def test_receipt_buttons_queue_and_refuse_in_words(app, db, staff, game):
    page = staff.get(f"/staff/games/{game}").get_data(as_text=True)
    assert f"/staff/printing/settlement/{game}" in page
    page = staff.get("/staff/report?day=2026-04-01").get_data(as_text=True)
    assert "/staff/printing/daily-report" in page
    page = staff.get(f"/staff/report-cards?player=4&game={game}").get_data(as_text=True)
    assert "/staff/printing/report-card/4" in page and f'value="{game}"' in page
    js = {"Accept": "application/json"}
    r = staff.post("/staff/printing/daily-report", json={"day": "2026-04-01"}, headers=js)
    assert r.status_code == 202
    assert queue.job(db, r.get_json()["job"])["args"] == {"day": "2026-04-01"}
    r = staff.post("/staff/printing/report-card/4", json={"game_id": game}, headers=js)
    assert r.status_code == 202
    assert queue.job(db, r.get_json()["job"])["args"] == {"player_id": 4, "game_id": game}
    # a form's button goes back to the page it was on, with the word that it was sent
    r = staff.post(f"/staff/printing/settlement/{game}",
                   headers={"Referer": f"http://localhost/staff/games/{game}"})
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/staff/games/{game}")
    before = queue.status(db)["queued"]
    for path, body, status in (("/staff/printing/daily-report", {"day": "2026-13-40"}, 400),
                               ("/staff/printing/daily-report", {"day": 5}, 422),
                               ("/staff/printing/report-card/4", {"game_id": "x"}, 422),
                               ("/staff/printing/report-card/999", {}, 404),
                               ("/staff/printing/report-card/4", {"game_id": 999}, 404),
                               ("/staff/printing/report-card/5", {"game_id": game}, 400),
                               ("/staff/printing/settlement/999", {}, 404)):
        r = staff.post(path, json=body, headers=js)
        assert r.status_code == status, (path, r.get_json())
        assert r.get_json()["error"]["message"]
    live = play(db, "t2", [1, 2, 3, 4], G1[:2], None)
    r = staff.post(f"/staff/printing/settlement/{live}", headers=js)
    assert r.status_code == 409 and "まだ精算されていません" in r.get_json()["error"]["message"]
    assert queue.status(db)["queued"] == before   # refused: nothing queued


# --------------------------------------------------------------------------- the command
def test_receipt_print_worker_command_prints_to_a_network_printer(app, db, game, tmp_path):
    printer = Listener()
    try:
        cfg = tmp_path / "club.toml"
        cfg.write_text(f'db = "club.sqlite"\n[printer]\nkind = "network"\nhost = "127.0.0.1"\n'
                       f"port = {printer.port}\nwidth_mm = 80\n", encoding="utf-8")
        job_id = queue.enqueue(db, "daily_report", {"day": "2026-04-01"})
        out = subprocess.run(
            [sys.executable, "-m", "web", "print-worker", "--db", app.config["DATABASE"],
             "--config", str(cfg), "--once"], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert queue.job(db, job_id)["state"] == "done"
        (received,) = printer.wait(1)
        assert "日報".encode("cp932") in received
    finally:
        printer.close()
    bad = tmp_path / "bad.toml"
    bad.write_text('[printer]\nkind = "network"\nhost = "h"\nwidth_mm = 76\n', encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "web", "print-worker", "--db",
                          app.config["DATABASE"], "--config", str(bad), "--once"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "width_mm" in out.stderr and "Traceback" not in out.stderr


def test_receipt_demo_printer_writes_the_newest_receipt(app, db, game, tmp_path):
    from web.cli import _start_demo_printer

    worker = _start_demo_printer(app.config["DATABASE"], tmp_path)
    assert worker is not None
    try:
        job_id = queue.enqueue(db, "settlement", {"game_id": game})
        deadline = time.monotonic() + 20
        while queue.job(db, job_id)["state"] != "done" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert queue.job(db, job_id)["state"] == "done"
        assert "精算表".encode("cp932") in (tmp_path / "receipt.bin").read_bytes()
    finally:
        worker.stopping.set()


def test_receipt_without_a_printer_jobs_wait_and_the_console_says_why(app, db, staff, tmp_path):
    cfg = tmp_path / "club.toml"
    cfg.write_text('db = "club.sqlite"\n', encoding="utf-8")
    job_id = queue.enqueue(db, "daily_report", {"day": "2026-04-01"})
    out = subprocess.run([sys.executable, "-m", "web", "print-worker", "--db",
                          app.config["DATABASE"], "--config", str(cfg), "--once"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "[printer]" in out.stdout
    assert queue.job(db, job_id)["state"] == "queued"
    page = staff.get("/staff/printing").get_data(as_text=True)
    assert "プリンターが設定されていません" in page


def test_receipt_print_worker_is_one_per_club_and_needs_the_club_file(app, tmp_path):
    import fcntl

    cfg = tmp_path / "club.toml"
    cfg.write_text('[printer]\nkind = "file"\npath = "receipt.bin"\n', encoding="utf-8")
    path = app.config["DATABASE"]

    def worker(db: str):
        return subprocess.run([sys.executable, "-m", "web", "print-worker", "--db", db,
                               "--config", str(cfg), "--once"],
                              capture_output=True, text=True, timeout=120)

    with open(f"{path}-print.lock", "a") as held:       # a worker already runs
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        out = worker(path)
    assert out.returncode == 2 and "already running" in out.stderr
    out = worker(str(tmp_path / "missing.sqlite"))
    assert out.returncode == 2 and "no club database" in out.stderr
    assert not (tmp_path / "missing.sqlite").exists()
    assert worker(path).returncode == 0                 # the lock is free again
