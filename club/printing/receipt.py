"""A receipt as lines of text, and those lines as the bytes an ESC/POS printer takes.

A :class:`Sheet` is what is printed: lines, each plain, bold, centred or a title, already
laid out for the paper's width in columns (:func:`columns`). :func:`escpos_bytes` writes a
sheet through python-escpos into its ``Dummy`` printer and returns the bytes, which a
worker then sends to the real printer in one piece (a sheet that cannot be laid out
never reaches the printer half printed).

Japanese goes out in the printer's Kanji mode, never through python-escpos's text path:
its "magic encoder" picks a single-byte code page per character and, for any line with
a CJK ideograph, sends the whole line as GB18030 (Chinese) without a Kanji command, which
a Japanese printer prints as garbage (and kana alone would become half-width katakana or
``?``). So the sheet selects the Shift JIS code system (``FS C 1``), turns Kanji mode on
(``FS &``) and the Japanese international set (``ESC R 8``, so 0x5C prints ¥), then writes
each line encoded as CP932 (Shift JIS with the Windows/NEC extensions). A character CP932
lacks prints as ``?``. The title's double size is ``GS !``, which scales Kanji as well as
ASCII (python-escpos's ``set(double_width=...)`` sends ``ESC !``, which leaves Kanji small).
Bold (``ESC E``), alignment (``ESC a``) and the cut (``GS V``) are python-escpos's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from club.text import printable

STYLES = ("plain", "bold", "center", "title")
PAPER_COLUMNS = {58: 32, 80: 48}
"""Font A columns of the usual 203 dpi heads: 384 dots on 58 mm paper, 576 on 80 mm."""

ESC, FS, GS = b"\x1b", b"\x1c", b"\x1d"
INIT = ESC + b"@"
KANJI_ON = FS + b"C\x01" + FS + b"&" + ESC + b"R\x08"
"""Shift JIS code system, Kanji mode on, the Japanese international character set."""
SIZE_DOUBLE, SIZE_NORMAL = GS + b"!\x11", GS + b"!\x00"

_SUBSTITUTES = str.maketrans({"¥": "\\", "–": "-", "—": "―", "\u00a0": " "})
"""Characters CP932 lacks, as the printer shows them (0x5C is ¥ in the Japanese set)."""
ENCODING = "cp932"


@dataclass(frozen=True)
class Line:
    """One printed line and its style (:data:`STYLES`)."""

    text: str
    style: str = "plain"


@dataclass
class Sheet:
    """A receipt: its lines, laid out for ``columns`` columns of Font A."""

    columns: int
    lines: list[Line] = field(default_factory=list)

    def add(self, text: str = "", style: str = "plain") -> None:
        """Append a line, cut to the width (a title to half of it: it prints double)."""
        limit = self.columns // 2 if style == "title" else self.columns
        self.lines.append(Line(cut(text, limit), style))

    def pair(self, left: str, right: str, style: str = "plain") -> None:
        """``left`` and ``right`` on one line, the right side flush right; a left side too
        long for the line is cut."""
        self.lines.append(Line(pair(left, right, self.columns), style))

    def rule(self, char: str = "-") -> None:
        """A line across the paper."""
        self.lines.append(Line(char * self.columns))

    def text(self) -> str:
        """The sheet as plain text, one line per line (for a preview or a test)."""
        return "\n".join(line.text for line in self.lines)


def columns(width_mm: int, profile_columns: int | None = None) -> int:
    """The Font A columns of the paper: the printer profile's when it names them for this
    paper, else the usual head's (:data:`PAPER_COLUMNS`)."""
    return profile_columns or PAPER_COLUMNS[width_mm]


def width(text: str) -> int:
    """Columns ``text`` takes on the printer: CP932 sends a full-width character as two
    bytes and prints it two columns wide, a half-width one as one byte and one column."""
    return len(encode(text))


def encode(text: str) -> bytes:
    """``text`` in the printer's Kanji mode (CP932; what it lacks as ``?``), through
    :func:`printable` first."""
    return printable(text).translate(_SUBSTITUTES).encode(ENCODING, errors="replace")


def cut(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` columns."""
    out, used = [], 0
    for ch in text:
        w = width(ch)
        if used + w > limit:
            break
        out.append(ch)
        used += w
    return "".join(out)


def pair(left: str, right: str, limit: int) -> str:
    """``left`` and ``right`` in ``limit`` columns, the right flush right."""
    right = cut(right, limit)
    left = cut(left, max(0, limit - width(right) - 1))
    return left + " " * max(0, limit - width(left) - width(right)) + right


def escpos_bytes(sheet: Sheet, profile: str | None = None) -> bytes:
    """The sheet as ESC/POS bytes (python-escpos's ``Dummy`` printer): reset, Kanji mode,
    each line in its style, feed and a full cut."""
    from escpos.printer import Dummy

    p = Dummy(profile=profile) if profile else Dummy()
    p._raw(INIT + KANJI_ON)
    for line in sheet.lines:
        p.set(align="center" if line.style in ("center", "title") else "left",
              bold=line.style in ("bold", "title"))
        if line.style == "title":
            p._raw(SIZE_DOUBLE)
        p._raw(encode(line.text) + b"\n")
        if line.style == "title":
            p._raw(SIZE_NORMAL)
    p.set(align="left", bold=False)
    p.cut()
    return p.output
