"""The staff console on a club night, in real Chromium against the real daemon and
simulated tables: an MCR table's seats are never compared with its point sticks; the
guided mode change warns before a mode that does not fit the table's rules, and the
waiting page says so; pages in one language with names, never raw ids; the console's
buttons and links are big enough to tap at 390 px, with the menu's sign-out in reach."""

from __future__ import annotations

import uuid

import pytest

from tests.support.browser import expect, shot
from tests.support.web import bearer
from tests.web.staff_support import (
    module_browser,
    no_horizontal_overflow,
    sign_in,
    start_club,
    step,
    stop_club,
    table,
    wait_table,
)
from web import create_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]
browser = pytest.fixture(scope="module", name="browser")(module_browser)

LAPTOP, PHONE = {"width": 1024, "height": 768}, {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    club = start_club(tmp_path_factory.mktemp("staff-night"), {
        "t1": ("卓1 四人A", "nekohouse-4a", "mode=1&time_scale=0.001"),
        "t2": ("卓2 三人A", "nekohouse-3a", "mode=4&time_scale=0.001"),
        "t4": ("卓4 国際", "mcr", "mode=3&time_scale=0.001"),
    })
    app = create_app({"DATABASE": club["db"], "SECRET_KEY": "x", "TESTING": True})
    club["app"] = app
    yield club
    stop_club(club)


def tablet(page, club, table, path, body):
    """The table's tablet calling the API (its bearer token), as tablet.js does."""
    r = page.request.post(club["url"] + path, headers=bearer(club["app"], table), data=body)
    assert r.ok, r.text()
    return r.json()


def test_mcr_seats_are_never_compared_with_the_sticks(browser, club):
    """The MCR table's drawers hold 25,000 each; the game's totals start at 0 and move by
    fan: the floor shows the totals and no stick alarm (a riichi table still has one)."""
    page = sign_in(browser, club, LAPTOP)
    card = page.locator('[data-table="t4"]')
    started = tablet(page, club, "t4", "/api/tables/t4/games",
                     {"players": club["players"][4:8], "idempotency_key": uuid.uuid4().hex})
    tablet(page, club, "t4", "/api/tables/t4/hands", {
        "event": {"event": "win", "winners": [{"seat": 1, "fan": 8}], "from": 0},
        "expected_seq": 1, "idempotency_key": uuid.uuid4().hex})
    expect(card.locator('[data-testid="game-link-t4"]')).to_have_text(
        f"対局 #{started['game']['id']}", timeout=10000)
    expect(card.locator('[data-field="progress"]')).to_contain_text("1局記録済み")
    assert card.locator(".stick-diff").count() == 0
    assert card.locator('[data-field="mismatch"]').count() == 0
    assert "点棒" not in card.locator(".seat-list").text_content()
    shot(page, "staff-floor-mcr-no-stick-alarm-1024")
    assert page.js_errors == []


def confirm_dialog(page, answer="ok") -> str:
    dialog = page.locator("dialog.confirm-dialog")
    expect(dialog).to_be_visible()
    question = dialog.locator(".confirm-question").text_content()
    dialog.locator(f'button[value="{answer}"]').click()
    return question


def test_mode_that_does_not_fit_the_rules_is_warned_before_it_is_confirmed(browser, club):
    """t1 plays four-player rules: 05 三人花 is warned about in words on the guided page
    and in the confirmation; once chosen, the waiting page says t1 does not fit and
    offers it to nobody as 四人打ち."""
    page = sign_in(browser, club, PHONE)
    page.goto(club["url"] + "/staff/tables/t1/mode?mode=01")
    step(page, "on")
    assert page.locator('[data-testid="mode-misfit"]').count() == 0   # its own mode fits
    page.goto(club["url"] + "/staff/tables/t1/mode?mode=05")
    warning = page.locator('[data-testid="mode-misfit"]')
    expect(warning).to_contain_text("3人打ち")
    expect(warning).to_contain_text("4人打ち")
    expect(warning).to_contain_text("ねこはうす 四人打ち半荘戦Aルール")
    assert "nekohouse" not in page.locator("main").text_content()
    no_horizontal_overflow(page)
    shot(page, "staff-mode-misfit-390")
    page.click('[data-testid="simulate-sticks"]')
    step(page, "ready")
    page.click('[data-testid="select-mode"]')
    question = confirm_dialog(page, "cancel")           # asked first, in words
    assert "3人打ち" in question and "それでも" in question
    assert table(club["db"], "t1")["pending_mode"] is None   # cancel changed nothing
    page.click('[data-testid="select-mode"]')
    confirm_dialog(page)
    step(page, "pending")
    # the waiting page: t1 described by its mode, not offered as 四人打ち
    page.goto(club["url"] + "/staff/waiting")
    card = page.locator('[data-table="t1"]')
    expect(card.locator('[data-testid="misfit-t1"]')).to_contain_text("05 3人花")
    assert card.locator('[data-testid="proposal-t1"]').count() == 0
    expect(page.locator('[data-table="t2"] [data-field="plays"]')).to_contain_text(
        "モード 04 三人標準")
    no_horizontal_overflow(page)
    shot(page, "staff-waiting-misfit-390")
    page.goto(club["url"] + "/staff/waiting?lang=en")
    expect(card.locator('[data-testid="misfit-t1"]')).to_contain_text("does not fit")
    # the audit log names the table as staff call it
    page.goto(club["url"] + "/staff/audit?table=t1&lang=ja")
    mode = page.locator('.audit-entry[data-action="table.mode"]').first
    expect(mode).to_contain_text("卓1 四人A: モード変更")
    assert "t1" not in page.locator(".audit-list").inner_text()
    assert page.js_errors == []
    # back to the table's own mode for the other tests
    page.goto(club["url"] + "/staff/tables/t1/mode?mode=01")
    page.click('[data-testid="simulate-sticks"]')
    step(page, "ready")
    page.click('[data-testid="select-mode"]')
    wait_table(club["db"], "t1", lambda t: t["pending_mode"] in (None, 1), "mode 01 again")


CONSOLE_PAGES = ("/staff/", "/staff/waiting", "/staff/nights", "/staff/games",
                 "/staff/players", "/staff/tables", "/staff/rulesets", "/staff/tablets",
                 "/staff/accounts", "/staff/audit", "/staff/report", "/staff/settings",
                 "/staff/standings", "/staff/tables/t2/mode?mode=05")


@pytest.mark.parametrize("lang,viewport", [("ja-JP", PHONE), ("en-US", PHONE),
                                           ("ja-JP", LAPTOP)], ids=["ja-390", "en-390", "ja-1024"])
def test_console_targets_are_44px_and_sign_out_is_in_reach(browser, club, lang, viewport):
    page = sign_in(browser, club, viewport, lang=lang)
    width = viewport["width"]
    for path in CONSOLE_PAGES:
        page.goto(club["url"] + path)
        no_horizontal_overflow(page)
        small = page.evaluate("""() => [...document.querySelectorAll(
              'main a, main button, main summary, main select, nav a, nav button')]
            .filter(e => e.offsetParent !== null)
            .map(e => [e.tagName, (e.innerText || '').trim().slice(0, 20),
                       Math.round(e.getBoundingClientRect().height)])
            .filter(x => x[2] < 44)""")
        assert small == [], f"{path}: under 44 px: {small}"
        logout = page.locator(".staff-nav form button")
        expect(logout).to_be_visible()
        box = logout.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, f"{path}: {box}"
        assert page.locator(".staff-nav").evaluate("e => e.scrollWidth <= e.clientWidth")
    shot(page, f"staff-nav-{width}-{lang[:2]}")
    assert page.js_errors == []
