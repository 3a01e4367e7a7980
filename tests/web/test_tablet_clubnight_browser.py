"""The tablet on a club night in real Chromium against a real server: what a walk-through
at the tables at 390, 768 and 1024 px found, each fixed where a player sees it."""

from __future__ import annotations

import pytest

from tests.support.browser import chromium, expect, shot
from tests.support.tablet import SIZES, Tablet, open_tablet, running_club

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TABLES = {"t1": "nekohouse-4a", "t2": "mcr", "t3": "nekohouse-4a", "t4": "nekohouse-4a",
          "t5": "mcr", "t6": "nekohouse-4a"}


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
        "888 点の手はありません。最高は 328 点です")
    page.wait_for_timeout(300)
    assert sent == [] and page.locator("#panel-record").is_disabled()
    assert page.locator('[data-testid="preview-0"]').count() == 0
    tab.tap('[data-testid="winner-1"] .digit[aria-label]')            # ⌫: 88 is a hand
    tab.preview()
    assert not page.locator("#panel-record").is_disabled()
    shot(page, "night-mcr-total")
    tab.cancel()
