"""Players merged on this box, folded into the member they were merged into for the
box's own rankings.

Staff confirm that two player records are one person (``chain.members``): the
second record is marked ``merged_into`` the first, and the hand log and games stay
exactly as recorded. The leaderboard then shows one row for the person: the kept
record's, with the games of every record merged into it (followed through a merge of a
merge), worked out from their summary lines in time order as one player's, so that
streaks and bests are the person's, not a sum of two players' figures.
"""

from __future__ import annotations

from typing import Any

from club import engine


def kept_of(db: Any) -> dict[int, int]:
    """Each merged player's id → the id of the member their records now count for (the
    end of the chain of merges; a loop, which staff cannot make, is left unfolded)."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' "
                      "AND name = 'chain_links'").fetchone():
        return {}  # a club file without the chain's sets has no merges
    direct = {int(p): int(k) for p, k in db.execute(
        "SELECT l.player_id, l.merged_into FROM chain_links l WHERE l.merged_into IS NOT NULL "
        "AND l.id = (SELECT MAX(id) FROM chain_links WHERE player_id = l.player_id)")}
    out: dict[int, int] = {}
    for p in direct:
        seen, k = {p}, direct[p]
        while k in direct and k not in seen:
            seen.add(k)
            k = direct[k]
        if k not in seen:
            out[p] = k
    return out


def fold(db: Any, sums: dict[str, dict], family: str, first_day: str, last_day: str,
         line_sql: str, as_line: Any) -> dict[str, dict]:
    """``sums`` (player key → sums over the period) with every merged player's row folded
    into the kept member's row, recomputed from the summary lines of all their records
    (``line_sql`` selects them, ``as_line`` reads one)."""
    kept = kept_of(db)
    if not kept or not any(int(p) in kept for p in sums):
        return sums
    groups: dict[int, list[int]] = {}
    for p, k in kept.items():
        groups.setdefault(k, [k]).append(p)
    out = {p: s for p, s in sums.items() if int(p) not in kept}
    for k, ids in groups.items():
        if not any(str(i) in sums for i in ids):
            continue
        marks = ",".join("?" * len(ids))
        lines = [as_line(r) for r in db.execute(
            f"{line_sql} WHERE family = ? AND club_day BETWEEN ? AND ? "
            f"AND player_id IN ({marks})", [family, first_day, last_day, *ids])]
        if lines:
            out[str(k)] = engine.aggregate(lines)
    return out
