"""International (MCR, 国際ルール) scoring: 81 fans, flowers, the 8-fan minimum, payments.

Public API::

    score_hand(line: dict, rules) -> dict      # one batch line (contract: scoring-batch.md, MCR)
    payments(total, winner, discarder, players=4) -> list[int]   # point deltas per seat
    explanation(line, out) -> list[str]        # readable rows for `python -m scoring hand`
    FANS                                       # the fan registry (id -> Fan)
    reference() -> list[dict]                  # the 81 fans as rows for docs

The rulebook is ``/work/shared/seeds/004_31b80ee9b4db5b91.txt``.
"""

from .fans import FANS, RULEBOOK_FANS, Fan, reference
from .score import MINIMUM_FAN, explanation, payments, score_hand

__all__ = [
    "FANS",
    "RULEBOOK_FANS",
    "Fan",
    "MINIMUM_FAN",
    "explanation",
    "payments",
    "reference",
    "score_hand",
]
