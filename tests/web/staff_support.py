"""Helpers of the staff console's tests: a club with the real ``tablectl`` daemon driving
simulated tables (``sim://``, inside the daemon's process, as in ``python -m web demo``)
and ``python -m web serve`` on the same database; Chromium and a signed-in page; a
signed-in test client."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from club import club_tables, roster
from club.accounts import create_staff
from club.db import connect
from tablectl import store
from tests.support.browser import chromium, expect
from tests.support.tablectl import DaemonProcess, wait_until, write_config
from tests.support.web_server import WebServer
from web import create_app

STAFF = ("mika", "mahjong-club")
MEMBERS = ("佐藤", "鈴木", "高橋", "田中", "伊藤", "渡辺", "山本", "中村", "小林", "加藤",
           "吉田", "山田")


def start_club(folder: Path, tables: dict[str, tuple[str, str, str]]) -> dict:
    """``tables``: id -> (name, rule set, sim URL options). Returns the running club."""
    db_path = str(folder / "jantaku.db")
    create_app({"DATABASE": db_path, "SECRET_KEY": "x", "TESTING": True})
    db = connect(db_path)
    try:
        create_staff(db, *STAFF)
        for tid, (name, rules, _url) in tables.items():
            club_tables.save_table(db, tid, name, rules, actor="test")
        ids = [roster.add_player(db, n, member_no=f"M{i:03d}")["id"]
               for i, n in enumerate(MEMBERS, 1)]
    finally:
        db.conn.close()
    cfg = write_config(folder, {tid: f"sim://{tid}?{opts}" for tid, (_n, _r, opts)
                                in tables.items()})
    daemon = DaemonProcess(cfg).start(wait_tables=tuple(tables))
    server = WebServer(db_path).start()
    return {"db": db_path, "daemon": daemon, "server": server, "url": server.url,
            "players": ids, "folder": folder}


def stop_club(club: dict) -> None:
    club["server"].stop()
    club["daemon"].stop()


def module_browser():
    """One headless Chromium for a test module: ``browser = pytest.fixture(scope="module",
    name="browser")(module_browser)`` in the module."""
    with chromium() as b:
        yield b


def sign_in(browser, club, viewport, lang="ja-JP", name=STAFF[0], password=STAFF[1]):
    """A new page signed in as staff, collecting script errors in ``page.js_errors``."""
    ctx = browser.new_context(viewport=viewport, locale=lang)
    page = ctx.new_page()
    page.js_errors = []
    page.on("pageerror", lambda e: page.js_errors.append(str(e)))
    page.goto(club["url"] + "/staff/")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url("**/staff/")
    return page


def staff_client(app, name=STAFF[0], password=STAFF[1]):
    """A Flask test client signed in as a staff account that exists in ``app``'s club."""
    c = app.test_client()
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    c.post("/auth/login", data={"name": name, "password": password, "csrf_token": token})
    return c


def no_horizontal_overflow(page) -> None:
    """The page never scrolls sideways: wide content scrolls inside its own box."""
    width = page.viewport_size["width"]
    overflow = page.locator("html").evaluate("e => e.scrollWidth")
    assert overflow <= width, f"{page.url}: {overflow} px wide in a {width} px window"


LINES_OF_TEXT = """e => { const r = document.createRange(); r.selectNodeContents(e);
  return new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top))).size; }"""
"""How many lines an element's text is laid out on (distinct tops of its text's boxes)."""


def text_lines(locator) -> list[int]:
    """The number of lines each element of ``locator`` lays its text out on."""
    return [locator.nth(i).evaluate(LINES_OF_TEXT) for i in range(locator.count())]


def table(db: str, tid: str) -> dict:
    return store.get_table(db, tid)


def wait_table(db: str, tid: str, pred, what: str, timeout: float = 20) -> dict:
    return wait_until(lambda: pred(table(db, tid)) and table(db, tid), timeout, what)


def cli(db: str, *argv) -> subprocess.CompletedProcess:
    """``tablectl`` as staff run it in a terminal (Japanese words)."""
    return subprocess.run([sys.executable, "-m", "tablectl", *argv, "--db", db, "--lang", "ja"],
                          capture_output=True, text=True, timeout=120)


def step(page, value: str, timeout: float = 15000) -> None:
    expect(page.locator('[data-testid="mode-step"]')).to_have_attribute(
        "data-step", value, timeout=timeout)
