"""Frames of the JP-EX link protocol: layout, CRC, encoding and a resynchronising decoder.

Frame (all multi-byte integers big-endian)::

    offset  size  field
    0       1     SOF      0xA5
    1       2     LEN      payload length, 0..MAX_PAYLOAD (1024)
    3       1     SEQ      sequence number 0..255 (wraps)
    4       1     TYPE     message type (command, reply, event or NAK)
    5       1     HCK      header check = 0x5A ^ LEN_hi ^ LEN_lo ^ SEQ ^ TYPE
    6       LEN   PAYLOAD
    6+LEN   2     CRC      CRC-16/CCITT-FALSE over bytes 1 .. 5+LEN

Decoding follows pymodbus's framers: :func:`decode_frame` returns
``(consumed, frame)`` (``consumed == 0``: need more bytes) and hunts forward
past garbage and bad CRCs to the next start byte whose frame checks.
:class:`FrameDecoder` keeps the buffer, the counters and the two time rules
for a stream (docs/protocol.md section 2).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

from ..errors import ProtocolError

SOF = 0xA5
_SOF_BYTE = bytes([SOF])
HEADER_LEN = 6
CRC_LEN = 2
FRAME_OVERHEAD = HEADER_LEN + CRC_LEN
MAX_PAYLOAD = 1024
MAX_FRAME = MAX_PAYLOAD + FRAME_OVERHEAD

BAUD = 115200
"""The link's nominal speed, 8 data bits, no parity, 1 stop bit (8N1)."""
REPLY_DEADLINE_S = 0.020
"""The table answers a command within this time after its last byte."""
RETRANSMIT_TIMEOUT_S = 0.25
"""The host's default retransmission timeout (see :func:`retransmit_timeout`)."""
MAX_RETRIES = 3
"""Retransmissions after the first attempt; then the command has timed out."""
STALE_AFTER_S = 0.1
"""A partial frame older than this is given up when a whole frame follows it."""
INTER_BYTE_TIMEOUT_S = 0.05
"""A partial frame whose newest byte is older than this is given up (quiet line)."""


def _make_crc_table() -> tuple[int, ...]:
    table = []
    for i in range(256):
        c = i << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
        table.append(c & 0xFFFF)
    return tuple(table)


_CRC_TABLE = _make_crc_table()


def crc16(data: bytes | bytearray, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, MSB first, no xorout).

    >>> hex(crc16(b"123456789"))
    '0x29b1'
    """
    t = _CRC_TABLE
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ t[(crc >> 8) ^ b]
    return crc


def header_check(length: int, seq: int, cmd: int) -> int:
    """The HCK byte: ``0x5A ^ LEN_hi ^ LEN_lo ^ SEQ ^ TYPE``."""
    return 0x5A ^ (length >> 8) ^ (length & 0xFF) ^ seq ^ cmd


def wire_time(nbytes: int, baud: int = BAUD) -> float:
    """Seconds to send ``nbytes`` at ``baud`` in 8N1 (10 bits a byte)."""
    return nbytes * 10 / baud


def retransmit_timeout(cmd_bytes: int, reply_bytes: int = 64, baud: int = BAUD) -> float:
    """A retransmission timeout for one command: both frames' wire time, the
    table's reply deadline, and 50 ms of slack for USB-serial adapters and
    the scheduler; never less than :data:`RETRANSMIT_TIMEOUT_S`."""
    t = wire_time(cmd_bytes + reply_bytes, baud) + REPLY_DEADLINE_S + 0.05
    return max(RETRANSMIT_TIMEOUT_S, t)


@dataclass(frozen=True)
class Frame:
    """One frame: sequence number, message type (``cmd``) and payload."""

    seq: int
    cmd: int
    payload: bytes = b""

    def __post_init__(self) -> None:
        if not 0 <= self.seq <= 255:
            raise ProtocolError(f"sequence number {self.seq} is not 0..255")
        if not 0 <= self.cmd <= 255:
            raise ProtocolError(f"message type {self.cmd} is not 0..255")
        if not isinstance(self.payload, (bytes, bytearray)):
            raise ProtocolError("payload must be bytes")
        if len(self.payload) > MAX_PAYLOAD:
            raise ProtocolError(f"payload of {len(self.payload)} bytes exceeds {MAX_PAYLOAD}")
        if isinstance(self.payload, bytearray):
            object.__setattr__(self, "payload", bytes(self.payload))

    def __repr__(self) -> str:
        return f"Frame(seq={self.seq}, cmd=0x{self.cmd:02X}, payload={self.payload.hex()!r})"


def encode_frame(frame: Frame) -> bytes:
    """The bytes of ``frame`` on the wire."""
    n = len(frame.payload)
    body = bytes((n >> 8, n & 0xFF, frame.seq, frame.cmd, header_check(n, frame.seq, frame.cmd)))
    body += frame.payload
    c = crc16(body)
    return _SOF_BYTE + body + bytes((c >> 8, c & 0xFF))


def _scan(buf: bytes | bytearray,
          bad_crc: list[Any] | None = None) -> tuple[int, Frame | None, int]:
    """Core of the decoder: ``(consumed, frame, frame_start)``; frames whose header
    checked but whose CRC did not are appended to ``bad_crc`` as ``(seq, type)``."""
    n = len(buf)
    i = 0
    while True:
        i = buf.find(_SOF_BYTE, i)
        if i < 0:
            return n, None, -1
        if n - i < HEADER_LEN:
            return i, None, -1
        ln = (buf[i + 1] << 8) | buf[i + 2]
        seq = buf[i + 3]
        cmd = buf[i + 4]
        if ln > MAX_PAYLOAD or buf[i + 5] != header_check(ln, seq, cmd):
            i += 1
            continue
        total = FRAME_OVERHEAD + ln
        if n - i < total:
            return i, None, -1
        end = i + HEADER_LEN + ln
        crc = (buf[end] << 8) | buf[end + 1]
        if crc16(buf[i + 1:end]) != crc:
            if bad_crc is not None:
                bad_crc.append((seq, cmd))
            i += 1
            continue
        return i + total, Frame(seq, cmd, bytes(buf[i + HEADER_LEN:end])), i


def decode_frame(buf: bytes) -> tuple[int, Frame | None]:
    """Decode the first valid frame in ``buf``.

    Returns ``(consumed, frame)``:

    * ``(k, Frame)``: a frame ended at byte ``k``; bytes before it were garbage;
    * ``(k, None)`` with ``k > 0``: ``k`` bytes of garbage dropped, no frame yet;
    * ``(0, None)``: need more bytes (``buf`` starts with a plausible partial frame,
      or is empty).

    Never raises on any input bytes.
    """
    if isinstance(buf, memoryview):
        buf = buf.tobytes()
    consumed, frame, _ = _scan(buf)
    return consumed, frame


class FrameDecoder:
    """Stream decoder: feed it bytes as they come, get whole frames back.

    Counters: ``frames`` (good frames), ``garbage_bytes`` (bytes dropped),
    ``crc_errors`` (frames whose header checked but whose CRC did not).
    ``on_crc_error(seq, cmd)`` is called for each such frame: the table uses
    it to NAK with reason BAD_CRC so the host retransmits at once.

    Two time rules give up a partial frame (a false start byte in line noise,
    or the first half of a frame cut by a power loss or an unplugged cable):

    * ``inter_byte``: its newest byte is older than this (the line went quiet,
      or new bytes arrive after such a gap); the receiver checks on every read
      and on read timeouts (:meth:`poll`);
    * ``stale_after``: it has waited this long and a whole valid frame starts
      later in the buffer (a busy line never goes quiet).

    ``None`` disables a rule; with both ``None`` decoding is a pure function of
    the bytes.
    """

    def __init__(self, on_crc_error: Callable[[int, int], object] | None = None,
                 stale_after: float | None = STALE_AFTER_S,
                 clock: Callable[[], float] = time.monotonic,
                 inter_byte: float | None = INTER_BYTE_TIMEOUT_S) -> None:
        self._buf = bytearray()
        self.on_crc_error = on_crc_error
        self.stale_after = stale_after
        self.inter_byte = inter_byte
        self._clock = clock
        self._pending_since: float | None = None
        self._last_byte_at = 0.0
        self.frames = 0
        self.garbage_bytes = 0
        self.crc_errors = 0

    @property
    def pending(self) -> int:
        """Bytes held back waiting for the rest of a frame."""
        return len(self._buf)

    def reset(self) -> None:
        """Forget buffered bytes (counters are kept; see :meth:`reset_counters`)."""
        self._buf.clear()
        self._pending_since = None

    def reset_counters(self) -> None:
        self.frames = self.garbage_bytes = self.crc_errors = 0

    def counters(self) -> dict[str, Any]:
        return {"frames": self.frames, "garbage_bytes": self.garbage_bytes,
                "crc_errors": self.crc_errors, "pending": len(self._buf)}

    def feed(self, data: bytes = b"") -> list[Frame]:
        """Add ``data`` and return every frame now complete, in order."""
        out: list[Frame] = []
        timed = self.stale_after is not None or self.inter_byte is not None
        now = self._clock() if timed else 0.0
        if self._buf and self._quiet_since_last_byte(now):
            self._expire(out)
        if data:
            self._buf += data
            self._last_byte_at = now
        self._drain(out)
        if self._buf and self.stale_after is not None:
            if self._pending_since is None:
                self._pending_since = now
            elif now - self._pending_since >= self.stale_after:
                self._look_past_stale(out)
        return out

    def poll(self) -> list[Frame]:
        """Apply the time rules without new bytes (call on a read timeout)."""
        return self.feed(b"")

    def _quiet_since_last_byte(self, now: float) -> bool:
        return self.inter_byte is not None and now - self._last_byte_at >= self.inter_byte

    def _expire(self, out: list[Frame]) -> None:
        """The whole buffer is stale: keep the whole frames in it, drop everything else."""
        while self._buf:
            del self._buf[:1]
            self.garbage_bytes += 1
            self._drain(out)
        self._pending_since = None

    def _drain(self, out: list[Frame]) -> None:
        while self._buf:
            bad: list[Any] = []
            consumed, frame, start = _scan(self._buf, bad)
            self._note_crc(bad)
            if consumed == 0:
                return
            if frame is not None:
                self.garbage_bytes += start
                self.frames += 1
                out.append(frame)
            else:
                self.garbage_bytes += consumed
            del self._buf[:consumed]
            self._pending_since = None

    def _note_crc(self, bad: list[Any]) -> None:
        self.crc_errors += len(bad)
        if self.on_crc_error is not None:
            for seq, cmd in bad:
                try:
                    self.on_crc_error(seq, cmd)
                except Exception:  # a callback must not break decoding
                    pass

    def _look_past_stale(self, out: list[Frame]) -> None:
        j = self._buf.find(_SOF_BYTE, 1)
        while j > 0:
            _, frame, start = _scan(self._buf[j:])
            if frame is not None and start == 0:
                self.garbage_bytes += j
                del self._buf[:j]
                self._pending_since = None
                self._drain(out)
                return
            j = self._buf.find(_SOF_BYTE, j + 1)
