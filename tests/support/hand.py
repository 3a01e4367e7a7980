"""Scoring one hand in tests: the batch input line built from short arguments."""

from __future__ import annotations

from scoring.hand import score_hand


def score(hand, win, melds=(), rules="nekohouse-4a", **flags) -> dict:
    """``score_hand`` of a line: South seat in the East round unless ``flags`` say otherwise;
    ``melds`` as ``(type, tiles)`` pairs."""
    line = {
        "hand": hand,
        "win": win,
        "melds": [dict(type=t, tiles=s) for t, s in melds],
        "seat_wind": "S",
        "round_wind": "E",
        **flags,
    }
    return score_hand(line, rules)
