"""The daily report (日報) and each player's account against a fixture day worked by hand.

Club day 2026-04-01 (closing 05:00, opening 12:00 Asia/Tokyo: 17 hours = 1,020 minutes
open). Club rule sets, each with its own ``[money]``:

* ``house-4a`` (nekohouse-4a, 002 4A): 500 yen a game each, top prize 1,000 yen from
  the club, a chip (★) cashed at 500 yen;
* ``house-ton`` (netmahjong, tonpuu, 000 (3)): 600 yen an hour each in started
  15-minute blocks, top prize 300 yen from each other player;
* ``house-3a`` (nekohouse-3a, 002 3A): 400 yen a game each, paid by the top for the
  table (トップ払い), a chip at 200 yen.

Games of the day (times JST; ranks by the engine, ties by seat, worked out below):

1. t1 house-4a A B C D, 13:00-14:10: D tsumo mangan ★1 each (A dealer pays 4,000, B and
   C 2,000): D 33,000 1st, B 23,000 2nd, C 23,000 3rd, A 21,000 4th.
   Fees 4 x 500; D +1,000 prize (club); chips D +3 = +1,500, A B C -1 = -500.
2. t1 house-4a guest B C E, 14:30-15:30: B rons the guest 2 han 30 fu (2,000) ★2:
   B 27,000 1st, C 25,000 2nd, E 25,000 3rd, guest 23,000 4th.
   Fees 4 x 500; B +1,000; chips B +1,000, guest -1,000.
3. t2 house-ton A B C D, 16:00-16:50 (50 min: 4 blocks = 600 each): A (dealer) rons C
   3 han 30 fu (5,800): A 1st, B 2nd, D 3rd, C 4th. A +900, B C D -300.
4. t3 house-3a A B E, 20:00-21:05: B rons A for a mangan (8,000) ★1: B 1st, E 2nd,
   A 3rd. B pays 3 x 400 = 1,200; chips B +200, A -200.
5. t2 house-ton B C D E, 02:00-03:10 on the 2nd (still club day 04-01; 70 min: 5
   blocks = 750 each): E tsumo 1 han 30 fu (300 / 500): E 1st, C 2nd, D 3rd,
   B (dealer) 4th. E +900; B C D -300.

Not counted: a game voided by staff, a game of the next club day.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import uuid
from datetime import datetime, timezone

import pytest

from club import club_tables, corrections, daily_report, games, roster, stats_store
from club.db import connect
from tests.support.web_server import ROOT
from web import create_app

DAY = "2026-04-01"
RULES = {
    "house-4a": 'extends = "nekohouse-4a"\n[money]\nfee_mode = "per_game"\nfee = 500\n'
                'top_prize = 1000\nchip_yen = 500\n',
    "house-ton": 'extends = "netmahjong"\n[money]\nfee_mode = "per_hour"\nfee = 600\n'
                 'fee_unit_minutes = 15\ntop_prize = 300\ntop_prize_from = "others"\n',
    "house-3a": 'extends = "nekohouse-3a"\n[money]\nfee_mode = "per_game"\nfee = 400\n'
                'fee_payer = "top"\nchip_yen = 200\n',
}


def jst(day: str, hm: str) -> str:
    """A JST wall-clock time as the stored UTC ISO text."""
    t = datetime.fromisoformat(f"{day}T{hm}:00+09:00").astimezone(timezone.utc)
    return t.isoformat(timespec="milliseconds")


def play(db, table, ids, events, started, finished) -> int:
    gid = games.start_game(db, table, ids, idempotency_key=uuid.uuid4().hex)["game"]["id"]
    for seq, ev in enumerate(events, start=1):
        games.record_event(db, gid, ev, expected_seq=seq, idempotency_key=uuid.uuid4().hex)
    db.execute("UPDATE games SET started_at = ?, finished_at = ? WHERE id = ?",
               [started, finished, gid])
    stats_store.refresh_stored(db, gid)
    return gid


END = {"event": "end"}


def build_day(path: str) -> dict:
    create_app({"DATABASE": path, "SECRET_KEY": "x", "TESTING": True, "COOKIE_SECURE": False})
    db = connect(path)
    for rid, text in RULES.items():
        club_tables.save_rule_set(db, rid, text, actor="owner")
    club_tables.save_table(db, "t1", "卓1", "house-4a")
    club_tables.save_table(db, "t2", "卓2 東風", "house-ton")
    club_tables.save_table(db, "t3", "卓3 三麻", "house-3a")
    club_tables.save_table(db, "t4", "卓4", "house-4a")
    ids = {n: roster.add_player(db, n, member_no=f"M{n}")["id"] for n in "ABCDE"}
    ids["G"] = roster.add_player(db, "ゲスト1", guest=True)["id"]
    s = lambda names: [ids[n] for n in names]  # noqa: E731
    win = lambda seat, han, fu, **kw: {  # noqa: E731
        "event": "win", "winners": [{"seat": seat, "han": han, "fu": fu, **kw}]}
    out = [
        play(db, "t1", s("ABCD"), [win(3, 5, 30, chips=1), END],
             jst(DAY, "13:00"), jst(DAY, "14:10")),
        play(db, "t1", s("GBCE"), [{**win(1, 2, 30, chips=2), "from": 0}, END],
             jst(DAY, "14:30"), jst(DAY, "15:30")),
        play(db, "t2", s("ABCD"), [{**win(0, 3, 30), "from": 2}, END],
             jst(DAY, "16:00"), jst(DAY, "16:50")),
        play(db, "t3", s("ABE"), [{**win(1, 5, 30, chips=1), "from": 0}, END],
             jst(DAY, "20:00"), jst(DAY, "21:05")),
        play(db, "t2", s("BCDE"), [win(3, 1, 30), END],
             jst("2026-04-02", "02:00"), jst("2026-04-02", "03:10")),
    ]
    voided = play(db, "t1", s("ABCD"), [win(0, 5, 30), END], jst(DAY, "22:00"), jst(DAY, "23:00"))
    corrections.void_game(db, voided, actor="staff", reason="wrong table")
    play(db, "t1", s("ABCD"), [win(0, 5, 30), END], jst("2026-04-02", "13:00"),
         jst("2026-04-02", "14:00"))
    db.conn.close()
    return {"path": path, "ids": ids, "games": out}


@pytest.fixture()
def day(tmp_path):
    d = build_day(str(tmp_path / "club.sqlite"))
    d["db"] = connect(d["path"])
    yield d
    d["db"].conn.close()


def test_daily_report_fixture_day_ranks_are_as_worked_by_hand(day):
    ranks = {}
    for gid in day["games"]:
        rows = day["db"].execute("SELECT p.name, l.rank FROM stats_lines l JOIN players p "
                                 "ON p.id = l.player_id WHERE game_id = ? ORDER BY seat", [gid])
        ranks[gid] = dict(rows.fetchall())
    g = day["games"]
    assert ranks[g[0]] == {"A": 4, "B": 2, "C": 3, "D": 1}
    assert ranks[g[1]] == {"ゲスト1": 4, "B": 1, "C": 2, "E": 3}
    assert ranks[g[2]] == {"A": 1, "B": 2, "C": 4, "D": 3}
    assert ranks[g[3]] == {"A": 3, "B": 1, "E": 2}
    assert ranks[g[4]] == {"B": 4, "C": 2, "D": 3, "E": 1}


def test_daily_report_accounts_for_the_day(day):
    acc = {a["name"]: a for a in daily_report.accounts(day["db"], DAY)}
    # A: games 1, 3, 4. fees 500 + 600 + 0 (B paid the sanma table's) = 1,100;
    # prize +900 (game 3); chips -1 (game 1) -1 (game 4): -500 - 200 = -700; net -900
    assert acc["A"] == {**acc["A"], "games": 3, "fee": 1100, "prize": 900, "chips": -2,
                        "chip_yen": -700, "net": -900}
    # B: games 1-5. fees 500 + 500 + 600 + 1,200 + 750 = 3,550; prize 1,000 (2) - 300 (3)
    # - 300 (5) = 400; chips -1 (1) +2 (2) +1 (4) = 2: -500 + 1,000 + 200 = 700; net -2,450
    assert acc["B"] == {**acc["B"], "games": 5, "fee": 3550, "prize": 400, "chips": 2,
                        "chip_yen": 700, "net": -2450}
    # D: games 1, 3, 5. fees 500 + 600 + 750 = 1,850; prize 1,000 - 300 - 300 = 400;
    # chips +3: 1,500; net 50
    assert acc["D"] == {**acc["D"], "games": 3, "fee": 1850, "prize": 400, "chips": 3,
                        "chip_yen": 1500, "net": 50}
    # E: games 2, 4, 5. fees 500 + 0 + 750 = 1,250; prize +900; net -350
    assert acc["E"] == {**acc["E"], "games": 3, "fee": 1250, "prize": 900, "chip_yen": 0,
                        "net": -350}
    # the guest: 500 and 2 chips (-1,000)
    assert acc["ゲスト1"] == {**acc["ゲスト1"], "games": 1, "fee": 500, "chips": -2,
                            "chip_yen": -1000, "net": -1500, "guest": True}
    assert [a["name"] for a in daily_report.accounts(day["db"], DAY)][-1] == "ゲスト1"
    only = daily_report.accounts(day["db"], DAY, [day["ids"]["E"]])
    assert [a["name"] for a in only] == ["E"]


def test_daily_report_totals_add_up(day):
    rep = daily_report.report(day["db"], DAY)
    tables = {r["key"]: r for r in rep["tables"]}
    assert set(tables) == {"t1", "t2", "t3", "t4"}
    # t1: games 1 and 2; 70 + 60 minutes; fees 4,000; prizes 2,000 by the club;
    # chips moved 3 + 2 = 5: 1,500 + 1,000 yen
    assert {k: tables["t1"][k] for k in ("games", "seats", "minutes", "fees", "house_prize",
                                         "player_prize", "chips", "chip_yen")} == {
        "games": 2, "seats": 8, "minutes": 130, "fees": 4000, "house_prize": 2000,
        "player_prize": 0, "chips": 5, "chip_yen": 2500}
    assert tables["t1"]["rule_sets"] == {"house-4a": 2}
    assert tables["t1"]["occupancy"] == pytest.approx(130 / 1020)
    # t2: games 3 and 5: 50 + 70 minutes; fees 2,400 + 3,000; prizes 900 + 900 between players
    assert (tables["t2"]["games"], tables["t2"]["minutes"], tables["t2"]["fees"],
            tables["t2"]["player_prize"]) == (2, 120, 5400, 1800)
    assert (tables["t3"]["fees"], tables["t3"]["chips"], tables["t3"]["chip_yen"]) == (1200, 1, 200)
    assert (tables["t4"]["games"], tables["t4"]["occupancy"]) == (0, 0)
    total = rep["total"]
    for k in ("games", "seats", "minutes", "fees", "house_prize", "player_prize", "chips",
              "chip_yen"):
        assert total[k] == sum(r[k] for r in rep["tables"]) == sum(r[k] for r in rep["rule_sets"])
    assert (total["games"], total["fees"], total["house_prize"]) == (5, 10600, 2000)
    assert total["occupancy"] == pytest.approx((130 + 120 + 65) / (4 * 1020))
    assert rep["summary"] == {"fees": 10600, "house_prize": 2000, "kept": 8600}
    # the accounts: fees are the club's income, prizes net to what the club paid,
    # chips cancel out between players
    at = rep["account_total"]
    assert (at["fee"], at["prize"], at["chip_yen"], at["chips"]) == (10600, 2000, 0, 0)
    assert at["net"] == -rep["summary"]["kept"]
    assert (rep["opens"], rep["closes"]) == ("2026-04-01T12:00+09:00", "2026-04-02T05:00+09:00")


def test_daily_report_lists_a_game_still_being_played(day):
    db = day["db"]
    ids = [day["ids"][n] for n in "ABCD"]
    gid = games.start_game(db, "t4", ids, idempotency_key=uuid.uuid4().hex)["game"]["id"]
    db.execute("UPDATE games SET started_at = ? WHERE id = ?", [jst(DAY, "23:30"), gid])
    rep = daily_report.report(db, DAY)
    assert [g["id"] for g in rep["unfinished"]] == [gid]
    assert rep["total"]["games"] == 5
    assert "t4" in daily_report.html_body(rep)


def read_csv(data: bytes) -> list[list[str]]:
    assert data.startswith(b"\xef\xbb\xbf")
    return list(csv.reader(io.StringIO(data[3:].decode("utf-8"))))


def yen(text: str) -> int:
    return int(text.replace(",", ""))


def test_daily_report_in_the_nightly_export(day, tmp_path):
    out = tmp_path / "exports"
    r = subprocess.run([sys.executable, "-m", "web", "export", "--db", day["path"], "--date", DAY,
                        "--out", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    folder = out / DAY
    tables = read_csv((folder / "daily-report-tables.csv").read_bytes())
    head, rows, total = tables[0], tables[1:-1], tables[-1]
    assert head[0] == "卓 (table)" and head[3] == "対局数 (games)"
    assert head[8] == "場代（円） (game fees, yen)"
    assert [r[0] for r in rows] == ["t1", "t2", "t3", "t4"] and total[0] == "合計"
    # yen with separators, as Excel reads them; totals add up
    assert total[8] == "10,600" and rows[1][8] == "5,400"
    for col in range(3, len(head)):
        if head[col].startswith(("稼働率", "営業")):
            continue
        assert sum(yen(r[col]) for r in rows) == yen(total[col]), head[col]
    assert rows[0][7] == "12.7%"  # 130 / 1,020
    accounts = read_csv((folder / "accounts.csv").read_bytes())
    by_name = {r[1]: r for r in accounts[1:-1]}
    assert accounts[0][:4] == ["会員番号 (member no.)", "名前 (player)", "区分 (kind)",
                               "対局数 (games)"]
    assert by_name["B"][0] == "MB" and by_name["B"][-1] == "-2,450"
    assert by_name["ゲスト1"][2] == "ゲスト" and by_name["ゲスト1"][-1] == "-1,500"
    assert accounts[-1][0] == "合計" and accounts[-1][4] == "-10,600"   # fees paid: negative
    assert by_name["A"][4] == "-1,100" and by_name["A"][5] == "900"    # like the net
    assert sum(yen(r[-1]) for r in accounts[1:-1]) == yen(accounts[-1][-1]) == -8600
    rules = read_csv((folder / "daily-report-rules.csv").read_bytes())
    assert [r[0] for r in rules[1:]] == ["house-3a", "house-4a", "house-ton", "合計"]
    html = (folder / "daily-report.html").read_text("utf-8")
    assert "日報 (Daily report) 2026-04-01" in html and "¥10,600" in html and "-¥2,450" in html
    assert "<script" not in html
    rep = json.loads((folder / "daily-report.json").read_text("utf-8"))
    assert rep["summary"] == {"fees": 10600, "house_prize": 2000, "kept": 8600}
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    assert manifest["files"]["accounts.csv"]["rows"] == 6
    # a second run writes the same bytes
    first = {p.name: p.read_bytes() for p in folder.iterdir()}
    subprocess.run([sys.executable, "-m", "web", "export", "--db", day["path"], "--date", DAY,
                    "--out", str(out)], check=True, capture_output=True, cwd=ROOT)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == first


def test_daily_report_default_rules_charge_nothing(tmp_path):
    path = str(tmp_path / "plain.sqlite")
    create_app({"DATABASE": path, "SECRET_KEY": "x", "TESTING": True, "COOKIE_SECURE": False})
    db = connect(path)
    club_tables.save_table(db, "t1", "卓1", "nekohouse-4a")
    ids = [roster.add_player(db, n)["id"] for n in "ABCD"]
    play(db, "t1", ids, [{"event": "win", "winners": [{"seat": 0, "han": 5, "fu": 30}]}, END],
         jst(DAY, "13:00"), jst(DAY, "14:00"))
    rep = daily_report.report(db, DAY)
    assert rep["summary"] == {"fees": 0, "house_prize": 0, "kept": 0}
    assert all(a["net"] == 0 for a in rep["accounts"])
    db.conn.close()
