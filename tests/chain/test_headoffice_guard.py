"""The head office's guards: it refuses to listen beyond loopback unless told it is
behind a proxy that signs people in, and it never signs cookies with a constant key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from web import server

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "ho.example.jp"])
def test_headoffice_refuses_to_listen_beyond_loopback(host: str,
                                                      headoffice_url: str) -> None:
    p = subprocess.run([sys.executable, "-m", "headoffice", "serve", "--db", headoffice_url,
                        "--host", host, "--port", "0"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    assert f"listen on {host} only behind a proxy" in p.stderr and "--behind-proxy" in p.stderr


@pytest.mark.parametrize("host,loop", [("127.0.0.1", True), ("localhost", True),
                                       ("::1", True), ("[::1]", True), ("127.0.0.2", True),
                                       ("0.0.0.0", False), ("10.0.0.1", False),
                                       ("example.jp", False)])
def test_headoffice_loopback_is_told_apart(host: str, loop: bool) -> None:
    assert server.loopback(host) is loop


def test_headoffice_session_key_is_made_once_and_never_constant(headoffice_url: str) -> None:
    from headoffice import create_app

    a = create_app(headoffice_url, testing=True)
    b = create_app(headoffice_url, testing=True)
    key = a.config["SECRET_KEY"]
    assert key == b.config["SECRET_KEY"]  # every process of one head office alike
    assert key != "headoffice" and len(key) >= 32
    assert create_app(headoffice_url, secret="given-" + "x" * 40,
                      testing=True).config["SECRET_KEY"] == "given-" + "x" * 40
