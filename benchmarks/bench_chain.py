"""Time the chain's sync: N branches × a club's days each into one head office on
PostgreSQL, each branch signed in as its own PostgreSQL role (row-level security on),
then one branch's busy day, the head office's pages while branches sync, and the cost of
row-level security.

    python benchmarks/bench_chain.py [--branches 20] [--days 365] [--workers 2]
                                     [--dir /tmp/jantaku-chain-bench] [--url postgresql://...]
    python benchmarks/bench_chain.py --quick      # a smoke run: 2 branches, a few games
    python benchmarks/bench_chain.py --pages-only --url postgresql://... --dir ...
                                     # the pages again over what a full run synced

The branch's club file is made once with ``gen_club_year.py`` (``--days`` club days at a
club's real pace: a club-year's 60,000 games over 365 days, about 164 a day; reused if
already in ``--dir``) and copied for every branch: the head office gets the rows of N
different branches (keyed by branch), the box side is the same work each time. Each
branch is registered as the operator does (``branches.add_branch``: a login role of its
own) and syncs with that login. Without ``--url`` a throwaway PostgreSQL cluster is
started as the tests do (``tests/support/postgres.py``) and stopped at the end; a
``--url`` must be a login that may create roles. Then:

* ``sync``: each branch's first sync (``chain.sync.run``, batches of 5,000
  changes, COPY for big ones, verified): rows, seconds and rows/s per branch and in all;
* ``branch_day``: a box that played one busy club day (a club-year's first day: about
  164 games), synced into the head office that already holds every branch: seconds
  (bound < 5 s) and rows/s;
* ``box_export_day``: the same day's ``python -m web export`` on that box, in a
  subprocess (the single box's own figure for a day's records, from the same run);
* ``resync_nothing``: a run with nothing new (what the timer costs every minute).
* ``ho_refresh``: the head office's background refresh after the syncs (derived tables:
  members' day rows, R across branches; then the leaderboards built ahead), which no
  request waits for; ``ho_boards``: a second process's share (its own boards only);
* ``chain_leaderboard``, ``member_history``: p50/p99 of the head office's month
  leaderboard page over every branch as a request meets it (built ahead; its first 100
  rows), ``chain_leaderboard_json`` (every row as JSON), ``chain_leaderboard_odd`` (a
  period not built ahead, worked out on request), and a member's history across
  branches, beside ``box_leaderboard``: the same month's leaderboard on one branch's box;
* ``head_office_report``: while one more branch's first sync (a whole box) and a few
  busy days' syncs run beside it, each sync its own process as on a box: p50/p99 of the
  month leaderboard page (bound < 200 ms) and of today's chain 日報 (built ahead; as
  JSON and as the page; bound < 200 ms), counting only the requests made while a sync
  ran; then a past day's 日報: its first request (worked out from PostgreSQL) and the
  rest (kept for that synced state);
* ``rls``: the cost of row-level security: the same queries (a branch's month of
  summary lines grouped per player; its hand events counted, as the sync's check does)
  as the branch's own login (the policy applies) and as the head office's superuser
  login (no policy), p50 of each and their ratio.

Prints one JSON line per figure and a summary line with the bounds.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import gen_club_year  # noqa: E402

DAY_BOUND_S = 5.0


def ensure_db(path: Path, days: float, workers: int) -> Path:
    """The synthetic club file of ``days`` club days at a club's real pace (made if
    missing; less than a day: that part of a day's games, all on one day)."""
    if not path.exists():
        info = gen_club_year.generate(str(path), min(days / 365, 1.0), workers, "2025-04-01",
                                      span=max(1, int(days)))
        print(json.dumps({"generated": path.name, **info}), flush=True)
    return path


def make_day_box(path: Path, start: str = "2025-04-01", games: int | None = None) -> Path:
    """A club file holding one busy club day: the first day's games of a full club-year
    (about 164 games, or ``games``, all on ``start``), made as ``gen_club_year.py`` makes
    a year."""
    if path.exists():
        return path
    from club import rating_store, stats_store

    db = gen_club_year._setup(str(path))
    cfg = stats_store.settings(db)
    rules_json = {p: json.dumps({**gen_club_year._rules(p).to_dict(),
                                 "money": gen_club_year.MONEY[p]}, ensure_ascii=False)
                  for p, _ in gen_club_year.PRESETS}
    per_day = games or gen_club_year.YEAR_GAMES // 365
    db.conn.execute("BEGIN")
    for i in range(per_day):
        gen_club_year._insert(db, gen_club_year.build((i, gen_club_year.YEAR_GAMES, start)),
                              rules_json, cfg)
    db.conn.execute("COMMIT")
    stats_store.rebuild_days(db)
    rating_store.rebuild(db)
    db.conn.close()
    return path


def copy(src: Path, dst: Path) -> Path:
    """A consistent copy of a club file (SQLite's backup)."""
    dst.unlink(missing_ok=True)
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)
    return dst


LEADERBOARD_BOUND_MS = 200.0


def branch_login(url: str, branch: str) -> str:
    """Register ``branch`` at the head office as its operator does and return the URL of
    its own login role (row-level security holds it to its own rows)."""
    from psycopg.conninfo import make_conninfo

    from chain import branches, pg_schema

    with pg_schema.connect(url) as pg:
        role, password = branches.add_branch(pg, branch, f"branch {branch}", "bench")
    return make_conninfo(url, user=role, password=password)


def rls_figures(url: str, login: str, branch: str, year_box: Path, runs: int = 40) -> dict:
    """The same queries as ``branch``'s own login (the row-level policy applies) and as
    the head office's superuser login (no policy): p50 of each in milliseconds and the
    ratio with/without."""
    import psycopg

    with sqlite3.connect(year_box) as c:
        last = c.execute("SELECT MAX(club_day) FROM stats_lines").fetchone()[0]
    first = last[:8] + "01"
    queries = {
        "month_lines": ("SELECT player_id, count(*), sum(result) FROM chain.game_lines "
                        "WHERE branch = %s AND club_day BETWEEN %s AND %s GROUP BY player_id",
                        [branch, first, last]),
        "count_events": ("SELECT count(*) FROM chain.hand_events WHERE branch = %s",
                         [branch]),
    }
    out: dict = {}
    ratios = []
    for name, (sql, params) in queries.items():
        p50 = {}
        for who, conninfo in (("with_rls", login), ("without_rls", url)):
            with psycopg.connect(conninfo, autocommit=True) as pg:
                rows = pg.execute(sql, params).fetchall()  # warm: plans and caches
                assert rows, (name, who)
                times = []
                for _ in range(runs):
                    t0 = time.perf_counter()
                    pg.execute(sql, params).fetchall()
                    times.append(time.perf_counter() - t0)
            p50[who] = _p(times, .5)
        ratio = p50["with_rls"] / max(p50["without_rls"], 0.1)
        ratios.append(ratio)
        out.update({f"rls_{name}_with_ms": p50["with_rls"],
                    f"rls_{name}_without_ms": p50["without_rls"],
                    f"rls_{name}_ratio": round(ratio, 2)})
    out["rls_ratio"] = round(max(ratios), 2)
    return out


def _p(times: list[float], q: float) -> float:
    times = sorted(times)
    return round(1000 * times[min(len(times) - 1, int(q * len(times)))], 1)


def head_office_figures(url: str, year_box: Path, runs: int = 40) -> dict:
    """The head office's reading side over what the branches synced, and the single box's
    leaderboard of the same month, in one run (p50 and p99 in milliseconds). The club day
    the head office reads as today is the year's last, so its month is built ahead."""
    from chain import ho_questions, pg_schema
    from club import stats_store
    from club.db import connect
    from headoffice import create_app

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.support.headoffice import signed_in

    with sqlite3.connect(year_box) as c:
        last = c.execute("SELECT MAX(club_day) FROM stats_lines").fetchone()[0]
    first, last = stats_store.period_range("month", last)
    odd = (stats_store.parse_day(last) - timedelta(days=1)).isoformat()
    out: dict = {}
    with pg_schema.connect(url) as pg:
        ho_questions.migrate(pg)
    # the refresher's work after the syncs: derived tables rebuilt, standard boards built
    ref = ho_questions.Refresher(url, today=last)
    t0 = time.perf_counter()
    while ref.tick() == "busy":  # another process (an earlier run's) holds the rebuild
        time.sleep(1)
    out["ho_refresh_s"] = round(time.perf_counter() - t0, 1)
    ref.stop()
    # another process's share when the tables are already in step: its own boards
    app = create_app(url, refresh_every=3600, today=last)
    built = app.extensions["headoffice_refresher"].built
    out["ho_boards_s"] = round(built.seconds, 2)
    family = built.families[0]
    client = signed_in(app)
    # what a request meets: the page (HTML, first 100 rows) of the month built ahead,
    # all its rows as JSON, and a period not built ahead (worked out on request)
    for name, path in (("chain_leaderboard", f"/leaderboard?family={family}&day={last}"),
                       ("chain_leaderboard_json",
                        f"/leaderboard?family={family}&day={last}&format=json"),
                       ("chain_leaderboard_odd", f"/leaderboard?family={family}&day={odd}")):
        client.get(path)
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            r = client.get(path)
            times.append(time.perf_counter() - t0)
            assert r.status_code == 200, r.status_code
        out.update({f"{name}_p50_ms": _p(times, .5), f"{name}_p99_ms": _p(times, .99)})
    rows = client.get(f"/leaderboard?family={family}&day={last}&format=json").get_json()["rows"]
    out["chain_leaderboard_rows"] = len(rows)
    sample = [r["member"] for r in rows[:runs]]
    times = []
    for m in sample:
        t0 = time.perf_counter()
        client.get(f"/members/{m}?format=json")
        times.append(time.perf_counter() - t0)
    out.update(member_history_p50_ms=_p(times, .5), member_history_p99_ms=_p(times, .99))
    app.extensions["headoffice_refresher"].stop()
    box = connect(str(year_box))
    try:
        stats_store.leaderboard(box, family, first, last)  # warm: the first read opens it
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            stats_store.leaderboard(box, family, first, last)
            times.append(time.perf_counter() - t0)
    finally:
        box.conn.close()
    out.update(box_leaderboard_p50_ms=_p(times, .5), box_leaderboard_p99_ms=_p(times, .99),
               month=f"{first}..{last}", family=family,
               chain_leaderboard_bound_ms=LEADERBOARD_BOUND_MS,
               chain_leaderboard_ok=out["chain_leaderboard_p99_ms"] < LEADERBOARD_BOUND_MS)
    return out


REPORT_BOUND_MS = 200.0


def head_office_report_figures(url: str, year_box: Path, day_box: Path, folder: Path,
                               syncs: int = 3, runs: int = 40, tag: str = "") -> dict:
    """The head office's pages as a request meets them while branches sync (p50 and p99 in
    milliseconds): the month leaderboard page and today's chain 日報 (built ahead by the
    refresher) requested in a loop while one more branch's first sync (a whole box) and
    ``syncs`` busy days sync in batches beside it, each with its branch's own login; then
    a past day's 日報 (worked out on request, from PostgreSQL directly) with nothing
    syncing. The club day read as today is the year's last, as for the leaderboards."""
    import threading

    from headoffice import create_app
    from tests.support.headoffice import signed_in

    with sqlite3.connect(year_box) as c:
        last = c.execute("SELECT MAX(club_day) FROM stats_lines").fetchone()[0]
    past = (date.fromisoformat(last) - timedelta(days=1)).isoformat()
    app = create_app(url, refresh_every=1.0, today=last)
    ref = app.extensions["headoffice_refresher"]
    client = signed_in(app)
    out: dict = {"report_day": last, "report_build_s": round(ref.reports.seconds, 2)}
    try:
        today_path = f"/report?day={last}&format=json"
        assert client.get(today_path).status_code == 200  # starts the refresher's thread
        board_path = f"/leaderboard?family={ref.built.families[0]}&day={last}"
        boxes = [(f"during{tag}-year", year_box)] + [(f"during{tag}-{k}", day_box)
                                                     for k in range(syncs)]
        logins = {b: branch_login(url, b) for b, _ in boxes}
        done = threading.Event()
        synced: list = []

        def syncing() -> None:
            # each branch's sync is its own process (it runs on its box), in batches
            try:
                for b, src in boxes:
                    box = copy(src, folder / f"{b}.sqlite")
                    synced.append(subprocess.run(
                        [sys.executable, "-m", "web", "sync", "--to", logins[b], "--db",
                         str(box), "--branch", b, "--batch", "500"], cwd=ROOT,
                        capture_output=True, text=True).returncode)
            finally:
                done.set()

        before = ref.reports
        t = threading.Thread(target=syncing)
        t.start()
        times: list[float] = []
        pages: list[float] = []
        boards: list[float] = []
        # only what a request meets while a sync runs is counted
        while not done.is_set():
            for path, into in ((today_path, times), (today_path.replace("&format=json", ""),
                                                     pages), (board_path, boards)):
                t0 = time.perf_counter()
                r = client.get(path)
                took = time.perf_counter() - t0
                assert r.status_code == 200, (path, r.status_code)
                if not done.is_set():
                    into.append(took)
            time.sleep(0.02)
        t.join()
        assert synced == [0] * len(boxes), synced
        if not times:
            raise SystemExit("the syncs ended before a request was made: use more --days")
        out.update(chain_leaderboard_during_syncs_p50_ms=_p(boards, .5),
                   chain_leaderboard_during_syncs_p99_ms=_p(boards, .99),
                   report_today_during_syncs_p50_ms=_p(times, .5),
                   report_today_during_syncs_p99_ms=_p(times, .99),
                   report_today_page_during_syncs_p50_ms=_p(pages, .5),
                   report_today_page_during_syncs_p99_ms=_p(pages, .99),
                   requests_during_syncs=len(times),
                   report_syncs=len(synced), report_built_again=ref.reports is not before)
        times = []
        for _ in range(runs + 1):
            t0 = time.perf_counter()
            r = client.get(f"/report?day={past}&format=json")
            times.append(time.perf_counter() - t0)
            assert r.status_code == 200, r.status_code
        # the first request works the day out; the rest get it kept for that synced state
        out.update(report_past_day_first_ms=round(1000 * times[0], 1),
                   report_past_day_kept_p50_ms=_p(times[1:], .5),
                   report_past_day_kept_p99_ms=_p(times[1:], .99),
                   report_bound_ms=REPORT_BOUND_MS,
                   report_ok=max(out["report_today_during_syncs_p99_ms"],
                                 out["report_today_page_during_syncs_p99_ms"])
                   < REPORT_BOUND_MS,
                   chain_leaderboard_during_syncs_ok=out[
                       "chain_leaderboard_during_syncs_p99_ms"] < LEADERBOARD_BOUND_MS)
    finally:
        ref.stop()
    return out


def pages_again(url: str, year: Path, day: Path, folder: Path, runs: int, syncs: int,
                quick: bool) -> int:
    """The head office's page figures once more over what an earlier full run synced;
    the branches synced beside the requests are named after this run."""
    ho = head_office_figures(url, year, runs)
    print(json.dumps({"figure": "head_office", **ho}), flush=True)
    rep = head_office_report_figures(url, year, day, folder, syncs, runs,
                                     tag=time.strftime("%H%M%S"))
    print(json.dumps({"figure": "head_office_report", **rep}), flush=True)
    ok = (ho["chain_leaderboard_ok"] and rep["report_ok"]
          and rep["chain_leaderboard_during_syncs_ok"])
    print(json.dumps({"pages_only": True, "all_page_bounds_met": ok,
                      "branches_synced_beside": rep["report_syncs"]}), flush=True)
    return 0 if ok or quick else 1


def busiest_day(path: Path) -> str:
    with sqlite3.connect(path) as c:
        return c.execute("SELECT club_day FROM stats_lines GROUP BY club_day "
                         "ORDER BY count(*) DESC LIMIT 1").fetchone()[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--branches", type=int, default=20)
    ap.add_argument("--days", type=float, default=365, help="club days per branch at a "
                    "club's pace (365: a club-year, about 60,000 games)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--dir", default=None, help="folder for the club files (kept, reused)")
    ap.add_argument("--url", default=None, help="an empty head office database, as a login "
                    "that may create roles (default: a throwaway cluster)")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 2 branches of a few "
                    "games, few requests; the bounds are printed, not judged")
    ap.add_argument("--pages-only", action="store_true", help="with --url of a head office "
                    "a full run synced: only the pages again (idle and while new branches "
                    "sync, named after this run)")
    args = ap.parse_args(argv)
    if args.quick:
        args.branches, args.days = 2, 0.1
    if args.branches < 1 or not 0 < args.days <= 365:
        print("--branches must be at least 1 and --days above 0 and at most 365",
              file=sys.stderr)
        return 2
    runs, syncs, day_games = (10, 1, 12) if args.quick else (40, 3, None)

    from chain import pg_schema, sync

    folder = Path(args.dir or tempfile.mkdtemp(prefix="jantaku-chain-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    year = ensure_db(folder / f"branch-{args.days:g}d.sqlite", args.days, args.workers)
    day = make_day_box(folder / ("branch-day-quick.sqlite" if args.quick
                                 else "branch-day.sqlite"), games=day_games)

    cluster = None
    url = args.url
    if args.pages_only:
        if url is None:
            print("--pages-only needs the --url of a head office a full run synced",
                  file=sys.stderr)
            return 2
        return pages_again(url, year, day, folder, runs, syncs, args.quick)
    if url is None:
        from tests.support import postgres

        reason = postgres.missing_reason()
        if reason:
            print(f"cannot run: {reason}", file=sys.stderr)
            return 2
        cluster = postgres.Cluster()
        cluster.start()
        url = cluster.new_database("bench")
    try:
        pg_schema.migrate_url(url)
        total_rows, total_s = 0, 0.0
        per_branch = []
        logins = {}
        for i in range(args.branches):
            b = f"b{i:02d}"
            logins[b] = branch_login(url, b)
            box = copy(year, folder / "box.sqlite")
            res = sync.run(str(box), logins[b], b)
            assert not res.differences, res.differences
            total_rows += res.rows
            total_s += res.seconds
            per_branch.append(res.rows / res.seconds)
            print(json.dumps({"figure": "sync", "branch": res.branch, "changes": res.changes,
                              "rows": res.rows, "seconds": round(res.seconds, 2),
                              "rows_per_s": round(res.rows / res.seconds)}), flush=True)
        again = sync.run(str(box), logins[b])
        print(json.dumps({"figure": "resync_nothing", "seconds": round(again.seconds, 3)}),
              flush=True)

        day_box = copy(day, folder / "day-box.sqlite")
        res = sync.run(str(day_box), branch_login(url, "day"), "day")
        assert not res.differences, res.differences
        print(json.dumps({"figure": "branch_day", "changes": res.changes, "rows": res.rows,
                          "seconds": round(res.seconds, 2),
                          "rows_per_s": round(res.rows / res.seconds),
                          "bound_s": DAY_BOUND_S}), flush=True)

        when = busiest_day(day_box)
        out = folder / "export"
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "web", "export", "--db", str(day_box), "--date",
                        when, "--out", str(out)], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        export_s = time.perf_counter() - t0
        print(json.dumps({"figure": "box_export_day", "day": when,
                          "seconds": round(export_s, 2)}), flush=True)
        ho = head_office_figures(url, year, runs)
        print(json.dumps({"figure": "head_office", **ho}), flush=True)
        rep = head_office_report_figures(url, year, day, folder, syncs, runs)
        print(json.dumps({"figure": "head_office_report", **rep}), flush=True)
        rls = rls_figures(url, logins["b00"], "b00", year, runs)
        print(json.dumps({"figure": "rls", **rls}), flush=True)
        with pg_schema.connect(url) as pg:
            held = pg.execute("SELECT count(*) FROM chain.hand_events").fetchone()[0]
            size = pg.execute("SELECT pg_size_pretty(pg_database_size(current_database()))"
                              ).fetchone()[0]
        ok = (res.seconds < DAY_BOUND_S and ho["chain_leaderboard_ok"] and rep["report_ok"]
              and rep["chain_leaderboard_during_syncs_ok"])
        summary = {
            "branches": args.branches, "days_per_branch": args.days, "quick": args.quick,
            "rows": total_rows, "sync_s": round(total_s, 1),
            "rows_per_s": round(total_rows / total_s),
            "slowest_branch_rows_per_s": round(min(per_branch)),
            "branch_day_s": round(res.seconds, 2), "branch_day_bound_s": DAY_BOUND_S,
            "branch_day_ok": res.seconds < DAY_BOUND_S,
            "box_export_day_s": round(export_s, 2),
            "head_office_hand_events": held, "head_office_size": size,
            **{k: ho[k] for k in ("ho_refresh_s", "ho_boards_s", "chain_leaderboard_p99_ms",
                                  "chain_leaderboard_ok", "chain_leaderboard_json_p99_ms",
                                  "chain_leaderboard_odd_p99_ms", "member_history_p99_ms",
                                  "box_leaderboard_p99_ms")},
            **{k: rep[k] for k in ("chain_leaderboard_during_syncs_p99_ms",
                                   "chain_leaderboard_during_syncs_ok",
                                   "report_today_during_syncs_p99_ms",
                                   "report_today_page_during_syncs_p99_ms", "report_bound_ms",
                                   "report_ok", "report_past_day_first_ms",
                                   "requests_during_syncs")},
            "rls_ratio": rls["rls_ratio"], "all_bounds_met": ok,
        }
        print(json.dumps(summary), flush=True)
        return 0 if ok or args.quick else 1
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    sys.exit(main())
