"""The live floor in real Chromium, against the real daemon and simulated tables: a
tablet records a hand and the floor shows it without a reload (players and scores,
round, honba and deposits, hands played and time since the start, a link to the game);
the table's own point sticks that differ from the recorded scores are flagged seat by
seat, and the flag goes when the sticks agree; the last table event is in words; every
staff page fits 390 and 1024 px without sideways scrolling."""

from __future__ import annotations

import uuid

import pytest

from tablectl.client import TableClient
from tests.support.browser import expect, shot
from tests.support.web import bearer
from tests.web.staff_support import (
    module_browser,
    no_horizontal_overflow,
    sign_in,
    start_club,
    stop_club,
)
from web import create_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]
browser = pytest.fixture(scope="module", name="browser")(module_browser)

LAPTOP, PHONE = {"width": 1024, "height": 768}, {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    club = start_club(tmp_path_factory.mktemp("staff-floor"), {
        "t1": ("卓1 四人A", "nekohouse-4a", "mode=1&time_scale=0.001"),
        "t2": ("卓2 三人A", "nekohouse-3a", "mode=4&time_scale=0.001"),
    })
    app = create_app({"DATABASE": club["db"], "SECRET_KEY": "x", "TESTING": True})
    club["t1"] = bearer(app, "t1")
    yield club
    stop_club(club)


def tablet(page, club, path, body):
    """The table's tablet calling the API (its bearer token), as tablet.js does."""
    r = page.request.post(club["url"] + path, headers=club["t1"], data=body)
    assert r.ok, r.text()
    return r.json()


def test_staff_floor_updates_live_after_a_tablet_records_a_hand(browser, club):
    page = sign_in(browser, club, LAPTOP)
    card = page.locator('[data-table="t1"]')
    expect(card.locator('[data-field="game"]')).to_contain_text("対局はありません")
    players = club["players"][:4]
    started = tablet(page, club, "/api/tables/t1/games",
                     {"players": players, "idempotency_key": uuid.uuid4().hex})
    gid = started["game"]["id"]
    expect(card.locator('[data-testid="game-link-t1"]')).to_have_text(f"対局 #{gid}",
                                                                        timeout=10000)
    expect(card.locator('[data-field="game"]')).to_contain_text("東1局")
    seat_list = card.locator(".seat-list")
    expect(seat_list).to_contain_text("佐藤")
    expect(seat_list).to_contain_text("25,000")
    tablet(page, club, "/api/tables/t1/hands", {
        "event": {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "from": 0,
                  "riichi": [2]},
        "expected_seq": 1, "idempotency_key": uuid.uuid4().hex})
    # No reload: the card follows the game.
    expect(card.locator('[data-field="game"]')).to_contain_text("東2局", timeout=10000)
    expect(card.locator('[data-field="progress"]')).to_contain_text("1局記録済み")
    expect(seat_list).to_contain_text("21,100")
    # The table's sticks still say 25,000 each: the seats that differ are flagged.
    mismatch = card.locator('[data-field="mismatch"]')
    expect(mismatch).to_contain_text("佐藤")
    expect(mismatch).to_contain_text("鈴木")
    expect(mismatch).to_contain_text("高橋")                        # paid the riichi stick
    assert "田中" not in mismatch.text_content()                     # 25,000 both ways
    expect(card.locator('[data-testid="stick-diff-t1-0"]')).to_contain_text("+3,900")
    shot(page, "staff-floor-live-mismatch-1024")
    # The sticks are moved as the hand paid (the simulator's hands): the flag goes.
    scores = page.request.get(club["url"] + "/api/tables/t1").json()["game"]["state"]["scores"]
    assert scores == [21100, 29900, 24000, 25000]
    answer = TableClient(club["db"], source="test").send("t1", "sim-sticks",
                                                         {"points": scores}, wait=10)
    assert answer.state == "done"
    expect(mismatch).to_have_count(0, timeout=10000)
    # the last table event in words
    expect(card.locator('[data-field="last_event"]')).to_contain_text("点棒")
    card.locator('[data-testid="game-link-t1"]').click()
    page.wait_for_url(f"**/staff/games/{gid}")
    assert "ロン 鈴木←佐藤 3翻30符" in page.locator('[data-testid="entry-1"]').text_content()
    assert page.js_errors == []


def test_staff_floor_on_a_phone(browser, club):
    page = sign_in(browser, club, PHONE)
    expect(page.locator('[data-table="t1"] .seat-list')).to_be_visible()
    no_horizontal_overflow(page)
    shot(page, "staff-floor-390")
    page.goto(club["url"] + "/staff/?lang=en")
    expect(page.locator('[data-table="t1"] [data-field="game"]')).to_contain_text("East 2")
    no_horizontal_overflow(page)
    shot(page, "staff-floor-en-390")
    assert page.js_errors == []


STAFF_PAGES = ("/staff/", "/staff/games", "/staff/games/1", "/staff/players", "/staff/tables",
               "/staff/rulesets", "/staff/rulesets/nekohouse-4a", "/staff/tablets",
               "/staff/accounts", "/staff/audit", "/staff/settings", "/staff/waiting",
               "/staff/nights", "/board",
               "/staff/tables/t1/mode", "/staff/tables/t2/mode?mode=01")


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["390", "1024"])
def test_staff_every_page_fits_without_sideways_scrolling(browser, club, viewport):
    page = sign_in(browser, club, viewport)
    for path in STAFF_PAGES:
        page.goto(club["url"] + path)
        assert page.locator("main").count() == 1, path
        no_horizontal_overflow(page)
        # Japanese words never break inside a word in the menu (タブレ/ット)
        for link in page.locator(".staff-nav a").all():
            box = link.bounding_box()
            assert box["height"] < 60, (path, link.text_content(), box)
        name = path.strip("/").replace("/", "-").replace("?", "-").replace("=", "") or "floor"
        shot(page, f"staff-page-{name}-{viewport['width']}")
    assert page.js_errors == []
