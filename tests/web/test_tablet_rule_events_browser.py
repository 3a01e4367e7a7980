"""The tablet records what a hand could not say before, in real Chromium against a real
server process, each under its table's rules (rulebooks in /work/shared/seeds/):

* 002 4A 「…もしくは流局時チョンボ、和了放棄、1000点供託のいずれかに変更できます」: the draw
  panel's 流局時チョンボ row, whose seats pay as noten;
* 001 チョンボ 2 / 000 (3) 錯和: a chombo carries the riichi sticks of the voided hand;
* 002 3B 「花牌を抜いても…九種九牌の権利は維持されます」: a 九種九牌 with who declared it and
  the flowers they had set aside.
"""

from __future__ import annotations

import pytest

from tests.support.browser import chromium, expect, shot
from tests.support.tablet import SIZES, Tablet, open_tablet, seed_club, stored
from tests.support.web_server import WebServer
from tests.web.test_tablet_offline import scores_shown

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture()
def club(tmp_path):
    path = str(tmp_path / "club.sqlite")
    ids, secrets = seed_club(path, {"t1": "nekohouse-4a", "t2": "nekohouse-3b"})
    server = WebServer(path).start()
    yield {"db": path, "ids": ids, "secrets": secrets, "url": server.url}
    server.stop()


def test_tablet_records_a_chombo_at_the_draw_and_a_chombos_sticks(browser, club):
    ctx = browser.new_context(viewport=SIZES["768"], locale="ja-JP")
    tab = Tablet(open_tablet(ctx, club["url"], club["secrets"]["t1"], "t1"))
    tab.start(club["ids"])
    page = tab.page
    tab.open("draw")
    tab.tap('[data-testid="tenpai-1"]')
    tab.tap('[data-testid="tenpai-2"]')
    tab.tap('[data-testid="chombo-at-draw-0"]')               # the dealer's deferred chombo
    expect(page.locator('[data-testid="tenpai-0"]')).to_be_disabled()   # noten, not tenpai
    assert tab.preview() == [-1500, 1500, 1500, -1500]
    shot(page, "chombo-at-draw-768")
    tab.record()
    assert stored(club["db"], "t1")[2][-1] == {"event": "draw", "tenpai": [1, 2], "chombo": [0],
                                                "riichi": []}
    assert scores_shown(page, 4) == [23500, 26500, 26500, 23500]
    # 東2局: 伊藤 declares riichi, then 青木's chombo voids the hand
    tab.riichi([1])
    tab.open("chombo")
    tab.tap('[data-testid="who-0"]')
    expect(page.locator('[data-testid="panel-riichi-1"]')).to_have_attribute("aria-pressed",
                                                                              "true")
    assert tab.preview() == [-9000, 3000, 3000, 3000]         # the stick goes back
    tab.record()
    assert stored(club["db"], "t1")[2][-1] == {"event": "chombo", "seat": 0, "riichi": [1]}
    assert scores_shown(page, 4) == [14500, 29500, 29500, 26500]
    assert page.js_errors == []
    ctx.close()


def test_tablet_records_nine_terminals_after_flowers_in_3b(browser, club):
    ctx = browser.new_context(viewport=SIZES["768"], locale="ja-JP")
    tab = Tablet(open_tablet(ctx, club["url"], club["secrets"]["t2"], "t2"))
    tab.start(club["ids"][:3])
    page = tab.page
    tab.open("abort")                                          # 3B: 九種九牌 only
    tab.tap('[data-testid="kyuushu-seat-1"]')
    tab.tap('[data-testid="kyuushu-nukidora"] .plus')
    tab.tap('[data-testid="kyuushu-nukidora"] .plus')
    assert tab.preview() == [0, 0, 0]
    tab.record()
    assert stored(club["db"], "t2")[2][-1] == {"event": "abort", "kind": "kyuushu",
                                                "riichi": [], "seat": 1, "nukidora": 2}
    assert page.js_errors == []
    ctx.close()
