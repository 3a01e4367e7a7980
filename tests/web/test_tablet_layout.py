"""The tablet's pages fit the screens players hold, in real Chromium: no page scrolls
sideways at 390, 768 or 1024 px, the payment preview and the record button stay in sight
while an entry is long, the seats sit around the table from the tablet's side, and a
stale or double-tapped tablet records nothing twice."""

from __future__ import annotations

import pytest

from club.db import connect
from tests.support.browser import chromium, expect, shot
from tests.support.tablet import (
    SIZES,
    Tablet,
    open_tablet,
    overflow,
    page_data,
    running_club,
    stored,
)
from web.security import create_pairing, issue_tablet_token

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TABLES = {"t1": "nekohouse-4a", "t2": "mcr", "t3": "nekohouse-3b", "t4": "nekohouse-4a"}


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    with running_club(str(tmp_path_factory.mktemp("layout") / "club.sqlite"), TABLES) as c:
        yield c


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def fits(page, what: str) -> None:
    """Neither the page nor an open panel is wider than the window."""
    width, inner = overflow(page)
    assert width <= inner, (what, width, inner)
    panel = page.locator("#panel")
    if panel.is_visible():
        sw, cw = panel.evaluate("p => [p.scrollWidth, p.clientWidth]")
        assert sw <= cw, (what + " panel", sw, cw)


def every_panel(tab, what, n):
    """Open each entry panel in each of its modes; check it fits."""
    page = tab.page
    for action in ("ron", "tsumo", "draw", "penalty", "end", "undo", "chombo", "abort"):
        if not page.locator(f'.action[data-action="{action}"]').count():
            continue
        if page.locator(f'.action[data-action="{action}"]').is_disabled():
            continue
        tab.open(action)
        if action in ("ron", "tsumo"):
            tab.winner(1)
            if action == "ron":
                tab.discarder(0)
            for mode in page.locator('[data-testid^="mode-1-"]').all():
                mode.click()
                fits(page, f"{what} {action} {mode.get_attribute('data-value')}")
        elif action == "penalty":
            tab.tap('[data-testid="who-1"]')
            tab.tap('[data-testid="penalty-points"]')
        fits(page, f"{what} {action}")
        tab.cancel()


@pytest.mark.parametrize("size", ["390", "768", "1024"])
def test_no_tablet_page_scrolls_sideways(browser, club, size):
    ctx = browser.new_context(viewport=SIZES[size], locale="ja-JP")
    # the pairing page and the error page of an unpaired device
    code_db = connect(club["db"])
    try:
        code = create_pairing(code_db, "t1", actor="test", label="layout")["code"]
    finally:
        code_db.conn.close()
    page = ctx.new_page()
    page.goto(f"{club['url']}/auth/pair?code={code}")
    fits(page, "pairing")
    page.goto(f"{club['url']}/tablet/t1")
    fits(page, "unpaired")
    for table, rules, n in (("t1", "nekohouse-4a", 4), ("t2", "mcr", 4), ("t3", "nekohouse-3b", 3)):
        tab = Tablet(open_tablet(ctx, club["url"], club["secrets"][table], table))
        if tab.page.locator("#start-game").is_visible():
            fits(tab.page, f"{table} start")
            tab.start(club["seats"][table][:n], rules=rules)
        fits(tab.page, f"{table} live")
        every_panel(tab, table, n)
        shot(tab.page, f"layout-{table}-live-{size}")
    # a finished game's settlement sheet and its history
    tab = Tablet(open_tablet(ctx, club["url"], club["secrets"]["t4"], "t4"))
    if tab.page.locator("#start-game").is_visible():
        tab.start(club["seats"]["t4"])
        tab.ron([(1, 3, 30)], discarder=0)
        tab.end()
    fits(tab.page, "settlement")
    shot(tab.page, f"layout-settlement-{size}")
    ctx.close()


@pytest.mark.parametrize("size", ["1024", "768"])
def test_preview_and_record_stay_in_sight_of_a_long_entry(browser, club, size):
    """At 1024x768 and 768x1024 the payments and 記録する are on screen without scrolling,
    however long the yaku picker below the winner is."""
    ctx = browser.new_context(viewport=SIZES[size], locale="ja-JP")
    tab = Tablet(open_tablet(ctx, club["url"], club["secrets"]["t1"], "t1"))
    if tab.page.locator("#start-game").is_visible():
        tab.start(club["ids"])
    tab.open("ron")
    tab.winner(2)
    tab.winner(3)
    tab.discarder(0)
    tab.tap('[data-testid="mode-2-yaku"]')
    tab.tap('[data-testid="yaku-2-tanyao"]')
    tab.tap('[data-testid="fu-2-30"]')
    tab.hanfu(3, 2, 30)
    tab.preview()
    vp = SIZES[size]
    for sel in ('[data-testid="preview-0"]', '[data-testid="preview-3"]', "#panel-record"):
        box = tab.page.locator(sel).bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= vp["height"], (sel, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= vp["width"], (sel, box)
    assert tab.page.locator("#panel-body").evaluate("b => b.scrollHeight > b.clientHeight")
    shot(tab.page, f"layout-preview-in-sight-{size}")
    tab.cancel()
    ctx.close()


def test_seats_sit_around_the_table_from_the_tablets_side(browser, club):
    ctx = browser.new_context(viewport=SIZES["1024"], locale="ja-JP")
    tab = Tablet(open_tablet(ctx, club["url"], club["secrets"]["t1"], "t1"))
    if tab.page.locator("#start-game").is_visible():
        tab.start(club["ids"])
    def card(i):
        return tab.page.locator(f'[data-testid="seat-card-{i}"]')
    assert "pos-bottom" in card(0).get_attribute("class")
    assert "pos-right" in card(1).get_attribute("class")     # 下家 to the right
    assert "pos-top" in card(2).get_attribute("class")       # 対面 across
    tab.tap("#rotate")                                        # this tablet sits at seat 1
    assert "pos-bottom" in card(1).get_attribute("class")
    assert "pos-left" in card(0).get_attribute("class")       # 上家 to the left
    tab.page.reload()
    tab.ready()
    assert "pos-bottom" in card(1).get_attribute("class")     # kept by the tablet
    shot(tab.page, "layout-rotated-1024")
    ctx.close()


def test_dropped_answer_double_tap_and_stale_tablet_record_once(browser, club):
    """A lost answer is resent with the same key, a double tap records once, and a second
    tablet showing an old screen is told in words and shown the choice (English page)."""
    ctx_a = browser.new_context(viewport=SIZES["768"], locale="ja-JP")
    a = Tablet(open_tablet(ctx_a, club["url"], club["secrets"]["t4"], "t4"))
    if a.page.locator("#new-game").count():
        a.tap("#new-game")
    a.start(club["seats"]["t4"])
    db = connect(club["db"])
    try:
        second = issue_tablet_token(db, "t4", label="layout-2")
    finally:
        db.conn.close()
    ctx_b = browser.new_context(viewport=SIZES["768"])
    b = Tablet(open_tablet(ctx_b, club["url"], second, "t4", lang="en"))
    assert "Ron" in b.page.locator('.action[data-action="ron"]').text_content()
    # B's entry panel is open before A records (an open panel holds B's page as it is: no
    # poll reloads it), so B is still on the old screen when it records below
    b.open("draw")
    dropped = []

    def drop_first_answer(route):
        if not dropped:
            dropped.append(route.request.post_data_json["idempotency_key"])
            route.fetch()                     # reaches the server and is recorded...
            route.abort("connectionreset")    # ...but the tablet never hears back
        else:
            route.continue_()

    a.page.route("**/api/tables/t4/hands", drop_first_answer)
    a.open("draw")
    a.tap('[data-testid="tenpai-0"]')
    a.preview()
    with a.page.expect_navigation():      # kept in the queue, resent a second later
        a.tap("#panel-record")
    a.page.unroute("**/api/tables/t4/hands")
    _, log, events = stored(club["db"], "t4")
    assert dropped and [e["event"] for e in events] == ["start", "draw"]
    assert log[-1]["idempotency_key"] == dropped[0]
    # B, still showing the old screen, records another hand: kept and shown as a choice
    b.preview()
    b.tap("#panel-record")
    expect(b.page.locator('[data-testid^="queued-error-"]')).to_contain_text("already recorded")
    assert [e["event"] for e in stored(club["db"], "t4")[2]] == ["start", "draw"]
    b.tap('[data-testid^="queued-drop-"]')
    b.tap('[data-testid^="queued-drop-"]')
    expect(b.page.locator('[data-testid="queue-badge"]')).to_be_hidden()
    # a double tap on Record stores one hand
    b.page.reload()
    b.ready()
    b.open("chombo")
    b.tap('[data-testid="who-1"]')
    b.preview()
    with b.page.expect_navigation():
        b.page.dblclick("#panel-record")
    assert [e["event"] for e in stored(club["db"], "t4")[2]] == ["start", "draw", "chombo"]
    assert page_data(b.page)["next_seq"] == 3
    ctx_a.close()
    ctx_b.close()


def test_stick_difference_warns_only_once_it_lasts(browser, club):
    """The table's own reading beside each score; 点数が一致しません only for a difference
    that lasts (sticks move while the players pay), and never for a reading that matches."""
    import json as _json

    from tablectl import store

    ctx = browser.new_context(viewport=SIZES["1024"], locale="ja-JP")
    tab = Tablet(open_tablet(ctx, club["url"], club["secrets"]["t1"], "t1"))
    if tab.page.locator("#start-game").is_visible():
        tab.start(club["ids"])
    scores = page_data(tab.page)["state"]["scores"]

    def sticks(points):
        with store.connect(club["db"]) as sdb:
            sdb.execute("INSERT INTO table_state (table_id, name, url, connected, points) "
                        "VALUES ('t1', 't1', 'sim://', 1, ?) ON CONFLICT(table_id) DO UPDATE "
                        "SET points = excluded.points", [_json.dumps(points)])

    sticks(scores)
    tab.page.reload()
    tab.ready()
    expect(tab.page.locator('[data-testid="ic-0"]')).to_contain_text(f"{scores[0]:,}")
    tab.page.wait_for_timeout(7000)                       # two readings and more
    expect(tab.page.locator('[data-testid="ic-mismatch"]')).to_be_hidden()
    sticks([scores[0] - 1000, scores[1] + 1000, *scores[2:]])     # wrong on purpose
    expect(tab.page.locator('[data-testid="ic-mismatch"]')).to_be_visible(timeout=15_000)
    expect(tab.page.locator('[data-testid="ic-1"]')).to_contain_text("(+1,000)")
    ctx.close()
