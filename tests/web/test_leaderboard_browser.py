"""The leaderboard, a player page and a game page in a real headless Chromium against
``python -m web serve``: the ranking of the hand-computed fixture club, the player's
SVG charts drawn (no network needed), the English switch; screenshots under
``test-artifacts/screenshots/``. Browser helpers come from ``tests.support.browser``."""

from __future__ import annotations

import pytest

from tests.support import browser as e2e
from tests.support.web_server import WebServer
from tests.web.test_leaderboard import build_club

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    club = build_club(str(tmp_path_factory.mktemp("lb-e2e") / "club.sqlite"))
    srv = WebServer(club["path"]).start()
    yield srv, club
    srv.stop()


@pytest.fixture(scope="module")
def browser():
    with e2e.chromium() as b:
        yield b


def _page(browser, viewport):
    ctx = browser.new_context(viewport=viewport, locale="ja-JP")
    # the pages must work with no internet: refuse anything not from the club server
    ctx.route(
        "**/*",
        lambda route: (
            route.abort()
            if not route.request.url.startswith("http://127.0.0.1")
            else route.continue_()
        ),
    )
    page = ctx.new_page()
    page.js_errors = []
    page.on("pageerror", lambda e: page.js_errors.append(str(e)))
    return page


def test_leaderboard_player_and_game_pages(server, browser):
    srv, club = server
    page = _page(browser, e2e.LANDSCAPE)
    page.goto(f"{srv.url}/leaderboard/?family=riichi4&period=all&day=2026-04-02")
    rows = page.locator('[data-testid="leaderboard"] tbody tr')
    assert rows.count() == 5
    assert [rows.nth(i).locator("td.name").inner_text() for i in range(5)] == list("EDABC")
    assert "+54.0" in rows.nth(0).inner_text()  # thousands, the club's form
    assert page.locator("svg.totals-chart").bounding_box()["height"] > 50
    e2e.shot(page, "leaderboard-landscape")

    page.set_viewport_size(e2e.PORTRAIT)
    page.locator('[data-testid="leaderboard"] a', has_text="D").click()
    page.wait_for_selector('[data-testid="player-name"]')
    assert page.locator('[data-testid="player-name"]').inner_text() == "D"
    figs = page.locator('[data-testid="player-figures"]').inner_text()
    assert "対局数" in figs and "+42.0" in figs
    for chart in ("svg.results-chart", "svg.placement-chart"):
        box = page.locator(chart).bounding_box()
        assert box and box["width"] > 200 and box["height"] > 50
    assert page.locator("svg.results-chart rect").count() == 3  # one bar per game
    assert page.locator('[data-testid="player-months"] tbody tr').count() == 2  # March, April
    e2e.shot(page, "leaderboard-player-portrait")

    page.click(".lang-switch")
    page.wait_for_selector("text=Placement distribution")
    assert "games" in page.locator('[data-testid="player-figures"]').inner_text()
    labels = page.locator("svg.placement-chart").text_content()
    assert all(p in labels for p in ("1st", "2nd", "3rd", "4th"))
    e2e.shot(page, "leaderboard-player-english-portrait")

    page.goto(f"{srv.url}/leaderboard/games/{club['games'][0]}")
    assert page.locator('[data-testid="score-line"] polyline').count() == 4
    assert page.locator('[data-testid="game-hands"] tbody tr').count() == 4 + 1  # hands + final
    e2e.shot(page, "leaderboard-game-portrait")
    assert page.js_errors == []


@pytest.mark.parametrize("width", [390, 1024])
def test_leaderboard_chart_says_what_the_table_says_readably(server, browser, width):
    """The chart's value beside each name is the table's total (thousands: +54.0, not
    +54,000.0), its words at least 11 px tall on a phone, and the page never scrolls
    sideways."""
    srv, club = server
    page = _page(browser, {"width": width, "height": 844})
    page.goto(f"{srv.url}/leaderboard/?family=riichi4&period=all&day=2026-04-02")
    rows = page.locator('[data-testid="leaderboard"] tbody tr')
    totals = {rows.nth(i).locator("td.name").inner_text():
              rows.nth(i).locator("td").nth(5).inner_text() for i in range(rows.count())}
    texts = page.locator("svg.totals-chart text").evaluate_all(
        "els => els.map(e => e.textContent)")
    labels = dict(zip(texts[0::2], texts[1::2], strict=True))
    assert labels == totals, (labels, totals)
    assert all("," not in v for v in labels.values())          # never 1000x the table
    heights = page.locator("svg.totals-chart text").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().height)")
    assert min(heights) >= 11, heights
    assert page.locator("html").evaluate("e => e.scrollWidth") <= width
    e2e.shot(page, f"leaderboard-chart-{width}")
    # the player's results chart counts in the same unit
    page.locator('[data-testid="leaderboard"] td.name a').first.click()
    results = page.locator("svg.results-chart title").all_text_contents()
    assert results and all(",000" not in r for r in results), results
    assert page.js_errors == []
