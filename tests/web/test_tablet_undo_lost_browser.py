"""The undo of a hand whose answer never came, in real Chromium with the shipped
static/tablet.js against a real server process (named ``undo_lost``):

* a hand reaches the server but its answer is lost; the players tap undo; the Wi-Fi
  returns: the hand ends voided on the server, and the tablet and the server show the
  same scores;
* the same with a hand that never reached the server: its key is voided all the same,
  so it is refused should it still arrive, and the scores agree.

Meanwhile the tablet says what it is waiting for.
"""

from __future__ import annotations

import pytest

from club import games
from club.db import connect
from tests.support.browser import chromium, expect, shot
from tests.support.tablet import SIZES, Tablet, open_tablet, seed_club, stored
from tests.support.web_server import WebServer
from tests.web.test_tablet_offline import (
    queued_line,
    reconnect,
    record_offline,
    ron_entry,
    scores_shown,
    wifi_down,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HANDS = "**/api/tables/t1/hands"


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture()
def club(tmp_path):
    path = str(tmp_path / "club.sqlite")
    ids, secrets = seed_club(path, {"t1": "nekohouse-4a"})
    server = WebServer(path).start()
    yield {"db": path, "ids": ids, "secrets": secrets, "url": server.url, "server": server}
    server.stop()


def server_scores(club) -> list[int]:
    game, _, _ = stored(club["db"], "t1")
    db = connect(club["db"])
    try:
        return games.game_view(db, game["id"])["state"]["scores"]
    finally:
        db.conn.close()


def lose_answers(page, reached: list) -> None:
    """Every hand sent reaches the server, and its answer is lost on the way back."""
    def lost(route):
        if route.request.method == "POST":
            route.fetch()                       # the server stores it and answers ...
            reached.append(route.request.post_data_json["idempotency_key"])
            route.abort("internetdisconnected")  # ... and the tablet never hears
        else:
            route.continue_()
    page.route(HANDS, lost)


def undo_waiting(tab) -> None:
    """The players take the hand back: the tablet keeps the void and says it waits."""
    tab.open("undo")
    assert "東2局 ロン 上田←遠藤" in tab.page.locator('[data-testid="undo-hand"]').text_content()
    tab.tap("#panel-record")
    expect(tab.page.locator("#panel-backdrop")).to_be_hidden()
    queued_line(tab.page, 1)
    expect(tab.page.locator("#queue-list")).to_contain_text("取り消し（サーバーの返事待ち）")
    expect(tab.page.locator("#notice")).to_contain_text("サーバーに届いたかまだわかりません")


def test_undo_lost_answer_then_undo_voids_the_hand_on_the_server(browser, club):
    ctx = browser.new_context(viewport=SIZES["768"], locale="ja-JP")
    tab = Tablet(open_tablet(ctx, club["url"], club["secrets"]["t1"], "t1"))
    tab.start(club["ids"])
    page = tab.page
    tab.ron([(1, 3, 30)], discarder=0)                      # 東1局, answered
    assert scores_shown(page, 4) == [21100, 28900, 25000, 25000]
    reached: list = []
    lose_answers(page, reached)
    record_offline(tab, ron_entry(tab, 2, 3, 2, 30))      # 東2局: stored, answer lost
    page.wait_for_function("document.body.classList.contains('offline')")
    assert reached, "the hand reached the server"
    wifi_down(page)                                         # and the Wi-Fi is gone
    _, log, _ = stored(club["db"], "t1")
    assert [r["kind"] for r in log] == ["start", "win", "win"]   # the server has it
    undo_waiting(tab)
    assert scores_shown(page, 4) == [21100, 28900, 25000, 25000]  # shown without it
    shot(page, "undo-lost-waiting-768")
    page.unroute(HANDS)
    reconnect(tab)                                          # the Wi-Fi returns
    _, log, events = stored(club["db"], "t1")
    assert [r["kind"] for r in log] == ["start", "win", "win", "void"]
    assert log[-1]["target_seq"] == 2 and len(events) == 2     # the hand is voided
    assert scores_shown(page, 4) == server_scores(club) == [21100, 28900, 25000, 25000]
    expect(page.locator('[data-testid="queue-badge"]')).to_be_hidden()
    assert page.js_errors == []
    ctx.close()


def test_undo_lost_hand_that_never_arrived_is_voided_by_its_key(browser, club):
    ctx = browser.new_context(viewport=SIZES["768"], locale="ja-JP")
    tab = Tablet(open_tablet(ctx, club["url"], club["secrets"]["t1"], "t1"))
    tab.start(club["ids"])
    page = tab.page
    tab.ron([(1, 3, 30)], discarder=0)
    cut: list = []

    def lost_on_the_way(route):
        if route.request.method == "POST":
            cut.append(route.request.url)
            route.abort("internetdisconnected")   # sent, and it never reaches the server
        else:
            route.continue_()
    page.route(HANDS, lost_on_the_way)
    record_offline(tab, ron_entry(tab, 2, 3, 2, 30))
    page.wait_for_function("document.body.classList.contains('offline')")
    assert cut                                              # sent: it may have arrived
    wifi_down(page)
    undo_waiting(tab)
    page.unroute(HANDS)
    reconnect(tab)
    _, log, events = stored(club["db"], "t1")
    assert [r["kind"] for r in log] == ["start", "win", "void"]
    assert log[-1]["target_seq"] is None                    # nothing to strike: a tombstone
    assert scores_shown(page, 4) == server_scores(club) == [21100, 28900, 25000, 25000]
    # the next hand takes the entry after the void, as the tablet numbers it
    tab.ron([(3, 2, 30)], discarder=1)
    _, log, events = stored(club["db"], "t1")
    assert [r["kind"] for r in log] == ["start", "win", "void", "win"]
    assert scores_shown(page, 4) == server_scores(club)
    assert page.js_errors == []
    ctx.close()
