"""The one-command demo: ``python -m web demo`` as a real subprocess.

It must print the staff and tablet addresses, serve the staff console over
HTTP, show four simulated tables connected through the real ``tablectl``
daemon, carry out a mode change asked from the console, pair a tablet from a
printed address, and stop cleanly on Ctrl-C leaving no process behind.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def _reader(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _read_until(lines: queue.Queue, marker: str, timeout: float) -> list[str]:
    got, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            continue
        if line is None:
            break
        got.append(line)
        if marker in line:
            return got
    raise AssertionError("the demo did not print its addresses; it printed:\n" + "".join(got))


class Browser:
    """A cookie-keeping HTTP client (the demo sends cookies without Secure on loopback)."""

    def __init__(self, base: str):
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def request(self, path: str, data: bytes | None = None, headers: dict | None = None):
        req = urllib.request.Request(self.base + path, data=data, headers=headers or {})
        try:
            with self.opener.open(req, timeout=30) as r:
                return r.status, r.read().decode("utf-8"), r.geturl()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode("utf-8"), e.geturl()

    def json(self, path: str, body: dict | None = None):
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            headers.update({"Content-Type": "application/json", "X-CSRF-Token": self.csrf()})
            data = json.dumps(body).encode()
        status, text, _ = self.request(path, data, headers)
        return status, json.loads(text)

    def csrf(self) -> str:
        return json.loads(self.request("/auth/csrf")[1])["csrf_token"]

    def form(self, path: str, fields: dict):
        from urllib.parse import urlencode
        fields = {**fields, "csrf_token": self.csrf()}
        return self.request(path, urlencode(fields).encode(),
                            {"Content-Type": "application/x-www-form-urlencoded"})


def _wait_for(check, timeout: float, what: str):
    deadline, last = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        ok, last = check()
        if ok:
            return last
        time.sleep(0.25)
    raise AssertionError(f"{what} did not happen; last seen: {last}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_demo_runs_the_whole_club_and_stops_cleanly(tmp_path):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "web", "demo", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=tmp_path, env=env)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
    daemon_pid = None
    try:
        out = "".join(_read_until(lines, "Press Ctrl-C", timeout=60))
        staff_url = re.search(r"staff console: (http://\S+)/staff/", out).group(1)
        daemon_pid = int(re.search(r"\(pid (\d+),", out).group(1))
        folder = Path(re.search(r"data folder:\s+(\S+)", out).group(1))
        tablet_urls = dict(re.findall(r"tablet (t\d):\s+(http://\S+)", out))
        assert sorted(tablet_urls) == ["t1", "t2", "t3", "t4", "t5"]  # t5: the stock table
        assert "staff / mahjong-club" in out

        staff = Browser(staff_url)
        status, page, url = staff.request("/staff/")
        assert status == 200 and "/auth/login" in url and "csrf_token" in page
        status, _, url = staff.form("/auth/login", {"name": "staff", "password": "mahjong-club"})
        assert status == 200 and url.endswith("/staff/")

        def four_connected():
            status, floor = staff.json("/staff/floor.json")
            conn = {t["table_id"]: t["connected"] for t in floor.get("tables", [])}
            return status == 200 and len(conn) == 5 and all(conn.values()), floor
        floor = _wait_for(four_connected, 60, "five tables connected via the daemon")
        assert floor["daemon"]["running"]
        modes = {t["table_id"]: t["mode"] for t in floor["tables"] if t["table_id"] != "t5"}
        assert len(set(modes.values())) == 4, modes  # four simulated tables, four modes

        # A mode the table cannot take as it stands (t1 has four point sticks, sanma needs
        # three) is refused by the table itself, and the console shows its words.
        status, answer = staff.json("/staff/tables/t1/command", {"command": "mode", "mode": 4})
        assert status == 409, answer
        assert answer["command"]["status"] == "failed" and answer["error"]["message"]

        new_mode = 2 if modes["t1"] != 2 else 1
        status, answer = staff.json("/staff/tables/t1/command",
                                    {"command": "mode", "mode": new_mode,
                                     "idempotency_key": "demo-test-1"})
        assert status in (200, 202), answer

        def t1_state():
            _, floor = staff.json("/staff/floor.json")
            return next(t for t in floor["tables"] if t["table_id"] == "t1")

        # An AMOS table takes a new mode at its next cycle (002 自動卓設定表): first it is
        # pending, then a cycle run from the console applies it.
        _wait_for(lambda: (t1_state()["pending_mode"] == new_mode, t1_state()), 60,
                  f"t1 accepting mode {new_mode} as pending")
        status, answer = staff.json("/staff/tables/t1/command",
                                    {"command": "cycle", "idempotency_key": "demo-test-2"})
        assert status in (200, 202), answer
        _wait_for(lambda: (t1_state()["mode"] == new_mode, t1_state()), 60,
                  f"t1 switching to mode {new_mode} after a cycle")

        tablet = Browser(staff_url)
        status, page, _ = tablet.request(tablet_urls["t1"].replace(staff_url, ""))
        assert status == 200
        code = re.search(r'name="code" value="([^"]+)"', page).group(1)
        status, page, url = tablet.form("/auth/pair", {"code": code})
        assert status == 200 and url.endswith("/tablet/t1")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise AssertionError("the demo did not stop on Ctrl-C") from None
        if daemon_pid is not None and _alive(daemon_pid):
            os.kill(daemon_pid, signal.SIGKILL)
            raise AssertionError("the table daemon was left running after the demo stopped")
    assert code == 0
    assert not folder.exists()  # the temporary data folder is removed


def test_demo_refuses_a_folder_that_already_has_a_database(tmp_path):
    (tmp_path / "jantaku.sqlite").write_bytes(b"")
    r = subprocess.run([sys.executable, "-m", "web", "demo", "--port", "0", "--dir",
                        str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "already exists" in r.stderr and "Traceback" not in r.stderr


def test_serve_prints_its_address_and_stops_on_sigterm(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "web", "serve", "--db",
                             str(tmp_path / "club.sqlite"), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
    try:
        out = "".join(_read_until(lines, "Serving on", timeout=60))
        base = re.search(r"Serving on (http://\S+)/", out).group(1)
        status, body = Browser(base).json("/api/health")
        assert status == 200
    finally:
        proc.terminate()
        assert proc.wait(timeout=30) == 0
    assert (tmp_path / "club.sqlite.secret").exists()


def test_create_staff_from_stdin_then_sign_in(tmp_path):
    """Names are normalised once (NFKC + casefold): full-width and accented names sign in."""
    db = str(tmp_path / "club.sqlite")

    def create(name, password, *extra):
        return subprocess.run([sys.executable, "-m", "web", "create-staff", name, "--db", db,
                               "--password-stdin", *extra], input=password + "\n",
                              capture_output=True, text=True, timeout=60)

    r = create("ＭＩＫＡ", "tsumo-ron-10")
    assert r.returncode == 0, r.stderr
    assert "created" in r.stdout
    again = create("mika", "tsumo-ron-10")
    assert again.returncode == 2 and "already a staff account" in again.stderr
    weak = create("ken", "abc")
    assert weak.returncode == 2 and "10 to 200 characters" in weak.stderr
    assert create("Émilie", "riichi-ippatsu", "--role", "manager").returncode == 0
    bad = create("ken\x07", "riichi-ippatsu")
    assert bad.returncode == 2 and "control characters" in bad.stderr
    from web.cli import build_app
    app = build_app(db)
    assert oct(os.stat(db).st_mode & 0o777) == "0o600"
    for name, password in (("mika", "tsumo-ron-10"), ("Ｍｉｋａ", "tsumo-ron-10"),
                           ("ÉMILIE", "riichi-ippatsu"), ("e\u0301milie", "riichi-ippatsu")):
        client = app.test_client()
        token = client.get("/auth/csrf").get_json()["csrf_token"]
        r = client.post("/auth/login", data={"name": name, "password": password,
                                             "csrf_token": token})
        assert r.status_code == 302, name


def test_every_cli_command_has_help_and_docs():
    import web.cli
    from tests.support.web_server import ROOT
    from web.cli import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    docs = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md"))
    assert {"serve", "create-staff", "backup", "restore", "demo", "export", "leaderboard",
            "club-day"} <= set(sub.choices)
    for name, p in sub.choices.items():
        assert p.format_help().strip(), name
        assert f"python -m web {name}" in web.cli.__doc__ + docs, f"{name} is not documented"
        for action in p._actions:
            assert action.help, f"{name} {action.dest} has no help"


def test_serve_on_a_taken_port_says_what_to_do(tmp_path):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "web", "serve", "--db",
                            str(tmp_path / "c.sqlite"), "--port", str(port)],
                           capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--port" in r.stderr and "Traceback" not in r.stderr


def test_systemd_unit_runs_a_command_the_cli_accepts():
    import shlex

    from web.cli import build_parser
    root = Path(__file__).resolve().parents[2]
    unit = (root / "deploy" / "jantaku-web.service").read_text(encoding="utf-8")
    exec_start = next(line.split("=", 1)[1] for line in unit.splitlines()
                      if line.startswith("ExecStart="))
    argv = shlex.split(exec_start)
    assert argv[1:3] == ["-m", "web"]
    args = build_parser().parse_args(argv[3:])
    assert args.command == "serve" and args.db and not args.insecure_cookies
    assert "python -m web demo" in (root / "deploy" / "README.md").read_text(encoding="utf-8")


def test_demo_sticks_follow_the_recorded_scores_and_sessions_survive_a_restart(tmp_path):
    """In the demo the simulated players pay with point sticks as the hands are recorded, so
    the table's reading matches the tablet's scores; sticks made wrong on purpose show the
    difference. The session key is kept in the demo's folder: the web app restarted on the
    same folder still takes the tablet's session and its CSRF token."""
    folder = tmp_path / "demo"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("JANTAKU_SECRET_KEY", None)
    proc = subprocess.Popen([sys.executable, "-m", "web", "demo", "--port", "0", "--dir",
                             str(folder)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, cwd=tmp_path, env=env)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
    try:
        out = "".join(_read_until(lines, "Press Ctrl-C", timeout=60))
        base = re.search(r"staff console: (http://\S+)/staff/", out).group(1)
        pair_url = re.search(r"tablet t1:\s+(http://\S+)", out).group(1)
        tablet = Browser(base)
        page = tablet.request(pair_url.replace(base, ""))[1]
        code = re.search(r'name="code" value="([^"]+)"', page).group(1)
        assert tablet.form("/auth/pair", {"code": code})[0] == 200
        status, answer = tablet.json("/api/tables/t1/games", {
            "players": [1, 2, 3, 4], "idempotency_key": "demo-sticks-start"})
        assert status == 201, answer

        def reading():
            r = tablet.json("/api/tables/t1")[1]
            return r["reading"] or {}, r["game"]["state"]["scores"]

        def matches():
            got, scores = reading()
            return bool(got.get("points")) and got["points"][:4] == scores \
                and not got["mismatch"], got
        _wait_for(matches, 60, "the sticks holding the starting points")
        ron = {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "from": 0}
        status, answer = tablet.json("/api/tables/t1/hands", {
            "event": ron, "expected_seq": 1, "idempotency_key": "demo-sticks-1"})
        assert status == 201, answer
        got = _wait_for(matches, 30, "the sticks following the recorded hand")
        assert got["points"][:2] == [21100, 28900]
        # a test makes them wrong on purpose: only then the difference shows
        (folder / "sticks-t1.json").write_text('{"points": [21100, 27900, 25000, 26000]}')
        _wait_for(lambda: (reading()[0].get("mismatch") is True, reading()[0]), 30,
                  "the difference showing")
        assert (folder / "jantaku.sqlite.secret").exists()
        csrf = tablet.csrf()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    # the web app alone, restarted on the demo's folder, keeps the tablet's session
    server = subprocess.Popen([sys.executable, "-m", "web", "serve", "--db",
                               str(folder / "jantaku.sqlite"), "--port", "0",
                               "--insecure-cookies"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, env=env)
    lines = queue.Queue()
    threading.Thread(target=_reader, args=(server.stdout, lines), daemon=True).start()
    try:
        out = "".join(_read_until(lines, "Serving on", timeout=60))
        tablet.base = re.search(r"Serving on (http://\S+)/", out).group(1)
        headers = {"Accept": "application/json", "Content-Type": "application/json",
                   "X-CSRF-Token": csrf}
        body = json.dumps({"event": {"event": "draw", "tenpai": [0]}, "expected_seq": 2,
                           "idempotency_key": "demo-sticks-2"}).encode()
        status, text, _ = tablet.request("/api/tables/t1/hands", body, headers)
        assert status == 201, text
    finally:
        server.terminate()
        server.wait(timeout=30)
