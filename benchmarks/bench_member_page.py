"""Time a member's own page beside the leaderboard page on a synthetic club-year.

    python benchmarks/bench_member_page.py [--fraction 1.0] [--dir /tmp/jantaku-bench]
                                           [--requests 200]

The database is made with ``gen_club_year.py`` as ``bench_leaderboard.py`` makes it
(or reused if the file is already there). The busiest member (most games) gets a
personal link and a few penalties and chombo on record; then, through the app's own
request handling (Flask's test client: routing, the page's queries, Jinja, the SVG
chart; no network), in the same run and interleaved, so both see the same machine:

* ``member_page``: ``GET /m/<token>``, the busiest member's page, today's club day;
* ``member_page_day``: the same page on the member's busiest club day (``?day=``);
* ``leaderboard_page``: ``GET /leaderboard/?family=riichi4&period=all``, the all-time board.

Prints one JSON line: p50 and p99 of each in milliseconds, the member page's p99
divided by the leaderboard page's p99 (``ratio_p99``), and the bound the ratio is held
to (the member page may cost at most what the leaderboard costs: ratio <= 1).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_leaderboard import ensure_db  # noqa: E402
from club import members, stats_store  # noqa: E402
from club.db import connect  # noqa: E402
from web import create_app  # noqa: E402

RATIO_BOUND = 1.0


def _pct(times: list[float], q: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _penalties(db, player_id: int, n: int = 3) -> list[tuple[int, int]]:
    """Mark ``n`` of the member's last finished games as holding a chombo of theirs (a
    synthetic year has none), so the page reads and replays those games' logs to find
    the hand, as it does on a real club; :func:`_unmark` puts the lines back."""
    found = [tuple(r) for r in db.execute(
        "SELECT game_id, seat FROM stats_lines WHERE player_id = ? "
        "ORDER BY club_day DESC, game_id DESC LIMIT ?", [player_id, n]).fetchall()]
    for game_id, seat in found:
        db.execute("UPDATE stats_lines SET chombo = chombo + 1 WHERE game_id = ? AND seat = ?",
                   [game_id, seat])
    db.conn.commit()
    return found


def _unmark(db, marked: list[tuple[int, int]]) -> None:
    for game_id, seat in marked:
        db.execute("UPDATE stats_lines SET chombo = chombo - 1 WHERE game_id = ? AND seat = ?",
                   [game_id, seat])
    db.conn.commit()


def bench(path: Path, requests: int) -> dict:
    app = create_app({"DATABASE": str(path), "SECRET_KEY": "bench", "TESTING": True,
                      "COOKIE_SECURE": False})
    db = connect(str(path))
    pid, games = db.execute(
        "SELECT s.player_id, COUNT(*) AS n FROM stats_lines s JOIN players p "
        "ON p.id = s.player_id WHERE p.guest = 0 GROUP BY s.player_id "
        "ORDER BY n DESC LIMIT 1").fetchone()
    if not db.execute("SELECT member_no FROM players WHERE id = ?", [pid]).fetchone()[0]:
        db.execute("UPDATE players SET member_no = ? WHERE id = ?",
                   [f"B{uuid.uuid4().hex[:8]}", pid])
        db.conn.commit()
    token, _ = members.issue_link(db, pid)
    marked = _penalties(db, pid)
    busiest_day = db.execute(
        "SELECT club_day FROM stats_lines WHERE player_id = ? GROUP BY club_day "
        "ORDER BY COUNT(*) DESC, club_day DESC LIMIT 1", [pid]).fetchone()[0]
    today = stats_store.today(stats_store.settings(db))
    try:
        out = _timed(app, token, busiest_day, requests)
    finally:
        _unmark(db, marked)
        db.conn.close()
    return {"db": str(path), "member_games": games, "today": today,
            "member_busiest_day": busiest_day, "penalties_on_record": len(marked), **out}


def _timed(app, token: str, busiest_day: str, requests: int) -> dict:

    client = app.test_client()
    urls = {"member_page": f"/m/{token}",
            "member_page_day": f"/m/{token}?day={busiest_day}",
            "leaderboard_page": "/leaderboard/?family=riichi4&period=all"}
    for url in urls.values():              # warm: the first request of each loads templates
        r = client.get(url)
        assert r.status_code == 200, (url, r.status_code, r.get_data(as_text=True)[:300])
    times: dict[str, list[float]] = {k: [] for k in urls}
    for _ in range(requests):
        for name, url in urls.items():
            t = time.perf_counter()
            r = client.get(url)
            times[name].append((time.perf_counter() - t) * 1000)
            assert r.status_code == 200
    out: dict = {"requests_each": requests}
    for name, ts in times.items():
        out[f"{name}_p50_ms"] = round(statistics.median(ts), 1)
        out[f"{name}_p99_ms"] = round(_pct(ts, 0.99), 1)
    worst = max(out["member_page_p99_ms"], out["member_page_day_p99_ms"])
    out["ratio_p99"] = round(worst / out["leaderboard_page_p99_ms"], 2)
    out["ratio_bound"] = RATIO_BOUND
    out["ok"] = out["ratio_p99"] <= RATIO_BOUND
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fraction", type=float, default=1.0)
    ap.add_argument("--dir", default=str(Path(tempfile.gettempdir()) / "jantaku-bench"))
    ap.add_argument("--requests", type=int, default=200)
    args = ap.parse_args(argv)
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    r = {"fraction": args.fraction, **bench(ensure_db(folder, args.fraction), args.requests)}
    print(json.dumps(r, ensure_ascii=False), flush=True)
    return 0 if r["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
