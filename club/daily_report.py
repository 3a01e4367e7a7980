"""The club's money of a day, read from its finished games: each player's account and the
daily report (日報).

A game's money is worked out from what it stores: the ``[money]`` switches of
the rules it was played under (a later change to a rule set never rewrites a
day), its placements and chips (the summary lines, ``stats_lines``, so a
corrected game counts as corrected and a void game not at all) and, for a fee
by the hour, how long it ran (start to finish). The arithmetic is
:mod:`scoring.money`.

* :func:`accounts`: each player's fees, prizes, chips and net for the day;
* :func:`report`: games, play time and occupancy per table, per rule set and
  in all, the fees, prizes and chips, every account, and the games still
  being played (money is only counted once a game has finished).
"""

from __future__ import annotations

import json
from datetime import datetime
from html import escape

import lexicon
from club import engine, stats_store
from club.db import Db
from club.db import rows as _rows

_GAMES_SQL = (
    "SELECT g.id, g.table_id, g.rule_set, g.started_at, g.finished_at, "
    "json_extract(g.rules, '$.money') AS money FROM games g "
    "WHERE g.id IN (SELECT game_id FROM stats_lines WHERE club_day = ?) ORDER BY g.id"
)
_SEATS_SQL = (
    "SELECT l.game_id, l.seat, l.player_id, l.family, l.rank, l.chips, p.name, p.guest, "
    "p.member_no FROM stats_lines l JOIN players p ON p.id = l.player_id "
    "WHERE l.club_day = ? ORDER BY l.game_id, l.seat"
)


def _when(value: str | datetime) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(value)


def day_games(db: Db, day: str) -> list[dict]:
    """The day's finished games with their seats and :class:`scoring.money.GameMoney`."""
    stats_store.user_day(day)
    return games_money(_rows(db, _GAMES_SQL, [day]), _rows(db, _SEATS_SQL, [day]))


def games_money(games: list[dict], seats: list[dict]) -> list[dict]:
    """Finished games (``id``, ``table_id``, ``rule_set``, ``started_at``,
    ``finished_at``: ISO text or datetimes, ``money``: the ``[money]`` switches as JSON
    text or a dict) with their summary seats (``game_id``, ``seat``, ``player_id``,
    ``family``, ``rank``, ``chips``, ``name``, ``guest``, ``member_no``), each worked
    out by :mod:`scoring.money`: wherever the rows were read (the box's club file or the
    head office), one arithmetic."""
    by_game: dict = {}
    for s in seats:
        by_game.setdefault(s["game_id"], []).append(s)
    out = []
    for g in games:
        sits = by_game.get(g["id"], [])
        started, finished = _when(g["started_at"]), _when(g["finished_at"])
        minutes = (finished - started).total_seconds() / 60
        money = json.loads(g["money"]) if isinstance(g["money"], str | bytes) else g["money"]
        m = engine.game_money(
            money or None,
            [s["rank"] for s in sits],
            [s["chips"] for s in sits],
            minutes,
        )
        out.append({**g, "seats": sits, "family": sits[0]["family"] if sits else "",
                    "started": started, "finished": finished, "money": m})
    return out


def _account_rows(games: list[dict]) -> list[dict]:
    people: dict[int, dict] = {}
    lines = []
    for g in games:
        for s, m in zip(g["seats"], g["money"].seats, strict=True):
            people.setdefault(s["player_id"], s)
            lines.append((str(s["player_id"]), m))
    accts = engine.accounts(lines)
    out = []
    for pid_text, acct in accts.items():
        p = people[int(pid_text)]
        out.append({"player_id": p["player_id"], "name": p["name"], "guest": bool(p["guest"]),
                    "member_no": p["member_no"], **acct.as_dict()})
    return sorted(out, key=lambda r: (r["guest"], r["name"], r["player_id"]))


def accounts(db: Db, day: str, player_ids: list[int] | None = None) -> list[dict]:
    """Each player's account for a club day (members first, by name): ``games``, ``fee``,
    ``prize``, ``chips``, ``chip_yen`` and ``net`` (what they receive, + , or pay, -);
    only ``player_ids`` when given."""
    rows = _account_rows(day_games(db, day))
    if player_ids is not None:
        wanted = set(player_ids)
        rows = [r for r in rows if r["player_id"] in wanted]
    return rows


def report(db: Db, day: str) -> dict:
    """The daily report (日報) of a club day: ``tables``, ``rule_sets`` and ``total``
    rows (:func:`scoring.money.daily_report`), ``accounts`` and their ``account_total``,
    ``summary`` (the club's fee income, the top prizes it paid, what it keeps), the
    opening hours and the games not yet finished."""
    cfg = stats_store.settings(db)
    tables = [(r["id"], r["name"]) for r in _rows(db, "SELECT id, name FROM club_tables")]
    return build_report(day, cfg, day_games(db, day), tables,
                        stats_store.unfinished_games(db, day, cfg))


def build_report(day: str, cfg: dict, games: list[dict], tables: list[tuple[str, str]],
                 unfinished: list[dict]) -> dict:
    """:func:`report` from what was read: the club-day settings, the day's games from
    :func:`games_money`, the club's ``(id, name)`` tables and the games still being
    played (pure: the box and the head office share it)."""
    opens, closes = stats_store.open_hours(day, cfg)
    # a game played outside the set hours still had the table: the hours the occupancy is
    # counted over stretch to cover it, and the report says so
    outside = [g for g in games if g["started"] < opens or g["finished"] > closes]
    if outside:
        zone = opens.tzinfo
        opens = min(opens, *(g["started"] for g in outside)).astimezone(zone)
        closes = max(closes, *(g["finished"] for g in outside)).astimezone(zone)
    body = engine.daily_report(
        [engine.ReportGame(g["id"], g["table_id"], g["rule_set"], g["family"], g["started"],
                           g["finished"], g["money"]) for g in games],
        tables, opens, closes,
    )
    accts = _account_rows(games)
    total = engine.total_account(
        engine.Account(a["games"], a["fee"], a["prize"], a["chips"], a["chip_yen"]) for a in accts
    )
    t = body["total"]
    return {
        "club_day": day,
        "opens": opens.isoformat(timespec="minutes"),
        "closes": closes.isoformat(timespec="minutes"),
        "timezone": cfg["timezone"],
        **body,
        "accounts": accts,
        "account_total": total.as_dict(),
        "summary": {"fees": t["fees"], "house_prize": t["house_prize"],
                    "kept": t["fees"] - t["house_prize"]},
        "unfinished": unfinished,
        "outside_hours": len(outside),
    }


# --------------------------------------------------------------------------- as files and pages
def yen(value: int) -> str:
    """The one way an amount of money reads, on every page and paper: ``¥12,300``
    received, ``-¥600`` paid (what a player pays is negative, so a column adds up)."""
    value = int(value)
    return f"¥{value:,}" if value >= 0 else f"-¥{-value:,}"


class Yen(int):
    """An amount of yen: ``¥12,300`` on a page, ``12,300`` in a CSV cell (a spreadsheet
    reads it as the number with its separators)."""

    def text(self) -> str:
        return yen(self)


class Share(float):
    """A fraction shown as a percentage (``62.5%``; a spreadsheet reads it as 0.625)."""

    def text(self) -> str:
        return f"{self:.1%}"


class Minutes(int):
    """A length of time in minutes: the number in a CSV, ``2:10`` on a page."""

    def text(self) -> str:
        return f"{self // 60}:{self % 60:02d}"


def _rule_sets(counts: dict) -> str:
    return " / ".join(f"{k} ×{v}" for k, v in counts.items())


def _label(key: str) -> str:
    """A heading: Japanese first, the English in brackets (one catalogue entry)."""
    ja, en = (lexicon.t(key, lang) for lang in lexicon.LANGS)
    return f"{ja} ({en})"


def labelled(sheet: tuple[list[str], list[list]]) -> tuple[list[str], list[list]]:
    """A sheet's headings as words (for a CSV file) and its rows."""
    keys, rows = sheet
    return [_label(k) for k in keys], rows


MONEY_KEYS = ("games", "seats", "minutes", "fees", "house_prize", "player_prize", "chips",
              "chip_yen")


def _money_cells(r: dict) -> list:
    return [r["games"], r["seats"], Minutes(r["minutes"]), Yen(r["fees"]),
            Yen(r["house_prize"]), Yen(r["player_prize"]), r["chips"], Yen(r["chip_yen"])]


def table_sheet(rep: dict) -> tuple[list[str], list[list]]:
    """卓別: one row per table, then the total (catalogue keys of the headings, rows)."""
    keys = [f"report.col.{k}" for k in
            ("table", "table_name", "rule_sets", *MONEY_KEYS[:3], "open_minutes", "occupancy",
             *MONEY_KEYS[3:])]
    rows = []
    for r in [*rep["tables"], {**rep["total"], "key": lexicon.t("report.total"), "label": ""}]:
        occ = r["occupancy"]
        rows.append([r["key"], r["label"], _rule_sets(r["rule_sets"]), *_money_cells(r)[:3],
                     Minutes(r["open_minutes"]), Share(occ) if occ is not None else "",
                     *_money_cells(r)[3:]])
    return keys, rows


def rule_sheet(rep: dict) -> tuple[list[str], list[list]]:
    """ルール別: one row per rule set, then the total."""
    keys = [f"report.col.{k}" for k in ("rule_set", "family", *MONEY_KEYS)]
    rows = [[r["key"], r["label"], *_money_cells(r)] for r in rep["rule_sets"]]
    rows.append([lexicon.t("report.total"), "", *_money_cells(rep["total"])])
    return keys, rows


ACCOUNT_KEYS = ("games", "fee", "prize", "chips", "chip_yen", "net")


def account_sheet(rep: dict) -> tuple[list[str], list[list]]:
    """個人精算: one row per player (members first), then the total."""
    keys = [f"report.col.{k}" for k in ("member_no", "player", "kind")]
    keys += [f"report.acct.{k}" for k in ACCOUNT_KEYS]

    def cells(a: dict) -> list:
        # one sign, the net's: what a player pays is negative (the fee), received positive
        return [a["games"], Yen(-a["fee"]), Yen(a["prize"]), a["chips"], Yen(a["chip_yen"]),
                Yen(a["net"])]

    rows = [[a["member_no"] or "", a["name"],
             lexicon.t("report.guest" if a["guest"] else "report.member"), *cells(a)]
            for a in rep["accounts"]]
    rows.append([lexicon.t("report.total"), "", "", *cells(rep["account_total"])])
    return keys, rows


PAGE_HEADINGS = {"report.col.minutes": "report.col.minutes_hm",
                 "report.col.open_minutes": "report.col.open_minutes_hm"}
"""Headings that read differently on a page (hours:minutes there, minutes in a CSV)."""


def _th(key: str, text_column: bool) -> str:
    key = PAGE_HEADINGS.get(key, key)
    ja, en = (lexicon.t(key, lang) for lang in lexicon.LANGS)
    cls = " class=n" if text_column else ""
    return f"<th{cls}>{escape(ja)}<br><small>{escape(en)}</small></th>"


def _cell_html(v: object) -> str:
    if isinstance(v, (Yen, Share, Minutes)):
        cls = " class=neg" if v < 0 else ""
        return f"<td{cls}>{escape(v.text())}</td>"
    if isinstance(v, int):
        return f"<td>{v:,}</td>"
    return f"<td class=n>{escape(str(v))}</td>"


def _sheet_html(title_key: str, sheet: tuple[list[str], list[list]], testid: str) -> str:
    keys, rows = sheet
    body = "".join(
        f"<tr{' class=total' if i == len(rows) - 1 else ''}>"
        + "".join(_cell_html(v) for v in r) + "</tr>"
        for i, r in enumerate(rows)
    )
    texts = [isinstance(v, str) for v in rows[0]] if rows else [False] * len(keys)
    ths = "".join(_th(k, text) for k, text in zip(keys, texts, strict=True))
    return (f'<section><h2>{escape(_label(title_key))}</h2><table data-testid="{testid}">'
            f"<thead><tr>{ths}</tr></thead><tbody>{body}</tbody></table></section>")


def html_body(rep: dict) -> str:
    """The report's sections as HTML (the printable page and the staff console)."""
    s = rep["summary"]
    summary = "".join(
        f"<tr><th class=n>{escape(_label(k))}</th><td>{escape(Yen(v).text())}</td></tr>"
        for k, v in (("report.sum.fees", s["fees"]), ("report.sum.house_prize", s["house_prize"]),
                     ("report.sum.kept", s["kept"]))
    )
    hours = f"{rep['opens'][11:16]} – {rep['closes'][11:16]} ({rep['timezone']})"
    parts = [
        f"<p class=hours>{escape(_label('report.open_hours'))}: {escape(hours)}; "
        f"{escape(_label('report.col.games'))}: {rep['total']['games']:,}; "
        f"{escape(_label('report.col.occupancy'))}: "
        f"{escape(Share(rep['total']['occupancy'] or 0).text())}</p>",
        f"<section><h2>{escape(_label('report.summary'))}</h2>"
        f'<table class=summary data-testid="report-summary">{summary}</table></section>',
        _sheet_html("report.by_table", table_sheet(rep), "report-tables"),
        _sheet_html("report.by_rules", rule_sheet(rep), "report-rules"),
        _sheet_html("report.accounts", account_sheet(rep), "report-accounts"),
    ]
    if rep["unfinished"]:
        listed = ", ".join(f"#{g['id']} ({g['table_id']})" for g in rep["unfinished"])
        parts.insert(0, f"<p class=warn>{escape(_label('report.unfinished'))}: "
                        f"{escape(listed)}</p>")
    return "".join(parts)


CSS = """
body{font-family:"Hiragino Sans","Noto Sans CJK JP","Noto Sans JP",sans-serif;margin:1.5rem;
color:#1b1b1b}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.4rem;border-bottom:2px solid #14513c}
table{border-collapse:collapse;font-size:.8rem;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid #ccc;padding:.2rem .45rem;text-align:right;white-space:nowrap}
th{background:#f1efe6;vertical-align:bottom}th small{font-weight:400;color:#555}
th.n,td.n{text-align:left}tr.total td{font-weight:700;
border-top:2px solid #333}.neg{color:#c0392b}.warn{color:#c0392b;font-weight:700}
section{page-break-inside:avoid}@page{size:A4 landscape;margin:10mm}
"""


def html_page(rep: dict) -> str:
    """The printable daily report: one self-contained page (no scripts, prints on A4
    landscape)."""
    title = f"{_label('report.title')} {rep['club_day']}"
    return (f"<!doctype html><html lang=ja><meta charset=utf-8><title>{escape(title)}</title>"
            f"<style>{CSS}</style><h1>{escape(title)}</h1>{html_body(rep)}</html>\n")
