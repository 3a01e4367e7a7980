"""What a reader finds when a command's outcome is stored: the event that goes with it
is already there (a failed command's ``command_failed``, a given-up command's
``late_outcome``), because the console and the tests read the event right after the
outcome."""

import sqlite3
import threading

from tablectl import protocol, store
from tablectl.config import load_config
from tablectl.daemon import TableManager, _drop_handlers
from tablectl.drivers.base import Identity, Outcome
from tablectl.store import Journal
from tests.support.tablectl import write_config


class SeenAfterEachCommit(Journal):
    """The daemon's journal, with what another connection reads after each of its commits:
    the command's status and error code, and whether an event of ``kind`` is stored."""

    def __init__(self, db_path, command_id: int, kind: str):
        super().__init__(db_path)
        self.command_id, self.kind = command_id, kind
        self.reader = sqlite3.connect(db_path)
        self.seen: list[tuple[str, str | None, bool]] = []

    def _write(self, fn):
        out = super()._write(fn)
        status, code = self.reader.execute(
            "SELECT status, error_code FROM table_commands WHERE id = ?",
            (self.command_id,)).fetchone()
        has_event = self.reader.execute(
            "SELECT count(*) FROM table_events WHERE kind = ?", (self.kind,)).fetchone()[0]
        self.seen.append((status, code, bool(has_event)))
        return out


def _manager(tmp_path, command: str, kind: str) -> tuple[TableManager, int]:
    cfg = load_config(write_config(tmp_path, {"t1": "sim://t1"}))
    Journal(cfg.db).register_tables([{**t.as_dict(), "commands": [command]}
                                     for t in cfg.tables])
    cid = store.request_command(cfg.db, "t1", command)
    manager = TableManager(cfg.tables[0], cfg)         # not started: no thread, no port
    manager.journal = SeenAfterEachCommit(cfg.db, cid, kind)
    return manager, cid


def test_a_failed_outcome_is_never_seen_without_its_event(tmp_path):
    manager, cid = _manager(tmp_path, "cycle", "command_failed")
    cfg = manager.cfg
    try:
        cmd = manager.journal.claim_next("t1")
        manager._finish(cmd, Outcome.failed("motor_jam", {"cycle_no": 3}))
        seen = manager.journal.seen
        assert seen[-1] == ("failed", "motor_jam", True)
        assert ("failed", "motor_jam", False) not in seen, seen
        row = store.get_command(cfg.db, cid)
        assert row["status"] == "failed" and row["error_code"] == "motor_jam"
        ev = [e for e in store.recent_events(cfg.db, "t1") if e["kind"] == "command_failed"]
        assert [(e["code"], e["data"]) for e in ev] == [
            ("motor_jam", {"id": cid, "command": "cycle"})]
        assert "jam" in ev[0]["message"].lower()
    finally:
        manager.journal.reader.close()
        _drop_handlers(manager.tlog)


def test_a_late_outcome_is_never_seen_without_its_event(tmp_path):
    """A dice roll given up while the line was down; the table's HELLO then shows it ran."""
    manager, cid = _manager(tmp_path, "dice", "late_outcome")
    cfg = manager.cfg
    try:
        j = manager.journal
        j.claim_next("t1")
        j.set_seq(cid, 7)
        j.finish(cid, "timed_out", error_code="link_down", error_values={"seconds": 30})
        j.seen.clear()
        identity = Identity(model="AMOS JP-EX COLOR", boot_id=1,
                            remembered=(7, protocol.RollDice.CMD))
        manager._late_outcome(identity, rebooted=False)
        assert j.seen[-1] == ("timed_out", "link_down_ran", True)
        assert ("timed_out", "link_down_ran", False) not in j.seen, j.seen
        ev = [e for e in store.recent_events(cfg.db, "t1") if e["kind"] == "late_outcome"]
        assert [(e["code"], e["data"]) for e in ev] == [
            ("link_down_ran", {"id": cid, "command": "dice"})]
    finally:
        manager.journal.reader.close()
        _drop_handlers(manager.tlog)


def test_a_daemon_is_seen_running_only_with_its_tables_registered(tmp_path):
    """The first heartbeat says the daemon runs: a request made on seeing it finds the
    daemon's tables (not 'no such table: has the daemon ever started?')."""
    from tablectl.daemon import Daemon
    from tests.support.tablectl import sim_on_pty, wait_connected

    sim, path = sim_on_pty(tmp_path, "t1")
    dm = Daemon(str(write_config(tmp_path, {"t1": path})))
    tables_at_first_beat = []
    beat = dm.journal.heartbeat

    def heartbeat(pid, config="", started=False):
        if started:
            tables_at_first_beat.append([t["table_id"] for t in store.list_tables(dm.cfg.db)])
        beat(pid, config, started)

    dm.journal.heartbeat = heartbeat
    runner = threading.Thread(target=dm.run, name="daemon-under-test")
    runner.start()
    try:
        wait_connected(dm.cfg.db, "t1", 30)
        assert tables_at_first_beat == [["t1"]]
        assert store.request_command(dm.cfg.db, "t1", "status")
    finally:
        dm.stop_requested.set()
        runner.join(30)
        sim.stop()
