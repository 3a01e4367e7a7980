"""Player statistics and leaderboards, computed from replayed games. Pure: no I/O.

Two steps, each defined once:

1. :func:`player_games` turns one finished game (its events and the output of
   :func:`scoring.game.replay`) into one :class:`PlayerGame` line per seat:
   the facts a leaderboard needs (placement, settled result, wins, deal-ins...).
   Stores keep these lines in a summary table, so a leaderboard never replays
   a year of games.
2. :func:`leaderboard` aggregates lines into ranked rows. Every figure is an
   entry of :data:`FIGURES` (id, names, definition) and ``docs/stats.md`` is
   generated from that list.

Rule families are never mixed: :func:`rule_family` names the family of a rule
set, and a leaderboard takes lines of one family only.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Callable, Iterable

FAMILIES = {
    "riichi4": ("四人打ち", "four-player riichi"),
    "riichi3": ("三人打ち", "three-player riichi"),
    "boo": ("ブー麻雀", "ブー麻雀 (victory points)"),
    "mcr": ("国際ルール", "MCR (international)"),
}

WIN_EVENTS = ("win",)
HAND_EVENTS = ("win", "draw", "abort")


def rule_family(rules: dict) -> str:
    """The leaderboard family of a resolved rule set (``Rules.to_dict()``)."""
    if rules["table"].get("family") == "mcr":
        return "mcr"
    if rules.get("settlement", {}).get("victory_points"):
        return "boo"
    return "riichi3" if rules["table"].get("players") == 3 else "riichi4"


@dataclass(frozen=True)
class PlayerGame:
    """One player's line of one finished game."""

    game_id: int
    player: str
    seat: int
    players: int          # 3 or 4 at the table
    ended_at: str         # ISO time the game finished (orders streaks)
    rank: int             # 1 = top
    result: float         # settled result in the rule's unit (points or victory points)
    final_score: int      # raw points at the end
    busted: bool          # finished below zero (飛び)
    hands: int            # hands played (wins, draws, aborts)
    wins: int
    tsumo_wins: int
    deal_ins: int
    riichi: int
    win_points: int       # points gained over all winning hands (honba and deposits included)
    deal_in_points: int   # points paid over all hands dealt into
    chips: int
    penalties: int
    chombo: int


def _seats_of(ev: dict, key: str) -> list[int]:
    v = ev.get(key) or []
    return [s for s in v if isinstance(s, int)]


def player_games(game_id: int, ended_at: str, events: list[dict], output: dict,
                 keys: list[str] | None = None) -> list[PlayerGame]:
    """Facts per seat for a finished game; ``output`` is ``replay(events, rules)``.

    ``keys`` identifies the players (e.g. member ids) where names may repeat;
    by default the names of the ``start`` event are used."""
    final = output["final"]
    players = keys or output["players"]
    n = len(players)
    tally = [dict.fromkeys(("hands", "wins", "tsumo_wins", "deal_ins", "riichi", "win_points",
                            "deal_in_points", "penalties", "chombo"), 0) for _ in range(n)]
    deltas_by_event = {h["event"]: h["deltas"] for h in output["hands"]}
    for line, ev in enumerate(events, start=1):
        kind = ev.get("event")
        deltas = deltas_by_event.get(line, [0] * n)
        if kind in HAND_EVENTS:
            for t in tally:
                t["hands"] += 1
            for s in _seats_of(ev, "riichi"):
                tally[s]["riichi"] += 1
        if kind in WIN_EVENTS:
            _count_win(tally, ev, deltas)
        elif kind == "chombo":
            tally[ev["seat"]]["chombo"] += 1
        elif kind == "penalty":
            tally[ev["seat"]]["penalties"] += 1
    return [
        PlayerGame(
            game_id=game_id, player=players[s], seat=s, players=n, ended_at=ended_at,
            rank=final["ranks"][s], result=final["result"][s], final_score=final["scores"][s],
            busted=final["scores"][s] < 0, chips=(final.get("chips") or [0] * n)[s], **tally[s],
        )
        for s in range(n)
    ]


def _count_win(tally: list[dict], ev: dict, deltas: list[int]) -> None:
    src = ev.get("from")
    for w in ev.get("winners", []):
        s = w["seat"]
        tally[s]["wins"] += 1
        tally[s]["win_points"] += max(deltas[s], 0)
        if src is None:
            tally[s]["tsumo_wins"] += 1
    if src is not None:
        tally[src]["deal_ins"] += 1
        tally[src]["deal_in_points"] += max(-deltas[src], 0)


# --------------------------------------------------------------------------- figures
@dataclass(frozen=True)
class Figure:
    id: str
    ja: str
    en: str
    doc: str
    compute: Callable[["_Acc"], float | int | None]
    fmt: str = "{:.0f}"


class _Acc:
    """Running sums for one player; figures read from it."""

    def __init__(self, player: str):
        self.player = player
        self.lines: list[PlayerGame] = []

    def add(self, line: PlayerGame) -> None:
        self.lines.append(line)

    def total(self, name: str) -> float:
        return sum(getattr(x, name) for x in self.lines)

    def count(self, pred) -> int:
        return sum(1 for x in self.lines if pred(x))

    @property
    def games(self) -> int:
        return len(self.lines)

    def rate(self, num: float, den: float) -> float | None:
        return None if den == 0 else num / den

    def streak(self, pred) -> int:
        n = 0
        for x in sorted(self.lines, key=lambda x: (x.ended_at, x.game_id), reverse=True):
            if not pred(x):
                break
            n += 1
        return n


def _last(x: PlayerGame) -> bool:
    return x.rank == x.players


FIGURES: tuple[Figure, ...] = (
    Figure("games", "対局数", "games", "finished games played", lambda a: a.games),
    Figure("total", "合計", "total", "sum of settled results (the rule's unit)",
           lambda a: a.total("result"), "{:+.1f}"),
    Figure("average", "平均", "average", "total / games", lambda a: a.rate(a.total("result"), a.games),
           "{:+.2f}"),
    Figure("avg_rank", "平均順位", "average placement", "mean of placements (1 = top)",
           lambda a: a.rate(a.total("rank"), a.games), "{:.2f}"),
    Figure("firsts", "1着", "1st", "games finished top", lambda a: a.count(lambda x: x.rank == 1)),
    Figure("seconds", "2着", "2nd", "games finished second", lambda a: a.count(lambda x: x.rank == 2)),
    Figure("thirds", "3着", "3rd", "games finished third", lambda a: a.count(lambda x: x.rank == 3)),
    Figure("fourths", "4着", "4th", "games finished fourth (four-player only)",
           lambda a: a.count(lambda x: x.rank == 4)),
    Figure("top_rate", "トップ率", "top rate", "firsts / games",
           lambda a: a.rate(a.count(lambda x: x.rank == 1), a.games), "{:.1%}"),
    Figure("top2_rate", "連対率", "top-two rate", "games finished first or second / games",
           lambda a: a.rate(a.count(lambda x: x.rank <= 2), a.games), "{:.1%}"),
    Figure("last_rate", "ラス率", "last rate", "games finished last (3rd of 3 or 4th of 4) / games",
           lambda a: a.rate(a.count(_last), a.games), "{:.1%}"),
    Figure("bust_rate", "飛び率", "bust rate", "games finished below zero points / games",
           lambda a: a.rate(a.count(lambda x: x.busted), a.games), "{:.1%}"),
    Figure("win_rate", "和了率", "win rate", "hands won / hands played",
           lambda a: a.rate(a.total("wins"), a.total("hands")), "{:.1%}"),
    Figure("deal_in_rate", "放銃率", "deal-in rate", "hands dealt into (paid a ron) / hands played",
           lambda a: a.rate(a.total("deal_ins"), a.total("hands")), "{:.1%}"),
    Figure("riichi_rate", "立直率", "riichi rate", "hands with a riichi declared / hands played",
           lambda a: a.rate(a.total("riichi"), a.total("hands")), "{:.1%}"),
    Figure("tsumo_rate", "ツモ率", "tsumo rate", "self-drawn wins / wins",
           lambda a: a.rate(a.total("tsumo_wins"), a.total("wins")), "{:.1%}"),
    Figure("avg_win", "平均打点", "average win value",
           "points gained per winning hand (honba and deposits included)",
           lambda a: a.rate(a.total("win_points"), a.total("wins"))),
    Figure("avg_deal_in", "平均放銃点", "average deal-in value", "points paid per hand dealt into",
           lambda a: a.rate(a.total("deal_in_points"), a.total("deal_ins"))),
    Figure("chips", "チップ", "chips", "sum of chips (祝儀) at settlement", lambda a: a.total("chips"),
           "{:+.0f}"),
    Figure("penalties", "罰符", "penalties", "penalty events (deposit, agari-houki, points)",
           lambda a: a.total("penalties")),
    Figure("chombo", "チョンボ", "chombo", "chombo events", lambda a: a.total("chombo")),
    Figure("best", "最高成績", "best game", "highest settled result in one game",
           lambda a: max((x.result for x in a.lines), default=None), "{:+.1f}"),
    Figure("streak_top2", "連続連対", "top-two streak", "current run of games finished first or second",
           lambda a: a.streak(lambda x: x.rank <= 2)),
    Figure("streak_no_last", "連続ラス回避", "no-last streak", "current run of games not finished last",
           lambda a: a.streak(lambda x: not _last(x))),
)
FIGURE_IDS = tuple(f.id for f in FIGURES)

TIE_RULE = (
    "rows are ordered by total (higher first), then average placement (lower first), "
    "then games (more first), then player name"
)


def leaderboard(lines: Iterable[PlayerGame], *, min_games: int = 1) -> list[dict]:
    """Ranked rows, one per player with at least ``min_games`` games.

    Each row holds ``rank``, ``player`` and every figure of :data:`FIGURES`;
    ties are broken by :data:`TIE_RULE` and equal keys share a rank.
    """
    accs: dict[str, _Acc] = {}
    for line in lines:
        accs.setdefault(line.player, _Acc(line.player)).add(line)
    rows = []
    for acc in accs.values():
        if acc.games < min_games:
            continue
        row = {"player": acc.player}
        for f in FIGURES:
            row[f.id] = f.compute(acc)
        rows.append(row)
    rows.sort(key=_order_key)
    prev, rank = None, 0
    for i, row in enumerate(rows, start=1):
        key = _order_key(row)[:3]
        if key != prev:
            rank, prev = i, key
        row["rank"] = rank
    return rows


def _order_key(row: dict) -> tuple:
    return (-row["total"], row["avg_rank"], -row["games"], row["player"])


def format_figure(figure_id: str, value) -> str:
    """A figure as a person reads it (``—`` where it is undefined, e.g. no wins yet)."""
    if value is None:
        return "—"
    f = next(f for f in FIGURES if f.id == figure_id)
    return f.fmt.format(value)


def line_to_dict(line: PlayerGame) -> dict:
    return asdict(line)


def line_from_dict(d: dict) -> PlayerGame:
    names = {f.name for f in fields(PlayerGame)}
    return PlayerGame(**{k: v for k, v in d.items() if k in names})


def stats_doc() -> str:
    """The text of ``docs/stats.md``, generated from :data:`FIGURES`."""
    out = [
        "# Statistics reference",
        "",
        "Generated from `scoring/stats.py` (`python -m scoring stats-doc`); do not edit by hand.",
        "",
        "A player's figures come from the lines of their finished games "
        "(`scoring.stats.player_games`). Rule families are never mixed: "
        + ", ".join(f"`{k}` ({en})" for k, (_, en) in FAMILIES.items()) + ".",
        "",
        f"Order and ties: {TIE_RULE}; rows with equal total, average placement and games share a rank.",
        "",
        "| id | 日本語 | English | definition |",
        "|---|---|---|---|",
    ]
    out += [f"| `{f.id}` | {f.ja} | {f.en} | {f.doc} |" for f in FIGURES]
    out += [
        "",
        "A rate whose denominator is zero (no hands, no wins) is shown as `—`, never 0.",
        "",
    ]
    return "\n".join(out)
