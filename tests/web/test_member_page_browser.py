"""A member walked from the desk to their own page in a real headless Chromium against
``python -m web serve``: staff print the member card, the card's QR code is the link it
carries, and the member's phone (390 px wide) opens it: their name, today's report card,
the R curve, no sideways scroll, both languages; screenshots under
``test-artifacts/screenshots/``."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
import segno

from club import club_tables, roster
from club.accounts import create_staff
from club.db import connect
from tests.support import browser as e2e
from tests.support.web_server import WebServer
from tests.web.staff_support import STAFF, no_horizontal_overflow, sign_in
from tests.web.test_leaderboard import G1, play
from web import create_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("member-e2e") / "club.sqlite")
    create_app({"DATABASE": path, "SECRET_KEY": "x", "TESTING": True, "COOKIE_SECURE": False})
    db = connect(path)
    try:
        create_staff(db, *STAFF)
        club_tables.save_table(db, "t1", "卓1", "nekohouse-4a")
        ids = [roster.add_player(db, n, member_no=f"M{i:03d}")["id"]
               for i, n in enumerate(("青木", "伊藤", "上田", "遠藤"), 1)]
        play(db, "t1", ids, G1, None)              # finished now: today's card has it
    finally:
        db.conn.close()
    srv = WebServer(path).start()
    yield {"url": srv.url, "ids": ids}
    srv.stop()


@pytest.fixture(scope="module")
def browser():
    with e2e.chromium() as b:
        yield b


def test_member_page_browser_from_the_card_qr_to_the_report_card(club, browser):
    desk = sign_in(browser, club, e2e.LANDSCAPE)
    member = club["ids"][0]
    desk.goto(f"{club['url']}/staff/players")
    desk.click(f'[data-testid="member-desk-{member}"]')
    e2e.expect(desk.locator('[data-testid="member-desk"]')).to_contain_text("青木")
    desk.click('[data-testid="member-card"]')
    card = desk.locator('[data-testid="member-card-print"]')
    e2e.expect(card).to_contain_text("M001")
    url = card.get_attribute("data-url")
    assert url and url.startswith(club["url"] + "/m/")
    # the QR code printed on the card is this link (with the chain member id after it as
    # the address's fragment, which a browser never sends), drawn as the desk draws QR codes
    chain_id = card.get_attribute("data-chain-id")
    code = f"{url}#{chain_id}" if chain_id else url
    drawn = desk.locator('[data-testid="card-qr"] svg').evaluate("e => e.outerHTML")
    expected = segno.make(code, error="m").svg_inline(border=2, omitsize=True)
    assert _svg_paths(drawn) == _svg_paths(expected)
    box = card.bounding_box()
    assert 300 < box["width"] < 340 and 190 < box["height"] < 215   # 85.6 x 54 mm at 96 dpi
    e2e.shot(desk, "member-card")
    assert not desk.js_errors

    ctx = browser.new_context(viewport=PHONE, locale="ja-JP")
    phone = ctx.new_page()
    phone.js_errors = []
    phone.on("pageerror", lambda e: phone.js_errors.append(str(e)))
    answer = phone.goto(code)                 # the phone follows what the QR code says
    assert answer.status == 200
    assert answer.headers["referrer-policy"] == "no-referrer"
    e2e.expect(phone.locator('[data-testid="member-name"]')).to_have_text("青木")
    report = phone.locator(f'[data-testid="member-report-card"] '
                           f'[data-testid="report-card-{member}"]')
    e2e.expect(report).to_be_visible()
    e2e.expect(report.locator('[data-testid="rc-games-today"]').first).to_have_text("1")
    assert phone.locator('[data-testid="member-rating-chart"] svg').bounding_box()["height"] > 50
    no_horizontal_overflow(phone)
    e2e.shot(phone, "member-page-390")

    phone.click(".lang-switch")
    e2e.expect(phone.locator("header .brand")).to_have_text("My page")
    no_horizontal_overflow(phone)
    e2e.shot(phone, "member-page-390-en")
    phone.click('[data-testid="member-settings-link"]')
    e2e.expect(phone.locator('[data-testid="member-pin-form"]')).to_be_visible()
    no_horizontal_overflow(phone)
    assert urlsplit(phone.url).path == urlsplit(url).path + "/settings"
    assert not phone.js_errors
    ctx.close()


def _svg_paths(svg: str) -> str:
    """The drawn part of an inline SVG QR code (the browser may re-serialise attributes)."""
    return svg.split(' d="', 1)[1].split('"', 1)[0]
