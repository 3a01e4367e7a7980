"""Twenty simulated tables on one daemon, each on its own real pty: every table works at
the same time, each command runs once; an idle floor writes nothing but the heartbeat."""

import sqlite3
import threading
import time

import pytest

from tablectl import store
from tablectl.drivers.jpex import state_dict
from tests.support.tablectl import DaemonProcess, ask, sim_on_pty, wait_until, write_config

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_leaks")]

N = 20


@pytest.fixture(scope="module")
def floor(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("floor20")
    sims = {}
    try:
        for i in range(1, N + 1):
            sims[f"t{i}"] = sim_on_pty(tmp, f"t{i}", mode=1 + i % 8)
        d = DaemonProcess(write_config(tmp, {tid: path for tid, (_, path) in sims.items()},
                                       extra="refresh = 0.5"))
        d.start(wait_tables=tuple(sims), timeout=60)
        yield d, {tid: sim for tid, (sim, _) in sims.items()}
        assert d.stop() == 0
    finally:
        for sim, _ in sims.values():
            sim.stop()


def test_twenty_tables_at_once_each_command_once(floor):
    d, sims = floor
    assert len(store.list_tables(d.db)) == N
    assert all(t["connected"] for t in store.list_tables(d.db))
    rows: dict = {}

    def work(tid):
        sim = sims[tid]
        mode = sim.state().mode
        sim.sticks_for(mode)
        rows[tid] = [ask(d.db, tid, "cycle", timeout=60), ask(d.db, tid, "dice", timeout=60),
                     ask(d.db, tid, "deal", timeout=60), ask(d.db, tid, "points", timeout=60)]

    errors: dict = {}

    def guarded(tid):
        try:
            work(tid)
        except BaseException as e:  # reported below, with the table it happened on
            errors[tid] = e

    threads = [threading.Thread(target=guarded, args=(tid,)) for tid in sims]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not [t for t in threads if t.is_alive()], "a table's commands never ended"
    assert not errors, errors
    for tid, sim in sims.items():
        assert [r["status"] for r in rows[tid]] == ["done"] * 4, (tid, rows[tid])
        names = sim.executed_names()
        assert [names.count(n) for n in ("START_CYCLE", "ROLL_DICE", "DEAL", "READ_POINTS")] \
            == [1, 1, 1, 1], tid
        assert rows[tid][2]["result"]["dealer"] == rows[tid][1]["result"]["seat"]


def test_an_idle_floor_writes_nothing_but_the_heartbeat(floor):
    """Twenty tables read twice a second each (refresh = 0.5): their state is read, and
    written only when it changes; the journal is read, and written only when asked."""
    d, sims = floor
    # what an earlier test left to store is stored: every table's stored state is the
    # table's own (a busy machine may take more than a moment for the last reads)
    wait_until(lambda: all(_stored(d.db, tid) == state_dict(sim.state())
                           for tid, sim in sims.items()), 60, "the floor's state stored")
    before = {tid: sim.executed_names().count("STATUS") for tid, sim in sims.items()}
    conn = sqlite3.connect(d.db)
    version, commits = conn.execute("PRAGMA data_version").fetchone()[0], 0
    end = time.monotonic() + 3.0
    while time.monotonic() < end:
        v = conn.execute("PRAGMA data_version").fetchone()[0]
        commits += v != version
        version = v
        time.sleep(0.002)
    conn.close()
    reads = sum(sim.executed_names().count("STATUS") - before[tid] for tid, sim in sims.items())
    assert reads >= N * 4, reads                      # the tables were looked at ...
    assert commits <= 4, commits                      # ... and only the heartbeat was written


def _stored(db, tid: str) -> dict:
    state = dict(store.get_table(db, tid)["state"] or {})
    state.pop("boot_id", None)
    return state
