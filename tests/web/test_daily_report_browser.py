"""Ratings and money in a real headless Chromium against ``python -m web serve``, on the
fixture day of ``test_daily_report``: the tablet's R strip at game start, the day's
accounts under the settlement sheet, the staff console's daily report reached from its
menu, the dan table and seasons uploads (a refusal naming the key, then a good file),
and the season's standings; screenshots at tablet and laptop size.
"""

from __future__ import annotations

import uuid

import pytest

from club import games, stats_store
from club.accounts import create_staff
from club.db import connect
from tests.club.test_daily_report import DAY, build_day
from tests.support.browser import LANDSCAPE, PORTRAIT, chromium, expect, shot
from tests.support.web_server import WebServer
from tests.web.test_rating_pages import DAN, SEASONS
from web.security import TABLET_COOKIE, issue_tablet_token

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    d = build_day(str(tmp_path_factory.mktemp("money-e2e") / "club.sqlite"))
    db = connect(d["path"])
    create_staff(db, "mika", "mahjong-club")
    stats_store.rank_guests(db, True)  # this club ranks its guests: they show, without an R
    games.start_game(db, "t4", [d["ids"][n] for n in "GBCD"], idempotency_key=uuid.uuid4().hex)
    secrets = {t: issue_tablet_token(db, t, label="e2e") for t in ("t2", "t4")}
    db.conn.close()
    server = WebServer(d["path"]).start()
    yield {**d, "server": server, "secrets": secrets}
    server.stop()


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def tablet(browser, club, table_id):
    ctx = browser.new_context(viewport=PORTRAIT, locale="ja-JP")
    ctx.add_cookies([{"name": TABLET_COOKIE, "value": club["secrets"][table_id],
                      "url": club["server"].url}])
    page = ctx.new_page()
    page.js_errors = []
    page.on("pageerror", lambda e: page.js_errors.append(str(e)))
    page.goto(f"{club['server'].url}/tablet/{table_id}")
    return page


def staff(browser, club):
    page = browser.new_context(viewport=LANDSCAPE, locale="ja-JP").new_page()
    page.js_errors = []
    page.on("pageerror", lambda e: page.js_errors.append(str(e)))
    page.goto(club["server"].url + "/staff/")
    page.fill("input[name=name]", "mika")
    page.fill("input[name=password]", "mahjong-club")
    page.click("button[type=submit]")
    page.wait_for_url("**/staff/")
    return page


def test_rating_strip_at_game_start_on_the_tablet(browser, club):
    page = tablet(browser, club, "t4")
    strip = page.locator('[data-testid="seat-ratings"]')
    expect(strip).to_be_visible()
    expect(page.locator('[data-testid="seat-rating-0"]')).to_contain_text("ゲスト（R対象外）")
    expect(page.locator('[data-testid="seat-rating-1"]')).to_contain_text("R1,")
    shot(page, "tablet-rating-strip-portrait")
    # it folds away with a tap and the table is still there to play
    page.locator('[data-testid="seat-ratings"] summary').click()
    expect(page.locator('[data-testid="seat-rating-1"]')).to_be_hidden()
    expect(page.locator('[data-testid="live"]')).to_be_visible()
    assert page.js_errors == []


def test_day_accounts_under_the_settlement_sheet(browser, club):
    page = tablet(browser, club, "t2")
    expect(page.locator('[data-testid="settlement"]')).to_be_visible()
    accounts = page.locator('[data-testid="day-accounts"]')
    expect(accounts).to_contain_text("本日の精算（2026-04-01）")
    expect(page.locator('[data-testid="account-0"]')).to_contain_text("-¥2,450")
    accounts.scroll_into_view_if_needed()
    shot(page, "tablet-day-accounts-portrait")
    assert page.js_errors == []


def test_daily_report_and_standings_on_the_console(browser, club):
    page = staff(browser, club)
    page.click("nav >> text=日報")
    page.wait_for_url("**/staff/report")
    page.fill('[data-testid="report-day"]', DAY)
    page.locator('[data-testid="report-day"]').press("Enter")
    page.wait_for_url(f"**/staff/report?day={DAY}")
    expect(page.locator('[data-testid="report-summary"]')).to_contain_text("¥10,600")
    expect(page.locator('[data-testid="report-accounts"]')).to_contain_text("-¥8,600")
    shot(page, "staff-daily-report-landscape")
    page.click("text=段位・シーズン設定")
    page.wait_for_url("**/staff/standings")
    page.fill('[data-testid="toml-dan"]', DAN.replace("promote = 20", "promote = 0"))
    page.click('[data-testid="save-dan"]')
    expect(page.locator('[data-testid="error-dan"]')).to_contain_text("riichi4.level[0].promote")
    assert "promote = 0" in page.locator('[data-testid="toml-dan"]').input_value()
    page.fill('[data-testid="toml-dan"]', DAN)
    page.click('[data-testid="save-dan"]')
    expect(page.locator(".flash").first).to_contain_text("再計算しました")
    expect(page.locator('[data-testid="dan-levels"]')).to_contain_text("初段")
    page.fill('[data-testid="toml-seasons"]', SEASONS)
    page.click('[data-testid="save-seasons"]')
    expect(page.locator('[data-testid="season-list"]')).to_contain_text("春季リーグ")
    page.click('[data-testid="season-list"] >> text=spring')
    expect(page.locator('[data-testid="season-note"]')).to_contain_text("3 局以上")
    expect(page.locator('[data-testid="provisional"]')).to_contain_text("ゲスト1")
    expect(page.locator('[data-testid="leaderboard"]')).to_contain_text("初段")
    shot(page, "leaderboard-season-landscape")
    assert page.js_errors == []
