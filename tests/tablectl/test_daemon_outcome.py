"""What a reader finds when a command's outcome is stored: a failed command's
``command_failed`` event is already there (the console and the tests read the event
right after the outcome)."""

import sqlite3

from tablectl import store
from tablectl.config import load_config
from tablectl.daemon import TableManager, _drop_handlers
from tablectl.drivers.base import Outcome
from tablectl.store import Journal
from tests.support.tablectl import write_config


class SeenAfterEachCommit(Journal):
    """The daemon's journal, with what another connection reads after each of its commits."""

    def __init__(self, db_path, command_id: int):
        super().__init__(db_path)
        self.command_id = command_id
        self.reader = sqlite3.connect(db_path)
        self.seen: list[tuple[str, bool]] = []

    def _write(self, fn):
        out = super()._write(fn)
        status = self.reader.execute("SELECT status FROM table_commands WHERE id = ?",
                                     (self.command_id,)).fetchone()[0]
        has_event = self.reader.execute(
            "SELECT count(*) FROM table_events WHERE kind = 'command_failed'").fetchone()[0]
        self.seen.append((status, bool(has_event)))
        return out


def test_a_failed_outcome_is_never_seen_without_its_event(tmp_path):
    cfg = load_config(write_config(tmp_path, {"t1": "sim://t1"}))
    Journal(cfg.db).register_tables([{**t.as_dict(), "commands": ["cycle"]}
                                     for t in cfg.tables])
    cid = store.request_command(cfg.db, "t1", "cycle")
    manager = TableManager(cfg.tables[0], cfg)         # not started: no thread, no port
    manager.journal = SeenAfterEachCommit(cfg.db, cid)
    try:
        cmd = manager.journal.claim_next("t1")
        manager._finish(cmd, Outcome.failed("motor_jam", {"cycle_no": 3}))
        seen = manager.journal.seen
        assert seen[-1] == ("failed", True)
        assert ("failed", False) not in seen, seen
        row = store.get_command(cfg.db, cid)
        assert row["status"] == "failed" and row["error_code"] == "motor_jam"
        ev = [e for e in store.recent_events(cfg.db, "t1") if e["kind"] == "command_failed"]
        assert [(e["code"], e["data"]) for e in ev] == [
            ("motor_jam", {"id": cid, "command": "cycle"})]
        assert "jam" in ev[0]["message"].lower()
    finally:
        manager.journal.reader.close()
        _drop_handlers(manager.tlog)
