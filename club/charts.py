"""Charts drawn on the server as inline SVG: no scripts, no external services.

Each function returns one ``<svg>`` element as text, the same text for the
same data (the nightly export is byte-identical run to run), with a
``<title>`` so screen readers and printouts say what it shows.
"""

from __future__ import annotations

from html import escape
from typing import Callable, Sequence

SEAT_COLOURS = ("#c0392b", "#1f6fb2", "#1e7d32", "#8e44ad")
POS, NEG, GRID, INK = "#1e7d32", "#c0392b", "#ddd", "#333"
FONT = 'font-family="sans-serif" font-size="12"'


def _n(x: float) -> str:
    """A coordinate with at most one decimal (stable text)."""
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _svg(width: int, height: int, title: str, body: list[str], cls: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart {cls}" role="img" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}">'
        f"<title>{escape(title)}</title>" + "".join(body) + "</svg>"
    )


def _scale(lo: float, hi: float, top: float, bottom: float) -> Callable[[float], float]:
    if hi == lo:
        hi, lo = hi + 1, lo - 1
    return lambda v: bottom - (v - lo) * (bottom - top) / (hi - lo)


LABEL_GAP = 14
"""Least distance between two axis labels (the font is 12 units tall)."""


def _axis_labels(
    y: Callable[[float], float], lo: float, hi: float, left: float, right: float, *,
    base: float = 0.0, signed: bool = True,
) -> list[str]:
    """Grid lines labelled at the lowest, highest and ``base`` values (``base`` drawn dark);
    a label that would overlap one already placed (1,499 beside 1,500) is left out, the
    base's first, so every label can be read."""
    out = []
    placed: list[float] = []
    values = sorted({lo, base, hi} if lo < base < hi else {lo, hi})
    for v in sorted(values, key=lambda v: (v != base, v != lo)):
        if any(abs(y(v) - p) < LABEL_GAP for p in placed):
            continue
        placed.append(y(v))
    for v in values:
        text = (f"{v:+,.0f}" if v else "0") if signed else f"{v:,.0f}"
        out.append(
            f'<line x1="{_n(left)}" y1="{_n(y(v))}" x2="{_n(right)}" y2="{_n(y(v))}" '
            f'stroke="{INK if v == base else GRID}" stroke-width="1"/>'
        )
        if y(v) in placed:
            out.append(
                f'<text x="{_n(left - 4)}" y="{_n(y(v) + 4)}" text-anchor="end" {FONT} '
                f'fill="{INK}">{escape(text)}</text>'
            )
    return out


def results_chart(
    results: Sequence[float], title: str, *, width: int = 720, height: int = 240
) -> str:
    """Settled result of each game as a bar (green above zero, red below) and the
    running total as a line."""
    left, right, top, bottom = 64, width - 10, 12, height - 24
    running, total = [], 0.0
    for r in results:
        total += r
        running.append(total)
    values = list(results) + running + [0.0]
    lo, hi = min(values), max(values)
    y = _scale(lo, hi, top, bottom)
    body = _axis_labels(y, lo, hi, left, right)
    n = max(len(results), 1)
    step = (right - left) / n
    bw = max(step * 0.7, 1)
    for i, r in enumerate(results):
        x = left + i * step + (step - bw) / 2
        y0, y1 = sorted((y(0), y(r)))
        body.append(
            f'<rect x="{_n(x)}" y="{_n(y0)}" width="{_n(bw)}" height="{_n(max(y1 - y0, 1))}" '
            f'fill="{POS if r >= 0 else NEG}"><title>{i + 1}: {r:+,.1f}</title></rect>'
        )
    if running:
        pts = " ".join(f"{_n(left + (i + 0.5) * step)},{_n(y(v))}" for i, v in enumerate(running))
        body.append(f'<polyline points="{pts}" fill="none" stroke="{INK}" stroke-width="2"/>')
    body.append(f'<text x="{_n(left)}" y="{height - 6}" {FONT} fill="{INK}">1</text>')
    body.append(
        f'<text x="{_n(right)}" y="{height - 6}" text-anchor="end" {FONT} fill="{INK}">'
        f"{len(results)}</text>"
    )
    return _svg(width, height, title, body, "results-chart")


def placement_chart(
    counts: Sequence[int], labels: Sequence[str], title: str, *, width: int = 360
) -> str:
    """How many games finished in each place, one horizontal bar per place."""
    row, left, right = 28, 48, width - 56
    height = row * len(counts) + 8
    most = max(list(counts) + [1])
    total = sum(counts)
    body = []
    for i, (c, label) in enumerate(zip(counts, labels, strict=True)):
        y = 4 + i * row
        w = (right - left) * c / most
        share = f"{c / total:.0%}" if total else "—"
        body.append(
            f'<text x="{left - 6}" y="{y + 18}" text-anchor="end" {FONT} fill="{INK}">'
            f"{escape(label)}</text>"
        )
        body.append(
            f'<rect x="{left}" y="{y + 4}" width="{_n(max(w, 1))}" height="{row - 8}" '
            f'fill="{SEAT_COLOURS[i % 4]}"/>'
        )
        body.append(
            f'<text x="{_n(left + w + 6)}" y="{y + 18}" {FONT} fill="{INK}">{c} ({share})</text>'
        )
    return _svg(width, height, title, body, "placement-chart")


def score_lines(
    start: Sequence[int],
    hands: Sequence[dict],
    names: Sequence[str],
    title: str,
    *,
    width: int = 720,
    height: int = 280,
) -> str:
    """Every player's points after each hand (``hands``: the replay's ``hands``
    with their ``scores``), one coloured line per seat, with a legend."""
    series = [[start[s]] + [h["scores"][s] for h in hands] for s in range(len(names))]
    flat = [v for s in series for v in s]
    lo, hi = min(flat), max(flat)
    left, right, top, bottom = 64, width - 10, 12, height - 44
    y = _scale(lo, hi, top, bottom)
    # raw points: no signs; the dark line is where everybody started
    body = _axis_labels(y, lo, hi, left, right, base=start[0], signed=False)
    step = (right - left) / max(len(hands), 1)
    for i, h in enumerate(hands):
        x = left + (i + 1) * step
        body.append(
            f'<text x="{_n(x)}" y="{_n(bottom + 14)}" text-anchor="middle" '
            f'font-family="sans-serif" font-size="9" fill="{INK}">'
            f"{escape(str(h.get('round', '')))}</text>"
        )
    for s, vals in enumerate(series):
        colour = SEAT_COLOURS[s % 4]
        pts = " ".join(f"{_n(left + i * step)},{_n(y(v))}" for i, v in enumerate(vals))
        body.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2.5"/>')
        lx = left + s * (right - left) / len(names)
        body.append(
            f'<rect x="{_n(lx)}" y="{height - 16}" width="12" height="12" fill="{colour}"/>'
        )
        body.append(
            f'<text x="{_n(lx + 16)}" y="{height - 6}" {FONT} fill="{INK}">'
            f"{escape(names[s])} {vals[-1]:,}</text>"
        )
    return _svg(width, height, title, body, "score-lines")


def totals_chart(rows: Sequence[tuple[str, float]], title: str, *, width: int = 720) -> str:
    """Players' totals as horizontal bars around zero (the leaderboard at a glance), each
    with its value as given (the caller passes the unit its table shows); names take at
    most 30% of the width, values the last 56 px."""
    row, left, right = 22, min(150, round(width * 0.3)), width - 56
    height = row * len(rows) + 8
    values = [v for _, v in rows] + [0.0]
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1

    def x(v: float) -> float:
        return left + (v - lo) * (right - left) / span

    body = [f'<line x1="{_n(x(0))}" y1="0" x2="{_n(x(0))}" y2="{height}" stroke="{INK}"/>']
    for i, (label, v) in enumerate(rows):
        yy = 4 + i * row
        x0, x1 = sorted((x(0), x(v)))
        body.append(
            f'<text x="{left - 6}" y="{yy + 14}" text-anchor="end" {FONT} fill="{INK}">'
            f"{escape(label)}</text>"
        )
        body.append(
            f'<rect x="{_n(x0)}" y="{yy + 3}" width="{_n(max(x1 - x0, 1))}" '
            f'height="{row - 6}" fill="{POS if v >= 0 else NEG}"/>'
        )
        body.append(
            f'<text x="{_n(max(x1, x(0)) + 4)}" y="{yy + 14}" {FONT} fill="{INK}">{v:+,.1f}</text>'
        )
    return _svg(width, height, title, body, "totals-chart")


def rating_chart(
    ratings: Sequence[float],
    title: str,
    *,
    start: float = 1500.0,
    moves: Sequence[int] = (),
    width: int = 720,
    height: int = 240,
) -> str:
    """A player's R after each game as a line from the starting R (drawn dark); ``moves``
    (one per game: +1 promoted, -1 demoted, 0) put a green or red dot where the dan
    level changed."""
    left, right, top, bottom = 64, width - 10, 12, height - 24
    values = [start, *ratings]
    lo, hi = min(values), max(values)
    y = _scale(lo, hi, top, bottom)
    body = _axis_labels(y, lo, hi, left, right, base=start, signed=False)
    step = (right - left) / max(len(ratings), 1)
    pts = " ".join(f"{_n(left + i * step)},{_n(y(v))}" for i, v in enumerate(values))
    body.append(f'<polyline points="{pts}" fill="none" stroke="{SEAT_COLOURS[1]}" '
                f'stroke-width="2"/>')
    for i, move in enumerate(moves, start=1):
        if move and i <= len(ratings):
            body.append(
                f'<circle cx="{_n(left + i * step)}" cy="{_n(y(values[i]))}" r="4" '
                f'fill="{POS if move > 0 else NEG}"><title>{i}: {values[i]:,.0f}</title></circle>'
            )
    body.append(f'<text x="{_n(left)}" y="{height - 6}" {FONT} fill="{INK}">0</text>')
    body.append(
        f'<text x="{_n(right)}" y="{height - 6}" text-anchor="end" {FONT} fill="{INK}">'
        f"{len(ratings)}</text>"
    )
    return _svg(width, height, title, body, "rating-chart")
