"""The simulated table as a device on a serial line.

:class:`Simulator` runs one :class:`~hardware_sim.table.TableModel` behind the
wire protocol, in its own thread (an asyncio loop), and serves it on any of:

* a pseudo-terminal (:meth:`Simulator.serve_pty`): the device path (e.g.
  ``/dev/pts/7``) is opened by the daemon with pyserial like a USB-serial
  adapter; ``link_path`` adds a stable symlink to it (like
  ``/dev/serial/by-id/...``) that follows the pty across unplug/plug;
* a TCP port (:meth:`Simulator.serve_tcp`) for pyserial's ``socket://``;
* in process (:meth:`Simulator.connect`), used by the ``sim://`` URL handler.

Everything the tests and the command line do to the table (point sticks, lid,
jam, missing tile, power cut, unplug, byte faults) is a thread-safe method here.

Device behaviour on the line (docs/protocol.md, "Table side"):

* every command frame is answered by its reply (same SEQ) or a NAK;
* the last executed command (SEQ, TYPE, payload) and its reply frame are kept:
  the same frame again is answered with the same reply bytes and NOT executed
  again. HELLO is never remembered (it is harmless to repeat and must not
  push the last real command out of the table's memory);
* after a power-on, every command but HELLO is NAKed BUSY until a HELLO was answered:
  the duplicate memory is gone, so a retransmission from before the power cut must
  not run again;
* a frame whose header checks but whose CRC does not is NAKed (BAD_CRC);
* events go out with the table's own event counter as SEQ.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import dataclasses
import logging
import os
import socket
import threading
import time
import tty
from typing import Any, Callable, Iterable

from tablectl import protocol
from tablectl.errors import PayloadError, UnknownMessage
from tablectl.modes import mode_by_name

from .faults import LinkFaults
from .players import StickFollower
from .table import TableConfig, TableModel

log = logging.getLogger("hardware_sim")

OUTBUF_LIMIT = 1 << 16   # bytes kept for a reader that does not read (then dropped)


ORDER_GAP_S = 1e-6
"""Chunks held back by a delay are timed at least this far apart: the event loop runs
timers due at the same moment in no promised order."""

class _InOrder:
    """One direction of the line: bytes a delay holds back, and the bytes behind them.

    A line never reorders: bytes that come while others are held go after them, even
    once the delay is switched off. "Held" is counted, not read off the clock: a loop
    that wakes late runs the bytes it read before the timers that fell due meanwhile."""

    def __init__(self) -> None:
        self.held = 0
        self.at = 0.0

    def pass_on(self, loop: asyncio.AbstractEventLoop, now: float, delay: float, data: bytes,
                out: Callable[[bytes], None]) -> None:
        """``out(data)`` now, or after ``delay`` (``now`` on the loop's clock) and after
        every chunk still held."""
        if not (delay or self.held):
            out(data)
            return
        self.at = max(now + delay, self.at + ORDER_GAP_S)
        self.held += 1
        loop.call_at(self.at, self._release, out, data)

    def _release(self, out: Callable[[bytes], None], data: bytes) -> None:
        self.held -= 1
        out(data)


class Simulator:
    """One simulated AMOS JP-EX table. Use :meth:`start`/:meth:`stop` (or ``with``)."""

    def __init__(self, *, mode: int | str = 1, auto_deal: bool = True, time_scale: float = 1.0,
                 cycle_seconds: float = 70.0, boot_seconds: float = 2.0,
                 auto_sticks: bool = False, faults: LinkFaults | None = None,
                 model: str = "AMOS JP-EX COLOR", firmware: str = "SIM-1.0",
                 name: str = "table", rng=None, unplug_mode: str = "hangup",
                 protocol_version: int = protocol.PROTOCOL_VERSION, sticks_file: str | None = None):
        self.name = name
        self.sticks_file = sticks_file
        self._sticks: StickFollower | None = None
        self.config = TableConfig(model=model, firmware=firmware, auto_deal=auto_deal,
                                  mode=mode_by_name(mode).number, time_scale=time_scale,
                                  cycle_seconds=cycle_seconds, boot_seconds=boot_seconds,
                                  auto_sticks=auto_sticks, protocol_version=protocol_version)
        self.faults = faults or LinkFaults()
        if unplug_mode not in ("hangup", "silent"):
            raise ValueError("unplug_mode is 'hangup' or 'silent'")
        self.unplug_mode = unplug_mode
        self._rng = rng
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._model: TableModel | None = None
        self.decoder = protocol.FrameDecoder(on_crc_error=self._on_bad_crc)
        self._sinks: list = []             # transports bytes go out on
        self._transports: list = []        # servers to close on stop
        self._last: tuple | None = None    # (seq, cmd, payload, reply bytes)
        self._event_seq = 0
        self._hold_events: list | None = None
        self._tx = _InOrder()              # bytes held back by a delay, to the host
        self._rx = _InOrder()              # and from it
        self._quiet_check: asyncio.TimerHandle | None = None   # the inter-byte timeout's timer
        self.plugged = True
        self.booting = False
        self.greeted = True                # False from a power-on until the next HELLO
        self.stats: collections.Counter = collections.Counter()
        self.executed: collections.deque = collections.deque(maxlen=100_000)
        self.events_sent: collections.deque = collections.deque(maxlen=10_000)
        self.on_change: Callable[[str], None] | None = None

    # ------------------------------------------------------------------ life cycle

    def start(self) -> "Simulator":
        if self._thread is not None:
            return self
        loop = self._loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.call_soon(ready.set)
            loop.run_forever()

        self._thread = threading.Thread(target=run, name=f"hardware_sim:{self.name}", daemon=True)
        self._thread.start()
        ready.wait(5)
        self.call(self._init_model)
        return self

    def _init_model(self) -> None:
        self._model = TableModel(self.config, self._schedule, self._emit, rng=self._rng)
        if self.sticks_file:
            # the simulated players pay with sticks as the file's scores say
            self._sticks = StickFollower(self.sticks_file, self._schedule,
                                         lambda seat, total: self.model.set_points(seat, total),
                                         lambda seat: self.model.seats[seat].present)
            self._sticks.start()

    def stop(self) -> None:
        """Close every transport and end the thread (idempotent)."""
        if self._thread is None:
            return
        try:
            self.call(self._close_all)
        finally:
            loop = self.loop
            loop.call_soon_threadsafe(loop.stop)
            self._thread.join(5)
            loop.close()
            self._thread = None
            self._loop = None

    def _close_all(self) -> None:
        if self._sticks is not None:
            self._sticks.stop()
        if self._model is not None:
            self._model.power_off()
        for t in list(self._transports):
            t.close()
        self._transports.clear()
        self._sinks.clear()

    def __enter__(self) -> "Simulator":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._thread is not None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The simulator's event loop (it runs from ``start()`` to ``stop()``)."""
        if self._loop is None:
            raise RuntimeError("the simulator is not started (call start())")
        return self._loop

    @property
    def model(self) -> TableModel:
        """The simulated table (made by ``start()``)."""
        if self._model is None:
            raise RuntimeError("the simulator is not started (call start())")
        return self._model

    def now(self) -> float:
        return time.monotonic()

    def call(self, fn, *args, timeout: float = 10.0):
        """Run ``fn(*args)`` in the simulator's thread and return its result."""
        if self._loop is None:
            raise RuntimeError("the simulator is not started (call start())")
        if threading.current_thread() is self._thread:
            return fn(*args)
        fut: concurrent.futures.Future = concurrent.futures.Future()

        def run():
            try:
                fut.set_result(fn(*args))
            except BaseException as e:  # handed to the caller
                fut.set_exception(e)

        self.loop.call_soon_threadsafe(run)
        return fut.result(timeout)

    def _schedule(self, delay: float, fn):
        return self.loop.call_later(max(0.0, delay), fn)

    # ------------------------------------------------------------------ bytes in / out

    @property
    def _live(self) -> bool:
        """Whether the line is up: plugged in and the table powered."""
        return self.plugged and self.model.powered

    def _receive(self, data: bytes) -> None:
        """Bytes from the host (loop thread)."""
        self.stats["bytes_in"] += len(data)
        if not self._live:
            self.stats["bytes_lost"] += len(data)
            return
        # in order behind held-back bytes: a late copy of a frame decoded after newer
        # frames would look like a new command to the table's one-frame duplicate memory
        self._through_faults(data, "rx", "any", self._rx, self._decode)

    def _send(self, data: bytes, what: str = "reply") -> None:
        """One frame to the host (loop thread); ``what``: reply or event."""
        if self._live:
            self._through_faults(data, "tx", what, self._tx, self._write_out)

    def _through_faults(self, data: bytes, direction: str, what: str, line: _InOrder,
                        out: Callable[[bytes], None]) -> None:
        """``data`` as the line's faults leave it (perhaps nothing, perhaps late) to ``out``."""
        data, delay = (self.faults.apply(data, direction, what) if self.faults.active
                       else (data, 0.0))
        if data:
            line.pass_on(self.loop, self.now(), delay, data, out)

    def _decode(self, data: bytes) -> None:
        self._take(lambda: self.decoder.feed(data))

    def _quiet_line(self) -> None:
        self._quiet_check = None
        self._take(self.decoder.poll)

    def _take(self, frames: Callable[[], Iterable[Any]]) -> None:
        """The frames the decoder gives, acted on while the line is up; then the quiet
        check for a half frame left behind."""
        if not self._live:
            return
        for frame in frames():
            self._on_frame(frame)
        self._arm_quiet_check()

    def _arm_quiet_check(self) -> None:
        """A half frame left in the decoder is given up once the line stays quiet for
        the inter-byte timeout (docs/protocol.md section 2), without waiting for more bytes."""
        if self._quiet_check is not None:
            self._quiet_check.cancel()
            self._quiet_check = None
        if self.decoder.pending:
            self._quiet_check = self.loop.call_later(protocol.INTER_BYTE_TIMEOUT_S + 0.002,
                                                      self._quiet_line)

    def _write_out(self, data: bytes) -> None:
        if not self._live:
            return
        self.stats["bytes_out"] += len(data)
        for sink in list(self._sinks):
            sink.write(data)

    # ------------------------------------------------------------------ frames

    def _on_bad_crc(self, seq: int, cmd: int) -> None:
        if protocol.is_command(cmd):
            self._nak(seq, cmd, protocol.NakReason.BAD_CRC)

    def _nak(self, seq: int, cmd: int, reason: protocol.NakReason) -> None:
        self.stats[f"nak_{reason.name.lower()}"] += 1
        self._send(protocol.encode_frame(protocol.Nak(reason, cmd).to_frame(seq)))

    def _on_frame(self, frame: protocol.Frame) -> None:
        self.stats["frames_in"] += 1
        if not protocol.is_command(frame.cmd):
            self._nak(frame.seq, frame.cmd, protocol.NakReason.UNKNOWN_COMMAND)
            return
        if self.booting or (not self.greeted and frame.cmd != protocol.Hello.CMD):
            # after a power cut the table has forgotten what it ran: a retransmission that
            # reached it now would run again. Only a host that said HELLO (and so learnt
            # the new boot_id) may send commands again (docs/protocol.md section 11).
            self._nak(frame.seq, frame.cmd, protocol.NakReason.BUSY)
            return
        key = (frame.seq, frame.cmd, frame.payload)
        if self._last is not None and self._last[:3] == key:
            self.stats["duplicates"] += 1
            self._send(self._last[3])
            return
        try:
            msg = protocol.message_from_frame(frame)
        except UnknownMessage:
            self._nak(frame.seq, frame.cmd, protocol.NakReason.UNKNOWN_COMMAND)
            return
        except PayloadError:
            self._nak(frame.seq, frame.cmd, protocol.NakReason.BAD_PAYLOAD)
            return
        assert isinstance(msg, protocol.Command)      # is_command(frame.cmd) above
        self._hold_events = []                 # events caused by the command follow its reply
        try:
            reply = self.model.execute(msg, self.now())
        finally:
            held, self._hold_events = self._hold_events, None
        if isinstance(reply, protocol.HelloReply):
            seq, cmd = (self._last[0], self._last[1]) if self._last else (0, protocol.NO_CMD)
            reply = dataclasses.replace(reply, last_seq=seq, last_cmd=cmd)
        out = protocol.encode_frame(reply.to_frame(frame.seq))
        self.stats["executed"] += 1
        self.executed.append((frame.seq, msg.NAME, msg))
        if isinstance(msg, protocol.Hello):
            self.greeted = True
        else:
            self._last = (*key, out)
        self._send(out)
        self._changed(msg.NAME)
        for event in held:
            self._emit(event)

    def _emit(self, event: protocol.Event) -> None:
        if self._hold_events is not None:
            self._hold_events.append(event)
            return
        self.events_sent.append(event)
        self.stats["events"] += 1
        seq = self._event_seq
        self._event_seq = (self._event_seq + 1) & 0xFF
        self._send(protocol.encode_frame(event.to_frame(seq)), "event")
        self._changed(event.NAME)

    def _changed(self, what: str) -> None:
        if self.on_change is not None:
            try:
                self.on_change(what)
            except Exception:  # an observer must not break the table
                log.exception("on_change failed")

    # ------------------------------------------------------------------ transports

    def serve_pty(self, link_path: str | None = None) -> str:
        """Open a pseudo-terminal (raw) and serve on it; returns the device path."""
        t = self.call(self._open_pty, link_path)
        return t.path

    def _open_pty(self, link_path):
        t = PtyTransport(self, link_path)
        t.open()
        self._transports.append(t)
        return t

    @property
    def pty_path(self) -> str | None:
        """The pty's device path now (None while a hung-up cable is unplugged)."""
        for t in self._transports:
            if isinstance(t, PtyTransport):
                return t.path
        return None

    def serve_tcp(self, port: int = 0, host: str = "127.0.0.1") -> int:
        """Listen on ``host:port`` (0: any free port) for pyserial ``socket://``;
        returns the port. One host at a time: a new connection replaces the old."""
        t = TcpTransport(self, host, port)
        fut = asyncio.run_coroutine_threadsafe(t.open(), self.loop)
        fut.result(10)
        self.call(self._transports.append, t)
        return t.port

    def connect(self) -> "InProcessPort":
        """An in-process byte pipe to the table (what ``sim://`` uses)."""
        return self.call(self._connect)

    def _connect(self) -> "InProcessPort":
        if not self.plugged and self.unplug_mode == "hangup":
            raise OSError("the table's serial adapter is unplugged")
        p = InProcessPort(self)
        self._sinks.append(p)
        self._transports.append(p)
        return p

    # ------------------------------------------------------------------ the physical world

    def state(self) -> protocol.TableState:
        return self.call(lambda: self.model.state(self.now()))

    def dealt(self) -> protocol.DealtReportReply:
        return self.call(lambda: self.model.execute(protocol.DealtReport(), self.now()))

    def set_points(self, seat: int, total: int | None) -> None:
        self.call(self.model.set_points, seat, total)

    def sticks_for(self, mode) -> None:
        """Put the right sticks in for ``mode`` (number or name)."""
        self.call(self.model.sticks_for, mode_by_name(mode))

    def open_lid(self) -> None:
        self.call(lambda: self.model.open_lid(self.now()))

    def close_lid(self) -> None:
        self.call(self.model.close_lid)

    def jam(self) -> None:
        self.call(self.model.jam)

    def clear_jam(self) -> None:
        self.call(self.model.clear_jam)

    def overrun(self, count: int = 1) -> None:
        self.call(self.model.overrun, count)

    def remove_tile(self, tile: int | None = None, which: str = "machine") -> int:
        return self.call(self.model.remove_tile, tile, which)

    def restore_tiles(self) -> None:
        self.call(self.model.restore_tiles)

    def power_cut(self) -> None:
        """The table loses power: silence, the cycle stops, RAM is lost."""
        self.call(self._power_cut)

    def _power_cut(self) -> None:
        if not self.model.powered:
            return
        self.stats["power_cuts"] += 1
        self.model.power_off()
        self.booting = False
        self._changed("power_cut")

    def power_restore(self) -> None:
        """Power is back: the table boots (NAKs BUSY meanwhile), then sends POWER_ON."""
        self.call(self._power_restore)

    def _power_restore(self) -> None:
        if self.model.powered:
            return
        self.model.power_on()
        self.decoder.reset()
        self._last = None
        self._event_seq = 0
        self.booting = True
        self.greeted = False
        self.loop.call_later(self.config.seconds(self.config.boot_seconds), self._booted,
                              self.model.boot_id)

    def _booted(self, boot_id: int) -> None:
        if not self.model.powered or self.model.boot_id != boot_id:
            return
        self.booting = False
        self._emit(self.model.power_on_event(self.now()))

    @property
    def powered(self) -> bool:
        return self.call(lambda: self.model.powered)

    def unplug(self, mode: str | None = None) -> None:
        """Pull the serial cable. ``hangup`` (default): the pty is closed (the
        host's reads fail, like a USB adapter vanishing), TCP connections are
        dropped and refused; ``silent``: the line just goes dead."""
        self.call(self._unplug, mode or self.unplug_mode)

    def _unplug(self, mode: str) -> None:
        if not self.plugged:
            return
        self.plugged = False
        self._unplug_how = mode
        self.stats["unplugs"] += 1
        if mode == "hangup":
            for t in self._transports:
                t.hangup()
        self._changed("unplug")

    def plug(self) -> None:
        """Plug the cable back in (a hung-up pty comes back on a new device
        path, the ``link_path`` symlink follows it)."""
        self.call(self._plug)

    def _plug(self) -> None:
        if self.plugged:
            return
        self.plugged = True
        self.decoder.reset()
        for t in self._transports:
            t.replug()
        self._changed("plug")

    def link_counters(self) -> dict:
        return self.call(lambda: {**self.stats, **self.decoder.counters(),
                                  **{"fault_" + k: v for k, v in self.faults.stats.items()}})

    def executed_names(self) -> list[str]:
        return self.call(lambda: [name for _, name, _ in self.executed])

    def wait_for(self, predicate, timeout: float = 5.0, interval: float = 0.005):
        """Poll ``predicate(state)`` until true; returns the state (or raises TimeoutError)."""
        deadline = time.monotonic() + timeout
        while True:
            st = self.state()
            if predicate(st):
                return st
            if time.monotonic() > deadline:
                raise TimeoutError(f"table state never matched: last {st}")
            time.sleep(interval)


# ----------------------------------------------------------------------------
# Transports (all methods run in the simulator's thread)
# ----------------------------------------------------------------------------


class PtyTransport:
    """A pseudo-terminal: the host opens ``path`` as its serial port.

    The simulator keeps the slave side open too, so the path stays valid while
    the host closes and reopens it and the master never sees a hang-up.
    """

    def __init__(self, sim: Simulator, link_path: str | None = None):
        self.sim = sim
        self.link_path = link_path
        self.master = self.slave = -1
        self.path: str | None = None
        self._out = bytearray()
        self._writing = False

    def open(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self.master, self.slave = master, slave
        self.path = os.ttyname(slave)
        if self.link_path:
            tmp = f"{self.link_path}.tmp{os.getpid()}"
            if os.path.lexists(tmp):
                os.unlink(tmp)
            os.symlink(self.path, tmp)
            os.replace(tmp, self.link_path)
        self.sim.loop.add_reader(master, self._readable)
        if self not in self.sim._sinks:
            self.sim._sinks.append(self)

    def _readable(self) -> None:
        try:
            data = os.read(self.master, 4096)
        except BlockingIOError:
            return
        except OSError:
            return
        if data:
            self.sim._receive(data)

    def write(self, data: bytes) -> None:
        if self.master < 0:
            return
        self._out += data
        if len(self._out) > OUTBUF_LIMIT:        # nobody reads: the line drops bytes
            del self._out[:len(self._out) - OUTBUF_LIMIT]
        self._flush()

    def _flush(self) -> None:
        try:
            while self._out:
                n = os.write(self.master, self._out)
                del self._out[:n]
        except BlockingIOError:
            pass
        except OSError:
            self._out.clear()
        if self._out and not self._writing:
            self._writing = True
            self.sim.loop.add_writer(self.master, self._writable)
        elif not self._out and self._writing:
            self._writing = False
            self.sim.loop.remove_writer(self.master)

    def _writable(self) -> None:
        self._flush()

    def _close_fds(self) -> None:
        if self.master >= 0:
            self.sim.loop.remove_reader(self.master)
            if self._writing:
                self.sim.loop.remove_writer(self.master)
                self._writing = False
            os.close(self.master)
            os.close(self.slave)
        self.master = self.slave = -1
        self._out.clear()

    def hangup(self) -> None:
        """The adapter vanished: the pty closes (the host's reads fail) and the
        by-id style symlink goes away, as udev removes it."""
        self._close_fds()
        self.path = None
        self._unlink()

    def _unlink(self) -> None:
        if self.link_path and os.path.islink(self.link_path):
            try:
                os.unlink(self.link_path)
            except OSError:
                pass

    def replug(self) -> None:
        if self.master < 0:
            self.open()
            print_change = self.sim.on_change
            if print_change is not None:
                print_change(f"pty {self.path}")

    def close(self) -> None:
        self._close_fds()
        self._unlink()


class _TcpProtocol(asyncio.Protocol):
    transport: asyncio.Transport
    """Set once the connection is made (only then is the protocol handed on)."""

    def __init__(self, owner: "TcpTransport"):
        self.owner = owner

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass
        self.owner._connected(self)

    def data_received(self, data):
        if self.owner.conn is self:
            self.owner.sim._receive(data)

    def connection_lost(self, exc):
        if self.owner.conn is self:
            self.owner.conn = None


class TcpTransport:
    """A TCP listener (pyserial ``socket://127.0.0.1:PORT``); one host at a time."""

    def __init__(self, sim: Simulator, host: str, port: int):
        self.sim, self.host, self.port = sim, host, port
        self.server: asyncio.Server | None = None
        self.conn: _TcpProtocol | None = None

    async def open(self) -> None:
        self.server = await self.sim.loop.create_server(
            lambda: _TcpProtocol(self), self.host, self.port, reuse_address=True)
        self.port = self.server.sockets[0].getsockname()[1]
        self.sim._sinks.append(self)

    def _connected(self, proto: _TcpProtocol) -> None:
        if not self.sim.plugged and getattr(self.sim, "_unplug_how", "hangup") == "hangup":
            proto.transport.close()
            return
        if self.conn is not None:
            self.conn.transport.close()
        self.conn = proto

    def write(self, data: bytes) -> None:
        if self.conn is not None and not self.conn.transport.is_closing():
            self.conn.transport.write(data)

    def hangup(self) -> None:
        if self.conn is not None:
            self.conn.transport.abort()
            self.conn = None

    def replug(self) -> None:
        pass

    def close(self) -> None:
        self.hangup()
        if self.server is not None:
            self.server.close()
            self.server = None


class InProcessPort:
    """The host's end of an in-process link: thread-safe read/write of bytes."""

    def __init__(self, sim: Simulator):
        self.sim = sim
        self._buf = bytearray()
        self._cond = threading.Condition()
        self.closed = False
        self.hung_up = False

    # called in the simulator's thread
    def write(self, data: bytes) -> None:
        with self._cond:
            self._buf += data
            if len(self._buf) > OUTBUF_LIMIT:
                del self._buf[:len(self._buf) - OUTBUF_LIMIT]
            self._cond.notify_all()

    def hangup(self) -> None:
        with self._cond:
            self.hung_up = True
            self._cond.notify_all()

    def replug(self) -> None:
        pass  # a hung-up port stays dead: the host must reopen (like a vanished device)

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()
        if self in self.sim._sinks:
            self.sim._sinks.remove(self)
        if self in self.sim._transports:
            self.sim._transports.remove(self)

    # called by the host's threads
    def send(self, data: bytes) -> None:
        if self.closed or self.hung_up:
            raise OSError("the table's serial adapter is gone")
        loop = self.sim._loop
        if loop is None:
            raise OSError("the simulator has stopped")
        loop.call_soon_threadsafe(self.sim._receive, bytes(data))

    def recv(self, size: int, timeout: float | None) -> bytes:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while not self._buf:
                if self.closed:
                    return b""
                if self.hung_up:
                    raise OSError("the table's serial adapter is gone")
                if deadline is None:
                    self._cond.wait(0.5)
                    continue
                left = deadline - time.monotonic()
                if left <= 0:
                    return b""
                self._cond.wait(left)
            out = bytes(self._buf[:size])
            del self._buf[:size]
            return out

    @property
    def in_waiting(self) -> int:
        with self._cond:
            if self.hung_up and not self._buf:
                raise OSError("the table's serial adapter is gone")
            return len(self._buf)

    def reset_input(self) -> None:
        with self._cond:
            self._buf.clear()
