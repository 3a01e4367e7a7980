"""The tablet in a real headless Chromium against a real ``python -m web serve`` process:
whole games entered with a finger's worth of taps under each rule family of the club's
rulebooks, at 390, 768 and 1024 px, every preview checked against the engine's replay of
the stored events, and screenshots kept under test-artifacts/screenshots/.

* a full hanchan under 4A (002 ねこはうす 四人打ち半荘戦Aルール);
* a sanma game with kita under 3A (002 三人打ち半荘戦Aルール 「北は抜きドラです」);
* a 3B game with flowers and pocchi (002 三人打ち半荘戦Bルール 「花牌は抜きドラです」
  「白ポッチあり」);
* an MCR game of four rounds with flowers and a 64-fan hand (004 国際ルール).
"""

from __future__ import annotations

import pytest

import lexicon
from scoring import game as engine_game
from scoring.rules import load_rules
from tests.support.browser import chromium, expect, shot
from tests.support.tablet import (
    SIZES,
    Tablet,
    open_tablet,
    overflow,
    play_out,
    running_club,
    stored,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TABLES = {"t1": "nekohouse-4a", "t2": "nekohouse-3a", "t3": "nekohouse-3b", "t4": "mcr",
          "t5": "netmahjong", "t6": "nekohouse-4a"}


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    with running_club(str(tmp_path_factory.mktemp("e2e") / "club.sqlite"), TABLES) as c:
        yield c


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def tablet(browser, club, table_id, size="1024", lang=None):
    ctx = browser.new_context(viewport=SIZES[size], locale="ja-JP")
    page = open_tablet(ctx, club["url"], club["secrets"][table_id], table_id, lang)
    return Tablet(page)


def engine_says(club, table_id, before_events):
    """The engine's payments for the event just stored, replayed from the stored log."""
    game, _, events = stored(club["db"], table_id)
    assert events[:-1] == before_events
    return engine_game.preview(before_events, events[-1], load_rules(game["rules"]))["deltas"]


def checked(club, table_id, act):
    """Do ``act`` (which returns the payments the panel showed) and check them against the
    engine's replay of the stored events."""
    _, _, before = stored(club["db"], table_id)
    shown = act()
    assert shown == engine_says(club, table_id, before)
    return stored(club["db"], table_id)[2][-1]


def check_settlement(tab, club, table_id):
    """The sheet is the engine's settlement, in rank order, in the club's ±N.N form."""
    game, log, events = stored(club["db"], table_id)
    assert game["status"] == "finished"
    final = engine_game.replay(events, load_rules(game["rules"]))["final"]
    rows = tab.page.locator(".settlement-sheet tbody tr")
    order = sorted(range(len(final["ranks"])), key=lambda i: (final["ranks"][i], i))
    for row, seat in zip(range(rows.count()), order, strict=True):
        assert rows.nth(row).get_attribute("data-testid") == f"sheet-row-{seat}"
        cell = tab.page.locator(f'[data-testid="result-{seat}"]').text_content().strip()
        if game["rules"]["settlement"]["use_points"] and not game["rules"]["settlement"][
                "victory_points"]:
            assert cell == f"{final['result'][seat] / 1000:+.1f}"
        else:
            assert cell == (f"{final['result'][seat]:+,}" if final["result"][seat] else "0")
    return final, log


def confirm_all(tab, n):
    for seat in range(n):
        with tab.page.expect_navigation():
            tab.tap(f'[data-testid="confirm-{seat}"]')
        tab.ready()
    for seat in range(n):
        assert tab.page.locator(f'[data-testid="confirmed-{seat}"]').count() == 1


def shots(tab, name):
    """The page now at the three sizes (back to where it was after)."""
    was = tab.page.viewport_size
    for size, vp in SIZES.items():
        tab.page.set_viewport_size(vp)
        shot(tab.page, f"{name}-{size}")
        width, inner = overflow(tab.page)
        assert width <= inner, (name, size, width, inner)
    tab.page.set_viewport_size(was)


def history_lines(tab) -> list[str]:
    items = tab.page.locator('[data-testid="history"] li .h-line')
    return [" ".join(items.nth(i).text_content().split()) for i in range(items.count())]


# --------------------------------------------------------------------------- 4A
def test_full_hanchan_under_4a(browser, club):
    tab = tablet(browser, club, "t1")
    ids = club["ids"]
    shots(tab, "4a-01-start")
    tab.start(ids)
    page = tab.page
    shots(tab, "4a-02-live")
    # riichi sticks and honba live: the stick goes on the table at once
    tab.riichi([1])
    expect(page.locator('[data-testid="kyoutaku"]')).to_have_text("供託 1,000点")
    expect(page.locator('[data-testid="score-1"]')).to_have_text("24,000")
    ev = checked(club, "t1", lambda: tab.ron([(1, 3, 30)], discarder=0))      # E1
    assert ev["riichi"] == [1] and ev["winners"] == [{"seat": 1, "han": 3, "fu": 30}]
    assert history_lines(tab)[0] == "東1局 ロン 伊藤←青木 3翻30符 3,900 リーチ 伊藤"

    # E2: a double ron; the dealer of E2 is 伊藤 (seat 1)
    def double_ron():
        tab.open("ron")
        tab.winner(2)
        tab.winner(3)
        tab.discarder(1)
        tab.hanfu(2, 2, 40)
        tab.hanfu(3, 1, 30)
        shown = tab.preview()
        shots(tab, "4a-03-double-ron")
        tab.record()
        return shown
    ev = checked(club, "t1", double_ron)
    assert [w["seat"] for w in ev["winners"]] == [2, 3]
    ev = checked(club, "t1", lambda: tab.draw([0, 1]))                         # E3: dealer noten
    assert sorted(ev["tenpai"]) == [0, 1]
    assert history_lines(tab)[0] == "東3局 流局 聴牌 青木・伊藤"
    checked(club, "t1", lambda: tab.simple("chombo", "who", 0))              # E4 1本場
    expect(page.locator('[data-testid="honba"]')).to_have_text("1本場")
    ev = checked(club, "t1", lambda: yaku_picker_tsumo(tab))                   # E4 again
    assert {"id": "menzen_tsumo", "han": 1} in ev["winners"][0]["yaku"]
    checked(club, "t1", lambda: tab.ron([(3, 5, None)], discarder=2))          # E4 2本場, undone
    said = tab.undo()
    assert said == "東4局2本場 ロン 遠藤←上田 5翻 満貫 12,000"                  # names the hand
    _, log, events = stored(club["db"], "t1")
    assert log[-1]["kind"] == "void"
    checked(club, "t1", lambda: tab.ron([(2, 4, 30)], discarder=3))            # S1
    ev = checked(club, "t1", lambda: tsumo_by_tiles(tab))                      # S2
    hand = ev["winners"][0]["hand"]
    assert hand["ippatsu"] is True and "seat_wind" not in hand
    assert "★" in history_lines(tab)[0]                                        # ura and ippatsu ★
    checked(club, "t1", lambda: tab.ron([(0, 5, None)], discarder=1))          # S3
    play_out(tab, lambda d: checked(club, "t1", lambda: tab.ron([((d + 1) % 4, 2, 30)], d)))
    final, log = check_settlement(tab, club, "t1")
    game, _, events = stored(club["db"], "t1")
    assert engine_game.replay(events, load_rules(game["rules"]))["hands"][-1]["round"][0] in "SW"
    assert {"win", "draw", "chombo", "void"} <= {row["kind"] for row in log}
    shots(tab, "4a-06-settlement")
    confirm_all(tab, 4)
    assert page.js_errors == []


def yaku_picker_tsumo(tab):
    """E4 1本場: the dealer wins by tsumo, entered with the yaku picker (menzen tsumo is
    picked for a closed tsumo; tanyao and two dora tapped; fu from the pairs)."""
    tab.open("tsumo")
    tab.winner(3)
    tab.tap('[data-testid="mode-3-yaku"]')
    tab.tap('[data-testid="yaku-3-tanyao"]')
    tab.tap('[data-testid="dora-3"] .plus')
    tab.tap('[data-testid="dora-3"] .plus')
    expect(tab.page.locator('[data-testid="total-3"]')).to_have_text("合計 4翻")
    tab.tap('[data-testid="fu-3-30"]')
    shown = tab.preview()
    shots(tab, "4a-04-yaku-picker")
    tab.record()
    return shown


def tsumo_by_tiles(tab):
    """S2: seat 3 declared riichi and wins by tsumo on the next draw (ippatsu), the hand on
    the tile keypad; the engine finds the yaku and the ura-dora ★."""
    tab.riichi([3])
    tab.open("tsumo")
    tab.winner(3)
    tab.tap('[data-testid="mode-3-tiles"]')
    tab.tiles(3, ["1m", "2m", "3m", "4p", "0p", "6p", "7s", "8s", "9s", "2s", "3s", "5p", "5p"])
    tab.tiles(3, ["4s"], "win")
    tab.tiles(3, ["3s"], "dora")
    tab.tiles(3, ["4p"], "ura")
    # situation flags only where possible: no houtei or chankan on a tsumo
    assert tab.page.locator('[data-testid="flag-houtei-3"]').count() == 0
    assert tab.page.locator('[data-testid="flag-chankan-3"]').count() == 0
    tab.tap('[data-testid="flag-ippatsu-3"]')
    tab.page.wait_for_selector('[data-testid="preview-0"]')
    shots(tab, "4a-05-tiles")
    shown = tab.preview()
    tab.record()
    return shown


# --------------------------------------------------------------------------- 3A
def test_sanma_with_kita_under_3a(browser, club):
    tab = tablet(browser, club, "t2", size="768")
    tab.start(club["seats"]["t2"][:3], rules="nekohouse-3a")
    page = tab.page
    assert page.locator(".seat-card").count() == 3
    shots(tab, "3a-01-live")
    # the keypad holds the set's tiles: no 2m-8m, red 5p and 5s only, and there is no chi
    tab.open("ron")
    tab.winner(1)
    tab.tap('[data-testid="mode-1-tiles"]')
    keys = page.locator('[data-testid="winner-1"] .tile-key').evaluate_all(
        "els => els.map(e => e.dataset.tile)")
    assert "5m" not in keys and "2m" not in keys and "1m" in keys and "9m" in keys
    assert "0p" in keys and "0s" in keys and "0m" not in keys
    assert page.locator('[data-testid="winner-1"] .add-meld[data-meld="chi"]').count() == 0
    assert page.locator('[data-testid="nukidora-1"]').count() == 1                # 北
    tab.cancel()
    ev = checked(club, "t2", lambda: kita_ron(tab))                             # E1
    assert ev["winners"][0]["hand"]["nukidora"] == 2
    checked(club, "t2", lambda: kita_yaku_tsumo(tab))                           # E2
    checked(club, "t2", lambda: tab.draw([0]))                                  # E3
    checked(club, "t2", lambda: tab.simple("abort", "abort", "kyuushu"))        # E3 1本場
    play_out(tab, lambda d: checked(club, "t2", lambda: tab.tsumo((d + 1) % 3, 3, 40)))
    check_settlement(tab, club, "t2")
    shots(tab, "3a-02-settlement")
    assert page.js_errors == []


def kita_ron(tab):
    """E1: seat 1 rons with two North tiles set aside (抜きドラ, 002 3A); riichi first."""
    tab.riichi([1])
    tab.open("ron")
    tab.winner(1)
    tab.discarder(0)
    tab.tap('[data-testid="mode-1-tiles"]')
    tab.tiles(1, ["1p", "2p", "3p", "4p", "5p", "6p", "7s", "8s", "9s", "9m", "9m", "9m", "5s"])
    tab.tiles(1, ["5s"], "win")
    tab.tap('[data-testid="nukidora-1"] .plus')
    tab.tap('[data-testid="nukidora-1"] .plus')
    shown = tab.preview()
    shots(tab, "3a-kita")
    tab.record()
    return shown


def kita_yaku_tsumo(tab):
    """E2: the yaku picker counts North set aside as han (北 2)."""
    tab.open("tsumo")
    tab.winner(2)
    tab.tap('[data-testid="mode-2-yaku"]')
    tab.tap('[data-testid="nukidora-2"] .plus')
    tab.tap('[data-testid="nukidora-2"] .plus')
    expect(tab.page.locator('[data-testid="total-2"]')).to_have_text("合計 3翻")
    tab.tap('[data-testid="fu-2-30"]')
    shown = tab.preview()
    tab.record()
    return shown


# --------------------------------------------------------------------------- 3B
def test_3b_with_flowers_and_pocchi(browser, club):
    tab = tablet(browser, club, "t3", size="390")
    tab.start(club["seats"]["t3"][:3], rules="nekohouse-3b")
    page = tab.page
    shots(tab, "3b-01-live")
    # no fu in 3B: han only; red 5p and 5s are in the set (4 of each)
    tab.open("tsumo")
    tab.winner(0)
    assert page.locator('[data-testid^="fu-0-"]').count() == 0
    tab.cancel()
    ev = checked(club, "t3", lambda: pocchi_tsumo(tab))                         # E1
    w = ev["winners"][0]
    assert w["pocchi"] is True and w["chips"] == 1 + 1                           # pocchi + ura ★
    assert page.locator('[data-testid="chips-1"]').text_content() == "★+4"
    ev = checked(club, "t3", lambda: flower_tiles_ron(tab))                      # E2
    assert ev["winners"][0]["hand"]["nukidora"] == 3
    play_out(tab, lambda d: checked(club, "t3", lambda: tab.ron([((d + 1) % 3, 2, None)], d)))
    check_settlement(tab, club, "t3")
    shots(tab, "3b-02-settlement")
    assert page.js_errors == []


def pocchi_tsumo(tab):
    """Seat 1 declared riichi and wins by tsumo on the white pocchi, with one ura (★ each)."""
    tab.riichi([1])
    tab.open("tsumo")
    tab.winner(1)
    tab.hanfu(1, 3)
    tab.tap('[data-testid="ura-1"] .plus')
    tab.tap('[data-testid="pocchi-1"]')
    shown = tab.preview()
    assert "★2オール" in tab.page.locator("#panel-preview").text_content()
    shots(tab, "3b-pocchi")
    tab.record()
    return shown


def flower_tiles_ron(tab):
    """Seat 2 rons by tiles with three flowers set aside (花, 002 3B)."""
    tab.open("ron")
    tab.winner(2)
    tab.discarder(1)
    tab.tap('[data-testid="mode-2-tiles"]')
    tab.tiles(2, ["1p", "2p", "3p", "4p", "0p", "6p", "7p", "8p", "9p", "1s", "1s", "2s", "3s"])
    tab.tiles(2, ["4s"], "win")
    for _ in range(3):
        tab.tap('[data-testid="nukidora-2"] .plus')
    shown = tab.preview()
    tab.record()
    return shown


# --------------------------------------------------------------------------- MCR
def test_mcr_four_rounds_with_flowers_and_a_64_fan_hand(browser, club):
    tab = tablet(browser, club, "t4")
    tab.start(club["seats"]["t4"], rules="mcr")
    page = tab.page
    # only the controls MCR has: no riichi, honba, sticks, chombo or abortive draws
    for absent in ('[data-testid="riichi-0"]', '[data-testid="honba"]',
                   '[data-testid="kyoutaku"]', '.action[data-action="chombo"]',
                   '.action[data-action="abort"]', '[data-testid="ic-0"]'):
        assert page.locator(absent).count() == 0, absent
    assert page.locator('[data-testid="ic-mismatch"]').is_hidden()
    shots(tab, "mcr-01-live")

    def fan_win(winner, src, fan, flowers=0):
        def act():
            tab.open("ron" if src is not None else "tsumo")
            tab.winner(winner)
            if src is not None:
                tab.discarder(src)
            tab.tap(f'[data-testid="fanq-{winner}-{fan}"]')
            for _ in range(flowers):
                tab.tap(f'[data-testid="flowers-{winner}"] .plus')
            shown = tab.preview()
            tab.record()
            return shown
        return act

    ev = checked(club, "t4", fan_win(1, 0, 64, flowers=2))                     # 東1局: 64 + 花2
    assert ev["winners"][0] == {"seat": 1, "fan": 66, "flowers": 2}
    assert history_lines(tab)[0] == "東1局 和了 田中←鈴木 66番 花2"               # MCR words
    ev = checked(club, "t4", lambda: fan_picker_win(tab))                       # 東2局
    assert [f["id"] for f in ev["winners"][0]["fans"]] == ["pure_straight", "all_chows",
                                                           "fully_concealed_hand"]
    checked(club, "t4", lambda: tab.draw([]))                                   # 東3局 荒牌
    hands = 3
    while not tab.finished():
        seat = hands % 4
        checked(club, "t4", fan_win((seat + 1) % 4, seat if hands % 3 else None,
                                    [8, 9, 10, 12, 16, 24][hands % 6], flowers=hands % 3))
        hands += 1
        assert hands < 20
    assert hands == 16                                                           # 4 rounds of 4
    check_settlement(tab, club, "t4")
    shots(tab, "mcr-02-settlement")
    assert page.js_errors == []


def fan_picker_win(tab):
    """A self-drawn 清龍 + 平和 + 不求人 from the fan picker, with the exclusions the engine
    knows: 平和 leaves out 无字, 不求人 leaves out 自摸 and 門前清 (004 不計)."""
    tab.open("tsumo")
    tab.winner(2)
    tab.tap('[data-testid="mode-2-fans"]')
    tab.tap('[data-testid="fans-2-pure_straight"]')
    tab.tap('[data-testid="fans-2-all_chows"]')
    assert tab.page.locator('[data-testid="fans-2-no_honors"]').is_disabled()
    tab.tap('[data-testid="fans-2-fully_concealed_hand"]')
    assert tab.page.locator('[data-testid="fans-2-self_drawn"]').is_disabled()
    assert tab.page.locator('[data-testid="fans-2-concealed_hand"]').is_disabled()
    expect(tab.page.locator('[data-testid="total-2"]')).to_have_text("合計 22番（花 0）")
    shown = tab.preview()
    shots(tab, "mcr-fans")
    tab.record()
    return shown


# --------------------------------------------------------------------------- words
def ja(key, **values):
    return lexicon.t(key, "ja", **values)


def test_refusals_are_shown_in_japanese_player_words(browser, club):
    """Twelve refusals a player can run into, each in the catalogue's Japanese with seats
    named by wind and player, before anything is recorded."""
    tab = tablet(browser, club, "t5", size="768")
    tab.start(club["seats"]["t5"], rules="netmahjong")
    page = tab.page
    seen = []

    def hint(expected):
        expect(page.locator('[data-testid="preview-hint"]')).to_have_text(expected)
        assert page.locator("#panel-record").is_disabled()
        seen.append(expected)

    def refused(expected):
        expect(page.locator('[data-testid="panel-error"]')).to_have_text(expected)
        assert page.locator("#panel-record").is_disabled()
        seen.append(expected)

    tab.open("ron")
    hint(ja("entry.need.winner"))                                               # 1
    tab.winner(1)
    hint(ja("entry.need.discarder"))                                            # 2
    tab.discarder(0)
    hint(ja("entry.need.han", who="南 藤田"))                                    # 3
    tab.tap('[data-testid="mode-1-yaku"]')
    hint(ja("entry.need.yaku", who="南 藤田"))                                   # 5
    tab.tap('[data-testid="mode-1-tiles"]')
    hint(ja("entry.need.tiles", who="南 藤田"))                                  # 6
    tab.tiles(1, ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "2z", "3z"])
    tab.tiles(1, ["4z"], "win")
    refused(ja("engine.not_agari"))                                             # 7
    tab.tiles(1, ["back"], "win")
    tab.tiles(1, ["back", "back", "2s", "3s"], "hand")
    tab.tiles(1, ["4s"], "win")
    refused(ja("engine.no_yaku", min_han=1))                                    # 8
    tab.tiles(1, ["back", "back", "back", "1m", "1m", "1m"], "hand")
    tab.tiles(1, ["1m"], "win")
    refused(ja("engine.tiles_fifth_copy", tile="1m", count=5))                   # 9
    tab.cancel()
    # three players ron one discard: under these rules it is sanchahou, in the engine's words
    tab.open("ron")
    for s in (1, 2, 3):
        tab.winner(s)
    tab.discarder(0)
    for s in (1, 2, 3):
        tab.hanfu(s, 1, 30)
    refused(ja("engine.sanchahou", switch="game.multi_ron", value="'double'"))   # 10
    tab.cancel()
    # agari-houki (not in netmahjong): on the 4A table the barred player cannot win
    tab4 = tablet(browser, club, "t6", size="768")
    tab4.start(club["seats"]["t6"])
    checked(club, "t6", lambda: houki(tab4))
    tab4.open("ron")
    tab4.winner(2)
    tab4.discarder(0)
    tab4.hanfu(2, 1, 30)
    expected = ja("engine.houki_win", seat_ja="西家", seat_player="森")
    expect(tab4.page.locator('[data-testid="panel-error"]')).to_have_text(expected)   # 11
    seen.append(expected)
    tab4.cancel()
    tab4.open("tsumo")
    tab4.winner(1)
    tab4.tap('[data-testid="mode-1-tiles"]')
    tab4.tiles(1, ["2m", "3m", "4m", "5p", "6p", "7p", "6s", "7s", "8s", "2p", "2p"])
    tab4.tap('[data-testid="winner-1"] .add-meld[data-meld="chi"]')
    tab4.tiles(1, ["2s", "3s"], "meld:0")
    tab4.tiles(1, ["4s"], "meld:0")
    tab4.tiles(1, ["2p"], "hand")
    tab4.tiles(1, ["2p"], "win")
    expected = ja("engine.hand_size", count=13, melds=1, need=11)
    expect(tab4.page.locator('[data-testid="panel-error"]')).to_have_text(expected)   # 12
    seen.append(expected)
    assert len(set(seen)) >= 10
    _, log, _ = stored(club["db"], "t5")
    assert [r["kind"] for r in log] == ["start"]                                # nothing recorded
    assert page.js_errors == [] and tab4.page.js_errors == []


def houki(tab):
    tab.open("penalty")
    tab.tap('[data-testid="who-2"]')
    tab.tap('[data-testid="penalty-agari_houki"]')
    shown = tab.preview()
    tab.record()
    return shown
