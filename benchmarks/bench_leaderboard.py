"""Time the leaderboards with ratings, a ratings rebuild, the daily report and a full
nightly export on synthetic club-years.

    python benchmarks/bench_leaderboard.py --fractions 0.1 1.0 [--dir /tmp/jantaku-bench]

For each fraction a database is made with ``gen_club_year.py`` (or reused if
the file is already there), then:

* ``leaderboard``: ``club.stats_store.leaderboard`` for all time, four-player
  riichi (the biggest family), every row with its R and dan, median of 7 runs
  on a warm connection; ``leaderboard_by_r``: the same ranked by R;
  ``leaderboard_month``: a past month (R as of its last day);
* ``leaderboard_cold``: the all-time board on a fresh connection (first query);
* ``rating_rebuild``: ``club.rating_store.rebuild`` of every family from its first
  game (what a new dan table or closing hour costs), median of 3;
* ``daily_report``: ``club.daily_report.report`` of the busiest club day, median of 7;
* ``export``: ``python -m web export`` of the busiest club day of the last month, in
  a subprocess (a real run: open, check, build, fsync, rename), median of 3.

Prints one JSON line per fraction with each figure beside its bound, and the
growth from the smallest to the largest fraction (bounds: leaderboard with
ratings < 200 ms, ratings rebuild of a club-year < 5 s, export < 30 s, growth
no worse than linear in the number of games).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from club import daily_report, rating_store, stats_store  # noqa: E402
from club.db import connect  # noqa: E402
from club.schema import migrate  # noqa: E402


def _ms(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def ensure_db(folder: Path, fraction: float) -> Path:
    path = folder / f"club-{fraction:g}.sqlite"
    if not path.exists():
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "benchmarks" / "gen_club_year.py"),
                "--db",
                str(path),
                "--fraction",
                str(fraction),
            ],
            check=True,
        )
    return path


def bench(path: Path) -> dict:
    db = connect(str(path))
    migrate(db)  # a database made by an older generator gets the newer summary tables
    last = db.execute("SELECT MAX(club_day) FROM stats_days").fetchone()[0]
    busiest = db.execute(
        "SELECT club_day FROM stats_lines WHERE club_day > date(?, '-31 days') "
        "GROUP BY club_day ORDER BY COUNT(DISTINCT game_id) DESC, club_day LIMIT 1",
        [last],
    ).fetchone()[0]
    games = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    hands = db.execute(
        "SELECT COUNT(*) FROM hand_events WHERE kind IN ('win', 'draw', 'abort')"
    ).fetchone()[0]

    def board():
        return stats_store.leaderboard(db, "riichi4", "0001-01-01", last)

    rows = len(board())
    warm = _ms(board, 7)
    by_r = _ms(lambda: stats_store.leaderboard(db, "riichi4", "0001-01-01", last,
                                               order="rating"), 7)
    month = last[:8] + "01"
    past = (date.fromisoformat(month) - timedelta(days=1)).isoformat()
    month_ms = _ms(lambda: stats_store.leaderboard(db, "riichi4", past[:8] + "01", past), 7)
    rated = sum(rating_store.rebuild(db).values())
    rebuild_s = _ms(lambda: rating_store.rebuild(db), 3) / 1000
    report_ms = _ms(lambda: daily_report.report(db, busiest), 7)
    fees = daily_report.report(db, busiest)["summary"]["fees"]
    db.conn.close()

    def cold():
        c = connect(str(path))
        stats_store.leaderboard(c, "riichi4", "0001-01-01", last)
        c.conn.close()

    cold_ms = _ms(cold, 3)
    out = Path(tempfile.mkdtemp(prefix="jantaku-export-bench-"))
    try:

        def export():
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "web",
                    "export",
                    "--db",
                    str(path),
                    "--date",
                    busiest,
                    "--out",
                    str(out),
                ],
                check=True,
                cwd=ROOT,
                capture_output=True,
            )

        export_s = _ms(export, 3) / 1000
        day_games = sum(1 for _ in json.loads((out / busiest / "games.json").read_text()))
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return {
        "db": str(path),
        "games": games,
        "hands": hands,
        "players_on_board": rows,
        "leaderboard_ms": round(warm, 1),
        "leaderboard_bound_ms": 200,
        "leaderboard_by_r_ms": round(by_r, 1),
        "leaderboard_month_ms": round(month_ms, 1),
        "leaderboard_cold_ms": round(cold_ms, 1),
        "rated_games": rated,
        "rating_rebuild_s": round(rebuild_s, 2),
        "rating_rebuild_bound_s": 5,
        "daily_report_ms": round(report_ms, 1),
        "daily_report_fees_yen": fees,
        "export_day": busiest,
        "export_day_games": day_games,
        "export_s": round(export_s, 2),
        "export_bound_s": 30,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fractions", type=float, nargs="+", default=[0.1, 1.0])
    ap.add_argument("--dir", default=str(Path(tempfile.gettempdir()) / "jantaku-bench"))
    args = ap.parse_args(argv)
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    results = []
    for f in sorted(args.fractions):
        r = {"fraction": f, **bench(ensure_db(folder, f))}
        results.append(r)
        print(json.dumps(r, ensure_ascii=False), flush=True)
    if len(results) > 1:
        a, b = results[0], results[-1]
        scale = b["games"] / a["games"]
        print(
            json.dumps(
                {
                    "games_ratio": round(scale, 1),
                    "leaderboard_ratio": round(b["leaderboard_ms"] / a["leaderboard_ms"], 2),
                    "rating_rebuild_ratio": round(b["rating_rebuild_s"] / a["rating_rebuild_s"], 2),
                    "export_ratio": round(b["export_s"] / a["export_s"], 2),
                    "targets": {"leaderboard_ms": 200, "rating_rebuild_s": 5, "export_s": 30},
                    "of_bound": {
                        "leaderboard": round(b["leaderboard_ms"] / 200, 3),
                        "leaderboard_by_r": round(b["leaderboard_by_r_ms"] / 200, 3),
                        "rating_rebuild": round(b["rating_rebuild_s"] / 5, 3),
                        "export": round(b["export_s"] / 30, 3),
                    },
                    "ok": b["leaderboard_ms"] < 200
                    and b["leaderboard_by_r_ms"] < 200
                    and b["rating_rebuild_s"] < 5
                    and b["export_s"] < 30
                    and b["leaderboard_ms"] / a["leaderboard_ms"] <= scale * 1.2,
                }
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
