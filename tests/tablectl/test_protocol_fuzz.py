"""Hypothesis fuzzing of the frame decoder.

* random bytes, fed whole, in halves and byte by byte: no exception escapes;
* mutated valid frames (bit flips, truncation, insertion, deletion): a
  mutated frame decodes to the original or to nothing -- a corrupted frame
  is never accepted;
* every valid frame gives the same result whole, in halves and byte by byte,
  with garbage before and after skipped;
* the message layer never raises anything but ProtocolError subclasses.

The decoders here have both time rules off, so decoding is a pure function of the
bytes. With the inter-byte timeout on, a byte-by-byte feed that a busy machine
paused for longer than the timeout would rightly drop its half frame
(tests/tablectl/test_protocol.py tests the time rules with a clock of its own).
"""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tablectl import protocol
from tablectl.errors import ProtocolError

FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

frames = st.builds(
    protocol.Frame,
    seq=st.integers(0, 255),
    cmd=st.integers(0, 255),
    payload=st.binary(max_size=80) | st.binary(min_size=200, max_size=protocol.MAX_PAYLOAD),
)


def feed_whole(data: bytes) -> list[protocol.Frame]:
    return protocol.FrameDecoder(stale_after=None, inter_byte=None).feed(data)


def feed_halves(data: bytes, cut: int | None = None) -> list[protocol.Frame]:
    d = protocol.FrameDecoder(stale_after=None, inter_byte=None)
    k = len(data) // 2 if cut is None else cut
    return d.feed(data[:k]) + d.feed(data[k:])


def feed_bytes(data: bytes) -> list[protocol.Frame]:
    d = protocol.FrameDecoder(stale_after=None, inter_byte=None)
    out: list[protocol.Frame] = []
    for i in range(len(data)):
        out += d.feed(data[i:i + 1])
    return out


def decode_loop(data: bytes) -> list[protocol.Frame]:
    """The stateless API used the pymodbus way."""
    out, buf = [], data
    while True:
        used, f = protocol.decode_frame(buf)
        if used == 0:
            return out
        if f is not None:
            out.append(f)
        buf = buf[used:]


ALL_WAYS = (feed_whole, feed_halves, feed_bytes, decode_loop)


@FUZZ
@given(st.binary(max_size=600))
def test_random_bytes_never_raise(data):
    results = [way(data) for way in ALL_WAYS]
    # the decoder is a pure function of the bytes: every way of feeding agrees
    assert all(r == results[0] for r in results)
    for f in results[0]:
        wire = protocol.encode_frame(f)
        assert wire in data          # only a frame that is really there, intact


@FUZZ
@given(frames, st.binary(max_size=40).filter(lambda b: protocol.SOF not in b),
       st.binary(max_size=40), st.integers(0, 10_000))
def test_valid_frame_every_way_with_garbage_around(frame, before, after, cut):
    wire = protocol.encode_frame(frame)
    data = before + wire + after
    assert feed_whole(wire) == [frame]
    assert feed_halves(wire) == [frame]
    assert feed_bytes(wire) == [frame]
    assert decode_loop(wire) == [frame]
    for way in ALL_WAYS:
        got = way(data)
        assert got[:1] == [frame], way.__name__
    assert feed_halves(data, cut % (len(data) + 1))[:1] == [frame]


@FUZZ
@given(st.lists(frames, min_size=1, max_size=5), st.data())
def test_stream_of_frames_split_anywhere(fs, data):
    wire = b"".join(protocol.encode_frame(f) for f in fs)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(wire)), max_size=6)))
    d = protocol.FrameDecoder(stale_after=None, inter_byte=None)
    got, last = [], 0
    for c in cuts + [len(wire)]:
        got += d.feed(wire[last:c])
        last = c
    assert got == fs
    assert d.garbage_bytes == 0 and d.crc_errors == 0 and d.pending == 0


def _mutations(wire: bytes):
    n = len(wire)
    bit_flips = st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, 7)),
                         min_size=1, max_size=4, unique=True).map(lambda fl: ("flip", fl))
    truncate = st.integers(0, n - 1).map(lambda k: ("truncate", k))
    insert = st.tuples(st.integers(0, n), st.binary(min_size=1, max_size=8)).map(
        lambda t: ("insert", t))
    delete = st.tuples(st.integers(0, n - 1), st.integers(1, 8)).map(lambda t: ("delete", t))
    return st.one_of(bit_flips, truncate, insert, delete)


def _apply(wire: bytes, mutation) -> bytes:
    kind, arg = mutation
    b = bytearray(wire)
    if kind == "flip":
        for i, bit in arg:
            b[i] ^= 1 << bit
    elif kind == "truncate":
        del b[arg:]
    elif kind == "insert":
        i, extra = arg
        b[i:i] = extra
    else:
        i, k = arg
        del b[i:i + k]
    return bytes(b)


@FUZZ
@given(frames, st.data())
def test_mutated_frame_decodes_to_original_or_nothing(frame, data):
    wire = protocol.encode_frame(frame)
    mutation = data.draw(_mutations(wire))
    bad = _apply(wire, mutation)
    assume(bad != wire)
    for way in ALL_WAYS:
        got = way(bad)
        # never a corrupted frame: either nothing, or the original (e.g. bytes
        # inserted before the start byte, or after the CRC)
        assert got in ([], [frame]), (way.__name__, mutation, got)


@FUZZ
@given(frames, st.data())
def test_mutated_frame_then_good_frame_recovers(frame, data):
    """After any damage the next intact frame is found (resynchronisation)."""
    wire = protocol.encode_frame(frame)
    bad = _apply(wire, data.draw(_mutations(wire)))
    good = protocol.Frame((frame.seq + 1) % 256, 0x02, b"")
    tail = protocol.encode_frame(good)
    # a damaged LEN can make the decoder wait for bytes that never come: the
    # stale-frame rule (time based) resolves that; without time, extra bytes
    # of padding after the good frame do (any bytes at all)
    pad = bytes(protocol.MAX_FRAME)
    got = feed_whole(bad + tail + pad)
    assert all(f in (frame, good) for f in got)
    if protocol.encode_frame(frame) not in bad + tail:
        assert good in got
    # else: the damage was undone by the bytes that followed (e.g. a frame cut
    # one byte short whose missing CRC byte happened to be 0xA5, the good
    # frame's start byte): the original frame is rightly accepted, intact, and
    # the good frame it overlaps is lost -- the host's retransmission covers it


@FUZZ
@given(st.integers(0, 255), st.integers(0, 255), st.binary(max_size=300))
def test_message_layer_raises_only_protocol_errors(seq, cmd, payload):
    try:
        msg = protocol.message_from_frame(protocol.Frame(seq, cmd, payload))
    except ProtocolError:
        return
    # anything that decodes re-encodes to the same payload
    assert msg.encode() == payload
