"""Seating players into tables: random (free play) and swiss pairing (event nights).

Pure functions: players are any hashable ids, a table is a list of ``size`` of them.

Swiss pairing sits players of similar standing together: it takes the best-placed
player not yet seated and fills their table from the next best, round after round.
It never puts together two players who have already met when a seating without a
rematch exists: the search looks for one with no rematch first, then with one, two...
(an exhaustive depth-first search, cut at a node budget only for floors far larger than
a club night), so what it returns has the fewest rematches possible.
"""

from __future__ import annotations

import itertools
import random
import secrets
from typing import Hashable, Iterable, Sequence

Player = Hashable

NODE_BUDGET = 500_000
"""Search nodes per pass: a 40-player night needs a few thousand at most."""


class PairingError(ValueError):
    """The players cannot be seated as asked (``code`` says why; ``values`` name it)."""

    def __init__(self, code: str, **values: object) -> None:
        super().__init__(code)
        self.code, self.values = code, values


def _check(players: Sequence[Player], size: int) -> None:
    if size < 2:
        raise PairingError("table_size", size=size)
    if len(set(players)) != len(players):
        raise PairingError("player_twice")
    if not players or len(players) % size:
        raise PairingError("not_divisible", players=len(players), size=size,
                           left=len(players) % size)


def random_tables(players: Iterable[Player], size: int,
                  rng: random.Random | None = None) -> list[list[Player]]:
    """Everyone at a table of ``size``, tables and seats at random."""
    order = list(players)
    _check(order, size)
    (rng or secrets.SystemRandom()).shuffle(order)
    return [order[i:i + size] for i in range(0, len(order), size)]


def met_pairs(tables: Iterable[Sequence[Player]]) -> set[frozenset]:
    """Every pair of players who shared a table in ``tables`` (earlier rounds)."""
    out: set[frozenset] = set()
    for table in tables:
        out |= {frozenset(p) for p in itertools.combinations(table, 2)}
    return out


def rematches(tables: Iterable[Sequence[Player]], met: set[frozenset]) -> int:
    """How many pairs sit together again."""
    return sum(frozenset(p) in met for t in tables for p in itertools.combinations(t, 2))


def swiss(ranking: Sequence[Player], size: int, met: set[frozenset] | None = None,
          budget: int = NODE_BUDGET) -> list[list[Player]]:
    """Tables of ``size`` from players in standing order (best first), with the fewest
    rematches possible, and among those the one closest to standing order."""
    order = list(ranking)
    _check(order, size)
    met = met or set()
    most = len(order) // size * (size * (size - 1) // 2)
    for allowed in range(most + 1):
        found = _search(order, size, met, allowed, [budget])
        if found is not None:
            return found
    raise PairingError("no_seating")  # unreachable: with every rematch allowed one exists


def _search(free: list, size: int, met: set, allowed: int, budget: list) -> list | None:
    """Depth first: the best free player's table from the next free players in order."""
    if not free:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    head, rest = free[0], free[1:]
    for others in itertools.combinations(rest, size - 1):
        table = (head, *others)
        cost = sum(frozenset(p) in met for p in itertools.combinations(table, 2))
        if cost > allowed:
            continue
        left = [p for p in rest if p not in others]
        tail = _search(left, size, met, allowed - cost, budget)
        if tail is not None:
            return [list(table), *tail]
        if budget[0] < 0:
            return None
    return None
