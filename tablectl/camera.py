"""Reading a table's two-digit seven-segment display from a camera picture.

A stock table shows its game number nowhere but on its own display, so a cheap USB
camera pointed at it is the box's only way to see what the table did. Staff set the
display's region once per table: the four corners of the box around both digits, in
the picture's pixels, clockwise from the top left (``camera_region`` in club.toml, or
dragged on the console's camera page).

:func:`read_display` is pure (a picture in, a :class:`DisplayReading` out):

1. the region is warped to an upright picture of a fixed size (this undoes the
   camera's tilt and perspective), with a margin of the surroundings;
2. the brightest colour channel is taken (an LED display of any colour) and a
   morphological top-hat subtracts the slowly varying background: glare and uneven
   light, which are wider than a segment, drop out;
3. the centre of each of the 14 segments is sampled and scaled between the dark
   level of the digits' inner holes and the brightest segment;
4. each segment is on (above 0.6), off (below 0.35, with nothing above 0.6 in a
   quarter of it or a little further across) or *ambiguous*; the 7-bit pattern of
   each digit is looked up.

A reading is ``certain`` only when every segment is clearly on or off, both
patterns are digits, the holes between the segments are dark, the contrast is
high and no segment sits in a saturated (washed out) patch. Anything else is an
unsure read (``certain=False``), never a guess passed off as fact. A display whose
brightest segment is no brighter than its background is ``dark``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, Sequence

from .errors import TableError
from .settings import CameraSettings, ConfigError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Image = NDArray[np.uint8]
else:
    Image = Any

Point = tuple[float, float]
Region = tuple[Point, Point, Point, Point]


@dataclass(frozen=True)
class DisplayReading:
    """What the camera saw on the table's display. ``number`` with ``certain`` False is
    the reader's best guess, shown to staff, never acted on; ``dark`` with ``certain``
    False: it looks dark, but the picture is too poor to swear no segment is lit."""

    number: int | None      # the two-digit number shown (0..99), None when unreadable
    certain: bool           # False = an unsure read; never act on it as fact
    dark: bool              # the display shows nothing (no power / blank)


class DisplayCamera(Protocol):
    """A camera on one table's display (:class:`V4L2Camera`, :class:`FileCamera`, the
    simulator's ``SimCamera``); ``read`` raises :class:`CameraError` without a picture."""

    def read(self) -> DisplayReading: ...


class CameraError(TableError):
    """The camera cannot be opened or gives no picture; the words say what to check."""

    code = "camera_error"


# Segments a..g (a top, b top right, c bottom right, d bottom, e bottom left,
# f top left, g middle) of each digit; every common variant of 6, 7 and 9.
_DIGITS: dict[str, int] = {
    "abcdef": 0, "bc": 1, "abdeg": 2, "abcdg": 3, "bcfg": 4, "acdfg": 5,
    "acdefg": 6, "cdefg": 6, "abc": 7, "abcf": 7, "abcdefg": 8, "abcdfg": 9, "abcfg": 9,
}
_SEGMENTS = "abcdefg"

# The upright picture the region is warped to: two digits of DIGIT_W x H with a gap,
# and a margin of the surroundings on every side.
_H = 120
_DIGIT_W = 66
_GAP = 16
_W = 2 * _DIGIT_W + _GAP
_MARGIN = 20
_T = 14                         # a segment's nominal thickness

ON, OFF = 0.6, 0.35             # scaled segment levels: above = on, below = off
DARK_CONTRAST = 10.0            # brightest segment over the holes, 0..255: below = dark
MIN_CONTRAST = 24.0             # below this a reading is unsure
_SLIDE = range(-6, 7, 2)        # pixels a sample box moves across its segment
_SEARCH = range(-12, 13, 2)     # how far across an "off" segment must be dark


def _boxes(digit: int) -> dict[str, tuple[int, int, int, int]]:
    """Sample boxes (x0, y0, x1, y1) in the upright picture: each segment's middle."""
    x0 = _MARGIN + digit * (_DIGIT_W + _GAP)
    x1 = x0 + _DIGIT_W
    y0, y1 = _MARGIN, _MARGIN + _H
    ym = (y0 + y1) // 2
    half = _T // 2
    qx = _DIGIT_W // 4
    qy = _H // 8
    hs = max(2, _T // 3)            # half the thickness sampled
    cx = (x0 + x1) // 2
    left, right = x0 + half, x1 - half
    top, bottom = y0 + half, y1 - half
    upper, lower = (y0 + ym) // 2, (ym + y1) // 2
    return {
        "a": (cx - qx, top - hs, cx + qx, top + hs),
        "b": (right - hs, upper - qy, right + hs, upper + qy),
        "c": (right - hs, lower - qy, right + hs, lower + qy),
        "d": (cx - qx, bottom - hs, cx + qx, bottom + hs),
        "e": (left - hs, lower - qy, left + hs, lower + qy),
        "f": (left - hs, upper - qy, left + hs, upper + qy),
        "g": (cx - qx, ym - hs, cx + qx, ym + hs),
        # the two holes inside the digit: dark whatever the digit shows
        "hole_up": (cx - qx // 2, upper - qy // 2, cx + qx // 2, upper + qy // 2),
        "hole_down": (cx - qx // 2, lower - qy // 2, cx + qx // 2, lower + qy // 2),
    }


def _outside() -> list[tuple[int, int, int, int]]:
    """Strips just outside the digits and in the gap between them: dark on any display.
    A segment seen there means the region is off (the camera was knocked)."""
    near, far = 6, 14
    x0, x1 = _MARGIN, _MARGIN + _W
    y0, y1 = _MARGIN, _MARGIN + _H
    gx = _MARGIN + _DIGIT_W + _GAP // 2
    return [(x0 - far, y0, x0 - near, y1), (x1 + near, y0, x1 + far, y1),
            (x0, y0 - far, x1, y0 - near), (x0, y1 + near, x1, y1 + far),
            (gx - 2, y0 + _T, gx + 2, y1 - _T)]


def check_region(region: Sequence[Sequence[float]]) -> Region:
    """Four corners as floats, or ValueError with the reason (too few, crossed, tiny)."""
    pts = [tuple(float(v) for v in p) for p in region]
    if len(pts) != 4 or any(len(p) != 2 for p in pts):
        raise ValueError("four corners [x, y] are needed")
    area = 0.0
    for i in range(4):
        (x1, y1), (x2, y2) = pts[i], pts[(i + 1) % 4]
        area += x1 * y2 - x2 * y1
    if area / 2 < 100:
        raise ValueError("the corners must go clockwise from the top left and enclose "
                         "at least 100 square pixels")
    for i in range(4):          # convex: every turn the same way
        (ax, ay), (bx, by), (cx, cy) = pts[i], pts[(i + 1) % 4], pts[(i + 2) % 4]
        if (bx - ax) * (cy - by) - (by - ay) * (cx - bx) <= 0:
            raise ValueError("the corners must form a convex box, clockwise from the top left")
    return (pts[0], pts[1], pts[2], pts[3])  # type: ignore[return-value]


def _upright(image: Image, region: Region) -> Image:
    import cv2
    import numpy as np

    src = np.array(region, dtype=np.float32)
    dst = np.array([[_MARGIN, _MARGIN], [_MARGIN + _W, _MARGIN],
                    [_MARGIN + _W, _MARGIN + _H], [_MARGIN, _MARGIN + _H]], dtype=np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    size = (_W + 2 * _MARGIN, _H + 2 * _MARGIN)
    grey = image.max(axis=2) if image.ndim == 3 else image  # the LED's own channel
    out = cv2.warpPerspective(grey, m, size, flags=cv2.INTER_AREA,
                              borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, dtype=np.uint8)


def read_display(image: Image, region: Sequence[Sequence[float]]) -> DisplayReading:
    """Read the two digits inside ``region`` (four corners, clockwise from the top left)
    of ``image`` (grey or BGR, uint8). Never raises for a poor picture: it says unsure."""
    import cv2
    import numpy as np

    up = _upright(np.asarray(image, dtype=np.uint8), check_region(region))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * _T + 3, 2 * _T + 3))
    background = cv2.morphologyEx(up, cv2.MORPH_OPEN, kernel).astype(np.float32)
    tophat = up.astype(np.float32) - background

    means: list[float] = []
    peaks: list[float] = []
    headroom: list[float] = []
    holes: list[float] = []
    boxes = [_boxes(0), _boxes(1)]
    for b in boxes:
        for name in _SEGMENTS:
            x0, y0, x1, y1 = b[name]
            # the display's own layout differs from the nominal one (thinner segments, a
            # narrower gap): the box slides across the segment and keeps its best place
            dx, dy = (0, 1) if name in "adg" else (1, 0)
            best, peak = -1e9, -1e9
            for k in _SEARCH:
                box = tophat[y0 + k * dy:y1 + k * dy, x0 + k * dx:x1 + k * dx]
                if k in _SLIDE:
                    best = max(best, float(box.mean()))
                # for an "off": nothing lit a little further across (a display whose
                # digits sit further apart than usual), nor in a quarter of the box's
                # length (a narrow font's short segment, which the whole box would hide)
                parts = np.array_split(box, 4, axis=1 if name in "adg" else 0)
                peak = max(peak, float(box.mean()), max(float(p.mean()) for p in parts))
            means.append(best)
            peaks.append(peak)
            # a lit segment cannot rise above white: where glare has lifted the
            # background, the picture has only this much room left to show it
            headroom.append(255.0 - float(background[y0:y1, x0:x1].mean()))
        for name in ("hole_up", "hole_down"):
            x0, y0, x1, y1 = b[name]
            holes.append(float(tophat[y0:y1, x0:x1].mean()))
    # the strips outside: the brightest stretch of each (a segment's end, not the mean)
    outside = [float(np.percentile(tophat[y0:y1, x0:x1].mean(axis=1 if x1 - x0 < y1 - y0
                                                              else 0), 90))
               for x0, y0, x1, y1 in _outside()]
    off = float(np.median(holes))
    on = max(means)
    contrast = on - off
    room = [min(contrast, r - off) for r in headroom]
    washed_out = min(headroom) - off < MIN_CONTRAST
    # the picture's own noise, from the holes' pixels: a segment no brighter than the
    # noise could make it is no lit segment
    noise = float(np.mean([tophat[y0:y1, x0:x1].std()
                           for b in boxes for y0, x0, y1, x1 in
                           ((b[h][1], b[h][0], b[h][3], b[h][2])
                            for h in ("hole_up", "hole_down"))]))
    if contrast < DARK_CONTRAST and not washed_out:
        return DisplayReading(None, certain=noise < DARK_CONTRAST / 2, dark=True)
    if contrast < DARK_CONTRAST + 3 * noise:
        return DisplayReading(None, certain=False, dark=True)     # dark as far as it shows
    levels = [(m - off) / max(r, 1e-6) for m, r in zip(means, room, strict=True)]
    peak_levels = [(p - off) / max(r, 1e-6) for p, r in zip(peaks, room, strict=True)]
    hole_levels = [(h - off) / max(contrast, 1e-6) for h in holes + outside]
    certain = contrast >= MIN_CONTRAST and not washed_out
    if max(hole_levels) > OFF:
        certain = False             # a hole or the surroundings lit: the region is off
    digits: list[int | None] = []
    for d in range(2):
        pattern = ""
        for i, name in enumerate(_SEGMENTS):
            v = levels[d * 7 + i]
            if OFF <= v <= ON or (v < OFF and peak_levels[d * 7 + i] > ON):
                certain = False
            if v > (ON + OFF) / 2:
                pattern += name
        digits.append(_DIGITS.get(pattern))
    if digits[0] is None or digits[1] is None:
        return DisplayReading(None, certain=False, dark=False)
    return DisplayReading(digits[0] * 10 + digits[1], certain=certain, dark=False)


def _opencv_for(device: str) -> Any:
    """OpenCV, to read ``device`` (a camera or a picture file) once it is there; a
    :class:`CameraError` saying which is missing otherwise."""
    try:
        import cv2
    except ImportError:
        raise CameraError(code="camera_no_opencv") from None
    if not os.path.exists(device):
        raise CameraError(code="camera_missing", device=device)
    return cv2


class V4L2Camera:
    """A USB camera on ``/dev/videoN`` (OpenCV over V4L2) aimed at one table's display."""

    def __init__(self, device: str, region: Sequence[Sequence[float]]) -> None:
        self.device = device
        self.region = check_region(region)
        self._cap: Any = None

    def _open(self) -> Any:
        cv2 = _opencv_for(self.device)
        if not os.access(self.device, os.R_OK | os.W_OK):
            raise CameraError(code="camera_denied", device=self.device)
        cap = cv2.VideoCapture(self.device, cv2.CAP_V4L2)
        if not cap.isOpened():
            cap.release()
            raise CameraError(code="camera_not_video", device=self.device)
        return cap

    def frame(self) -> Image:
        """The newest picture (the driver's queued frames are dropped first)."""
        if self._cap is None:
            self._cap = self._open()
        for _ in range(3):          # V4L2 keeps a few old frames queued
            self._cap.grab()
        ok, img = self._cap.read()
        if not ok or img is None:
            self.close()
            raise CameraError(code="camera_no_picture", device=self.device)
        result: Image = img
        return result

    def read(self) -> DisplayReading:
        """Read the display now (raises CameraError when there is no picture)."""
        return read_display(self.frame(), self.region)

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class FileCamera:
    """A picture file another program keeps fresh: a network camera's snapshot, or the
    simulated table's camera (the demo's simulated stock table writes one)."""

    def __init__(self, path: str, region: Sequence[Sequence[float]]) -> None:
        self.path = path
        self.region = check_region(region)

    def frame(self) -> Image:
        cv2 = _opencv_for(self.path)
        img: Any = cv2.imread(self.path, cv2.IMREAD_COLOR)
        if img is None:             # half written, or not a picture
            raise CameraError(code="camera_no_picture", device=self.path)
        result: Image = img
        return result

    def read(self) -> DisplayReading:
        return read_display(self.frame(), self.region)


def open_camera(settings: CameraSettings) -> V4L2Camera | FileCamera:
    """The camera a table's settings name (ConfigError when its region is not set yet)."""
    if settings.region is None:
        raise ConfigError(code="config_missing_key", where=settings.device,
                          setting="camera_region",
                          allowed="drag the digits' region on the console's camera page")
    if settings.device.startswith("/dev/"):
        return V4L2Camera(settings.device, settings.region)
    return FileCamera(settings.device, settings.region)


CAMERA_KEYS = ("camera", "camera_region")
MAX_PIXELS = 10_000             # no camera a club buys has a picture wider than this


_PICTURES = (".png", ".jpg", ".jpeg")


def camera_settings(raw: dict[str, Any], where: str, base: str = ".") -> CameraSettings | None:
    """A table's camera keys, checked; None when the table has no camera. A picture
    file's relative path is taken from ``base`` (the club file's folder)."""
    device = raw.get("camera")
    region = raw.get("camera_region")
    if device is None:
        if region is not None:
            raise ConfigError(code="config_missing_key", where=where, setting="camera",
                              allowed='camera = "/dev/video0" (camera_region needs a camera)')
        return None
    if not isinstance(device, str) or len(device) > 200 or not (
            device.startswith("/dev/") or device.lower().endswith(_PICTURES)):
        raise ConfigError(code="config_bad_value", where=where, setting="camera",
                          value=repr(device), allowed='a V4L2 device path such as "/dev/video0" '
                          'or "/dev/v4l/by-id/...", or a picture file (.png, .jpg) that '
                          'another program keeps fresh')
    if not device.startswith("/dev/"):
        device = os.path.join(base, device)
    if region is None:
        return CameraSettings(device, None)
    allowed = ("four corners [[x, y], [x, y], [x, y], [x, y]] in the picture's pixels "
               f"(0..{MAX_PIXELS}), clockwise from the top left of the digits")
    if not isinstance(region, list) or not all(
            isinstance(p, list) and len(p) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                    and 0 <= v <= MAX_PIXELS for v in p) for p in region):
        raise ConfigError(code="config_bad_value", where=where, setting="camera_region",
                          value=repr(region), allowed=allowed)
    try:
        return CameraSettings(device, check_region(region))
    except ValueError:
        raise ConfigError(code="config_bad_value", where=where, setting="camera_region",
                          value=repr(region), allowed=allowed) from None
