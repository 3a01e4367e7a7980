"""Running the floor in real Chromium against the real daemon and simulated tables: walk-ins
on the waiting list (the public board shows their places), a free table seated from the
list by wind tiles, a table given a three-player rule set and switched to its AMOS mode
with the guided procedure, and each tablet showing its game ready and starting it; a
tablet calling staff and the console answering; at 1024 and 390 px with screenshots."""

from __future__ import annotations

import re

import pytest

from club import games
from club.db import connect
from tablectl import store
from tests.support.browser import expect, shot
from tests.web.staff_support import (
    MEMBERS,
    module_browser,
    no_horizontal_overflow,
    sign_in,
    start_club,
    step,
    stop_club,
)
from web.security import TABLET_COOKIE, issue_tablet_token

pytestmark = [pytest.mark.browser, pytest.mark.slow]
browser = pytest.fixture(scope="module", name="browser")(module_browser)

LAPTOP, PHONE = {"width": 1024, "height": 768}, {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    club = start_club(tmp_path_factory.mktemp("floor-waiting"), {
        "t1": ("卓1", "nekohouse-4a", "mode=1&time_scale=0.001"),
        "t2": ("卓2", "nekohouse-4a", "mode=1&time_scale=0.001"),
    })
    yield club
    stop_club(club)


def tablet(browser, club, table_id, viewport=LAPTOP):
    db = connect(club["db"])
    try:
        secret = issue_tablet_token(db, table_id, label="test")
    finally:
        db.conn.close()
    ctx = browser.new_context(viewport=viewport, locale="ja-JP")
    ctx.add_cookies([{"name": TABLET_COOKIE, "value": secret, "url": club["url"]}])
    page = ctx.new_page()
    page.js_errors = []
    page.on("pageerror", lambda e: page.js_errors.append(str(e)))
    page.goto(f"{club['url']}/tablet/{table_id}")
    return page


def add_walk_in(page, who: str, wish: str):
    if who.startswith("guest:"):
        page.fill('[data-testid="waiting-guest"]', who[6:])
    else:
        page.select_option('[data-testid="waiting-player"]',
                           label=f"{who} (M{MEMBERS.index(who) + 1:03d})")
    page.select_option('[data-testid="waiting-wish"]', wish)
    page.click('[data-testid="waiting-submit"]')
    expect(page.locator(".flash").first).to_contain_text("待ち席に追加しました")


def test_waiting_list_seating_mode_and_game_start(browser, club):
    page = sign_in(browser, club, LAPTOP)
    page.goto(club["url"] + "/staff/waiting")
    four = ["佐藤", "鈴木", "高橋", "田中"]
    for who in four:
        add_walk_in(page, who, "family:riichi4")
    for who in ("伊藤", "渡辺", "guest:ゲスト花子"):
        add_walk_in(page, who, "family:riichi3")
    # an unknown wish in a form that was tampered with is refused beside the form
    rows = page.locator(".waiting-list tr[data-testid]")
    expect(rows).to_have_count(7)
    assert "約" in page.locator(".waiting-list").text_content() or "すぐ" in \
        page.locator(".waiting-list").text_content()
    shot(page, "waiting-list-1024")

    board = browser.new_context(viewport=PHONE, locale="ja-JP").new_page()
    board.goto(club["url"] + "/board")
    expect(board.locator('[data-testid="board-0"]')).to_contain_text("佐藤")
    expect(board.locator('[data-testid="board-6"]')).to_contain_text("ゲスト花子")
    no_horizontal_overflow(board)
    shot(board, "waiting-board-390")

    # t1 is free and plays four-player: its proposal is the first four; seats by wind tiles
    card = page.locator('.table-mini[data-table="t1"]')
    expect(card.locator('[data-testid="proposal-t1"]')).to_contain_text("佐藤、鈴木、高橋、田中")
    card.locator("summary", has_text="風牌").click()
    for i, wind in enumerate(["S", "N", "E", "W"]):        # 佐藤 drew 南, 鈴木 北 ...
        card.locator(f'[data-testid="wind-t1-{i}"]').select_option(wind)
    card.locator('[data-testid="seat-wind-t1"]').click()
    expect(page.locator(".flash").first).to_contain_text("卓1の席を決めました")
    expect(page.locator('[data-testid="ready-t1"]')).to_contain_text("高橋")
    seated = [s.text_content() for s in page.locator('[data-testid="ready-t1"] li').all()]
    assert [re.sub(r"\s+", "", s) for s in seated] == ["東高橋", "南佐藤", "西田中", "北鈴木"]
    expect(board.locator('[data-testid="board-0"]')).to_contain_text("伊藤", timeout=10000)

    # the tablet of t1 shows the game ready and starts it in the drawn seats
    tab1 = tablet(browser, club, "t1")
    expect(tab1.locator('[data-testid="ready-game"]')).to_contain_text("東 高橋")
    shot(tab1, "seating-ready-on-tablet-1024")
    tab1.click('[data-testid="start-ready"]')
    expect(tab1.locator('[data-testid="live"]')).to_be_visible()
    db = connect(club["db"])
    gid = games.live_game_id(db, "t1")
    assert [s["name"] for s in games.get_game(db, gid)["seats"]] == ["高橋", "佐藤", "田中", "鈴木"]

    # t2 is given the three-player rule set: the console leads to the guided mode change
    page.goto(club["url"] + "/staff/tables")
    page.fill('input[name="id"]', "t2")
    page.fill('input[name="name"]', "卓2 三人")
    page.select_option('select[name="rule_set"]', "nekohouse-3a")
    page.click('form[action$="/staff/tables"] button')
    page.wait_for_url("**/staff/tables/t2/mode?mode=04")
    step(page, "sticks")
    page.click('[data-testid="simulate-sticks"]')
    step(page, "ready")
    page.click('[data-testid="select-mode"]')
    step(page, "pending")
    page.click('[data-testid="run-cycle"]')
    step(page, "on")
    assert store.get_table(club["db"], "t2")["mode"] == 4
    shot(page, "seating-mode-sanma-1024")

    # now t2 proposes the three waiting for sanma; drawn at random; its tablet starts it
    page.goto(club["url"] + "/staff/waiting")
    card = page.locator('.table-mini[data-table="t2"]')
    expect(card.locator('[data-testid="proposal-t2"]')).to_contain_text("伊藤、渡辺、ゲスト花子")
    card.locator('[data-testid="seat-random-t2"]').click()
    expect(page.locator(".flash").first).to_contain_text("卓2 三人の席を決めました")
    tab2 = tablet(browser, club, "t2", PHONE)
    expect(tab2.locator('[data-testid="ready-game"]')).to_be_visible()
    no_horizontal_overflow(tab2)
    shot(tab2, "seating-ready-on-tablet-390")
    tab2.click('[data-testid="start-ready"]')
    expect(tab2.locator('[data-testid="live"]')).to_be_visible()
    game = games.get_game(db, games.live_game_id(db, "t2"))
    assert sorted(s["name"] for s in game["seats"]) == ["ゲスト花子", "伊藤", "渡辺"]
    assert game["rule_set"] == "nekohouse-3a"
    db.conn.close()
    page.goto(club["url"] + "/staff/waiting")
    assert "待っている人はいません" in page.locator("main").text_content()
    assert page.js_errors == [] and tab1.js_errors == [] and tab2.js_errors == []


def test_call_staff_from_the_tablet_to_the_console(browser, club):
    tab = tablet(browser, club, "t1")
    page = sign_in(browser, club, PHONE)
    tab.click('[data-testid="call-drink"]')
    expect(tab.locator('[data-testid="call-state"]')).to_contain_text("飲み物")
    call = page.locator('[data-testid="call-t1"]')
    expect(call).to_contain_text("飲み物", timeout=10000)         # the console, no reload
    expect(call).to_contain_text("待ち")
    first = call.text_content()
    expect(call).not_to_have_text(first, timeout=10000)          # the wait counts up
    no_horizontal_overflow(page)
    shot(page, "call-staff-console-390")
    page.locator('[data-testid="ack-t1"]').click()
    expect(page.locator('[data-testid="call-t1"]')).to_have_count(0)
    expect(tab.locator('[data-testid="call-state"]')).to_contain_text("スタッフが向かっています",
                                                                      timeout=10000)
    shot(tab, "call-staff-acknowledged-tablet-1024")
    assert page.js_errors == [] and tab.js_errors == []


def test_settlement_confirmed_by_each_member_with_their_number(browser, club):
    """One tablet cannot confirm for the table: a member confirms with their own member
    number (a wrong one is refused in words); the console shows who confirmed for whom."""
    tab = tablet(browser, club, "t1")
    token = tab.locator('meta[name="csrf-token"]').get_attribute("content")
    headers = {"X-CSRF-Token": token, "Accept": "application/json"}
    live = tab.request.get(club["url"] + "/api/tables/t1").json()["game"]
    for i, ev in enumerate(({"event": "draw", "tenpai": [0]}, {"event": "end"})):
        # a hand first: a game ended before any hand is void, with no sheet to confirm
        r = tab.request.post(club["url"] + "/api/tables/t1/hands", headers=headers, data={
            "event": ev, "expected_seq": live["next_seq"] + i,
            "idempotency_key": f"end-of-game-t1-{i}"})
        assert r.ok, r.text()
    tab.reload()
    first = tab.locator('[data-testid="sheet-row-0"]').text_content()
    assert "高橋" in first
    tab.click('[data-testid="confirm-0"]')
    dialog = tab.locator("dialog.confirm-dialog")
    dialog.locator("input").fill("M999")
    dialog.locator('button[value="ok"]').click()
    expect(tab.locator("#notice")).to_contain_text("会員番号")
    tab.click('[data-testid="confirm-0"]')
    dialog.locator("input").fill(f"M{MEMBERS.index('高橋') + 1:03d}")
    shot(tab, "settlement-member-number-1024")
    dialog.locator('button[value="ok"]').click()
    expect(tab.locator('[data-testid="confirmed-0"]')).to_be_visible()
    page = sign_in(browser, club, LAPTOP)
    gid = live["game"]["id"]
    page.goto(f"{club['url']}/staff/games/{gid}")
    expect(page.locator('[data-testid="confirmed-0"]')).to_contain_text("本人（会員番号）")
    assert tab.js_errors == [] and page.js_errors == []
