"""The staff console's records on a club night, in real Chromium against ``python -m web
serve`` (no table daemon): a correction that changes players' results asks exactly
those players to confirm again; the correction form names a refused field in words; the
daily report (日報) in one language, with names and one sign for money paid."""

from __future__ import annotations

import json
import re
import uuid

import pytest

from club import club_tables, corrections, games, roster
from club.accounts import create_staff
from club.db import connect
from tests.club.test_daily_report import DAY, build_day, jst
from tests.support.browser import expect, shot
from tests.support.web_server import WebServer
from tests.web.staff_support import STAFF, module_browser, no_horizontal_overflow, sign_in
from web import create_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]
browser = pytest.fixture(scope="module", name="browser")(module_browser)

LAPTOP, PHONE = {"width": 1024, "height": 768}, {"width": 390, "height": 844}
NAMES = ("中村", "伊藤", "佐藤", "加藤")
RON = {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "from": 0, "riichi": [2]}
DRAW = {"event": "draw", "tenpai": [0, 3]}


def _game(db, table, events) -> int:
    ids = [p["id"] for p in roster.list_players(db) if p["name"] in NAMES]
    ids.sort(key=lambda i: NAMES.index(roster.get_player(db, i)["name"]))
    gid = games.start_game(db, table, ids, idempotency_key=uuid.uuid4().hex)["game"]["id"]
    for i, e in enumerate(events, 1):
        games.record_event(db, gid, e, expected_seq=i, idempotency_key=uuid.uuid4().hex)
    games.end_game(db, gid, expected_seq=len(events) + 1, idempotency_key=uuid.uuid4().hex)
    return gid


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("staff-night-records") / "club.sqlite")
    create_app({"DATABASE": path, "SECRET_KEY": "x", "TESTING": True})
    db = connect(path)
    create_staff(db, *STAFF)
    club_tables.save_table(db, "t1", "卓1", "nekohouse-4a")
    for n in NAMES:
        roster.add_player(db, n)
    confirmed = _game(db, "t1", [RON, DRAW])
    for seat in range(4):
        games.confirm_result(db, confirmed, seat, actor="staff:" + STAFF[0])
    other = _game(db, "t1", [RON, DRAW])
    club_tables.save_table(db, "t2", "卓2 四人A", "nekohouse-4a")
    ids = [p["id"] for p in roster.list_players(db) if p["name"] in NAMES]
    live = games.start_game(db, "t2", ids, idempotency_key=uuid.uuid4().hex)["game"]["id"]
    db.conn.close()
    server = WebServer(path).start()
    yield {"url": server.url, "db": path, "confirmed": confirmed, "other": other, "live": live}
    server.stop()


def test_correction_asks_again_only_the_seats_whose_result_changed(browser, club):
    page = sign_in(browser, club, LAPTOP)
    gid = club["confirmed"]
    page.goto(f"{club['url']}/staff/games/{gid}")
    for seat in range(4):
        expect(page.locator(f'[data-testid="confirmed-{seat}"]')).to_contain_text("✓")
    page.click('[data-testid="fix-1"]')
    page.select_option('[data-testid="fix-han-0"]', "4")
    expect(page.locator('[data-testid="fix-preview"]')).to_contain_text("4翻30符")
    page.fill('[data-testid="fix-reason"]', "4翻の申告ミス")
    page.click('[data-testid="fix-submit"]')
    expect(page.locator(".flash")).to_contain_text("訂正しました")
    # 伊藤 won more, 中村 paid more and 佐藤 moved from fourth to third: each confirms
    # again; 加藤 (second, 26,500 both ways) keeps the confirmation given.
    for seat in (0, 1, 2):
        cell = page.locator(f'[data-testid="confirmed-{seat}"]')
        assert "✓" not in cell.text_content()
        expect(cell.locator(f'[data-testid="confirm-for-{seat}"]')).to_be_visible()
    expect(page.locator('[data-testid="confirmed-3"]')).to_contain_text("✓")
    shot(page, "staff-correct-reconfirm-1024")
    db = connect(club["db"])
    try:
        seats = games.get_game(db, gid)["seats"]
    finally:
        db.conn.close()
    assert [bool(s.get("confirmed_at")) for s in seats] == [False, False, False, True]
    # the audit log says who was asked again
    page.goto(f"{club['url']}/staff/audit?game={gid}")
    corrected = page.locator('.audit-entry[data-action="hand.correct"]').first
    expect(corrected.locator(".after")).to_contain_text("確認し直し: 中村、伊藤、佐藤")
    assert page.js_errors == []


def test_correction_that_changes_no_result_keeps_every_confirmation(browser, club):
    """Riichi moved from 佐藤 to nobody changes scores; a correction to the same hand
    again (same result) leaves every ✓ in place."""
    gid = club["other"]
    db = connect(club["db"])
    try:
        for seat in range(4):
            games.confirm_result(db, gid, seat, actor="staff:" + STAFF[0])
        corrections.correct_hand(db, gid, 2, {"event": "draw", "tenpai": [3, 0]},
                           actor="staff:" + STAFF[0], reason="同じ結果")
        seats = games.get_game(db, gid)["seats"]
    finally:
        db.conn.close()
    assert all(s.get("confirmed_at") for s in seats)


@pytest.fixture(scope="module")
def day_club(tmp_path_factory):
    d = build_day(str(tmp_path_factory.mktemp("staff-night-report") / "club.sqlite"))
    db = connect(d["path"])
    create_staff(db, *STAFF)
    live = games.start_game(db, "t4", [d["ids"][n] for n in "ABCD"],
                            idempotency_key=uuid.uuid4().hex)["game"]["id"]
    db.execute("UPDATE games SET started_at = ? WHERE id = ?", [jst(DAY, "22:15"), live])
    db.conn.close()
    server = WebServer(d["path"]).start()
    yield {**d, "url": server.url, "live": live}
    server.stop()


ENGLISH = re.compile(r"[A-Za-z]{3,}")
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["390", "1024"])
def test_daily_report_in_one_language_with_names_and_one_sign(browser, day_club, viewport):
    page = sign_in(browser, day_club, viewport)
    page.goto(f"{day_club['url']}/staff/report?day={DAY}")
    report = page.locator(".report")
    text = report.inner_text()
    # Japanese page: no English, no raw ids; tables, rule sets and families by name
    assert ENGLISH.findall(text.replace("Asia/Tokyo", "")) == []
    for raw in ("house-4a", "house-3a", "riichi4", "riichi3", "t1", "t4"):
        assert raw not in text
    unfinished = page.locator('[data-testid="report-unfinished"]')
    expect(unfinished).to_contain_text(f"対局 #{day_club['live']}（卓4、{DAY} 22:15 開始）")
    expect(page.locator('[data-testid="report-rules"]')).to_contain_text("三人打ち")
    # one sign: what a player pays is negative (場代 like トップ賞 paid), as in 差引
    a = page.locator('[data-testid="report-accounts"] tr[data-player="A"]')
    expect(a).to_contain_text("-¥1,100")                 # 場代 paid
    c = page.locator('[data-testid="report-accounts"] tr[data-player="C"]')
    expect(c).to_contain_text("-¥600")                   # トップ賞 paid
    no_horizontal_overflow(page)
    shot(page, f"staff-report-ja-{viewport['width']}")
    page.goto(f"{day_club['url']}/staff/report?day={DAY}&lang=en")
    text = page.locator(".report").inner_text()
    for name in ("卓2 東風", "卓3 三麻", "卓1", "卓4", "ゲスト1"):   # the club's own names stay
        text = text.replace(name, "")
    assert JAPANESE.findall(text) == [], text
    expect(page.locator('[data-testid="report-unfinished"]')).to_contain_text(
        f"game #{day_club['live']} (卓4, started {DAY} 22:15)")
    shot(page, f"staff-report-en-{viewport['width']}")
    # the printable page is the same report, in the reader's language
    page.goto(f"{day_club['url']}/staff/report/print?day={DAY}&lang=ja")
    text = page.locator("body").inner_text()
    assert "日報" in text and "Daily report" not in text and "-¥1,100" in text
    assert page.js_errors == []


@pytest.mark.parametrize("lang", ["ja-JP", "en-US"])
def test_correction_form_names_a_refused_field_in_words(browser, club, lang):
    """A chip count out of range is refused beside the form naming the field as staff see
    it (「1人目の和了者の祝儀」), never its path in the request."""
    page = sign_in(browser, club, PHONE, lang=lang)
    page.goto(f"{club['url']}/staff/games/{club['other']}")
    page.click('[data-testid="fix-1"]')
    page.locator("#fix details.advanced summary").click()
    event = dict(RON, winners=[{"seat": 1, "han": 3, "fu": 30, "chips": -1}])
    page.fill("#fix textarea[name=event]", json.dumps(event))
    words = "1人目の和了者の祝儀: -1 は範囲外です" if lang == "ja-JP" else \
        "chips of winner 1: -1 is out of range"
    expect(page.locator('[data-testid="fix-preview-error"]')).to_contain_text(words)
    page.fill('[data-testid="fix-reason"]', "祝儀の訂正")
    page.click('[data-testid="fix-submit"]')
    error = page.locator('[data-testid="fix-error"]')
    expect(error).to_contain_text(words)
    assert "winners[" not in error.text_content() and "event." not in error.text_content()
    no_horizontal_overflow(page)
    shot(page, f"staff-correct-field-words-390-{lang[:2]}")
    assert page.js_errors == []


def test_console_pages_name_tables_and_rule_sets_in_the_pages_language(browser, club):
    """Tables by the club's names (卓2 四人A), rule sets by their names in the page's
    language, never an id, a bilingual title or a request's field: the waiting list,
    the games, a game, the tablets and their pairing page, event nights."""
    page = sign_in(browser, club, PHONE)

    def main_text() -> str:
        return page.locator("main").inner_text()

    page.goto(f"{club['url']}/staff/waiting")
    wishes = page.locator('[data-testid="waiting-wish"] option').all_text_contents()
    assert "ねこはうす 四人打ち半荘戦Aルール" in wishes
    assert not [w for w in wishes if "/" in w or "nekohouse" in w or ENGLISH.search(
        w.replace("MCR", ""))], wishes
    # a player at a table is named at the table by its name
    page.select_option('[data-testid="waiting-player"]', label="中村")
    page.click('[data-testid="waiting-submit"]')
    expect(page.locator('[data-testid="waiting-error"]')).to_contain_text(
        "中村 さんは卓2 四人Aで対局中です")
    no_horizontal_overflow(page)
    shot(page, "staff-waiting-names-390")

    page.goto(f"{club['url']}/staff/players")
    assert "卓2 四人Aで対局中" in main_text() and "卓 t2" not in main_text()

    page.goto(f"{club['url']}/staff/games")
    text = main_text()
    assert "卓2 四人A" in text and "ねこはうす 四人打ち半荘戦Aルール" in text
    assert "nekohouse" not in text and "t2" not in text
    page.goto(f"{club['url']}/staff/games/{club['live']}")
    facts = page.locator(".facts-line").inner_text()
    assert "卓2 四人A" in facts and "ねこはうす 四人打ち半荘戦Aルール" in facts, facts
    assert "Nekohouse" not in facts and "t2" not in facts

    page.goto(f"{club['url']}/staff/nights")
    rules = page.locator('[data-testid="night-rules"] option').all_text_contents()
    assert "ねこはうす 四人打ち半荘戦Aルール" in rules and not [r for r in rules if "(" in r
                                                          and "MCR" not in r]

    page.goto(f"{club['url']}/staff/tablets")
    page.select_option('select[name="table_id"]', "t1")
    page.fill('input[name="label"]', "demo")
    page.locator('form[action$="/staff/tablets"] button').click()
    expect(page.locator("#issued h1")).to_contain_text("卓1")
    assert "(t1)" not in page.locator("#issued h1").inner_text()
    assert "t1" not in page.locator("table.list").inner_text()
    url = page.locator("[data-pair-url]").get_attribute("href")
    tablet = browser.new_context(viewport=PHONE, locale="ja-JP").new_page()
    tablet.goto(url)
    expect(tablet.locator('[data-testid="pair-table"]')).to_have_text("卓1")
    assert "t1" not in tablet.locator("main").inner_text()
    assert "demo" not in tablet.locator("main").inner_text()
    shot(tablet, "pair-names-390")
    page.goto(f"{club['url']}/staff/games/{club['live']}?lang=en")
    facts = page.locator(".facts-line").inner_text()
    assert "Nekohouse four-player hanchan, rule A" in facts and "ねこはうす" not in facts
    assert page.js_errors == []
