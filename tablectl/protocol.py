"""The table wire protocol: frames, messages, modes and result codes.

This module is the ONE definition of every frame. The daemon (``tablectl``)
and the simulator (``hardware_sim``) both import it; ``docs/protocol.md`` is
the same thing written for a firmware engineer.

Frame (all multi-byte integers big-endian)::

    offset  size  field
    0       1     SOF      0xA5
    1       2     LEN      payload length, 0..MAX_PAYLOAD (1024)
    3       1     SEQ      sequence number 0..255 (wraps)
    4       1     TYPE     message type (command, reply, event or NAK)
    5       1     HCK      header check = 0x5A ^ LEN_hi ^ LEN_lo ^ SEQ ^ TYPE
    6       LEN   PAYLOAD
    6+LEN   2     CRC      CRC-16/CCITT-FALSE over bytes 1 .. 5+LEN
                           (everything after SOF up to the end of PAYLOAD)

CRC-16/CCITT-FALSE: polynomial 0x1021, init 0xFFFF, no reflection, no final
XOR; ``crc16(b"123456789") == 0x29B1``.

Message types: commands 0x01-0x3F (host to table), replies ``cmd | 0x80``
(table to host; a reply IS the acknowledgement and carries the result),
events 0x41-0x4F (table to host, unsolicited, never acknowledged), NAK 0x7F.

Decoding follows pymodbus: :func:`decode_frame` returns ``(consumed, frame)``
(``consumed == 0``: need more bytes) and hunts forward past garbage and bad
CRCs to the next start byte whose frame checks. :class:`FrameDecoder` keeps
the buffer and counters for a stream.

Device errors are *messages*: every reply carries a :class:`Result` code, and
the table raises :class:`ErrorRaised` events. Exceptions
(:mod:`tablectl.errors`) are only for malformed bytes and bad arguments.
"""

from __future__ import annotations

import enum
import struct
import time
from dataclasses import dataclass, field
from typing import ClassVar

from .errors import PayloadError, ProtocolError, UnknownCommand, UnknownMode

__all__ = [
    "SOF", "HEADER_LEN", "CRC_LEN", "FRAME_OVERHEAD", "MAX_PAYLOAD", "MAX_FRAME",
    "PROTOCOL_VERSION", "BAUD", "REPLY_DEADLINE_S", "RETRANSMIT_TIMEOUT_S", "MAX_RETRIES",
    "crc16", "header_check", "Frame", "encode_frame", "decode_frame", "FrameDecoder",
    "wire_time", "retransmit_timeout",
    "Mode", "MODES", "mode_by_name", "mode_names",
    "Result", "NakReason", "CycleState", "Capability", "result_text", "nak_text",
    "SeatPoints", "TableState", "Message", "Command", "Reply", "Event", "MESSAGES",
    "message_from_frame", "reply_type_for", "is_command", "is_reply", "is_event",
    "Hello", "HelloReply", "Status", "StatusReply", "SelectMode", "SelectModeReply",
    "StartCycle", "StartCycleReply", "RollDice", "RollDiceReply", "Deal", "DealReply",
    "ReadPoints", "ReadPointsReply", "TileCheck", "TileCheckReply",
    "ClearErrors", "ClearErrorsReply", "DealtReport", "DealtReportReply",
    "CycleStarted", "CycleFinished", "DiceRolled", "ErrorRaised", "ErrorCleared",
    "LidOpened", "LidClosed", "PointsChanged", "PowerOn", "ModeChanged", "Nak",
    "SEATS", "NO_MODE", "NO_CMD",
]

# --------------------------------------------------------------------------
# Framing constants
# --------------------------------------------------------------------------

SOF = 0xA5
_SOF_BYTE = bytes([SOF])
HEADER_LEN = 6
CRC_LEN = 2
FRAME_OVERHEAD = HEADER_LEN + CRC_LEN
MAX_PAYLOAD = 1024
MAX_FRAME = MAX_PAYLOAD + FRAME_OVERHEAD
PROTOCOL_VERSION = 1

#: the link's nominal speed, 8 data bits, no parity, 1 stop bit (8N1)
BAUD = 115200
#: the table answers a command within this time after its last byte
REPLY_DEADLINE_S = 0.020
#: the host's default retransmission timeout (see :func:`retransmit_timeout`)
RETRANSMIT_TIMEOUT_S = 0.25
#: retransmissions after the first attempt; then the command has timed out
MAX_RETRIES = 3
#: how long a partial frame may wait before the decoder looks past it
STALE_AFTER_S = 0.1

SEATS = 4          # seats 0..3 = East, South, West, North of the table
NO_MODE = 0xFF     # "no pending mode" on the wire
NO_CMD = 0x00      # "no command remembered" on the wire


def _make_crc_table() -> tuple[int, ...]:
    table = []
    for i in range(256):
        c = i << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
        table.append(c & 0xFFFF)
    return tuple(table)


_CRC_TABLE = _make_crc_table()


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
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


# --------------------------------------------------------------------------
# Frames
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    """One frame: sequence number, message type (``cmd``) and payload."""

    seq: int
    cmd: int
    payload: bytes = b""

    def __post_init__(self):
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


def _scan(buf, stats: dict | None = None) -> tuple[int, Frame | None, int]:
    """Core of the decoder: ``(consumed, frame, frame_start)``."""
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
            if stats is not None:
                stats["crc_errors"] = stats.get("crc_errors", 0) + 1
                stats.setdefault("bad_headers", []).append((seq, cmd))
            i += 1
            continue
        return i + total, Frame(seq, cmd, bytes(buf[i + HEADER_LEN:end])), i


def decode_frame(buf) -> tuple[int, Frame | None]:
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

    A partial frame that has waited longer than ``stale_after`` seconds is
    given up if a complete valid frame starts later in the buffer (a false
    start byte in line noise must not hold back real frames). ``None``
    disables this time rule (decoding is then a pure function of the bytes).
    """

    def __init__(self, on_crc_error=None, stale_after: float | None = STALE_AFTER_S,
                 clock=time.monotonic):
        self._buf = bytearray()
        self.on_crc_error = on_crc_error
        self.stale_after = stale_after
        self._clock = clock
        self._pending_since: float | None = None
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

    def counters(self) -> dict:
        return {"frames": self.frames, "garbage_bytes": self.garbage_bytes,
                "crc_errors": self.crc_errors, "pending": len(self._buf)}

    def feed(self, data: bytes = b"") -> list[Frame]:
        """Add ``data`` and return every frame now complete, in order."""
        if data:
            self._buf += data
        out: list[Frame] = []
        self._drain(out)
        if self._buf and self.stale_after is not None:
            now = self._clock()
            if self._pending_since is None:
                self._pending_since = now
            elif now - self._pending_since >= self.stale_after:
                self._look_past_stale(out)
        return out

    def poll(self) -> list[Frame]:
        """Apply the stale-partial-frame rule without new bytes (call on a read timeout)."""
        return self.feed(b"")

    def _drain(self, out: list[Frame]) -> None:
        while self._buf:
            stats: dict = {}
            consumed, frame, start = _scan(self._buf, stats)
            self._note_crc(stats)
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

    def _note_crc(self, stats: dict) -> None:
        bad = stats.get("bad_headers", ())
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
            stats: dict = {}
            consumed, frame, start = _scan(self._buf[j:], stats)
            if frame is not None and start == 0:
                self.garbage_bytes += j
                del self._buf[:j]
                self._pending_since = None
                self._drain(out)
                return
            j = self._buf.find(_SOF_BYTE, j + 1)


# --------------------------------------------------------------------------
# Modes (single source of truth: shared/seeds/002 自動卓設定表, AMOS JP-EX COLOR)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Mode:
    """One game setting of the table."""

    number: int
    name: str                   # short CLI name
    aliases: tuple[str, ...]    # more CLI names (number forms are always accepted)
    name_ja: str                # as printed in the table's settings list
    name_en: str
    tiles: int                  # tiles in one set (0: check mode raises no walls)
    players: int                # seats dealt (0: check mode)
    seats: tuple[int, ...]      # seats that play and must hold point sticks
    walls: int                  # walls the table builds

    @property
    def code(self) -> str:
        return f"{self.number:02d}"

    @property
    def is_check(self) -> bool:
        return self.number == 0

    def label(self, lang: str = "en") -> str:
        name = self.name_ja if lang == "ja" else self.name_en
        return f"{self.code} {name}" + (f" ({self.tiles})" if self.tiles else "")


MODES: tuple[Mode, ...] = (
    Mode(0, "check", ("check-mode", "chk", "test"), "チェックモード", "check mode",
         0, 0, (), 0),
    Mode(1, "yonma", ("4p", "four", "standard", "136", "yonin", "四人標準"),
         "四人標準", "four-player 136", 136, 4, (0, 1, 2, 3), 4),
    Mode(2, "yonma-hana", ("4p-flowers", "four-flowers", "140", "四人花"),
         "四人花", "four-player flowers 140", 140, 4, (0, 1, 2, 3), 4),
    Mode(3, "yonma-hanahana", ("4p-double-flowers", "four-double-flowers", "144", "四人花花"),
         "四人花花", "four-player double flowers 144", 144, 4, (0, 1, 2, 3), 4),
    Mode(4, "sanma", ("3p", "three", "108", "sannin", "三人標準"),
         "三人標準", "three-player 108", 108, 3, (0, 1, 2), 3),
    Mode(5, "sanma-hana", ("3p-flowers", "three-flowers", "112", "3人花", "三人花"),
         "3人花", "three-player flowers 112", 112, 3, (0, 1, 2), 3),
    Mode(6, "sanma-hanahana", ("3p-double-flowers", "three-double-flowers", "116", "三人花花"),
         "三人花花", "three-player double flowers 116", 116, 3, (0, 1, 2), 3),
    Mode(7, "100", ("100-tile", "100tile", "hyaku", "100枚上がり"),
         "100枚上がり", "100-tile", 100, 4, (0, 1, 2, 3), 4),
    Mode(8, "64", ("64-tile", "64tile", "2p", "futari", "64枚上がり"),
         "64枚上がり", "64-tile", 64, 2, (0, 2), 4),
)

_MODE_INDEX: dict[str, Mode] = {}
for _m in MODES:
    for _n in (_m.name, *_m.aliases, _m.name_ja, _m.name_en, _m.name_en.replace(" ", "-")):
        _MODE_INDEX[_n.casefold()] = _m


def mode_names() -> str:
    """Every mode with its names, for error messages and ``--help``."""
    return "; ".join(f"{m.code} {m.name} ({', '.join(m.aliases)})" for m in MODES)


def mode_by_name(text) -> Mode:
    """A mode from a number (``4``, ``04``) or a name/alias (``sanma``, ``yonma``,
    ``check``, ``四人花``...). Raises :class:`UnknownMode` listing valid names."""
    if isinstance(text, Mode):
        return text
    if isinstance(text, int) and not isinstance(text, bool):
        if 0 <= text < len(MODES):
            return MODES[text]
        raise UnknownMode(f"unknown mode {text}: modes are 00-08 ({mode_names()})")
    s = str(text).strip()
    key = s.casefold().replace("_", "-")
    if key.isascii() and key.isdigit() and len(key) <= 2:
        num = int(key)
        if num < len(MODES):
            return MODES[num]
    m = _MODE_INDEX.get(key)
    if m is None:
        raise UnknownMode(f"unknown mode {s!r}: valid modes are {mode_names()}")
    return m


# --------------------------------------------------------------------------
# Codes
# --------------------------------------------------------------------------


class Result(enum.IntEnum):
    """Result of a command (in every reply) and error codes (in error events)."""

    OK = 0x00
    TILE_COUNT_WRONG = 0x01
    LID_OPEN = 0x02
    MOTOR_JAM = 0x03
    CYCLE_OVERRUN = 0x04
    POINT_STICKS_MISMATCH = 0x05
    MODE_CHANGE_REFUSED = 0x06
    UNKNOWN_MODE = 0x07
    BUSY = 0x08
    NOT_READY = 0x09
    BAD_SEAT = 0x0A     # ROLL_DICE from a seat that does not play in this mode
    WALLS_ONLY = 0x20   # informational: DEAL on a table without auto-deal

    @property
    def is_error(self) -> bool:
        return self not in (Result.OK, Result.WALLS_ONLY)


_RESULT_TEXT: dict[int, tuple[str, str]] = {
    Result.OK: ("OK.", "正常です。"),
    Result.TILE_COUNT_WRONG: (
        "Wrong number of tiles after the shuffle: a tile is missing or extra. "
        "Count the set and look under the table.",
        "洗牌後の牌の枚数が違います。牌が足りないか多すぎます。牌を数え、卓の中と下を確認してください。"),
    Result.LID_OPEN: (
        "The lid or the centre box is open. Close it.",
        "天板（フタ）または中央ボックスが開いています。閉めてください。"),
    Result.MOTOR_JAM: (
        "A motor is jammed. Switch the table off, remove the stuck tile, switch it on.",
        "モーターが詰まりました。電源を切り、引っかかった牌を取り除いてから電源を入れてください。"),
    Result.CYCLE_OVERRUN: (
        "The shuffle took too long and was stopped. Look for a stuck tile, then start again.",
        "洗牌に時間がかかりすぎたため停止しました。引っかかった牌がないか確認して、もう一度始めてください。"),
    Result.POINT_STICKS_MISMATCH: (
        "The point sticks are not what this mode needs: put sticks in the playing seats only.",
        "点棒がこのモードの規定と違います。遊ぶ席にだけ規定の点棒を入れてください。"),
    Result.MODE_CHANGE_REFUSED: (
        "The mode cannot be changed while the table is shuffling. Wait until it finishes.",
        "洗牌中はモードを変更できません。終わるまでお待ちください。"),
    Result.UNKNOWN_MODE: (
        "Unknown mode: the table has modes 00 to 08.",
        "不明なモードです。モードは00〜08です。"),
    Result.BUSY: (
        "The table is busy (shuffling). Try again when it has finished.",
        "卓が動作中（洗牌中）です。終わってからもう一度お試しください。"),
    Result.NOT_READY: (
        "The walls are not up, or the hands were already dealt: start a cycle first.",
        "牌山が上がっていないか、すでに配牌済みです。先に洗牌を始めてください。"),
    Result.BAD_SEAT: (
        "That seat does not play in this mode: roll the dice from a playing seat.",
        "その席はこのモードでは使いません。遊ぶ席のサイコロボタンを押してください。"),
    Result.WALLS_ONLY: (
        "This table has no auto-deal: only the walls are up; "
        "players take their hands from the wall.",
        "この卓は自動配牌なしです。牌山だけが上がりました。配牌は山から取ってください。"),
}


def result_text(code: int, lang: str = "en") -> str:
    """Plain words for a result/error code, in English (``en``) or Japanese (``ja``)."""
    pair = _RESULT_TEXT.get(code)
    if pair is None:
        return (f"Unknown table error code 0x{code:02X}." if lang != "ja"
                else f"不明なエラーコード 0x{code:02X} です。")
    return pair[1] if lang == "ja" else pair[0]


class NakReason(enum.IntEnum):
    """Why the table refused a frame at the link level (NAK)."""

    BAD_CRC = 0x01          # header checked, CRC did not: retransmit now
    UNKNOWN_COMMAND = 0x02  # do not retry
    BAD_PAYLOAD = 0x03      # do not retry
    BUSY = 0x04             # table cannot take commands yet (booting): retry after a pause


_NAK_TEXT = {
    NakReason.BAD_CRC: ("the command arrived damaged (bad CRC)",
                        "コマンドが壊れて届きました（CRC不一致）"),
    NakReason.UNKNOWN_COMMAND: ("the table does not know this command",
                                "卓が知らないコマンドです"),
    NakReason.BAD_PAYLOAD: ("the command's data is malformed",
                            "コマンドのデータが不正です"),
    NakReason.BUSY: ("the table is starting up and cannot take commands yet",
                     "卓が起動中のため、まだコマンドを受け付けられません"),
}


def nak_text(reason: int, lang: str = "en") -> str:
    pair = _NAK_TEXT.get(reason)
    if pair is None:
        return f"unknown NAK reason 0x{reason:02X}"
    return pair[1] if lang == "ja" else pair[0]


class CycleState(enum.IntEnum):
    IDLE = 0         # no walls up (after power-on)
    CYCLING = 1      # shuffling the other set and building the walls (~70 s)
    WALLS_UP = 2     # walls raised, dice not rolled
    DICE_ROLLED = 3  # dice rolled, not dealt
    DEALT = 4        # hands raised (auto-deal) or walls-only deal acknowledged
    FAILED = 5       # the last cycle stopped with an error


class Capability(enum.IntFlag):
    AUTO_DEAL = 0x01
    IC_POINT_STICKS = 0x02


# --------------------------------------------------------------------------
# Payload codec helpers
# --------------------------------------------------------------------------


class _W:
    def __init__(self):
        self.b = bytearray()

    def u8(self, v: int) -> "_W":
        if not 0 <= v <= 0xFF:
            raise ProtocolError(f"value {v} does not fit a byte")
        self.b.append(v)
        return self

    def u16(self, v: int) -> "_W":
        self.b += struct.pack(">H", v)
        return self

    def u32(self, v: int) -> "_W":
        self.b += struct.pack(">I", v)
        return self

    def i32(self, v: int) -> "_W":
        self.b += struct.pack(">i", v)
        return self

    def text(self, s: str) -> "_W":
        raw = s.encode("utf-8")[:255]
        return self.u8(len(raw)).raw(raw)

    def tiles(self, ts) -> "_W":
        ts = bytes(ts)
        self.u16(len(ts))
        self.b += ts
        return self

    def raw(self, data: bytes) -> "_W":
        self.b += data
        return self

    def done(self) -> bytes:
        return bytes(self.b)


class _R:
    def __init__(self, payload: bytes, name: str):
        self.p = payload
        self.i = 0
        self.name = name

    def _take(self, n: int) -> bytes:
        if self.i + n > len(self.p):
            raise PayloadError(f"{self.name}: payload too short ({len(self.p)} bytes)")
        out = self.p[self.i:self.i + n]
        self.i += n
        return out

    def u8(self) -> int:
        return self._take(1)[0]

    def u16(self) -> int:
        return struct.unpack(">H", self._take(2))[0]

    def u32(self) -> int:
        return struct.unpack(">I", self._take(4))[0]

    def i32(self) -> int:
        return struct.unpack(">i", self._take(4))[0]

    def text(self) -> str:
        n = self.u8()
        try:
            return self._take(n).decode("utf-8")
        except UnicodeDecodeError as e:
            raise PayloadError(f"{self.name}: text is not UTF-8") from e

    def tiles(self) -> tuple[int, ...]:
        n = self.u16()
        return tuple(self._take(n))

    def flag(self) -> bool:
        v = self.u8()
        if v > 1:
            raise PayloadError(f"{self.name}: flag byte {v} is not 0 or 1")
        return bool(v)

    def end(self) -> None:
        if self.i != len(self.p):
            raise PayloadError(f"{self.name}: {len(self.p) - self.i} unexpected trailing bytes")


def _enum(cls, v: int, name: str):
    try:
        return cls(v)
    except ValueError as e:
        raise PayloadError(f"{name}: {v} is not a valid {cls.__name__}") from e


def _check_mode_byte(v: int, name: str, allow_none: bool = False) -> int:
    if allow_none and v == NO_MODE:
        return v
    if v >= len(MODES):
        raise PayloadError(f"{name}: mode byte {v} is out of range")
    return v


# --------------------------------------------------------------------------
# Shared payload structures
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatPoints:
    """One seat's IC point-stick drawer: sticks present? and their total."""

    present: bool = False
    total: int = 0

    def _enc(self, w: _W) -> None:
        w.u8(1 if self.present else 0).i32(self.total)

    @classmethod
    def _dec(cls, r: _R) -> "SeatPoints":
        return cls(r.flag(), r.i32())


def _enc_seats(w: _W, seats) -> None:
    if len(seats) != SEATS:
        raise ProtocolError(f"{SEATS} seats expected, got {len(seats)}")
    for s in seats:
        s._enc(w)


def _dec_seats(r: _R) -> tuple[SeatPoints, ...]:
    return tuple(SeatPoints._dec(r) for _ in range(SEATS))


_EMPTY_SEATS = tuple(SeatPoints() for _ in range(SEATS))


@dataclass(frozen=True)
class TableState:
    """The table's whole state (in HELLO and STATUS replies and POWER_ON events).

    Wire layout: mode u8, pending_mode u8 (0xFF none), cycle u8, lid u8,
    dice1 u8, dice2 u8 (0 = not rolled), dealer u8, cycle_no u32,
    cycle_remaining_ms u32, n_errors u8, errors n×u8, 4 × (present u8, total i32).
    """

    mode: int = 1
    pending_mode: int | None = None
    cycle: CycleState = CycleState.IDLE
    lid_open: bool = False
    dice: tuple[int, int] | None = None
    dealer: int = 0
    cycle_no: int = 0
    cycle_remaining_ms: int = 0
    errors: tuple[int, ...] = ()
    seats: tuple[SeatPoints, ...] = _EMPTY_SEATS

    def _enc(self, w: _W) -> None:
        w.u8(self.mode).u8(NO_MODE if self.pending_mode is None else self.pending_mode)
        w.u8(int(self.cycle)).u8(1 if self.lid_open else 0)
        d1, d2 = self.dice if self.dice else (0, 0)
        w.u8(d1).u8(d2).u8(self.dealer).u32(self.cycle_no).u32(self.cycle_remaining_ms)
        w.u8(len(self.errors))
        for e in self.errors:
            w.u8(int(e))
        _enc_seats(w, self.seats)

    @classmethod
    def _dec(cls, r: _R) -> "TableState":
        mode = _check_mode_byte(r.u8(), "state.mode")
        pend = _check_mode_byte(r.u8(), "state.pending_mode", allow_none=True)
        cycle = _enum(CycleState, r.u8(), "state.cycle")
        lid = r.flag()
        d1, d2 = r.u8(), r.u8()
        if (d1 == 0) != (d2 == 0) or d1 > 6 or d2 > 6:
            raise PayloadError(f"state: dice {d1},{d2} are not valid")
        dealer = r.u8()
        if dealer >= SEATS:
            raise PayloadError(f"state: dealer seat {dealer} out of range")
        cycle_no = r.u32()
        remaining = r.u32()
        errors = tuple(r.u8() for _ in range(r.u8()))
        seats = _dec_seats(r)
        return cls(mode, None if pend == NO_MODE else pend, cycle, lid,
                   (d1, d2) if d1 else None, dealer, cycle_no, remaining, errors, seats)

    @property
    def mode_info(self) -> Mode:
        return MODES[self.mode]


# --------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------

MESSAGES: dict[int, type["Message"]] = {}


def _register(cls):
    if cls.CMD in MESSAGES:
        raise RuntimeError(f"message type 0x{cls.CMD:02X} defined twice")
    MESSAGES[cls.CMD] = cls
    return cls


class Message:
    """Base of every message. ``CMD`` is its type byte on the wire."""

    CMD: ClassVar[int] = -1
    NAME: ClassVar[str] = ""

    def encode(self) -> bytes:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    @classmethod
    def decode(cls, payload: bytes) -> "Message":  # pragma: no cover
        raise NotImplementedError

    def to_frame(self, seq: int) -> Frame:
        return Frame(seq, self.CMD, self.encode())


class Command(Message):
    """Host to table. The table answers with ``REPLY`` (same seq) or a NAK."""

    REPLY: ClassVar[type["Reply"]]
    #: True if running it twice would do something twice (informational;
    #: the table de-duplicates EVERY command except HELLO anyway)
    CHANGES_STATE: ClassVar[bool] = False


class _EmptyCommand(Command):
    def encode(self) -> bytes:
        return b""

    @classmethod
    def decode(cls, payload: bytes):
        _R(payload, cls.NAME).end()
        return cls()


class Reply(Message):
    """Table to host: the acknowledgement of a command, carrying its result."""

    result: int

    @property
    def ok(self) -> bool:
        try:
            return not Result(self.result).is_error
        except ValueError:
            return False

    def text(self, lang: str = "en") -> str:
        return result_text(self.result, lang)


class Event(Message):
    """Table to host, unsolicited; the frame's SEQ is the table's event counter."""


def _result_byte(r: _R, name: str) -> int:
    return int(_enum(Result, r.u8(), name + ".result"))


# ---- HELLO --------------------------------------------------------------


@_register
@dataclass(frozen=True)
class Hello(Command):
    """Sent by the host after every (re)connect before any other command."""

    version: int = PROTOCOL_VERSION
    CMD: ClassVar[int] = 0x01
    NAME: ClassVar[str] = "HELLO"

    def encode(self) -> bytes:
        return _W().u8(self.version).done()

    @classmethod
    def decode(cls, payload: bytes) -> "Hello":
        r = _R(payload, cls.NAME)
        v = r.u8()
        r.end()
        return cls(v)


def _enc_ident(w: _W, m) -> None:
    w.u8(m.protocol_version).text(m.model).text(m.firmware).u8(int(m.capabilities))
    w.u16(m.boot_id)


def _dec_ident(r: _R) -> tuple:
    return (r.u8(), r.text(), r.text(), Capability(r.u8()), r.u16())


@_register
@dataclass(frozen=True)
class HelloReply(Reply):
    """Who the table is and its whole state.

    ``last_seq``/``last_cmd``: the command the table last executed and
    remembers for duplicate detection (``last_cmd == 0``: none since power-on).
    """

    result: int = Result.OK
    protocol_version: int = PROTOCOL_VERSION
    model: str = ""
    firmware: str = ""
    capabilities: Capability = Capability(0)
    boot_id: int = 0
    last_seq: int = 0
    last_cmd: int = NO_CMD
    state: TableState = field(default_factory=TableState)
    CMD: ClassVar[int] = 0x81
    NAME: ClassVar[str] = "HELLO_REPLY"

    @property
    def auto_deal(self) -> bool:
        return bool(self.capabilities & Capability.AUTO_DEAL)

    @property
    def ic_point_sticks(self) -> bool:
        return bool(self.capabilities & Capability.IC_POINT_STICKS)

    def encode(self) -> bytes:
        w = _W().u8(int(self.result))
        _enc_ident(w, self)
        w.u8(self.last_seq).u8(self.last_cmd)
        self.state._enc(w)
        return w.done()

    @classmethod
    def decode(cls, payload: bytes) -> "HelloReply":
        r = _R(payload, cls.NAME)
        res = _result_byte(r, cls.NAME)
        pv, model, fw, caps, boot = _dec_ident(r)
        last_seq, last_cmd = r.u8(), r.u8()
        st = TableState._dec(r)
        r.end()
        return cls(res, pv, model, fw, caps, boot, last_seq, last_cmd, st)


# ---- STATUS -------------------------------------------------------------


@_register
@dataclass(frozen=True)
class Status(_EmptyCommand):
    CMD: ClassVar[int] = 0x02
    NAME: ClassVar[str] = "STATUS"


@_register
@dataclass(frozen=True)
class StatusReply(Reply):
    result: int = Result.OK
    state: TableState = field(default_factory=TableState)
    CMD: ClassVar[int] = 0x82
    NAME: ClassVar[str] = "STATUS_REPLY"

    def encode(self) -> bytes:
        w = _W().u8(int(self.result))
        self.state._enc(w)
        return w.done()

    @classmethod
    def decode(cls, payload: bytes) -> "StatusReply":
        r = _R(payload, cls.NAME)
        res = _result_byte(r, cls.NAME)
        st = TableState._dec(r)
        r.end()
        return cls(res, st)


# ---- SELECT_MODE ----------------------------------------------------------


@_register
@dataclass(frozen=True)
class SelectMode(Command):
    """Select the game mode 0..8; it applies from the next cycle.

    The payload byte may hold any value: an out-of-range mode is answered
    with result UNKNOWN_MODE (a message), not a NAK.
    """

    mode: int = 1
    CMD: ClassVar[int] = 0x03
    NAME: ClassVar[str] = "SELECT_MODE"
    CHANGES_STATE: ClassVar[bool] = True

    def encode(self) -> bytes:
        return _W().u8(self.mode).done()

    @classmethod
    def decode(cls, payload: bytes) -> "SelectMode":
        r = _R(payload, cls.NAME)
        m = r.u8()
        r.end()
        return cls(m)


@_register
@dataclass(frozen=True)
class SelectModeReply(Reply):
    """``seat_mask``: with POINT_STICKS_MISMATCH, bit n set = seat n is wrong."""

    result: int = Result.OK
    requested: int = 0
    mode: int = 1
    pending_mode: int | None = None
    seat_mask: int = 0
    CMD: ClassVar[int] = 0x83
    NAME: ClassVar[str] = "SELECT_MODE_REPLY"

    def encode(self) -> bytes:
        return (_W().u8(int(self.result)).u8(self.requested).u8(self.mode)
                .u8(NO_MODE if self.pending_mode is None else self.pending_mode)
                .u8(self.seat_mask).done())

    @classmethod
    def decode(cls, payload: bytes) -> "SelectModeReply":
        r = _R(payload, cls.NAME)
        res = _result_byte(r, cls.NAME)
        req = r.u8()
        mode = _check_mode_byte(r.u8(), cls.NAME)
        pend = _check_mode_byte(r.u8(), cls.NAME, allow_none=True)
        mask = r.u8()
        r.end()
        return cls(res, req, mode, None if pend == NO_MODE else pend, mask)


# ---- START_CYCLE ----------------------------------------------------------


@_register
@dataclass(frozen=True)
class StartCycle(_EmptyCommand):
    """Shuffle the other set and raise its walls. The reply says the cycle
    started; CYCLE_FINISHED (event) says how it ended."""

    CMD: ClassVar[int] = 0x04
    NAME: ClassVar[str] = "START_CYCLE"
    CHANGES_STATE: ClassVar[bool] = True


@_register
@dataclass(frozen=True)
class StartCycleReply(Reply):
    result: int = Result.OK
    mode: int = 1
    cycle_no: int = 0
    duration_ms: int = 0
    CMD: ClassVar[int] = 0x84
    NAME: ClassVar[str] = "START_CYCLE_REPLY"

    def encode(self) -> bytes:
        return (_W().u8(int(self.result)).u8(self.mode).u32(self.cycle_no)
                .u32(self.duration_ms).done())

    @classmethod
    def decode(cls, payload: bytes) -> "StartCycleReply":
        r = _R(payload, cls.NAME)
        res = _result_byte(r, cls.NAME)
        mode = _check_mode_byte(r.u8(), cls.NAME)
        out = cls(res, mode, r.u32(), r.u32())
        r.end()
        return out


# ---- ROLL_DICE ------------------------------------------------------------


@_register
@dataclass(frozen=True)
class RollDice(Command):
    """Roll the two dice; ``seat`` is the seat whose dice button is pressed
    (the dealer)."""

    seat: int = 0
    CMD: ClassVar[int] = 0x05
    NAME: ClassVar[str] = "ROLL_DICE"
    CHANGES_STATE: ClassVar[bool] = True

    def encode(self) -> bytes:
        return _W().u8(self.seat).done()

    @classmethod
    def decode(cls, payload: bytes) -> "RollDice":
        r = _R(payload, cls.NAME)
        s = r.u8()
        r.end()
        if s >= SEATS:
            raise PayloadError(f"{cls.NAME}: seat {s} out of range 0..3")
        return cls(s)


@_register
@dataclass(frozen=True)
class RollDiceReply(Reply):
    result: int = Result.OK
    seat: int = 0
    dice: tuple[int, int] = (0, 0)
    CMD: ClassVar[int] = 0x85
    NAME: ClassVar[str] = "ROLL_DICE_REPLY"

    @property
    def total(self) -> int:
        return self.dice[0] + self.dice[1]

    def encode(self) -> bytes:
        return _W().u8(int(self.result)).u8(self.seat).u8(self.dice[0]).u8(self.dice[1]).done()

    @classmethod
    def decode(cls, payload: bytes) -> "RollDiceReply":
        r = _R(payload, cls.NAME)
        res = _result_byte(r, cls.NAME)
        out = cls(res, r.u8(), (r.u8(), r.u8()))
        r.end()
        return out


# ---- DEAL ---------------------------------------------------------------


@_register
@dataclass(frozen=True)
class Deal(_EmptyCommand):
    """Break the wall where the dice say and raise each seat's hand
    (auto-deal), or answer WALLS_ONLY on a table without auto-deal."""

    CMD: ClassVar[int] = 0x06
    NAME: ClassVar[str] = "DEAL"
    CHANGES_STATE: ClassVar[bool] = True


@_register
@dataclass(frozen=True)
class DealReply(Reply):
    """``hand_sizes``: tiles raised per seat (all 0 with WALLS_ONLY)."""

    result: int = Result.OK
    dealer: int = 0
    dice: tuple[int, int] = (0, 0)
    hand_sizes: tuple[int, ...] = (0, 0, 0, 0)
    CMD: ClassVar[int] = 0x86
    NAME: ClassVar[str] = "DEAL_REPLY"

    @property
    def walls_only(self) -> bool:
        return self.result == Result.WALLS_ONLY

    def encode(self) -> bytes:
        w = _W().u8(int(self.result)).u8(self.dealer).u8(self.dice[0]).u8(self.dice[1])
        for n in self.hand_sizes:
            w.u8(n)
        return w.done()

    @classmethod
    def decode(cls, payload: bytes) -> "DealReply":
        r = _R(payload, cls.NAME)
        res = _result_byte(r, cls.NAME)
        dealer = r.u8()
        dice = (r.u8(), r.u8())
        sizes = tuple(r.u8() for _ in range(SEATS))
        r.end()
        return cls(res, dealer, dice, sizes)


# ---- READ_POINTS ------------------------------------------------------------


@_register
@dataclass(frozen=True)
class ReadPoints(_EmptyCommand):
    CMD: ClassVar[int] = 0x07
    NAME: ClassVar[str] = "READ_POINTS"


@_register
@dataclass(frozen=True)
class ReadPointsReply(Reply):
    result: int = Result.OK
    seats: tuple[SeatPoints, ...] = _EMPTY_SEATS
    CMD: ClassVar[int] = 0x87
    NAME: ClassVar[str] = "READ_POINTS_REPLY"

    def encode(self) -> bytes:
        w = _W().u8(int(self.result))
        _enc_seats(w, self.seats)
        return w.done()

    @classmethod
    def decode(cls, payload: bytes) -> "ReadPointsReply":
        r = _R(payload, cls.NAME)
        res = _result_byte(r, cls.NAME)
        seats = _dec_seats(r)
        r.end()
        return cls(res, seats)


# ---- TILE_CHECK -----------------------------------------------------------


@_register
@dataclass(frozen=True)
class TileCheck(_EmptyCommand):
    """Count the tiles of the set in the machine against the mode."""

    CMD: ClassVar[int] = 0x08
    NAME: ClassVar[str] = "TILE_CHECK"


@_register
@dataclass(frozen=True)
class TileCheckReply(Reply):
    """``missing``/``extra``: tile codes short or over (one entry per tile)."""

    result: int = Result.OK
    mode: int = 1
    expected: int = 0
    counted: int = 0
    missing: tuple[int, ...] = ()
    extra: tuple[int, ...] = ()
    CMD: ClassVar[int] = 0x88
    NAME: ClassVar[str] = "TILE_CHECK_REPLY"

    def encode(self) -> bytes:
        return (_W().u8(int(self.result)).u8(self.mode).u16(self.expected).u16(self.counted)
                .tiles(self.missing).tiles(self.extra).done())

    @classmethod
    def decode(cls, payload: bytes) -> "TileCheckReply":
        r = _R(payload, cls.NAME)
        res = _result_byte(r, cls.NAME)
        mode = _check_mode_byte(r.u8(), cls.NAME)
        out = cls(res, mode, r.u16(), r.u16(), r.tiles(), r.tiles())
        r.end()
        return out


# ---- CLEAR_ERRORS ---------------------------------------------------------


@_register
@dataclass(frozen=True)
class ClearErrors(_EmptyCommand):
    """The reset (both dice switches held): clears latched errors whose cause
    is gone. Errors whose cause remains (lid still open, jam not removed)
    stay, and are listed in the reply."""

    CMD: ClassVar[int] = 0x09
    NAME: ClassVar[str] = "CLEAR_ERRORS"
    CHANGES_STATE: ClassVar[bool] = True


@_register
@dataclass(frozen=True)
class ClearErrorsReply(Reply):
    result: int = Result.OK
    cleared: tuple[int, ...] = ()
    remaining: tuple[int, ...] = ()
    CMD: ClassVar[int] = 0x89
    NAME: ClassVar[str] = "CLEAR_ERRORS_REPLY"

    def encode(self) -> bytes:
        return _W().u8(int(self.result)).tiles(self.cleared).tiles(self.remaining).done()

    @classmethod
    def decode(cls, payload: bytes) -> "ClearErrorsReply":
        r = _R(payload, cls.NAME)
        res = _result_byte(r, cls.NAME)
        out = cls(res, r.tiles(), r.tiles())
        r.end()
        return out


# ---- DEALT_REPORT (debug / tests) -----------------------------------------


@_register
@dataclass(frozen=True)
class DealtReport(_EmptyCommand):
    """What the last cycle built and dealt (for tests and diagnosis)."""

    CMD: ClassVar[int] = 0x0A
    NAME: ClassVar[str] = "DEALT_REPORT"


@_register
@dataclass(frozen=True)
class DealtReportReply(Reply):
    """The walls as built (each in draw order), the break, the hands, and the
    live wall left after the deal (from the break, in draw order; the dead wall
    is at its end). Tile codes are those of ``scoring.tiles`` (0-33 kinds,
    34-36 red fives 0m 0p 0s, 37-44 flowers 1f-8f).

    ``result`` NOT_READY: no cycle has finished since power-on.
    """

    result: int = Result.OK
    cycle_no: int = 0
    mode: int = 1
    dealer: int = 0
    dice: tuple[int, int] = (0, 0)
    break_wall: int = 0
    break_stack: int = 0
    dealt: bool = False
    walls: tuple[tuple[int, ...], ...] = ()
    hands: tuple[tuple[int, ...], ...] = ((), (), (), ())
    live_wall: tuple[int, ...] = ()
    CMD: ClassVar[int] = 0x8A
    NAME: ClassVar[str] = "DEALT_REPORT_REPLY"

    def encode(self) -> bytes:
        w = (_W().u8(int(self.result)).u32(self.cycle_no).u8(self.mode).u8(self.dealer)
             .u8(self.dice[0]).u8(self.dice[1]).u8(self.break_wall).u8(self.break_stack)
             .u8(1 if self.dealt else 0))
        w.u8(len(self.walls))
        for wall in self.walls:
            w.tiles(wall)
        if len(self.hands) != SEATS:
            raise ProtocolError(f"{SEATS} hands expected")
        for h in self.hands:
            w.tiles(h)
        w.tiles(self.live_wall)
        return w.done()

    @classmethod
    def decode(cls, payload: bytes) -> "DealtReportReply":
        r = _R(payload, cls.NAME)
        res = _result_byte(r, cls.NAME)
        cycle_no = r.u32()
        mode = _check_mode_byte(r.u8(), cls.NAME)
        dealer = r.u8()
        dice = (r.u8(), r.u8())
        bw, bs = r.u8(), r.u8()
        dealt = r.flag()
        walls = tuple(r.tiles() for _ in range(r.u8()))
        hands = tuple(r.tiles() for _ in range(SEATS))
        live = r.tiles()
        r.end()
        return cls(res, cycle_no, mode, dealer, dice, bw, bs, dealt, walls, hands, live)

    @property
    def all_tiles(self) -> tuple[int, ...]:
        return tuple(t for wall in self.walls for t in wall)


# ---- Events -----------------------------------------------------------------


@_register
@dataclass(frozen=True)
class CycleStarted(Event):
    mode: int = 1
    cycle_no: int = 0
    duration_ms: int = 0
    CMD: ClassVar[int] = 0x41
    NAME: ClassVar[str] = "EV_CYCLE_STARTED"

    def encode(self) -> bytes:
        return _W().u8(self.mode).u32(self.cycle_no).u32(self.duration_ms).done()

    @classmethod
    def decode(cls, payload: bytes) -> "CycleStarted":
        r = _R(payload, cls.NAME)
        out = cls(_check_mode_byte(r.u8(), cls.NAME), r.u32(), r.u32())
        r.end()
        return out


@_register
@dataclass(frozen=True)
class CycleFinished(Event):
    """``result`` OK: walls are up. Otherwise the error that stopped the cycle."""

    result: int = Result.OK
    mode: int = 1
    cycle_no: int = 0
    tiles_counted: int = 0
    CMD: ClassVar[int] = 0x42
    NAME: ClassVar[str] = "EV_CYCLE_FINISHED"

    @property
    def ok(self) -> bool:
        return self.result == Result.OK

    def encode(self) -> bytes:
        return (_W().u8(int(self.result)).u8(self.mode).u32(self.cycle_no)
                .u16(self.tiles_counted).done())

    @classmethod
    def decode(cls, payload: bytes) -> "CycleFinished":
        r = _R(payload, cls.NAME)
        res = _result_byte(r, cls.NAME)
        out = cls(res, _check_mode_byte(r.u8(), cls.NAME), r.u32(), r.u16())
        r.end()
        return out


@_register
@dataclass(frozen=True)
class DiceRolled(Event):
    seat: int = 0
    dice: tuple[int, int] = (0, 0)
    CMD: ClassVar[int] = 0x43
    NAME: ClassVar[str] = "EV_DICE_ROLLED"

    def encode(self) -> bytes:
        return _W().u8(self.seat).u8(self.dice[0]).u8(self.dice[1]).done()

    @classmethod
    def decode(cls, payload: bytes) -> "DiceRolled":
        r = _R(payload, cls.NAME)
        out = cls(r.u8(), (r.u8(), r.u8()))
        r.end()
        return out


@_register
@dataclass(frozen=True)
class ErrorRaised(Event):
    """``detail``: seat mask for POINT_STICKS_MISMATCH, tile count for
    TILE_COUNT_WRONG, 0 otherwise."""

    code: int = Result.OK
    detail: int = 0
    CMD: ClassVar[int] = 0x44
    NAME: ClassVar[str] = "EV_ERROR_RAISED"

    def text(self, lang: str = "en") -> str:
        return result_text(self.code, lang)

    def encode(self) -> bytes:
        return _W().u8(int(self.code)).u16(self.detail).done()

    @classmethod
    def decode(cls, payload: bytes) -> "ErrorRaised":
        r = _R(payload, cls.NAME)
        out = cls(_result_byte(r, cls.NAME), r.u16())
        r.end()
        return out


@_register
@dataclass(frozen=True)
class ErrorCleared(Event):
    code: int = Result.OK
    CMD: ClassVar[int] = 0x45
    NAME: ClassVar[str] = "EV_ERROR_CLEARED"

    def encode(self) -> bytes:
        return _W().u8(int(self.code)).done()

    @classmethod
    def decode(cls, payload: bytes) -> "ErrorCleared":
        r = _R(payload, cls.NAME)
        out = cls(_result_byte(r, cls.NAME))
        r.end()
        return out


class _EmptyEvent(Event):
    def encode(self) -> bytes:
        return b""

    @classmethod
    def decode(cls, payload: bytes):
        _R(payload, cls.NAME).end()
        return cls()


@_register
@dataclass(frozen=True)
class LidOpened(_EmptyEvent):
    CMD: ClassVar[int] = 0x46
    NAME: ClassVar[str] = "EV_LID_OPENED"


@_register
@dataclass(frozen=True)
class LidClosed(_EmptyEvent):
    CMD: ClassVar[int] = 0x47
    NAME: ClassVar[str] = "EV_LID_CLOSED"


@_register
@dataclass(frozen=True)
class PointsChanged(Event):
    seat: int = 0
    points: SeatPoints = SeatPoints()
    CMD: ClassVar[int] = 0x48
    NAME: ClassVar[str] = "EV_POINTS_CHANGED"

    def encode(self) -> bytes:
        w = _W().u8(self.seat)
        self.points._enc(w)
        return w.done()

    @classmethod
    def decode(cls, payload: bytes) -> "PointsChanged":
        r = _R(payload, cls.NAME)
        seat = r.u8()
        if seat >= SEATS:
            raise PayloadError(f"{cls.NAME}: seat {seat} out of range")
        out = cls(seat, SeatPoints._dec(r))
        r.end()
        return out


@_register
@dataclass(frozen=True)
class PowerOn(Event):
    """Sent once the table has booted (after power-on or a power cut): the
    unsolicited HELLO. The host must re-run its HELLO handshake."""

    protocol_version: int = PROTOCOL_VERSION
    model: str = ""
    firmware: str = ""
    capabilities: Capability = Capability(0)
    boot_id: int = 0
    state: TableState = field(default_factory=TableState)
    CMD: ClassVar[int] = 0x49
    NAME: ClassVar[str] = "EV_POWER_ON"

    def encode(self) -> bytes:
        w = _W()
        _enc_ident(w, self)
        self.state._enc(w)
        return w.done()

    @classmethod
    def decode(cls, payload: bytes) -> "PowerOn":
        r = _R(payload, cls.NAME)
        pv, model, fw, caps, boot = _dec_ident(r)
        st = TableState._dec(r)
        r.end()
        return cls(pv, model, fw, caps, boot, st)


@_register
@dataclass(frozen=True)
class ModeChanged(Event):
    """The pending mode took effect (at the start of a cycle)."""

    old: int = 1
    new: int = 1
    CMD: ClassVar[int] = 0x4A
    NAME: ClassVar[str] = "EV_MODE_CHANGED"

    def encode(self) -> bytes:
        return _W().u8(self.old).u8(self.new).done()

    @classmethod
    def decode(cls, payload: bytes) -> "ModeChanged":
        r = _R(payload, cls.NAME)
        out = cls(_check_mode_byte(r.u8(), cls.NAME), _check_mode_byte(r.u8(), cls.NAME))
        r.end()
        return out


# ---- NAK --------------------------------------------------------------------


@_register
@dataclass(frozen=True)
class Nak(Message):
    """Link-level refusal of the frame with the same SEQ. Not a result: the
    command was NOT executed."""

    reason: int = NakReason.BAD_CRC
    cmd: int = 0
    CMD: ClassVar[int] = 0x7F
    NAME: ClassVar[str] = "NAK"

    @property
    def retryable(self) -> bool:
        return self.reason in (NakReason.BAD_CRC, NakReason.BUSY)

    def text(self, lang: str = "en") -> str:
        return nak_text(self.reason, lang)

    def encode(self) -> bytes:
        return _W().u8(int(self.reason)).u8(self.cmd).done()

    @classmethod
    def decode(cls, payload: bytes) -> "Nak":
        r = _R(payload, cls.NAME)
        out = cls(int(_enum(NakReason, r.u8(), cls.NAME)), r.u8())
        r.end()
        return out


# wire command -> reply class
for _cls in list(MESSAGES.values()):
    if issubclass(_cls, Command):
        _cls.REPLY = MESSAGES[_cls.CMD | 0x80]


def is_command(cmd: int) -> bool:
    return 0x01 <= cmd <= 0x3F


def is_reply(cmd: int) -> bool:
    return 0x81 <= cmd <= 0xBF


def is_event(cmd: int) -> bool:
    return 0x41 <= cmd <= 0x4F


def reply_type_for(cmd: int) -> int:
    return cmd | 0x80


def message_from_frame(frame: Frame) -> Message:
    """The message a frame carries. Raises :class:`UnknownCommand` for an
    unknown type and :class:`PayloadError` for a malformed payload."""
    cls = MESSAGES.get(frame.cmd)
    if cls is None:
        raise UnknownCommand(f"unknown message type 0x{frame.cmd:02X}")
    try:
        return cls.decode(frame.payload)
    except PayloadError:
        raise
    except (ValueError, TypeError, struct.error, IndexError) as e:
        raise PayloadError(f"{cls.NAME}: {e}") from e
