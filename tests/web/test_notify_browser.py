"""The staff's notify page in a real headless Chromium against ``python -m web serve``:
reached from the console's menu, a staff member's contact set through the form (a bad
LINE id refused in words, then a good one), the outbox in words; Japanese first, English
on the switch, no sideways scroll on a 390 px phone."""

from __future__ import annotations

import pytest

from club import club_tables
from club.accounts import create_staff
from club.db import connect
from club.floor import calls
from tests.support.browser import chromium, expect, shot
from tests.support.web_server import WebServer
from tests.web.staff_support import no_horizontal_overflow
from web import create_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("notify-e2e") / "club.sqlite")
    create_app({"DATABASE": path, "SECRET_KEY": "x", "TESTING": True})
    db = connect(path)
    club_tables.save_table(db, "t1", "卓1", "nekohouse-4a")
    create_staff(db, "mika", "mahjong-club")
    db.conn.close()
    server = WebServer(path).start()
    yield {"path": path, "server": server}
    server.stop()


def test_notify_page_on_a_phone_sets_a_contact_and_shows_the_outbox(club):
    with chromium() as browser:
        page = browser.new_context(viewport=PHONE, locale="ja-JP").new_page()
        page.goto(club["server"].url + "/staff/")
        page.fill("input[name=name]", "mika")
        page.fill("input[name=password]", "mahjong-club")
        page.click("button[type=submit]")
        page.wait_for_url("**/staff/")
        page.get_by_role("link", name="通知", exact=True).click()
        page.wait_for_url("**/staff/notify")
        expect(page.locator("h1")).to_have_text("通知")
        expect(page.get_by_text("まだ通知はありません")).to_be_visible()
        form = page.locator("form[data-staff]").first
        form.locator("input[name=line_user_id]").fill("U-not-an-id")
        form.locator("input[name=on_duty]").check()
        form.get_by_role("button", name="保存").click()
        expect(page.get_by_role("alert").first).to_contain_text("LINEのユーザーID")
        no_horizontal_overflow(page)
        form = page.locator("form[data-staff]").first
        form.locator("input[name=line_user_id]").fill("U" + "d" * 32)
        form.locator("input[name=email]").fill("mika@example.jp")
        form.locator("input[name=on_duty]").check()
        form.get_by_role("button", name="保存").click()
        expect(page.get_by_text("mikaの連絡先を保存しました")).to_be_visible()
        db = connect(club["path"])
        try:
            calls.call(db, "t1", "score")
        finally:
            db.conn.close()
        page.reload()
        row = page.locator("table.outbox tr.outbox-queued")
        expect(row).to_contain_text("呼び出し")
        expect(row).to_contain_text("LINE")
        expect(page.locator(".outbox-counts")).to_have_text(
            "送信待ち 1件・送信済み 0件・失敗 0件")
        no_horizontal_overflow(page)
        shot(page, "staff-notify-phone")
        page.goto(club["server"].url + "/staff/notify?lang=en")
        expect(page.locator("h1")).to_have_text("Notifications")
        expect(page.locator("table.outbox tr.outbox-queued")).to_contain_text("Staff call")
        no_horizontal_overflow(page)
