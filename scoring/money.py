"""The club's money per game, per player and per day, in yen. Pure: no I/O, no clock.

What a game costs and pays is rule data (``[money]`` of a rule set, see
:class:`scoring.rules.MoneyRules`): the game fee (場代), the top prize (トップ賞)
and what a chip is cashed out at. Points are never turned into money.

* :func:`game_money`: each seat's fee, prize and chips for one finished game;
* :func:`accounts`: each player's account for a day (their games added up);
* :func:`daily_report`: the day's report (日報): games, occupancy, fees,
  prizes and chips per table and per rule set, with totals.

Amounts split between several players (a fee the shared tops pay together, a
prize they share) go in equal whole yen; the yen left over go one each to the
first of them in seat order, so every split adds up to the whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterable, Mapping, Sequence

from .rules import MoneyRules


class _Net:
    """What a player receives (+) or pays (-) in all, from the four money fields."""

    fee: int
    prize: int
    chip_yen: int

    @property
    def net(self) -> int:
        """What the player receives (+) or pays (-) in all."""
        return self.prize + self.chip_yen - self.fee


@dataclass(frozen=True)
class SeatMoney(_Net):
    """One seat's money of one game (yen; chips as counted)."""

    fee: int = 0
    """What the player pays the club for the game."""
    prize: int = 0
    """Top prize received (+), or paid to the top (-)."""
    chips: int = 0
    """Net chips at the settlement (+ received, - paid)."""
    chip_yen: int = 0
    """The chips in yen."""


@dataclass(frozen=True)
class GameMoney:
    seats: tuple[SeatMoney, ...]
    minutes: int
    """Minutes charged (per-hour fees: the game's length rounded up to whole units)."""

    @property
    def fees(self) -> int:
        """The club's fee income from the game."""
        return sum(s.fee for s in self.seats)

    @property
    def house_prize(self) -> int:
        """Top prize the club paid (what the players received beyond what they paid)."""
        return sum(s.prize for s in self.seats)

    @property
    def player_prize(self) -> int:
        """Top prize paid from player to player."""
        return -sum(s.prize for s in self.seats if s.prize < 0)

    @property
    def chips_moved(self) -> int:
        return sum(s.chips for s in self.seats if s.chips > 0)

    @property
    def chip_yen_moved(self) -> int:
        return sum(s.chip_yen for s in self.seats if s.chip_yen > 0)


def money_rules(section: Mapping[str, Any] | MoneyRules | None) -> MoneyRules:
    """The ``[money]`` switches of a resolved rule set (a game stored before there were
    any: the defaults, which charge nothing)."""
    if isinstance(section, MoneyRules):
        return section
    return MoneyRules(**dict(section or {}))


def split(total: int, shares: int) -> list[int]:
    """``total`` yen in ``shares`` whole-yen parts that add up to it; the first parts
    take the yen left over, one each."""
    base, left = divmod(total, shares)
    return [base + (1 if i < left else 0) for i in range(shares)]


def charged_minutes(minutes: float, unit: int) -> int:
    """A game's length charged by started ``unit``-minute blocks (at least one block)."""
    return max(1, math.ceil(max(minutes, 0) / unit - 1e-9)) * unit


def fee_per_player(rules: MoneyRules, minutes: float) -> tuple[int, int]:
    """The fee each player owes for a game of ``minutes``, and the minutes charged."""
    if rules.fee_mode == "per_game":
        return rules.fee, 0
    if rules.fee_mode == "per_hour":
        charged = charged_minutes(minutes, rules.fee_unit_minutes)
        return rules.fee * charged // 60, charged
    return 0, 0


def _to_tops(values: list[int], tops: list[int], total: int) -> None:
    for seat, part in zip(tops, split(total, len(tops)), strict=True):
        values[seat] += part


def game_money(
    rules: MoneyRules | Mapping[str, Any] | None,
    ranks: Sequence[int],
    chips: Sequence[int] | None = None,
    minutes: float = 0,
) -> GameMoney:
    """Each seat's money for one finished game: ``ranks`` (1 = top; shared tops share),
    net ``chips`` per seat, the game's length in ``minutes`` (per-hour fees)."""
    rules = money_rules(rules)
    n = len(ranks)
    chips = list(chips or [0] * n)
    tops = [s for s in range(n) if ranks[s] == 1]
    each, charged = fee_per_player(rules, minutes)
    fees = [0] * n
    if rules.fee_payer == "top":
        _to_tops(fees, tops, each * n)
    else:
        fees = [each] * n
    prizes = [0] * n
    if rules.top_prize:
        if rules.top_prize_from == "house":
            _to_tops(prizes, tops, rules.top_prize)
        else:
            others = [s for s in range(n) if s not in tops]
            for s in others:
                prizes[s] -= rules.top_prize
            _to_tops(prizes, tops, rules.top_prize * len(others))
    seats = tuple(
        SeatMoney(fees[s], prizes[s], chips[s], chips[s] * rules.chip_yen) for s in range(n)
    )
    return GameMoney(seats, charged)


# --------------------------------------------------------------------------- accounts
@dataclass
class Account(_Net):
    """A player's money over some games (a day): sums of :class:`SeatMoney`."""

    games: int = 0
    fee: int = 0
    prize: int = 0
    chips: int = 0
    chip_yen: int = 0

    def add(self, m: "SeatMoney | Account") -> None:
        """Count one more game's seat money, or add another account's sums."""
        self.games += m.games if isinstance(m, Account) else 1
        self.fee += m.fee
        self.prize += m.prize
        self.chips += m.chips
        self.chip_yen += m.chip_yen

    def as_dict(self) -> dict[str, Any]:
        return {"games": self.games, "fee": self.fee, "prize": self.prize,
                "chips": self.chips, "chip_yen": self.chip_yen, "net": self.net}


def accounts(lines: Iterable[tuple[str, SeatMoney]]) -> dict[str, Account]:
    """Each player's account from ``(player, seat money)`` of their games."""
    out: dict[str, Account] = {}
    for player, m in lines:
        out.setdefault(player, Account()).add(m)
    return out


def total_account(accts: Iterable[Account]) -> Account:
    """The accounts added up (fees: the club's income; net: the club's prize payments
    less its fees, seen from the players)."""
    out = Account()
    for a in accts:
        out.add(a)
    return out


# --------------------------------------------------------------------------- 日報
@dataclass(frozen=True)
class ReportGame:
    """A finished game of the day, as the report needs it."""

    game_id: int
    table: str
    rule_set: str
    family: str
    started: datetime
    finished: datetime
    money: GameMoney


@dataclass
class ReportRow:
    """One line of the report: a table, a rule set or the total."""

    key: str
    label: str = ""
    games: int = 0
    seats: int = 0
    minutes: int = 0
    open_minutes: int = 0
    fees: int = 0
    house_prize: int = 0
    player_prize: int = 0
    chips: int = 0
    chip_yen: int = 0
    rule_sets: dict[str, Any] = field(default_factory=dict)

    @property
    def occupancy(self) -> float | None:
        """Minutes in play / minutes open (None where the club was not open)."""
        return self.minutes / self.open_minutes if self.open_minutes else None

    def add(self, g: ReportGame) -> None:
        self.games += 1
        self.seats += len(g.money.seats)
        self.fees += g.money.fees
        self.house_prize += g.money.house_prize
        self.player_prize += g.money.player_prize
        self.chips += g.money.chips_moved
        self.chip_yen += g.money.chip_yen_moved
        self.rule_sets[g.rule_set] = self.rule_sets.get(g.rule_set, 0) + 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key, "label": self.label, "games": self.games, "seats": self.seats,
            "minutes": self.minutes, "open_minutes": self.open_minutes,
            "occupancy": self.occupancy, "fees": self.fees, "house_prize": self.house_prize,
            "player_prize": self.player_prize, "chips": self.chips, "chip_yen": self.chip_yen,
            "rule_sets": dict(sorted(self.rule_sets.items())),
        }


def _minutes_open(spans: list[tuple[datetime, datetime]], start: datetime, end: datetime) -> int:
    """Whole minutes of the union of ``spans`` that fall inside [start, end)."""
    clipped = sorted((max(a, start), min(b, end)) for a, b in spans if b > start and a < end)
    # cur_a is read only once cur_b is set, and both are set together
    total, cur_a, cur_b = 0.0, start, None
    for a, b in clipped:
        if cur_b is None or a > cur_b:
            if cur_b is not None:
                total += (cur_b - cur_a).total_seconds()
            cur_a, cur_b = a, b
        else:
            cur_b = max(cur_b, b)
    if cur_b is not None:
        total += (cur_b - cur_a).total_seconds()
    return int(total // 60)


def daily_report(
    games: Sequence[ReportGame],
    tables: Sequence[tuple[str, str]],
    open_from: datetime,
    open_to: datetime,
) -> dict[str, Any]:
    """The day's report (日報): ``tables`` are the club's ``(id, name)`` (a table with no
    game still gets its line, at 0 %); occupancy counts the time a table had a game
    between ``open_from`` and ``open_to``. Returns ``{"tables", "rule_sets", "total",
    "open_minutes"}``: lists of :meth:`ReportRow.as_dict` rows and the total row, whose
    every sum is the sum of either list."""
    open_minutes = max(int((open_to - open_from).total_seconds() // 60), 0)
    by_table = {tid: ReportRow(tid, name, open_minutes=open_minutes) for tid, name in tables}
    by_rules: dict[str, ReportRow] = {}
    spans: dict[tuple[str, str], list[Any]] = {}
    for g in sorted(games, key=lambda g: g.game_id):
        by_table.setdefault(g.table, ReportRow(g.table, g.table, open_minutes=open_minutes))
        by_table[g.table].add(g)
        by_rules.setdefault(g.rule_set, ReportRow(g.rule_set, g.family)).add(g)
        spans.setdefault((g.table, g.rule_set), []).append((g.started, g.finished))
    for (tid, rid), table_spans in spans.items():
        # a table plays one game at a time: its minutes are those of its rule sets' games
        minutes = _minutes_open(table_spans, open_from, open_to)
        by_table[tid].minutes += minutes
        by_rules[rid].minutes += minutes
    total = ReportRow("total", open_minutes=open_minutes * len(by_table))
    for g in games:
        total.add(g)
    total.minutes = sum(r.minutes for r in by_table.values())
    return {
        "open_minutes": open_minutes,
        "tables": [by_table[k].as_dict() for k in sorted(by_table)],
        "rule_sets": [by_rules[k].as_dict() for k in sorted(by_rules)],
        "total": total.as_dict(),
    }
