"""Every message of the JP-EX link protocol, declared by its fields (docs/protocol.md
sections 4 and 5), and the registry from type byte to message class.

A message is a frozen dataclass registered with :func:`message`; its payload
is its :func:`~.fields.wire` fields in order, encoded and decoded by
:mod:`.fields` (one codec for all). The daemon, the simulator and the tests
all use these classes: one definition of every frame.
"""

from __future__ import annotations

import dataclasses
import struct
from typing import Callable, ClassVar, TypeVar, dataclass_transform

from ..errors import PayloadError, UnknownMessage
from ..modes import SEATS
from . import fields
from .codes import NO_CMD, PROTOCOL_VERSION, Capability, CycleState, NakReason, Result, is_command
from .frame import Frame

_T = TypeVar("_T")

RESULT = fields.Enum(Result)
MODE = fields.ModeByte()
PENDING_MODE = fields.ModeByte(optional=True)


@dataclass_transform(frozen_default=True, field_specifiers=(fields.wire,))
def structure(cls: type[_T]) -> type[_T]:
    """A frozen dataclass whose fields are wire fields (used inside messages)."""
    return dataclasses.dataclass(frozen=True)(cls)


@structure
class SeatPoints:
    """One seat's IC point-stick drawer: sticks present? and their total."""

    present: bool = fields.wire(fields.Flag(), default=False)
    total: int = fields.wire(fields.i32, default=0)


_EMPTY_SEATS = tuple(SeatPoints() for _ in range(SEATS))
SEAT_POINTS = fields.Repeat(fields.Struct(SeatPoints), SEATS)


@structure
class TableState:
    """The table's whole state (in HELLO and STATUS replies and POWER_ON events)."""

    mode: int = fields.wire(MODE, default=1)
    pending_mode: int | None = fields.wire(PENDING_MODE, default=None)
    cycle: CycleState = fields.wire(fields.Enum(CycleState), default=CycleState.IDLE)
    lid_open: bool = fields.wire(fields.Flag(), default=False)
    dice: tuple[int, int] | None = fields.wire(fields.Dice(), default=None)
    dealer: int = fields.wire(fields.SEAT, default=0)
    cycle_no: int = fields.wire(fields.u32, default=0)
    cycle_remaining_ms: int = fields.wire(fields.u32, default=0)
    errors: tuple[int, ...] = fields.wire(fields.ByteList(fields.u8), default=())
    seats: tuple[SeatPoints, ...] = fields.wire(SEAT_POINTS, default=_EMPTY_SEATS)


STATE = fields.Struct(TableState)
MESSAGES: dict[int, type["Message"]] = {}
_M = TypeVar("_M", bound="Message")


@dataclass_transform(frozen_default=True, field_specifiers=(fields.wire,))
def message(type_byte: int, name: str) -> Callable[[type[_M]], type[_M]]:
    """Declare a message class: a frozen dataclass, registered under its type byte."""
    def register(cls: type[_M]) -> type[_M]:
        cls = dataclasses.dataclass(frozen=True)(cls)
        cls.CMD, cls.NAME = type_byte, name
        if type_byte in MESSAGES:
            raise RuntimeError(f"message type 0x{type_byte:02X} defined twice")
        MESSAGES[type_byte] = cls
        if is_command(type_byte - 0x80):
            # the type byte of a command is registered to a Command, which has REPLY
            MESSAGES[type_byte - 0x80].REPLY = cls  # type: ignore[attr-defined]
        return cls
    return register


class Message:
    """Base of every message. ``CMD`` is its type byte on the wire."""

    CMD: ClassVar[int] = -1
    NAME: ClassVar[str] = ""

    def encode(self) -> bytes:
        """The payload."""
        return fields.encode(self)

    @classmethod
    def decode(cls, payload: bytes) -> "Message":
        return fields.decode(cls, payload, cls.NAME)

    def to_frame(self, seq: int) -> Frame:
        return Frame(seq, self.CMD, self.encode())


class Command(Message):
    """Host to table. The table answers with ``REPLY`` (same seq) or a NAK."""

    REPLY: ClassVar[type["Reply"]]
    CHANGES_STATE: ClassVar[bool] = False
    """Running it twice would do something twice (the table de-duplicates anyway)."""


class Reply(Message):
    """Table to host: the acknowledgement of a command, carrying its result."""

    result: int

    @property
    def ok(self) -> bool:
        try:
            return not Result(self.result).is_error
        except ValueError:
            return False


class Event(Message):
    """Table to host, unsolicited; the frame's SEQ is the table's event counter."""


# ---- commands -----------------------------------------------------------------

@message(0x01, "HELLO")
class Hello(Command):
    """Sent by the host after every (re)connect before any other command;
    ``version`` is the highest protocol version the host speaks."""

    version: int = fields.wire(fields.u8, default=PROTOCOL_VERSION)


@message(0x02, "STATUS")
class Status(Command):
    pass


@message(0x03, "SELECT_MODE")
class SelectMode(Command):
    """Select the game mode 0..8; it applies from the next cycle. Any byte may be
    sent: an out-of-range mode is answered with result UNKNOWN_MODE, not a NAK."""

    mode: int = fields.wire(fields.u8, default=1)
    CHANGES_STATE: ClassVar[bool] = True


@message(0x04, "START_CYCLE")
class StartCycle(Command):
    """Shuffle the other set and raise its walls. The reply says the cycle
    started; CYCLE_FINISHED (event) says how it ended."""

    CHANGES_STATE: ClassVar[bool] = True


@message(0x05, "ROLL_DICE")
class RollDice(Command):
    """Roll the two dice for ``seat`` (whose dice button is pressed: the dealer)."""

    seat: int = fields.wire(fields.SEAT, default=0)
    CHANGES_STATE: ClassVar[bool] = True


@message(0x06, "DEAL")
class Deal(Command):
    """Break the wall where the dice say and raise each seat's hand (auto-deal),
    or answer WALLS_ONLY on a table without auto-deal."""

    CHANGES_STATE: ClassVar[bool] = True


@message(0x07, "READ_POINTS")
class ReadPoints(Command):
    pass


@message(0x08, "TILE_CHECK")
class TileCheck(Command):
    """Count the set on the table (the walls raised by the last cycle, with any
    hands dealt from them) against the mode."""


@message(0x09, "CLEAR_ERRORS")
class ClearErrors(Command):
    """The reset (both dice switches held): clears latched errors whose cause is
    gone; BUSY (nothing cleared) while a cycle runs."""

    CHANGES_STATE: ClassVar[bool] = True


@message(0x0A, "DEALT_REPORT")
class DealtReport(Command):
    """What the last cycle built and dealt (for tests and diagnosis)."""


# ---- replies ------------------------------------------------------------------

@message(0x81, "HELLO_REPLY")
class HelloReply(Reply):
    """Who the table is and its whole state. ``last_seq``/``last_cmd``: the command
    the table last executed and remembers (``last_cmd == 0``: none since power-on)."""

    result: int = fields.wire(RESULT, default=Result.OK)
    protocol_version: int = fields.wire(fields.u8, default=PROTOCOL_VERSION)
    model: str = fields.wire(fields.Text(), default="")
    firmware: str = fields.wire(fields.Text(), default="")
    capabilities: Capability = fields.wire(fields.Enum(Capability), default=Capability(0))
    boot_id: int = fields.wire(fields.u16, default=0)
    last_seq: int = fields.wire(fields.u8, default=0)
    last_cmd: int = fields.wire(fields.u8, default=NO_CMD)
    state: TableState = fields.wire(STATE, factory=TableState)

    @property
    def auto_deal(self) -> bool:
        return bool(self.capabilities & Capability.AUTO_DEAL)

    @property
    def ic_point_sticks(self) -> bool:
        return bool(self.capabilities & Capability.IC_POINT_STICKS)


@message(0x82, "STATUS_REPLY")
class StatusReply(Reply):
    result: int = fields.wire(RESULT, default=Result.OK)
    state: TableState = fields.wire(STATE, factory=TableState)


@message(0x83, "SELECT_MODE_REPLY")
class SelectModeReply(Reply):
    """``seat_mask``: with POINT_STICKS_MISMATCH, bit n set = seat n is wrong."""

    result: int = fields.wire(RESULT, default=Result.OK)
    requested: int = fields.wire(fields.u8, default=0)
    mode: int = fields.wire(MODE, default=1)
    pending_mode: int | None = fields.wire(PENDING_MODE, default=None)
    seat_mask: int = fields.wire(fields.u8, default=0)


@message(0x84, "START_CYCLE_REPLY")
class StartCycleReply(Reply):
    result: int = fields.wire(RESULT, default=Result.OK)
    mode: int = fields.wire(MODE, default=1)
    cycle_no: int = fields.wire(fields.u32, default=0)
    duration_ms: int = fields.wire(fields.u32, default=0)


@message(0x85, "ROLL_DICE_REPLY")
class RollDiceReply(Reply):
    result: int = fields.wire(RESULT, default=Result.OK)
    seat: int = fields.wire(fields.u8, default=0)
    dice: tuple[int, int] = fields.wire(fields.Repeat(fields.u8, 2), default=(0, 0))

    @property
    def total(self) -> int:
        return self.dice[0] + self.dice[1]


@message(0x86, "DEAL_REPLY")
class DealReply(Reply):
    """``hand_sizes``: tiles raised per seat (all 0 with WALLS_ONLY)."""

    result: int = fields.wire(RESULT, default=Result.OK)
    dealer: int = fields.wire(fields.u8, default=0)
    dice: tuple[int, int] = fields.wire(fields.Repeat(fields.u8, 2), default=(0, 0))
    hand_sizes: tuple[int, ...] = fields.wire(fields.Repeat(fields.u8, SEATS), default=(0, 0, 0, 0))

    @property
    def walls_only(self) -> bool:
        return self.result == Result.WALLS_ONLY


@message(0x87, "READ_POINTS_REPLY")
class ReadPointsReply(Reply):
    result: int = fields.wire(RESULT, default=Result.OK)
    seats: tuple[SeatPoints, ...] = fields.wire(SEAT_POINTS, default=_EMPTY_SEATS)


@message(0x88, "TILE_CHECK_REPLY")
class TileCheckReply(Reply):
    """``missing``/``extra``: tile codes short or over (one entry per tile)."""

    result: int = fields.wire(RESULT, default=Result.OK)
    mode: int = fields.wire(MODE, default=1)
    expected: int = fields.wire(fields.u16, default=0)
    counted: int = fields.wire(fields.u16, default=0)
    missing: tuple[int, ...] = fields.wire(fields.TILES, default=())
    extra: tuple[int, ...] = fields.wire(fields.TILES, default=())


@message(0x89, "CLEAR_ERRORS_REPLY")
class ClearErrorsReply(Reply):
    result: int = fields.wire(RESULT, default=Result.OK)
    cleared: tuple[int, ...] = fields.wire(fields.CODES, default=())
    remaining: tuple[int, ...] = fields.wire(fields.CODES, default=())


@message(0x8A, "DEALT_REPORT_REPLY")
class DealtReportReply(Reply):
    """The walls as built (each in draw order), the break, the hands, and the live
    wall left after the deal (from the break, in draw order; the dead wall at its
    end). ``result`` NOT_READY: no cycle has finished since power-on."""

    result: int = fields.wire(RESULT, default=Result.OK)
    cycle_no: int = fields.wire(fields.u32, default=0)
    mode: int = fields.wire(MODE, default=1)
    dealer: int = fields.wire(fields.u8, default=0)
    dice: tuple[int, int] = fields.wire(fields.Repeat(fields.u8, 2), default=(0, 0))
    break_wall: int = fields.wire(fields.u8, default=0)
    break_stack: int = fields.wire(fields.u8, default=0)
    dealt: bool = fields.wire(fields.Flag(), default=False)
    walls: tuple[tuple[int, ...], ...] = fields.wire(fields.Counted(fields.TILES), default=())
    hands: tuple[tuple[int, ...], ...] = fields.wire(fields.Repeat(fields.TILES, SEATS),
                                                     default=((), (), (), ()))
    live_wall: tuple[int, ...] = fields.wire(fields.TILES, default=())

    @property
    def all_tiles(self) -> tuple[int, ...]:
        return tuple(t for wall in self.walls for t in wall)


# ---- events -------------------------------------------------------------------

@message(0x41, "EV_CYCLE_STARTED")
class CycleStarted(Event):
    mode: int = fields.wire(MODE, default=1)
    cycle_no: int = fields.wire(fields.u32, default=0)
    duration_ms: int = fields.wire(fields.u32, default=0)


@message(0x42, "EV_CYCLE_FINISHED")
class CycleFinished(Event):
    """``result`` OK: walls are up. Otherwise the error that stopped the cycle."""

    result: int = fields.wire(RESULT, default=Result.OK)
    mode: int = fields.wire(MODE, default=1)
    cycle_no: int = fields.wire(fields.u32, default=0)
    tiles_counted: int = fields.wire(fields.u16, default=0)

    @property
    def ok(self) -> bool:
        return self.result == Result.OK


@message(0x43, "EV_DICE_ROLLED")
class DiceRolled(Event):
    seat: int = fields.wire(fields.u8, default=0)
    dice: tuple[int, int] = fields.wire(fields.Repeat(fields.u8, 2), default=(0, 0))


@message(0x44, "EV_ERROR_RAISED")
class ErrorRaised(Event):
    """``detail``: seat mask for POINT_STICKS_MISMATCH, tiles counted for
    TILE_COUNT_WRONG, 0 otherwise."""

    code: int = fields.wire(RESULT, default=Result.OK)
    detail: int = fields.wire(fields.u16, default=0)


@message(0x45, "EV_ERROR_CLEARED")
class ErrorCleared(Event):
    code: int = fields.wire(RESULT, default=Result.OK)


@message(0x46, "EV_LID_OPENED")
class LidOpened(Event):
    pass


@message(0x47, "EV_LID_CLOSED")
class LidClosed(Event):
    pass


@message(0x48, "EV_POINTS_CHANGED")
class PointsChanged(Event):
    seat: int = fields.wire(fields.SEAT, default=0)
    points: SeatPoints = fields.wire(fields.Struct(SeatPoints), default=SeatPoints())


@message(0x49, "EV_POWER_ON")
class PowerOn(Event):
    """Sent once the table has booted (after power-on or a power cut): the
    unsolicited HELLO. The host must re-run its HELLO handshake."""

    protocol_version: int = fields.wire(fields.u8, default=PROTOCOL_VERSION)
    model: str = fields.wire(fields.Text(), default="")
    firmware: str = fields.wire(fields.Text(), default="")
    capabilities: Capability = fields.wire(fields.Enum(Capability), default=Capability(0))
    boot_id: int = fields.wire(fields.u16, default=0)
    state: TableState = fields.wire(STATE, factory=TableState)


@message(0x4A, "EV_MODE_CHANGED")
class ModeChanged(Event):
    """The pending mode took effect (at the start of a cycle)."""

    old: int = fields.wire(MODE, default=1)
    new: int = fields.wire(MODE, default=1)


# ---- NAK ----------------------------------------------------------------------

@message(0x7F, "NAK")
class Nak(Message):
    """Link-level refusal of the frame with the same SEQ. Not a result: the
    command was NOT executed."""

    reason: NakReason = fields.wire(fields.Enum(NakReason), default=NakReason.BAD_CRC)
    cmd: int = fields.wire(fields.u8, default=0)

    @property
    def retryable(self) -> bool:
        return self.reason in (NakReason.BAD_CRC, NakReason.BUSY)


def message_from_frame(frame: Frame) -> Message:
    """The message a frame carries. Raises :class:`UnknownMessage` for an unknown
    type and :class:`PayloadError` for a malformed payload."""
    cls = MESSAGES.get(frame.cmd)
    if cls is None:
        raise UnknownMessage(f"unknown message type 0x{frame.cmd:02X}")
    try:
        return cls.decode(frame.payload)
    except PayloadError:
        raise
    except (ValueError, TypeError, struct.error, IndexError) as e:
        raise PayloadError(f"{cls.NAME}: {e}") from e
