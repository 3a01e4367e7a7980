"""The receipt printer from a phone, in real Chromium against ``python -m web serve``: the
daily report's print button queues the 日報, the print worker (here in the test's
process) prints it on a network printer that is a real TCP listener on loopback, and the
console's printer page shows it printed, in Japanese, without sideways scroll at 390 px."""

from __future__ import annotations

import threading

import pytest

from club.accounts import create_staff
from club.db import connect
from club.printing import config
from club.printing.worker import Worker
from tests.club.test_daily_report import DAY, build_day
from tests.support.browser import chromium, expect
from tests.support.web_server import WebServer
from tests.web.staff_support import no_horizontal_overflow
from tests.web.test_receipt import Listener

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    d = build_day(str(tmp_path_factory.mktemp("receipt-e2e") / "club.sqlite"))
    db = connect(d["path"])
    create_staff(db, "mika", "mahjong-club")
    db.conn.close()
    printer = Listener()
    worker = Worker(connect(d["path"]), config.from_mapping(
        {"kind": "network", "host": "127.0.0.1", "port": printer.port, "width_mm": 58}),
        poll_s=0.1, beat_s=0.5)
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    server = WebServer(d["path"]).start()
    yield {**d, "server": server, "printer": printer}
    server.stop()
    worker.stopping.set()
    thread.join(10)
    printer.close()


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def test_receipt_daily_report_printed_from_a_phone(browser, club):
    page = browser.new_context(viewport=PHONE, locale="ja-JP").new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(club["server"].url + "/staff/")
    page.fill("input[name=name]", "mika")
    page.fill("input[name=password]", "mahjong-club")
    page.click("button[type=submit]")
    page.wait_for_url("**/staff/")
    page.goto(f"{club['server'].url}/staff/report?day={DAY}")
    page.locator('[data-testid="report-receipt"]').click()
    page.wait_for_url(f"**/staff/report?day={DAY}")
    expect(page.locator("body")).to_contain_text("印刷を依頼しました")

    (received,) = club["printer"].wait(1)
    assert "日報".encode("cp932") in received and DAY.encode() in received

    page.goto(club["server"].url + "/staff/printing")
    expect(page.locator('[data-testid="printer-worker"]')).to_contain_text("印刷ワーカー稼働中")
    job = page.locator('[data-testid="print-jobs"] tr[data-state]').first
    expect(job).to_contain_text(f"日報 {DAY}")
    expect(job).to_contain_text("印刷済み")
    expect(page.locator('[data-testid="printer-queued"]')).to_have_text("0")
    text = page.locator("main, body").first.inner_text()
    assert "print." not in text and "Receipt printer" not in text
    no_horizontal_overflow(page)
    assert not errors
