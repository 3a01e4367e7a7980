"""The simulated table's number display as a camera would see it.

:func:`render` draws a two-digit seven-segment LED display on a table's panel and
photographs it: placed in a camera frame with a tilt and a perspective, lit by the
room (low light: a dim panel, a boosted and noisier sensor), with a reflection
(glare), out of focus (blur) and sensor noise. The display's own look (segment
thickness, the gap between the digits, the digit's width, the LED colour, the
faint shine of unlit segments, the 6/7/9 variants) is drawn from the seed, not from
the reader's layout, so the reader can disagree with it.

:class:`SimCamera` shows a :class:`hardware_sim.stock_table.StockTable`'s display
through :func:`render` and reads it with :func:`tablectl.camera.read_display`, as a
real camera on that table would. Everything is deterministic for a given seed.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from tablectl.camera import DisplayReading, read_display

_SEGMENTS = {
    "0": "abcdef", "1": "bc", "2": "abdeg", "3": "abcdg", "4": "bcfg", "5": "acdfg",
    "6": "acdefg", "7": "abc", "8": "abcdefg", "9": "abcdfg", "-": "g", " ": "",
}

TILT_LIMIT = 15.0


@dataclass(frozen=True)
class Conditions:
    """How the picture is taken (every field 0 / 1.0: a clean frame)."""

    noise: float = 0.0      # sensor noise, standard deviation in grey levels
    blur: float = 0.0       # out of focus, Gaussian sigma in frame pixels
    glare: float = 0.0      # a reflection's strength, 0..1 (above ~0.6 it washes out)
    tilt: float = 0.0       # degrees the camera is turned and tipped, -15..15
    light: float = 1.0      # the room's light, 0.1 (a dark corner) .. 1
    jitter: float = 0.0     # how far (frame pixels) staff's region is off each corner


@dataclass(frozen=True)
class Style:
    """One display model's look."""

    thickness: float = 0.12     # segment thickness / digit height
    gap: float = 0.25           # space between the digits / digit width
    aspect: float = 0.55        # digit width / digit height
    colour: tuple[int, int, int] = (40, 40, 235)    # lit segment, BGR
    ghost: float = 4.0          # grey levels an unlit segment shines above the panel
    six_tail: bool = True
    nine_tail: bool = True
    seven_f: bool = False
    scale: float = 70.0         # digit height in frame pixels

    @staticmethod
    def random(rng: random.Random) -> "Style":
        colours = [(40, 40, 235), (60, 230, 60), (230, 200, 60), (60, 160, 245),
                   (235, 235, 235)]
        return Style(thickness=rng.uniform(0.10, 0.15), gap=rng.uniform(0.15, 0.35),
                     aspect=rng.uniform(0.5, 0.6), colour=rng.choice(colours),
                     ghost=rng.uniform(0, 6), six_tail=rng.random() < 0.7,
                     nine_tail=rng.random() < 0.7, seven_f=rng.random() < 0.3,
                     scale=rng.uniform(55, 95))


def _segments(ch: str, style: Style) -> str:
    segs = _SEGMENTS.get(ch, "")
    if ch == "6" and not style.six_tail:
        segs = "cdefg"
    if ch == "9" and not style.nine_tail:
        segs = "abcfg"
    if ch == "7" and style.seven_f:
        segs = "abcf"
    return segs


def _panel(text: str, style: Style, light: float, lit: bool) -> tuple[np.ndarray, list]:
    """The display at 4x frame resolution, and the digits' box corners in it."""
    import cv2

    k = 4
    h = int(style.scale * k)
    w = int(h * style.aspect)
    gap = int(w * style.gap)
    t = max(2, int(h * style.thickness))
    pad = int(h * 0.35)
    pw, ph = 2 * w + gap + 2 * pad, h + 2 * pad
    panel_level = 18 + 40 * light
    img = np.full((ph, pw, 3), panel_level, dtype=np.float32)
    ghost = np.array([panel_level + style.ghost * light] * 3, dtype=np.float32)
    colour = np.array(style.colour, dtype=np.float32) * (0.35 + 0.65 * light)
    chars = (text + "  ")[:2]
    for i, ch in enumerate(chars):
        x0 = pad + i * (w + gap)
        y0 = pad
        x1, y1 = x0 + w, y0 + h
        ym = (y0 + y1) // 2
        rects = {
            "a": (x0 + t, y0, x1 - t, y0 + t), "d": (x0 + t, y1 - t, x1 - t, y1),
            "g": (x0 + t, ym - t // 2, x1 - t, ym + t - t // 2),
            "b": (x1 - t, y0 + t, x1, ym - t // 2), "c": (x1 - t, ym + t // 2, x1, y1 - t),
            "e": (x0, ym + t // 2, x0 + t, y1 - t), "f": (x0, y0 + t, x0 + t, ym - t // 2),
        }
        on = _segments(ch, style) if lit else ""
        for name, (a, b, c, d) in rects.items():
            fill = colour if name in on else ghost
            # segments are slightly bevelled at the ends, as on real displays
            inset = t // 3
            poly: list[tuple[float, float]]
            if name in "adg":
                poly = [(a, (b + d) / 2), (a + inset, b), (c - inset, b), (c, (b + d) / 2),
                        (c - inset, d), (a + inset, d)]
            else:
                poly = [((a + c) / 2, b), (c, b + inset), (c, d - inset), ((a + c) / 2, d),
                        (a, d - inset), (a, b + inset)]
            cv2.fillPoly(img, [np.array(poly, dtype=np.int32)], fill.tolist(),
                         lineType=cv2.LINE_AA)
    box = [(pad, pad), (pad + 2 * w + gap, pad), (pad + 2 * w + gap, pad + h), (pad, pad + h)]
    return img, box


def render(text: str, cond: Conditions = Conditions(), style: Style = Style(),
           seed: int = 0, size: tuple[int, int] = (320, 240), shot: int = 0
           ) -> tuple[np.ndarray, list[tuple[float, float]]]:
    """A camera frame (BGR uint8, ``size`` = width, height) of the display showing
    ``text`` (``"05"``; ``"--"`` while booting; ``""`` dark), and the region staff
    would have set: the digits' four corners, clockwise from the top left. ``seed``
    places the camera and the reflection; ``shot`` draws each picture's noise."""
    import cv2

    rng = np.random.default_rng([seed, shot])
    prng = random.Random(seed)
    lit = text != ""
    panel, box = _panel(text, style, cond.light, lit)
    ph, pw = panel.shape[:2]
    fw, fh = size
    table_level = 60 + 110 * cond.light
    frame = np.full((fh, fw, 3), table_level, dtype=np.float32)
    frame += rng.normal(0, 6 * cond.light, (fh, fw, 1)).astype(np.float32)   # the table top
    # where the panel's corners land: scaled down 4x, turned by the tilt, and tipped
    # (the far edge shorter) by the same angle
    tilt = max(-TILT_LIMIT, min(TILT_LIMIT, cond.tilt))
    a = math.radians(tilt)
    cx, cy = fw / 2 + prng.uniform(-10, 10), fh / 2 + prng.uniform(-8, 8)
    corners = np.array([[0, 0], [pw, 0], [pw, ph], [0, ph]], dtype=np.float32)
    tip = abs(math.sin(a)) * 0.5

    def place(p: np.ndarray) -> np.ndarray:
        x, y = (p[0] - pw / 2) / 4, (p[1] - ph / 2) / 4
        shrink = 1 - tip * (0.5 - p[1] / ph)       # the top edge further away
        x *= shrink
        return np.array([cx + x * math.cos(a) - y * math.sin(a),
                         cy + x * math.sin(a) + y * math.cos(a)], dtype=np.float32)

    dst = np.array([place(p) for p in corners], dtype=np.float32)
    m = cv2.getPerspectiveTransform(corners, dst)
    warped = cv2.warpPerspective(panel, m, (fw, fh), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.ones((ph, pw), np.float32), m, (fw, fh), flags=cv2.INTER_AREA)
    frame = frame * (1 - mask[..., None]) + warped * mask[..., None]
    region_arr = cv2.perspectiveTransform(np.array([box], dtype=np.float32), m)[0]
    if cond.glare > 0:
        gx = cx + prng.uniform(-0.6, 0.6) * style.scale
        gy = cy + prng.uniform(-0.4, 0.4) * style.scale
        r = style.scale * prng.uniform(0.3, 0.7)
        yy, xx = np.mgrid[0:fh, 0:fw].astype(np.float32)
        spot = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * r * r))
        frame = frame + (spot * cond.glare * 320)[..., None]
    if cond.blur > 0:
        frame = np.asarray(cv2.GaussianBlur(frame, (0, 0), cond.blur), dtype=np.float32)
    # the camera's gain rises in a dark room: its noise rises with it
    noise = cond.noise + (1 - cond.light) * 8
    if noise > 0:
        frame = frame + rng.normal(0, noise, frame.shape).astype(np.float32)
    out = np.clip(frame, 0, 255).astype(np.uint8)
    region = [(float(x) + prng.uniform(-cond.jitter, cond.jitter),
               float(y) + prng.uniform(-cond.jitter, cond.jitter)) for x, y in region_arr]
    return out, region


@dataclass
class SimCamera:
    """A camera on a simulated stock table: :meth:`read` renders what the table's
    display shows now and reads it like a real frame."""

    table: Any                                   # a hardware_sim.stock_table.StockTable
    conditions: Conditions = Conditions()
    style: Style = field(default_factory=Style)
    seed: int = 0
    region: list[tuple[float, float]] | None = None
    shots: int = 0

    def frame(self) -> np.ndarray:
        """The picture a camera takes now (each shot its own noise, from the seed)."""
        img, region = render(self.table.display(), self.conditions, self.style,
                             seed=self.seed, shot=self.shots)
        self.shots += 1
        if self.region is None:
            # staff set the region once on the first picture; later shots keep it
            self.region = region
        return img

    def default_region(self) -> list[tuple[float, float]]:
        """Where the digits are in this camera's pictures (the region staff would drag)."""
        _, region = render("88", replace(self.conditions, jitter=0), self.style,
                           seed=self.seed)
        return region

    def read(self) -> DisplayReading:
        img = self.frame()
        assert self.region is not None
        return read_display(img, self.region)


CONDITION_NAMES = ("clean", "noise", "blur", "glare", "tilt", "low_light", "mixed")
# beyond what the reader can see through: every read must say unsure (or be right)
HARD_CONDITION_NAMES = ("washout", "misplaced", "heavy")


def conditions(name: str, rng: random.Random) -> Conditions:
    """One draw of a named condition (the tests' and the benchmark's cases). Every
    condition has staff's region off by up to a pixel and a half."""
    jitter = 1.5
    if name == "clean":
        return Conditions(jitter=jitter)
    if name == "noise":
        return Conditions(noise=rng.uniform(5, 30), jitter=jitter)
    if name == "blur":
        return Conditions(blur=rng.uniform(0.5, 3.0), jitter=jitter)
    if name == "glare":
        return Conditions(glare=rng.uniform(0.1, 0.5), jitter=jitter)
    if name == "tilt":
        return Conditions(tilt=rng.choice((-1, 1)) * rng.uniform(5, TILT_LIMIT), jitter=jitter)
    if name == "low_light":
        return Conditions(light=rng.uniform(0.1, 0.4), jitter=jitter)
    if name == "mixed":
        return Conditions(noise=rng.uniform(0, 15), blur=rng.uniform(0, 1.5),
                          glare=rng.uniform(0, 0.5), tilt=rng.uniform(-TILT_LIMIT, TILT_LIMIT),
                          light=rng.uniform(0.2, 1.0), jitter=jitter)
    if name == "washout":           # a reflection that whitens the digits
        return Conditions(glare=rng.uniform(0.6, 1.2), jitter=jitter)
    if name == "misplaced":         # the camera was knocked: the region is off
        return Conditions(jitter=rng.uniform(4, 12))
    if name == "heavy":
        return Conditions(noise=rng.uniform(30, 60), blur=rng.uniform(2, 4),
                          light=rng.uniform(0.05, 0.3), glare=rng.uniform(0, 0.8),
                          tilt=rng.uniform(-TILT_LIMIT, TILT_LIMIT), jitter=3)
    known = ", ".join(CONDITION_NAMES + HARD_CONDITION_NAMES)
    raise ValueError(f"unknown condition {name!r}; known: {known}")
