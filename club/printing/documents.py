"""What a receipt says: a game's settlement sheet, a member's report card and the daily
report (日報), each as a :class:`~club.printing.receipt.Sheet` in the reader's
language, every time in the club's time zone.

Each is read from the club file when it is printed (a game corrected after the button
was pressed prints corrected). A document that cannot be made raises a
:class:`~web.errors.UserError` naming what is missing; the queue then marks the job
failed, in those words.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import lexicon
from club import club_tables, clubtime, daily_report, engine, gamelog, report_card
from club.db import Db
from club.errors import UserError
from club.printing.receipt import Sheet, columns


def _words(lang: str) -> Callable[..., str]:
    def t(key: str, **values: object) -> str:
        return lexicon.t(key, lang, **values)
    return t


def _result(value: float | None, rules: dict) -> str:
    """A settled result as the tablet writes it: thousands (+41.2), else whole numbers."""
    if value is None:
        return ""
    st = rules.get("settlement") or {}
    if st.get("use_points") and not st.get("victory_points"):
        return f"{value / 1000:+.1f}"
    return f"{value:+,}" if value else "0"


def _title(text: str, lang: str) -> str:
    """A bilingual rule set title (``日本語 / English``) in one language."""
    ja, sep, en = str(text or "").partition(" / ")
    return (en if sep and lang == "en" else ja).strip()


def settlement(db: Db, game_id: int, columns: int, lang: str = "ja") -> Sheet:
    """A finished game's settlement sheet: the table, rules and finish time, then each
    seat in rank order with its score and settled result (chips when the rules count
    them)."""
    t = _words(lang)
    game = gamelog.get_game(db, int(game_id))
    played = gamelog.played(db, game)
    final = played.result.get("final") if game["status"] == "finished" else None
    if not final:
        raise UserError("print.err.not_settled", game=game_id)
    try:
        table = club_tables.get_table(db, game["table_id"])["name"]
    except UserError:
        table = game["table_id"]
    rules = game["rules"]
    s = Sheet(columns)
    s.add(t("print.settlement.title"), "title")
    s.add(t("print.game_no", game=game["id"]), "center")
    s.rule("=")
    s.pair(t("tablet.table"), table)
    title = _title(game["rules"].get("title") or game["rule_set"], lang)
    s.pair(t("tablet.rules"), title)
    name = str(game["rules"].get("name") or "")
    if name and name not in (game["rule_set"], title):   # a name the rule set gave itself
        s.pair("", name)
    s.pair(t("print.finished"), clubtime.club_clock(db, game.get("finished_at"), day=True))
    s.rule()
    seats = game["seats"]
    order = sorted(range(len(seats)), key=lambda i: (final["ranks"][i], i))
    chips = final.get("chips") or []
    money = _money(game, final)
    for i in order:
        s.pair(f"{t('print.place', n=final['ranks'][i])} {seats[i]['name']}",
               _result(final["result"][i], rules), "bold")
        detail = f"{final['scores'][i]:,}" if final.get("scores") else ""
        if chips and chips[i]:
            detail += f" ★{chips[i]:+d}"
        if detail:
            s.pair("", detail.strip())
        if money is not None:
            s.pair(f"  {t('print.money_net')}", _yen(money.seats[i].net))
    if money is not None:
        s.rule()
        s.pair(t("print.money_fees"), _yen(money.fees))
    s.rule("=")
    s.add(t("print.printed", at=clubtime.club_clock(db, clubtime.now().isoformat(), day=True)))
    return s


def _money(game: gamelog.Game, final: dict) -> engine.GameMoney | None:
    """The game's money by the ``[money]`` of its rules (fees, top prize, chips in yen);
    None when its rules charge nothing."""
    money_rules = game["rules"].get("money")
    finished = game["finished_at"]
    if not money_rules or not finished:
        return None
    minutes = (datetime.fromisoformat(finished)
               - datetime.fromisoformat(game["started_at"])).total_seconds() / 60
    m = engine.game_money(money_rules, final["ranks"], final.get("chips") or None, minutes)
    if not any(seat.fee or seat.prize or seat.chip_yen for seat in m.seats):
        return None
    return m


def report_card_sheet(db: Db, player_id: int, columns: int, lang: str = "ja", *,
                      day: str | None = None, game_id: int | None = None) -> Sheet:
    """A member's report card (:func:`club.report_card.build`), laid out by
    :func:`club.report_card.as_lines` for the paper."""
    t = _words(lang)
    card = report_card.build(db, int(player_id), day=day, game_id=game_id, lang=lang)
    lines = report_card.as_lines(card, lang, columns)
    s = Sheet(columns)
    s.add(lines[0] if lines else t("print.card.title"), "title")
    for line in lines[1:]:
        s.add(line)
    s.add(t("print.printed", at=clubtime.club_clock(db, clubtime.now().isoformat(), day=True)))
    return s


def rule_set_title(db: Db, rule_set_id: str, lang: str) -> str:
    """A rule set's title in ``lang`` (its id when it has none)."""
    try:
        title = club_tables.written_rules(db, rule_set_id).title
    except UserError:
        title = ""
    return _title(title or rule_set_id, lang)


def receipt_columns(width_mm: int) -> int:
    """Font A columns of ``width_mm`` paper (a preview's, without a printer profile)."""

    return columns(width_mm)


def _yen(value: int) -> str:
    return daily_report.yen(value)


def daily(db: Db, day: str, columns: int, lang: str = "ja") -> Sheet:
    """The daily report (日報) of a club day: open hours, games, the summary (fees, top
    prizes, net), each table's games and fees, each player's net, the totals."""
    t = _words(lang)
    rep = daily_report.report(db, day)
    tz = rep["timezone"]
    s = Sheet(columns)
    s.add(t("report.title"), "title")
    s.add(rep["club_day"], "center")
    s.rule("=")
    s.pair(t("report.open_hours"), f"{clubtime.clock(rep['opens'], tz, day=False)}-"
                                   f"{clubtime.clock(rep['closes'], tz, day=False)}")
    s.pair(t("report.col.games"), f"{rep['total']['games']:,}")
    for key, value in (("fees", rep["summary"]["fees"]),
                       ("house_prize", rep["summary"]["house_prize"]),
                       ("kept", rep["summary"]["kept"])):
        s.pair(t(f"report.sum.{key}"), _yen(value), "bold" if key == "kept" else "plain")
    s.rule()
    s.add(t("report.by_table"), "bold")
    for r in rep["tables"]:
        s.pair(f"{r['key']} {r['label']}", f"{r['games']:,} / {_yen(r['fees'])}")
    s.pair(t("report.total"), f"{rep['total']['games']:,} / {_yen(rep['total']['fees'])}",
           "bold")
    s.rule()
    s.add(t("report.accounts"), "bold")
    for a in rep["accounts"]:
        s.pair(a["name"], _yen(a["net"]))
    s.pair(t("report.total"), _yen(rep["account_total"]["net"]), "bold")
    if rep["unfinished"]:
        s.rule()
        s.add(t("print.unfinished", n=len(rep["unfinished"])))
    s.rule("=")
    s.add(t("print.printed", at=clubtime.club_clock(db, clubtime.now().isoformat(), day=True)))
    return s


def sheet(db: Db, kind: str, args: dict, columns: int, lang: str = "ja") -> Sheet:
    """The sheet of a queued job (its ``kind`` and ``args``)."""
    if kind == "settlement":
        return settlement(db, int(args["game_id"]), columns, lang)
    if kind == "report_card":
        return report_card_sheet(db, int(args["player_id"]), columns, lang,
                                 day=args.get("day"), game_id=args.get("game_id"))
    if kind == "daily_report":
        return daily(db, str(args["day"]), columns, lang)
    raise ValueError(kind)
