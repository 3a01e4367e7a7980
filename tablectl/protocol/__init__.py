"""The JP-EX link protocol (docs/protocol.md): the ONE definition of every frame.

* :mod:`.frame`: frame layout, CRC, encoder and the resynchronising decoder;
* :mod:`.codes`: results and error codes, NAK reasons, cycle states, capabilities;
* :mod:`.fields`: the wire types and the one encoder/decoder of every message;
* :mod:`.messages`: every message declared by its fields, and their registry.

The daemon's ``jpex-link`` driver and the simulator (``hardware_sim``) both
use these names, imported from here.
"""

from .codes import (
                    NO_CMD,
                    NO_MODE,
                    PROTOCOL_VERSION,
                    Capability,
                    CycleState,
                    NakReason,
                    Result,
                    is_command,
                    is_event,
                    is_reply,
                    reply_type_for,
                    result_code,
)
from .frame import (
                    BAUD,
                    CRC_LEN,
                    FRAME_OVERHEAD,
                    HEADER_LEN,
                    INTER_BYTE_TIMEOUT_S,
                    MAX_FRAME,
                    MAX_PAYLOAD,
                    MAX_RETRIES,
                    REPLY_DEADLINE_S,
                    RETRANSMIT_TIMEOUT_S,
                    SOF,
                    STALE_AFTER_S,
                    Frame,
                    FrameDecoder,
                    crc16,
                    decode_frame,
                    encode_frame,
                    header_check,
                    retransmit_timeout,
                    wire_time,
)
from .messages import (
                    MESSAGES,
                    ClearErrors,
                    ClearErrorsReply,
                    Command,
                    CycleFinished,
                    CycleStarted,
                    Deal,
                    DealReply,
                    DealtReport,
                    DealtReportReply,
                    DiceRolled,
                    ErrorCleared,
                    ErrorRaised,
                    Event,
                    Hello,
                    HelloReply,
                    LidClosed,
                    LidOpened,
                    Message,
                    ModeChanged,
                    Nak,
                    PointsChanged,
                    PowerOn,
                    ReadPoints,
                    ReadPointsReply,
                    Reply,
                    RollDice,
                    RollDiceReply,
                    SeatPoints,
                    SelectMode,
                    SelectModeReply,
                    StartCycle,
                    StartCycleReply,
                    Status,
                    StatusReply,
                    TableState,
                    TileCheck,
                    TileCheckReply,
                    message_from_frame,
)

__all__ = [
    "SOF", "HEADER_LEN", "CRC_LEN", "FRAME_OVERHEAD", "MAX_PAYLOAD", "MAX_FRAME", "BAUD",
    "REPLY_DEADLINE_S", "RETRANSMIT_TIMEOUT_S", "MAX_RETRIES", "STALE_AFTER_S",
    "INTER_BYTE_TIMEOUT_S", "crc16", "header_check", "Frame", "encode_frame", "decode_frame",
    "FrameDecoder", "wire_time", "retransmit_timeout",
    "PROTOCOL_VERSION", "NO_MODE", "NO_CMD", "Result", "NakReason", "CycleState", "Capability",
    "result_code", "is_command", "is_reply", "is_event", "reply_type_for",
    "MESSAGES", "Message", "Command", "Reply", "Event", "SeatPoints", "TableState",
    "message_from_frame", "Hello", "HelloReply", "Status", "StatusReply", "SelectMode",
    "SelectModeReply", "StartCycle", "StartCycleReply", "RollDice", "RollDiceReply", "Deal",
    "DealReply", "ReadPoints", "ReadPointsReply", "TileCheck", "TileCheckReply", "ClearErrors",
    "ClearErrorsReply", "DealtReport", "DealtReportReply", "CycleStarted", "CycleFinished",
    "DiceRolled", "ErrorRaised", "ErrorCleared", "LidOpened", "LidClosed", "PointsChanged",
    "PowerOn", "ModeChanged", "Nak",
]
