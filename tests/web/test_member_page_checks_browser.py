"""The players' side's pages in real Chromium against ``python -m web serve``: each page in
Japanese without English words or raw ids and in English on the switch, no sideways
scroll on a 390 px phone; a manager erases a member's data through the confirmation
step; every route of the app is in the OpenAPI document or a page with its reason."""

from __future__ import annotations

import re

import pytest

from club import club_tables, members, roster
from club.accounts import create_staff
from club.db import connect
from tests.club.test_daily_report import DAY, END, RULES, jst, play
from tests.support.browser import expect, shot
from tests.support.web_server import WebServer
from tests.web.staff_support import module_browser, no_horizontal_overflow, sign_in
from web import create_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]
browser = pytest.fixture(scope="module", name="browser")(module_browser)

PHONE = {"width": 390, "height": 844}
OWNER = ("mika", "mahjong-club")
ENGLISH = re.compile(r"[A-Za-z]{3,}")
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
NAMES = ("御手洗遥香", "佐藤", "鈴木", "高橋")
CHAIN_ID = re.compile(r"\bJM-[A-Z0-9]+\b")
"""A chain member id as the member card prints it (an id a person reads out, not a word)."""


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("member-page-checks") / "club.sqlite")
    create_app({"DATABASE": path, "SECRET_KEY": "x", "TESTING": True})
    db = connect(path)
    create_staff(db, *OWNER)                                  # the first account: the owner
    for rid, text in RULES.items():
        club_tables.save_rule_set(db, rid, text, actor="owner")
    club_tables.save_table(db, "t1", "卓1", "house-4a")
    ids = [roster.add_player(db, n, member_no=f"M{i:03d}")["id"] for i, n in enumerate(NAMES)]
    win = {"event": "win", "winners": [{"seat": 0, "han": 5, "fu": 30}]}
    game = play(db, "t1", ids, [win, END], jst(DAY, "13:00"), jst(DAY, "14:10"))
    token, _ = members.issue_link(db, ids[2])
    members.set_pin(db, ids[2], "482157")
    db.conn.close()
    server = WebServer(path).start()
    yield {"url": server.url, "db": path, "ids": ids, "game": game, "token": token}
    server.stop()


def pages(club) -> dict[str, str]:
    """Every page of the players' side: the member's own, and the staff's new pages."""
    me, token = club["ids"][2], club["token"]
    return {
        "member": f"/m/{token}",
        "member-settings": f"/m/{token}/settings",
        "member-desk": f"/staff/players/{me}/member",
        "report-card": f"/staff/report-cards?player={me}&day={DAY}",
        "report-card-game": f"/staff/report-cards?player={me}&game={club['game']}",
        "printing": "/staff/printing",
        "notify": "/staff/notify",
        "member-data": f"/staff/players/{me}/data",
    }


ALLOWED = ("jantaku-print.service", "PIN", "JSON", "LINE", "QR", "ESC/POS", "Asia/Tokyo")
"""Words a Japanese page may show as they are: names of things (a service staff check, a
time zone, a format), not English sentences."""


@pytest.mark.parametrize("name", ["member", "member-settings", "member-desk", "report-card",
                                  "report-card-game", "printing", "notify", "member-data"])
def test_member_page_every_new_page_in_one_language_without_sideways_scroll(browser, club,
                                                                            name):
    page = sign_in(browser, club, PHONE, name=OWNER[0], password=OWNER[1])
    url = club["url"] + pages(club)[name]
    answer = page.goto(url + ("&" if "?" in url else "?") + "lang=ja")
    assert answer.status == 200, name
    body = page.locator("body").inner_text()
    assert JAPANESE.findall(body), name
    # the member's LINE code is a value drawn from letters and digits, not a word
    codes = page.locator('[data-testid="member-line-code"]').all_inner_texts()
    japanese_only(body, *ALLOWED, *codes, "mika", "English")  # the switch names its language
    for raw in ("house-4a", "riichi4", "None", "null", "undefined"):
        assert raw not in body, (name, raw)
    no_horizontal_overflow(page)
    shot(page, f"member-page-check-{name}-ja-390")
    page.goto(url + ("&" if "?" in url else "?") + "lang=en")
    body = page.locator("body").inner_text()
    for own in (*NAMES, "卓1", "退会者", "日本語"):         # the club's own names, the switch
        body = body.replace(own, "")
    assert JAPANESE.findall(body) == [], (name, body)
    no_horizontal_overflow(page)
    shot(page, f"member-page-check-{name}-en-390")
    assert page.js_errors == [], name


def test_member_page_every_route_is_in_the_openapi_document_or_a_page_with_its_reason():
    """The document covers every route of the players' side as the rest of the app's
    (the fuzz's own check, run with this part's tests)."""
    from tests.web.test_openapi_fuzz import PAGES, _doc_path
    from web.api.openapi import OPENAPI

    app = create_app({"DATABASE": ":memory:", "SECRET_KEY": "x", "TESTING": True})
    missing = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint in PAGES:
            continue
        ops = OPENAPI["paths"].get(_doc_path(rule), {})
        missing += [f"{m} {rule.rule}" for m in sorted(rule.methods - {"HEAD", "OPTIONS"})
                    if m.lower() not in ops]
    assert missing == []


def japanese_only(text: str, *allowed: str) -> None:
    """A Japanese page: no English word (the club's own names and a few marks aside)."""
    for word in allowed:
        text = text.replace(word, "")
    assert ENGLISH.findall(text) == [], text


def test_member_page_data_page_in_japanese_and_english_on_a_phone(browser, club):
    page = sign_in(browser, club, PHONE, name=OWNER[0], password=OWNER[1])
    me = club["ids"][1]
    page.goto(f"{club['url']}/staff/players/{me}/data")
    body = page.locator("main").inner_text()
    assert "会員データ" in body and NAMES[1] in body
    japanese_only(body, "JSON", "PIN")
    no_horizontal_overflow(page)
    shot(page, "staff-member-data-ja-390")
    page.goto(f"{club['url']}/staff/players/{me}/data?lang=en")
    body = page.locator("main").inner_text()
    assert "Member data" in body
    assert JAPANESE.findall(body.replace(NAMES[1], "").replace("退会者", "")) == [], body
    no_horizontal_overflow(page)
    assert page.js_errors == []


def test_member_page_data_erase_through_the_confirmation_step(browser, club):
    page = sign_in(browser, club, PHONE, name=OWNER[0], password=OWNER[1])
    me = club["ids"][0]
    page.goto(f"{club['url']}/staff/players")
    page.click(f'[data-testid="player-data-{me}"]')
    page.wait_for_url(f"**/staff/players/{me}/data")
    with page.expect_download() as got:
        page.click('[data-testid="member-data-download"]')
    assert got.value.suggested_filename == f"member-{me}-data.json"
    form = page.locator('[data-testid="member-data-erase"] form')
    form.locator("input[name=reason]").fill("本人の退会の申し出")
    form.locator("input[name=confirm]").fill("999")             # the wrong number first
    form.locator("button").click()
    page.locator("dialog.confirm-dialog [value=ok]").click()
    expect(page.locator('[data-testid="member-data-error"]')).to_contain_text(
        f"番号 {me} を入力")
    form = page.locator('[data-testid="member-data-erase"] form')
    assert form.locator("input[name=reason]").input_value() == "本人の退会の申し出"
    form.locator("input[name=confirm]").fill(str(me))
    form.locator("button").click()
    page.locator("dialog.confirm-dialog [value=cancel]").click()   # cancel: nothing sent
    assert NAMES[0] in page.locator("main").inner_text()
    form.locator("button").click()
    page.locator("dialog.confirm-dialog [value=ok]").click()
    expect(page.locator(".flash")).to_contain_text(f"退会者 #{me}")
    expect(page.locator('[data-testid="member-data-erased"]')).to_be_visible()
    assert NAMES[0] not in page.locator("main").inner_text()
    no_horizontal_overflow(page)
    shot(page, "staff-member-data-erased-390")
    page.goto(f"{club['url']}/leaderboard/games/{club['game']}")
    text = page.locator("body").inner_text()
    assert f"退会者 #{me}" in text and NAMES[1] in text
    assert page.js_errors == []


def check_page(page, name: str) -> None:
    """The page as it stands: Japanese without English words, no sideways scroll."""
    body = CHAIN_ID.sub("", page.locator("body").inner_text())
    assert JAPANESE.findall(body), name
    codes = page.locator('[data-testid="member-settings-line-code"]').all_inner_texts()
    japanese_only(body, *ALLOWED, *codes, "mika", "English")   # the LINE code is a value
    no_horizontal_overflow(page)
    shot(page, f"member-page-check-{name}-ja-390")


def test_member_page_settings_behind_the_pin_and_the_member_card_on_a_phone(browser, club):
    """The two pages reached by a form: the member's settings once the number and PIN are
    right, and the member card the desk prints (last: printing a card issues a new link)."""
    me, token = club["ids"][2], club["token"]
    ctx = browser.new_context(viewport=PHONE, locale="ja-JP")
    phone = ctx.new_page()
    phone.js_errors = []
    phone.on("pageerror", lambda e: phone.js_errors.append(str(e)))
    phone.goto(f"{club['url']}/m/{token}/settings")
    form = phone.locator('[data-testid="member-pin-form"]')
    form.locator("input[name=member_no]").fill("M002")
    form.locator("input[name=pin]").fill("482157")
    form.locator("button").click()
    expect(phone.locator('[data-testid="member-settings-form"]')).to_be_visible()
    check_page(phone, "member-settings-open")
    assert phone.js_errors == []
    ctx.close()
    desk = sign_in(browser, club, PHONE, name=OWNER[0], password=OWNER[1])
    desk.goto(f"{club['url']}/staff/players/{me}/member")
    desk.click('[data-testid="member-card"]')
    desk.locator("dialog.confirm-dialog [value=ok]").click()     # a new link for the card
    expect(desk.locator('[data-testid="member-card-print"]')).to_be_visible()
    check_page(desk, "member-card")
    assert desk.js_errors == []
