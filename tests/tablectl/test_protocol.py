"""The wire protocol: CRC, frames, the hunting decoder, every message, modes, codes."""

from __future__ import annotations

import pytest

import lexicon
from tablectl import protocol
from tablectl.errors import PayloadError, ProtocolError, TableError, UnknownMessage, UnknownMode
from tablectl.modes import MODES, mode_by_name

# ---------------------------------------------------------------- CRC and frames


def test_crc16_ccitt_false_check_value():
    assert protocol.crc16(b"123456789") == 0x29B1
    assert protocol.crc16(b"") == 0xFFFF
    # incremental use continues the same register
    assert protocol.crc16(b"6789", protocol.crc16(b"12345")) == 0x29B1


def test_known_frames():
    """The documented test vectors (docs/protocol.md, section 2)."""
    assert protocol.encode_frame(protocol.Frame(1, 0x02, b"abc")).hex() == "a5000301025a61626368d9"
    status = protocol.encode_frame(protocol.Status().to_frame(7))
    assert status[:6] == bytes.fromhex("a5000007025f")
    crc = protocol.crc16(status[1:6])
    assert status[6:] == bytes((crc >> 8, crc & 0xFF))
    assert protocol.header_check(0x0102, 3, 4) == 0x5A ^ 0x01 ^ 0x02 ^ 3 ^ 4


def test_frame_validation():
    with pytest.raises(ProtocolError):
        protocol.Frame(256, 1, b"")
    with pytest.raises(ProtocolError):
        protocol.Frame(0, -1, b"")
    with pytest.raises(ProtocolError):
        protocol.Frame(0, 1, b"x" * (protocol.MAX_PAYLOAD + 1))
    assert protocol.Frame(0, 1, bytearray(b"ab")).payload == b"ab"
    assert isinstance(ProtocolError("x"), TableError)


def test_max_frame_round_trip():
    f = protocol.Frame(255, 0x8A, bytes(range(256)) * 4)
    wire = protocol.encode_frame(f)
    assert len(wire) == protocol.MAX_FRAME
    assert protocol.decode_frame(wire) == (len(wire), f)


def test_decode_frame_consumed_semantics():
    f = protocol.Frame(9, 0x03, b"\x04")
    wire = protocol.encode_frame(f)
    assert protocol.decode_frame(b"") == (0, None)
    assert protocol.decode_frame(wire[:3]) == (0, None)            # need more
    assert protocol.decode_frame(b"xyz" + wire[:3]) == (3, None)   # garbage dropped, need more
    assert protocol.decode_frame(b"xyz") == (3, None)              # all garbage
    assert protocol.decode_frame(b"xy" + wire + b"tail") == (2 + len(wire), f)
    assert protocol.decode_frame(memoryview(wire)) == (len(wire), f)


def test_decoder_hunts_past_bad_crc_to_next_frame():
    a = protocol.encode_frame(protocol.Frame(1, 0x02, b""))
    b = protocol.encode_frame(protocol.Frame(2, 0x02, b""))
    bad = bytearray(a)
    bad[-1] ^= 0xFF
    d = protocol.FrameDecoder(stale_after=None)
    got = d.feed(bytes(bad) + b)
    assert got == [protocol.Frame(2, 0x02, b"")]
    assert d.crc_errors == 1
    assert d.garbage_bytes == len(a)


def test_decoder_reports_bad_crc_header_for_nak():
    seen = []
    d = protocol.FrameDecoder(on_crc_error=lambda s, c: seen.append((s, c)), stale_after=None)
    wire = bytearray(protocol.encode_frame(protocol.SelectMode(3).to_frame(42)))
    wire[6] ^= 0x01                        # payload damaged, header intact
    assert d.feed(bytes(wire)) == []
    assert seen == [(42, protocol.SelectMode.CMD)]


def test_decoder_false_start_byte_in_garbage():
    f = protocol.Frame(5, 0x07, b"")
    noise = bytes([protocol.SOF, 0x00, 0x01, 0x00, 0x00, 0x00, protocol.SOF, protocol.SOF])
    d = protocol.FrameDecoder(stale_after=None)
    assert d.feed(noise + protocol.encode_frame(f)) == [f]


def test_decoder_stale_partial_frame_is_given_up():
    """A false start byte whose header checks must not hold a real frame back forever."""
    now = [0.0]
    d = protocol.FrameDecoder(stale_after=0.1, inter_byte=None, clock=lambda: now[0])
    n = 300
    # claims 300 bytes
    fake = bytes([protocol.SOF, n >> 8, n & 0xFF, 1, 2, protocol.header_check(n, 1, 2)])
    real = protocol.Frame(3, 0x82, b"state")
    assert d.feed(fake + protocol.encode_frame(real)) == []      # looks like the tail of the fake
    now[0] = 0.05
    assert d.poll() == []
    now[0] = 0.2
    assert d.poll() == [real]
    assert d.pending == 0


def test_inter_byte_timeout_drops_a_half_frame_on_a_quiet_line():
    """docs/protocol.md section 2: a partial frame whose newest byte is older than the
    inter-byte timeout is given up, with or without new bytes arriving."""
    now = [0.0]
    d = protocol.FrameDecoder(stale_after=None, inter_byte=0.05, clock=lambda: now[0])
    whole = protocol.encode_frame(protocol.Frame(9, 0x82, b"abcdef"))
    assert d.feed(whole[:7]) == [] and d.pending == 7      # power lost mid-frame
    now[0] = 0.04
    assert d.poll() == [] and d.pending == 7               # not yet quiet for long enough
    now[0] = 0.06
    assert d.poll() == [] and d.pending == 0               # quiet line: the half frame is gone
    assert d.garbage_bytes == 7
    # a half frame followed, after a gap, by a whole frame: the whole frame comes out at once
    real = protocol.Frame(4, 0x82, b"state")
    d.feed(whole[:5])
    now[0] = 1.0
    assert d.feed(protocol.encode_frame(real)) == [real] and d.pending == 0
    # bytes that keep coming (no gap) are one frame
    for i, b in enumerate(whole):
        now[0] = 2.0 + i * 0.01
        got = d.feed(bytes([b]))
    assert got == [protocol.Frame(9, 0x82, b"abcdef")]


def test_inter_byte_timeout_keeps_whole_frames_behind_a_false_start():
    now = [0.0]
    d = protocol.FrameDecoder(stale_after=None, inter_byte=0.05, clock=lambda: now[0])
    n = 300
    fake = bytes([protocol.SOF, n >> 8, n & 0xFF, 1, 2, protocol.header_check(n, 1, 2)])
    real = protocol.Frame(3, 0x82, b"state")
    assert d.feed(fake + protocol.encode_frame(real)) == []
    now[0] = 0.1
    assert d.poll() == [real] and d.pending == 0


def test_decoder_reset_and_counters():
    d = protocol.FrameDecoder(stale_after=None)
    d.feed(b"junk" + protocol.encode_frame(protocol.Frame(1, 2, b""))[:4])
    assert d.pending == 4 and d.garbage_bytes == 4
    d.reset()
    assert d.pending == 0
    assert d.counters()["garbage_bytes"] == 4
    d.reset_counters()
    assert d.counters() == {"frames": 0, "garbage_bytes": 0, "crc_errors": 0, "pending": 0}


def test_callback_exception_does_not_break_decoding():
    def boom(seq, cmd):
        raise RuntimeError("x")

    d = protocol.FrameDecoder(on_crc_error=boom, stale_after=None)
    bad = bytearray(protocol.encode_frame(protocol.Frame(1, 2, b"a")))
    bad[6] ^= 1
    ok = protocol.Frame(2, 2, b"")
    assert d.feed(bytes(bad) + protocol.encode_frame(ok)) == [ok]


def test_wire_time_and_retransmit_timeout():
    assert protocol.wire_time(11520) == pytest.approx(1.0)
    assert protocol.retransmit_timeout(10) == protocol.RETRANSMIT_TIMEOUT_S
    assert protocol.retransmit_timeout(1032, 1032, baud=9600) > 2.0


# ---------------------------------------------------------------- messages

STATE = protocol.TableState(
    mode=4, pending_mode=5, cycle=protocol.CycleState.DICE_ROLLED, lid_open=True, dice=(3, 6),
    dealer=2, cycle_no=77, cycle_remaining_ms=1234, errors=(1, 2),
    seats=(protocol.SeatPoints(True, 35000), protocol.SeatPoints(True, -1200),
           protocol.SeatPoints(True, 0),
           protocol.SeatPoints(False, 0)))

SAMPLES = [
    protocol.Hello(), protocol.Hello(7),
    protocol.HelloReply(protocol.Result.OK, 1, "AMOS JP-EX COLOR", "1.2.3",
                      protocol.Capability.AUTO_DEAL | protocol.Capability.IC_POINT_STICKS,
                      513, 200, 0x04, STATE),
    protocol.Status(), protocol.StatusReply(protocol.Result.OK, STATE),
    protocol.SelectMode(8), protocol.SelectMode(200),
    protocol.SelectModeReply(protocol.Result.POINT_STICKS_MISMATCH, 4, 1, None, 0b1000),
    protocol.SelectModeReply(protocol.Result.OK, 4, 1, 4, 0),
    protocol.StartCycle(), protocol.StartCycleReply(protocol.Result.OK, 2, 99, 70000),
    protocol.RollDice(3), protocol.RollDiceReply(protocol.Result.OK, 3, (6, 6)),
    protocol.Deal(), protocol.DealReply(protocol.Result.OK, 0, (1, 2), (14, 13, 13, 13)),
    protocol.DealReply(protocol.Result.WALLS_ONLY, 1, (2, 2), (0, 0, 0, 0)),
    protocol.ReadPoints(), protocol.ReadPointsReply(protocol.Result.OK, STATE.seats),
    protocol.TileCheck(), protocol.TileCheckReply(protocol.Result.TILE_COUNT_WRONG, 1, 136, 135,
                                                  (4,), ()),
    protocol.ClearErrors(), protocol.ClearErrorsReply(protocol.Result.OK, (3,), (2,)),
    protocol.DealtReport(),
    protocol.DealtReportReply(protocol.Result.OK, 5, 1, 0, (3, 4), 2, 7, True,
                       (tuple(range(34)),) * 4, (tuple(range(14)), (1,) * 13, (2,) * 13, (3,) * 13),
                       tuple(range(44))),
    protocol.CycleStarted(1, 2, 70000), protocol.CycleFinished(protocol.Result.MOTOR_JAM, 1, 2, 0),
    protocol.DiceRolled(1, (2, 5)), protocol.ErrorRaised(protocol.Result.POINT_STICKS_MISMATCH,
                                                         0b1000),
    protocol.ErrorCleared(protocol.Result.LID_OPEN), protocol.LidOpened(), protocol.LidClosed(),
    protocol.PointsChanged(2, protocol.SeatPoints(True, 31000)),
    protocol.PowerOn(1, "AMOS JP-EX COLOR", "1.0", protocol.Capability.IC_POINT_STICKS, 3, STATE),
    protocol.ModeChanged(1, 4), protocol.Nak(protocol.NakReason.BAD_CRC, 0x04),
]


@pytest.mark.parametrize("msg", SAMPLES, ids=lambda m: type(m).__name__)
def test_message_round_trip(msg):
    frame = msg.to_frame(123)
    assert frame.cmd == msg.CMD
    wire = protocol.encode_frame(frame)
    used, back = protocol.decode_frame(wire)
    assert used == len(wire)
    assert protocol.message_from_frame(back) == msg


def test_every_message_type_is_sampled_and_defaults_round_trip():
    assert {type(m) for m in SAMPLES} == set(protocol.MESSAGES.values())
    for cls in protocol.MESSAGES.values():
        m = cls()
        assert protocol.message_from_frame(m.to_frame(0)) == m


def test_type_ranges_and_reply_pairing():
    for cmd, cls in protocol.MESSAGES.items():
        if issubclass(cls, protocol.Command):
            assert protocol.is_command(cmd) and cls.REPLY.CMD == protocol.reply_type_for(cmd)
            assert issubclass(cls.REPLY, protocol.Reply)
        elif issubclass(cls, protocol.Reply):
            assert protocol.is_reply(cmd)
        elif issubclass(cls, protocol.Event):
            assert protocol.is_event(cmd)
        else:
            assert cls is protocol.Nak and cmd == 0x7F


def test_unknown_type_and_bad_payloads_raise_protocol_errors():
    with pytest.raises(UnknownMessage):
        protocol.message_from_frame(protocol.Frame(0, 0x3E, b""))
    bad = [
        protocol.Frame(0, protocol.Status.CMD, b"\x00"),               # trailing byte
        protocol.Frame(0, protocol.SelectMode.CMD, b""),               # too short
        protocol.Frame(0, protocol.RollDice.CMD, b"\x04"),             # seat out of range
        # mode byte out of range, short
        protocol.Frame(0, protocol.StatusReply.CMD, b"\x00\x09"),
        protocol.Frame(0, protocol.StatusReply.CMD, b"\xEE" + b"\x00" * 40),   # unknown result code
        protocol.Frame(0, protocol.Nak.CMD, b"\x09\x01"),              # unknown NAK reason
        protocol.Frame(0, protocol.HelloReply.CMD, b"\x00\x01\x02\xff\xfe"),   # text not UTF-8
    ]
    for f in bad:
        with pytest.raises(PayloadError):
            protocol.message_from_frame(f)


def test_reply_ok_and_retryable_naks():
    assert protocol.StatusReply().ok
    walls_only = protocol.DealReply(result=protocol.Result.WALLS_ONLY)
    assert walls_only.ok and walls_only.walls_only
    assert not protocol.StartCycleReply(result=protocol.Result.LID_OPEN).ok
    assert not protocol.StartCycleReply(result=0x3F).ok          # unknown code: not OK
    assert protocol.Nak(protocol.NakReason.BUSY).retryable
    assert not protocol.Nak(protocol.NakReason.BAD_PAYLOAD).retryable
    assert protocol.result_code(protocol.Result.MOTOR_JAM) == "motor_jam"
    assert protocol.result_code(0xEE) == "table_error_ee"


def test_every_result_code_and_nak_reason_has_words_in_both_languages():
    for code in protocol.Result:
        key = f"table.code.{protocol.result_code(code)}"
        assert lexicon.has(key), key
        ja, en = lexicon.t(key, "ja"), lexicon.t(key, "en")
        assert ja and en and ja != en
    for reason in protocol.NakReason:
        key = f"table.nak.{reason.name.lower()}"
        assert lexicon.has(key) and lexicon.t(key, "ja") != lexicon.t(key, "en")


def test_docs_list_every_result_code_and_message_type():
    import pathlib
    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    for code in protocol.Result:
        assert f"`0x{int(code):02X}` | {code.name}" in doc, code
        assert lexicon.t(f"table.code.{protocol.result_code(code)}", "ja") in doc, code
    for cls in protocol.MESSAGES.values():
        assert f"`0x{cls.CMD:02X}`" in doc, cls.NAME


# ---------------------------------------------------------------- modes


def test_modes_table_matches_the_settings_list():
    # 自動卓設定表 (AMOS JP-EX COLOR), shared/seeds/002
    expected = {0: ("チェックモード", 0), 1: ("四人標準", 136), 2: ("四人花", 140),
                3: ("四人花花", 144), 4: ("三人標準", 108), 5: ("3人花", 112),
                6: ("三人花花", 116), 7: ("100枚上がり", 100), 8: ("64枚上がり", 64)}
    assert [m.number for m in MODES] == list(range(9))
    for m in MODES:
        assert (m.words("ja"), m.tiles) == expected[m.number]
        assert m.players == len(m.seats)
        assert m.code == f"{m.number:02d}"


@pytest.mark.parametrize("text,number", [
    ("04", 4), ("4", 4), (4, 4), ("sanma", 4), ("SANMA", 4), (" yonma ", 1), ("check", 0),
    ("0", 0), ("00", 0), ("136", 1), ("140", 2), ("100", 7), ("64", 8), ("三人花", 5),
    ("sanma_hana", 5), ("3p", 4), ("08", 8), ("four-player-136", 1),
])
def test_mode_by_name(text, number):
    assert mode_by_name(text).number == number


@pytest.mark.parametrize("text", ["9", "09", "foo", "", "-1", 9, True, "4.0"])
def test_mode_by_name_refuses_with_the_list(text):
    with pytest.raises(UnknownMode) as e:
        mode_by_name(text)
    assert "sanma" in str(e.value) and "08" in str(e.value)
    assert isinstance(e.value, ValueError) and isinstance(e.value, TableError)


def test_mode_names_are_unambiguous():
    seen = {}
    for m in MODES:
        for n in (m.name, *m.aliases):
            assert n.casefold() not in seen, (n, seen.get(n.casefold()))
            seen[n.casefold()] = m.number


def test_docs_example_exchange_bytes():
    """The hex in docs/protocol.md section 7a is what the code sends."""
    import pathlib
    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()

    def hexs(msg, seq):
        return " ".join(f"{b:02X}" for b in protocol.encode_frame(msg.to_frame(seq)))

    for msg, seq in [(protocol.SelectMode(4), 0x10), (protocol.SelectModeReply(0, 4, 1, 4, 0),
                                                      0x10),
                     (protocol.SelectModeReply(5, 4, 1, None, 0b1000),
                      0x10), (protocol.StartCycle(), 0x11),
                     (protocol.StartCycleReply(0, 4, 1, 70000), 0x11), (protocol.ModeChanged(1, 4),
                                                                        0),
                     (protocol.CycleStarted(4, 1, 70000), 1), (protocol.Nak(1, 3), 0x12)]:
        assert hexs(msg, seq) in doc, msg


def test_every_message_is_declared_by_its_fields_with_one_shared_codec():
    """No message carries its own encode/decode: the fields say the layout."""
    import dataclasses

    assert len(protocol.MESSAGES) == 31
    for cls in protocol.MESSAGES.values():
        assert "encode" not in cls.__dict__ and "decode" not in cls.__dict__, cls.NAME
        assert all("wire" in f.metadata for f in dataclasses.fields(cls)), cls.NAME
        assert cls.decode(cls().encode()) == cls()
    for cmd in (c for c in protocol.MESSAGES.values() if issubclass(c, protocol.Command)):
        assert cmd.REPLY.CMD == cmd.CMD | 0x80
