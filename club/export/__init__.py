"""The nightly export: one dated folder per club day, written atomically.

``python -m club.export --date YYYY-MM-DD --out DIR [--keep N]`` (default: yesterday's
club day) writes ``DIR/YYYY-MM-DD/``:

* ``games.csv`` / ``games.json``: the day's finished games, one row per player;
* ``hands.csv`` / ``hands.json``: every hand of those games (points after it);
* ``leaderboard-month-<family>.csv``, ``leaderboard-all-<family>.csv`` and
  ``leaderboards.json``: the month-to-date and all-time leaderboards of every
  rule family played (families are never mixed);
* ``leaderboards.html``: the same, self-contained (inline SVG charts and
  styles, no scripts, prints on A4);
* ``manifest.json``: every other file with its row count and SHA-256, the club
  day's span and the games still open when the export ran.

Every time in a file is in the club's time zone with its offset (ISO 8601,
``2026-11-26T21:05:00+09:00``). A game still being played does not hold the
night back: the finished games are exported and the open ones are listed in the
manifest (``open_games``); an open game is counted on the club day it finishes.
The folders are 0700 and the files 0600 whatever the umask (``accounts.csv``
holds member numbers and money).

CSV files are UTF-8 with a BOM and CRLF line ends, so Excel on a Japanese PC
opens them right. Nothing in a file depends on when the export ran, and
everything is sorted, so a second run gives byte-identical files.

The folder is built beside the target (``DIR/.tmp-YYYY-MM-DD-<pid>``), every
file and the folder are fsynced, then it replaces the old folder in one
``renameat2(RENAME_EXCHANGE)`` (or a plain rename when there is none yet):
a crash leaves the old export or the new one, never half. Leftover
temporary folders of dead runs are removed by the next run.

Exit status: 0 written (open games named on stderr); 2 the database cannot be
read or an option is wrong.
"""

from __future__ import annotations

import csv
import ctypes
import ctypes.util
import hashlib
import io
import os
import re
import shutil
import sqlite3
import sys
import time
from html import escape
from pathlib import Path
from typing import Any, TextIO
from zoneinfo import ZoneInfo

import clubdb
import lexicon
from club import charts, clubtime, daily_report, engine, gamelog, schema, standings, stats_store
from club.db import Db, connect
from club.schema import migrate
from clubdb import pid_alive
from groundwork.errors import CodedError

SLOW_ENV = "JANTAKU_EXPORT_SLOW"  # seconds to sleep after each file (tests kill a run mid-way)
DAY_DIR = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TMP_DIR = re.compile(r"^\.tmp-(\d{4}-\d{2}-\d{2})-(\d+)$")
PERIODS = (("month", "月間 (month to date)"), ("all", "通算 (all time)"))


class ExportError(CodedError):
    """A reason the export cannot run, in words; ``status`` is the exit status."""

    code = "export_refused"

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.message, self.status = message, status


# --------------------------------------------------------------------------- the database
def open_db(path: str) -> Db:
    """The club database, or an ExportError saying why it cannot be read."""
    p = Path(path)
    if not p.is_file():
        raise ExportError(lexicon.both("export.no_db", db=str(p)))
    try:
        # an empty or foreign file is refused before a connection could give it a header
        clubdb.check_file(p, schema.SETS, thorough=False)
    except clubdb.FileRefused as e:
        raise ExportError(lexicon.both(e.key, **e.values)) from None
    try:
        db = connect(str(p))
        if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'games'").fetchone():
            raise ExportError(lexicon.both("export.not_club", db=str(p)))
        migrate(db)  # brings the summary tables in (built from the games on first use)
        return db
    except sqlite3.DatabaseError as e:
        raise ExportError(lexicon.both("export.cannot_read", db=str(p), detail=str(e))) from None


# --------------------------------------------------------------------------- file contents
def _num(v: Any) -> Any:
    """Numbers as people write them: 8000 not 8000.0; None as empty."""
    if v is None:
        return ""
    if isinstance(v, float):
        return int(v) if v.is_integer() else round(v, 4)
    return v


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A cell as a spreadsheet should read it: numbers as numbers; text that a spreadsheet
    would take for a formula (starting with = + - @, tab or CR: a player may be named
    ``=HYPERLINK(...)``) gets a leading apostrophe, as OWASP's CSV-injection advice says."""
    if isinstance(value, daily_report.Yen):
        return f"{value:,}"  # digits, separators and a sign: nothing a spreadsheet runs
    if isinstance(value, daily_report.Share):
        return value.text()
    value = _num(value)
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_bytes(header: list[str], rows: list[list]) -> bytes:
    """CSV text with a UTF-8 BOM and CRLF line ends (what Excel expects)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(header)
    for r in rows:
        w.writerow([csv_cell(v) for v in r])
    return b"\xef\xbb\xbf" + buf.getvalue().encode("utf-8")


def json_bytes(data: Any) -> bytes:
    return (stats_store.dumps(data) + "\n").encode("utf-8")


def local_time(value: object, zone: str) -> str | None:
    """A stored time (UTC) as the club reads it: ISO 8601 in ``zone`` with its offset,
    to the second (``2026-11-26T21:05:00+09:00``); None for no time."""
    t = clubtime.instant(value)
    return t.astimezone(ZoneInfo(zone)).isoformat(timespec="seconds") if t else None


GAME_COLUMNS = [
    "game_id",
    "club_day",
    "table_id",
    "rule_set",
    "family",
    "started_at",
    "finished_at",
    "seat",
    "player_id",
    "player",
    "final_score",
    "rank",
    "result",
    "chips",
]
HAND_COLUMNS = [
    "game_id",
    "hand",
    "event",
    "round",
    "honba",
    "dealer",
    "kyoutaku",
    "type",
    "delta_1",
    "delta_2",
    "delta_3",
    "delta_4",
    "score_1",
    "score_2",
    "score_3",
    "score_4",
]


def hand_records(replay: dict) -> list[dict]:
    """The replay's records that moved points or played a hand (not the closing ``end``)."""
    return [h for h in replay["hands"] if h.get("type") != "end"]


def day_games(db: Db, day: str, zone: str = "UTC") -> list[dict]:
    """The day's finished games with seats and hands (replayed from their events); their
    times in ``zone`` with its offset."""
    out = []
    for gid in stats_store.day_games(db, day):
        game = gamelog.get_game(db, gid)
        replay = gamelog.played(db, game).result
        final = replay["final"]
        out.append(
            {
                "game_id": gid,
                "club_day": day,
                "table_id": game["table_id"],
                "rule_set": game["rule_set"],
                "family": engine.rule_family(game["rules"]),
                "started_at": local_time(game["started_at"], zone),
                "finished_at": local_time(game["finished_at"], zone),
                "seats": [
                    {
                        "seat": s["seat"] + 1,
                        "player_id": s["player_id"],
                        "player": s["name"],
                        "final_score": final["scores"][i],
                        "rank": final["ranks"][i],
                        "result": final["result"][i],
                        "chips": (final.get("chips") or [0] * 4)[i],
                    }
                    for i, s in enumerate(game["seats"])
                ],
                "hands": [
                    {
                        "hand": n,
                        "event": h["event"],
                        "round": h["round"],
                        "honba": h["honba"],
                        "dealer": h["dealer"] + 1,
                        "kyoutaku": h["kyoutaku"],
                        "type": h.get("type", ""),
                        "deltas": h["deltas"],
                        "scores": h["scores"],
                    }
                    for n, h in enumerate(hand_records(replay), start=1)
                ],
                "start_points": game["rules"]["settlement"]["start_points"],
            }
        )
    return out


def _game_rows(games_: list[dict]) -> list[list]:
    return [
        [g[c] for c in GAME_COLUMNS[:7]] + [s[c] for c in GAME_COLUMNS[7:]]
        for g in games_
        for s in g["seats"]
    ]


def _pad(values: list, n: int = 4) -> list:
    return list(values) + [""] * (n - len(values))


def _hand_rows(games_: list[dict]) -> list[list]:
    return [
        [
            g["game_id"],
            h["hand"],
            h["event"],
            h["round"],
            h["honba"],
            h["dealer"],
            h["kyoutaku"],
            h["type"],
            *_pad(h["deltas"]),
            *_pad(h["scores"]),
        ]
        for g in games_
        for h in g["hands"]
    ]


LB_COLUMNS = ["rank", "player_id", "name", "rating", "dan", *engine.FIGURE_IDS]


def _with_dan(rows: list[dict], table: engine.DanTable | None) -> list[dict]:
    """Rows with ``dan`` (the level's name) and ``rating`` to two decimals."""
    for r in rows:
        level = r.get("dan_level")
        r["dan"] = table.name(level) if table is not None and level is not None else ""
        r["rating"] = round(r["rating"], 2) if r.get("rating") is not None else None
    return rows


def leaderboards(db: Db, day: str, min_games: int) -> dict:
    """{period: {"first_day", "last_day", "families": {family: rows}}} for the export."""
    out = {}
    dan = standings.dan_tables(db)
    for period, _ in PERIODS:
        first, last = stats_store.period_range(period, day)
        fams = {}
        for fam in stats_store.families_played(db):
            rows = stats_store.leaderboard(db, fam, first, last, min_games=min_games)
            if rows:
                fams[fam] = [{c: r[c] for c in LB_COLUMNS} for r in _with_dan(rows, dan.get(fam))]
        out[period] = {
            "first_day": first if period != "all" else None,
            "last_day": last,
            "families": fams,
        }
    return out


def build_files(db: Db, day: str, *, min_games: int = 1) -> dict[str, tuple[bytes, int]]:
    """Every file of the day's export: name -> (bytes, data rows). No manifest."""
    games_ = day_games(db, day, stats_store.settings(db)["timezone"])
    boards = leaderboards(db, day, min_games)
    files = {
        "games.csv": (
            csv_bytes(GAME_COLUMNS, _game_rows(games_)),
            sum(len(g["seats"]) for g in games_),
        ),
        "games.json": (
            json_bytes([{k: v for k, v in g.items() if k != "hands"} for g in games_]),
            len(games_),
        ),
        "hands.csv": (
            csv_bytes(HAND_COLUMNS, _hand_rows(games_)),
            sum(len(g["hands"]) for g in games_),
        ),
        "hands.json": (
            json_bytes([{"game_id": g["game_id"], "hands": g["hands"]} for g in games_]),
            sum(len(g["hands"]) for g in games_),
        ),
        "leaderboards.json": (
            json_bytes(boards),
            sum(len(r) for b in boards.values() for r in b["families"].values()),
        ),
    }
    for period, b in boards.items():
        for fam, rows in b["families"].items():
            files[f"leaderboard-{period}-{fam}.csv"] = (
                csv_bytes(LB_COLUMNS, [[r[c] for c in LB_COLUMNS] for r in rows]),
                len(rows),
            )
    files["leaderboards.html"] = (html_page(day, boards, games_).encode("utf-8"), len(games_))
    files.update(daily_files(db, day))
    return dict(sorted(files.items()))


def _sheet_csv(sheet: tuple[list[str], list[list]]) -> bytes:
    return csv_bytes(*daily_report.labelled(sheet))


def daily_files(db: Db, day: str) -> dict[str, tuple[bytes, int]]:
    """The daily report (日報) of the day: by table, by rule set, each player's account
    (CSV: a total row last), all of it as JSON and as a printable page."""
    rep = daily_report.report(db, day)
    zone = rep["timezone"]
    rep["unfinished"] = [{**g, "started_at": local_time(g["started_at"], zone)}
                         for g in rep["unfinished"]]
    return {
        "daily-report-tables.csv": (_sheet_csv(daily_report.table_sheet(rep)),
                                    len(rep["tables"])),
        "daily-report-rules.csv": (_sheet_csv(daily_report.rule_sheet(rep)),
                                   len(rep["rule_sets"])),
        "accounts.csv": (_sheet_csv(daily_report.account_sheet(rep)), len(rep["accounts"])),
        "daily-report.json": (json_bytes(rep), rep["total"]["games"]),
        "daily-report.html": (daily_report.html_page(rep).encode("utf-8"), rep["total"]["games"]),
    }


def open_games(db: Db, day: str, cfg: dict) -> list[dict]:
    """The games of the club day still being played: id, table and start (club's zone)."""
    return [{"game_id": g["id"], "table_id": g["table_id"],
             "started_at": local_time(g["started_at"], cfg["timezone"])}
            for g in stats_store.unfinished_games(db, day, cfg)]


def manifest(day: str, cfg: dict, files: dict[str, tuple[bytes, int]],
             open_: list[dict] | None = None) -> bytes:
    """The manifest: the club day (its span in the club's zone), the games still open,
    and every other file with its size, data rows and SHA-256."""
    start, end = stats_store.day_bounds(day, cfg)
    return json_bytes(
        {
            "club_day": day,
            "club_day_span": [local_time(start, cfg["timezone"]),
                              local_time(end, cfg["timezone"])],
            "closing_hour": cfg["closing_hour"],
            "timezone": cfg["timezone"],
            "open_games": list(open_ or []),
            "files": {
                name: {"bytes": len(data), "rows": rows, "sha256": hashlib.sha256(data).hexdigest()}
                for name, (data, rows) in sorted(files.items())
            },
        }
    )


# --------------------------------------------------------------------------- the HTML page
_CSS = """
body{font-family:"Hiragino Sans","Noto Sans CJK JP","Noto Sans JP",sans-serif;margin:1.5rem;
color:#1b1b1b}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:1.6rem;border-bottom:2px solid #14513c}
h3{font-size:1rem}table{border-collapse:collapse;font-size:.8rem;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid #ccc;padding:.2rem .4rem;text-align:right;white-space:nowrap}
th.n,td.n{text-align:left}.chart{max-width:100%;height:auto}
section{page-break-inside:avoid}@page{size:A4 landscape;margin:12mm}
"""


def _esc(s: object) -> str:
    return escape(str(s))


def _rating_text(value: float | None) -> str:
    return "" if value is None else f"{value:,.0f}"


def _board_html(rows: list[dict], family: str) -> str:
    ids = [f for f in engine.FIGURE_IDS]
    head = "".join(
        f"<th>{_esc(engine.figure(f).ja)}<br>{_esc(engine.figure(f).en)}</th>" for f in ids
    )
    body = "".join(
        f"<tr><td>{r['rank']}</td><td class=n>{_esc(r['name'])}</td>"
        f"<td>{_rating_text(r['rating'])}</td>"
        f"<td class=n>{_esc(r['dan'])}</td>"
        + "".join(f"<td>{_esc(engine.shown_figure(f, r[f], family))}</td>" for f in ids)
        + "</tr>"
        for r in rows
    )
    return (
        f"<table><thead><tr><th>順位<br>rank</th><th class=n>名前<br>player</th>"
        f"<th>R<br>rating</th><th class=n>段位<br>dan</th>{head}</tr>"
        f"</thead><tbody>{body}</tbody></table>"
    )


def html_page(day: str, boards: dict, games_: list[dict]) -> str:
    """The self-contained leaderboard page of the export (charts inline)."""
    parts = [
        f"<!doctype html><html lang=ja><meta charset=utf-8><title>雀卓 成績 {day}</title>"
        f"<style>{_CSS}</style><h1>雀卓 成績ランキング / Leaderboards — {day}</h1>"
    ]
    for period, label in PERIODS:
        b = boards[period]
        span = f"{b['first_day']} – {b['last_day']}" if b["first_day"] else f"– {b['last_day']}"
        for fam, rows in b["families"].items():
            ja, en = engine.FAMILIES[fam]
            parts.append(f"<section><h2>{_esc(label)} · {_esc(ja)} ({_esc(en)}) · {span}</h2>")
            parts.append(
                charts.totals_chart([(r["name"], engine.shown_result(r["total"], fam))
                                    for r in rows[:30]], f"{label} {en}")
            )
            parts.append(_board_html(rows, fam) + "</section>")
    parts.append(f"<h2>本日の対局 / Games of {day}: {len(games_)}</h2>")
    for g in games_:
        names = [s["player"] for s in g["seats"]]
        res = ", ".join(f"{s['player']} {s['rank']}着 "
                        f"{engine.shown_figure('best', s['result'], g['family'])}"
                        for s in g["seats"])
        parts.append(
            f"<section><h3>#{g['game_id']} {_esc(g['table_id'])} {_esc(g['rule_set'])}: "
            f"{_esc(res)}</h3>"
        )
        parts.append(
            charts.score_lines(
                [g["start_points"]] * len(names),
                g["hands"],
                names,
                f"game {g['game_id']}",
                height=220,
            )
            + "</section>"
        )
    parts.append("</html>\n")
    return "".join(parts)


# --------------------------------------------------------------------------- writing
class Progress:
    """A one-line progress bar on stderr when it is a terminal; silent otherwise."""

    def __init__(self, total: int, label: str, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.on = self.stream.isatty()
        self.total, self.label, self.done = max(total, 1), label, 0

    def step(self, name: str) -> None:
        self.done += 1
        if self.on:
            filled = 30 * self.done // self.total
            self.stream.write(
                f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] "
                f"{self.done}/{self.total} {name:<36.36}"
            )
            self.stream.flush()

    def close(self) -> None:
        if self.on:
            self.stream.write("\n")
            self.stream.flush()


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_file(path: Path, data: bytes) -> None:
    # 0600 from the first byte, whatever the umask: accounts.csv holds member numbers and money
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux renameat2); False where that is not available."""
    name = ctypes.util.find_library("c")
    try:
        fn = ctypes.CDLL(name, use_errno=True).renameat2
    except (OSError, AttributeError, TypeError):
        return False
    at_fdcwd = -100
    rc = fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    return rc == 0


def _install(tmp: Path, target: Path) -> None:
    """Put the finished temporary folder in place of ``target`` in one step."""
    if not target.exists():
        os.rename(tmp, target)
    elif _exchange(tmp, target):
        shutil.rmtree(tmp)  # tmp now holds the old export
    else:  # no renameat2: the old folder is moved aside first (a window of no folder)
        old = target.with_name(f".old-{target.name}-{os.getpid()}")
        os.rename(target, old)
        os.rename(tmp, target)
        shutil.rmtree(old)
    _fsync_dir(target.parent)


def clean_leftovers(out: Path) -> list[str]:
    """Remove temporary folders left by export runs that died (their pid is gone)."""
    removed = []
    for p in sorted(out.iterdir()) if out.is_dir() else []:
        m = TMP_DIR.match(p.name)
        if m and p.is_dir() and not _alive(int(m.group(2))):
            shutil.rmtree(p, ignore_errors=True)
            removed.append(p.name)
    return removed


def _alive(pid: int) -> bool:
    return pid != os.getpid() and pid_alive(pid)


def prune(out: Path, keep: int) -> list[str]:
    """Keep the ``keep`` newest dated folders; remove the older ones (returns their names)."""
    dated = sorted(p.name for p in out.iterdir() if p.is_dir() and DAY_DIR.match(p.name))
    gone = dated[:-keep] if keep > 0 else []
    for name in gone:
        shutil.rmtree(out / name)
    return gone


def write_export(
    db: Db, day: str, out: Path, *, min_games: int = 1, keep: int | None = None,
    stream: TextIO | None = None,
) -> dict:
    """Write the day's export folder atomically; returns a summary."""
    cfg = stats_store.settings(db)
    open_ = open_games(db, day, cfg)
    stale = stats_store.repair_stale(db)
    if stale:
        listed = "; ".join(f"#{g['game_id']} ({g['error']})" for g in stale)
        raise ExportError(lexicon.both("export.stale", games=listed))
    notes = _private_folder(out)
    clean_leftovers(out)
    files = build_files(db, day, min_games=min_games)
    files_all = {**{k: v[0] for k, v in files.items()},
                 "manifest.json": manifest(day, cfg, files, open_)}
    tmp = out / f".tmp-{day}-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(mode=0o700)
    os.chmod(tmp, 0o700)
    bar = Progress(len(files_all), f"export {day}", stream)
    slow = float(os.environ.get(SLOW_ENV) or 0)
    try:
        for name, data in files_all.items():
            _write_file(tmp / name, data)
            bar.step(name)
            if slow:
                time.sleep(slow)
        _fsync_dir(tmp)
        _install(tmp, out / day)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        bar.close()
    pruned = prune(out, keep) if keep else []
    return {
        "day": day,
        "folder": str(out / day),
        "files": len(files_all),
        "games": files["games.json"][1],
        "hands": files["hands.csv"][1],
        "pruned": pruned,
        "open_games": open_,
        "notes": notes,
    }


def _private_folder(out: Path) -> list[str]:
    """Make the export folder its owner's only (0700): made so when new; one that others
    can read is tightened, and the run says so. Returns the notes in words."""
    if not out.exists():
        out.mkdir(parents=True, mode=0o700)
        os.chmod(out, 0o700)
        return []
    mode = out.stat().st_mode & 0o777
    if mode & 0o077:
        os.chmod(out, 0o700)
        return [lexicon.both("export.folder_tightened", folder=str(out), mode=f"{mode:04o}")]
    return []
