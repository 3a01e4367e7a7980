"""``python -m web serve`` is a production server: waitress with a fixed pool of worker
threads, a cap on connections, no version banner."""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
import types
import urllib.error
import urllib.request

import pytest

from tests.support.web_server import WebServer, process_tree
from web import server, signin
from web.server import SERVER_THREADS, WORKERS, SignInHold
from web.signin import sign_in_wait


def _threads(pid: int) -> int:
    """Threads of the server, all its processes together."""
    return sum(len(os.listdir(f"/proc/{p}/task")) for p in process_tree(pid))


def test_serve_has_no_banner_and_idle_connections_cost_no_threads(tmp_path):
    server = WebServer(str(tmp_path / "club.sqlite"), args=("--idle-timeout", "2")).start()
    idle: list[socket.socket] = []
    try:
        with urllib.request.urlopen(server.url + "/api/health", timeout=5) as r:
            assert r.status == 200
            assert r.headers.get("Server") is None
            assert "script-src 'self'" in r.headers["Content-Security-Policy"]
        processes = process_tree(server.proc.pid)
        # one server process per core under a parent that keeps them going (one core: one)
        assert len(processes) == (1 if WORKERS == 1 else 1 + WORKERS)
        # each process: its main thread, the sign-in hold's timer and the workers (a process
        # may still be starting them when the first one answers)
        started = (0 if WORKERS == 1 else 1) + WORKERS * (SERVER_THREADS + 2)
        deadline = time.monotonic() + 30
        while _threads(server.proc.pid) < started and time.monotonic() < deadline:
            time.sleep(0.05)
        before = _threads(server.proc.pid)
        assert before <= 1 + WORKERS * (SERVER_THREADS + 4)
        for _ in range(300):  # connections that never send a request
            idle.append(socket.create_connection(("127.0.0.1", server.port), timeout=10))
        with urllib.request.urlopen(server.url + "/api/health", timeout=10) as r:
            assert r.status == 200  # still answering
        assert _threads(server.proc.pid) == before  # no thread per connection
        assert idle[0].recv(1) == b""  # and an idle one is closed after the timeout
    finally:
        for s in idle:
            s.close()
        server.stop()
    assert oct((tmp_path / "club.sqlite").stat().st_mode & 0o777) == "0o600"


# --------------------------------------------------------------------------- server processes
def _health(url: str) -> int:
    with urllib.request.urlopen(url + "/api/health", timeout=30) as r:
        return r.status


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


def test_a_server_process_that_dies_is_replaced_and_the_server_keeps_answering(tmp_path):
    server = WebServer(str(tmp_path / "club.sqlite"), args=("--workers", "2")).start()
    try:
        parent, *workers = server.processes()
        assert len(workers) == 2
        os.kill(workers[0], signal.SIGKILL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            now = server.processes()[1:]
            if len(now) == 2 and workers[0] not in now:
                break
            time.sleep(0.05)
        assert len(now) == 2 and workers[0] not in now and workers[1] in now
        assert all(_health(server.url) == 200 for _ in range(20))
    finally:
        server.stop()
    assert not _alive(parent) and not any(_alive(p) for p in now)


def test_the_server_processes_end_with_their_parent_however_it_ends(tmp_path):
    server = WebServer(str(tmp_path / "club.sqlite"), args=("--workers", "2")).start()
    parent, *workers = server.processes()
    try:
        os.kill(parent, signal.SIGKILL)  # not a stop: no chance to stop its processes
        server.proc.wait(10)
        deadline = time.monotonic() + 30
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(p) for p in workers)
        with pytest.raises(OSError):
            _health(server.url)  # nobody is left serving the port
    finally:
        server.kill()
        server.stop()


# --------------------------------------------------------------------------- sign-ins held back
class _Channel:
    """What the dispatcher reads of a waitress channel: its client address and its
    pending requests."""

    def __init__(self, address: str, command: str = "POST", path: str = "/auth/login"):
        self.addr = (address, 40000)
        self.requests = [types.SimpleNamespace(command=command, path=path)]

    def service(self):
        pass

    def cancel(self):
        self.requests = []


def _dispatcher(must_wait, **kw) -> SignInHold:
    hold = SignInHold(must_wait, **kw)
    hold.set_thread_count(0)  # nothing takes tasks from the queue: it can be inspected
    return hold


def test_a_sign_in_that_must_wait_is_held_without_a_worker_and_others_go_straight_on():
    hold = _dispatcher(lambda address: 30 if address == "10.0.0.9" else 0, hold_s=60)
    try:
        hold.add_task(_Channel("10.0.0.9"))  # must wait: held
        hold.add_task(_Channel("10.0.0.8"))  # may try: to the workers
        hold.add_task(_Channel("10.0.0.9", "POST", "/api/tables/t1/hands"))  # not a sign-in
        hold.add_task(_Channel("10.0.0.9", "GET", "/auth/login"))  # the form, not a try
        assert hold.held() == 1
        assert len(hold.queue) == 3
    finally:
        hold.shutdown(timeout=5)
    assert hold.held() == 0  # cancelled with the queued ones at shutdown


def test_behind_the_proxy_a_sign_in_is_held_by_the_address_the_proxy_names():
    """From the trusted proxy the hold asks about the last X-Forwarded-For hop (the address
    the app and its throttle see); from anyone else, about the connection's own address."""
    asked: list[str] = []

    def must_wait(address):
        asked.append(address)
        return 30 if address == "192.0.2.7" else 0

    hold = _dispatcher(must_wait, hold_s=60, trusted_proxy="127.0.0.1")
    try:
        proxied = _Channel("127.0.0.1")
        proxied.requests[0].headers = {"X_FORWARDED_FOR": "10.9.9.9, 192.0.2.7"}
        hold.add_task(proxied)
        forged = _Channel("10.0.0.5")  # not the proxy: its header is not believed
        forged.requests[0].headers = {"X_FORWARDED_FOR": "192.0.2.7"}
        hold.add_task(forged)
        assert asked == ["192.0.2.7", "10.0.0.5"]
        assert hold.held() == 1 and len(hold.queue) == 1
    finally:
        hold.shutdown(timeout=5)


def test_one_address_holds_a_bounded_number_of_sign_ins():
    hold = _dispatcher(lambda address: 30, hold_s=60, per_address=2)
    try:
        for _ in range(5):
            hold.add_task(_Channel("10.0.0.9"))
        hold.add_task(_Channel("10.0.0.7"))
        assert hold.held() == 3  # two from .9, one from .7
        assert len(hold.queue) == 3  # the rest answered at once (their refusal is cheap)
    finally:
        hold.shutdown(timeout=5)


def test_a_held_sign_in_goes_on_when_its_time_is_up():
    hold = _dispatcher(lambda address: 30, hold_s=0.05)
    try:
        hold.add_task(_Channel("10.0.0.9"))
        deadline = time.monotonic() + 30
        while not hold.queue and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(hold.queue) == 1 and hold.held() == 0
    finally:
        hold.shutdown(timeout=5)


def test_the_real_server_answers_others_while_a_sign_in_is_held(tmp_path):
    """One worker thread: while an address that must wait has a sign-in held, a tablet's
    request is still answered (the hold takes no worker), and the held sign-in is answered
    once the hold ends."""
    from web.cli import build_app

    app = build_app(str(tmp_path / "club.sqlite"), secure_cookies=False, secret="k")
    httpd = server.listen(server.bind("127.0.0.1", 0), app, threads=1, hold_s=60,
                          must_wait=lambda address: sign_in_wait(app, address))
    runner = threading.Thread(target=httpd.run, daemon=True)
    runner.start()
    url = f"http://127.0.0.1:{httpd.effective_port}"
    answers: list[int] = []

    def sign_in():
        req = urllib.request.Request(url + "/auth/login", data=b'{"name":"x","password":"y"}',
                                     headers={"Content-Type": "application/json"})
        try:
            urllib.request.urlopen(req, timeout=120)
        except urllib.error.HTTPError as e:
            answers.append(e.code)
        except OSError:
            answers.append(0)  # dropped at shutdown

    try:
        signin.guard(app).waits.note(
            "127.0.0.1", time.time() + 600)
        trying = threading.Thread(target=sign_in, daemon=True)
        trying.start()
        deadline = time.monotonic() + 30
        while httpd.task_dispatcher.held() == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert httpd.task_dispatcher.held() == 1
        with urllib.request.urlopen(url + "/api/health", timeout=30) as r:
            assert r.status == 200
        assert httpd.task_dispatcher.held() == 1 and answers == []  # still held
    finally:
        httpd.close()
        httpd.task_dispatcher.shutdown(timeout=5)
    trying.join(30)
    assert answers in ([0], [])  # never reached a worker: dropped with its connection


# --------------------------------------------------------------------------- hostile clients
HALF_OPEN = b"POST /api/tables/t1/hands HTTP/1.1\r\nHost: club\r\nContent-Length: 80\r\n"


def _raw(port: int, data: bytes) -> bytes:
    """Send bytes as they are and read the answer until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(data)
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
        except ConnectionResetError:
            pass  # closed with the rest of our bytes unread: the answer came first
        return out


def test_half_open_connections_neither_keep_clients_out_nor_stay_open(tmp_path):
    """More half-open connections (a request line and headers, never the blank line) than
    the server's connection limit: a real client is still served, and a half-open
    connection is closed once its request timeout has passed."""
    server = WebServer(str(tmp_path / "club.sqlite"), args=(
        "--workers", "1", "--connection-limit", "20", "--request-timeout", "2")).start()
    held: list[socket.socket] = []
    try:
        for _ in range(40):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=30)
            s.sendall(HALF_OPEN)
            held.append(s)
        with urllib.request.urlopen(server.url + "/api/health", timeout=30) as r:
            assert r.status == 200
        # the oldest made way for newer ones, the newest is cut off after its timeout
        assert held[0].recv(1) == b"" and held[-1].recv(1) == b""
        with urllib.request.urlopen(server.url + "/api/health", timeout=30) as r:
            assert r.status == 200
    finally:
        for s in held:
            s.close()
        server.stop()


def test_a_body_over_the_limit_is_refused_in_words_before_it_is_read(tmp_path):
    """The server refuses a Content-Length over the largest body any route takes without
    waiting for the body (none is sent here), and a chunked body once it passes it; the
    answer says which limit, as JSON for the API and a page in the caller's language."""
    server = WebServer(str(tmp_path / "club.sqlite"), args=("--workers", "1")).start()
    try:
        answer = _raw(server.port, b"POST /api/tables/t1/hands HTTP/1.1\r\nHost: club\r\n"
                                   b"Accept-Language: en\r\nContent-Length: 1000000000\r\n\r\n")
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 413") and b"application/json" in head
        error = json.loads(body)["error"]
        assert error == {"code": "request_entity_too_large", "message":
                         "The request body is too large: this server takes at most 256 KB"}
        answer = _raw(server.port, b"POST /staff/players HTTP/1.1\r\nHost: club\r\n"
                                   b"Accept: text/html\r\nContent-Length: 300000\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 413") and b"text/html" in answer
        page = answer.decode()
        assert "256 KB" in page and "Request Entity" not in page and "waitress" not in page
        chunk = b"10000\r\n" + b"x" * 0x10000 + b"\r\n"
        answer = _raw(server.port, b"POST /api/health HTTP/1.1\r\nHost: club\r\n"
                                   b"Accept-Language: en\r\nTransfer-Encoding: chunked\r\n\r\n"
                      + chunk * 5 + b"0\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 413") and b"at most 256 KB" in answer
        # a route that ignores its body still refuses one over its own limit
        answer = _raw(server.port, b"GET /api/health HTTP/1.1\r\nHost: club\r\n"
                                   b"Connection: close\r\nAccept-Language: en\r\n"
                                   b"Content-Length: 100000\r\n\r\n"
                      + b"y" * 100000)
        assert answer.startswith(b"HTTP/1.1 413") and b"at most 64 KB" in answer
        answer = _raw(server.port, b"GET /api/health HTTP/1.1\r\nHost: club\r\nX-Big: "
                      + b"z" * 20000 + b"\r\n\r\n")
        assert b" 431 " in answer.split(b"\r\n", 1)[0] and "16 KB" in answer.decode()
        with urllib.request.urlopen(server.url + "/api/health", timeout=30) as r:
            assert r.status == 200
    finally:
        server.stop()


def test_a_request_waiting_for_100_continue_behind_another_gets_it(tmp_path):
    """Two requests in one send, the second asking for "100 Continue": a worker sends
    it once the first is answered, and the event loop must then write it."""
    server = WebServer(str(tmp_path / "club.sqlite"), args=("--workers", "1")).start()
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
            s.sendall(b"GET /api/health HTTP/1.1\r\nHost: club\r\n\r\n"
                      b"GET /api/health HTTP/1.1\r\nHost: club\r\nExpect: 100-continue\r\n"
                      b"Content-Length: 2\r\n\r\n")
            data = b""
            while b"100 Continue" not in data:
                chunk = s.recv(4096)
                assert chunk, data
                data += chunk
            s.sendall(b"{}")
            while data.count(b"HTTP/1.1 200") < 2:
                chunk = s.recv(4096)
                assert chunk, data
                data += chunk
    finally:
        server.stop()
