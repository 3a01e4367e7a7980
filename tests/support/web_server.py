"""Run the web app as a real server process for browser, crash and load tests."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def process_tree(pid: int) -> list[int]:
    """A process and all its descendants, parents first."""
    kids: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                kids += [int(k) for k in f.read().split()]
    except FileNotFoundError:
        return []
    return [pid] + [p for k in kids for p in process_tree(k)]


class WebServer:
    """``python -m web serve`` on a free loopback port, plain http (insecure cookies unless
    ``insecure_cookies=False``: behind a TLS proxy)."""

    def __init__(self, db_path: str, log_path: str | None = None, port: int = 0,
                 args: tuple = (), insecure_cookies: bool = True):
        self.db_path = str(db_path)
        self.port = port
        self.args = tuple(args) + (("--insecure-cookies",) if insecure_cookies else ())
        self.log_path = log_path or (self.db_path + ".server.log")
        self.proc: subprocess.Popen | None = None
        self.url = ""

    def start(self, timeout: float = 30.0) -> "WebServer":
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "JANTAKU_SECRET_KEY": "e2e-test-secret",
               "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "web", "serve", "--db", self.db_path, "--host", "127.0.0.1",
             "--port", str(self.port), *self.args],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=self._log)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline().decode("utf-8", "replace")
            if not line and self.proc.poll() is not None:
                raise RuntimeError(f"web server exited with {self.proc.returncode}; "
                                   f"see {self.log_path}")
            m = re.search(r"(http://127\.0\.0\.1:\d+)", line)
            if m:
                self.url = m.group(1)
                self.port = int(self.url.rsplit(":", 1)[1])
                break
        else:
            raise RuntimeError("web server did not say where it listens")
        self._wait_healthy(deadline)
        return self

    def _wait_healthy(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/api/health", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("web server never answered /api/health")

    def processes(self) -> list[int]:
        """The server's processes: the one started and its children (its server processes)."""
        return process_tree(self.proc.pid) if self.proc and self.proc.poll() is None else []

    def kill(self) -> None:
        """SIGKILL to every server process: no cleanup, no flush, like a power cut."""
        if self.proc and self.proc.poll() is None:
            for pid in reversed(self.processes()):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self.proc and self.proc.stdout:
            self.proc.stdout.close()
        if getattr(self, "_log", None):
            self._log.close()
