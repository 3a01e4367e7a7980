"""The report card on the tablet in real Chromium against a real ``python -m web serve``:
a game entered by taps at 390 px, settled, and each member's card opened from the
settlement sheet (the guest's seat has none); its figures are what the summary tables
and the ratings hold; no sideways scroll; screenshots under test-artifacts/screenshots/.
"""

from __future__ import annotations

import pytest

import lexicon
from club import rating_store, roster
from club.accounts import create_staff
from club.db import connect
from tests.support.browser import chromium, expect, shot
from tests.support.tablet import SIZES, Tablet, open_tablet, overflow, running_club, stored
from tests.web.staff_support import STAFF, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    with running_club(str(tmp_path_factory.mktemp("card") / "club.sqlite"),
                      {"t1": "nekohouse-4a"}) as c:
        db = connect(c["db"])
        try:
            c["guest"] = roster.add_player(db, "ゲスト客", guest=True)["id"]
            create_staff(db, *STAFF)
        finally:
            db.conn.close()
        yield c


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def _r_line(club, player_id: int, game_id: int) -> dict:
    db = connect(club["db"])
    try:
        return next(x for x in rating_store.history(db, player_id, "riichi4")
                    if x["game_id"] == game_id)
    finally:
        db.conn.close()


def test_report_card_on_the_tablet_after_the_settlement_at_390px(browser, club):
    ctx = browser.new_context(viewport=SIZES["390"], locale="ja-JP")
    tab = Tablet(open_tablet(ctx, club["url"], club["secrets"]["t1"], "t1"))
    page = tab.page
    members = club["ids"][:3]
    tab.start([*members, club["guest"]])
    tab.ron([(1, 5, 30)], discarder=0)        # 伊藤 rons 青木 for a mangan
    tab.end()
    tab.ready()
    expect(page.locator('[data-testid="settlement"]')).to_be_visible()
    game, _, _ = stored(club["db"], "t1")
    assert game["status"] == "finished"
    cards = page.locator('[data-testid="report-cards"]')
    expect(cards).to_be_visible()
    # the guest's seat has no card; each member's opens from its fold
    expect(page.locator('[data-testid="report-card-none-3"]')).to_have_text(
        "ゲスト客: " + lexicon.t("card.guest_none", "ja"))
    assert page.locator('[data-testid="report-card-open-3"]').count() == 0
    fold = page.locator('[data-testid="report-card-open-1"]')
    card = fold.locator(f'[data-testid="report-card-{members[1]}"]')
    expect(card).to_be_hidden()
    fold.locator("summary").click()
    expect(card).to_be_visible()
    held = _r_line(club, members[1], game["id"])
    expect(card.locator('[data-testid="rc-game"]')).to_contain_text("1着")
    expect(card.locator('[data-testid="rc-change-game"]')).to_have_text(f"{held['change']:+.1f}")
    expect(card.locator('[data-testid="rc-rating"]')).to_contain_text(f"R{held['r_after']:,.0f}")
    expect(card.locator('[data-testid="rc-games-today"]')).to_have_text("1")
    expect(card.locator('[data-testid="rc-games-all"]')).to_have_text("1")
    expect(card.locator('[data-testid="rc-places-today"]')).to_have_text("1-0-0-0")
    card.scroll_into_view_if_needed()
    width, window = overflow(page)
    assert width <= window, f"{width} px wide in a {window} px window"
    shot(page, "report-card-tablet-390-ja")
    assert page.js_errors == []
    # the same card in English: English words only (the names aside)
    page.goto(club["url"] + "/tablet/t1?lang=en")
    tab.ready()
    fold = page.locator('[data-testid="report-card-open-1"]')
    fold.locator("summary").click()
    card = fold.locator(f'[data-testid="report-card-{members[1]}"]')
    expect(card).to_contain_text(lexicon.t("card.change_game", "en"))
    expect(card.locator('[data-testid="rc-game"]')).to_contain_text("Place 1")
    text = card.inner_text()
    for name in ("青木", "伊藤", "上田", "四人打ち"):
        text = text.replace(name, "")
    assert not any("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff" for ch in text), text
    width, window = overflow(page)
    assert width <= window
    shot(page, "report-card-tablet-390-en")
    ctx.close()


def test_report_card_desk_page_at_390px_and_in_print(browser, club):
    """After the game above: the desk's page on a phone, then as the printer sees it."""
    member = club["ids"][1]
    page = sign_in(browser, club, SIZES["390"])
    page.goto(club["url"] + "/staff/report")
    page.locator('[data-testid="report-cards-link"]').click()
    page.locator('[data-testid="rc-player"]').select_option(str(member))
    page.locator('[data-testid="rc-paper"]').select_option("58")
    page.locator('[data-testid="rc-form"] button').click()
    card = page.locator(f'[data-testid="report-card-{member}"]')
    expect(card).to_be_visible()
    expect(card.locator('[data-testid="rc-games-today"]')).to_have_text("1")
    width, window = overflow(page)
    assert width <= window, f"{width} px wide in a {window} px window"
    shot(page, "report-card-desk-390")
    page.emulate_media(media="print")
    expect(page.locator('[data-testid="rc-form"]')).to_be_hidden()
    expect(card).to_be_visible()
    # the sheet is as wide as 58 mm paper's printable width (54 mm at 96 px per inch)
    box = page.locator('[data-testid="rc-sheet"]').bounding_box()
    assert abs(box["width"] - 54 / 25.4 * 96) < 2, box
    shot(page, "report-card-desk-print-58")
    assert page.js_errors == []
