"""Player statistics and leaderboards, computed from replayed games. Pure: no I/O.

Three steps, each defined once:

1. :func:`player_games` turns one finished game (its events and the output of
   :func:`scoring.game.replay`) into one :class:`PlayerGame` line per seat:
   the facts a leaderboard needs (placement, settled result, wins, deal-ins...).
2. :func:`aggregate` folds a player's lines into a *sums* dict (every entry of
   :data:`SUMS` plus the two streak tails). Sums of consecutive stretches
   combine with :func:`combine`, so a store can keep one sums row per player
   and club day and answer any period by adding rows (the SQL it uses is
   generated from :data:`SUMS` too).
3. Every figure of :data:`FIGURES` (id, names, definition) is computed from a
   sums dict; :func:`rank_rows` orders players by :data:`TIE_RULE`.
   ``docs/stats.md`` is generated from these lists (:func:`stats_doc`).

Rule families are never mixed: :func:`rule_family` names the family of a rule
set, and a leaderboard takes lines of one family only.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from operator import attrgetter
from typing import Any, Callable, Iterable

FAMILIES = {
    "riichi4": ("四人打ち", "four-player riichi"),
    "riichi3": ("三人打ち", "three-player riichi"),
    "boo": ("ブー麻雀", "ブー麻雀 (victory points)"),
    "mcr": ("国際ルール", "MCR (international)"),
}

WIN_EVENTS = ("win",)
HAND_EVENTS = ("win", "draw", "abort")


def rule_family(rules: dict[str, Any]) -> str:
    """The leaderboard family of a resolved rule set (``Rules.to_dict()``)."""
    if rules["table"].get("family") == "mcr":
        return "mcr"
    if rules.get("settlement", {}).get("victory_points"):
        return "boo"
    return "riichi3" if rules["table"].get("players") == 3 else "riichi4"


def line_options(rules: dict[str, Any]) -> dict[str, Any]:
    """The keyword options of :func:`player_games` that a rule set decides.

    ``riichi_stake``: a riichi stick's value, taken out of a player's own win or
    deal-in value (it is a bet, not part of the hand); ``counts_bust``: whether
    finishing below zero means anything (not where everyone starts at 0, MCR)."""
    return {
        "riichi_stake": int(rules.get("points", {}).get("riichi_deposit", 0)),
        "counts_bust": rules.get("settlement", {}).get("start_points", 1) > 0,
    }


_TALLY: dict[str, Any] = {"tally": True}  # a count player_games adds up over the events


@dataclass(frozen=True)
class PlayerGame:
    """One player's line of one finished game: the one list of its facts (the stores'
    columns derive from these fields; those marked ``tally`` are counted over the events)."""

    game_id: int
    player: str
    seat: int
    players: int  # 3 or 4 at the table
    ended_at: str  # ISO time the game finished (orders streaks)
    rank: int  # 1 = top
    result: float  # settled result in the rule's unit (points or victory points)
    final_score: int  # raw points at the end
    busted: bool  # finished below zero (飛び)
    hands: int = field(metadata=_TALLY)  # hands played (wins, draws, aborts)
    wins: int = field(metadata=_TALLY)
    tsumo_wins: int = field(metadata=_TALLY)
    deal_ins: int = field(metadata=_TALLY)
    riichi: int = field(metadata=_TALLY)
    win_points: int = field(metadata=_TALLY)  # received over all winning hands (pay, honba, pot)
    deal_in_points: int = field(metadata=_TALLY)  # paid over all hands dealt into
    chips: int
    penalties: int = field(metadata=_TALLY)
    chombo: int = field(metadata=_TALLY)


def _seats_of(ev: dict[str, Any], key: str) -> list[int]:
    v = ev.get(key) or []
    return [s for s in v if isinstance(s, int)]


_TALLIED = tuple(f.name for f in fields(PlayerGame) if f.metadata.get("tally"))


def player_games(
    game_id: int,
    ended_at: str,
    events: list[dict[str, Any]],
    output: dict[str, Any],
    keys: list[str] | None = None,
    *,
    riichi_stake: int = 0,
    counts_bust: bool = True,
) -> list[PlayerGame]:
    """Facts per seat for a finished game; ``output`` is ``replay(events, rules)``.

    ``keys`` identifies the players (e.g. member ids) where names may repeat;
    by default the names of the ``start`` event are used. ``riichi_stake`` and
    ``counts_bust`` come from :func:`line_options` of the game's rules."""
    final = output["final"]
    players = keys or output["players"]
    n = len(players)
    tally = [dict.fromkeys(_TALLIED, 0) for _ in range(n)]
    deltas_by_event = {h["event"]: h["deltas"] for h in output["hands"]}
    for line, ev in enumerate(events, start=1):
        kind = ev.get("event")
        deltas = deltas_by_event.get(line, [0] * n)
        riichi = _seats_of(ev, "riichi")
        if kind in HAND_EVENTS:
            for t in tally:
                t["hands"] += 1
            for s in riichi:
                tally[s]["riichi"] += 1
        if kind in WIN_EVENTS:
            # A seat's own riichi stick is in its delta: put it back, it is a bet.
            own = [d + (riichi_stake if s in riichi else 0) for s, d in enumerate(deltas)]
            _count_win(tally, ev, own)
        elif kind == "chombo":
            tally[ev["seat"]]["chombo"] += 1
        elif kind == "penalty":
            tally[ev["seat"]]["penalties"] += 1
    return [
        PlayerGame(
            game_id=game_id,
            player=players[s],
            seat=s,
            players=n,
            ended_at=ended_at,
            rank=final["ranks"][s],
            result=final["result"][s],
            final_score=final["scores"][s],
            busted=counts_bust and final["scores"][s] < 0,
            chips=(final.get("chips") or [0] * n)[s],
            **tally[s],
        )
        for s in range(n)
    ]


def _count_win(tally: list[dict[str, Any]], ev: dict[str, Any], deltas: list[int]) -> None:
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


# --------------------------------------------------------------------------- sums
@dataclass(frozen=True)
class Sum:
    """One additive fact of a stretch of games: ``of(line)`` per game, then
    ``how`` ("sum" or "max") over the games."""

    name: str
    of: Callable[[PlayerGame], float | int]
    how: str = "sum"


def _last(x: PlayerGame) -> bool:
    return x.rank == x.players


SUMS: tuple[Sum, ...] = (
    Sum("games", lambda x: 1),
    Sum("total", lambda x: x.result),
    Sum("rank_sum", lambda x: x.rank),
    Sum("firsts", lambda x: int(x.rank == 1)),
    Sum("seconds", lambda x: int(x.rank == 2)),
    Sum("thirds", lambda x: int(x.rank == 3)),
    Sum("fourths", lambda x: int(x.rank == 4)),
    Sum("top2", lambda x: int(x.rank <= 2)),
    Sum("lasts", lambda x: int(_last(x))),
    Sum("busts", lambda x: int(x.busted)),
    *(
        Sum(n, attrgetter(n))
        for n in (
            "hands",
            "wins",
            "tsumo_wins",
            "deal_ins",
            "riichi",
            "win_points",
            "deal_in_points",
            "chips",
            "penalties",
            "chombo",
        )
    ),
    Sum("best", lambda x: x.result, "max"),
)

# Current streaks: a streak tail is the number of games at the end of a stretch
# since the last game that broke the streak (= games when none did).
STREAKS: dict[str, Callable[[PlayerGame], bool]] = {
    "streak_top2": lambda x: x.rank <= 2,
    "streak_no_last": lambda x: not _last(x),
}
SUM_NAMES = tuple(s.name for s in SUMS) + tuple(STREAKS)


def _time_key(x: PlayerGame) -> tuple[Any, ...]:
    return (x.ended_at, x.game_id)


def aggregate(lines: Iterable[PlayerGame]) -> dict[str, Any]:
    """The sums of one player's lines (any order; streaks follow ``ended_at``)."""
    lines = sorted(lines, key=_time_key)
    out: dict[str, Any] = {}
    for s in SUMS:
        values = [s.of(x) for x in lines]
        out[s.name] = (max(values) if values else None) if s.how == "max" else sum(values)
    for name, keeps in STREAKS.items():
        run = 0
        for x in lines:
            run = run + 1 if keeps(x) else 0
        out[name] = run
    return out


def combine(parts: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Sums of consecutive stretches, given oldest first, as one stretch's sums."""
    out = {s.name: (None if s.how == "max" else 0) for s in SUMS}
    out.update(dict.fromkeys(STREAKS, 0))
    for p in parts:
        for s in SUMS:
            if s.how == "max":
                vals = [v for v in (out[s.name], p[s.name]) if v is not None]
                out[s.name] = max(vals) if vals else None
            else:
                out[s.name] += p[s.name]
        for name in STREAKS:
            # A stretch with a break inside restarts the run from its own tail.
            out[name] = p[name] if p[name] < p["games"] else out[name] + p["games"]
    return out


# --------------------------------------------------------------------------- figures
@dataclass(frozen=True)
class Figure:
    id: str
    ja: str
    en: str
    doc: str
    compute: Callable[[dict[str, Any]], float | int | None]
    fmt: str = "{:.0f}"


def _rate(num: float, den: float) -> float | None:
    return None if not den else num / den


def _per_game(name: str) -> Callable[[dict[str, Any]], float | None]:
    return lambda a: _rate(a[name], a["games"])


def _per(name: str, den: str) -> Callable[[dict[str, Any]], float | None]:
    return lambda a: _rate(a[name], a[den])


def _get(name: str) -> Callable[[dict[str, Any]], float | int | None]:
    return lambda a: a[name]


FIGURES: tuple[Figure, ...] = (
    Figure("games", "対局数", "games", "finished games played", _get("games")),
    Figure(
        "total",
        "合計",
        "total",
        "sum of settled results (the rule's unit)",
        _get("total"),
        "{:+,.1f}",
    ),
    Figure("average", "平均", "average", "total / games", _per_game("total"), "{:+,.2f}"),
    Figure(
        "avg_rank",
        "平均順位",
        "average placement",
        "mean of placements (1 = top)",
        _per_game("rank_sum"),
        "{:.2f}",
    ),
    Figure("firsts", "1着", "1st", "games finished top", _get("firsts")),
    Figure("seconds", "2着", "2nd", "games finished second", _get("seconds")),
    Figure("thirds", "3着", "3rd", "games finished third", _get("thirds")),
    Figure("fourths", "4着", "4th", "games finished fourth (four-player only)", _get("fourths")),
    Figure("top_rate", "トップ率", "top rate", "firsts / games", _per_game("firsts"), "{:.1%}"),
    Figure(
        "top2_rate",
        "連対率",
        "top-two rate",
        "games finished first or second / games",
        _per_game("top2"),
        "{:.1%}",
    ),
    Figure(
        "last_rate",
        "ラス率",
        "last rate",
        "games finished last (3rd of 3 or 4th of 4) / games",
        _per_game("lasts"),
        "{:.1%}",
    ),
    Figure(
        "bust_rate",
        "飛び率",
        "bust rate",
        "games finished below zero points / games (never counted where everyone starts "
        "at 0, as in MCR)",
        _per_game("busts"),
        "{:.1%}",
    ),
    Figure(
        "win_rate",
        "和了率",
        "win rate",
        "hands won / hands played (wins, draws, aborts)",
        _per("wins", "hands"),
        "{:.1%}",
    ),
    Figure(
        "deal_in_rate",
        "放銃率",
        "deal-in rate",
        "hands dealt into (paid a ron) / hands played",
        _per("deal_ins", "hands"),
        "{:.1%}",
    ),
    Figure(
        "riichi_rate",
        "リーチ率",
        "riichi rate",
        "hands with a riichi declared / hands played",
        _per("riichi", "hands"),
        "{:.1%}",
    ),
    Figure(
        "tsumo_rate",
        "ツモ率",
        "tsumo rate",
        "self-drawn wins / wins",
        _per("tsumo_wins", "wins"),
        "{:.1%}",
    ),
    Figure(
        "avg_win",
        "平均打点",
        "average win value",
        "points received per winning hand: the payment, honba and the riichi sticks of "
        "the pot (the winner's own stick is a bet, not a cost of the hand)",
        _per("win_points", "wins"),
        "{:,.0f}",
    ),
    Figure(
        "avg_deal_in",
        "平均放銃点",
        "average deal-in value",
        "points paid per hand dealt into: the payment and honba (the discarder's own "
        "riichi stick left out)",
        _per("deal_in_points", "deal_ins"),
        "{:,.0f}",
    ),
    Figure(
        "chips", "祝儀", "chips", "sum of chips (祝儀) at settlement", _get("chips"), "{:+.0f}"
    ),
    Figure(
        "penalties",
        "罰符",
        "penalties",
        "penalty events (deposit, agari-houki, points)",
        _get("penalties"),
    ),
    Figure("chombo", "チョンボ", "chombo", "chombo events", _get("chombo")),
    Figure(
        "best",
        "最高成績",
        "best game",
        "highest settled result in one game",
        _get("best"),
        "{:+,.1f}",
    ),
    Figure(
        "streak_top2",
        "連続連対",
        "top-two streak",
        "current run of games finished first or second (newest games of the period)",
        _get("streak_top2"),
    ),
    Figure(
        "streak_no_last",
        "連続ラス回避",
        "no-last streak",
        "current run of games not finished last (newest games of the period)",
        _get("streak_no_last"),
    ),
)
FIGURE_IDS = tuple(f.id for f in FIGURES)
_BY_ID = {f.id: f for f in FIGURES}

TIE_RULE = (
    "rows are ordered by total (higher first), then average placement (lower first), "
    "then games (more first), then player name"
)


def figures(sums: dict[str, Any]) -> dict[str, Any]:
    """Every figure of :data:`FIGURES` from one player's sums."""
    return {f.id: f.compute(sums) for f in FIGURES}


def rank_rows(
    sums_by_player: dict[str, dict[str, Any]], *, min_games: int = 1,
    names: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Ranked rows from each player's sums, players with fewer than ``min_games`` left out.

    ``names`` maps a player key to the name the tie rule sorts by (default: the key).

    Each row holds ``rank``, ``player`` and every figure; ties are broken by
    :data:`TIE_RULE` and rows equal on total, average placement and games share
    a rank (the next rank skips, 1, 1, 3)."""
    names = names or {}
    rows = [
        {"player": p, **figures(s)}
        for p, s in sums_by_player.items()
        if s["games"] >= max(min_games, 1)
    ]
    rows.sort(key=lambda r: (*_order_key(r)[:3], names.get(r["player"], r["player"]), r["player"]))
    prev, rank = None, 0
    for i, row in enumerate(rows, start=1):
        key = _order_key(row)[:3]
        if key != prev:
            rank, prev = i, key
        row["rank"] = rank
    return rows


def leaderboard(lines: Iterable[PlayerGame], *, min_games: int = 1) -> list[dict[str, Any]]:
    """Ranked rows, one per player with at least ``min_games`` games (see :func:`rank_rows`)."""
    by_player: dict[str, list[PlayerGame]] = {}
    for line in lines:
        by_player.setdefault(line.player, []).append(line)
    return rank_rows({p: aggregate(ls) for p, ls in by_player.items()}, min_games=min_games)


def _order_key(row: dict[str, Any]) -> tuple[Any, ...]:
    return (-row["total"], row["avg_rank"], -row["games"], row["player"])


def format_figure(figure_id: str, value: object) -> str:
    """A figure as a person reads it (``—`` where it is undefined, e.g. no wins yet)."""
    if value is None:
        return "—"
    return _BY_ID[figure_id].fmt.format(value)


def figure(figure_id: str) -> Figure:
    """The :class:`Figure` with this id."""
    return _BY_ID[figure_id]


def line_to_dict(line: PlayerGame) -> dict[str, Any]:
    return asdict(line)


def line_from_dict(d: dict[str, Any]) -> PlayerGame:
    names = {f.name for f in fields(PlayerGame)}
    return PlayerGame(**{k: v for k, v in d.items() if k in names})


def stats_doc() -> str:
    """The text of ``docs/stats.md``, generated from :data:`FIGURES` (a test keeps it current)."""
    out = [
        "# Statistics reference",
        "",
        "Generated from `scoring/stats.py` (`scoring.stats.stats_doc()`); do not edit by hand —",
        "`tests/scoring/test_stats.py::test_docs_stats_md_is_current` fails when this file is "
        "stale.",
        "",
        "A player's figures come from the lines of their finished games "
        "(`scoring.stats.player_games`). Voided games are left out; a corrected game counts "
        "as corrected. Rule families are never mixed: "
        + ", ".join(f"`{k}` ({en})" for k, (_, en) in FAMILIES.items())
        + ".",
        "",
        "Periods (`day`, `month`, `season`, `all`, or a custom range of days) are made of "
        "club days: a game belongs to the club day on which it finished, and a club day ends "
        "at the club's closing hour (default 05:00 Asia/Tokyo), not at midnight. The "
        "`season` period is the quarter (四半期): January-March, April-June, "
        "July-September, October-December; the club's own named seasons are below.",
        "",
        f"Order and ties: {TIE_RULE}; rows with equal total, average placement and games "
        "share a rank (1, 1, 3). Players below the minimum number of games are left out.",
        "",
        "| id | 日本語 | English | definition |",
        "|---|---|---|---|",
    ]
    out += [f"| `{f.id}` | {f.ja} | {f.en} | {f.doc} |" for f in FIGURES]
    out += [
        "",
        "A rate whose denominator is zero (no hands, no wins) is shown as `—`, never 0.",
        "",
        *_rating_doc(),
        *_MONEY,
        *_USAGE,
    ]
    return "\n".join(out)


def _rating_doc() -> list[str]:
    from . import rating  # local: the rating module is only needed for this text

    bases = "; ".join(
        f"{n} players {' / '.join(f'{b:+d}' if b else '0' for b in row)}"
        for n, row in rating.BASES.items()
    )
    scale = ", ".join(f"{k} {v:.3g}" for k, v in rating.LENGTH_SCALE.items())
    return [
        "## R rating (レーティング)",
        "",
        f"Every member starts at R{rating.INITIAL_R:.0f} in each rule family (never mixed; a "
        "rule set's family is the one above). After each finished game:",
        "",
        "```",
        "change = (placement base + (table average R - own R) / "
        f"{rating.AVERAGE_DIVISOR}) x games correction x length scale",
        "```",
        "",
        f"* placement base: {bases}; players who share a place (settlement.ties = share) "
        "share the bases of the places they cover (1st and 2nd tied: +20 each);",
        "* table average R: every seat; a guest counts at the starting R and is never rated "
        "(guests get no R, no line, no place in an R ranking);",
        f"* games correction: 1 - {rating.GAMES_SLOPE} x games played before this one, "
        f"{rating.SETTLED_CORRECTION} from the {rating.SETTLED_AFTER}th game on: a newcomer's "
        "R moves fast, then settles;",
        f"* length scale (`game.length` of the game's rules): {scale}. Tenhou publishes one "
        "scaling factor for its ranked lobbies; a hanchan (and MCR's four-wind game) takes "
        "the formula as it is, a tonpuu, half the hands, two thirds of it, the ratio of "
        "Tenhou's own dan points for 東風戦 and 東南戦.",
        "",
        f"Source: {rating.SOURCE}.",
        "",
        "Games are rated in the order they finished (then by game id). A game is rated in "
        "the same transaction that finishes it; a game entered late, a staff correction or "
        "a void re-rates every later game of its family from that game on, and a rebuild "
        "(a new dan table, a new closing hour, a repair) re-rates the family from its "
        "first game with the same arithmetic, so both give the same R to the last bit. "
        "Leaderboards show each member's R and dan at the end of the period; "
        f"`order=rating` ranks {rating.RATING_TIE_RULE}.",
        "",
        "## Dan table (段位表)",
        "",
        "Optional, one per club, uploaded on the staff console (`/staff/standings`) as TOML: "
        "a ladder per rule family, lowest level first. Each level has a name (`\"初段\"` or "
        "`[\"初段\", \"1 dan\"]`), `points` per placement (1st first; or once for the "
        "family), `promote` (points that take a player up; every level but the highest), "
        "`start` (points on arriving, default 0) and `demote` (whether falling below 0 drops "
        "a player to the level below, at that level's start points; otherwise points stop "
        "at 0). `start = \"name\"` on the family names the level new players begin at; "
        "a new player arrives there with that level's `start` points, as a promoted player "
        "would (so with `start = \"二段\"` below, a newcomer has 50 points at 二段 and a "
        "single fourth place, -20, does not demote them), or with `start_points` on the "
        "family when it is given (below that level's `promote`). "
        "Reaching `promote` moves a player up at the next level's start points. Shared "
        "places share their points (halves go up). A ladder counts only games with as many "
        "players as its points. A refusal names the key at fault "
        "(`riichi4.level[2].promote: 0 is below 1`) and changes nothing; a new table re-rates "
        "every game.",
        "",
        "```toml",
        "[riichi4]",
        "points = [20, 10, 0, -10]",
        "[[riichi4.level]]",
        "name = [\"初段\", \"1 dan\"]",
        "promote = 100",
        "[[riichi4.level]]",
        "name = [\"二段\", \"2 dan\"]",
        "start = 50",
        "demote = true",
        "points = [20, 10, 0, -20]",
        "```",
        "",
        "## Seasons and leagues (シーズン)",
        "",
        "A named period with its own standings, uploaded beside the dan table: `id`, `name`, "
        "`start`, `end` (club days), `min_games` (players with fewer games are listed apart, "
        "not ranked) and, optionally, `family`. `/leaderboard/?season=<id>`.",
        "",
        "```toml",
        "[[season]]",
        "id = \"2026-spring\"",
        "name = [\"2026 春季リーグ\", \"2026 spring league\"]",
        "start = 2026-04-01",
        "end = 2026-06-30",
        "min_games = 20",
        "```",
        "",
    ]


_MONEY = """## Money: game fees, top prize, chips (the `[money]` section of a rule set)

Money is rule data (docs/rules.md, `[money]`); the defaults charge nothing, and points
are never turned into money. Each game keeps the rules it was played under, so a later
change to a rule set never rewrites a day. Per finished game (a void game counts nothing):

* game fee (場代): `per_game` (`fee` yen from each player) or `per_hour` (`fee` yen an
  hour from each player, for every started `fee_unit_minutes` block from the game's start
  to its end); `fee_payer = "top"` has the top pay the whole table's (トップ払い);
* top prize (トップ賞): `top_prize` yen to the top, paid by the club (`house`) or by each
  other player (`others`, the top receives it from each);
* chips (祝儀): each player's net chips at the settlement x `chip_yen`, paid between the
  players.

Amounts shared by several players (shared tops) are split in whole yen; the yen left
over go one each to the first of them in seat order, so every split adds up.

A player's account for the day (精算) adds up their games of the club day: fees, top
prize (+ received, - paid), chips and their yen, and the net (+ the player receives,
- the player pays). The tablet shows it under the settlement sheet of every finished
game; the staff console at `/staff/report`.

The daily report (日報) of a club day: per table (games, players, minutes in play between
the opening hour and the closing hour, occupancy = minutes in play / minutes open, fees,
top prizes by the club and between players, chips and their yen), per rule set, the
total (every column adds up to the sum of either list), each player's account, and the
club's summary (fees received, top prizes it paid, net). The opening hour is a club-day
setting (`python -m web club-day --opening-hour 12:00`, default 12:00). Games still being
played are listed and not counted. Games played outside the opening hours stretch the
hours occupancy is counted over, and the report says how many there were.

A club may set a rule set's money on the console (`/staff/money`, a manager): the same
switches, kept as club data over the rule set's `[money]` and previewed on a sample game;
a game stores the money it starts under. Every amount reads one way on every page and
paper: `¥1,000` received, `-¥600` paid, so a player's lines add up to their net. A game
fee over the amusement-business caps for automatic tables (¥600 per person per hour or
¥2,400 per table per hour, before tax; club data) is warned about on the form and in the
日報. The till (`/staff/till`) checks each player's net off as paid (cash, card, chips);
with everyone settled in cash the drawer equals the 日報's cash line (fees less the top
prizes the club paid, less card and chip settlements).
""".splitlines()


_USAGE = """## Where to see them

* Web (open to the club network, Japanese first, `?lang=en`):
  `/leaderboard/?family=riichi4&period=month&day=YYYY-MM-DD&min_games=N`
  (`period=range&start=...&end=...`; `format=json` for the rows),
  `/leaderboard/players/<id>?family=...` (R and dan, R over time, figures month by
  month, the settled result of every game and the placement distribution as SVG charts),
  `order=rating` ranks by R, `season=<id>` shows a named season,
  `/leaderboard/games/<id>` (the score line of every hand).
* `python -m web leaderboard --db FILE [--family riichi4] [--period month] [--day D]
  [--start D --end D] [--min-games N] [--order rating] [--json]`.
* `python -m web club-day --db FILE [--closing-hour HH:MM] [--timezone TZ]
  [--opening-hour HH:MM]` shows or changes when a club day ends (changing it
  recomputes the summary tables and the ratings) and when the floor opens (the daily
  report's occupancy).
* Staff console: `/staff/report?day=YYYY-MM-DD` (the daily report and every player's
  account; `/staff/report/<tables|rules|accounts>.csv`, `/staff/report/print`),
  `/staff/standings` (the dan table and seasons).
* Tablet: each seat's R and dan when a game starts; each player's account for the day
  under the settlement sheet.

## The nightly export

`python -m club.export --db FILE [--date YYYY-MM-DD] --out DIR [--keep N] [--min-games N]` (default:
yesterday's club day; `deploy/jantaku-export.timer` runs it every morning) writes
`DIR/YYYY-MM-DD/`:

| file | rows |
|---|---|
| `games.csv`, `games.json` | the day's finished games (one CSV row per player) |
| `hands.csv`, `hands.json` | every hand of those games: deltas and points after it |
| `leaderboard-month-<family>.csv`, `leaderboard-all-<family>.csv` | month to date, all time |
| `leaderboards.json` | both leaderboards of every family played |
| `leaderboards.html` | the same with charts, self-contained (no scripts, prints on A4) |
| `daily-report-tables.csv`, `daily-report-rules.csv` | 日報 by table, by rule set; total last |
| `accounts.csv` | each player's account for the day, a total row last |
| `daily-report.json`, `daily-report.html` | the whole report; the page prints on A4 |
| `manifest.json` | the club day's span, the games still open (`open_games`: id, table, start), every other file: bytes, rows, SHA-256 |

Leaderboard rows carry each member's R and dan at the end of the period.
CSV files are UTF-8 with a BOM and CRLF line ends (Excel on a Japanese PC). The daily
report's headings are Japanese first (`場代（円） (game fees, yen)`), yen are written with
separators (`12,300`, which Excel reads as the number) and occupancy as `62.5%`. Files hold
no time of the run and are sorted, so a second run is byte-identical. The folder is
written beside the target, fsynced and swapped in with one rename: a crash leaves the
old export or the new one. A progress bar shows on a terminal. Every time in a file
(a game's start and end, the club day's span, the report's hours) is in the club's time
zone with its offset, ISO 8601: `2026-11-26T21:05:00+09:00`. A game still being played
does not hold the night back: the finished games are exported, the open ones are listed
in `manifest.json` under `open_games` (and on stderr), and each is counted on the club
day it finishes. The folders are 0700 and the files 0600 whatever the umask
(`accounts.csv` holds member numbers and money). Exit status: 0 written, 2 the database
cannot be read or an option is wrong.
""".splitlines()  # noqa: E501 (a table row of the page is one line)
