"""End to end in a real headless Chromium against a real ``python -m web serve`` process:
a full four-player hanchan and a three-player game entered from the tablet page with
a finger's worth of taps, including a double ron, a draw with tenpai payments, a chombo,
an undo and a tile-entered win; the settlement sheet is checked against the engine's
replay of the stored events; screenshots of the main screens at tablet size.

(issue 6 "Done means": end-to-end tests in a real headless browser.)
"""

from __future__ import annotations

import json

import pytest

from scoring import game as engine_game
from scoring.rules import load_rules
from web import create_app, gamelog, games
from web.db import connect
from web.security import TABLET_COOKIE, issue_tablet_token

from tests.support.browser import LANDSCAPE, PORTRAIT, chromium, expect, shot
from tests.support.web_server import WebServer


pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    """A club database, a real server process on it, and tablet secrets for two tables."""
    folder = tmp_path_factory.mktemp("e2e")
    path = str(folder / "club.sqlite")
    create_app({"DATABASE": path, "SECRET_KEY": "x", "TESTING": True})
    db = connect(path)
    games.save_table(db, "t1", "卓1", "nekohouse-4a")
    games.save_table(db, "t3", "卓3", "nekohouse-3a")
    ids = [games.add_player(db, n)["id"] for n in ("青木", "伊藤", "上田", "遠藤")]
    secrets = {t: issue_tablet_token(db, t, label="e2e") for t in ("t1", "t3")}
    db.conn.close()
    server = WebServer(path).start()
    yield {"server": server, "db": path, "ids": ids, "secrets": secrets}
    server.stop()


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def tablet_page(browser, club, table_id, viewport=PORTRAIT):
    ctx = browser.new_context(viewport=viewport, locale="ja-JP")
    ctx.add_cookies([{"name": TABLET_COOKIE, "value": club["secrets"][table_id],
                      "url": club["server"].url}])
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{club['server'].url}/tablet/{table_id}")
    page.js_errors = errors
    return page


def page_data(page) -> dict:
    return json.loads(page.locator("#page-data").text_content())


def stored(club, table_id):
    db = connect(club["db"])
    try:
        game = games.current_game(db, table_id)
        log = gamelog.event_log(db, game["id"])
        return game, log, [e["event"] for e in gamelog.effective_events(log)]
    finally:
        db.conn.close()


# --------------------------------------------------------------------------- taps
class Tablet:
    """A person at the table, tapping the page."""

    def __init__(self, page, club, table_id):
        self.page, self.club, self.table_id = page, club, table_id

    def start(self, seats):
        for i, pid in enumerate(seats):
            self.page.select_option(f'[data-testid="seat-{i}"]', str(pid))
        with self.page.expect_navigation():
            self.page.click("#start-game")
        self.page.wait_for_selector('[data-testid="live"]')

    def riichi(self, seats):
        for s in seats:
            self.page.click(f'[data-testid="riichi-{s}"]')

    def open(self, action):
        self.page.click(f'.action[data-action="{action}"]')
        self.page.wait_for_selector("#panel-backdrop:not([hidden])")

    def set_winner(self, i, seat, han=None, fu=None):
        box = self.page.locator("fieldset.winner").nth(i)
        box.locator(".winner-seat").select_option(str(seat))
        if han is not None:
            box.locator(".han").select_option(str(han))
            if fu is not None:
                box.locator(".fu").select_option(str(fu))

    def preview(self) -> list[int]:
        self.page.click("#panel-preview-btn")
        self.page.wait_for_selector("#panel-record:not([disabled])")
        n = len(page_data(self.page)["names"])
        return [int(self.page.locator(f'[data-testid="preview-{i}"] td.num').text_content()
                    .replace(",", "").replace("+", "")) for i in range(n)]

    def commit(self, shown, events_before):
        """Tap Record, wait for the new page; the preview shown must be the engine's."""
        before = page_data(self.page)["next_seq"]
        with self.page.expect_navigation():
            self.page.click("#panel-record")
        after = page_data(self.page)
        assert after["next_seq"] == before + 1 or after.get("status") != "live"
        _, _, events_after = stored(self.club, self.table_id)
        new = events_after[-1]
        rules = load_rules(games_rules(self.club, self.table_id))
        engine = engine_game.preview(events_before, new, rules)
        assert shown == engine["deltas"], (new, shown, engine["deltas"])
        return new

    def ron(self, winners, discarder):
        self.open("ron")
        for i, (seat, han, fu) in enumerate(winners):
            if i:
                self.page.click(".add-winner")
            self.set_winner(i, seat, han, fu)
        self.page.select_option(".discarder", str(discarder))
        return self._record_and_check()

    def tsumo(self, seat, han, fu):
        self.open("tsumo")
        self.set_winner(0, seat, han, fu)
        return self._record_and_check()

    def draw(self, tenpai):
        self.open("draw")
        for s in tenpai:
            self.page.locator(f'input.tenpai[value="{s}"]').check()
        return self._record_and_check()

    def chombo(self, seat):
        self.open("chombo")
        self.page.select_option(".chombo-seat", str(seat))
        return self._record_and_check()

    def end(self):
        self.open("end")
        return self._record_and_check()

    def undo(self):
        before = page_data(self.page)["next_seq"]
        self.open("undo")
        with self.page.expect_navigation():
            self.page.click("#panel-record")
        assert page_data(self.page)["next_seq"] == before + 1

    def _record_and_check(self):
        _, _, events_before = stored(self.club, self.table_id)
        return self.commit(self.preview(), events_before)

    def finished(self) -> bool:
        return self.page.locator('[data-testid="settlement"]').count() == 1


def games_rules(club, table_id):
    game, _, _ = stored(club, table_id)
    return game["rules"]


def check_settlement(page, club, table_id):
    """The sheet on screen is the engine's replay of the stored events, seat by seat."""
    game, log, events = stored(club, table_id)
    assert game["status"] == "finished"
    engine = engine_game.replay(events, load_rules(game["rules"]))
    assert engine["finished"]
    for seat, result in enumerate(engine["final"]["result"]):
        assert page.locator(f'[data-testid="result-{seat}"]').text_content().strip() == str(result)
        assert page.locator(f'[data-testid="sheet-row-{seat}"] td.rank').text_content().strip() == \
            str(engine["final"]["ranks"][seat])
    return engine, log


def confirm_all(page, n):
    for seat in range(n):
        with page.expect_navigation():
            page.click(f'[data-testid="confirm-{seat}"]')
    for seat in range(n):
        assert page.locator(f'[data-testid="confirmed-{seat}"]').count() == 1


# --------------------------------------------------------------------------- the games
def test_full_four_player_hanchan_from_the_tablet(browser, club):
    page = tablet_page(browser, club, "t1")
    shot(page, "01-start-portrait")
    tab = Tablet(page, club, "t1")
    tab.start(club["ids"])
    shot(page, "02-live-portrait")

    tab.riichi([1])
    assert page.locator('[data-testid="riichi-1"]').get_attribute("aria-pressed") == "true"
    ev = tab.ron([(1, 3, 30)], discarder=0)                        # E1
    assert ev["riichi"] == [1]
    tab.open("ron")                                                # E2: double ron
    tab.set_winner(0, 2, 2, 40)
    page.click(".add-winner")
    tab.set_winner(1, 3, 1, 30)
    page.select_option(".discarder", "1")
    tab.preview()
    shot(page, "03-double-ron-preview-portrait")
    page.click("#panel-cancel")
    ev = tab.ron([(2, 2, 40), (3, 1, 30)], discarder=1)
    assert [w["seat"] for w in ev["winners"]] == [2, 3]
    ev = tab.draw([0, 1])                                          # E3: dealer noten
    assert sorted(ev["tenpai"]) == [0, 1]
    tab.chombo(0)                                                  # E4 (1 honba)
    tab.tsumo(0, 2, 30)                                            # E4 again
    tab.ron([(3, 5, None)], discarder=2)                           # S1, then undone
    tab.undo()
    _, log, events = stored(club, "t1")
    assert log[-1]["kind"] == "void" and len(events) == 6
    tab.ron([(2, 4, 30)], discarder=3)                             # S1
    tsumo_by_tiles(page, tab)                                      # S2
    tab.ron([(0, 5, None)], discarder=1)                           # S3
    page.set_viewport_size(LANDSCAPE)
    shot(page, "04-live-landscape")
    page.set_viewport_size(PORTRAIT)
    ron_with_a_pon_by_tiles(page, tab)                             # S4
    while not tab.finished():                                      # a West round, or time up
        tab.end()
    shot(page, "06-settlement-portrait")
    engine, log = check_settlement(page, club, "t1")
    assert {"win", "draw", "chombo", "void"} <= {row["kind"] for row in log}
    assert any(len(e.get("winners", [])) == 2 for e in (r["event"] for r in log))
    assert engine["hands"][-1]["round"].startswith(("S", "W"))      # a full hanchan
    confirm_all(page, 4)
    page.set_viewport_size(LANDSCAPE)
    shot(page, "07-settlement-landscape")
    assert page.js_errors == []


def tsumo_by_tiles(page, tab):
    """S2: seat 3 wins by tsumo, hand entered on the tile keyboard; the engine finds the yaku."""
    tab.open("tsumo")
    tab.set_winner(0, 3)
    page.locator("fieldset.winner").nth(0).locator('[data-mode="tiles"]').click()
    for tile in ("1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "2s", "3s", "5p", "5p"):
        page.locator(f'.tile-key[data-tile="{tile}"]').click()
    page.locator('.tile-target[data-target="win"]').click()
    page.locator('.tile-key[data-tile="4s"]').click()
    page.locator('.tile-target[data-target="dora"]').click()
    page.locator('.tile-key[data-tile="3s"]').click()
    _, _, before = stored(tab.club, tab.table_id)
    shown = tab.preview()
    page.wait_for_selector('[data-testid="yaku-3"]')
    yaku_line = page.locator('[data-testid="yaku-3"]').text_content()
    assert "menzen_tsumo" in yaku_line and "dora" in yaku_line
    shot(page, "05-tile-keyboard-portrait")
    ev = tab.commit(shown, before)
    hand = ev["winners"][0]["hand"]
    assert hand["hand"] == "123m45556p234789s" and hand["win"] == "4s" and hand["tsumo"] is True
    assert hand["dora"] == "3s"
    # the winds are the engine's to know (W seat in S round here): not stored with the hand
    assert "seat_wind" not in hand and "round_wind" not in hand


def ron_with_a_pon_by_tiles(page, tab):
    """S4: seat 1 rons an open hand (pon of white dragons) entered tile by tile."""
    tab.open("ron")
    tab.set_winner(0, 1)
    box = page.locator("fieldset.winner").nth(0)
    box.locator('[data-mode="tiles"]').click()
    for tile in ("2m", "3m", "4m", "5p", "6p", "7p", "6s", "7s", "8s", "2p"):
        box.locator(f'.tile-key[data-tile="{tile}"]').click()
    box.locator('.add-meld[data-meld="pon"]').click()
    for _ in range(3):
        box.locator('.tile-key[data-tile="5z"]').click()
    box.locator('.tile-target[data-target="win"]').click()
    box.locator('.tile-key[data-tile="2p"]').click()
    page.select_option(".discarder", "2")
    _, _, before = stored(tab.club, tab.table_id)
    shown = tab.preview()
    page.wait_for_selector('[data-testid="fu-1"]')
    assert "yakuhai_haku" in page.locator('[data-testid="yaku-1"]').text_content()
    assert "tanki" in page.locator('[data-testid="fu-1"]').text_content()
    ev = tab.commit(shown, before)
    assert ev["winners"][0]["hand"]["melds"] == [{"type": "pon", "tiles": "555z"}]
    assert ev["winners"][0]["hand"]["hand"] == "234m22567p678s"


def test_three_player_game_from_the_tablet(browser, club):
    page = tablet_page(browser, club, "t3", viewport=LANDSCAPE)
    tab = Tablet(page, club, "t3")
    page.select_option("#start-rules", "nekohouse-3a")
    assert page.locator('.seat-picker[data-seat="3"]').is_hidden()
    page.fill("#guest-name", "ゲスト花子")
    page.click("#add-guest")
    expect(page.locator('[data-testid="seat-0"]')).not_to_have_value("")
    guest = int(page.locator('[data-testid="seat-0"]').input_value())
    shot(page, "08-start-three-player-landscape")
    tab.start([guest] + club["ids"][:2])
    assert page.locator(".seat-card").count() == 3
    assert "ゲスト花子" in page.locator('[data-testid="seat-card-0"]').text_content()
    tab.open("abort")                                               # E1 kyuushu: redo
    page.select_option(".abort-kind", "kyuushu")
    tab._record_and_check()
    tab.open("penalty")                                             # 1,000 to the pot
    page.select_option(".penalty-seat", "2")
    page.select_option(".penalty-kind", "deposit_1000")
    tab._record_and_check()
    tab.ron([(1, 3, 30)], discarder=0)                              # E1
    tab.ron([(0, 2, 30), (2, 1, 40)], discarder=1)                  # E2: double ron
    tab.draw([0])                                                   # E3: tenpai payments
    tab.chombo(1)
    tab.tsumo(2, 3, 30)
    tab.undo()
    tab.ron([(1, 2, 30)], discarder=0)
    tab.ron([(2, 3, 30)], discarder=0)
    shot(page, "09-live-three-player-landscape")
    for i in range(8):
        if tab.finished():
            break
        if i < 3:
            tab.ron([(0, 1, 30)], discarder=2)
        else:
            tab.end()
    assert tab.finished()
    engine, log = check_settlement(page, club, "t3")
    assert len(engine["final"]["result"]) == 3
    assert {"abort", "penalty", "win", "draw", "chombo", "void"} <= {r["kind"] for r in log}
    shot(page, "10-settlement-three-player-landscape")
    confirm_all(page, 3)
    assert page.js_errors == []


def test_dropped_answer_retry_double_tap_and_stale_tablet_record_once(browser, club):
    """A lost answer is retried with the same key, a double tap records once, and a second
    tablet showing an old screen is told "already recorded" in words (English page)."""
    page_a = tablet_page(browser, club, "t1")
    db = connect(club["db"])
    try:
        second = issue_tablet_token(db, "t1", label="e2e-2")
    finally:
        db.conn.close()
    club["secrets"]["t1b"] = second
    # New game on t1 from tablet A (the previous one is finished)
    if page_a.locator("#new-game").count():
        page_a.click("#new-game")
    Tablet(page_a, club, "t1").start(club["ids"])
    ctx = browser.new_context(viewport=PORTRAIT)
    ctx.add_cookies([{"name": TABLET_COOKIE, "value": second, "url": club["server"].url}])
    page_b = ctx.new_page()
    page_b.goto(f"{club['server'].url}/tablet/t1?lang=en")
    assert "Ron" in page_b.locator('.action[data-action="ron"]').text_content()
    # A records a draw, but the Wi-Fi drops the server's answer: the page retries with the
    # same key and the hand is stored once.
    dropped = []

    def drop_first_answer(route):
        if not dropped:
            dropped.append(route.request.post_data_json["idempotency_key"])
            route.fetch()                     # reaches the server and is recorded...
            route.abort("connectionreset")    # ...but the tablet never hears back
        else:
            route.continue_()

    page_a.route("**/api/tables/t1/hands", drop_first_answer)
    Tablet(page_a, club, "t1").draw([0])
    page_a.unroute("**/api/tables/t1/hands")
    _, log, events = stored(club, "t1")
    assert dropped and [e["event"] for e in events] == ["start", "draw"]
    assert log[-1]["idempotency_key"] == dropped[0]
    # B, still showing the old screen, records a different hand
    tb = Tablet(page_b, club, "t1")
    tb.open("draw")
    tb.page.click("#panel-preview-btn")
    tb.page.wait_for_selector("#panel-record:not([disabled])")
    with page_b.expect_navigation():
        page_b.click("#panel-record")
    assert "already recorded" in page_b.locator("#notice").text_content()
    _, log, events = stored(club, "t1")
    assert [e["event"] for e in events] == ["start", "draw"]
    # A double tap on Record stores one hand
    page_b.reload()
    tb.open("chombo")
    tb.page.click("#panel-preview-btn")
    tb.page.wait_for_selector("#panel-record:not([disabled])")
    with page_b.expect_navigation():
        page_b.dblclick("#panel-record")
    _, log, events = stored(club, "t1")
    assert [e["event"] for e in events] == ["start", "draw", "chombo"]
