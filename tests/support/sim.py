"""Helpers for the simulator tests: a minimal protocol host and a leak check.

``Host`` is deliberately small (the real link manager is ``tablectl.link``):
send a command, retransmit the same frame on timeout or a retryable NAK,
collect events on the side.
"""

from __future__ import annotations

import os
import threading
import time

from tablectl import protocol


class NoReply(Exception):
    pass


class Host:
    """``timeout``: how long a try waits for its reply before the same frame is sent
    again. It is long enough for a busy machine: the tests count retransmissions and
    duplicates, and a reply that is only late must not be counted as lost."""

    def __init__(self, port, timeout: float = 1.0, retries: int = 3):
        self.port = port
        self.timeout = timeout
        self.retries = retries
        self.decoder = protocol.FrameDecoder()
        self.seq = 0
        self.events: list = []
        self.naks: list = []
        self.stale: list = []
        self.attempts = 0
        self._left: list[protocol.Frame] = []

    def _read_frames(self) -> list[protocol.Frame]:
        """Frames not yet handled: ones left over from the last read first."""
        if self._left:
            out, self._left = self._left, []
            return out
        data = self.port.read(max(1, self.port.in_waiting))
        return self.decoder.feed(data) if data else self.decoder.poll()

    def request(self, msg: protocol.Command, seq: int | None = None, *, resend_same: bool = True):
        """Send ``msg`` and return its reply (retransmitting the same frame)."""
        if seq is None:
            self.seq = (self.seq + 1) & 0xFF
            seq = self.seq
        wire = protocol.encode_frame(msg.to_frame(seq))
        for _attempt in range(self.retries + 1):
            self.attempts += 1
            self.port.write(wire)
            deadline = time.monotonic() + self.timeout
            while time.monotonic() < deadline:
                frames = self._read_frames()
                for i, f in enumerate(frames):
                    try:
                        m = protocol.message_from_frame(f)
                    except protocol.ProtocolError:
                        continue
                    if isinstance(m, protocol.Event):
                        self.events.append(m)
                    elif isinstance(m, protocol.Nak) and f.seq == seq:
                        self.naks.append(m)
                        self._left = frames[i + 1:] + self._left
                        if not m.retryable:
                            return m
                        if m.reason == protocol.NakReason.BUSY:
                            time.sleep(0.02)
                        deadline = 0  # retransmit now
                        break
                    elif f.seq == seq and f.cmd == protocol.reply_type_for(msg.CMD):
                        self._left = frames[i + 1:] + self._left
                        return m
                    else:
                        self.stale.append(m)
        raise NoReply(f"no reply to {msg.NAME} seq {seq} after {self.retries + 1} attempts")

    def wait_event(self, cls, timeout: float = 5.0, pred=lambda e: True):
        """The first collected event of type ``cls`` matching ``pred`` (waiting for it)."""
        deadline = time.monotonic() + timeout
        while True:
            for e in self.events:
                if isinstance(e, cls) and pred(e):
                    self.events.remove(e)
                    return e
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {cls.__name__} event; have {self.events}")
            for f in self._read_frames():
                try:
                    m = protocol.message_from_frame(f)
                except protocol.ProtocolError:
                    continue
                if isinstance(m, protocol.Event):
                    self.events.append(m)


def _pty_fds() -> set[str]:
    out = set()
    base = "/proc/self/fd"
    try:
        names = os.listdir(base)
    except OSError:
        return out
    for n in names:
        try:
            target = os.readlink(os.path.join(base, n))
        except OSError:
            continue
        if target.startswith("/dev/pts/") or target == "/dev/ptmx":
            out.add(f"{n}->{target}")
    return out


def leak_check():
    """Fail the test if it leaves threads or pseudo-terminals behind."""
    import hardware_sim

    threads_before = set(threading.enumerate())
    fds_before = _pty_fds()
    yield
    hardware_sim.close_all()
    deadline = time.monotonic() + 3
    while True:
        extra = [t for t in threading.enumerate() if t not in threads_before and t.is_alive()]
        if not extra or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    leaked_fds = _pty_fds() - fds_before
    assert not extra, f"test leaked threads: {[t.name for t in extra]}"
    assert not leaked_fds, f"test leaked pseudo-terminal fds: {leaked_fds}"
