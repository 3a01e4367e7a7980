"""A club night walked through a third time, in real Chromium against a real server: the
tablet's MCR penalty in MCR amounts, the stick count on the floor, the layout at 390 px
and no console error on the console's pages."""

from __future__ import annotations

import pytest

from tests.support.browser import chromium, expect
from tests.support.tablet import SIZES, Tablet, open_tablet, running_club
from tests.web.staff_support import STAFF, sign_in, text_lines

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TABLES = {"t1": "nekohouse-4a", "t2": "mcr", "t3": "nekohouse-4a"}
PHONE = SIZES["390"]
RON = {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "from": 0}
BIG = {"event": "win", "winners": [{"seat": 2, "yakuman": 1}], "from": 3}


def _finished_games(path: str, table: str, ids, rule_sets) -> list[int]:
    """One finished game at ``table`` under each of ``rule_sets``."""
    import uuid

    from club import games
    from club.db import connect
    db = connect(path)
    out = []
    try:
        for rs in rule_sets:
            gid = games.start_game(db, table, list(ids), idempotency_key=uuid.uuid4().hex,
                                   rule_set=rs)["game"]["id"]
            for i, e in enumerate([RON, BIG], 1):
                games.record_event(db, gid, e, expected_seq=i, idempotency_key=uuid.uuid4().hex)
            if games.get_game(db, gid)["status"] != "finished":
                games.end_game(db, gid, expected_seq=3, idempotency_key=uuid.uuid4().hex)
            out.append(gid)
    finally:
        db.conn.close()
    return out


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    from club.accounts import create_staff
    from club.db import connect
    with running_club(str(tmp_path_factory.mktemp("night3") / "club.sqlite"), TABLES) as c:
        db = connect(c["db"])
        create_staff(db, *STAFF)
        db.conn.close()
        c["finished"] = _finished_games(c["db"], "t3", c["seats"]["t3"],
                                        ["nekohouse-4a", "nekohouse-4b", "netmahjong",
                                         "mahjongbu"])
        yield c


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def started(browser, club, table_id, size="390", rules=None) -> Tablet:
    ctx = browser.new_context(viewport=SIZES[size], locale="ja-JP")
    tab = Tablet(open_tablet(ctx, club["url"], club["secrets"][table_id], table_id))
    if tab.page.locator('[data-testid="live"]').count() == 0:
        tab.start(club["seats"][table_id], rules=rules)
    return tab


def test_mcr_points_penalty_in_mcr_amounts(browser, club):
    """mcr.toml: a points penalty is 10 to each other player (30 shared), in steps of 10
    per player; not the riichi tables' 3,000 in steps of 300."""
    tab = started(browser, club, "t2", rules="mcr")
    page = tab.page
    tab.open("penalty")
    tab.tap('[data-testid="who-1"]')
    tab.tap('[data-testid="penalty-points"]')
    amount = page.locator('[data-testid="points-amount"]')
    expect(amount.locator(".stepper-value")).to_have_text("30")
    assert amount.locator(".minus").is_disabled()               # 30 is the least shared
    amount.locator(".plus").click()
    expect(amount.locator(".stepper-value")).to_have_text("60")
    tab.tap('[data-testid="to-2"]')                             # paid to one player
    amount.locator(".minus").click()
    expect(amount.locator(".stepper-value")).to_have_text("50")
    tab.cancel()
    assert page.js_errors == []


def _member_link(club, pid: int = 1) -> str:
    from club import members
    from club.db import connect
    db = connect(club["db"])
    try:
        db.execute("UPDATE players SET member_no = ? WHERE id = ?", [f"M{pid:03d}", pid])
        db.conn.commit()
        members.set_pin(db, pid, "482157")
        token, _ = members.issue_link(db, pid)
    finally:
        db.conn.close()
    return f"{club['url']}/m/{token}"


def _heights(page, selector: str) -> list[float]:
    return page.locator(selector).evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().height)")


def test_member_settings_sign_in_styled_for_a_finger(browser, club):
    """At 390 px the settings' sign-in fields and button are at least 44 px tall and the
    opt-in boxes 24 px (they were 21 and 13 px, unstyled); m001 opens it as M001."""
    ctx = browser.new_context(viewport=SIZES["390"], locale="ja-JP")
    page = ctx.new_page()
    page.goto(_member_link(club) + "/settings")
    form = '[data-testid="member-pin-form"]'
    assert min(_heights(page, f"{form} input:not([type=hidden]), {form} button")) >= 44
    page.fill(f'{form} input[name="member_no"]', "m001")
    page.fill(f'{form} input[name="pin"]', "482157")
    page.click(f"{form} button")
    boxes = '[data-testid="member-settings-form"] input[type=checkbox]'
    expect(page.locator(boxes).first).to_be_visible()
    assert min(_heights(page, boxes)) >= 24
    assert min(_heights(page, '[data-testid="member-settings-form"] input[type=email]')) >= 44
    assert page.locator("html").evaluate("e => e.scrollWidth") <= 390
    ctx.close()


def test_layout_at_390_headers_and_the_daily_report(browser, club):
    """At 390 px: the game list's headers read whole (「状態」, not 「状/態」), and the
    日報's by-table table is a table's width, not 2,643 px of rule-set names side by side
    (t5's display numbers: test_stock_table_browser.py, on the demo's stock table)."""
    page = sign_in(browser, club, PHONE)
    page.goto(club["url"] + "/staff/games")
    heads = page.locator("table.list th")
    assert heads.count() >= 6
    assert text_lines(heads) == [1] * heads.count()
    page.goto(club["url"] + "/staff/report")
    width = page.locator('[data-testid="report-tables"]').evaluate("e => e.scrollWidth")
    assert width <= 1300, f"the by-table table is {width} px wide"
    assert page.locator("html").evaluate("e => e.scrollWidth") <= 390
    assert page.js_errors == []
    page.context.close()


def _dip_below_the_start(path: str, pid: int) -> None:
    """The player's R as the club night had it: 0.6 below the start after a game, then
    well above it (one R line per game of theirs, in their first family, rewritten in
    place: the rating a few games give moves by tens, never by a fraction)."""
    from club.db import connect
    db = connect(path)
    try:
        lines = db.execute("SELECT family, game_id, seat FROM rating_lines WHERE player_id = ? "
                           "ORDER BY club_day, ended_at, game_id", [pid]).fetchall()
        family = lines[0][0]
        mine = [x for x in lines if x[0] == family]
        assert len(mine) >= 2
        for (_, game, seat), r in zip(mine, [1499.4] + [1515.0] * (len(mine) - 1),
                                      strict=True):
            db.execute("UPDATE rating_lines SET r_after = ? WHERE game_id = ? AND seat = ?",
                       [r, game, seat])
        db.conn.commit()
    finally:
        db.conn.close()


def test_member_page_at_390_reads_whole(browser, club):
    """A member's page at 390 px: the history's 合計 column is shown whole (it was cut to
    "+"), and the R chart's axis labels do not overlap (1,500 over 1,499)."""
    pid = club["seats"]["t3"][0]
    _dip_below_the_start(club["db"], pid)
    ctx = browser.new_context(viewport=PHONE, locale="ja-JP")
    page = ctx.new_page()
    page.goto(_member_link(club, pid))
    table = page.locator('[data-testid="member-history"]')
    expect(table).to_be_visible()
    fits = table.evaluate("t => t.scrollWidth <= t.parentElement.clientWidth")
    assert fits, "the history table is wider than its box: its last column is cut"
    last = table.locator("tbody tr td:last-child").first
    box, frame = last.bounding_box(), table.locator("xpath=..").bounding_box()
    assert box["x"] + box["width"] <= frame["x"] + frame["width"] + 0.5
    texts = page.locator('[data-testid="member-rating-chart"] svg text').all_text_contents()
    assert "1,500" in texts and "1,515" in texts
    labels = page.locator('[data-testid="member-rating-chart"] svg text').evaluate_all(
        "els => els.map(e => e.getBoundingClientRect())"
        ".map(r => [r.left, r.top, r.right, r.bottom])")
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            apart = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
            assert apart, f"chart labels overlap: {a} {b}"
    ctx.close()


@pytest.mark.parametrize("size", ["390", "1024"])
def test_every_seats_riichi_button_is_in_sight(browser, club, size):
    """The bottom seat's riichi button was below the window at 390 px and at 1024×768: a
    player declares riichi without scrolling, from every seat."""
    from tests.support.tablet import in_sight
    tab = started(browser, club, "t1", size=size)
    page = tab.page
    page.evaluate("window.scrollTo(0, 0)")
    for seat in range(4):
        button = page.locator(f'[data-testid="riichi-{seat}"]')
        expect(button).to_have_count(1)
        assert in_sight(button), f"riichi-{seat} is out of sight at {size}"
    page.context.close()


def test_console_pages_log_no_error(browser, club):
    """The rule-id field's pattern was an invalid regular expression under Chromium's
    v-flag patterns (a console error on every visit); the console's pages log none."""
    page = sign_in(browser, club, PHONE)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    for path in ("/staff/games", "/staff/report", "/staff/audit",
                 f"/staff/games/{club['finished'][0]}", "/staff/rulesets"):
        page.goto(club["url"] + path)
        page.wait_for_load_state("load")
    page.fill('input[name="id"]', "house-4a")
    assert page.locator('input[name="id"]').evaluate("e => e.checkValidity()")
    page.fill('input[name="id"]', "-bad")
    assert not page.locator('input[name="id"]').evaluate("e => e.checkValidity()")
    assert errors == [] and page.js_errors == []
    page.context.close()


def test_end_panel_previews_the_settlement(browser, club):
    """The end panel shows each seat's place and settled result, not four zeros; the gap
    under a seat's score, repainted after the hand, is named (トップまで 7,800), never a
    bare -7,800 that reads as a payment."""
    tab = started(browser, club, "t1", size="390")
    page = tab.page
    tab.ron([(1, 3, 30)], 0)
    gaps = [page.locator(f'[data-testid="gap-{i}"]') for i in range(4)]
    expect(gaps[0]).to_contain_text("トップまで")
    assert all(not g.text_content().strip().startswith(("-", "+")) for g in gaps)
    tab.open("end")
    expect(page.locator('[data-testid="final-note"]')).to_be_visible()
    texts = [page.locator(f'[data-testid="final-{i}"]').text_content() for i in range(4)]
    assert any("1着" in x for x in texts) and not all(x.endswith(" 0") for x in texts)
    tab.cancel()
    page.context.close()


def test_the_till_and_money_pages_at_390(browser, club):
    """The till checked off by taps at 390 px until it balances; the money form previews
    a fee on the sample game; neither page scrolls sideways or logs a console error."""
    page = sign_in(browser, club, PHONE)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(club["url"] + "/staff/till")
    buttons = page.locator('button[data-testid^="till-cash-"]')
    assert buttons.count() >= 4
    for _ in range(buttons.count()):
        with page.expect_navigation():
            buttons.first.click()
    expect(page.locator('[data-testid="till-balanced"]')).to_be_visible()
    assert page.locator('[data-testid="till-open"]').text_content() == "0"
    assert page.locator("html").evaluate("e => e.scrollWidth") <= 390
    page.goto(club["url"] + "/staff/money")
    card = page.locator('[data-testid="money-nekohouse-4a"]')
    card.locator('select[name="fee_mode"]').select_option("per_game")
    card.locator('input[name="fee"]').fill("700")
    with page.expect_navigation():
        card.locator('[data-testid="money-preview-nekohouse-4a"]').click()
    card = page.locator('[data-testid="money-nekohouse-4a"]')
    expect(card.locator('[data-testid="sample-net-nekohouse-4a-1"]')).to_have_text("-¥700")
    expect(card.locator('[data-testid="money-cap-nekohouse-4a"]').first).to_contain_text("¥600")
    assert page.locator("html").evaluate("e => e.scrollWidth") <= 390
    assert errors == [] and page.js_errors == []
    page.context.close()


def test_tile_keypad_names_tiles_as_players_do(browser, club):
    """The tablet's tile keypad names tiles 1萬 / 5筒 / 9索 and the red five 赤5筒, as
    players say them (it wrote 1m, 5p★: ★ is the chips' mark); the chosen tiles read the
    same."""
    tab = started(browser, club, "t1", size="390")
    page = tab.page
    tab.open("ron")
    tab.winner(1)
    tab.tap('[data-testid="mode-1-tiles"]')
    keys = page.locator('[data-testid="winner-1"] .tile-key[data-tile]')
    named = dict(zip(keys.evaluate_all("els => els.map(e => e.dataset.tile)"),
                     keys.all_text_contents(), strict=True))
    assert (named["1m"], named["5p"], named["9s"], named["0p"], named["1z"]) \
        == ("1萬", "5筒", "9索", "赤5筒", "東")
    assert not any("★" in x or x[-1:] in ("m", "p", "s") for x in named.values()), named
    tab.tiles(1, ["1m", "0p", "7z"])
    expect(page.locator('[data-testid="winner-1"] .tile-target[data-target="hand"]')) \
        .to_have_text("手牌: 1萬 赤5筒 中")
    tab.cancel()
    assert page.js_errors == []
    page.context.close()


def test_line_friend_links_by_the_code_and_types_no_user_id(browser, club):
    """At 390 px a member's settings have no "U…" field: they show the code the member
    sends the club's LINE account (the one on their page); the signed webhook links the
    sender, the settings then say so and the member can unlink it there."""
    import json
    import threading
    from http.server import HTTPServer

    from club import line_link, members
    from club.db import connect
    from tests.web.test_club_money import _Platform
    from web import create_app
    link = _member_link(club, 2)
    ctx = browser.new_context(viewport=PHONE, locale="ja-JP")
    page = ctx.new_page()
    page.goto(link + "/settings")
    form = '[data-testid="member-pin-form"]'
    page.fill(f'{form} input[name="member_no"]', "M002")
    page.fill(f'{form} input[name="pin"]', "482157")
    with page.expect_navigation():
        page.click(f"{form} button")
    box = page.locator('[data-testid="member-settings-line"]')
    expect(box).to_contain_text("公式アカウントに送る")
    assert page.locator('input[name="line_user_id"]').count() == 0
    code = page.locator('[data-testid="member-settings-line-code"]').text_content()
    assert code and len(code) == line_link.CODE_LENGTH
    page.goto(link)
    expect(page.locator('[data-testid="member-line-code"]')).to_have_text(code)

    platform = HTTPServer(("127.0.0.1", 0), _Platform)
    platform.received = []
    threading.Thread(target=platform.serve_forever, daemon=True).start()
    secret, user = "channel-secret-of-the-club", "U" + "e" * 32
    try:
        app = create_app({"DATABASE": club["db"], "SECRET_KEY": "x", "TESTING": True,
                          "LINE_LINK": {"api_base": f"http://127.0.0.1:{platform.server_port}",
                                        "channel_secret": secret, "channel_token": "tok"}})
        body = json.dumps({"events": [{"type": "message", "replyToken": "rt",
                                       "source": {"userId": user},
                                       "message": {"type": "text", "text": code}}]}).encode()
        r = app.test_client().post("/m/line/webhook", data=body, headers={
            "Content-Type": "application/json",
            "X-Line-Signature": line_link.signature(secret, body)})
        assert r.status_code == 200 and r.get_json()["done"][0]["event"] == "linked"
        assert [p for p, _, _ in platform.received] == ["/v2/bot/message/reply"]
    finally:
        platform.shutdown()
        platform.server_close()

    page.goto(link + "/settings")
    expect(box).to_contain_text("LINE 登録済み")
    assert page.locator('[data-testid="member-settings-line-code"]').count() == 0
    page.check('[data-testid="member-line-unlink"]')
    with page.expect_navigation():
        page.click('[data-testid="member-settings-form"] button.btn-primary')
    expect(box).to_contain_text("公式アカウントに送る")
    db = connect(club["db"])
    try:
        assert (members.profile(db, 2) or {}).get("line_user_id") is None
    finally:
        db.conn.close()
    assert page.locator("html").evaluate("e => e.scrollWidth") <= 390
    ctx.close()
