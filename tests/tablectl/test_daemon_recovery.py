"""kill -9 of the daemon mid-command, then a restart: nothing is lost and nothing
repeated (docs/protocol.md, "Host recovery"). Checked against the simulator's own
count of executed commands."""

import random
import time

import pytest

from tablectl import store
from tests.support.tablectl import (
    DaemonProcess,
    ask,
    line_quiet,
    sim_on_pty,
    wait_until,
    write_config,
)

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_leaks")]


@pytest.fixture
def rig(tmp_path):
    sim, path = sim_on_pty(tmp_path, "t1", mode=1, time_scale=0.02)  # 1.4 s cycles
    daemon = DaemonProcess(write_config(tmp_path, {"t1": path}))
    try:
        yield daemon, sim
    finally:
        if daemon.proc and daemon.proc.poll() is None:
            daemon.stop()
        sim.stop()


def test_kill9_mid_cycle_neither_loses_nor_repeats(rig):
    daemon, sim = rig
    daemon.start(wait_tables=("t1",))
    sim.sticks_for(1)
    cid = store.request_command(daemon.db, "t1", "cycle")
    sim.wait_for(lambda st: st.cycle.name == "CYCLING", timeout=10)
    row = store.get_command(daemon.db, cid)
    assert row["status"] == "sending" and row["seq"] is not None
    daemon.kill9()
    daemon.start(wait_tables=("t1",))
    row = store.wait_command(daemon.db, cid, 30)
    assert row["status"] == "done", row
    assert sim.executed_names().count("START_CYCLE") == 1


def test_kill9_while_reply_is_on_the_wire(rig):
    """The table ran the command but its reply is delayed: the new daemon gets the
    remembered reply by retransmitting the same seq, and the dice are rolled once."""
    daemon, sim = rig
    # no periodic state read: one sent while the delay is on would take the link down
    # before the dice are sent, and the delayed HELLOs would keep it down
    write_config(daemon.config.parent, {"t1": str(daemon.config.parent / "t1.tty")},
                 extra="refresh = 3600")
    daemon.start(wait_tables=("t1",))
    sim.sticks_for(1)
    assert ask(daemon.db, "t1", "cycle", timeout=30)["status"] == "done"
    # the same for the daemon's own read after the cycle
    line_quiet(daemon.db, "t1")
    sim.faults.set(delay=3.0, direction="tx")
    cid = store.request_command(daemon.db, "t1", "dice")

    def rolls() -> int:
        return sim.executed_names().count("ROLL_DICE")

    wait_until(lambda: rolls() >= 1, 10, lambda: f"dice rolled: rolled {rolls()} times")
    assert rolls() == 1, f"the dice were rolled {rolls()} times by one request"
    daemon.kill9()
    sim.faults.clear()
    assert store.get_command(daemon.db, cid)["status"] == "sending"
    daemon.start(wait_tables=("t1",))
    row = store.wait_command(daemon.db, cid, 30)
    assert row["status"] == "done", row
    assert sim.executed_names().count("ROLL_DICE") == 1
    assert tuple(row["result"]["dice"]) == sim.state().dice


def test_kill9_at_random_moments_loses_and_repeats_nothing(rig):
    daemon, sim = rig
    rng = random.Random(5)
    daemon.start(wait_tables=("t1",))
    sim.sticks_for(1)
    assert ask(daemon.db, "t1", "cycle", timeout=30)["status"] == "done"
    ids = []
    for _ in range(12):
        ids.append(store.request_command(daemon.db, "t1", "dice"))
        time.sleep(rng.uniform(0.0, 0.05))
        daemon.kill9()
        daemon.start(wait_tables=("t1",))
        store.wait_command(daemon.db, ids[-1], 30)      # one command in flight per table
    rows = [store.get_command(daemon.db, i) for i in ids]
    assert [r["status"] for r in rows] == ["done"] * len(ids), rows
    assert sim.executed_names().count("ROLL_DICE") == len(ids)


def test_requests_made_while_the_daemon_is_down_run_when_it_starts(rig):
    daemon, sim = rig
    daemon.start(wait_tables=("t1",))
    assert daemon.stop() == 0
    assert store.daemon_status(daemon.db)["running"] is False
    stale = store.request_command(daemon.db, "t1", "dice", None, expires_in=0.01)
    time.sleep(0.05)
    cid = store.request_command(daemon.db, "t1", "points", None, "web-42")  # not blocked
    daemon.start(wait_tables=("t1",))
    row = store.wait_command(daemon.db, cid, 30)
    assert row["status"] == "done" and row["result"]["points"] == [25000] * 4
    # an expired request is never sent
    row = store.wait_command(daemon.db, stale, 5)
    assert row["status"] == "timed_out" and row["error_code"] == "not_sent"
    assert sim.executed_names().count("ROLL_DICE") == 0


def test_a_request_that_expires_while_its_table_is_away_says_why(tmp_path):
    """The daemon runs, the table's adapter is pulled: a request left to expire is never
    sent, and its row says the table is not connected and why (as a client that gave up
    waiting would), not only that it waited too long."""
    sim, path = sim_on_pty(tmp_path, "t1", mode=1)
    d = DaemonProcess(write_config(tmp_path, {"t1": path}))
    try:
        d.start(wait_tables=("t1",))
        sim.unplug()
        wait_until(lambda: store.get_table(d.db, "t1")["connected"] == 0, 30, "unplugged")
        cid = store.request_command(d.db, "t1", "points", expires_in=0.2)
        row = store.wait_command(d.db, cid, 30)
        assert row["status"] == "timed_out" and row["error_code"] == "not_sent_disconnected", row
        assert row["error_values"]["table"] == "t1"
        assert row["error_values"]["reason_code"] in ("lost", "port_missing"), row
        assert "table t1 is not connected (" in row["error_message"]
        assert "卓 t1 と通信できません" in row["error_message"]
        assert sim.executed_names().count("READ_POINTS") == 0
    finally:
        d.stop()
        sim.stop()


def test_command_on_the_wire_when_the_table_vanishes_times_out_then_late_outcome(tmp_path):
    """The table runs the command, then goes silent for longer than in_doubt_timeout:
    the command is timed_out (link_down), never repeated; when the table returns
    its HELLO shows the command did run, and the journal says so."""
    sim, path = sim_on_pty(tmp_path, "t1", mode=1)
    d = DaemonProcess(write_config(tmp_path, {"t1": path}, extra="in_doubt_timeout = 0.5"))
    try:
        d.start(wait_tables=("t1",))
        sim.sticks_for(1)
        assert ask(d.db, "t1", "cycle", timeout=30)["status"] == "done"
        line_quiet(d.db, "t1")
        sim.faults.set(drop=1.0, direction="tx")         # the table hears but is not heard
        cid = store.request_command(d.db, "t1", "dice")
        row = store.wait_command(d.db, cid, 30)
        assert row["status"] == "timed_out" and row["error_code"] == "link_down", row
        assert "will NOT be repeated" in row["error_message"] and "再実行しません" in row[
        "error_message"]
        sim.faults.clear()
        wait_until(lambda: store.get_command(d.db, cid)["error_code"] == "link_down_ran", 30,
                   "late outcome noted")
        assert sim.executed_names().count("ROLL_DICE") == 1
        assert any(e["kind"] == "late_outcome" for e in store.recent_events(d.db, "t1"))
    finally:
        d.stop()
        sim.stop()


def test_a_second_daemon_on_the_same_store_is_refused(rig):
    import subprocess
    import sys

    daemon, _ = rig
    daemon.start(wait_tables=("t1",))
    r = subprocess.run([sys.executable, "-m", "tablectl", "serve", "--config",
                        str(daemon.config)], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert f"another tablectl daemon (pid {daemon.proc.pid}) is already serving" in r.stderr
    assert store.daemon_status(daemon.db)["pid"] == daemon.proc.pid


def test_kill9_after_status_polls_of_a_running_cycle_does_not_start_another(rig):
    """While a cycle runs the daemon polls STATUS, so the table's remembered command
    is no longer START_CYCLE; the journalled reply still says the cycle ran."""
    daemon, sim = rig
    daemon.start(wait_tables=("t1",))
    sim.sticks_for(1)
    cid = store.request_command(daemon.db, "t1", "cycle")
    wait_until(lambda: "STATUS" in sim.executed_names()[
        sim.executed_names().index("START_CYCLE"):] if "START_CYCLE" in sim.executed_names()
        else False, 10, "a STATUS poll after the cycle started")
    daemon.kill9()
    daemon.start(wait_tables=("t1",))
    row = store.wait_command(daemon.db, cid, 30)
    assert row["status"] == "done", row
    assert sim.executed_names().count("START_CYCLE") == 1


def test_command_sent_while_the_table_boots_runs_once_when_it_is_ready(tmp_path):
    """After a power cut the booting table NAKs every command BUSY: such a command
    certainly did not run, so it waits in the queue and runs once the table is up."""
    sim, path = sim_on_pty(tmp_path, "t1", mode=1, time_scale=0.02, boot_seconds=150)  # 3 s
    d = DaemonProcess(write_config(tmp_path, {"t1": path}))
    try:
        d.start(wait_tables=("t1",))
        sim.power_cut()
        sim.power_restore()
        cid = store.request_command(d.db, "t1", "points")
        row = store.wait_command(d.db, cid, 30)
        assert row["status"] == "done", row
        assert sim.executed_names().count("READ_POINTS") == 1
    finally:
        d.stop()
        sim.stop()


def test_a_table_that_never_finishes_booting_fails_with_every_refusal_counted(tmp_path):
    """docs/protocol.md section 6: BUSY means not run. A command the booting table refuses
    at every try is requeued a bounded number of times, then fails; the words staff read
    count every refusal, not only the last round's."""
    from tablectl.daemon import BUSY_REQUEUES

    sim, path = sim_on_pty(tmp_path, "t1", mode=1, time_scale=0.02, boot_seconds=10_000)
    d = DaemonProcess(write_config(tmp_path, {"t1": path}))
    try:
        d.start(wait_tables=("t1",))
        sim.power_cut()
        sim.power_restore()
        cid = store.request_command(d.db, "t1", "points")
        row = store.wait_command(d.db, cid, 120)
        assert row["status"] == "failed" and row["error_code"] == "nak_busy", row
        tries = 4                                    # one send and [link] retries = 3
        assert row["error_values"]["times"] == tries * (BUSY_REQUEUES + 1), row
        assert f"{tries * (BUSY_REQUEUES + 1)}回拒否" in row["error_message"]
        assert sim.executed_names().count("READ_POINTS") == 0
    finally:
        d.stop()
        sim.stop()


def test_a_cycle_that_ran_is_never_journalled_as_may_not_have_run(tmp_path):
    """Issue scenario: in_doubt_timeout = 3, a cycle, the line goes silent 1.5 s into the
    cycle for 6 s. The journalled START_CYCLE reply says it ran: the row keeps it, stays
    in flight (a second cycle is refused, never started), and ends done when the table
    answers again. The table ran one cycle."""
    sim, path = sim_on_pty(tmp_path, "t1", mode=1, time_scale=0.05, unplug_mode="silent")
    d = DaemonProcess(write_config(tmp_path, {"t1": path}, extra="in_doubt_timeout = 3"))
    try:
        d.start(wait_tables=("t1",))
        sim.sticks_for(1)
        cid = store.request_command(d.db, "t1", "cycle", source="cli", actor="ops")
        sim.wait_for(lambda st: st.cycle.name == "CYCLING", timeout=10)
        time.sleep(1.5)
        sim.unplug("silent")
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            row = store.get_command(d.db, cid)
            assert row["status"] == "sending", row               # never "may not have run"
            assert row["result"]["cycle_no"] == 1 and row["result"]["duration_ms"] == 3500
            time.sleep(0.2)
        assert store.get_table(d.db, "t1")["connected"] == 0
        with pytest.raises(store.CommandInFlight) as e:
            store.request_command(d.db, "t1", "cycle", actor="mika")
        assert "サイクル実行中 (ops, " in e.value.text("ja")
        sim.plug()
        row = store.wait_command(d.db, cid, 30)
        assert row["status"] == "done", row
        assert row["result"]["cycle_no"] == 1 and row["result"]["cycle_state"] == "walls_up"
        assert sim.executed_names().count("START_CYCLE") == 1
    finally:
        d.stop()
        sim.stop()


def test_a_started_cycle_whose_table_stays_away_keeps_its_reply(tmp_path):
    """Past the cycle's own time (twice its duration + reply_timeout) the row is timed_out
    as cycle_link_lost: it ran, whether the walls came up is unknown; its reply is kept."""
    sim, path = sim_on_pty(tmp_path, "t1", mode=1, time_scale=0.02, unplug_mode="silent")
    d = DaemonProcess(write_config(tmp_path, {"t1": path},
                                   extra="in_doubt_timeout = 0.5\nreply_timeout = 0.5"))
    try:
        d.start(wait_tables=("t1",))
        sim.sticks_for(1)
        cid = store.request_command(d.db, "t1", "cycle")
        sim.wait_for(lambda st: st.cycle.name == "CYCLING", timeout=10)
        sim.unplug("silent")
        row = store.wait_command(d.db, cid, 30)
        assert row["status"] == "timed_out" and row["error_code"] == "cycle_link_lost", row
        assert row["result"]["cycle_no"] == 1                   # the journalled reply
        assert "Cycle 1 started" in row["error_message"] and "サイクル 1" in row[
            "error_message"]
        sim.plug()
        assert ask(d.db, "t1", "status", timeout=30)["status"] == "done"
        assert sim.executed_names().count("START_CYCLE") == 1
    finally:
        d.stop()
        sim.stop()
