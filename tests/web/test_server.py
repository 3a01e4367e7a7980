"""``python -m web serve`` is a production server: waitress with a fixed pool of worker
threads, a cap on connections, no version banner."""

from __future__ import annotations

import os
import socket
import urllib.request

from tests.support.web_server import WebServer
from web.cli import SERVER_THREADS


def _threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def test_serve_has_no_banner_and_idle_connections_cost_no_threads(tmp_path):
    server = WebServer(str(tmp_path / "club.sqlite"), args=("--idle-timeout", "2")).start()
    idle: list[socket.socket] = []
    try:
        with urllib.request.urlopen(server.url + "/api/health", timeout=5) as r:
            assert r.status == 200
            assert r.headers.get("Server") is None
            assert "script-src 'self'" in r.headers["Content-Security-Policy"]
        before = _threads(server.proc.pid)
        assert before <= SERVER_THREADS + 4
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
