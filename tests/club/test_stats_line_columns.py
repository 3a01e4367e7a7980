"""stats_lines' columns are derived from the one PlayerGame field list (scoring/stats.py)."""

from __future__ import annotations

import dataclasses

from club import stats_store
from scoring.stats import PlayerGame


def test_line_columns_are_the_player_game_fields_and_the_table_holds_them(db):
    fields = [f.name for f in dataclasses.fields(PlayerGame)]
    cols = list(stats_store.LINE_COLUMNS)
    assert [c for c in cols if c not in ("player_id", "family", "club_day")] == \
        [f for f in fields if f != "player"]
    stored = [r[1] for r in db.execute("PRAGMA table_info(stats_lines)").fetchall()]
    assert sorted(stored) == sorted(cols)
