"""The tablet on a club night in real Chromium against a real server: what a walk-through
at the tables at 390, 768 and 1024 px found, each fixed where a player sees it."""

from __future__ import annotations

import json
import urllib.request

import pytest

from tests.support.browser import chromium, expect, shot
from tests.support.tablet import SIZES, Tablet, in_sight, open_tablet, overflow, running_club

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TABLES = {"t1": "nekohouse-4a", "t2": "mcr", "t3": "nekohouse-4a", "t4": "nekohouse-4a",
          "t5": "mcr", "t6": "nekohouse-4a", "t7": "nekohouse-4a", "t8": "nekohouse-4a"}


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    with running_club(str(tmp_path_factory.mktemp("night") / "club.sqlite"), TABLES) as c:
        yield c


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def tablet(browser, club, table_id, size="1024", lang=None) -> Tablet:
    ctx = browser.new_context(viewport=SIZES[size], locale="ja-JP")
    return Tablet(open_tablet(ctx, club["url"], club["secrets"][table_id], table_id, lang))


def started(browser, club, table_id, size="1024", lang=None, rules=None) -> Tablet:
    """The table's tablet with a game on (started by its four players if none is)."""
    tab = tablet(browser, club, table_id, size, lang)
    if tab.page.locator('[data-testid="live"]').count() == 0:
        tab.start(club["seats"][table_id], rules=rules)
    return tab


def previews(page) -> list[str]:
    """Every preview request the page sends from now on."""
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.url.endswith("/preview") else None)
    return sent


# --------------------------------------------------------------------------- the penalty panel
@pytest.mark.parametrize("lang,words", [("ja", "種類を選んでください"), ("en", "Tap the kind")])
def test_penalty_asks_for_the_kind_in_words_before_any_request(browser, club, lang, words):
    tab = started(browser, club, "t1", lang=lang)
    page = tab.page
    sent = previews(page)
    tab.open("penalty")
    tab.tap('[data-testid="who-1"]')
    expect(page.locator('[data-testid="preview-hint"]')).to_have_text(words)
    page.wait_for_timeout(300)
    assert sent == []
    assert page.locator('[data-testid="panel-error"]').is_hidden()
    assert "event.kind" not in page.locator("#panel").text_content()
    assert page.locator("#panel-record").is_disabled()
    tab.tap('[data-testid="penalty-agari_houki"]')
    expect(page.locator('#panel-preview[data-checked="1"]')).to_have_count(1)
    assert len(sent) == 1 and page.locator('[data-testid="panel-error"]').is_hidden()
    tab.cancel()


# --------------------------------------------------------------------------- MCR totals
def test_mcr_total_above_the_best_hand_is_refused_before_sending(browser, club):
    tab = started(browser, club, "t2", rules="mcr")
    page = tab.page
    tab.open("ron")
    tab.winner(1)
    tab.discarder(0)
    for _ in range(2):
        tab.tap('[data-testid="winner-1"] .digit[data-digit="8"]')
    tab.preview()                                                       # 88: a hand
    sent = previews(page)
    tab.tap('[data-testid="winner-1"] .digit[data-digit="8"]')          # 888: a typo
    expect(page.locator('[data-testid="preview-hint"]')).to_contain_text(
        "888 番の手はありません。最高は 328 番です")
    page.wait_for_timeout(300)
    assert sent == [] and page.locator("#panel-record").is_disabled()
    assert page.locator('[data-testid="preview-0"]').count() == 0
    tab.tap('[data-testid="winner-1"] .digit[aria-label]')            # ⌫: 88 is a hand
    tab.preview()
    assert not page.locator("#panel-record").is_disabled()
    shot(page, "night-mcr-total")
    tab.cancel()


# --------------------------------------------------------------------------- a phone at 390×844
def test_phone_main_actions_and_common_choices_fit_without_scrolling(browser, club):
    """At 390×844 ロン/ツモ/流局 are in reach on a fresh live game (the R panel open), and the
    ron panel's common han and fu (40符 of 1 to 4 翻, 5翻 満貫) need no scroll either."""
    tab = started(browser, club, "t3", size="390")
    page = tab.page
    page.evaluate("window.scrollTo(0, 0)")       # the top of the page, as a fresh game opens
    assert page.locator('[data-testid="seat-ratings"]').get_attribute("open") is not None
    for action in ("ron", "tsumo", "draw"):
        assert in_sight(page.locator(f'.action[data-action="{action}"]')), action
    shot(page, "night-390-live")
    tab.open("ron")
    tab.winner(2)
    tab.discarder(0)
    for han in (1, 2, 3, 4):
        assert in_sight(page.locator(f'[data-testid="hf-2-{han}-40"]')), han
    assert in_sight(page.locator('[data-testid="hf-2-2-30"]'))
    assert in_sight(page.locator('[data-testid="han-2-h5"]'))
    assert in_sight(page.locator('[data-testid="panel-riichi-2"]'))
    assert page.locator("#panel-body").evaluate("b => b.scrollTop") == 0
    tab.tap('[data-testid="hf-2-2-40"]')
    tab.preview()
    assert in_sight(page.locator("#panel-record"))
    shot(page, "night-390-ron")
    tab.cancel()
    # folded, the R strip is its one line: no empty band under it
    strip = page.locator('[data-testid="seat-ratings"]')
    page.locator('[data-testid="seat-ratings"] summary').click()
    expect(page.locator('[data-testid="seat-rating-0"]')).to_be_hidden()
    summary = page.locator('[data-testid="seat-ratings"] summary').bounding_box()
    assert strip.bounding_box()["height"] <= summary["height"] + 8
    page.context.close()


def test_ron_with_riichi_in_the_panel_in_six_taps(browser, club):
    """The winner's riichi is marked beside the ron choices: open, winner, discarder,
    riichi, 2翻40符, record; the stored event says who declared, the table shows the stick."""
    tab = started(browser, club, "t4")
    page = tab.page
    with tab.counting() as taps:
        tab.open("ron")
        tab.winner(2)
        tab.discarder(3)
        tab.panel_riichi(2)
        expect(page.locator('[data-testid="kyoutaku"]')).to_have_text("供託 1,000点")
        assert page.locator('[data-testid="riichi-2"]').get_attribute("aria-pressed") == "true"
        tab.hanfu(2, 2, 40)
        tab.preview()
        tab.record()
        assert taps() == 6
    from tests.support.tablet import stored
    assert stored(club["db"], "t4")[2][-1] == {
        "event": "win", "winners": [{"seat": 2, "han": 2, "fu": 40}], "from": 3, "riichi": [2]}
    page.context.close()


# --------------------------------------------------------------------------- offline conflict
def test_offline_hand_for_a_game_ended_meanwhile(browser, club):
    """Cut off, a hand is queued while another device ends the game: once the server is back
    the page shows the server's game (the settlement), the queued hand waits beside it with a
    reason in words (no raw status), and the 「サーバーにつながりません」 notice is gone."""
    from tests.web.test_tablet_offline import WIFI, record_offline, ron_entry, send_now, wifi_down

    tab = started(browser, club, "t6", size="768")
    page = tab.page
    wifi_down(page)
    record_offline(tab, ron_entry(tab, 1, 0, 4, 30))
    expect(page.locator("#notice")).to_contain_text("サーバーにつながりません")
    # the queued line words a 切り上げ満貫 as the server's history does
    expect(page.locator('[data-testid^="queued-"] .q-line')).to_contain_text("4翻30符 満貫")
    # at 390 px the top bar's badges stay one line each, inside the page
    page.set_viewport_size(SIZES["390"])
    for badge in ('[data-testid="net-state"]', '[data-testid="queue-badge"]'):
        box = page.locator(badge)
        expect(box).to_be_visible()
        lines = box.evaluate("e => { const r = document.createRange(); r.selectNodeContents(e);"
                             " return new Set(Array.from(r.getClientRects(),"
                             " x => Math.round(x.top))).size; }")
        assert lines == 1, badge                                        # no wrapped text
    width, inner = overflow(page)
    assert width <= inner
    shot(page, "night-offline-badges-390")
    page.set_viewport_size(SIZES["768"])
    other = {"Authorization": "Bearer " + club["secrets"]["t6"],
             "Content-Type": "application/json"}
    for seq, event in ((1, {"event": "draw", "tenpai": [0]}), (2, {"event": "end"})):
        body = json.dumps({"event": event, "expected_seq": seq,
                           "idempotency_key": f"other-device-{seq}"}).encode()
        req = urllib.request.Request(club["url"] + "/api/tables/t6/hands", data=body,
                                     headers=other)
        assert urllib.request.urlopen(req).status == 201
    with page.expect_navigation(timeout=60_000):
        page.unroute(WIFI)
        send_now(page)
    tab.ready()
    expect(page.locator('[data-testid="settlement"]')).to_be_visible()
    assert page.locator('[data-testid="live"]').count() == 0
    error = page.locator('[data-testid^="queued-error-"]')
    expect(error).to_contain_text("終わっています")
    assert "finished" not in error.text_content()
    assert page.locator("#notice").is_hidden()
    assert page.locator('[data-testid="net-state"]').is_hidden()
    shot(page, "night-offline-game-over-768")
    tab.tap('[data-testid^="queued-drop-"]')
    tab.tap('[data-testid^="queued-drop-"]')
    expect(page.locator('[data-testid="queue-badge"]')).to_be_hidden()
    page.context.close()


# --------------------------------------------------------------------------- the day's accounts
@pytest.fixture(scope="module")
def money_club(tmp_path_factory):
    """The fixture day of the daily report (fees, top prize, chips): t2's game is finished."""
    from club.db import connect
    from tests.club.test_daily_report import build_day
    from tests.support.web_server import WebServer
    from web.security import issue_tablet_token

    d = build_day(str(tmp_path_factory.mktemp("night-money") / "club.sqlite"))
    db = connect(d["path"])
    try:
        secret = issue_tablet_token(db, "t2", label="night")
    finally:
        db.conn.close()
    server = WebServer(d["path"]).start()
    yield {"url": server.url, "secrets": {"t2": secret}}
    server.stop()


@pytest.mark.parametrize("size", ["390", "1024"])
def test_day_accounts_fit_a_phone(browser, money_club, size):
    """At 390 px the day's account table stays inside the page (it was 516 px wide, 差引
    outside the card): each player's figures on their own lines, each named."""
    tab = tablet(browser, money_club, "t2", size=size)
    page = tab.page
    accounts = page.locator('[data-testid="day-accounts"]')
    expect(accounts).to_be_visible()
    width, inner = overflow(page)
    assert width <= inner == SIZES[size]["width"], (width, inner)
    card = accounts.bounding_box()
    net = page.locator('[data-testid="account-net-0"]')
    box = net.bounding_box()
    assert card["x"] <= box["x"] and box["x"] + box["width"] <= card["x"] + card["width"]
    expect(page.locator('[data-testid="account-0"]')).to_contain_text("-¥2,450")
    accounts.scroll_into_view_if_needed()
    shot(page, f"night-accounts-{size}")
    page.context.close()


# --------------------------------------------------------------------------- the settlement
def test_phone_settlement_aligns_results_and_offers_the_same_table_again(browser, club):
    """At 390 px every result sits at the right end of its player's first line, plus or
    minus; 新しい対局 comes with the same rule set and players; their R strip counts 1 game."""
    tab = started(browser, club, "t7", size="390")
    page = tab.page
    seq = json.loads(page.locator("#page-data").text_content())["next_seq"]
    body = json.dumps({"event": {"event": "win", "winners": [{"seat": 1, "yakuman": 1}],
                                 "from": 0}, "expected_seq": seq,
                       "idempotency_key": "night-yakuman"}).encode()
    req = urllib.request.Request(club["url"] + "/api/tables/t7/hands", data=body, headers={
        "Authorization": "Bearer " + club["secrets"]["t7"], "Content-Type": "application/json"})
    assert urllib.request.urlopen(req).status == 201                      # 青木 busts
    page.reload()
    tab.ready()
    expect(page.locator('[data-testid="settlement"]')).to_be_visible()
    rights, values = [], []
    for seat in range(4):
        result = page.locator(f'[data-testid="result-{seat}"]').bounding_box()
        name = page.locator(f'[data-testid="sheet-row-{seat}"] td.name').bounding_box()
        assert abs(result["y"] - name["y"]) < name["height"], seat      # on the name's line
        rights.append(round(result["x"] + result["width"]))
        values.append(page.locator(f'[data-testid="result-{seat}"]').text_content().strip())
    assert len(set(rights)) == 1, (rights, values)
    assert any(v.startswith("+") for v in values) and any(v.startswith("-") for v in values)
    shot(page, "night-settlement-390")
    tab.tap("#new-game")
    expect(page.locator("#start")).to_be_visible()
    assert page.locator("#start-rules").input_value() == "nekohouse-4a"
    for seat, pid in enumerate(club["seats"]["t7"]):
        assert page.locator(f'[data-testid="seat-{seat}"]').input_value() == str(pid)
    with page.expect_navigation():
        tab.tap("#start-game")                                      # one tap: the same four
    page.goto(page.url.split("?")[0] + "?lang=en")
    tab.ready()
    expect(page.locator('[data-testid="seat-rating-1"]')).to_contain_text("1 game")
    assert "1 games" not in page.locator('[data-testid="seat-ratings"]').text_content()
    page.context.close()


def api_record(club, table: str, event: dict, seq: int) -> None:
    body = json.dumps({"event": event, "expected_seq": seq,
                       "idempotency_key": f"night-{table}-{seq}"}).encode()
    req = urllib.request.Request(club["url"] + f"/api/tables/{table}/hands", data=body, headers={
        "Authorization": "Bearer " + club["secrets"][table], "Content-Type": "application/json"})
    assert urllib.request.urlopen(req).status == 201


def test_member_confirms_with_a_hint_and_a_wrong_number_is_named_wrong(browser, club):
    from club.db import connect

    pid = club["seats"]["t8"][0]
    db = connect(club["db"])
    try:
        db.execute("UPDATE players SET member_no = 'M808' WHERE id = ?", [pid])
    finally:
        db.conn.close()
    tab = started(browser, club, "t8", size="390")
    page = tab.page
    api_record(club, "t8", {"event": "win", "winners": [{"seat": 1, "yakuman": 1}],
                            "from": 0}, json.loads(page.locator("#page-data").text_content())[
                                "next_seq"])
    page.reload()
    tab.ready()
    tab.tap('[data-testid="confirm-0"]')
    dialog = page.locator("dialog.confirm-dialog")
    expect(dialog.locator('[data-testid="member-no-hint"]')).to_have_text(
        "会員番号がわからないときは、スタッフにお尋ねください")
    shot(page, "night-member-number-390")
    dialog.locator("input").fill("M999")
    dialog.locator('button[value="ok"]').click()
    expect(page.locator("#notice")).to_contain_text("会員番号ではありません")
    assert "入力してください" not in page.locator("#notice").text_content().split("。")[0]
    tab.tap('[data-testid="confirm-0"]')
    dialog.locator("input").fill("m808")
    dialog.locator('button[value="ok"]').click()
    expect(page.locator('[data-testid="confirmed-0"]')).to_be_visible()
    page.context.close()


# --------------------------------------------------------------------------- the ron panel's words
def test_ron_panel_names_limits_marks_the_dealer_by_a_badge_and_drops_checking(browser, club):
    tab = started(browser, club, "t1")
    page = tab.page
    dealer = json.loads(page.locator("#page-data").text_content())["state"]["dealer"]
    other = (dealer + 1) % 4
    tab.open("ron")
    tab.winner(other)
    for han, words in ((5, "5翻 満貫"), (6, "6翻 跳満"), (8, "8翻 倍満"), (11, "11翻 三倍満"),
                       (13, "13翻 役満")):
        expect(page.locator(f'[data-testid="han-{other}-h{han}"]')).to_have_text(words)
    cell = page.locator(f'[data-testid="hf-{other}-4-30"]')          # 切り上げ満貫
    assert "limit" in cell.get_attribute("class") and "満貫" in cell.get_attribute("title")
    assert "limit" not in page.locator(f'[data-testid="hf-{other}-3-30"]').get_attribute("class")
    # the dealer: a 親 badge, the same outline as everyone else (an outline read as picked)
    mark = page.locator(f'[data-testid="from-{dealer}"]')
    expect(mark.locator(".dealer-badge")).to_have_text("親")
    plain = page.locator(f'[data-testid="from-{(dealer + 2) % 4}"]')
    style = "e => getComputedStyle(e).borderColor"
    assert mark.evaluate(style) == plain.evaluate(style)
    assert mark.get_attribute("aria-pressed") == "false"
    # a refusal replaces 確認中…: tiles that are no hand
    tab.discarder(dealer)
    tab.tap(f'[data-testid="mode-{other}-tiles"]')
    tab.tiles(other, ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "2z",
                      "3z"])
    tab.tiles(other, ["4z"], "win")
    tab.error()
    assert "確認中" not in page.locator("#panel-preview").text_content()
    shot(page, "night-ron-refused-1024")
    tab.cancel()
    page.context.close()
