"""The floor clock from the table's own cycles: hands, minutes per hand and elapsed time
checked against a simulated table driven by the real daemon; time limits, the last-hand
warning, extra time and the end at time."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from club import club_tables, clubtime, games, roster
from club.db import connect
from club.errors import UserError
from club.floor import clock
from tablectl.client import TableClient
from tests.support.tablectl import DaemonProcess, sim_on_pty, write_config
from tests.support.web import key
from web import create_app

RON = {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "from": 0}


def test_clock_figures_from_cycle_times():
    f = clock.figures([1000.0, 1300.0, 1660.0, 900.0], started=950.0, now=1950.0)
    assert f.hands == 3                                 # the cycle before the start is not its
    assert f.per_hand == pytest.approx(5.5)            # (1660 - 1000) / 60 / 2
    assert f.elapsed == pytest.approx(1000 / 60)
    assert clock.figures([], started=0.0, now=60.0).as_dict() == {
        "hands": 0, "per_hand": None, "elapsed": 1.0}


@pytest.mark.slow
def test_clock_figures_checked_against_simulated_cycles(tmp_path):
    sim, link = sim_on_pty(tmp_path, "t1", mode=1, time_scale=0.002)    # 140 ms cycles
    cfg = write_config(tmp_path, {"t1": link})
    path = str(tmp_path / "jantaku.db")
    app = create_app({"DATABASE": path, "SECRET_KEY": "k", "TESTING": True})
    db = connect(path)
    club_tables.save_table(db, "t1", "卓1", "nekohouse-4a")
    ids = [roster.add_player(db, n)["id"] for n in "ABCD"]
    daemon = DaemonProcess(cfg).start(wait_tables=("t1",))
    try:
        sim.sticks_for(1)
        client = TableClient(path, source="test")
        assert client.send("t1", "cycle", wait=20).state == "done"   # before the game: not its
        gid = games.start_game(db, "t1", ids, idempotency_key=key())["game"]["id"]
        asked = []
        for _ in range(3):
            time.sleep(0.8)
            asked.append(time.time())
            assert client.send("t1", "cycle", wait=20).state == "done"
        game = games.get_game(db, gid)
        f = clock.game_figures(path, game)
        assert f.hands == 3 and sim.state().cycle_no == 4            # the table's own count
        ours = (asked[-1] - asked[0]) / 60 / 2
        assert f.per_hand == pytest.approx(ours, abs=0.3 / 60)       # within 0.3 s a hand
        elapsed = (time.time() - clubtime.instant(game["started_at"]).timestamp()) / 60
        assert f.elapsed == pytest.approx(elapsed, abs=0.2 / 60)
        with app.app_context():
            st = clock.status(db, path, game)
        assert st["hands"] == 3 and st["limit"] is None and not st["last_hand"]
    finally:
        daemon.stop()
        sim.stop()
        db.conn.close()


def test_clock_time_limit_last_hand_extra_time_and_end_at_time(db, app):
    path = app.config["DATABASE"]
    gid = games.start_game(db, "t1", [1, 2, 3, 4], idempotency_key=key())["game"]["id"]
    with pytest.raises(UserError):
        clock.set_limit(db, gid, None, extra=5)                   # no limit to extend yet
    clock.set_limit(db, gid, 60)
    game = games.get_game(db, gid)
    start = clubtime.instant(game["started_at"])
    st = clock.status(db, path, game, now=start + timedelta(minutes=50))
    assert st["left"] == 10 and not st["soon"] and not st["last_hand"]
    st = clock.status(db, path, game, now=start + timedelta(minutes=57))
    assert st["soon"] and not st["last_hand"]                    # less than a hand left
    assert clock.status(db, path, game, now=start + timedelta(minutes=61))["last_hand"]
    clock.set_limit(db, gid, None, extra=5)                       # extra time for this table
    assert not clock.status(db, path, game, now=start + timedelta(minutes=61))["last_hand"]
    # The time is up (the game started 70 minutes ago): the hand being played is the last.
    db.execute("UPDATE games SET started_at = ? WHERE id = ?",
               [(clubtime.now() - timedelta(minutes=70)).isoformat(), gid])
    db.conn.commit()
    assert not clock.enforce(db, gid)                             # that hand is not in yet
    games.record_event(db, gid, RON, expected_seq=1, idempotency_key=key())
    assert clock.enforce(db, gid)                                 # in: the game ends at time
    assert not clock.enforce(db, gid)                             # once
    view = games.game_view(db, gid)
    assert view["game"]["status"] == "finished"
    assert view["events"][-1]["event"] == {"event": "end", "reason": "time"}
