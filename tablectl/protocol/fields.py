"""Wire types of message fields, and the one encoder and decoder of every message.

A message or structure is a frozen dataclass whose fields are declared with
:func:`wire` and a wire type (``u8``, ``TILES``, ``Struct(SeatPoints)`` ...),
in wire order. :func:`encode` and :func:`decode` walk those declarations, so
no message has its own encode/decode code (as pymodbus's PDU classes share one
base). Decoding refuses a short payload, trailing bytes and out-of-range
values with :class:`~tablectl.errors.PayloadError`; encoding refuses values
that do not fit with :class:`~tablectl.errors.ProtocolError`.
"""

from __future__ import annotations

import dataclasses
import struct
from typing import Any, Callable, TypeVar

from ..errors import PayloadError, ProtocolError
from ..modes import MODES, SEATS
from .codes import NO_MODE

_T = TypeVar("_T")


class Reader:
    """A cursor over one payload; errors name the message being read."""

    __slots__ = ("p", "i", "name")

    def __init__(self, payload: bytes, name: str):
        self.p, self.i, self.name = payload, 0, name

    def take(self, n: int) -> bytes:
        if self.i + n > len(self.p):
            raise PayloadError(f"{self.name}: payload too short ({len(self.p)} bytes)")
        out = self.p[self.i:self.i + n]
        self.i += n
        return out

    def end(self) -> None:
        if self.i != len(self.p):
            raise PayloadError(f"{self.name}: {len(self.p) - self.i} unexpected trailing bytes")


class Kind:
    """A wire type: how one field's value becomes bytes and back."""

    def put(self, out: bytearray, value: Any) -> None:
        raise NotImplementedError

    def get(self, r: Reader) -> Any:
        raise NotImplementedError


class Int(Kind):
    def __init__(self, fmt: str, check: Callable[[int], str | None] | None = None):
        self.s = struct.Struct(fmt)
        self.check = check

    def put(self, out: bytearray, value: Any) -> None:
        try:
            out += self.s.pack(int(value))
        except struct.error:
            raise ProtocolError(f"value {value} does not fit {self.s.format}") from None

    def get(self, r: Reader) -> Any:
        v = self.s.unpack(r.take(self.s.size))[0]
        if self.check is not None:
            why = self.check(v)
            if why:
                raise PayloadError(f"{r.name}: {why}")
        return v


u8, u16, u32, i32 = Int(">B"), Int(">H"), Int(">I"), Int(">i")
SEAT = Int(">B", lambda v: f"seat {v} out of range 0..3" if v >= SEATS else None)


class Flag(Kind):
    def put(self, out: bytearray, value: Any) -> None:
        out.append(1 if value else 0)

    def get(self, r: Reader) -> Any:
        v = r.take(1)[0]
        if v > 1:
            raise PayloadError(f"{r.name}: flag byte {v} is not 0 or 1")
        return bool(v)


class Text(Kind):
    """``u8`` length + UTF-8 bytes."""

    def put(self, out: bytearray, value: Any) -> None:
        raw = str(value).encode("utf-8")
        if len(raw) > 255:
            raise ProtocolError(f"text of {len(raw)} bytes does not fit (255 at most)")
        out.append(len(raw))
        out += raw

    def get(self, r: Reader) -> Any:
        try:
            return r.take(r.take(1)[0]).decode("utf-8")
        except UnicodeDecodeError:
            raise PayloadError(f"{r.name}: text is not UTF-8") from None


class ByteList(Kind):
    """A count (``u8`` or ``u16``) then one byte each: tile lists, error-code lists."""

    def __init__(self, count: Int):
        self.count = count

    def put(self, out: bytearray, value: Any) -> None:
        raw = bytes(value)
        self.count.put(out, len(raw))
        out += raw

    def get(self, r: Reader) -> Any:
        return tuple(r.take(self.count.get(r)))


class Repeat(Kind):
    """A fixed number of the same kind (four seats, two dice)."""

    def __init__(self, kind: Kind, n: int):
        self.kind, self.n = kind, n

    def put(self, out: bytearray, value: Any) -> None:
        if len(value) != self.n:
            raise ProtocolError(f"{self.n} values expected, got {len(value)}")
        for v in value:
            self.kind.put(out, v)

    def get(self, r: Reader) -> Any:
        return tuple(self.kind.get(r) for _ in range(self.n))


class Counted(Kind):
    """A ``u8`` count, then that many of the same kind (the walls of a mode)."""

    def __init__(self, kind: Kind):
        self.kind = kind

    def put(self, out: bytearray, value: Any) -> None:
        u8.put(out, len(value))
        for v in value:
            self.kind.put(out, v)

    def get(self, r: Reader) -> Any:
        return tuple(self.kind.get(r) for _ in range(u8.get(r)))


class Enum(Kind):
    """A ``u8`` that must be a member of ``cls``."""

    def __init__(self, cls: Any) -> None:
        self.cls = cls

    def put(self, out: bytearray, value: Any) -> None:
        u8.put(out, int(value))

    def get(self, r: Reader) -> Any:
        v = u8.get(r)
        try:
            return self.cls(v)
        except ValueError:
            raise PayloadError(f"{r.name}: {v} is not a valid {self.cls.__name__}") from None


class ModeByte(Kind):
    """A mode 0..8; with ``optional``, ``None`` travels as 0xFF."""

    def __init__(self, optional: bool = False):
        self.optional = optional

    def put(self, out: bytearray, value: Any) -> None:
        u8.put(out, NO_MODE if value is None and self.optional else value)

    def get(self, r: Reader) -> Any:
        v = u8.get(r)
        if self.optional and v == NO_MODE:
            return None
        if v >= len(MODES):
            raise PayloadError(f"{r.name}: mode byte {v} is out of range")
        return v


class Dice(Kind):
    """Two dice 1..6, or ``None`` (sent as 0 0: not rolled)."""

    def put(self, out: bytearray, value: Any) -> None:
        out += bytes(value) if value else b"\x00\x00"

    def get(self, r: Reader) -> Any:
        d1, d2 = r.take(2)
        if (d1 == 0) != (d2 == 0) or d1 > 6 or d2 > 6:
            raise PayloadError(f"{r.name}: dice {d1},{d2} are not valid")
        return (d1, d2) if d1 else None


class Struct(Kind):
    """A nested structure declared with :func:`wire` fields (SeatPoints, TableState)."""

    def __init__(self, cls: Any) -> None:
        self.cls = cls

    def put(self, out: bytearray, value: Any) -> None:
        put_fields(out, value)

    def get(self, r: Reader) -> Any:
        return get_fields(self.cls, r)


TILES = ByteList(u16)
CODES = ByteList(u16)


def wire(kind: Kind, default: Any = dataclasses.MISSING, *,
         factory: Any = dataclasses.MISSING) -> Any:
    """Declare a dataclass field that goes on the wire as ``kind``."""
    return dataclasses.field(default=default, default_factory=factory, metadata={"wire": kind})


def layout(cls: Any) -> tuple[tuple[str, Kind], ...]:
    """``(name, kind)`` of every wire field of a declared class, in wire order."""
    found: tuple[tuple[str, Kind], ...] | None = cls.__dict__.get("_layout")
    if found is None:
        found = tuple((f.name, f.metadata["wire"]) for f in dataclasses.fields(cls)
                      if "wire" in f.metadata)
        cls._layout = found
    return found


def put_fields(out: bytearray, obj: object) -> None:
    for name, kind in layout(type(obj)):
        kind.put(out, getattr(obj, name))


def get_fields(cls: type[_T], r: Reader) -> _T:
    return cls(**{name: kind.get(r) for name, kind in layout(cls)})


def encode(obj: object) -> bytes:
    """The payload of a declared message."""
    out = bytearray()
    put_fields(out, obj)
    return bytes(out)


def decode(cls: type[_T], payload: bytes, name: str) -> _T:
    """A declared message from its whole payload (no bytes may be left over)."""
    r = Reader(payload, name)
    obj = get_fields(cls, r)
    r.end()
    return obj
