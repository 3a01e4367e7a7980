"""終了 → 終了する before the first hand, on the tablet in real Chromium: the game is void
(no settlement sheet, nothing ranked) and the table is free for the next game at once."""

from __future__ import annotations

import pytest

from club import games
from club.db import connect
from tests.support.browser import chromium, expect, shot
from tests.support.tablet import SIZES, Tablet, open_tablet, running_club

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("no-hands") / "club.sqlite")
    with running_club(path, {"t1": "nekohouse-4a"}) as c:
        yield c


def test_ending_before_the_first_hand_frees_the_table_with_no_sheet(club):
    with chromium() as browser:
        ctx = browser.new_context(viewport=SIZES["390"], locale="ja-JP")
        tab = Tablet(open_tablet(ctx, club["url"], club["secrets"]["t1"], "t1"))
        tab.start(club["ids"])
        db = connect(club["db"])
        try:
            gid = games.current_game(db, "t1")["id"]
            tab.end()
            page = tab.page
            expect(page.locator('[data-testid="start-form"]')).to_be_visible()
            assert not tab.finished()                          # no settlement sheet to confirm
            assert page.locator('[data-testid="live"]').count() == 0
            shot(page, "no-hands-end-start-form-390")
            assert games.get_game(db, gid)["status"] == "void"
            lines = db.execute("SELECT COUNT(*) FROM stats_lines WHERE game_id = ?",
                               [gid]).fetchone()[0]
            assert lines == 0
            tab.start(club["ids"])                             # the same players play at once
            assert games.current_game(db, "t1")["id"] != gid
            assert page.js_errors == []
        finally:
            db.conn.close()
            ctx.close()
