"""A club night walked through a third time, in real Chromium against a real server: the
tablet's MCR penalty in MCR amounts, the stick count on the floor, the layout at 390 px
and no console error on the console's pages."""

from __future__ import annotations

import pytest

from tests.support.browser import chromium, expect
from tests.support.tablet import SIZES, Tablet, open_tablet, running_club

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TABLES = {"t1": "nekohouse-4a", "t2": "mcr"}


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    with running_club(str(tmp_path_factory.mktemp("night3") / "club.sqlite"), TABLES) as c:
        yield c


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def started(browser, club, table_id, size="390", rules=None) -> Tablet:
    ctx = browser.new_context(viewport=SIZES[size], locale="ja-JP")
    tab = Tablet(open_tablet(ctx, club["url"], club["secrets"][table_id], table_id))
    if tab.page.locator('[data-testid="live"]').count() == 0:
        tab.start(club["seats"][table_id], rules=rules)
    return tab


def test_mcr_points_penalty_in_mcr_amounts(browser, club):
    """mcr.toml: a points penalty is 10 to each other player (30 shared), in steps of 10
    per player; not the riichi tables' 3,000 in steps of 300."""
    tab = started(browser, club, "t2", rules="mcr")
    page = tab.page
    tab.open("penalty")
    tab.tap('[data-testid="who-1"]')
    tab.tap('[data-testid="penalty-points"]')
    amount = page.locator('[data-testid="points-amount"]')
    expect(amount.locator(".stepper-value")).to_have_text("30")
    assert amount.locator(".minus").is_disabled()               # 30 is the least shared
    amount.locator(".plus").click()
    expect(amount.locator(".stepper-value")).to_have_text("60")
    tab.tap('[data-testid="to-2"]')                             # paid to one player
    amount.locator(".minus").click()
    expect(amount.locator(".stepper-value")).to_have_text("50")
    tab.cancel()
    assert page.js_errors == []


def _member_link(club, pid: int = 1) -> str:
    from web.club import members
    from web.db import connect
    db = connect(club["db"])
    try:
        db.execute("UPDATE players SET member_no = ? WHERE id = ?", [f"M{pid:03d}", pid])
        db.conn.commit()
        members.set_pin(db, pid, "2468")
        token, _ = members.issue_link(db, pid)
    finally:
        db.conn.close()
    return f"{club['url']}/m/{token}"


def _heights(page, selector: str) -> list[float]:
    return page.locator(selector).evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().height)")


def test_member_settings_sign_in_styled_for_a_finger(browser, club):
    """At 390 px the settings' sign-in fields and button are at least 44 px tall and the
    opt-in boxes 24 px (they were 21 and 13 px, unstyled); m001 opens it as M001."""
    ctx = browser.new_context(viewport=SIZES["390"], locale="ja-JP")
    page = ctx.new_page()
    page.goto(_member_link(club) + "/settings")
    form = '[data-testid="member-pin-form"]'
    assert min(_heights(page, f"{form} input:not([type=hidden]), {form} button")) >= 44
    page.fill(f'{form} input[name="member_no"]', "m001")
    page.fill(f'{form} input[name="pin"]', "2468")
    page.click(f"{form} button")
    boxes = '[data-testid="member-settings-form"] input[type=checkbox]'
    expect(page.locator(boxes).first).to_be_visible()
    assert min(_heights(page, boxes)) >= 24
    assert min(_heights(page, '[data-testid="member-settings-form"] input[type=email]')) >= 44
    assert page.locator("html").evaluate("e => e.scrollWidth") <= 390
    ctx.close()
