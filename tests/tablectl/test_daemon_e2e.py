"""End to end: the real daemon (``python -m tablectl serve``) drives simulated tables
over real pseudo-terminals with pyserial, for every mode of the AMOS JP-EX COLOR
settings table (shared/seeds/002_752de4ce5ec4d27d.txt, 自動卓設定表)."""

from collections import Counter

import pytest

from hardware_sim import tiles
from tablectl.modes import MODES, SEATS
from tests.support.tablectl import DaemonProcess, ask, sim_on_pty, wait_until, write_config

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_leaks")]


@pytest.fixture(scope="module")
def floor(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("floor")
    auto, auto_path = sim_on_pty(tmp, "auto", auto_deal=True)
    walls, walls_path = sim_on_pty(tmp, "walls", auto_deal=False)
    daemon = DaemonProcess(write_config(tmp, {"auto": auto_path, "walls": walls_path}))
    try:
        daemon.start(wait_tables=("auto", "walls"))
        yield daemon, {"auto": auto, "walls": walls}
        assert daemon.stop() == 0
    finally:
        if daemon.proc and daemon.proc.poll() is None:
            daemon.proc.kill()
        auto.stop()
        walls.stop()


def _select(db, sim, tid, mode):
    sim.sticks_for(mode.number)
    row = ask(db, tid, "mode", {"mode": mode.number})
    assert row["status"] == "done", row
    assert mode.number in (row["result"]["mode"], row["result"]["pending_mode"])


@pytest.mark.parametrize("mode", MODES, ids=lambda m: f"{m.code}-{m.name}")
def test_every_mode_deals_exactly_the_modes_set(floor, mode):
    daemon, sims = floor
    db, sim = daemon.db, sims["auto"]
    _select(db, sim, "auto", mode)
    cyc = ask(db, "auto", "cycle")
    assert cyc["status"] == "done", cyc
    assert cyc["result"]["mode"] == mode.number
    if mode.is_check:
        # the check cycle counts the set going round; no walls: TILE_CHECK has nothing
        # on the table to count (docs/protocol.md section 10)
        assert cyc["result"]["counted"] == 136, cyc
        check = ask(db, "auto", "check")
        assert check["status"] == "failed" and check["error_code"] == "not_ready", check
        return
    deal = ask(db, "auto", "deal")
    assert deal["status"] == "done", deal
    assert deal["result"]["walls_only"] is False
    report = ask(db, "auto", "dealt")["result"]
    walls = [t for w in report["walls"] for t in w]
    assert sorted(walls) == tiles.tile_set(mode)          # exactly the mode's set
    hands = report["hands"]
    assert Counter(t for h in hands for t in h) + Counter(report["live_wall"]) == Counter(walls)
    dealer = report["dealer"]
    for seat in range(SEATS):
        want = (14 if seat == dealer else 13) if seat in mode.seats else 0
        assert len(hands[seat]) == want, (seat, dealer, [len(h) for h in hands])
    assert deal["result"]["hands"] == [len(h) for h in hands]


@pytest.mark.parametrize("mode", [m for m in MODES if not m.is_check],
                         ids=lambda m: f"{m.code}-{m.name}")
def test_table_without_auto_deal_says_walls_only(floor, mode):
    daemon, sims = floor
    db, sim = daemon.db, sims["walls"]
    _select(db, sim, "walls", mode)
    cyc = ask(db, "walls", "cycle")
    assert cyc["status"] == "done" and cyc["result"]["walls_only"] is True, cyc
    deal = ask(db, "walls", "deal")
    assert deal["status"] == "done", deal
    assert deal["result"]["walls_only"] is True and deal["result"]["hands"] == [0, 0, 0, 0]
    report = ask(db, "walls", "dealt")["result"]
    assert sorted(t for w in report["walls"] for t in w) == tiles.tile_set(mode)
    assert all(h == [] for h in report["hands"])


def test_state_and_events_reach_the_store(floor):
    from tablectl import store

    daemon, sims = floor
    db = daemon.db
    sims["auto"].sticks_for(1)
    assert ask(db, "auto", "mode", {"mode": 1})["status"] == "done"
    assert ask(db, "auto", "cycle")["status"] == "done"
    # the daemon reads the table again right after storing the outcome, never before it
    # (tablectl/daemon.py, TableManager._finish): wait for that read
    t = wait_until(lambda: next((t for t in store.list_tables(db) if t["table_id"] == "auto"
                                 and t["cycle_state"] == "walls_up"), None),
                   10, "the state after the cycle")
    assert t["connected"] == 1 and t["model"] == "AMOS JP-EX COLOR"
    assert t["mode"] == 1 and t["cycle_state"] == "walls_up"
    assert t["capabilities"] == {"auto_deal": True, "ic_point_sticks": True}
    kinds = {e["kind"] for e in store.recent_events(db, "auto", limit=200)}
    assert {"connected", "cycle_started", "cycle_finished"} <= kinds
    pts = ask(db, "auto", "points")
    assert pts["status"] == "done" and pts["result"]["points"] == [25000] * 4
