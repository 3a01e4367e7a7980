"""Taps a player needs on the tablet, counted in real Chromium against a real server.

    python benchmarks/bench_tablet_taps.py

Each scripted entry starts on the live table and ends once the server has stored it;
every click and every select change is a tap. The entries:

* ``ron``: an ordinary ron, winner, discarder, han and fu all away from any default
  (2 han 40 fu, 上田 from 遠藤) under 002 4A;
* ``ron with riichi``: the same ron, the winner having declared riichi (marked in the
  entry panel beside the winner);
* ``tsumo``: a tsumo, 3 han 30 fu, under 4A;
* ``draw``: an exhaustive draw with two players tenpai, under 4A;
* ``mcr win``: a 24-fan win on a discard at the MCR table (004).

Each figure is printed beside its bound (ron 6, ron with riichi 6, tsumo 5, draw 4,
MCR win 6) and the count of the tablet page before this one, where it is known. The whole
round is done twice: on a 1024×768 tablet, then on a 390×844 phone where a control out of
sight costs a scroll before its tap, and each scroll is counted as a tap. The stored event
of each entry is checked against what was tapped, so a count cannot come from an entry
that recorded something else.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.browser import chromium  # noqa: E402
from tests.support.tablet import NAMES, SIZES, Tablet, open_tablet, seed_club, stored  # noqa: E402
from tests.support.web_server import WebServer  # noqa: E402

BOUNDS = {"ron": 6, "ron with riichi": 6, "tsumo": 5, "draw": 4, "mcr win": 6}
BEFORE = {"ron": 6, "ron with riichi": 7, "tsumo": 5}
"""Taps the previous tablet page took for the same hands."""


def ron(tab: Tablet) -> dict:
    tab.open("ron")
    tab.winner(2)
    tab.discarder(3)
    tab.hanfu(2, 2, 40)
    tab.preview()
    tab.record()
    return {"event": "win", "winners": [{"seat": 2, "han": 2, "fu": 40}], "from": 3,
            "riichi": []}


def ron_with_riichi(tab: Tablet) -> dict:
    tab.open("ron")
    tab.winner(2)
    tab.discarder(3)
    tab.panel_riichi(2)
    tab.hanfu(2, 2, 40)
    tab.preview()
    tab.record()
    return {"event": "win", "winners": [{"seat": 2, "han": 2, "fu": 40}], "from": 3,
            "riichi": [2]}


def tsumo(tab: Tablet) -> dict:
    tab.open("tsumo")
    tab.winner(1)
    tab.hanfu(1, 3, 30)
    tab.preview()
    tab.record()
    return {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "riichi": []}


def draw(tab: Tablet) -> dict:
    tab.open("draw")
    tab.tap('[data-testid="tenpai-0"]')
    tab.tap('[data-testid="tenpai-2"]')
    tab.preview()
    tab.record()
    return {"event": "draw", "tenpai": [0, 2], "riichi": []}


def mcr_win(tab: Tablet) -> dict:
    tab.open("ron")
    tab.winner(1)
    tab.discarder(0)
    tab.tap('[data-testid="fanq-1-24"]')
    tab.preview()
    tab.record()
    return {"event": "win", "winners": [{"seat": 1, "fan": 24}], "from": 0}


def count(tab: Tablet, db: str, table: str, entry) -> int:
    with tab.counting() as taps:
        expected = entry(tab)
    stored_event = stored(db, table)[2][-1]
    if stored_event != expected:
        raise SystemExit(f"the entry stored {stored_event}, not {expected}")
    return taps()


def one_round(browser, server, db: str, tables: tuple, secrets: dict, players: list,
              size: str) -> dict:
    """Every entry once on a fresh game at each of ``tables`` (riichi, MCR), at ``size``:
    {name: (taps, scrolls)}."""
    figures = {}
    riichi_table, mcr_table = tables
    ctx = browser.new_context(viewport=SIZES[size], locale="ja-JP")
    tab = Tablet(open_tablet(ctx, server.url, secrets[riichi_table], riichi_table),
                 count_scrolls=size == "390")
    tab.start(players[:4])
    for name, entry in (("ron", ron), ("ron with riichi", ron_with_riichi), ("tsumo", tsumo),
                        ("draw", draw)):
        scrolls = tab.scrolls
        figures[name] = (count(tab, db, riichi_table, entry), tab.scrolls - scrolls)
    tab = Tablet(open_tablet(ctx, server.url, secrets[mcr_table], mcr_table),
                 count_scrolls=size == "390")
    tab.start(players[4:8], rules="mcr")
    scrolls = tab.scrolls
    figures["mcr win"] = (count(tab, db, mcr_table, mcr_win), tab.scrolls - scrolls)
    ctx.close()
    return figures


def main() -> int:
    folder = Path(tempfile.mkdtemp(prefix="bench-taps-"))
    db = str(folder / "club.sqlite")
    # one person sits at one table at a time: each table has its own four players
    tables = {"t1": "nekohouse-4a", "t2": "mcr", "t3": "nekohouse-4a", "t4": "mcr"}
    ids, secrets = seed_club(db, tables, [n for group in NAMES[:4] for n in group])
    server = WebServer(db).start()
    rounds = {}
    try:
        with chromium() as browser:
            rounds["1024"] = one_round(browser, server, db, ("t1", "t2"), secrets, ids[:8],
                                       "1024")
            rounds["390"] = one_round(browser, server, db, ("t3", "t4"), secrets, ids[8:16],
                                      "390")
    finally:
        server.stop()
    worst = 0.0
    for name, (taps, _) in rounds["1024"].items():
        before = f"; before: {BEFORE[name]}" if name in BEFORE else ""
        print(f"{name} taps: {taps}   (bound {BOUNDS[name]}{before}; "
              f"{taps / BOUNDS[name]:.2f}× the bound)")
        worst = max(worst, taps / BOUNDS[name])
    print("at 390×844, a scroll to reach a control counted as a tap:")
    for name, (taps, scrolls) in rounds["390"].items():
        print(f"  {name} taps at 390 px: {taps} ({scrolls} of them scrolls; "
              f"bound {BOUNDS[name]}; {taps / BOUNDS[name]:.2f}× the bound)")
        worst = max(worst, taps / BOUNDS[name])
    print("every count within its bound" if worst <= 1 else "a count is over its bound")
    return 0 if worst <= 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
