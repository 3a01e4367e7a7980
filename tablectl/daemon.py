"""``tablectl serve``: one manager thread per table, driven by the journal.

Each :class:`TableManager` keeps its table connected through the table's driver
(identify after every (re)connect, exponential capped and jittered backoff while
it is gone), resolves a command a previous run left in doubt by the driver's
run-once guarantee for that command (docs/protocol.md, "Host recovery";
docs/tablectl.md, "Drivers"), then takes queued commands from the journal one at
a time and writes outcomes, table state and events back to the store, as codes
and values. While nothing changes it writes nothing: it reads the journal only
when the database changed (:class:`DatabaseWatch`) and stores a state only when
it differs from the stored one.

:class:`Daemon` runs the managers under systemd: ``READY=1`` once started,
``WATCHDOG=1`` only while every manager's loop makes progress, SIGTERM stops
cleanly (the in-flight command finishes or stays journalled as ``sending`` with
its token, to be resolved on the next start), SIGHUP reloads the config. A
database locked by another process is waited out with backoff (the heartbeat
goes stale meanwhile, which is what ``tablectl status`` and the console show).
"""

from __future__ import annotations

import fcntl
import json
import logging
import logging.handlers
import os
import queue
import random
import signal
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, TextIO

import clubdb

from . import systemd, words
from .config import Config, load_config
from .drivers import driver_class
from .drivers.base import Driver, Identity, LinkDown, Outcome, Stopping, TableEvent
from .settings import ConfigError, TableConfig
from .store import DatabaseRefused, Journal, is_locked

log = logging.getLogger("tablectl")

HEARTBEAT_S = 1.0        # how often the daemon writes its heartbeat row
WATCH_S = 0.02           # how often the database is looked at for new requests
IDLE_SLICE_S = 1.0       # an idle manager wakes at least this often (its progress beat)
DEVICE_POLL_S = 0.05     # how often a missing device node is looked for
BUSY_REQUEUES = 8        # a command refused BUSY (table booting) is retried this many times
STUCK_MIN_S = 5.0        # a loop silent this long (at least) is stuck: no watchdog ping


class Backoff:
    """Exponential reconnect delay, capped and jittered (so many tables don't retry in step)."""

    def __init__(self, low: float, high: float, rng: random.Random | None = None):
        self.low, self.high = low, high
        self.rng = rng or random.Random()
        self.attempt = 0

    def next(self) -> float:
        base: float = min(self.high, self.low * (2 ** self.attempt))
        self.attempt += 1
        return base * self.rng.uniform(0.5, 1.0)

    def reset(self) -> None:
        self.attempt = 0


# --------------------------------------------------------------------------- logging
def table_logger(log_dir: str, table_id: str) -> logging.Logger:
    """A per-table logger writing the traffic to ``<log_dir>/<table>.log`` (rotating)."""
    lg = logging.getLogger(f"tablectl.table.{table_id}")
    lg.setLevel(logging.DEBUG)
    lg.propagate = False  # frame-by-frame traffic belongs in the table's file, not the journal
    path = str(Path(log_dir) / f"{table_id}.log")
    if not any(getattr(h, "baseFilename", None) == os.path.abspath(path) for h in lg.handlers):
        Path(log_dir).mkdir(parents=True, exist_ok=True)
        h = logging.handlers.RotatingFileHandler(path, maxBytes=2_000_000, backupCount=5,
                                                 encoding="utf-8")
        h.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        lg.addHandler(h)
    return lg


def _drop_handlers(lg: logging.Logger) -> None:
    for h in list(lg.handlers):
        lg.removeHandler(h)
        h.close()


# --------------------------------------------------------------------------- one command
class Job:
    """One journalled command as the driver sees it (:class:`tablectl.drivers.base.Job`)."""

    def __init__(self, manager: "TableManager", row: dict[str, Any], resend: int | None = None):
        self.manager, self.row = manager, row
        self.id = row["id"]
        self.command = row["command"]
        self.args = row["args"] or {}
        self.resend = resend

    def sent(self, token: int) -> None:
        self.manager.journal.set_seq(self.id, token)

    def started(self, progress: dict[str, Any]) -> None:
        self.manager.journal.set_progress(self.id, progress)

    def wait(self, seconds: float) -> None:
        self.manager.drain_events()
        if self.manager.pause(seconds):
            raise Stopping()
        self.manager.drain_events()

    def state(self, state: dict[str, Any]) -> None:
        self.manager.save_state(state)


# --------------------------------------------------------------------------- manager
class TableManager(threading.Thread):
    """Keeps one table connected and runs its journalled commands in order."""

    def __init__(self, table: TableConfig, cfg: Config):
        super().__init__(name=f"table {table.id}", daemon=True)
        self.table, self.cfg = table, cfg
        self.tid = table.id
        self.stop_event = threading.Event()
        self.wake = threading.Event()
        self.events: queue.Queue[Any] = queue.Queue()
        self.tlog = table_logger(cfg.log_dir, table.id)
        self.driver: Driver = driver_class(table.driver)(
            table, cfg.link, lock_dir=cfg.lock_dir, on_event=self._on_event, log=self.tlog)
        self.backoff = Backoff(cfg.link.backoff_min, cfg.link.backoff_max)
        # opened when the thread starts (run), before anything else reads it
        self.journal: Journal = None  # type: ignore[assignment]
        self.beat = time.monotonic()
        self.boot_id: int | None = None
        self.down_since: float | None = None
        self.last_refresh = 0.0
        self.state_dirty = False
        self.busy_refusals: dict[int, int] = {}
        """BUSY refusals each requeued command has had so far (what staff read is the total)."""
        self.halted = False
        self._stored: dict[str, Any] = {}
        self._locked_since: float | None = None

    def stop(self) -> None:
        self.stop_event.set()
        self.wake.set()

    def _on_event(self, ev: TableEvent) -> None:       # the driver's reader thread
        self.events.put(ev)
        self.wake.set()

    def pause(self, seconds: float) -> bool:
        """Wait ``seconds`` (woken early by stop); True if the manager is stopping.
        The progress beat goes on meanwhile: waiting is not being stuck."""
        end = time.monotonic() + seconds
        while not self.stop_event.is_set():
            self.beat = time.monotonic()
            left = end - self.beat
            if left <= 0:
                return False
            self.stop_event.wait(min(left, IDLE_SLICE_S))
        return True

    def _patience(self, waited: float) -> None:
        """Another process holds the database's write lock: wait with backoff, log once."""
        if self._locked_since is None:
            self._locked_since = time.monotonic()
            log.warning("table %s: the database is locked by another process; waiting", self.tid)
        if self.pause(min(2.0, 0.05 * 2 ** min(6, int(waited)))):
            raise Stopping()

    # ------------------------------------------------------------ main loop
    def run(self) -> None:
        self.journal = Journal(self.cfg.db, busy_timeout_ms=1000, patience=self._patience)
        try:
            while not self.stop_event.is_set():
                self.beat = time.monotonic()
                self._step()
        except Stopping:
            pass
        except Exception:  # keep the daemon alive; the daemon's loop starts a new manager
            self.tlog.exception("table manager crashed; frames:\n%s", "\n".join(self.driver.dump()))
            log.exception("table %s: manager crashed", self.tid)
        finally:
            self.driver.close()
            try:
                if self.journal is not None:
                    self._set_disconnected("stopped" if self.stop_event.is_set() else "crashed")
            except (Stopping, sqlite3.Error):
                pass
            clubdb.close_shared()

    def _step(self) -> None:
        if self.halted:
            self.pause(IDLE_SLICE_S)
            return
        if not self.driver.connected:
            self._connect()
            return
        self.wake.clear()        # what wakes us from here on is seen by the idle wait
        try:
            self.drain_events()
            if not self.driver.connected:       # the table restarted: identify it again
                self.driver.close()
                self._set_disconnected("restarted")
                return
            cmd = self.journal.claim_next(self.tid)
            if cmd is not None:
                self._execute(cmd)
            elif self.state_dirty or time.monotonic() - self.last_refresh \
                    >= self.cfg.link.refresh:
                self._refresh()
            else:
                self._idle()
        except LinkDown as e:
            self._link_failed(e)
        except Stopping:
            pass
        if self._locked_since is not None:
            log.info("table %s: the database is writable again", self.tid)
            self._locked_since = None

    def _idle(self) -> None:
        """Sleep until the database changes, an event comes, or the next status read."""
        left = self.cfg.link.refresh - (time.monotonic() - self.last_refresh)
        self.wake.wait(max(0.0, min(left, IDLE_SLICE_S)))

    # ------------------------------------------------------------ connection
    def _connect(self) -> None:
        self._give_up_in_doubt()
        self.journal.expire_queued(self.tid, self._not_connected())
        self.driver.remember(self._stored_state())
        try:
            identity = self.driver.connect()
        except LinkDown as e:
            self._set_disconnected(e.code, e.values)
            if not e.retry:
                self.halted = True
                self.tlog.error("not driving this table: %s", e.message)
                return
            self._pause_reconnect(self.backoff.next())
            return
        self.backoff.reset()
        self.down_since = None
        prev = self._stored_boot_id()
        rebooted = prev is not None and identity.boot_id is not None and prev != identity.boot_id
        self._adopt(identity)
        self.journal.add_event(self.tid, "connected",
                               data={"model": identity.model, "firmware": identity.firmware,
                                     "boot_id": identity.boot_id})
        self.tlog.info("connected: %s", identity)
        self._late_outcome(identity, rebooted)
        try:
            self._recover(identity, rebooted)
        except LinkDown as e:
            self._link_failed(e)

    def _not_connected(self) -> tuple[str, dict[str, Any]] | None:
        """Why a request expires unsent while this manager cannot reach its table (None
        before the first try: then the daemon itself was away)."""
        if self.down_since is None:
            return None
        return "not_sent_disconnected", {"table": self.tid,
                                         "reason_code": self._stored.get("last_error"),
                                         "reason_values": self._stored.get("last_error_values")}

    def _pause_reconnect(self, delay: float) -> None:
        """Wait ``delay`` before reconnecting, but try at once when a missing device node
        (a USB-serial adapter that was pulled) appears again: udev recreating it is the
        best sign the table is back, and backoff must not hide it."""
        path = self.table.url if "://" not in self.table.url else None
        if path is None or os.path.exists(path):
            self.pause(delay)
            return
        end = time.monotonic() + delay
        while time.monotonic() < end and not self.stop_event.is_set():
            self.beat = time.monotonic()
            if os.path.exists(path):
                return
            self.stop_event.wait(DEVICE_POLL_S)

    def _stored_state(self) -> dict[str, Any] | None:
        row = self.journal.db.conn.execute(
            "SELECT state FROM table_state WHERE table_id = ?", (self.tid,)).fetchone()
        if not row or not row[0]:
            return None
        state: dict[str, Any] = json.loads(row[0])
        return state

    def _stored_boot_id(self) -> int | None:
        boot_id: int | None = (self._stored_state() or {}).get("boot_id")
        return boot_id

    def _adopt(self, identity: Identity) -> None:
        self.boot_id = identity.boot_id
        extra = {"connected": 1, "model": identity.model, "firmware": identity.firmware,
                 "capabilities": identity.features, "last_error": None,
                 "last_error_values": None}
        if identity.state is not None:
            self.save_state(identity.state, **extra)
        else:
            self._store(state={"boot_id": identity.boot_id}, **extra)
            self.last_refresh = time.monotonic()

    def save_state(self, state: dict[str, Any], **extra: Any) -> None:
        """Store the table's state (only the columns that changed; nothing if none did)."""
        self.last_refresh = time.monotonic()
        self.state_dirty = False
        self._store(mode=state.get("mode"), pending_mode=state.get("pending_mode"),
                    cycle_state=state.get("cycle_state"), lid=state.get("lid"),
                    errors=state.get("errors"), points=state.get("points"),
                    state={**state, "boot_id": self.boot_id}, **extra)

    def _store(self, **cols: Any) -> None:
        changed = {k: v for k, v in cols.items() if self._stored.get(k, object()) != v}
        if changed:
            self.journal.update_table(self.tid, **changed)
            self._stored.update(changed)

    def _set_disconnected(self, reason: str, values: dict[str, Any] | None = None) -> None:
        if self.down_since is None:
            self.down_since = time.monotonic()
            self.journal.add_event(self.tid, "disconnected", reason, data=values or {})
            self.tlog.warning("disconnected: %s", words.link(reason, "en", values))
        self._store(connected=0, last_error=reason, last_error_values=values or {})

    def _link_failed(self, e: LinkDown) -> None:
        self.tlog.error("link failure: %s\nlast frames:\n%s", e.message, "\n".join(e.frames))
        self.driver.close()
        self._set_disconnected(e.code, e.values)

    # ------------------------------------------------------------ recovery
    def _recover(self, identity: Identity, rebooted: bool) -> None:
        """Resolve commands a previous run left in ``sending``, by the driver's run-once
        guarantee for each (docs/protocol.md, "Host recovery")."""
        caps = self.driver.capabilities()
        for cmd in self.journal.in_doubt(self.tid):
            guarantee = caps.get(cmd["command"])
            if cmd["result"] is not None:
                # its first answer was journalled: it ran; only its end is awaited
                self._finish(cmd, self.driver.resume(Job(self, cmd), cmd["result"]))
            elif cmd["seq"] is None:
                self.journal.requeue(cmd["id"])           # never reached the wire
            elif guarantee is not None and guarantee.replayed and not rebooted \
                    and identity.boot_id is not None:
                # same token: if it ran, the table answers from its memory and does not
                # run it again; if it never arrived, it runs now. Exactly once either way.
                self._execute(cmd, resend=cmd["seq"])
            elif guarantee is not None and guarantee.repeatable:
                self.journal.requeue(cmd["id"])           # asking again does it once
            else:
                self._finish(cmd, Outcome.failed(
                    "in_doubt_power_cut" if rebooted else "in_doubt_unknown", changed=False))

    def _give_up_in_doubt(self) -> None:
        """A command in doubt while the table stays away too long is timed_out; a started
        cycle (its reply journalled: it ran) only once its own time is over."""
        if self.down_since is None:
            return
        away = time.monotonic() - self.down_since
        limit = self.cfg.link.in_doubt_timeout
        for cmd in self.journal.in_doubt(self.tid):
            progress = cmd["result"]
            if progress is None and away >= limit:
                self.journal.finish(cmd["id"], "timed_out", error_code="link_down",
                                    error_values={"seconds": round(limit)})
            elif progress is not None and time.time() >= (cmd["started_at"] or 0) \
                    + progress.get("duration_ms", 0) / 1000 * 2 + self.cfg.link.reply_timeout:
                self.journal.finish(cmd["id"], "timed_out", error_code="cycle_link_lost",
                                    error_values={"cycle_no": progress.get("cycle_no")})

    def _late_outcome(self, identity: Identity, rebooted: bool) -> None:
        """A command given up as ``link_down`` that the table shows DID run: say so."""
        if rebooted:
            return
        for cmd in self.journal.given_up(self.tid):
            if cmd["seq"] is not None and self.driver.ran(cmd["seq"], cmd["command"], identity):
                self.journal.note_late_outcome(
                    cmd["id"], "link_down_ran",
                    event={"table_id": self.tid, "kind": "late_outcome", "code": "link_down_ran",
                           "data": {"id": cmd["id"], "command": cmd["command"]}})

    # ------------------------------------------------------------ commands
    def _execute(self, cmd: dict[str, Any], resend: int | None = None) -> None:
        outcome = self.driver.run(Job(self, cmd, resend))
        if outcome.code == "nak_busy":
            refused = self.busy_refusals.pop(cmd["id"], 0) + int(outcome.values.get("times") or 0)
            if cmd["attempts"] < BUSY_REQUEUES:
                self.busy_refusals[cmd["id"]] = refused
                self.journal.requeue(cmd["id"])   # the booting table will take it shortly
                self.pause(self.cfg.link.timeout)
                return
            outcome.values["times"] = refused
        else:
            self.busy_refusals.pop(cmd["id"], None)
        self._finish(cmd, outcome)

    def _finish(self, cmd: dict[str, Any], outcome: Outcome) -> None:
        if outcome.status == "done":
            self.journal.finish(cmd["id"], "done", outcome.result)
        else:
            self.tlog.warning("#%s %s failed: %s %s\nlast frames:\n%s", cmd["id"],
                              cmd["command"], outcome.code, outcome.values,
                              "\n".join(self.driver.dump()))
            # the failure's event in the outcome's own transaction: whoever reads the
            # outcome finds the event (no table traffic in between, so nothing changes
            # what the table remembers)
            self.journal.finish(cmd["id"], "failed", outcome.result, outcome.code,
                                error_values=outcome.values,
                                event={"table_id": self.tid, "kind": "command_failed",
                                       "code": outcome.code,
                                       "data": {"id": cmd["id"], "command": cmd["command"],
                                                **outcome.values}})
        if outcome.changed or outcome.status != "done":
            # Read on the next step, after the outcome is stored: a status read before it
            # would replace the table's one-command memory, and a crash in between would
            # leave a command in doubt that the table can no longer answer for (run twice).
            self.state_dirty = True

    # ------------------------------------------------------------ events and state
    def drain_events(self) -> None:
        """Store the events the table sent (the driver reacts to them itself)."""
        while True:
            try:
                ev = self.events.get_nowait()
            except queue.Empty:
                return
            self.journal.add_event(self.tid, ev.kind, ev.code, data=ev.values)
            if ev.kind == "error_raised":
                self._store(last_error=ev.code, last_error_values=ev.values)
            self.state_dirty = True

    def _refresh(self) -> None:
        state = self.driver.refresh()
        if state is None:
            self.last_refresh = time.monotonic()
            self.state_dirty = False
        else:
            self.save_state(state)


# --------------------------------------------------------------------------- the database watch
class DatabaseWatch(threading.Thread):
    """Wakes the managers when another connection committed (``PRAGMA data_version``):
    one cheap read every 20 ms for the whole daemon, instead of each table polling."""

    def __init__(self, db: str, managers: dict[str, Any]):
        super().__init__(name="db-watch", daemon=True)
        self.db, self.managers = db, managers
        self.stop_event = threading.Event()

    def run(self) -> None:
        conn = clubdb.shared(self.db).conn
        last = None
        try:
            while not self.stop_event.wait(WATCH_S):
                try:
                    version = conn.execute("PRAGMA data_version").fetchone()[0]
                except sqlite3.Error:
                    continue
                if version != last:
                    last = version
                    for m in list(self.managers.values()):
                        m.wake.set()
        finally:
            clubdb.close_shared()


# --------------------------------------------------------------------------- daemon
class Daemon:
    """The process: managers per table, heartbeat, watchdog, signals, systemd notify."""

    def __init__(self, config_path: str):
        self.config_path = config_path
        self.cfg = load_config(config_path)
        self._lock = _single_instance(self.cfg.db)
        _check_database(self.cfg.db)
        self.managers: dict[str, TableManager] = {}
        self.stop_requested = threading.Event()
        self.reload_requested = threading.Event()
        self.journal = Journal(self.cfg.db, busy_timeout_ms=250)
        self.watch = DatabaseWatch(self.cfg.db, self.managers)
        self._heartbeat_failing = False

    def install_signals(self) -> None:
        signal.signal(signal.SIGTERM, lambda *_: self.stop_requested.set())
        signal.signal(signal.SIGINT, lambda *_: self.stop_requested.set())
        signal.signal(signal.SIGHUP, lambda *_: self.reload_requested.set())

    def run(self) -> int:
        pid = os.getpid()
        self.journal.patience = self._patience
        try:
            # the tables first: whoever sees this daemon running finds the tables it drives
            self._apply(self.cfg)
            self.journal.heartbeat(pid, self.config_path, started=True)
        except Stopping:
            return self._close(0)
        self.journal.patience = None
        self.watch.start()
        systemd.notify("READY=1\nSTATUS=driving %d table(s)" % len(self.managers))
        log.info("tablectl serving %d table(s) from %s", len(self.managers), self.config_path)
        watchdog = systemd.watchdog_interval()
        stuck_after = max(STUCK_MIN_S, watchdog or 0)
        last_beat = 0.0
        while not self.stop_requested.wait(0.1):
            if self.reload_requested.is_set():
                self.reload_requested.clear()
                self._reload()
            self._revive()
            if time.monotonic() - last_beat >= min(HEARTBEAT_S, watchdog or HEARTBEAT_S):
                last_beat = time.monotonic()
                self._heartbeat(pid)
                if watchdog and self.progressing(stuck_after):
                    systemd.notify("WATCHDOG=1")
        self.shutdown()
        return 0

    def _patience(self, waited: float) -> None:
        if self.stop_requested.wait(min(2.0, 0.1 * 2 ** min(5, int(waited)))):
            raise Stopping()

    def _heartbeat(self, pid: int) -> None:
        """Write the heartbeat; while the database is locked it goes stale (no crash)."""
        try:
            self.journal.heartbeat(pid)
        except sqlite3.OperationalError as e:
            if not is_locked(e):
                raise
            if not self._heartbeat_failing:
                log.warning("the database is locked by another process: heartbeat delayed")
            self._heartbeat_failing = True
            return
        if self._heartbeat_failing:
            log.info("the database is writable again: heartbeat resumed")
        self._heartbeat_failing = False

    def progressing(self, stuck_after: float) -> bool:
        """True if every manager's loop made progress within ``stuck_after`` s."""
        now = time.monotonic()
        stuck = [m.tid for m in self.managers.values()
                 if m.is_alive() and now - m.beat > stuck_after]
        if stuck:
            log.error("no progress for %.0f s in table(s) %s: no watchdog ping", stuck_after,
                      ", ".join(stuck))
        return not stuck

    def shutdown(self) -> None:
        """Stop every manager (each closes its port) and mark the daemon stopped."""
        systemd.notify("STOPPING=1")
        self.watch.stop_event.set()
        for m in self.managers.values():
            m.stop()
        for m in self.managers.values():
            m.join(timeout=10)
            _drop_handlers(m.tlog)
        self.managers.clear()
        try:
            self.journal.stopped(os.getpid())
        except sqlite3.OperationalError as e:
            if not is_locked(e):
                raise
        self._close(0)
        log.info("tablectl stopped")

    def _close(self, rc: int) -> int:
        self.journal.close()
        self._lock.close()
        return rc

    def _apply(self, cfg: Config) -> None:
        """Make the running managers match ``cfg`` (start, stop, restart changed ones)."""
        self.journal.register_tables([
            {**t.as_dict(), "commands": sorted(driver_class(t.driver).capabilities())}
            for t in cfg.tables])
        wanted = {t.id: t for t in cfg.tables}
        for tid in list(self.managers):
            m = self.managers[tid]
            if tid not in wanted or m.table != wanted[tid] or m.cfg.link != cfg.link \
                    or m.halted:
                m.stop()
                m.join(timeout=10)
                _drop_handlers(m.tlog)
                del self.managers[tid]
        for tid, t in wanted.items():
            if tid not in self.managers:
                self.managers[tid] = TableManager(t, cfg)
                self.managers[tid].start()
        self.cfg = cfg

    def _reload(self) -> None:
        systemd.notify("RELOADING=1")
        try:
            cfg = load_config(self.config_path)
        except ConfigError as e:
            log.error("config reload refused, keeping the running config: %s", e.message)
        else:
            if cfg.db != self.cfg.db:
                log.error("config reload: a new db path needs a restart; keeping %s", self.cfg.db)
                cfg = Config(cfg.path, self.cfg.db, cfg.log_dir, cfg.link, cfg.tables,
                             cfg.lock_dir, cfg.timezone)
            try:
                self._apply(cfg)
            except sqlite3.OperationalError as e:
                if not is_locked(e):
                    raise
                log.error("config reload: the database is locked; try the reload again later")
            log.info("config reloaded: %d table(s)", len(self.managers))
        systemd.notify("READY=1")

    def _revive(self) -> None:
        """Start a new manager for one whose thread died (it logged why)."""
        for tid, m in list(self.managers.items()):
            if not m.is_alive() and not m.stop_event.is_set():
                _drop_handlers(m.tlog)
                self.managers[tid] = TableManager(m.table, self.cfg)
                self.managers[tid].start()


def _check_database(db: str) -> None:
    """Refuse to start on an empty, damaged, foreign or newer club file (a path that does
    not exist becomes a new club file): driving tables into such a file would write the
    night's commands where nobody reads them."""
    from .store import MIGRATIONS

    try:
        clubdb.prepare(db, [MIGRATIONS])
    except clubdb.FileRefused as e:
        raise DatabaseRefused(e) from None


def _single_instance(db: str) -> TextIO:
    """Hold an exclusive lock next to the store: two daemons driving the same tables
    would number their commands independently and defeat duplicate detection. The
    kernel drops the lock when the process dies, even by kill -9."""
    Path(db).parent.mkdir(parents=True, exist_ok=True)
    f = open(f"{db}.tablectl.lock", "a+")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        holder = f.read().strip() or "?"
        f.close()
        raise ConfigError(code="another_daemon", pid=holder, db=db) from None
    f.seek(0)
    f.truncate()
    f.write(f"{os.getpid()}\n")
    f.flush()
    return f


def serve(config_path: str) -> int:
    """Entry point of ``tablectl serve``: run until SIGTERM."""
    logging.basicConfig(level=os.environ.get("TABLECTL_LOG_LEVEL", "INFO"),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        daemon = Daemon(config_path)
    except (ConfigError, DatabaseRefused) as e:   # the refused file's words name the restore
        log.error("%s", e.message)
        return 2
    daemon.install_signals()
    return daemon.run()
