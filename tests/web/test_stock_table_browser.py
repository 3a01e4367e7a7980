"""The demo's stock table in real Chromium: ``python -m web demo`` as a real subprocess,
its table t5 a simulated stock AMOS JP-EX behind the simulated bridge (``jpex-panel``).

The guided mode change 01 -> 05 the rulebook's way: the driver does not know the
number, staff read it on the display and press it; the table is switched off; the
reader finds a drawer with the wrong amount and says so, seat and amounts; with the
right sticks the driver goes on by itself (power on, selection, steps, reset) and the
simulated display shows 05. Then the calibration finds a press the table missed.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from tests.support.browser import SHOTS, expect, shot
from tests.web.staff_support import module_browser, no_horizontal_overflow, step, text_lines

pytestmark = [pytest.mark.browser, pytest.mark.slow]
browser = pytest.fixture(scope="module", name="browser")(module_browser)

LAPTOP, PHONE = {"width": 1024, "height": 768}, {"width": 390, "height": 844}
THREE = [35000, 35000, 35000, None]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stock-demo") / "club"
    proc = subprocess.Popen([sys.executable, "-m", "web", "demo", "--port", "0",
                             "--dir", str(folder)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines: queue.Queue = queue.Queue()

    def read():
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    out, deadline = [], time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            continue
        if line is None:
            break
        out.append(line)
        if "Press Ctrl-C" in line:
            break
    text = "".join(out)
    assert "Press Ctrl-C" in text, text
    assert "tablet t5:" in text and "stock table" in text, text
    url = re.search(r"staff console: (http://\S+)/staff/", text).group(1)
    try:
        yield {"url": url, "folder": folder, "db": str(folder / "jantaku.sqlite")}
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            assert proc.wait(timeout=60) == 0
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise AssertionError("the demo did not stop on Ctrl-C") from None


def seen(demo) -> dict:
    """What the simulated table shows (its state file)."""
    return json.loads((demo["folder"] / "stock-t5.json").read_text(encoding="utf-8"))


def control(demo, **order) -> None:
    """What staff do by hand at the table: the drawers, a fault (the control file)."""
    path = demo["folder"] / "sticks-t5.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(order), encoding="utf-8")
    os.replace(tmp, path)


def until(check, what: str, timeout: float = 20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"{what} did not happen")


def signed_in(browser, demo, viewport, lang="ja-JP"):
    ctx = browser.new_context(viewport=viewport, locale=lang)
    page = ctx.new_page()
    page.js_errors = []
    page.on("pageerror", lambda e: page.js_errors.append(str(e)))
    page.goto(demo["url"] + "/staff/")
    page.fill("input[name=name]", "staff")
    page.fill("input[name=password]", "mahjong-club")
    page.click("button[type=submit]")
    page.wait_for_url("**/staff/")
    return page


def test_stock_table_changes_01_to_05_and_calibration_finds_a_missed_press(browser, demo):
    page = signed_in(browser, demo, LAPTOP)
    card = page.locator('[data-table="t5"]')
    expect(card).to_contain_text("卓5")
    expect(card.locator('[data-field="connected"]')).to_have_text("接続中", timeout=20000)
    expect(card.locator('[data-testid="panel-unknown-t5"]')).to_contain_text("表示番号不明")
    card.scroll_into_view_if_needed()
    card.screenshot(path=str(SHOTS / "stock-floor-card-1024.png"))
    card.locator("select[name=mode]").select_option("05")
    card.locator('[data-testid="mode-guide-t5"]').click()
    page.wait_for_url("**/staff/tables/t5/mode?mode=05")

    # the driver cannot see the display: it says so, and asks for the number
    step(page, "unknown")
    expect(page.locator('[data-testid="panel-blind"]')).to_contain_text("表示が見えず")
    expect(page.locator('[data-testid="panel-shown"]')).to_have_text("不明")
    assert seen(demo)["display"] == "01"
    shot(page, "stock-mode-unknown-1024")
    page.click('[data-testid="panel-from-01"]')

    # switched off for the sticks; the reader watches the drawers
    step(page, "sticks_wait")
    until(lambda: seen(demo)["display"] == "", "the table switched off")
    control(demo, sticks=[17000, 35000, 35000, None])
    expect(page.locator('[data-testid="drawer-0"]')).to_have_attribute("data-ok", "0",
                                                                      timeout=15000)
    expect(page.locator('[data-testid="mode-step"]')).to_contain_text("17,000点あります")
    expect(page.locator('[data-testid="mode-step"]')).to_contain_text("35,000点にしてください")
    for s in (1, 2, 3):
        expect(page.locator(f'[data-testid="drawer-{s}"]')).to_have_attribute("data-ok", "1")
    time.sleep(1.5)
    assert seen(demo)["display"] == "", "the change went on with 17,000 in a 35,000 drawer"
    shot(page, "stock-mode-sticks-1024")

    control(demo, sticks=THREE)
    step(page, "on", timeout=30000)
    expect(page.locator('[data-testid="mode-step"]')).to_contain_text("05 か確認してください")
    state = until(lambda: (s := seen(demo))["display"] == "05" and s, "the display at 05")
    assert state["ready"] and not state["selecting"] and state["missed"] == 0
    shot(page, "stock-mode-on-1024")
    assert page.js_errors == []

    page.goto(demo["url"] + "/staff/")
    expect(card.locator('[data-field="mode"]')).to_contain_text("05 3人花")
    expect(card.locator('[data-field="mode"]')).to_contain_text("推定")
    page.goto(demo["url"] + "/staff/tables/t5/mode?mode=05")

    # calibration: the table misses the next press, and the page says so in words
    page.click('[data-testid="panel-calibrate-link"]')
    page.wait_for_url("**/staff/tables/t5/calibrate")
    expect(page.locator('[data-testid="cal-shown"]')).to_have_text("05")
    control(demo, sticks=THREE, miss=1)
    time.sleep(0.5)                                  # the simulator reads its control file
    page.click('[data-testid="cal-seen-05"]')
    expect(page.locator('[data-testid="cal-expected"]')).to_have_text("06", timeout=15000)
    assert seen(demo)["display"] == "05" and seen(demo)["missed"] == 1
    page.click('[data-testid="cal-seen-05"]')
    last = page.locator('[data-testid="cal-last"]')
    expect(last).to_have_attribute("data-missed", "1", timeout=15000)
    expect(last).to_contain_text("表示は 05 で、06 のはずでした")
    expect(page.locator('[data-testid="cal-mismatches"]')).to_contain_text("押下を読み落としました")
    shot(page, "stock-calibrate-missed-1024")
    no_horizontal_overflow(page)
    assert page.js_errors == []

    # bad input: words, nothing sent
    token = page.locator('meta[name="csrf-token"]').get_attribute("content")
    head = {"X-CSRF-Token": token, "Accept": "application/json"}
    r = page.request.post(demo["url"] + "/staff/tables/t5/calibrate", headers=head,
                          data={"seen": "9x"})
    assert r.status == 400 and "9x" in r.json()["error"]["message"], r.text()
    r = page.request.post(demo["url"] + "/staff/tables/t1/calibrate", headers=head,
                          data={"seen": "01"})
    assert r.status == 409 and "校正はありません" in r.json()["error"]["message"], r.text()

    # the same pages on a phone, in English too: no English on the Japanese ones
    phone = signed_in(browser, demo, PHONE)
    for path, name in (("/staff/tables/t5/mode?mode=05", "stock-mode"),
                       ("/staff/tables/t5/calibrate", "stock-calibrate"),
                       ("/staff/", "stock-floor")):
        phone.goto(demo["url"] + path)
        no_horizontal_overflow(phone)
        shot(phone, f"{name}-390")
    english = signed_in(browser, demo, LAPTOP, lang="en-US")
    english.goto(demo["url"] + "/staff/tables/t5/calibrate")
    expect(english.locator('[data-testid="cal-last"]')).to_contain_text("missed a press")


def test_stock_table_display_numbers_read_whole_at_390(browser, demo):
    """t5's display-number buttons (the guided change's 「表示は何番ですか」 and the
    calibration's pad) at 390 px: each number on one line, "05", never "0" over "5"."""
    page = signed_in(browser, demo, PHONE)
    page.goto(demo["url"] + "/staff/tables/t5/mode?mode=05")
    pad = page.locator('[data-testid^="panel-from-"]')
    expect(pad.first).to_be_attached(timeout=20000)
    details = page.locator('[data-testid="panel-from"]')
    if details.get_attribute("open") is None:
        details.locator("summary").click()
    expect(pad.first).to_be_visible()
    assert pad.count() >= 8
    assert text_lines(pad) == [1] * pad.count(), [pad.nth(i).inner_text()
                                                  for i in range(pad.count())]
    page.goto(demo["url"] + "/staff/tables/t5/calibrate")
    pad = page.locator('[data-testid^="cal-seen-"]')
    expect(pad.first).to_be_visible(timeout=20000)
    assert pad.count() >= 8
    assert text_lines(pad) == [1] * pad.count()
    no_horizontal_overflow(page)
    assert page.js_errors == []
    page.context.close()
