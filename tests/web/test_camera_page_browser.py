"""The camera page in real Chromium on ``python -m web demo``: the demo's stock table t5
has a simulated camera on its display; staff see its picture with the digits' region
marked, drag a corner, save, and the region (audited) is the one the reader uses."""

from __future__ import annotations

import json

import pytest

from tablectl import camera_store
from tests.support.browser import expect, shot
from tests.web.staff_support import module_browser, no_horizontal_overflow
from tests.web.test_stock_table_browser import LAPTOP, PHONE, demo, signed_in, until

pytestmark = [pytest.mark.browser, pytest.mark.slow]
browser = pytest.fixture(scope="module", name="browser")(module_browser)
__all__ = ["demo"]          # the demo fixture, shared with the stock table's browser test


def test_camera_page_shows_the_sim_camera_and_staff_move_the_region(browser, demo):
    until(lambda: (demo["folder"] / "camera-t5.png").exists(), "the camera's first picture")
    until(lambda: camera_store.camera_of(demo["db"], "t5"), "the daemon's registration")
    page = signed_in(browser, demo, LAPTOP)
    page.goto(demo["url"] + "/staff/tables/t5/camera")
    picture = page.locator('[data-testid="camera-picture"]')
    expect(picture).to_be_visible()
    until(lambda: picture.evaluate("img => img.complete && img.naturalWidth") > 0,
          "the picture loading")
    assert picture.evaluate("img => img.naturalWidth") == 320
    # the demo's table shows 01; the region from the club file reads it
    expect(page.locator('[data-testid="camera-reading"]')).to_have_text("01（確実）")
    expect(page.locator('[data-testid="camera-origin"]')).to_contain_text("club.toml")
    box = page.locator('[data-testid="camera-box"]')
    expect(box).to_be_visible()
    before = json.loads(page.locator('[data-testid="camera-region"]').input_value())
    corner = page.locator('[data-testid="camera-corner-2"]').bounding_box()
    shown = picture.bounding_box()
    scale = shown["width"] / 320           # screen pixels per picture pixel
    x, y = corner["x"] + corner["width"] / 2, corner["y"] + corner["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 10 * scale, y + 6 * scale, steps=5)
    page.mouse.up()
    after = json.loads(page.locator('[data-testid="camera-region"]').input_value())
    assert after[0] == before[0] and after[1] == before[1] and after[3] == before[3]
    assert after[2][0] == pytest.approx(before[2][0] + 10, abs=1.5)
    assert after[2][1] == pytest.approx(before[2][1] + 6, abs=1.5)
    shot(page, "camera-page-1024")
    page.locator('[data-testid="camera-save"]').click()
    expect(page.locator(".flash, [role=status]").first).to_contain_text("保存しました")
    expect(page.locator('[data-testid="camera-origin"]')).to_contain_text("staff")
    kept = camera_store.camera_of(demo["db"], "t5")
    assert kept["from_console"] and kept["region"][2] == pytest.approx(after[2], abs=0.2)
    # the whole box moves back by a drag inside it: every corner moves alike
    inside = box.bounding_box()
    cx, cy = inside["x"] + inside["width"] / 2, inside["y"] + inside["height"] / 2
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx - 4 * scale, cy - 3 * scale, steps=4)
    page.mouse.up()
    moved = json.loads(page.locator('[data-testid="camera-region"]').input_value())
    for a, b in zip(moved, after, strict=True):
        assert a[0] == pytest.approx(b[0] - 4, abs=1.5) and a[1] == pytest.approx(b[1] - 3,
                                                                                 abs=1.5)
    assert page.js_errors == []

    phone = signed_in(browser, demo, PHONE)
    phone.goto(demo["url"] + "/staff/tables/t5/camera")
    expect(phone.locator('[data-testid="camera-picture"]')).to_be_visible()
    no_horizontal_overflow(phone)
