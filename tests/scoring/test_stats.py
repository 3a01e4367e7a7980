"""scoring.stats (pure): each fact of a game line and each figure computed by hand.

The fixture games are nekohouse-4a hanchan (002 ねこはうす 4A: 25,000 start,
30,000 return, oka 20,000 to the top, uma +30/+10/-10/-30); the expected
settled results below were worked out by hand from those rules and the
point tables (mangan 8,000 / dealer 12,000; 1 han 30 fu ron 1,000; 2 han 30
fu ron 2,000; non-dealer mangan tsumo 2,000/4,000).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring import game, stats
from scoring.rules import load_rules

ROOT = Path(__file__).resolve().parents[2]

G1 = [
    {"event": "start", "players": list("ABCD")},
    # B (non-dealer) rons the dealer A for a mangan with riichi: the pot is B's own stick
    {"event": "win", "winners": [{"seat": 1, "han": 5, "fu": 30}], "from": 0, "riichi": [1]},
    {"event": "win", "winners": [{"seat": 2, "han": 1, "fu": 30}], "from": 3},
    {"event": "win", "winners": [{"seat": 3, "han": 5, "fu": 30}]},  # D tsumo mangan
    {"event": "draw", "tenpai": [0, 1, 2, 3]},
    {"event": "end"},
]
G2 = [
    {"event": "start", "players": list("BCDE")},
    # both declared riichi; E rons the dealer B: 8,000 + the pot of 2 sticks
    {"event": "win", "winners": [{"seat": 3, "han": 5, "fu": 30}], "from": 0, "riichi": [3, 0]},
    {"event": "win", "winners": [{"seat": 2, "han": 2, "fu": 30}], "from": 1},
    {"event": "end"},
]
G3 = [
    {"event": "start", "players": list("ABCD")},
    {"event": "win", "winners": [{"seat": 1, "han": 5, "fu": 30}], "from": 2},
    {"event": "win", "winners": [{"seat": 0, "han": 5, "fu": 30}]},
    {"event": "end"},
]
TIMES = ["2026-03-31T11:00:00+00:00", "2026-04-01T17:30:00+00:00", "2026-04-01T21:00:00+00:00"]

# By hand: player -> figure -> value, over the three games in time order.
EXPECTED = {
    "A": dict(
        games=2,
        total=8000,
        average=4000,
        avg_rank=2.5,
        firsts=1,
        seconds=0,
        thirds=0,
        fourths=1,
        top_rate=0.5,
        top2_rate=0.5,
        last_rate=0.5,
        bust_rate=0.0,
        win_rate=1 / 6,
        deal_in_rate=1 / 6,
        riichi_rate=0.0,
        tsumo_rate=1.0,
        avg_win=8000,
        avg_deal_in=8000,
        chips=0,
        penalties=0,
        chombo=0,
        best=53000,
        streak_top2=1,
        streak_no_last=1,
    ),
    "B": dict(
        games=3,
        total=-24000,
        average=-8000,
        avg_rank=8 / 3,
        firsts=0,
        seconds=2,
        thirds=0,
        fourths=1,
        top_rate=0.0,
        top2_rate=2 / 3,
        last_rate=1 / 3,
        win_rate=2 / 8,
        deal_in_rate=1 / 8,
        riichi_rate=2 / 8,
        tsumo_rate=0.0,
        # G1: 8,000 + the pot (its own stick); G3: 8,000
        avg_win=(9000 + 8000) / 2,
        # G2: paid 8,000; its own riichi stick is not part of the deal-in
        avg_deal_in=8000,
        best=11000,
        streak_top2=1,
        streak_no_last=1,
    ),
    "C": dict(
        games=3,
        total=-80000,
        avg_rank=10 / 3,
        thirds=2,
        fourths=1,
        win_rate=1 / 8,
        # dealt into D in G2 (2,000) and into B in G3 (8,000)
        deal_in_rate=2 / 8,
        avg_win=1000,
        avg_deal_in=5000,
        best=-17000,
        streak_top2=0,
        streak_no_last=0,
    ),
    "D": dict(
        games=3,
        total=42000,
        avg_rank=2.0,
        firsts=1,
        seconds=1,
        thirds=1,
        win_rate=2 / 8,
        tsumo_rate=0.5,
        avg_win=5000,
        deal_in_rate=1 / 8,
        avg_deal_in=1000,
        best=52000,
        streak_top2=0,
        streak_no_last=3,
    ),
    "E": dict(
        games=1,
        total=54000,
        avg_rank=1.0,
        win_rate=0.5,
        riichi_rate=0.5,
        avg_win=10000,
        avg_deal_in=None,
        tsumo_rate=0.0,
        best=54000,
    ),
}


def lines_of(events, gid, when, preset="nekohouse-4a"):
    rules = load_rules(preset).to_dict()
    out = game.replay(events, preset)
    return stats.player_games(gid, when, events, out, **stats.line_options(rules))


@pytest.fixture(scope="module")
def club_lines():
    return [x for i, g in enumerate((G1, G2, G3)) for x in lines_of(g, i + 1, TIMES[i])]


def test_game_lines_by_hand():
    a, b, c, d = lines_of(G1, 1, TIMES[0])
    assert [x.rank for x in (a, b, c, d)] == [4, 2, 3, 1]
    assert [x.result for x in (a, b, c, d)] == [-45000, 11000, -18000, 52000]
    assert [x.hands for x in (a, b, c, d)] == [4, 4, 4, 4]  # the end event is not a hand
    assert (b.wins, b.riichi, b.win_points) == (1, 1, 9000)
    assert (a.deal_ins, a.deal_in_points) == (1, 8000)
    assert (d.wins, d.tsumo_wins, d.win_points, d.deal_ins, d.deal_in_points) == (
        1,
        1,
        8000,
        1,
        1000,
    )
    assert not any(x.busted for x in (a, b, c, d))


def test_every_figure_by_hand(club_lines):
    rows = {r["player"]: r for r in stats.leaderboard(club_lines)}
    for player, figs in EXPECTED.items():
        for fid, want in figs.items():
            got = rows[player][fid]
            if want is None:
                assert got is None, (player, fid)
            else:
                assert got == pytest.approx(want), (player, fid, got)


def test_order_ties_and_minimum(club_lines):
    assert [r["player"] for r in stats.leaderboard(club_lines)] == list("EDABC")
    assert [(r["player"], r["rank"]) for r in stats.leaderboard(club_lines, min_games=2)] == [
        ("D", 1),
        ("A", 2),
        ("B", 3),
        ("C", 4),
    ]


def test_tie_rule():
    def sums(total, ranks):
        lines = [
            stats.PlayerGame(
                i,
                "x",
                0,
                4,
                f"2026-01-0{i}",
                r,
                total / len(ranks),
                0,
                False,
                1,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
            )
            for i, r in enumerate(ranks, 1)
        ]
        return stats.aggregate(lines)

    rows = stats.rank_rows(
        {
            "b": sums(10, [1, 4]),
            "a": sums(10, [1, 4]),
            "c": sums(10, [2, 2]),
            "d": sums(10, [2, 3, 1, 4]),
            "e": sums(20, [4]),
        },
        names={"a": "青木", "b": "伊藤"},
    )
    # total first; then average placement (c 2.0 < 2.5); then more games (d); then the name
    assert [(r["player"], r["rank"]) for r in rows] == [
        ("e", 1),
        ("c", 2),
        ("d", 3),
        ("b", 4),
        ("a", 4),
    ]


def test_combine_equals_aggregate(club_lines):
    by = {}
    for x in club_lines:
        by.setdefault(x.player, []).append(x)
    for lines in by.values():
        lines.sort(key=lambda x: x.ended_at)
        # one part per game, and one part for everything: the same sums
        assert stats.combine(stats.aggregate([x]) for x in lines) == stats.aggregate(lines)
        assert stats.combine(
            [stats.aggregate(lines[:1]), stats.aggregate(lines[1:])]
        ) == stats.aggregate(lines)


def test_streak_restarts_after_a_break():
    def line(i, rank):
        return stats.PlayerGame(
            i, "p", 0, 4, f"2026-01-{i:02d}", rank, 0, 0, False, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0
        )

    ranks = [1, 2, 4, 2, 1, 3, 2]
    s = stats.aggregate([line(i, r) for i, r in enumerate(ranks, 1)])
    assert (s["streak_top2"], s["streak_no_last"]) == (1, 4)
    parts = [
        stats.aggregate([line(i, r) for i, r in enumerate(ranks[:3], 1)]),
        stats.aggregate([line(i, r) for i, r in enumerate(ranks[3:], 4)]),
    ]
    assert stats.combine(parts)["streak_no_last"] == 4


def test_chombo_penalty_bust_and_mcr_never_busts():
    ev = [
        {"event": "start", "players": list("ABCD")},
        {"event": "chombo", "seat": 2},
        {"event": "penalty", "seat": 1, "kind": "deposit_1000"},
        {"event": "win", "winners": [{"seat": 0, "yakuman": 1}], "from": 3},
    ]  # D busts
    lines = lines_of(ev, 9, TIMES[0], "nekohouse-4a")
    assert lines[2].chombo == 1 and lines[1].penalties == 1
    assert lines[3].busted and lines[3].final_score < 0
    assert stats.line_options(load_rules("mcr").to_dict())["counts_bust"] is False


def test_families_are_told_apart():
    fam = {
        p: stats.rule_family(load_rules(p).to_dict())
        for p in ("nekohouse-4a", "nekohouse-3a", "nekohouse-boo", "mcr", "mahjongbu")
    }
    assert fam == {
        "nekohouse-4a": "riichi4",
        "nekohouse-3a": "riichi3",
        "nekohouse-boo": "boo",
        "mcr": "mcr",
        "mahjongbu": "riichi4",
    }


def test_format_figure():
    assert stats.format_figure("top_rate", 0.25) == "25.0%"
    assert stats.format_figure("avg_win", None) == "—"
    assert stats.format_figure("total", 8000) == "+8,000.0"


def test_docs_stats_md_is_current():
    doc = (ROOT / "docs" / "stats.md").read_text(encoding="utf-8")
    assert doc == stats.stats_doc(), (
        'docs/stats.md is stale: regenerate it with\n  python -c "import scoring.stats as s; '
        "open('docs/stats.md', 'w').write(s.stats_doc())\""
    )
    for f in stats.FIGURES:
        assert f"`{f.id}`" in doc
