"""Shared fixtures for the web core/tablet tests: a real SQLite file per test,
a club with tables and members, and paired tablets."""

from __future__ import annotations

import time
import types
import uuid

import pytest

from club import club_tables, roster
from club.db import connect
from web import create_app
from web.security import TABLET_COOKIE, issue_tablet_token

MEMBERS = ["青木", "伊藤", "上田", "遠藤", "Ota"]


def key() -> str:
    return uuid.uuid4().hex


@pytest.fixture()
def app(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "club.sqlite"), "SECRET_KEY": "test",
                      "TESTING": True, "COOKIE_SECURE": False})
    db = connect(app.config["DATABASE"])
    club_tables.save_table(db, "t1", "卓1", "nekohouse-4a")
    club_tables.save_table(db, "t2", "卓2", "nekohouse-4a")
    club_tables.save_table(db, "t3", "卓3 三麻", "nekohouse-3a")
    for name in MEMBERS:
        roster.add_player(db, name)
    db.conn.close()
    return app


@pytest.fixture()
def db(app):
    conn = connect(app.config["DATABASE"])
    yield conn
    conn.conn.close()


def bearer(app, table_id: str) -> dict:
    """Headers of a tablet paired to ``table_id`` (Bearer: exempt from CSRF by design)."""
    db = connect(app.config["DATABASE"])
    try:
        return {"Authorization": "Bearer " + issue_tablet_token(db, table_id, label="test")}
    finally:
        db.conn.close()


def cookie_client(app, table_id: str):
    """A test client holding a paired tablet cookie (so CSRF applies)."""
    db = connect(app.config["DATABASE"])
    try:
        secret = issue_tablet_token(db, table_id, label="test")
    finally:
        db.conn.close()
    c = app.test_client()
    c.set_cookie(TABLET_COOKIE, secret)
    return c


@pytest.fixture()
def t1(app):
    return bearer(app, "t1")


def english(client):
    """A test client that asks for English answers (Accept-Language), as a script would."""
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "en"
    return client


@pytest.fixture()
def client(app):
    return english(app.test_client())


def start(client, headers, table="t1", players=(1, 2, 3, 4), **extra) -> dict:
    r = client.post(f"/api/tables/{table}/games", headers=headers,
                    json={"players": list(players), "idempotency_key": key(), **extra})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def record(client, headers, event, seq, table="t1", k=None, expect=201):
    r = client.post(f"/api/tables/{table}/hands", headers=headers,
                    json={"event": event, "expected_seq": seq, "idempotency_key": k or key()})
    assert r.status_code == expect, r.get_json()
    return r.get_json()


@pytest.fixture()
def still_clock(monkeypatch):
    """The sign-in and PIN throttles' wall clock stands still (a list: set ``[0]`` to move
    it). A wait of 2 s after the third failure is then still running at the next request
    however long a password or PIN check takes on a busy machine. The throttles read
    ``time.time()`` from their own modules; nothing else is touched."""
    from club import accounts, members

    now = [time.time()]
    frozen = types.SimpleNamespace(time=lambda: now[0], monotonic=time.monotonic,
                                   sleep=time.sleep)
    for module in (accounts, members):
        monkeypatch.setattr(module, "time", frozen)
    return now
