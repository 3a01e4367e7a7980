"""``tablectl serve``: one link manager thread per table, driven by the journal.

Each :class:`TableManager` keeps its table connected (HELLO after every
(re)connect, exponential capped and jittered backoff while it is gone),
resolves a command a previous daemon left in doubt (docs/protocol.md, "Host
recovery"), then takes queued commands from the journal one at a time, in
order, and writes results, table state and events back to the store.

:class:`Daemon` runs the managers under systemd: ``READY=1`` once started,
``WATCHDOG=1`` pings while every manager is alive, SIGTERM stops cleanly
(the in-flight command finishes or stays journalled as ``sending`` with its
seq, to be resolved on the next start), SIGHUP reloads the config.
"""

from __future__ import annotations

import fcntl
import json
import logging
import logging.handlers
import os
import queue
import signal
import threading
import time
from pathlib import Path
from typing import Any

import lexicon

from . import protocol as P
from . import systemd
from .config import Config, ConfigError, TableConfig, load_config
from .modes import MODES, SEATS
from .link import Backoff, Link, LinkError, Nak
from .store import Journal

log = logging.getLogger("tablectl")

IDLE_POLL_S = 0.02       # how often an idle manager looks at the journal
HEARTBEAT_S = 1.0        # how often the daemon writes its heartbeat row
REFRESH_S = 10.0         # an idle, connected table is asked for STATUS this often
DEVICE_POLL_S = 0.02     # how often a missing device node is looked for
BUSY_REQUEUES = 8        # a command refused BUSY (table booting) is retried this many times


_POWER_CUT = ("power_cut", "the table lost power during the cycle; the walls were not raised. "
              "Start a new cycle. / 洗牌中に電源が切れました。牌山は上がっていません。"
              "もう一度洗牌してください。")


class _Stopping(Exception):
    """The manager was asked to stop while a command waited on the table."""


# --------------------------------------------------------------------------- words
def result_error(code: int, extra: str = "") -> tuple[str, str]:
    """(error_code, message in English / Japanese) for a table result code."""
    name = P.result_code(code)
    key = f"table.code.{name}" if lexicon.has(f"table.code.{name}") else "table.code.table_error"
    en, ja = lexicon.t(key, "en", code=f"0x{code:02X}"), lexicon.t(key, "ja", code=f"0x{code:02X}")
    return name, f"{en}{extra} / {ja}"


def state_dict(st) -> dict:
    """A protocol TableState as plain JSON-able data."""
    return {
        "mode": st.mode, "pending_mode": st.pending_mode, "cycle_state": st.cycle.name.lower(),
        "lid": "open" if st.lid_open else "closed", "dice": list(st.dice) if st.dice else None,
        "dealer": st.dealer, "cycle_no": st.cycle_no, "cycle_remaining_ms": st.cycle_remaining_ms,
        "errors": [_code_name(e) for e in st.errors],
        "points": [s.total if s.present else None for s in st.seats],
    }


def _code_name(code: int) -> str:
    try:
        return P.Result(code).name.lower()
    except ValueError:
        return f"0x{code:02x}"


def _seats_text(mask: int) -> str:
    seats = [str(i + 1) for i in range(SEATS) if mask & (1 << i)]
    return f" (seat {', '.join(seats)})" if seats else ""


# --------------------------------------------------------------------------- commands
def build_message(command: str, args: dict, dealer: int):
    """The protocol message for one journalled command."""
    if command == "mode":
        return P.SelectMode(int(args["mode"]))
    if command == "dice":
        return P.RollDice(dealer)
    simple = {"status": P.Status, "cycle": P.StartCycle, "deal": P.Deal,
              "check": P.TileCheck, "points": P.ReadPoints, "dealt": P.DealtReport,
              "reset": P.ClearErrors}
    return simple[command]()


def reply_result(reply) -> dict:
    """A reply message as the JSON result stored in the journal."""
    if isinstance(reply, P.SelectModeReply):
        return {"mode": reply.mode, "pending_mode": reply.pending_mode,
                "requested": reply.requested, "seat_mask": reply.seat_mask,
                "applied_now": reply.pending_mode is None and reply.mode == reply.requested}
    if isinstance(reply, P.StatusReply):
        return state_dict(reply.state)
    if isinstance(reply, P.RollDiceReply):
        return {"dice": list(reply.dice), "seat": reply.seat}
    if isinstance(reply, P.DealReply):
        return {"walls_only": reply.walls_only, "dealer": reply.dealer,
                "dice": list(reply.dice), "hands": list(reply.hand_sizes)}
    if isinstance(reply, P.TileCheckReply):
        return {"ok": reply.ok, "mode": reply.mode, "expected": reply.expected,
                "counted": reply.counted, "missing": list(reply.missing),
                "extra": list(reply.extra)}
    if isinstance(reply, P.ReadPointsReply):
        return {"points": [s.total if s.present else None for s in reply.seats]}
    if isinstance(reply, P.StartCycleReply):
        return {"mode": reply.mode, "cycle_no": reply.cycle_no, "duration_ms": reply.duration_ms}
    if isinstance(reply, P.ClearErrorsReply):
        return {"cleared": [_code_name(c) for c in reply.cleared],
                "remaining": [_code_name(c) for c in reply.remaining]}
    if isinstance(reply, P.DealtReportReply):
        return {"cycle_no": reply.cycle_no, "mode": reply.mode, "dealer": reply.dealer,
                "dice": list(reply.dice), "dealt": reply.dealt,
                "walls": [list(w) for w in reply.walls], "hands": [list(h) for h in reply.hands],
                "live_wall": list(reply.live_wall)}
    return {"reply": repr(reply)}


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


# --------------------------------------------------------------------------- manager
class TableManager(threading.Thread):
    """Keeps one table connected and runs its journalled commands in order."""

    def __init__(self, table: TableConfig, cfg: Config):
        super().__init__(name=f"table {table.id}", daemon=True)
        self.table, self.cfg = table, cfg
        self.tid = table.id
        self.stop_event = threading.Event()
        self.events: queue.Queue = queue.Queue()
        self.tlog = table_logger(cfg.log_dir, table.id)
        self.link = Link(table.url, table.baud, cfg.link, on_event=self.events.put, log=self.tlog)
        self.backoff = Backoff(cfg.link.backoff_min, cfg.link.backoff_max)
        self.journal: Journal | None = None
        self.boot_id: int | None = None
        self.caps = P.Capability(0)
        self.dealer = 0
        self.down_since: float | None = None
        self.last_refresh = 0.0
        self.state_dirty = False
        self.rehello = False
        self._rebooted = False

    def stop(self) -> None:
        self.stop_event.set()

    # ------------------------------------------------------------ main loop
    def run(self) -> None:
        self.journal = Journal(self.cfg.db)
        try:
            while not self.stop_event.is_set():
                self._step()
        except Exception:  # keep the daemon alive; the watchdog loop restarts us
            self.tlog.exception("table manager crashed; frames:\n%s", "\n".join(self.link.dump()))
            log.exception("table %s: manager crashed", self.tid)
        finally:
            self.link.close()
            self._set_disconnected("daemon stopped" if self.stop_event.is_set() else "crashed")
            self.journal.close()

    def _step(self) -> None:
        if not self.link.connected:
            self._connect()
            return
        try:
            self._drain_events()
            if self.rehello:
                self.rehello = False
                self.link.close()
                self._set_disconnected("the table restarted (power on); saying HELLO again")
                return
            cmd = self.journal.claim_next(self.tid)
            if cmd is not None:
                self._execute(cmd)
            elif self.state_dirty or time.monotonic() - self.last_refresh > REFRESH_S:
                self._refresh()
            else:
                self.stop_event.wait(IDLE_POLL_S)
        except LinkError as e:
            self._link_failed(e)
        except _Stopping:
            pass

    # ------------------------------------------------------------ connection
    def _connect(self) -> None:
        self._give_up_in_doubt()
        try:
            hello = self.link.connect()
        except LinkError as e:
            self._set_disconnected(e.message)
            self._pause(self.backoff.next())
            return
        self.backoff.reset()
        self.down_since = None
        prev = self._stored_boot_id()
        self._adopt_hello(hello)
        self.journal.add_event(self.tid, "connected", message=f"{hello.model} fw {hello.firmware}",
                               data={"boot_id": hello.boot_id, "last_seq": hello.last_seq})
        self.tlog.info("connected: %s", hello)
        self._rebooted = prev is not None and prev != hello.boot_id
        self._late_outcome(hello)
        try:
            self._recover(hello, rebooted=self._rebooted)
        except LinkError as e:
            self._link_failed(e)
        except _Stopping:
            pass

    def _pause(self, delay: float) -> None:
        """Wait ``delay`` before reconnecting, but try at once when a missing device
        node (a USB-serial adapter that was pulled) appears again: udev recreating
        it is the best sign the table is back, and backoff must not hide it."""
        path = self.table.url if "://" not in self.table.url else None
        if path is None or os.path.exists(path):
            self.stop_event.wait(delay)
            return
        end = time.monotonic() + delay
        while time.monotonic() < end and not self.stop_event.is_set():
            if os.path.exists(path):
                return
            self.stop_event.wait(DEVICE_POLL_S)

    def _stored_boot_id(self) -> int | None:
        rows = self.journal.db.conn.execute(
            "SELECT state FROM table_state WHERE table_id = ?", (self.tid,)).fetchall()
        if not rows or not rows[0][0]:
            return None
        return json.loads(rows[0][0]).get("boot_id")

    def _adopt_hello(self, hello) -> None:
        self.boot_id, self.caps = hello.boot_id, hello.capabilities
        self._save_state(hello.state, connected=1, model=hello.model, firmware=hello.firmware,
                         capabilities={"auto_deal": hello.auto_deal,
                                       "ic_point_sticks": hello.ic_point_sticks},
                         last_error=None)

    def _save_state(self, st, **extra) -> None:
        d = state_dict(st)
        self.dealer = st.dealer
        self.last_refresh = time.monotonic()
        self.state_dirty = False
        self.journal.update_table(
            self.tid, mode=d["mode"], pending_mode=d["pending_mode"],
            cycle_state=d["cycle_state"], lid=d["lid"], errors=d["errors"], points=d["points"],
            state={**d, "boot_id": self.boot_id}, **extra)

    def _set_disconnected(self, reason: str) -> None:
        if self.down_since is None:
            self.down_since = time.monotonic()
            self.journal.add_event(self.tid, "disconnected", message=reason)
            self.tlog.warning("disconnected: %s", reason)
        self.journal.update_table(self.tid, connected=0, last_error=reason)

    def _link_failed(self, e: LinkError) -> None:
        self.tlog.error("link failure: %s\nlast frames:\n%s", e.message, "\n".join(e.frames))
        self.link.close()
        self._set_disconnected(e.message)

    # ------------------------------------------------------------ recovery
    def _recover(self, hello, rebooted: bool) -> None:
        """Resolve commands a previous run left in ``sending`` (docs/protocol.md, Host recovery)."""
        for cmd in self.journal.in_doubt(self.tid):
            msg = build_message(cmd["command"], cmd["args"] or {}, self.dealer)
            if cmd["result"] is not None and cmd["command"] == "cycle":
                # its reply was journalled: it ran; only the cycle's end is awaited
                r = cmd["result"]
                started = P.StartCycleReply(P.Result.OK, r["mode"], r["cycle_no"],
                                            r["duration_ms"])
                self._await_cycle(cmd, started, r)
            elif cmd["seq"] is None:
                self.journal.requeue(cmd["id"])           # never reached the wire
            elif not rebooted:
                # same seq: if it ran, the table replays its remembered reply and does
                # not run it again; if it never arrived, it runs now. Exactly once
                # either way, without trusting HELLO's last_seq.
                self._execute(cmd, seq=cmd["seq"])
            elif not msg.CHANGES_STATE or cmd["command"] == "mode":
                self.journal.requeue(cmd["id"])           # reads and mode: safe to repeat
            else:
                self._finish_error(cmd, "in_doubt_power_cut",
                                   "the table restarted while this command was being sent, so "
                                   "whether it ran is unknown; it was NOT repeated. Check the "
                                   "table and ask again. / 送信中に卓が再起動したため実行されたか"
                                   "不明です。再実行はしていません。卓を確認してやり直してください。")

    def _give_up_in_doubt(self) -> None:
        """A command in doubt while the table stays away too long is marked timed_out."""
        limit = self.cfg.link.in_doubt_timeout
        if self.down_since is None or time.monotonic() - self.down_since < limit:
            return
        for cmd in self.journal.in_doubt(self.tid):
            self.journal.finish(
                cmd["id"], "timed_out", error_code="link_down",
                error_message=f"the table stopped answering and has been unreachable for "
                f"{limit:g} s; the command may not have run and will NOT be "
                "repeated automatically. / 卓と通信できません。コマンドは自動では再実行しません。")

    def _late_outcome(self, hello) -> None:
        """A command given up as ``link_down`` that the table's HELLO shows DID run: say so."""
        for cmd in self.journal.given_up(self.tid):
            msg = build_message(cmd["command"], cmd["args"] or {}, self.dealer)
            if hello.last_cmd == msg.CMD and hello.last_seq == cmd["seq"] and not self._rebooted:
                text = ("the table came back and reports that this command DID run / "
                        "卓の復帰後、このコマンドは実行済みと確認されました")
                self.journal.note_late_outcome(cmd["id"], "link_down_ran", text)
                self.journal.add_event(self.tid, "late_outcome", "link_down_ran", text,
                                       {"command_id": cmd["id"]})

    # ------------------------------------------------------------ commands
    def _execute(self, cmd: dict, seq: int | None = None) -> None:
        msg = build_message(cmd["command"], cmd["args"] or {}, self.dealer)
        try:
            reply = self.link.transact(msg, seq=seq,
                                       before_send=lambda s: self.journal.set_seq(cmd["id"], s))
        except Nak as e:  # refused at the link level: it certainly did not run
            if e.code == "busy" and cmd["attempts"] < BUSY_REQUEUES:
                self.journal.requeue(cmd["id"])   # the booting table will take it shortly
                self.stop_event.wait(self.cfg.link.timeout)
                return None
            return self._finish_error(cmd, "nak", f"{e.message} / 卓がコマンドを拒否しました")
        self.tlog.info("#%s %s -> %s", cmd["id"], msg, reply)
        result = reply_result(reply)
        if isinstance(reply, P.StartCycleReply) and reply.ok:
            # journal that the table started it: the STATUS polls that follow
            # replace the table's remembered command, so after a crash HELLO
            # could no longer tell that this cycle ran
            self.journal.set_progress(cmd["id"], result)
            self._await_cycle(cmd, reply, result)
            return
        if reply.ok:
            self.journal.finish(cmd["id"], "done", result)
        else:
            extra = _seats_text(getattr(reply, "seat_mask", 0))
            self._finish_error(cmd, *result_error(reply.result, extra), result)
        if msg.CHANGES_STATE or not reply.ok:
            self.state_dirty = True

    def _finish_error(self, cmd: dict, code: str, text: str, result: Any = None) -> None:
        self.tlog.warning("#%s %s failed: %s: %s\nlast frames:\n%s", cmd["id"], cmd["command"],
                          code, text, "\n".join(self.link.dump()))
        self.journal.finish(cmd["id"], "failed", result, code, text)
        self.journal.add_event(self.tid, "command_failed", code, text, {"command_id": cmd["id"]})

    def _await_cycle(self, cmd: dict, reply, result: dict) -> None:
        """Wait for the cycle the table started to end (events, with STATUS polls as a backup)."""
        wait = reply.duration_ms / 1000
        deadline = time.monotonic() + wait * 2 + self.cfg.link.reply_timeout
        poll = min(0.5, max(0.01, wait / 8))
        while time.monotonic() < deadline:
            if self.stop_event.wait(poll):
                raise _Stopping()  # stays 'sending' with its seq: resolved on the next start
            outcome = self._drain_events(reply.cycle_no)
            if outcome == "power":
                return self._finish_error(cmd, *_POWER_CUT, result)
            st = self.link.transact(P.Status()).state
            if isinstance(outcome, int):  # CYCLE_FINISHED said how it ended
                self._save_state(st)
                return self._cycle_finished(cmd, outcome, st, result)
            if st.cycle == P.CycleState.CYCLING and st.cycle_no >= reply.cycle_no:
                continue
            self._save_state(st)
            return self._cycle_outcome(cmd, st, result, reply.cycle_no)
        self._finish_error(cmd, *result_error(P.Result.CYCLE_OVERRUN), result)

    def _cycle_finished(self, cmd: dict, code: int, st, result: dict) -> None:
        result = {**result, "cycle_state": st.cycle.name.lower(),
                  "walls_only": not bool(self.caps & P.Capability.AUTO_DEAL)}
        if code == P.Result.OK:
            self.journal.finish(cmd["id"], "done", result)
        else:
            self._finish_error(cmd, *result_error(code), result)

    def _cycle_outcome(self, cmd: dict, st, result: dict, cycle_no: int) -> None:
        """The cycle's end seen through STATUS only (its CYCLE_FINISHED event was lost)."""
        result = {**result, "cycle_state": st.cycle.name.lower(),
                  "walls_only": not bool(self.caps & P.Capability.AUTO_DEAL)}
        up = (P.CycleState.WALLS_UP, P.CycleState.DICE_ROLLED, P.CycleState.DEALT)
        if st.cycle_no >= cycle_no and (st.cycle in up or (
                st.cycle == P.CycleState.IDLE and MODES[st.mode].is_check and not st.errors)):
            self.journal.finish(cmd["id"], "done", result)
        elif st.cycle == P.CycleState.FAILED and st.errors:
            self._finish_error(cmd, *result_error(st.errors[0]), result)
        elif st.cycle_no < cycle_no or st.cycle == P.CycleState.IDLE:
            self._finish_error(cmd, *_POWER_CUT, result)  # the table forgot the cycle: it restarted
        else:
            self._finish_error(cmd, *result_error(P.Result.CYCLE_OVERRUN), result)

    # ------------------------------------------------------------ events and state
    def _drain_events(self, cycle_no: int | None = None) -> str | int | None:
        """Store queued events; return "power" if the table restarted while a cycle
        was awaited, the result code if the awaited cycle finished, else None."""
        outcome = None
        while True:
            try:
                ev = self.events.get_nowait()
            except queue.Empty:
                return outcome
            self._store_event(ev)
            if isinstance(ev, P.PowerOn):
                # a restarted table wants HELLO again before any command
                self.rehello = True
                outcome = "power" if cycle_no is not None else outcome
            elif isinstance(ev, P.CycleFinished) and ev.cycle_no == cycle_no:
                outcome = outcome or int(ev.result)

    def _store_event(self, ev) -> None:
        code, text = "", ""
        if isinstance(ev, (P.ErrorRaised, P.ErrorCleared)) or (
                isinstance(ev, P.CycleFinished) and not ev.ok):
            code, text = result_error(getattr(ev, "code", getattr(ev, "result", 0)))
        data = {k: (v if isinstance(v, (int, str, bool, type(None))) else repr(v))
                for k, v in vars(ev).items()}
        self.journal.add_event(self.tid, ev.NAME.lower().removeprefix("ev_"), code, text, data)
        if isinstance(ev, P.ErrorRaised):
            self.journal.update_table(self.tid, last_error=text)
        self.state_dirty = True

    def _refresh(self) -> None:
        reply = self.link.transact(P.Status())
        self._save_state(reply.state)


# --------------------------------------------------------------------------- daemon
class Daemon:
    """The process: managers per table, heartbeat, signals, systemd notify."""

    def __init__(self, config_path: str):
        self.config_path = config_path
        self.cfg = load_config(config_path)
        self._lock = _single_instance(self.cfg.db)
        self.managers: dict[str, TableManager] = {}
        self.stop_requested = threading.Event()
        self.reload_requested = threading.Event()
        self.journal = Journal(self.cfg.db)

    def install_signals(self) -> None:
        signal.signal(signal.SIGTERM, lambda *_: self.stop_requested.set())
        signal.signal(signal.SIGINT, lambda *_: self.stop_requested.set())
        signal.signal(signal.SIGHUP, lambda *_: self.reload_requested.set())

    def run(self) -> int:
        pid = os.getpid()
        self.journal.heartbeat(pid, self.config_path, started=True)
        self._apply(self.cfg)
        systemd.notify("READY=1\nSTATUS=driving %d table(s)" % len(self.managers))
        log.info("tablectl serving %d table(s) from %s", len(self.managers), self.config_path)
        watchdog = systemd.watchdog_interval()
        last_beat = 0.0
        while not self.stop_requested.wait(0.1):
            if self.reload_requested.is_set():
                self.reload_requested.clear()
                self._reload()
            self._revive()
            if time.monotonic() - last_beat >= min(HEARTBEAT_S, watchdog or HEARTBEAT_S):
                self.journal.heartbeat(pid)
                if watchdog:
                    systemd.notify("WATCHDOG=1")
                last_beat = time.monotonic()
        self.shutdown()
        return 0

    def shutdown(self) -> None:
        """Stop every manager (each closes its port) and mark the daemon stopped."""
        systemd.notify("STOPPING=1")
        for m in self.managers.values():
            m.stop()
        for m in self.managers.values():
            m.join(timeout=10)
            _drop_handlers(m.tlog)
        self.managers.clear()
        self.journal.stopped(os.getpid())
        self.journal.close()
        self._lock.close()
        log.info("tablectl stopped")

    def _apply(self, cfg: Config) -> None:
        """Make the running managers match ``cfg`` (start, stop, restart changed ones)."""
        self.journal.register_tables([t.as_dict() for t in cfg.tables])
        wanted = {t.id: t for t in cfg.tables}
        for tid in list(self.managers):
            m = self.managers[tid]
            if tid not in wanted or m.table != wanted[tid] or m.cfg.link != cfg.link:
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
                cfg = Config(cfg.path, self.cfg.db, cfg.log_dir, cfg.link, cfg.tables)
            self._apply(cfg)
            log.info("config reloaded: %d table(s)", len(self.managers))
        systemd.notify("READY=1")

    def _revive(self) -> None:
        """Restart a manager thread that died (it logged why)."""
        for tid, m in list(self.managers.items()):
            if not m.is_alive() and not m.stop_event.is_set():
                _drop_handlers(m.tlog)
                self.managers[tid] = TableManager(m.table, self.cfg)
                self.managers[tid].start()


def _single_instance(db: str):
    """Hold an exclusive lock next to the store: two daemons driving the same tables
    would number their commands independently and defeat duplicate detection. The
    kernel drops the lock when the process dies, even by kill -9."""
    Path(db).parent.mkdir(parents=True, exist_ok=True)
    f = open(f"{db}.tablectl.lock", "a+")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.close()
        raise ConfigError(f"another tablectl daemon is already serving {db}; stop it first "
                          "(systemctl stop tablectl) or use a different db") from None
    return f


def serve(config_path: str) -> int:
    """Entry point of ``tablectl serve``: run until SIGTERM."""
    logging.basicConfig(level=os.environ.get("TABLECTL_LOG_LEVEL", "INFO"),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        daemon = Daemon(config_path)
    except ConfigError as e:
        log.error("%s", e.message)
        return 2
    daemon.install_signals()
    return daemon.run()
