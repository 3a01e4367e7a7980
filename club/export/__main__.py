"""``python -m club.export``: the nightly export of a club day, a timer's job
(``deploy/jantaku-export.timer``), and the leaderboard and club-day commands that
``python -m web`` offers staff. A refusal is one line on stderr."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import TypeVar

import lexicon
from club import engine, stats_store
from club.db import Db
from club.errors import UserError
from club.export import ExportError, _rating_text, open_db, write_export

T = TypeVar("T")


def _on_club_file(path: str, ask: Callable[[Db], T]) -> T:
    """What ``ask`` reads (or sets) in the club file at ``path``, closed after."""
    db = open_db(path)
    try:
        return ask(db)
    finally:
        db.conn.close()


def _refused(prog: str, e: UserError | ExportError) -> int:
    """A refusal as one line on stderr; the exit status."""
    print(f"{prog}: {e.message}", file=sys.stderr)
    return e.status if isinstance(e, ExportError) else 2


def _min_games(sp: argparse.ArgumentParser, leaves_out: str) -> None:
    sp.add_argument("--min-games", type=int, default=1, metavar="N",
                    help=f"leave {leaves_out} (default 1)")


def add_export_arguments(sp: argparse.ArgumentParser) -> None:
    """Options of the nightly export."""
    sp.add_argument("--date", metavar="YYYY-MM-DD", default=None,
                    help="club day to export (default: yesterday's club day)")
    sp.add_argument("--out", metavar="DIR", required=True,
                    help="folder that holds the dated export folders")
    sp.add_argument("--keep", type=int, metavar="N", default=None,
                    help="keep only the N newest dated folders (older ones are removed)")
    _min_games(sp, "players with fewer games out of the leaderboards")


def run_export(args: argparse.Namespace, prog: str = "python -m club.export") -> int:
    """The nightly export from parsed arguments: returns the exit status; errors are printed
    as one line after ``prog``."""
    try:
        if args.keep is not None and args.keep < 1:
            raise ExportError(lexicon.both("export.keep_at_least_1"))
        def export(db: Db) -> dict:
            day = args.date or (stats_store.parse_day(stats_store.today(
                stats_store.settings(db))) - timedelta(days=1)).isoformat()
            stats_store.user_day(day)
            return write_export(db, day, Path(args.out), min_games=max(args.min_games, 1),
                                keep=args.keep)

        summary = _on_club_file(args.db, export)
    except (UserError, ExportError) as e:
        return _refused(prog, e)
    except sqlite3.DatabaseError as e:  # e.g. locked for longer than the busy timeout
        print(f"{prog}: " + lexicon.both("export.cannot_read", db=args.db, detail=str(e)),
              file=sys.stderr)
        return 2
    except OSError as e:
        print(f"{prog}: " + lexicon.both("export.cannot_write", detail=str(e)),
              file=sys.stderr)
        return 2
    for note in summary["notes"]:
        print(f"{prog}: {note}", file=sys.stderr)
    if summary["open_games"]:
        listed = ", ".join(f"#{g['game_id']} ({g['table_id']}, {g['started_at'][:16]})"
                           for g in summary["open_games"])
        print(f"{prog}: " + lexicon.both(
            "export.open_games", day=summary["day"], count=len(summary["open_games"]),
            games=listed), file=sys.stderr)
    if getattr(args, "json", False):
        print(json.dumps(summary, ensure_ascii=False, indent=2))
    else:
        values = {k: summary[k] for k in ("day", "games", "hands", "files", "folder")}
        if summary["pruned"]:
            print(lexicon.both("export.done_pruned", **values,
                               pruned=", ".join(summary["pruned"])))
        else:
            print(lexicon.both("export.done", **values))
    return 0


# ------------------------------------------------------------------------ leaderboard
def add_leaderboard_arguments(sp: argparse.ArgumentParser) -> None:
    """Options of ``python -m web leaderboard``."""
    sp.add_argument("--family", default="riichi4", choices=list(engine.FAMILIES),
                    help="rule family (never mixed): riichi4, riichi3, boo, mcr")
    sp.add_argument("--period", default="month", choices=stats_store.PERIODS,
                    help="day, month (to date), season (quarter to date), all, range")
    sp.add_argument("--day", metavar="YYYY-MM-DD", default=None,
                    help="last club day of the period (default: today's club day)")
    sp.add_argument("--start", metavar="YYYY-MM-DD", help="first day of --period range")
    sp.add_argument("--end", metavar="YYYY-MM-DD", help="last day of --period range")
    _min_games(sp, "out players with fewer games")
    sp.add_argument("--order", default="total", choices=stats_store.ORDERS,
                    help="rank by the total (default) or by R (rating)")


TEXT_COLUMNS = (
    "games",
    "total",
    "average",
    "avg_rank",
    "top_rate",
    "last_rate",
    "win_rate",
    "deal_in_rate",
)


def run_leaderboard(args: argparse.Namespace, prog: str = "python -m web leaderboard") -> int:
    """``python -m web leaderboard``: print a leaderboard (``--json`` for every figure)."""
    def ask(db: Db) -> tuple[str, str, list[dict]]:
        cfg = stats_store.settings(db)
        first, last = stats_store.period_range(
            args.period, args.day or stats_store.today(cfg), args.start, args.end)
        return first, last, stats_store.leaderboard(
            db, args.family, first, last, min_games=max(args.min_games, 1),
            order=getattr(args, "order", "total"))

    try:
        first, last, rows = _on_club_file(args.db, ask)
    except (UserError, ExportError) as e:
        return _refused(prog, e)
    if getattr(args, "json", False):
        print(
            json.dumps(
                {
                    "family": args.family,
                    "period": args.period,
                    "first_day": first,
                    "last_day": last,
                    "rows": rows,
                },
                ensure_ascii=False,
                indent=2,
            )
        )
        return 0
    print(f"{engine.FAMILIES[args.family][1]}, {args.period} {first} – {last}: {len(rows)} players")
    print("rank  " + f"{'player':<16}" + f"{'R':>7}" + "".join(f"{c:>13}" for c in TEXT_COLUMNS))
    for r in rows:
        rank = "-" if r["rank"] is None else r["rank"]
        print(
            f"{rank:>4}  {r['name']:<16}{_rating_text(r['rating']) or '-':>7}"
            + "".join(f"{engine.shown_figure(c, r[c], args.family):>13}" for c in TEXT_COLUMNS)
        )
    return 0


# -------------------------------------------------------------------------- club day
def add_club_day_arguments(sp: argparse.ArgumentParser) -> None:
    """Options of ``python -m web club-day``."""
    sp.add_argument("--closing-hour", metavar="HH:MM", default=None,
                    help="the club's closing hour: a club day ends then (e.g. 05:00)")
    sp.add_argument("--timezone", metavar="TZ", default=None,
                    help="the club's time zone, an IANA name (e.g. Asia/Tokyo)")
    sp.add_argument("--opening-hour", metavar="HH:MM", default=None,
                    help="when the floor opens (the daily report's occupancy counts from "
                         "then; e.g. 12:00)")


def run_club_day(args: argparse.Namespace, prog: str = "python -m web club-day") -> int:
    """``python -m web club-day``: show, or set and rebuild under, the club-day settings."""
    def ask(db: Db) -> dict:
        opening = getattr(args, "opening_hour", None)
        if args.closing_hour is None and args.timezone is None and opening is None:
            cfg = stats_store.settings(db)
        else:
            cfg = stats_store.configure(db, closing_hour=args.closing_hour,
                                        timezone_name=args.timezone, opening_hour=opening)
        return {**cfg, "today": stats_store.today(cfg)}

    try:
        cfg = _on_club_file(args.db, ask)
    except (UserError, ExportError) as e:
        return _refused(prog, e)
    if getattr(args, "json", False):
        print(json.dumps(cfg, ensure_ascii=False, indent=2))
    else:
        print(
            f"a club day ends at {cfg['closing_hour']} ({cfg['timezone']}); the floor opens at "
            f"{cfg['opening_hour']}; today's club day is {cfg['today']}"
        )
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m club.export``."""
    p = argparse.ArgumentParser(prog="python -m club.export",
                                description="Write the nightly export of a club day.")
    p.add_argument("--db", help="the club's SQLite file (or $JANTAKU_DB)")
    p.add_argument("--json", action="store_true", help="answer in JSON for scripts")
    add_export_arguments(p)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the nightly export from the command line; returns the exit status."""
    p = build_parser()
    args = p.parse_args(argv)
    args.db = args.db or os.environ.get("JANTAKU_DB")
    if not args.db:
        p.error("give the database with --db PATH (or set JANTAKU_DB)")
    return run_export(args)


if __name__ == "__main__":
    sys.exit(main())
