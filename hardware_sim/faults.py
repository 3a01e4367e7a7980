"""Byte-level link faults: dropped, corrupted, delayed and duplicated bytes.

A :class:`LinkFaults` sits between the simulated table and its transport and
applies to bytes going *to* the table (``rx``: host -> table) and/or *from*
it (``tx``: table -> host), as chosen by ``direction``.

Two kinds of fault:

* rates, applied to every byte: ``drop``, ``corrupt`` (one random bit of
  the byte flipped), ``duplicate`` (the byte sent twice) -- probabilities
  0..1 -- and ``delay`` (seconds added to every chunk; order is kept, as on
  a real line);
* one-shots, applied to the next *chunk* (on ``tx`` a chunk is exactly one
  frame, so "drop the next reply" is ``once("drop", "tx")``; on ``rx`` a chunk
  is whatever the transport delivered, usually one command frame):
  ``once(kind, direction, count=1, delay=...)`` with kind ``drop``,
  ``corrupt`` (one bit flipped in a payload or CRC byte, so the header still
  checks and the table NAKs it), ``duplicate`` (the chunk sent twice) or
  ``delay``.

The random generator is seedable (``seed``) so a failing run can be replayed.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field

DIRECTIONS = ("rx", "tx", "both")
KINDS = ("drop", "corrupt", "duplicate", "delay")
WHATS = ("any", "reply", "event")


@dataclass
class _Shot:
    kind: str
    direction: str
    count: int
    delay: float = 0.0
    what: str = "any"


@dataclass
class LinkFaults:
    drop: float = 0.0
    corrupt: float = 0.0
    duplicate: float = 0.0
    delay: float = 0.0
    direction: str = "both"
    seed: int | None = None
    _shots: list = field(default_factory=list, repr=False)

    def __post_init__(self):
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, not {self.direction!r}")
        for name in ("drop", "corrupt", "duplicate"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{name} is a probability 0..1, not {v}")
        if self.delay < 0:
            raise ValueError("delay cannot be negative")
        self.rng = random.Random(self.seed)
        self._lock = threading.Lock()
        self.stats = {"dropped": 0, "corrupted": 0, "duplicated": 0, "delayed": 0}

    # ------------------------------------------------------------------ control

    def set(self, **rates) -> None:
        """Change rates at run time: ``set(drop=0.01, direction="rx")``."""
        with self._lock:
            for k, v in rates.items():
                if k not in ("drop", "corrupt", "duplicate", "delay", "direction"):
                    raise ValueError(f"unknown link fault {k!r}")
                setattr(self, k, v)

    def clear(self) -> None:
        """No more faults (rates to zero, pending one-shots dropped)."""
        with self._lock:
            self.drop = self.corrupt = self.duplicate = self.delay = 0.0
            self._shots.clear()

    def once(self, kind: str, direction: str = "tx", count: int = 1, delay: float = 0.0,
             what: str = "any") -> None:
        """Apply ``kind`` to the next ``count`` chunks going ``direction``.

        ``what`` (``tx`` only) picks which frames count: ``any``, ``reply``
        (replies and NAKs) or ``event``."""
        if kind not in KINDS:
            raise ValueError(f"fault kind must be one of {KINDS}, not {kind!r}")
        if direction not in ("rx", "tx"):
            raise ValueError("a one-shot fault goes one way: 'rx' or 'tx'")
        if what not in WHATS:
            raise ValueError(f"what must be one of {WHATS}, not {what!r}")
        with self._lock:
            self._shots.append(_Shot(kind, direction, count, delay, what))

    @property
    def active(self) -> bool:
        return bool(self.drop or self.corrupt or self.duplicate or self.delay or self._shots)

    # ------------------------------------------------------------------ apply

    def _applies(self, direction: str) -> bool:
        return self.direction == "both" or self.direction == direction

    def apply(self, data: bytes, direction: str, what: str = "any") -> tuple[bytes, float]:
        """Faulted bytes and the delay before they go out (``what``: the kind
        of frame ``data`` is, on ``tx``)."""
        with self._lock:
            delay = 0.0
            for shot in self._shots:
                if (shot.direction == direction and shot.count > 0
                        and shot.what in ("any", what)):
                    shot.count -= 1
                    data, delay = self._shot(shot, data)
                    break
            self._shots = [s for s in self._shots if s.count > 0]
            if not self._applies(direction):
                return data, delay
            if self.drop or self.corrupt or self.duplicate:
                out = bytearray()
                r = self.rng.random
                for b in data:
                    if self.drop and r() < self.drop:
                        self.stats["dropped"] += 1
                        continue
                    if self.corrupt and r() < self.corrupt:
                        b ^= 1 << self.rng.randrange(8)
                        self.stats["corrupted"] += 1
                    out.append(b)
                    if self.duplicate and r() < self.duplicate:
                        out.append(b)
                        self.stats["duplicated"] += 1
                data = bytes(out)
            if self.delay:
                self.stats["delayed"] += 1
                delay += self.delay
            return data, delay

    def _shot(self, shot: _Shot, data: bytes) -> tuple[bytes, float]:
        if shot.kind == "drop":
            self.stats["dropped"] += len(data)
            return b"", 0.0
        if shot.kind == "duplicate":
            self.stats["duplicated"] += len(data)
            return data + data, 0.0
        if shot.kind == "delay":
            self.stats["delayed"] += 1
            return data, shot.delay
        # corrupt: flip one bit after the 6-byte header when there is one, so the
        # receiver sees a frame whose header checks but whose CRC does not
        if not data:
            return data, 0.0
        lo = 6 if len(data) > 6 else 0
        i = self.rng.randrange(lo, len(data))
        buf = bytearray(data)
        buf[i] ^= 1 << self.rng.randrange(8)
        self.stats["corrupted"] += 1
        return bytes(buf), 0.0
