"""A person at the table, tapping the tablet page in real Chromium: the browser tests and
``benchmarks/bench_tablet_taps.py`` drive the page through this, which counts every tap
(a click or a select change) so the benchmark can report them."""

from __future__ import annotations

import json
import time
from contextlib import contextmanager

from club import club_tables, gamelog, games, roster
from club.db import connect
from web.security import TABLET_COOKIE, issue_tablet_token

SIZES = {"390": {"width": 390, "height": 844}, "768": {"width": 768, "height": 1024},
         "1024": {"width": 1024, "height": 768}}


NAMES = (("青木", "伊藤", "上田", "遠藤"), ("大野", "加藤", "木村", "工藤"),
         ("小林", "斎藤", "佐藤", "清水"), ("鈴木", "田中", "中村", "西田"),
         ("橋本", "藤田", "松本", "山田"), ("吉田", "渡辺", "森", "石井"))
"""Four players for each table of a test club (one person sits at one table at a time)."""


def table_players(i: int) -> tuple[str, ...]:
    """The four players of the club's ``i``-th table."""
    return NAMES[i] if i < len(NAMES) else tuple(f"{s}{i}" for s in NAMES[0])


def seed_club(path: str, tables: dict[str, str], players=NAMES[0]):
    """A club database with ``tables`` ({id: rule set}), members and a tablet secret per
    table: ``(ids, secrets)``."""
    from web import create_app

    create_app({"DATABASE": path, "SECRET_KEY": "x", "TESTING": True})
    db = connect(path)
    try:
        for tid, rules in tables.items():
            club_tables.save_table(db, tid, f"卓{tid[1:]}", rules)
        ids = [roster.add_player(db, n)["id"] for n in players]
        secrets = {t: issue_tablet_token(db, t, label="e2e") for t in tables}
    finally:
        db.conn.close()
    return ids, secrets


def open_tablet(context, url: str, secret: str, table_id: str, lang: str | None = None):
    """A page of ``context`` showing the table, with the tablet's pairing cookie (kept a
    year, as pairing sets it: it outlives a restart of the browser)."""
    context.add_cookies([{"name": TABLET_COOKIE, "value": secret, "url": url,
                          "expires": time.time() + 365 * 24 * 3600}])
    page = context.new_page()
    page.js_errors = []
    page.on("pageerror", lambda e: page.js_errors.append(str(e)))
    page.goto(f"{url}/tablet/{table_id}" + (f"?lang={lang}" if lang else ""))
    page.wait_for_selector("body[data-ready='1']")
    return page


def stored(db_path: str, table_id: str):
    """The table's current game row, its log and its effective events."""
    db = connect(db_path)
    try:
        game = games.current_game(db, table_id)
        log = gamelog.event_log(db, game["id"])
        return game, log, [e["event"] for e in gamelog.effective_events(log)]
    finally:
        db.conn.close()


def page_data(page) -> dict:
    return json.loads(page.locator("#page-data").text_content())


class Tablet:
    """Taps on the tablet page, counted."""

    def __init__(self, page, count_scrolls: bool = False):
        self.page = page
        self.taps = 0
        self.scrolls = 0
        self.count_scrolls = count_scrolls
        """With ``count_scrolls``, a control that is not in sight when it is needed costs a
        scroll before its tap, counted as a tap too (and in ``scrolls``)."""

    # ---------------------------------------------------------------- counted taps
    def _reach(self, locator) -> None:
        if self.count_scrolls and not in_sight(locator):
            self.taps += 1
            self.scrolls += 1
            locator.scroll_into_view_if_needed()

    def tap(self, selector: str) -> None:
        target = self.page.locator(selector).first
        self._reach(target)
        self.taps += 1
        target.click()

    def choose(self, selector: str, value: str) -> None:
        self._reach(self.page.locator(selector).first)
        self.taps += 1
        self.page.select_option(selector, value)

    @contextmanager
    def counting(self):
        """``with tablet.counting() as c: ...; c()`` -> taps inside the block."""
        start = self.taps
        yield lambda: self.taps - start

    # ---------------------------------------------------------------- screens
    def start(self, ids, rules: str | None = None) -> None:
        if rules:
            self.choose("#start-rules", rules)
        for i, pid in enumerate(ids):
            self.choose(f'[data-testid="seat-{i}"]', str(pid))
        with self.page.expect_navigation():
            self.tap("#start-game")
        self.ready()

    def ready(self) -> None:
        self.page.wait_for_selector("body[data-ready='1']")

    def open(self, action: str) -> None:
        self.tap(f'.action[data-action="{action}"]')
        self.page.wait_for_selector("#panel-backdrop:not([hidden])")

    def riichi(self, seats) -> None:
        for s in seats:
            self.tap(f'[data-testid="riichi-{s}"]')

    def panel_riichi(self, seat: int) -> None:
        """Mark the seat's riichi in the open entry panel."""
        self.tap(f'[data-testid="panel-riichi-{seat}"]')

    def winner(self, seat: int) -> None:
        self.tap(f'[data-testid="winner-{seat}"]')

    def discarder(self, seat: int) -> None:
        self.tap(f'[data-testid="from-{seat}"]')

    def hanfu(self, seat: int, han: int | None = None, fu: int | None = None,
              yakuman: int = 0) -> None:
        if yakuman:
            self.tap(f'[data-testid="han-{seat}-y{yakuman}"]')
            return
        if self.page.locator(f'[data-testid="han-{seat}-h{han}"]').count():
            self.tap(f'[data-testid="han-{seat}-h{han}"]')    # a han that needs no fu
            return
        # han and fu are one tap; the rarer fu behind 70符以上
        cell = f'[data-testid="hf-{seat}-{han}-{fu}"]'
        if not self.page.locator(cell).count():
            self.tap(f'[data-testid="hf-more-{seat}"]')
        if self.page.locator(cell).get_attribute("aria-pressed") != "true":
            self.tap(cell)

    def preview(self) -> list[int]:
        """The payments the panel shows (waits until it shows them and the server agreed)."""
        self.page.wait_for_selector('#panel-preview[data-checked="1"] [data-testid="preview-0"]')
        n = len(page_data(self.page)["names"])
        return [int(self.page.locator(f'[data-testid="preview-{i}"] .num').text_content()
                    .replace(",", "").replace("+", "")) for i in range(n)]

    def record(self) -> None:
        """Tap 記録する and wait for the page the server answers with."""
        with self.page.expect_navigation():
            self.tap("#panel-record")
        self.ready()

    def error(self) -> str:
        box = self.page.locator('[data-testid="panel-error"]')
        box.wait_for(state="visible")
        return box.text_content().strip()

    def hint(self) -> str:
        return self.page.locator('[data-testid="preview-hint"]').text_content().strip()

    def cancel(self) -> None:
        self.tap("#panel-cancel")

    # ---------------------------------------------------------------- whole events
    def ron(self, winners, discarder: int) -> list[int]:
        self.open("ron")
        for seat, *_ in winners:
            self.winner(seat)
        self.discarder(discarder)
        for seat, han, fu in winners:
            self.value(seat, han, fu)
        shown = self.preview()
        self.record()
        return shown

    def tsumo(self, seat: int, han, fu=None) -> list[int]:
        self.open("tsumo")
        self.winner(seat)
        self.value(seat, han, fu)
        shown = self.preview()
        self.record()
        return shown

    def value(self, seat: int, han, fu) -> None:
        """``han, fu``, or ``"y", n`` for n yakuman."""
        if han == "y":
            self.hanfu(seat, yakuman=fu)
        else:
            self.hanfu(seat, han, fu)

    def draw(self, tenpai, nagashi=()) -> list[int]:
        self.open("draw")
        for s in tenpai:
            self.tap(f'[data-testid="tenpai-{s}"]')
        for s in nagashi:
            self.tap(f'[data-testid="nagashi-{s}"]')
        shown = self.preview()
        self.record()
        return shown

    def simple(self, action: str, testid: str | None = None, value=None) -> list[int]:
        """Chombo (``seat``), abortive draw (``abort``) and the like: one pick, record."""
        self.open(action)
        if testid:
            self.tap(f'[data-testid="{testid}-{value}"]')
        shown = self.preview()
        self.record()
        return shown

    def end(self) -> None:
        self.open("end")
        self.record()

    def undo(self) -> str:
        self.open("undo")
        said = self.page.locator('[data-testid="undo-hand"]').text_content()
        self.record()
        return said

    def finished(self) -> bool:
        return self.page.locator('[data-testid="settlement"]').count() == 1

    def tiles(self, seat: int, tiles: list[str], target: str = "hand") -> None:
        box = f'[data-testid="winner-{seat}"]'
        self.tap(f'{box} .tile-target[data-target="{target}"]')
        for t in tiles:
            self.tap(f'{box} .tile-key[data-tile="{t}"]')


def in_sight(locator) -> bool:
    """Whether a finger can reach the element now: its middle is inside the window and the
    element (not a panel or bar over it, nor the edge of a scrolled box) is what is there."""
    return locator.evaluate(
        "e => { const r = e.getBoundingClientRect(), x = r.left + r.width / 2,"
        " y = r.top + r.height / 2;"
        " if (!r.width || x < 0 || y < 0 || x > innerWidth || y > innerHeight) return false;"
        " const hit = document.elementFromPoint(x, y); return !!hit && e.contains(hit); }")


def overflow(page) -> tuple[int, int]:
    """``(scrollWidth, innerWidth)`` of the page now."""
    return page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")


@contextmanager
def running_club(path: str, tables: dict[str, str]):
    """A seeded club (:func:`seed_club`) served by a real server process:
    ``{"server", "db", "ids", "seats", "secrets", "url"}``; ``seats[table]`` are the four
    players who play at that table (``ids``: the first table's)."""
    from tests.support.web_server import WebServer

    ids, secrets = seed_club(path, tables,
                             [n for i in range(len(tables)) for n in table_players(i)])
    seats = {t: ids[4 * i:4 * i + 4] for i, t in enumerate(tables)}
    server = WebServer(path).start()
    try:
        yield {"server": server, "db": path, "ids": seats[next(iter(tables))], "seats": seats,
               "secrets": secrets, "url": server.url}
    finally:
        server.stop()


def play_out(tab: Tablet, hand, most: int = 12) -> None:
    """Record ``hand(dealer)`` (which enters one hand) until the game is over."""
    for _ in range(most):
        if tab.finished():
            return
        hand(page_data(tab.page)["state"]["dealer"])
    assert tab.finished()
