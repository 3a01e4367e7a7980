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
