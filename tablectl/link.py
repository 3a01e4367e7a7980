"""The transaction layer: one table's serial link, sequence numbers, ACK/NAK, retries.

The transport (a pyserial object from ``serial_for_url``: a device path,
``socket://``, ``rfc2217://`` or the built-in ``sim://``) moves bytes only.
:class:`Link` owns everything else:

* a reader thread feeds received bytes to the protocol's ``FrameDecoder``
  (which hunts past garbage), matches replies to the pending request by
  sequence number, drops duplicate replies and hands unsolicited events to a
  callback;
* :meth:`Link.transact` sends one command frame and waits for its reply,
  retransmitting the SAME frame (same seq) after ``timeout`` up to
  ``retries`` times -- the table's duplicate detection answers a
  retransmission with its remembered reply instead of running it again;
* :meth:`Link.connect` opens the port and performs HELLO before anything
  else may be sent;
* a ring buffer of the last ``history`` frames (both directions, hex and
  decoded) is attached to every failure.

Failures are exceptions of the package's one base (:class:`LinkError`);
an error the *table* reports is a reply message, returned, not raised.
"""

from __future__ import annotations

import collections
import logging
import random
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

import serial

import lexicon

from . import protocol as P
from .config import LinkSettings
from .errors import TableError


class LinkError(TableError):
    """The link failed; ``frames`` holds the recent traffic for the log."""

    code = "link_error"

    def __init__(self, message: str, code: str | None = None, frames: list[str] | None = None):
        super().__init__(message, code)
        self.frames = frames or []


class LinkDown(LinkError):
    code = "link_down"


class LinkTimeout(LinkError):
    code = "timeout"


class Nak(LinkError):
    code = "nak"


@dataclass
class _Pending:
    seq: int
    cmd: int
    reply: Any = None
    frame: Any = None


def register_sim() -> None:
    """Make ``sim://`` URLs resolve to the in-process simulator, if it is installed."""
    try:
        from hardware_sim import protocol_sim
    except ImportError:
        return
    protocol_sim.register()


class Backoff:
    """Exponential reconnect delay, capped and jittered (so many tables don't retry in step)."""

    def __init__(self, low: float, high: float, rng: random.Random | None = None):
        self.low, self.high = low, high
        self.rng = rng or random.Random()
        self.attempt = 0

    def next(self) -> float:
        base = min(self.high, self.low * (2 ** self.attempt))
        self.attempt += 1
        return base * self.rng.uniform(0.5, 1.0)

    def reset(self) -> None:
        self.attempt = 0


class Link:
    """One table's link; thread-safe for one caller at a time plus the reader thread."""

    def __init__(self, url: str, baud: int = 115200, settings: LinkSettings | None = None,
                 on_event: Callable[[Any], None] | None = None,
                 log: logging.Logger | None = None):
        self.url, self.baud = url, baud
        self.settings = settings or LinkSettings()
        self.on_event = on_event
        self.log = log or logging.getLogger(f"tablectl.link.{url}")
        self.history: collections.deque[str] = collections.deque(maxlen=self.settings.history)
        self._port = None
        self._reader: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()          # one transaction at a time
        self._cond = threading.Condition()     # reader -> waiting transaction
        self._pending: _Pending | None = None
        self._down_reason: str | None = "not connected"
        self._seq = 0
        self._hello_seqs: collections.deque[int] = collections.deque(maxlen=128)
        self._rng = random.SystemRandom()
        self.hello: Any = None
        self.decoder = P.FrameDecoder()
        self.counters = collections.Counter()

    # ------------------------------------------------------------------ connection
    @property
    def connected(self) -> bool:
        return self._port is not None and self._down_reason is None

    def connect(self) -> Any:
        """Open the port, start the reader and do HELLO; return the HELLO reply.

        On the first connect (and after the table restarted) sequence numbers
        continue from the table's ``last_seq + 1``, so a new command is never
        mistaken for a retransmission of its remembered one; on later
        reconnects our own counter simply goes on (it knows every seq it used).

        HELLO takes a random seq not used by a recent HELLO: HELLO is not
        de-duplicated, so its seq is free, and a late reply to an earlier HELLO
        on a slow or noisy line must never be taken for this one's (it would
        report an old ``last_seq``).
        """
        self.close()
        register_sim()
        try:
            self._port = serial.serial_for_url(self.url, baudrate=self.baud, timeout=0.05,
                                               write_timeout=2)
        except (serial.SerialException, OSError, ValueError) as e:
            self._port = None
            raise LinkDown(f"cannot open {self.url}: {e}") from None
        self.decoder.reset()
        self._down_reason = None
        self._stop.clear()
        self._reader = threading.Thread(target=self._read_loop, name=f"link-read {self.url}",
                                        daemon=True)
        self._reader.start()
        try:
            hello = self.transact(P.Hello(), seq=self._hello_seq())
        except LinkError:
            self.close()
            raise
        if hello.protocol_version != P.PROTOCOL_VERSION:
            self.close()
            raise LinkError(f"the table speaks protocol version {hello.protocol_version}, "
                            f"this daemon speaks {P.PROTOCOL_VERSION}", "protocol_version")
        if self.hello is None or hello.boot_id != self.hello.boot_id:
            self._seq = (hello.last_seq + 1) % 256
        self.hello = hello
        return hello

    def _hello_seq(self) -> int:
        free = [s for s in range(256) if s not in self._hello_seqs and s != self._seq]
        seq = self._rng.choice(free)
        self._hello_seqs.append(seq)
        return seq

    def close(self) -> None:
        """Stop the reader and close the port (safe to call twice)."""
        self._stop.set()
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except Exception:  # closing a vanished device may itself fail; nothing to do
                pass
        reader, self._reader = self._reader, None
        if reader is not None and reader is not threading.current_thread():
            reader.join(timeout=2)
        self._mark_down("closed")

    def _mark_down(self, reason: str) -> None:
        with self._cond:
            if self._down_reason is None:
                self._down_reason = reason
            self._cond.notify_all()

    # ------------------------------------------------------------------ reader
    def _read_loop(self) -> None:
        port = self._port
        while not self._stop.is_set():
            try:
                data = port.read(max(1, port.in_waiting))
            except Exception as e:  # USB adapter pulled, socket reset, pty closed
                if not self._stop.is_set():
                    self.log.warning("link lost: %s", e)
                    self._mark_down(f"link lost: {e}")
                return
            # feed(b"") on a quiet line lets the decoder give up a stale half frame
            for frame in self.decoder.feed(data):
                self._on_frame(frame)

    def _on_frame(self, frame) -> None:
        try:
            msg = P.message_from_frame(frame)
        except TableError as e:
            self._record("<-", frame, f"undecodable: {e.message}")
            return
        self._record("<-", frame, msg)
        if isinstance(msg, P.Event):
            self.counters["events"] += 1
            if self.on_event is not None:
                try:
                    self.on_event(msg)
                except Exception:  # a failing callback must not kill the reader
                    self.log.exception("event callback failed")
            return
        with self._cond:
            p = self._pending
            # The reply IS the acknowledgement; it must carry our seq and be the
            # reply type of our command (or a NAK). Anything else is a duplicate
            # or late reply to an earlier try: ignore it.
            wanted = P.reply_type_for(p.cmd) if p else None
            if p is None or frame.seq != p.seq or p.reply is not None \
                    or frame.cmd not in (wanted, P.Nak.CMD):
                self.counters["stray_replies"] += 1
                return
            p.reply, p.frame = msg, frame
            self._cond.notify_all()

    # ------------------------------------------------------------------ transactions
    def next_seq(self) -> int:
        """The sequence number the next command will use (journalled before sending)."""
        return self._seq

    def transact(self, msg, seq: int | None = None,
                 before_send: Callable[[int], None] | None = None) -> Any:
        """Send ``msg`` and return the table's reply message.

        ``seq`` re-uses a sequence number (recovery of an in-doubt command);
        ``before_send(seq)`` runs before the first byte is written (the
        journal records the seq there). Raises :class:`LinkTimeout` after the
        bounded retries, :class:`LinkDown` if the link drops, :class:`Nak`
        if the table refuses the frame itself (unknown command, bad payload).
        The reply may carry an error result (lid open...): that is returned.
        """
        with self._lock:
            if seq is None:
                seq, self._seq = self._seq, (self._seq + 1) % 256
            elif msg.CMD != P.Hello.CMD:
                # a re-sent command (recovery) is the newest the table may remember
                self._seq = (seq + 1) % 256
            frame = P.Frame(seq=seq, cmd=msg.CMD, payload=msg.encode())
            if before_send is not None:
                before_send(seq)
            return self._exchange(frame, msg)

    def _exchange(self, frame, msg) -> Any:
        wire = P.encode_frame(frame)
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
                if not isinstance(got, P.Nak):
                    return got
                self._on_nak(got)
                busy += got.reason == P.NakReason.BUSY
            if busy == s.retries + 1:
                # every try was refused: the command certainly did not run
                raise Nak(f"the table is starting up and refused the command "
                          f"{busy} times", "busy", frames=self.dump())
            self.counters["timeouts"] += 1
            raise LinkTimeout(f"no answer from the table after {s.retries + 1} tries "
                              f"({s.timeout:g} s each)", frames=self.dump())
        finally:
            with self._cond:
                self._pending = None

    def _on_nak(self, nak) -> None:
        """A retryable NAK (damaged frame, table booting) means: send again."""
        self.counters["naks"] += 1
        if not nak.retryable:
            reason = lexicon.t(f"table.nak.{nak.reason.name.lower()}", "en")
            raise Nak(f"the table refused the command: {reason}", "refused",
                      frames=self.dump())
        if nak.reason == P.NakReason.BUSY:
            self._stop.wait(self.settings.timeout)

    def _write(self, wire: bytes, frame, msg, attempt: int) -> None:
        if self._down_reason is not None:
            raise LinkDown(self._down_reason, frames=self.dump())
        self._record("->", frame, msg if attempt == 0 else f"{msg} (retry {attempt})")
        if attempt:
            self.counters["retransmits"] += 1
        try:
            self._port.write(wire)
            self._port.flush()
        except Exception as e:
            self._mark_down(f"write failed: {e}")
            raise LinkDown(f"write failed: {e}", frames=self.dump()) from None

    def _wait(self, timeout: float):
        """The reply (or NAK) to the pending frame, or None after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        with self._cond:
            p = self._pending
            while p.reply is None:
                if self._down_reason is not None:
                    raise LinkDown(self._down_reason, frames=self.dump())
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)
            return p.reply

    # ------------------------------------------------------------------ helpers
    def _record(self, direction: str, frame, decoded) -> None:
        line = f"{direction} {P.encode_frame(frame).hex(' ')}  {decoded}"
        self.history.append(f"{time.strftime('%H:%M:%S')} {line}")
        self.log.debug(line)

    def dump(self) -> list[str]:
        """The last frames, oldest first (attached to error logs)."""
        return list(self.history)
