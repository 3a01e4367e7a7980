"""The R rating and the club's dan (段位) ladder, game after game. Pure: no I/O.

R (Tenhou's レーティング, see :data:`SOURCE`): everybody starts at
:data:`INITIAL_R`; each finished game moves a player's R by

    (placement base + (table average R - own R) / 40) x games correction x length scale

* placement base: :data:`BASES` by the number of players (+30 +10 -10 -30;
  three-player +30 0 -30); players who share a place share its bases;
* table average R: every seat, a guest counting as :data:`INITIAL_R`;
* games correction: 1 - 0.002 x games played before this one, 0.2 from the
  400th game on (a newcomer's R moves fast, then settles);
* length scale: :data:`LENGTH_SCALE` (a tonpuu counts two thirds of a hanchan).

A dan table (:class:`DanTable`, from a club's TOML by :func:`dan_tables`)
gives each level points per placement, the points to promote and whether a
player can drop back (demotion at below 0 points).

:class:`Ladder` holds every player's standing in one rule family and applies
games in the order they finished; rebuilding from nothing and applying one
game at a time run the same arithmetic in the same order, so both give the
same numbers to the last bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, NamedTuple, Sequence

from .errors import ScoringError

SOURCE = (
    "天鳳 (tenhou.net) マニュアル「レーティング」: R変動 = 試合数補正 × (対戦結果 + 補正値) × "
    "スケーリング係数; 試合数補正 = 1 − 試合数 × 0.002 (400試合以上 0.2); 対戦結果 四麻 "
    "+30/+10/−10/−30, 三麻 +30/0/−30; 補正値 = (卓の平均R − 自分のR) / 40; 初期値 R1500 "
    "(https://tenhou.net/man/#RATING, quoted at https://riichi.wiki/Tenhou.net_ranking)"
)
INITIAL_R = 1500.0
AVERAGE_DIVISOR = 40
GAMES_SLOPE = 0.002
SETTLED_AFTER = 400
SETTLED_CORRECTION = 0.2
BASES: dict[int, tuple[int, ...]] = {4: (30, 10, -10, -30), 3: (30, 0, -30)}
LENGTH_SCALE: dict[str, float] = {"hanchan": 1.0, "issou": 1.0, "tonpuu": 2 / 3}
"""Tenhou's scaling factor per game length. Tenhou publishes one factor for its ranked
lobbies; a hanchan (and MCR's four-wind game) takes it as it is, a tonpuu, half the
hands, two thirds of it: the ratio of Tenhou's own dan points for 東風戦 and 東南戦
(e.g. +20 and +30 for a top in 一般)."""


class RatingError(ScoringError):
    """A game the rating cannot take (wrong number of placements, unknown length)."""

    code = "invalid_rating_input"


DAN_ERRORS = {
    "not_table": "give a table: [riichi4] with [[riichi4.level]] entries",
    "level_not_table": "each level is a table: [[riichi4.level]] with name = ...",
    "unknown_family": "unknown rule family: one of {options}",
    "unknown_key": "unknown key: allowed here are {allowed}",
    "no_levels": "give at least one [[level]], lowest first",
    "missing_name": "missing: every level needs a name",
    "name_form": 'give a name, "初段", or a pair ["初段", "1 dan"]',
    "missing_points": "missing: give the points per place here or once for the family",
    "points_count": "give {players} whole numbers, 1st place first",
    "not_whole": "{value} is not a whole number",
    "too_low": "{value} is below {low}",
    "too_big": "{value} is out of range (at most 1,000,000)",
    "not_bool": "give true or false",
    "start_promotes": "{start} start points would promote at once (promote = {promote})",
    "missing_promote": "missing: every level but the highest needs promote",
    "top_promotes": "the highest level cannot promote: leave promote out",
    "lowest_demotes": "the lowest level has no level below it to drop to",
    "name_twice": "the name {name} is used twice",
    "unknown_start": "{name} is not a level: one of {names}",
}
"""Why a dan table is refused, by code (the web words them from its catalogue)."""


class DanTableError(ScoringError):
    """A dan table that cannot be used: ``key`` names the entry at fault, ``reason`` is a
    code of :data:`DAN_ERRORS` and ``values`` fill its sentence."""

    code = "invalid_dan_table"

    def __init__(self, key: str, reason: str, **values: Any) -> None:
        super().__init__(f"{key}: {DAN_ERRORS[reason].format(**values)}")
        self.key, self.reason, self.values = key, reason, values


# --------------------------------------------------------------------------- R
def games_correction(games_before: int) -> float:
    """試合数補正: 1 - 0.002 x games before this one; 0.2 from the 400th game on."""
    if games_before >= SETTLED_AFTER:
        return SETTLED_CORRECTION
    return 1 - games_before * GAMES_SLOPE


def shared_values(table: Sequence[float], ranks: Sequence[int]) -> list[float]:
    """Each seat's value of ``table`` (one entry per place, 1st first) by its rank; seats
    that share a rank share the places they cover (1st and 2nd tied: the mean of both)."""
    n = len(ranks)
    if len(table) != n or min(ranks) != 1 or max(ranks) > n:
        raise RatingError(f"placements {list(ranks)} do not fit a table of {len(table)} places")
    if len(set(ranks)) == n:
        return [table[r - 1] for r in ranks]
    out = []
    for r in ranks:
        tied = ranks.count(r)
        out.append(sum(table[r - 1 : r - 1 + tied]) / tied)
    return out


def rating_changes(
    ratings: Sequence[float], games: Sequence[int], ranks: Sequence[int], length: str
) -> list[float]:
    """How much one game moves each seat's R (``ratings``: R before; ``games``: games
    each had played before; ``ranks``: 1 = top)."""
    n = len(ratings)
    if n not in BASES or len(games) != n or len(ranks) != n:
        raise RatingError(f"a rated game has 3 or 4 seats with R, games and rank each, not {n}")
    if length not in LENGTH_SCALE:
        raise RatingError(f"unknown game length {length!r}: one of {', '.join(LENGTH_SCALE)}")
    bases = shared_values(BASES[n], ranks)
    average = sum(ratings) / n
    scale = LENGTH_SCALE[length]
    return [
        (bases[s] + (average - ratings[s]) / AVERAGE_DIVISOR) * games_correction(games[s]) * scale
        for s in range(n)
    ]


RATING_TIE_RULE = (
    "by R (higher first), then games rated (more first); members with no R yet come last; "
    "equal R share a rank"
)


def rank_by_rating(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Leaderboard rows (each with ``rating``, ``rating_games`` and a ``rank``) ordered
    and ranked by :data:`RATING_TIE_RULE`; the rows' other order breaks the rest of
    the ties. Returns the same dicts with ``rank`` replaced."""
    keyed = sorted(
        enumerate(rows),
        key=lambda ir: (ir[1]["rating"] is None, -(ir[1]["rating"] or 0),
                        -ir[1].get("rating_games", 0), ir[0]),
    )
    out, prev, rank = [], object(), 0
    for i, (_, row) in enumerate(keyed, start=1):
        if row["rating"] != prev:
            rank, prev = i, row["rating"]
        row["rank"] = rank if row["rating"] is not None else None
        out.append(row)
    return out


# --------------------------------------------------------------------------- dan
@dataclass(frozen=True)
class DanLevel:
    """One rung of a dan table."""

    ja: str
    en: str
    points: tuple[int, ...]
    """Points per placement at this level, 1st first."""
    promote: int | None
    """Points that take a player up to the next level (None: the highest level)."""
    start: int = 0
    """Points a player has on arriving at this level."""
    demote: bool = False
    """Whether falling below 0 points drops a player to the level below."""


@dataclass(frozen=True)
class DanTable:
    """A family's ladder, lowest level first; new players start at ``levels[first]`` with
    ``first_points`` points."""

    levels: tuple[DanLevel, ...]
    first: int = 0
    first_points: int = 0

    def name(self, level: int, lang: str = "ja") -> str:
        lv = self.levels[level]
        return lv.en if lang == "en" else lv.ja


@dataclass(frozen=True)
class DanStep:
    level: int
    points: int
    change: int
    moved: int  # +1 promoted, -1 demoted, 0 stayed


def dan_step(table: DanTable, level: int, points: int, place_points: int) -> DanStep:
    """One game on the ladder: add the placement's points, then promote (points at or
    above ``promote``: the next level's start points) or demote (below 0 where the level
    allows it: the level below's start points; else points stop at 0)."""
    lv = table.levels[level]
    after = points + place_points
    if lv.promote is not None and after >= lv.promote and level + 1 < len(table.levels):
        return DanStep(level + 1, table.levels[level + 1].start, place_points, 1)
    if after < 0:
        if lv.demote and level > 0:
            return DanStep(level - 1, table.levels[level - 1].start, place_points, -1)
        after = 0
    return DanStep(level, after, place_points, 0)


def name_pair(value: Any, key: str) -> tuple[str, str]:
    if isinstance(value, str) and value.strip():
        return value.strip(), value.strip()
    if (isinstance(value, list) and len(value) == 2
            and all(isinstance(v, str) and v.strip() for v in value)):
        return value[0].strip(), value[1].strip()
    raise DanTableError(key, "name_form")


def _whole(value: Any, key: str, *, low: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise DanTableError(key, "not_whole", value=repr(value))
    if low is not None and value < low:
        raise DanTableError(key, "too_low", value=value, low=low)
    if abs(value) > 1_000_000:
        raise DanTableError(key, "too_big", value=value)
    return value


def _points(value: Any, key: str, players: int) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) != players:
        raise DanTableError(key, "points_count", players=players)
    return tuple(_whole(v, f"{key}[{i}]") for i, v in enumerate(value))


def _unknown(raw: Mapping[str, Any], allowed: set[str], key: str) -> None:
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise DanTableError(f"{key}.{unknown[0]}", "unknown_key",
                            allowed=", ".join(sorted(allowed)))


LEVEL_KEYS = {"name", "points", "promote", "start", "demote"}
FAMILY_KEYS = {"points", "start", "start_points", "level"}


def _level(raw: Any, key: str, default_points: tuple[int, ...] | None, players: int) -> DanLevel:
    if not isinstance(raw, Mapping):
        raise DanTableError(key, "level_not_table")
    _unknown(raw, LEVEL_KEYS, key)
    if "name" not in raw:
        raise DanTableError(f"{key}.name", "missing_name")
    ja, en = name_pair(raw["name"], f"{key}.name")
    if "points" in raw:
        pts = _points(raw["points"], f"{key}.points", players)
    elif default_points is not None:
        pts = default_points
    else:
        raise DanTableError(f"{key}.points", "missing_points")
    promote = raw.get("promote")
    if promote is not None:
        promote = _whole(promote, f"{key}.promote", low=1)
    start = _whole(raw.get("start", 0), f"{key}.start", low=0)
    if promote is not None and start >= promote:
        raise DanTableError(f"{key}.start", "start_promotes", start=start, promote=promote)
    demote = raw.get("demote", False)
    if not isinstance(demote, bool):
        raise DanTableError(f"{key}.demote", "not_bool")
    return DanLevel(ja, en, pts, promote, start, demote)


def dan_table(raw: Any, family: str, players: int) -> DanTable:
    """One family's ladder from its TOML table (``[riichi4]`` with ``[[riichi4.level]]``)."""
    if not isinstance(raw, Mapping):
        raise DanTableError(family, "not_table")
    _unknown(raw, FAMILY_KEYS, family)
    default = _points(raw["points"], f"{family}.points", players) if "points" in raw else None
    levels_raw = raw.get("level")
    if not isinstance(levels_raw, list) or not levels_raw:
        raise DanTableError(f"{family}.level", "no_levels")
    levels = tuple(
        _level(lv, f"{family}.level[{i}]", default, players) for i, lv in enumerate(levels_raw)
    )
    for i, lv in enumerate(levels[:-1]):
        if lv.promote is None:
            raise DanTableError(f"{family}.level[{i}].promote", "missing_promote")
    if levels[-1].promote is not None:
        raise DanTableError(f"{family}.level[{len(levels) - 1}].promote", "top_promotes")
    if levels[0].demote:
        raise DanTableError(f"{family}.level[0].demote", "lowest_demotes")
    names = [lv.ja for lv in levels]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup:
        raise DanTableError(f"{family}.level", "name_twice", name=dup)
    first = 0
    if "start" in raw:
        name = raw["start"]
        if name not in names:
            raise DanTableError(f"{family}.start", "unknown_start", name=repr(name),
                                names=", ".join(names))
        first = names.index(name)
    # a newcomer arrives at the first rung as a promoted player would: with its start points
    # (0 at 二段 with demote would send a newcomer down after a single fourth place)
    first_points = levels[first].start
    if "start_points" in raw:
        first_points = _whole(raw["start_points"], f"{family}.start_points", low=0)
        promote = levels[first].promote
        if promote is not None and first_points >= promote:
            raise DanTableError(f"{family}.start_points", "start_promotes", start=first_points,
                                promote=promote)
    return DanTable(levels, first, first_points)


def dan_tables(data: Mapping[str, Any], families: Mapping[str, int]) -> dict[str, DanTable]:
    """Every family's ladder from a club's dan TOML (parsed); ``families`` maps each
    family id to its number of players. Refuses with the key at fault."""
    unknown = [k for k in data if k not in families]
    if unknown:
        raise DanTableError(unknown[0], "unknown_family", options=", ".join(families))
    return {fam: dan_table(raw, fam, families[fam]) for fam, raw in data.items()}


# --------------------------------------------------------------------------- the ladder
class Standing(NamedTuple):
    """A player's place in one family after some games."""

    rating: float = INITIAL_R
    games: int = 0
    level: int | None = None
    points: int = 0
    peak: float = INITIAL_R


class RatedSeat(NamedTuple):
    player: str | None
    """None for a guest: counted in the table average at the initial R, never rated."""
    rank: int


class RatedGame(NamedTuple):
    game_id: int
    ended_at: str
    length: str
    seats: tuple[RatedSeat, ...]


class RatingLine(NamedTuple):
    """One rated player's line of one game."""

    game_id: int
    seat: int
    player: str
    before: Standing
    after: Standing
    change: float
    dan_change: int = 0
    dan_moved: int = 0


@dataclass
class Ladder:
    """Every player's standing in one family; :meth:`apply` one game at a time, oldest first."""

    dan: DanTable | None = None
    standings: dict[str, Standing] = field(default_factory=dict)

    def standing(self, player: str) -> Standing:
        found = self.standings.get(player)
        if found is not None:
            return found
        if self.dan is None:
            return Standing()
        return Standing(level=self.dan.first, points=self.dan.first_points)

    def apply(self, game: RatedGame) -> list[RatingLine]:
        """Rate one finished game; returns a line per member (guests get none)."""
        before = [self.standing(s.player) if s.player is not None else None for s in game.seats]
        ratings = [b.rating if b else INITIAL_R for b in before]
        played = [b.games if b else 0 for b in before]
        ranks = [s.rank for s in game.seats]
        changes = rating_changes(ratings, played, ranks, game.length)
        out = []
        for i, seat in enumerate(game.seats):
            if seat.player is None:
                continue
            b = before[i]
            assert b is not None  # a member's seat has a standing
            rating = b.rating + changes[i]
            step = self._dan_step(b, ranks, i)
            after = Standing(
                rating, b.games + 1,
                step.level if step else b.level, step.points if step else b.points,
                max(b.peak, rating),
            )
            self.standings[seat.player] = after
            out.append(RatingLine(game.game_id, i, seat.player, b, after, changes[i],
                                  step.change if step else 0, step.moved if step else 0))
        return out

    def _dan_step(self, b: Standing, ranks: list[int], seat: int) -> DanStep | None:
        if self.dan is None or b.level is None:
            return None
        table = self.dan.levels[b.level].points
        if len(table) != len(ranks):
            return None  # a ladder for four players does not count a three-player game
        # a shared place shares its points; halves go up (15 and -5, never 14.5)
        earned = math.floor(shared_values(table, ranks)[seat] + 0.5)
        return dan_step(self.dan, b.level, b.points, earned)

    def run(self, games: Iterable[RatedGame]) -> list[RatingLine]:
        """Apply games in the order given; every line, in order."""
        out: list[RatingLine] = []
        for g in games:
            out.extend(self.apply(g))
        return out
