"""The tax office's side of the club's money: a player's receipt for the day as a
qualified simplified invoice (適格簡易請求書) when the club has a registration number, and
the day's takings as an accounting CSV a bookkeeping service imports.

**The receipt** (:func:`receipt`): the club's name and registration number (T and 13
digits), the date, what was sold (場代, the game fees, by rule set and count), the total and,
per tax rate, the amount it covers and the consumption tax in it (game fees are 10%,
prices include tax: tax = total × 10 / 110, rounded down once per rate and receipt).
Without a registration number it is a plain receipt, without the invoice lines.

**The accounting CSV** (:func:`accounting_csv`): freee's 取引 import (「取引のインポート」),
one row per line of the day's takings, UTF-8 with a BOM, these columns:

| column | value |
|---|---|
| 収支区分 | 収入 (fees) or 支出 (top prizes the club paid) |
| 発生日 | the club day, YYYY/MM/DD |
| 取引先 | the club's players (来店客) |
| 勘定科目 | 売上高 (fees) / 販売促進費 (top prizes from the house) |
| 税区分 | 課税売上10% / 課対仕入10% |
| 金額 | yen, tax included |
| 税計算区分 | 内税 |
| 税額 | the consumption tax in 金額 (× 10 / 110, rounded down) |
| 備考 | the rule set's name and how many games |
| 決済日 | the club day (settled over the counter) |
| 決済口座 | 現金 |
| 決済金額 | = 金額 |

収入 less 支出 is the 日報's 差引 (what the club keeps), row by row the 日報's rule sets.
"""

from __future__ import annotations

import csv
import io

from club import daily_report, money_settings
from club.db import Db
from club.i18n import t
from club.printing.documents import rule_set_title
from club.printing.receipt import Sheet

TAX_RATE = 10
"""Consumption tax on a game fee (a service: the standard rate), percent."""

ACCOUNTING_COLUMNS = ("収支区分", "発生日", "取引先", "勘定科目", "税区分", "金額", "税計算区分",
                      "税額", "備考", "決済日", "決済口座", "決済金額")


def tax_in(total: int, rate: int = TAX_RATE) -> int:
    """The consumption tax inside a tax-included ``total`` (rounded down)."""
    return total * rate // (100 + rate)


def receipt(db: Db, day: str, player_id: int, columns: int, lang: str = "ja") -> Sheet:
    """A player's receipt for the game fees of a club day (適格簡易請求書 when the club has
    a registration number)."""

    facts = money_settings.facts(db)
    lines: dict[str, list[int]] = {}
    for g in daily_report.day_games(db, day):
        for s, m in zip(g["seats"], g["money"].seats, strict=True):
            if s["player_id"] == player_id and m.fee:
                entry = lines.setdefault(g["rule_set"], [0, 0])
                entry[0] += 1
                entry[1] += m.fee
    total = sum(v[1] for v in lines.values())
    s = Sheet(columns)
    reg = facts.get("invoice_registration") or ""
    s.add(t("invoice.receipt"), "title")
    if reg:
        s.add(t("invoice.title"), "center")
    if facts.get("club_name"):
        s.add(facts["club_name"], "center")
    if reg:
        s.pair(t("invoice.registration"), reg)
    s.pair(t("invoice.date"), day)
    s.rule()
    for rid, (games, fee) in sorted(lines.items()):
        s.add(rule_set_title(db, rid, lang))
        s.pair(t("invoice.item", n=games), daily_report.yen(fee))
    s.rule()
    s.pair(t("invoice.total"), daily_report.yen(total), "bold")
    if reg:
        s.pair(t("invoice.rate_total", rate=TAX_RATE), daily_report.yen(total))
        s.pair(t("invoice.rate_tax", rate=TAX_RATE), daily_report.yen(tax_in(total)))
    return s


def accounting_rows(db: Db, day: str) -> list[dict]:
    """The day's takings as freee 取引 rows (:data:`ACCOUNTING_COLUMNS`)."""

    rep = daily_report.report(db, day)
    date = day.replace("-", "/")
    out = []
    for r in rep["rule_sets"]:
        name = rule_set_title(db, r["key"], "ja")
        for kind, amount, account, tax_kind in (
                ("収入", r["fees"], "売上高", "課税売上10%"),
                ("支出", r["house_prize"], "販売促進費", "課対仕入10%")):
            if not amount:
                continue
            out.append({"収支区分": kind, "発生日": date, "取引先": "来店客", "勘定科目": account,
                        "税区分": tax_kind, "金額": amount, "税計算区分": "内税",
                        "税額": tax_in(amount), "備考": f"{name} {r['games']}局",
                        "決済日": date, "決済口座": "現金", "決済金額": amount})
    return out


def accounting_csv(db: Db, day: str) -> bytes:
    """The day's takings as a freee 取引 import CSV (UTF-8 with a BOM, CRLF)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=ACCOUNTING_COLUMNS, lineterminator="\r\n")
    w.writeheader()
    for row in accounting_rows(db, day):
        w.writerow(row)
    return b"\xef\xbb\xbf" + buf.getvalue().encode("utf-8")
