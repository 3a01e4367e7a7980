"""Corrections in real Chromium against ``python -m web serve``: a hand corrected with
the form (names, han and fu; the whole game's scores before and after shown before it is
recorded), a refused correction coming back with what was typed, a struck hand put back,
a voided game made valid again (each asked to confirm first), and the audit log showing
each action's before and after in words; at 1024 and 390 px, with screenshots."""

from __future__ import annotations

import uuid

import pytest

from club import club_tables, games, roster
from club.accounts import create_staff
from club.db import connect
from tests.support.browser import expect, shot
from tests.support.web_server import WebServer
from tests.web.staff_support import STAFF, module_browser, no_horizontal_overflow, sign_in
from web import create_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]
browser = pytest.fixture(scope="module", name="browser")(module_browser)

LAPTOP, PHONE = {"width": 1024, "height": 768}, {"width": 390, "height": 844}
NAMES = ("中村", "伊藤", "佐藤", "加藤")
RON = {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "from": 0, "riichi": [2]}


def _game(db, table, events, end=True) -> int:
    ids = [p["id"] for p in roster.list_players(db) if p["name"] in NAMES]
    gid = games.start_game(db, table, ids, idempotency_key=uuid.uuid4().hex)["game"]["id"]
    for i, e in enumerate(events, 1):
        games.record_event(db, gid, e, expected_seq=i, idempotency_key=uuid.uuid4().hex)
    if end:
        games.end_game(db, gid, expected_seq=len(events) + 1, idempotency_key=uuid.uuid4().hex)
    return gid


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("staff-records") / "club.sqlite")
    create_app({"DATABASE": path, "SECRET_KEY": "x", "TESTING": True})
    db = connect(path)
    create_staff(db, *STAFF)
    club_tables.save_table(db, "t1", "卓1", "nekohouse-4a")
    club_tables.save_table(db, "t2", "卓2", "nekohouse-4a")
    for n in NAMES:
        roster.add_player(db, n)
    finished = _game(db, "t1", [RON, {"event": "draw", "tenpai": [0, 3]}])
    live = _game(db, "t2", [RON, {"event": "win", "winners": [{"seat": 2, "han": 2, "fu": 40}]}],
                 end=False)
    db.conn.close()
    server = WebServer(path).start()
    yield {"url": server.url, "db": path, "finished": finished, "live": live}
    server.stop()


def confirm_dialog(page, answer="ok"):
    dialog = page.locator("dialog.confirm-dialog")
    expect(dialog).to_be_visible()
    dialog.locator(f'button[value="{answer}"]').click()


def test_staff_correct_by_form_with_before_and_after(browser, club):
    page = sign_in(browser, club, LAPTOP)
    gid = club["finished"]
    page.goto(f"{club['url']}/staff/games/{gid}")
    standing = page.locator('[data-testid="standing"]')
    before = standing.text_content()
    page.click('[data-testid="fix-1"]')
    # the entry as recorded, by name: 伊藤 won from 中村, 佐藤 had declared riichi
    assert page.locator("#fix [data-kind=ron]").get_attribute("aria-pressed") == "true"
    page.select_option('[data-testid="fix-han-0"]', "4")
    preview = page.locator('[data-testid="fix-preview"]')
    expect(preview).to_contain_text("4翻30符")
    expect(page.locator('[data-testid="preview-seat-1"]')).to_contain_text("+")
    assert "3翻30符" in preview.text_content()                  # before and after, side by side
    shot(page, "staff-correct-preview-1024")
    # Without a reason it is refused beside the form, and nothing typed is lost.
    page.locator('[data-testid="fix-reason"]').evaluate(
        "e => { e.removeAttribute('required'); e.removeAttribute('minlength'); }")
    page.fill('[data-testid="fix-reason"]', "x")
    page.click('[data-testid="fix-submit"]')
    expect(page.locator('[data-testid="fix-error"]')).to_contain_text("理由")
    expect(page.locator("#fix")).to_be_visible()           # the form is open again
    assert page.locator('[data-testid="fix-han-0"]').input_value() == "4"
    shot(page, "staff-correct-refused-inline-1024")
    page.fill('[data-testid="fix-reason"]', "4翻の申告ミス")
    page.click('[data-testid="fix-submit"]')
    expect(page.locator(".flash")).to_contain_text("訂正しました")
    assert "4翻30符" in page.locator('[data-testid="entry-1"]').text_content()
    assert page.locator('[data-testid="standing"]').text_content() != before
    assert page.js_errors == []


def test_staff_correct_kind_and_names_on_a_phone(browser, club):
    """A draw corrected into a tsumo by name, at 390 px, without sideways scrolling."""
    page = sign_in(browser, club, PHONE)
    gid = club["live"]
    page.goto(f"{club['url']}/staff/games/{gid}")
    no_horizontal_overflow(page)
    page.click('[data-testid="fix-2"]')
    page.click("#fix [data-kind=draw]")
    page.locator('#fix fieldset[data-name="tenpai"] label', has_text="加藤").click()
    expect(page.locator('[data-testid="preview-new"]')).to_contain_text("流局 聴牌: 加藤")
    no_horizontal_overflow(page)
    shot(page, "staff-correct-draw-390")
    page.fill('[data-testid="fix-reason"]', "流局でした")
    page.click('[data-testid="fix-submit"]')
    expect(page.locator(".flash")).to_contain_text("訂正しました")
    assert "流局 聴牌: 加藤" in page.locator('[data-testid="entry-2"]').text_content()
    assert page.js_errors == []


def test_staff_restore_removed_hand_and_unvoid_game(browser, club):
    page = sign_in(browser, club, LAPTOP)
    gid = club["live"]
    page.goto(f"{club['url']}/staff/games/{gid}")
    scores = page.locator('[data-testid="standing"]').text_content()
    row = page.locator('[data-testid="entry-1"]')
    row.locator("summary").click()
    row.locator('input[name="reason"]').fill("別の卓の記録")
    row.locator('[data-testid="remove-1"]').click()
    confirm_dialog(page, "cancel")                     # asked first; cancel changes nothing
    assert page.locator('[data-testid="entry-1"]').count() == 1
    row.locator('[data-testid="remove-1"]').click()
    confirm_dialog(page)
    expect(page.locator(".flash")).to_contain_text("取り消しました")
    assert page.locator('[data-testid="entry-1"]').count() == 0
    removed = page.locator('[data-testid="removed-1"]')
    assert "ロン 伊藤←中村" in removed.text_content()
    removed.locator('input[name="reason"]').fill("この卓の記録でした")
    removed.locator('[data-testid="restore-1"]').click()
    confirm_dialog(page)
    expect(page.locator(".flash")).to_contain_text("戻しました")
    assert "ロン 伊藤←中村" in page.locator('[data-testid="entry-1"]').text_content()
    assert page.locator('[data-testid="standing"]').text_content() == scores
    shot(page, "staff-restore-1024")

    gid = club["finished"]
    page.goto(f"{club['url']}/staff/games/{gid}")
    page.fill('form[action$="/void"] input[name="reason"]', "ルール違い")
    page.click('[data-testid="void"]')
    confirm_dialog(page)
    expect(page.locator('[data-testid="game-status"]')).to_have_text("無効")
    page.fill('form[action$="/unvoid"] input[name="reason"]', "ルールは正しかった")
    page.click('[data-testid="unvoid"]')
    confirm_dialog(page)
    expect(page.locator('[data-testid="game-status"]')).to_have_text("終了")
    shot(page, "staff-unvoid-1024")
    assert page.js_errors == []


def test_staff_audit_details_in_words(browser, club):
    page = sign_in(browser, club, PHONE)
    page.goto(f"{club['url']}/staff/audit?game={club['finished']}")
    entries = page.locator(".audit-entry")
    assert entries.count() >= 3
    corrected = page.locator('.audit-entry[data-action="hand.correct"]').first
    text = corrected.text_content()
    assert "記録 1 を訂正" in text and "4翻の申告ミス" in text
    assert "3翻30符" in corrected.locator(".before").text_content()
    assert "4翻30符" in corrected.locator(".after").text_content()
    assert "中村" in corrected.locator(".after").text_content()        # the scores, by name
    unvoid = page.locator('.audit-entry[data-action="game.unvoid"]').first
    assert "無効" in unvoid.locator(".before").text_content()
    assert "終了" in unvoid.locator(".after").text_content()
    no_horizontal_overflow(page)
    shot(page, "staff-audit-390")
    # filtered by table and by staff member; English on the switch
    page.goto(f"{club['url']}/staff/audit?table=t2&actor=staff:{STAFF[0]}&lang=en")
    assert page.locator('.audit-entry[data-action="hand.restore"]').count() == 1
    assert page.locator('.audit-entry[data-action="game.unvoid"]').count() == 0
    assert "restored entry 1 of game" in page.locator(".audit-list").text_content()
    shot(page, "staff-audit-filtered-en-390")
    assert page.js_errors == []
