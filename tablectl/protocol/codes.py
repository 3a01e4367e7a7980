"""The numbers the JP-EX link protocol gives names to: results and error codes,
NAK reasons, cycle states, capability bits, and the protocol's constants.

Their words for staff are in the catalogue (``table.result.*``,
``table.nak.*``, ``table.cycle_state.*``), never here: see
:mod:`tablectl.words`.
"""

from __future__ import annotations

import enum

PROTOCOL_VERSION = 1
NO_MODE = 0xFF     # "no pending mode" on the wire
NO_CMD = 0x00      # "no command remembered" on the wire


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
    BAD_SEAT = 0x0A     # a seat that does not play in this mode
    WALLS_ONLY = 0x20   # informational: DEAL on a table without auto-deal

    @property
    def is_error(self) -> bool:
        return self not in (Result.OK, Result.WALLS_ONLY)


def result_code(code: int) -> str:
    """A result's code name for stores and words (``motor_jam``; unknown: ``table_error_3f``)."""
    try:
        return Result(code).name.lower()
    except ValueError:
        return f"table_error_{code:02x}"


class NakReason(enum.IntEnum):
    """Why the table refused a frame at the link level (NAK)."""

    BAD_CRC = 0x01          # header checked, CRC did not: retransmit now
    UNKNOWN_COMMAND = 0x02  # do not retry
    BAD_PAYLOAD = 0x03      # do not retry
    BUSY = 0x04             # table cannot take commands yet (booting): retry after a pause


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


def is_command(cmd: int) -> bool:
    return 0x01 <= cmd <= 0x3F


def is_reply(cmd: int) -> bool:
    return 0x81 <= cmd <= 0xBF


def is_event(cmd: int) -> bool:
    return 0x41 <= cmd <= 0x4F


def reply_type_for(cmd: int) -> int:
    return cmd | 0x80
