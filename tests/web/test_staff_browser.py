"""The staff console in a real headless Chromium against ``python -m web serve``:
sign in with the form, the floor view refreshing itself from the daemon's store,
a mode change with the table's refusal shown, a tablet QR code, a rule-set error,
the English switch; screenshots at laptop and tablet size.
"""

from __future__ import annotations

import pytest

from club import club_tables
from club.accounts import create_staff
from club.db import connect
from tablectl import store
from tests.support.browser import chromium, expect, shot
from tests.support.tablectl import LiveHeartbeat
from tests.support.web_server import WebServer
from web import create_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("staff-e2e") / "club.sqlite")
    create_app({"DATABASE": path, "SECRET_KEY": "x", "TESTING": True})
    db = connect(path)
    create_staff(db, "mika", "mahjong-club")
    club_tables.save_table(db, "t1", "卓1", "nekohouse-4a")
    club_tables.save_table(db, "t2", "卓2", "nekohouse-3a")
    db.conn.close()
    j = store.Journal(path)
    j.register_tables([{"id": "t1", "name": "卓1", "url": "sim://"},
                       {"id": "t2", "name": "卓2", "url": "sim://"}])
    j.update_table("t1", connected=1, mode=1, cycle_state="idle", lid="closed", errors=[])
    j.update_table("t2", connected=1, mode=4, cycle_state="cycling", lid="closed", errors=[])
    j.close()
    with LiveHeartbeat(path, pid=1):
        server = WebServer(path).start()
        yield {"server": server, "db": path}
        server.stop()


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def signed_in(browser, club, viewport):
    ctx = browser.new_context(viewport=viewport, locale="ja-JP")
    page = ctx.new_page()
    page.js_errors = []
    page.on("pageerror", lambda e: page.js_errors.append(str(e)))
    page.goto(club["server"].url + "/staff/")
    assert "/auth/login" in page.url
    page.fill("input[name=name]", "mika")
    page.fill("input[name=password]", "mahjong-club")
    page.click("button[type=submit]")
    page.wait_for_url("**/staff/")
    return page


def test_floor_signs_in_polls_and_shows_refusal(browser, club):
    page = signed_in(browser, club, {"width": 1280, "height": 800})
    t1 = page.locator('[data-table="t1"]')
    assert "接続中" in t1.locator('[data-field="connected"]').text_content()
    assert t1.locator('[data-field="mode"]').text_content().strip() == "01 四人標準"
    shot(page, "staff-floor-landscape")
    # The daemon's state changes; the page picks it up on its own (2 s polling).
    j = store.Journal(club["db"])
    j.update_table("t1", connected=0, errors=["lid_open"], pending_mode=2)
    j.close()
    # lid_open, in words (a locator wait: the page's CSP allows no evaluated strings)
    expect(t1.locator('[data-field="errors"]')).to_contain_text("閉めてください", timeout=15000)
    assert "未接続" in t1.locator('[data-field="connected"]').text_content()
    assert "→ 02 四人花" in t1.locator('[data-field="mode"]').text_content()

    # Nobody runs the daemon here, so the request is queued and reported as waiting.
    t2 = page.locator('[data-table="t2"]')
    t2.locator('button[value="check"]').click()
    page.wait_for_url("**/staff/")
    assert "点検 送信待ち" in page.locator(".flash").first.text_content()
    # The mode has its guided page (what the drawers need), one click from the card.
    t2 = page.locator('[data-table="t2"]')
    t2.locator("select[name=mode]").select_option("05")
    t2.locator("form:has(select[name=mode]) button").click()
    page.wait_for_url("**/staff/tables/t2/mode?mode=05")
    assert page.locator('[data-testid="mode-target"]').text_content().startswith("05")
    assert page.js_errors == []


def test_tablet_qr_rule_error_and_english(browser, club):
    page = signed_in(browser, club, {"width": 800, "height": 1280})
    shot(page, "staff-floor-portrait")
    page.goto(club["server"].url + "/staff/tablets")
    page.select_option("select[name=table_id]", "t2")
    page.click("form[action$='/staff/tablets'] button")
    assert page.locator("#issued svg").count() == 1
    assert "/auth/pair?code=" in page.locator("[data-pair-url]").text_content()
    shot(page, "staff-tablet-qr-portrait")

    page.goto(club["server"].url + "/staff/rulesets")
    page.fill("input[name=id]", "ourclub")
    page.fill("textarea[name=toml]", 'extends = "netmahjong"\n[hand]\nnot_a_switch = 1\n')
    page.click("form[action$='/staff/rulesets'] button")
    assert "not_a_switch" in page.locator(".flash-error").text_content()
    # What was typed is still there to fix.
    assert "not_a_switch" in page.locator("textarea[name=toml]").input_value()

    page.goto(club["server"].url + "/staff/audit?lang=en")
    assert page.locator("h1").first.text_content().startswith("Audit log")
    assert "tablet.issue" in page.content()
    shot(page, "staff-audit-portrait")
    assert page.js_errors == []
