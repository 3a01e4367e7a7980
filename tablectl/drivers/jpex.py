"""``jpex-link``: the AMOS JP-EX link protocol (docs/protocol.md) as a table driver.

:class:`Link` is the transaction layer of one table's line (the port moves bytes
only): a reader thread feeds the :class:`~tablectl.protocol.FrameDecoder`,
matches replies to the one outstanding command by sequence number, drops
duplicates and hands events on; :meth:`Link.transact` retransmits the SAME
frame (same seq) after ``timeout`` up to ``retries`` times, so the table's
duplicate memory answers a retransmission instead of running it again;
:meth:`Link.connect` opens the port exclusively and says HELLO before anything
else. The last ``history`` frames are attached to every failure.

:class:`JpexLinkDriver` maps the staff commands onto messages and replies onto
results, follows a started cycle to its end, and turns the table's events into
:class:`~tablectl.drivers.base.TableEvent`.
"""

from __future__ import annotations

import collections
import logging
import random
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from .. import protocol
from ..errors import TableError
from ..modes import MODES, SEATS
from ..serialport import close_quietly, open_port
from ..settings import LinkSettings, SerialSettings, TableConfig
from .base import Driver, Identity, Job, LinkDown, Outcome, RunOnce, TableEvent, Unsupported

IDLE_READ_S = 0.5
"""How long the reader waits for bytes on a quiet line (a half frame: the inter-byte
timeout); short waits on twenty idle tables would cost a measurable share of a core."""


class LinkTimeout(LinkDown):
    code = "timeout"


class NakError(TableError):
    """The table refused the frame itself (``nak_refused``, ``nak_busy``): it did not run."""


@dataclass
class _Pending:
    seq: int
    cmd: int
    reply: Any = None


@dataclass(frozen=True)
class _OtherVersion:
    """A HELLO reply from a table that speaks another protocol version."""

    version: int


class Link:
    """One table's line; thread-safe for one caller at a time plus the reader thread."""

    def __init__(self, url: str, serial: SerialSettings | None = None,
                 settings: LinkSettings | None = None, *, lock_dir: str | None = None,
                 on_event: Callable[[Any], None] | None = None,
                 log: logging.Logger | None = None):
        self.url = url
        self.serial = serial or SerialSettings()
        self.settings = settings or LinkSettings()
        self.lock_dir = lock_dir
        self.on_event = on_event
        self.log = log or logging.getLogger(f"tablectl.link.{url}")
        self.history: collections.deque[str] = collections.deque(maxlen=self.settings.history)
        self._heard: collections.deque[int] = collections.deque(maxlen=48)
        self._port: Any = None  # a pyserial-like port (a Port, or a transport's own)
        self._reader: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()          # one transaction at a time
        self._cond = threading.Condition()     # reader -> waiting transaction
        self._pending: _Pending | None = None
        self._down: LinkDown | None = LinkDown(code="not_connected")
        self._seq = 0
        self._hello_seqs: collections.deque[int] = collections.deque(maxlen=128)
        self._rng = random.SystemRandom()
        self.hello: Any = None
        self.decoder = protocol.FrameDecoder()
        self.counters: collections.Counter[Any] = collections.Counter()

    @property
    def connected(self) -> bool:
        return self._port is not None and self._down is None

    def connect(self) -> protocol.HelloReply:
        """Open the port, start the reader and say HELLO; return the HELLO reply.

        On the first connect (and after the table restarted) sequence numbers
        continue from the table's ``last_seq + 1``, so a new command is never
        taken for a retransmission of its remembered one; later reconnects go on
        with our own counter, skipping the remembered seq. HELLO takes a random seq
        not used by a recent HELLO (HELLO is not de-duplicated): a late reply to an
        earlier HELLO on a slow line must never be taken for this one's.
        """
        self.close()
        try:
            self._port = open_port(self.url, self.serial, lock_dir=self.lock_dir,
                                   timeout=IDLE_READ_S)
        except LinkDown:
            raise
        except TableError as e:       # PortError: its code is the reason in words
            raise LinkDown(e.detail, e.code, **e.values) from None
        self.decoder.reset()
        self._heard.clear()
        heard_before = (self.decoder.frames, self.decoder.garbage_bytes)
        self._down = None
        self._stop.clear()
        self._reader = threading.Thread(target=self._read_loop, name=f"link-read {self.url}",
                                        daemon=True)
        self._reader.start()
        try:
            hello: protocol.HelloReply | _OtherVersion = self.transact(protocol.Hello(),
                                                                seq=self._hello_seq())
        except LinkTimeout:
            self.close()
            raise self._silence(heard_before) from None
        except LinkDown:
            self.close()
            raise
        except NakError as e:
            # BUSY to every try: the table is still booting; connect again (HELLO) shortly
            self.close()
            raise LinkDown(e.detail, "booting" if e.code == "nak_busy" else "refused_hello",
                           frames=self.dump(), **e.values) from None
        if isinstance(hello, _OtherVersion) or hello.protocol_version != protocol.PROTOCOL_VERSION:
            self.close()
            version = (hello.version if isinstance(hello, _OtherVersion)
                       else hello.protocol_version)
            raise Unsupported(code="unsupported_version", version=version,
                              ours=protocol.PROTOCOL_VERSION)
        if self.hello is None or hello.boot_id != self.hello.boot_id:
            self._seq = (hello.last_seq + 1) % 256
        elif hello.last_cmd != protocol.NO_CMD and self._seq == hello.last_seq:
            # our counter came round to the seq the table remembers (commands it never
            # got): a new command under it could match the remembered one and be answered
            # from memory without running
            self._seq = (self._seq + 1) % 256
        self.hello = hello
        return hello

    def _silence(self, before: tuple[int, int]) -> LinkDown:
        """Why HELLO got no answer: nothing heard, text, or bytes that are not frames."""
        frames, garbage = before
        if self.decoder.frames == frames and self.decoder.garbage_bytes > garbage:
            raw = bytes(self._heard)
            text = raw.decode("ascii", errors="replace")
            if raw and all(32 <= b < 127 or b in (9, 10, 13) for b in raw):
                return LinkDown(code="ascii_answer", sample=text.strip()[:40] or repr(text))
            return LinkDown(code="garbage_answer", count=self.decoder.garbage_bytes - garbage)
        return LinkDown(code="no_answer")

    def _hello_seq(self) -> int:
        free = [s for s in range(256) if s not in self._hello_seqs and s != self._seq]
        seq = self._rng.choice(free)
        self._hello_seqs.append(seq)
        return seq

    def close(self) -> None:
        """Stop the reader and close the port (safe to call twice)."""
        self._stop.set()
        port, self._port = self._port, None
        close_quietly(port)
        reader, self._reader = self._reader, None
        if reader is not None and reader is not threading.current_thread():
            reader.join(timeout=2)
        self._mark_down(LinkDown(code="closed"))

    def _mark_down(self, why: LinkDown) -> None:
        with self._cond:
            if self._down is None:
                self._down = why
            self._cond.notify_all()

    # ------------------------------------------------------------------ reader
    def _read_loop(self) -> None:
        port = self._port
        quick = False
        while not self._stop.is_set():
            try:
                if bool(self.decoder.pending) != quick:
                    quick = not quick
                    port.raw.timeout = protocol.INTER_BYTE_TIMEOUT_S if quick else IDLE_READ_S
                data = port.read(max(1, port.in_waiting))
            except Exception as e:  # USB adapter pulled, socket reset, pty closed
                if not self._stop.is_set():
                    self.log.warning("link lost: %s", e)
                    self._mark_down(LinkDown(str(e), "lost"))
                return
            if data:
                self._heard.extend(data)
            # feed(b"") on a quiet line lets the decoder give up a stale half frame
            for frame in self.decoder.feed(data):
                self._on_frame(frame)

    def _on_frame(self, frame: protocol.Frame) -> None:
        msg: protocol.Message | _OtherVersion
        try:
            msg = protocol.message_from_frame(frame)
        except TableError as e:
            payload = frame.payload
            if (frame.cmd == protocol.HelloReply.CMD and len(payload) >= 2
                    and payload[1] != protocol.PROTOCOL_VERSION):
                msg = _OtherVersion(payload[1])
            else:
                self._record("<-", frame, f"undecodable: {e.detail}")
                return
        self._record("<-", frame, msg)
        if isinstance(msg, protocol.Event):
            self.counters["events"] += 1
            if self.on_event is not None:
                try:
                    self.on_event(msg)
                except Exception:  # a failing callback must not kill the reader
                    self.log.exception("event callback failed")
            return
        with self._cond:
            p = self._pending
            # The reply IS the acknowledgement: it must carry our seq and be the reply
            # type of our command (or a NAK). Anything else is a duplicate or a late
            # reply to an earlier try: ignore it.
            wanted = protocol.reply_type_for(p.cmd) if p else None
            if p is None or frame.seq != p.seq or p.reply is not None \
                    or frame.cmd not in (wanted, protocol.Nak.CMD):
                self.counters["stray_replies"] += 1
                return
            p.reply = msg
            self._cond.notify_all()

    # ------------------------------------------------------------------ transactions
    def next_seq(self) -> int:
        """The sequence number the next command will use."""
        return self._seq

    def transact(self, msg: protocol.Message, seq: int | None = None,
                 before_send: Callable[[int], None] | None = None) -> Any:
        """Send ``msg`` and return the table's reply message.

        ``seq`` re-uses a sequence number (recovery of a command in doubt);
        ``before_send(seq)`` runs before the first byte is written (the journal
        records the seq there). Raises :class:`LinkTimeout` after the bounded
        retries, :class:`LinkDown` if the line drops, :class:`NakError` if the table
        refuses the frame itself. A reply with an error result is returned.
        """
        with self._lock:
            if seq is None:
                seq, self._seq = self._seq, (self._seq + 1) % 256
            elif msg.CMD != protocol.Hello.CMD:
                # a re-sent command (recovery) is the newest the table may remember
                self._seq = (seq + 1) % 256
            frame = protocol.Frame(seq=seq, cmd=msg.CMD, payload=msg.encode())
            if before_send is not None:
                before_send(seq)
            return self._exchange(frame, msg)

    def _exchange(self, frame: protocol.Frame, msg: protocol.Message) -> Any:
        wire = protocol.encode_frame(frame)
        s = self.settings
        busy = 0
        try:
            for attempt in range(s.retries + 1):
                with self._cond:
                    self._pending = _Pending(frame.seq, frame.cmd)
                self._write(wire, frame, msg, attempt)
                got = self._wait(s.timeout)
                if got is None:
                    continue
                if not isinstance(got, protocol.Nak):
                    return got
                self._on_nak(got)
                busy += got.reason == protocol.NakReason.BUSY
            if busy == s.retries + 1:
                # every try was refused: the command certainly did not run
                raise NakError(code="nak_busy", times=busy)
            self.counters["timeouts"] += 1
            raise LinkTimeout(code="timeout", tries=s.retries + 1, frames=self.dump())
        finally:
            with self._cond:
                self._pending = None

    def _on_nak(self, nak: protocol.Nak) -> None:
        """A retryable NAK (damaged frame, table booting) means: send again."""
        self.counters["naks"] += 1
        if not nak.retryable:
            raise NakError(code="nak_refused", reason_code=nak.reason.name.lower())
        if nak.reason == protocol.NakReason.BUSY:
            self._stop.wait(self.settings.timeout)

    def _write(self, wire: bytes, frame: protocol.Frame, msg: protocol.Message,
               attempt: int) -> None:
        if self._down is not None:
            raise self._down
        self._record("->", frame, msg if attempt == 0 else f"{msg} (retry {attempt})")
        if attempt:
            self.counters["retransmits"] += 1
        try:
            self._port.write(wire)
            self._port.flush()
        except Exception as e:
            self._mark_down(LinkDown(str(e), "lost"))
            raise LinkDown(str(e), "lost", frames=self.dump()) from None

    def _wait(self, timeout: float) -> Any:
        """The reply (or NAK) to the pending frame, or None after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        with self._cond:
            p = self._pending
            assert p is not None  # _exchange sets it before it waits and clears it after
            while p.reply is None:
                if self._down is not None:
                    raise LinkDown(self._down.detail, self._down.code, frames=self.dump(),
                                   **self._down.values)
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)
            return p.reply

    def _record(self, direction: str, frame: protocol.Frame, decoded: object) -> None:
        line = f"{direction} {protocol.encode_frame(frame).hex(' ')}  {decoded}"
        self.history.append(f"{time.strftime('%H:%M:%S')} {line}")
        self.log.debug(line)

    def dump(self) -> list[str]:
        """The last frames, oldest first (attached to error logs)."""
        return list(self.history)

    def simulated(self, action: str) -> Any:
        """A hand-operated action of a simulated table's port (``set_sticks``), or None on
        a real line: a transport that simulates a table may offer what staff do by hand
        (docs/tablectl.md, "Simulated tables")."""
        return getattr(self._port, action, None) if self._port is not None else None


# ---------------------------------------------------------------------------- the driver
def state_dict(st: protocol.TableState) -> dict[str, Any]:
    """A protocol TableState as plain JSON-able data (the store's ``state``)."""
    return {
        "mode": st.mode, "pending_mode": st.pending_mode, "cycle_state": st.cycle.name.lower(),
        "lid": "open" if st.lid_open else "closed", "dice": list(st.dice) if st.dice else None,
        "dealer": st.dealer, "cycle_no": st.cycle_no, "cycle_remaining_ms": st.cycle_remaining_ms,
        "errors": [protocol.result_code(e) for e in st.errors],
        "points": [s.total if s.present else None for s in st.seats],
    }


def _seats(mask: int) -> list[int]:
    return [i for i in range(SEATS) if mask & (1 << i)]


def _result(reply: protocol.Message) -> dict[str, Any]:
    """A reply message as the JSON result stored in the journal."""
    if isinstance(reply, protocol.SelectModeReply):
        return {"mode": reply.mode, "pending_mode": reply.pending_mode,
                "requested": reply.requested, "seats": _seats(reply.seat_mask),
                "applied_now": reply.pending_mode is None and reply.mode == reply.requested}
    if isinstance(reply, protocol.StatusReply):
        return state_dict(reply.state)
    if isinstance(reply, protocol.RollDiceReply):
        return {"dice": list(reply.dice), "seat": reply.seat}
    if isinstance(reply, protocol.DealReply):
        return {"walls_only": reply.walls_only, "dealer": reply.dealer,
                "dice": list(reply.dice), "hands": list(reply.hand_sizes)}
    if isinstance(reply, protocol.TileCheckReply):
        return {"ok": reply.ok, "mode": reply.mode, "expected": reply.expected,
                "counted": reply.counted, "missing": list(reply.missing),
                "extra": list(reply.extra)}
    if isinstance(reply, protocol.ReadPointsReply):
        return {"points": [s.total if s.present else None for s in reply.seats]}
    if isinstance(reply, protocol.StartCycleReply):
        return {"mode": reply.mode, "cycle_no": reply.cycle_no, "duration_ms": reply.duration_ms}
    if isinstance(reply, protocol.ClearErrorsReply):
        return {"cleared": [protocol.result_code(c) for c in reply.cleared],
                "remaining": [protocol.result_code(c) for c in reply.remaining]}
    if isinstance(reply, protocol.DealtReportReply):
        return {"cycle_no": reply.cycle_no, "mode": reply.mode, "dealer": reply.dealer,
                "dice": list(reply.dice), "dealt": reply.dealt,
                "break": [reply.break_wall, reply.break_stack],
                "walls": [list(w) for w in reply.walls], "hands": [list(h) for h in reply.hands],
                "live_wall": list(reply.live_wall)}
    return {}


_REPLAYED = RunOnce(replayed=True, repeatable=False)
_REPLAYED_OR_ASKED = RunOnce(replayed=True, repeatable=True)
_ASKED = RunOnce(replayed=False, repeatable=True)


class JpexLinkDriver(Driver):
    """An AMOS JP-EX table on its serial link: every staff command."""

    NAME = "jpex-link"
    SERIAL_DEFAULTS = SerialSettings(baudrate=protocol.BAUD)

    def __init__(self, table: TableConfig, link: LinkSettings, **kw: Any) -> None:
        super().__init__(table, link, **kw)
        self.link = Link(table.url, table.serial, link, lock_dir=self.lock_dir,
                         on_event=self._on_event, log=self.log)
        self.caps = protocol.Capability(0)
        self.dealer = 0
        self._rehello = False
        self._finished: dict[int, tuple[int, int]] = {}
        self._powered_on = False

    @classmethod
    def capabilities(cls) -> dict[str, RunOnce]:
        # The table remembers its last command (duplicate memory) until it restarts;
        # after a restart only reads, a mode selection and the reset may be asked again.
        return {"status": _REPLAYED_OR_ASKED, "mode": _REPLAYED_OR_ASKED,
                "cycle": _REPLAYED, "dice": _REPLAYED, "deal": _REPLAYED,
                "check": _REPLAYED_OR_ASKED, "points": _REPLAYED_OR_ASKED,
                "reset": _REPLAYED_OR_ASKED, "dealt": _REPLAYED_OR_ASKED,
                "sim-sticks": _ASKED}

    # ------------------------------------------------------------ line
    def connect(self) -> Identity:
        self._rehello = False
        hello = self.link.connect()
        self.caps = hello.capabilities
        self.dealer = hello.state.dealer
        return Identity(
            model=hello.model, firmware=hello.firmware, boot_id=hello.boot_id,
            remembered=(hello.last_seq, hello.last_cmd) if hello.last_cmd else None,
            features={"auto_deal": hello.auto_deal, "ic_point_sticks": hello.ic_point_sticks},
            state=state_dict(hello.state))

    def close(self) -> None:
        self.link.close()

    @property
    def connected(self) -> bool:
        return self.link.connected and not self._rehello

    def dump(self) -> list[str]:
        return self.link.dump()

    # ------------------------------------------------------------ commands
    def _message(self, command: str, args: dict[str, Any]) -> protocol.Command:
        if command == "mode":
            return protocol.SelectMode(int(args["mode"]))
        if command == "dice":
            return protocol.RollDice(int(args.get("seat", self.dealer)))
        return {"status": protocol.Status, "cycle": protocol.StartCycle, "deal": protocol.Deal,
                "check": protocol.TileCheck, "points": protocol.ReadPoints,
                "dealt": protocol.DealtReport, "reset": protocol.ClearErrors}[command]()

    def run(self, job: Job) -> Outcome:
        if job.command == "sim-sticks":
            return self._set_sticks(job.args["points"])
        msg = self._message(job.command, job.args)
        try:
            reply = self.link.transact(msg, seq=job.resend, before_send=job.sent)
        except NakError as e:
            if e.code == "nak_busy":
                self._greet()
            return Outcome.failed(e.code, changed=False, **self._nak_values(e))
        self.log.info("%s -> %s", msg, reply)
        result = _result(reply)
        if isinstance(reply, protocol.StatusReply):
            self.dealer = reply.state.dealer
            job.state(result)
        if isinstance(reply, protocol.StartCycleReply) and reply.ok:
            # journal that the table started it before polling STATUS: the polls replace
            # the table's remembered command, so after a crash HELLO could no longer tell
            job.started(result)
            return self._await_cycle(job, reply, result)
        if reply.ok:
            return Outcome.done(result, changed=msg.CHANGES_STATE)
        values = {"seats": result["seats"]} if result.get("seats") else {}
        return Outcome.failed(protocol.result_code(reply.result), result, **values)

    def _greet(self) -> None:
        """A command refused BUSY at every try: the table boots, or it restarted and waits
        for a HELLO (its EV_POWER_ON lost on the line). Say HELLO; if it answers, connect
        again (and learn its new boot) before the command is sent again."""
        try:
            hello = self.link.transact(protocol.Hello(), seq=self.link._hello_seq())
        except (NakError, LinkDown):
            return                      # still booting, or the line is down: as before
        if isinstance(hello, protocol.HelloReply):
            self._rehello = True

    def _set_sticks(self, points: list[Any]) -> Outcome:
        """Staff's hands at a simulated table: put these sticks in the drawers (nothing goes
        on the wire; the table reports the change as events)."""
        hand = self.link.simulated("set_sticks")
        if hand is None:
            return Outcome.failed("not_simulated", changed=False, table=self.table.id)
        hand(list(points))
        return Outcome.done({"points": list(points)}, changed=True)

    @staticmethod
    def _nak_values(e: NakError) -> dict[str, Any]:
        if e.code == "nak_busy":
            return {"times": e.values.get("times")}
        return {"reason_code": e.values.get("reason_code")}

    def resume(self, job: Job, progress: dict[str, Any]) -> Outcome:
        started = protocol.StartCycleReply(protocol.Result.OK, progress["mode"],
                                           progress["cycle_no"],
                                    progress["duration_ms"])
        return self._await_cycle(job, started, progress)

    def _await_cycle(self, job: Job, reply: protocol.StartCycleReply,
                     result: dict[str, Any]) -> Outcome:
        """Wait for the cycle the table started to end (events, STATUS polls as a backup)."""
        self._powered_on = False
        wait = reply.duration_ms / 1000
        deadline = time.monotonic() + wait * 2 + self.link_settings.reply_timeout
        poll = min(0.5, max(0.01, wait / 8))
        while time.monotonic() < deadline:
            job.wait(poll)
            if self._powered_on:
                return Outcome.failed("power_cut", result)
            try:
                st = self.link.transact(protocol.Status()).state
            except NakError as e:
                if e.code != "nak_busy":
                    raise
                # refused BUSY at every try: the table restarted (it boots, or waits for
                # the HELLO a restarted table needs); the cycle it started is gone
                self._rehello = True
                return Outcome.failed("power_cut", result)
            job.state(state_dict(st))
            self.dealer = st.dealer
            finished = self._finished.pop(reply.cycle_no, None)
            if finished is not None:
                code, counted = finished
                return self._cycle_end(code, st, {**result, "counted": counted})
            if st.cycle == protocol.CycleState.CYCLING and st.cycle_no >= reply.cycle_no:
                continue
            return self._cycle_seen(st, result, reply.cycle_no)
        return Outcome.failed("cycle_overrun", result)

    def _cycle_end(self, code: int, st: protocol.TableState, result: dict[str, Any]) -> Outcome:
        result = {**result, "cycle_state": st.cycle.name.lower(),
                  "walls_only": not bool(self.caps & protocol.Capability.AUTO_DEAL)}
        if code == protocol.Result.OK:
            return Outcome.done(result, changed=True)
        return Outcome.failed(protocol.result_code(code), result)

    def _cycle_seen(self, st: protocol.TableState, result: dict[str, Any],
                    cycle_no: int) -> Outcome:
        """The cycle's end seen through STATUS only (its CYCLE_FINISHED event was lost)."""
        up = (protocol.CycleState.WALLS_UP, protocol.CycleState.DICE_ROLLED,
              protocol.CycleState.DEALT)
        if st.cycle_no >= cycle_no and (st.cycle in up or (
                st.cycle == protocol.CycleState.IDLE and MODES[st.mode].is_check
                and not st.errors)):
            return self._cycle_end(protocol.Result.OK, st, result)
        if st.cycle == protocol.CycleState.FAILED and st.errors:
            return self._cycle_end(st.errors[0], st, result)
        if st.cycle_no < cycle_no or st.cycle == protocol.CycleState.IDLE:
            return Outcome.failed("power_cut", result)   # the table forgot the cycle
        return Outcome.failed("cycle_overrun", result)

    def refresh(self) -> dict[str, Any]:
        try:
            st = self.link.transact(protocol.Status()).state
        except NakError as e:
            if e.code != "nak_busy":
                raise
            # a read refused BUSY at every try: the table restarted; say HELLO again
            raise LinkDown(e.detail, "restarted", frames=self.link.dump()) from None
        self.dealer = st.dealer
        return state_dict(st)

    def ran(self, token: int, command: str, identity: Identity) -> bool:
        wire = self._message(command, {"mode": 0}).CMD
        return identity.remembered == (token, wire)

    # ------------------------------------------------------------ events (reader thread)
    def _on_event(self, ev: protocol.Event) -> None:
        if isinstance(ev, protocol.PowerOn):
            # a restarted table wants HELLO again before any command
            self._rehello = True
            self._powered_on = True
            self.on_event(TableEvent("power_on"))
            return
        if isinstance(ev, protocol.CycleFinished):
            self._finished[ev.cycle_no] = (int(ev.result), ev.tiles_counted)
        self.on_event(_event(ev))


def _event(ev: protocol.Event) -> TableEvent:
    if isinstance(ev, protocol.CycleStarted):
        return TableEvent("cycle_started", values={"mode": ev.mode, "cycle_no": ev.cycle_no})
    if isinstance(ev, protocol.CycleFinished):
        if ev.ok:
            return TableEvent("cycle_finished", values={"cycle_no": ev.cycle_no,
                                                        "counted": ev.tiles_counted})
        return TableEvent("cycle_failed", protocol.result_code(ev.result),
                          {"cycle_no": ev.cycle_no})
    if isinstance(ev, protocol.DiceRolled):
        return TableEvent("dice_rolled", values={"seat": ev.seat, "dice": list(ev.dice)})
    if isinstance(ev, protocol.ErrorRaised):
        values = {"seats": _seats(ev.detail)} if ev.code == protocol.Result.POINT_STICKS_MISMATCH \
            else {"detail": ev.detail}
        return TableEvent("error_raised", protocol.result_code(ev.code), values)
    if isinstance(ev, protocol.ErrorCleared):
        return TableEvent("error_cleared", protocol.result_code(ev.code))
    if isinstance(ev, protocol.PointsChanged):
        return TableEvent("points_changed", values={
            "seat": ev.seat, "total": ev.points.total if ev.points.present else None})
    if isinstance(ev, protocol.ModeChanged):
        return TableEvent("mode_changed", values={"old": ev.old, "new": ev.new})
    return TableEvent({protocol.LidOpened: "lid_opened",
                       protocol.LidClosed: "lid_closed"}[type(ev)])
