"""Every cell of the rulebooks' point tables, parsed from the rulebook text.

The tables are read from verbatim excerpts in ``tests/test_points_seed/``
(see its README: file and line range of each), so a typo in a transcription
cannot hide; ``test_excerpts_are_verbatim`` checks them against the seeds.

* 002 ねこはうす 点数表 (符計算あり/子の場合, 親の場合): every fu row, 0-4 han
  and the limits row, with and without kiriage ([*2]).
* 002 点数表 (符計算なしルール) 四人打ち / 三人打ち: presets nekohouse-4b / 3b.
* 000 (4) 点数計算: ロンあがり / ツモあがり (4翻以下) and 5翻以上: netmahjong.
* 003 点数 (1飜 1,500 … 13飜以上 48,000; ツモ 1/3 ずつ): preset simple.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from scoring.points import han_fu_pairs, hand_value, payments
from scoring.rules import load_rules

HERE = Path(__file__).parent / "test_points_seed"
SEEDS = Path(os.environ.get("JANTAKU_SEEDS", "/work/shared/seeds"))
EXCERPTS = {
    "002_fu_tables.txt": ("002_752de4ce5ec4d27d.txt", 260, 304),
    "002_nofu_tables.txt": ("002_752de4ce5ec4d27d.txt", 349, 367),
    "000_point_tables.txt": ("000_75219193aaae2e91.txt", 417, 467),
    "003_points.txt": ("003_073b59665b51d928.txt", 129, 141),
}


def excerpt(name: str) -> list[str]:
    return (HERE / name).read_text("utf-8").splitlines()


@pytest.mark.parametrize("name", sorted(EXCERPTS))
def test_excerpts_are_verbatim(name):
    seed, first, last = EXCERPTS[name]
    if not (SEEDS / seed).exists():
        pytest.skip(f"rulebook {seed} not mounted at {SEEDS}")
    lines = (SEEDS / seed).read_text("utf-8").splitlines()
    assert lines[first - 1 : last] == excerpt(name)


# --------------------------------------------------------------------------- helpers
def tsumo_pay(cell: str, *, dealer: bool) -> dict:
    """'2000-3900' (子-親 each) or '3900オール' as a pay dict."""
    if cell.endswith("オール"):
        n = int(cell.removesuffix("オール"))
        return {"all": n} if dealer else {"dealer": n, "non_dealer": n}
    a, b = cell.split("-")
    return {"dealer": int(b), "non_dealer": int(a)}


def price(rules, han, fu, *, dealer, tsumo, yakuman=0):
    return payments(rules, han=han, fu=fu, yakuman=yakuman, dealer=dealer, tsumo=tsumo)


# --------------------------------------------------------------------------- 002 with fu
def neko_fu_cells():
    """(dealer, fu, han, ron, tsumo cell, kiriage-marked, mangan-marked) of both tables."""
    lines = excerpt("002_fu_tables.txt")
    dealer = None
    for line in lines:
        if line.startswith("ねこはうす 点数表"):
            dealer = "親の場合" in line
        m = re.match(r"^(\d+)符\t(.*)$", line)
        if not m:
            continue
        for han, cell in enumerate(m.group(2).split("\t")):
            if not cell:
                continue  # 25 fu has no 0 or 1 han
            tokens = cell.split()
            yield (
                dealer,
                int(m.group(1)),
                han,
                int(tokens[0]),
                tokens[-1],
                "[*2]" in cell,
                "(満貫)" in cell,
            )


NEKO_CELLS = list(neko_fu_cells())


def test_neko_tables_parsed_completely():
    # 11 fu rows x 5 han (minus 25 fu's 0 and 1 han) per table, two tables
    assert len(NEKO_CELLS) == 2 * (11 * 5 - 2)
    assert sum(c[5] for c in NEKO_CELLS) == 4  # the four [*2] cells


@pytest.mark.parametrize("dealer,fu,han,ron,tsumo,kiriage,mangan", NEKO_CELLS)
def test_neko_fu_table_cell_without_kiriage(dealer, fu, han, ron, tsumo, kiriage, mangan):
    rules = load_rules({"extends": "nekohouse-4a", "points": {"kiriage_mangan": False}})
    assert price(rules, han, fu, dealer=dealer, tsumo=False) == (
        "mangan" if mangan else None,
        {"ron": ron},
    )
    assert price(rules, han, fu, dealer=dealer, tsumo=True)[1] == tsumo_pay(tsumo, dealer=dealer)


@pytest.mark.parametrize("dealer,fu,han,ron,tsumo,kiriage,mangan", NEKO_CELLS)
def test_neko_fu_table_cell_with_kiriage(dealer, fu, han, ron, tsumo, kiriage, mangan):
    # [*2] 「切り上げ満貫を採用するルールでは満貫として扱います」: nekohouse-4a has kiriage.
    rules = load_rules("nekohouse-4a")
    limit, pay = price(rules, han, fu, dealer=dealer, tsumo=False)
    if kiriage:
        assert (limit, pay) == ("mangan", {"ron": 12000 if dealer else 8000})
        tsumo = "4000オール" if dealer else "2000-4000"
    else:
        assert pay == {"ron": ron}
    assert price(rules, han, fu, dealer=dealer, tsumo=True)[1] == tsumo_pay(tsumo, dealer=dealer)


def neko_limit_rows():
    lines = excerpt("002_fu_tables.txt")
    out = []
    for i, line in enumerate(lines):
        if line.startswith("満貫\t跳満"):
            dealer = len(out) == 1
            hans, cells = lines[i + 1].split("\t"), lines[i + 2].split("\t")
            out.append([(dealer, h, c) for h, c in zip(hans, cells, strict=True)])
    return [row for table in out for row in table]


@pytest.mark.parametrize("dealer,hans,cell", neko_limit_rows())
def test_neko_limit_row(dealer, hans, cell):
    ron, tsumo = cell.split()
    open_ended = hans.endswith("以上")
    low, _, high = hans.removesuffix("翻以上").removesuffix("翻").partition("-")
    rules = load_rules("nekohouse-4a")
    for han in range(int(low), (16 if open_ended else int(high or low)) + 1):
        for is_tsumo, want in ((False, {"ron": int(ron)}), (True, tsumo_pay(tsumo, dealer=dealer))):
            v = hand_value(rules, han=han, fu=30, dealer=dealer, tsumo=is_tsumo)
            assert v.pay == want, (han, is_tsumo)
    # 13翻以上 (役満): a yakuman pays the same
    if open_ended:
        assert hand_value(rules, han=0, fu=0, yakuman=1, dealer=dealer, tsumo=False).pay == {
            "ron": int(ron)
        }


def test_neko_cells_that_occur_score_the_same_through_hand_value():
    rules = load_rules("nekohouse-4a")
    checked = 0
    for dealer, fu, han, *_ in NEKO_CELLS:
        for is_tsumo in (False, True):
            if (han, fu) in han_fu_pairs(rules, tsumo=is_tsumo):
                v = hand_value(rules, han=han, fu=fu, dealer=dealer, tsumo=is_tsumo)
                assert v.pay == price(rules, han, fu, dealer=dealer, tsumo=is_tsumo)[1]
                checked += 1
    assert checked > 60


# --------------------------------------------------------------------------- 002 without fu
def neko_nofu_cells():
    """(players, han range, dealer, ron, tsumo cell) of the 四人打ち and 三人打ち tables."""
    players = None
    for line in excerpt("002_nofu_tables.txt"):
        if line in ("四人打ち", "三人打ち"):
            players = 4 if line == "四人打ち" else 3
        cols = line.split("\t")
        if len(cols) != 6 or cols[0] == "翻数":
            continue
        for label, ko, oya in (cols[0:3], cols[3:6]):
            m = re.match(r"^(\d+)(?:-(\d+))?翻(以上)?", label)
            low = int(m.group(1))
            high = 14 if m.group(3) else int(m.group(2) or low)
            for dealer, cell in ((False, ko), (True, oya)):
                ron, tsumo = cell.split()
                yield players, (low, high), dealer, int(ron), tsumo


NOFU_CELLS = list(neko_nofu_cells())


def test_nofu_tables_parsed_completely():
    assert len(NOFU_CELLS) == 2 * 8 * 2


@pytest.mark.parametrize("players,hans,dealer,ron,tsumo", NOFU_CELLS)
def test_neko_nofu_cell(players, hans, dealer, ron, tsumo):
    rules = load_rules("nekohouse-4b" if players == 4 else "nekohouse-3b")
    assert rules.table.players == players and not rules.fu.use_fu
    for han in range(hans[0], hans[1] + 1):
        assert hand_value(rules, han=han, fu=0, dealer=dealer, tsumo=False).pay == {"ron": ron}
        v = hand_value(rules, han=han, fu=0, dealer=dealer, tsumo=True)
        assert v.pay == tsumo_pay(tsumo, dealer=dealer)
    if hans[1] == 14:  # 13翻以上 (役満): a yakuman is paid the same
        assert (
            hand_value(rules, han=0, fu=0, yakuman=1, dealer=dealer, tsumo=False).limit == "yakuman"
        )
        assert hand_value(rules, han=0, fu=0, yakuman=1, dealer=dealer, tsumo=False).pay == {
            "ron": ron
        }


def test_nofu_three_player_tsumo_has_no_tsumo_loss():
    # 3B 「ツモ損…はありません」: the table itself pays, e.g. 1翻 子 1000オール = 2000 in all
    rules = load_rules("nekohouse-3b")
    assert hand_value(rules, han=1, fu=0, dealer=False, tsumo=True).value == 2000
    assert hand_value(rules, han=4, fu=0, dealer=False, tsumo=True).value == 8000
    assert hand_value(rules, han=4, fu=0, dealer=True, tsumo=True).value == 12000


# --------------------------------------------------------------------------- 000 Net Mahjong
FU_COLUMNS = [20, 30, 40, 50, 60, 70, 80]


def net_tables():
    """The five 4翻以下 tables in order:
    ron 子, ron 親, tsumo 子 from 子, 子 from 親, 親 from each."""
    tables, current = [], None
    for line in excerpt("000_point_tables.txt"):
        if line.startswith("翻数 20符"):
            current = {}
            tables.append(current)
            continue
        if line == "5翻以上":
            current = None  # the limits table follows; it is read by net_limit_rows
        m = re.match(r"^(\d)翻 (.*)$", line)
        if m and current is not None:
            values = m.group(2).split()
            # the 1翻 rows leave 20符 empty: the values fill the columns from the right
            current[int(m.group(1))] = dict(
                zip(FU_COLUMNS[len(FU_COLUMNS) - len(values) :], values, strict=True)
            )
    return tables


def net_cells():
    kinds = ["ron_ko", "ron_oya", "tsumo_ko_from_ko", "tsumo_ko_from_oya", "tsumo_oya_each"]
    for kind, table in zip(kinds, net_tables(), strict=True):
        for han, row in table.items():
            for fu, cell in row.items():
                yield kind, han, fu, cell


NET_CELLS = list(net_cells())
MANGAN = {
    "ron_ko": 8000,
    "ron_oya": 12000,
    "tsumo_ko_from_ko": 2000,
    "tsumo_ko_from_oya": 4000,
    "tsumo_oya_each": 4000,
}


def test_net_tables_parsed_completely():
    assert len(NET_CELLS) == 5 * (4 * 7 - 1)


@pytest.mark.parametrize("kind,han,fu,cell", NET_CELLS)
def test_net_mahjong_table_cell(kind, han, fu, cell):
    rules = load_rules("netmahjong")
    dealer = kind in ("ron_oya", "tsumo_oya_each")
    tsumo = kind.startswith("tsumo")
    limit, pay = price(rules, han, fu, dealer=dealer, tsumo=tsumo)
    want = MANGAN[kind] if cell == "満貫" else int(cell)
    got = {
        "ron_ko": pay.get("ron"),
        "ron_oya": pay.get("ron"),
        "tsumo_ko_from_ko": pay.get("non_dealer"),
        "tsumo_ko_from_oya": pay.get("dealer"),
        "tsumo_oya_each": pay.get("all"),
    }[kind]
    assert got == want
    assert (limit == "mangan") == (cell == "満貫")
    if (han, fu) in han_fu_pairs(rules, tsumo=tsumo):
        assert hand_value(rules, han=han, fu=fu, dealer=dealer, tsumo=tsumo).pay == pay


def test_net_mahjong_has_no_kiriage():
    # 000 (4) 注2 「30符4翻は、満貫とするルールが一般的ですが、
    # ネットマージャンでは採用していません」
    rules = load_rules("netmahjong")
    assert hand_value(rules, han=4, fu=30, dealer=False, tsumo=False).pay == {"ron": 7700}


def net_limit_rows():
    for line in excerpt("000_point_tables.txt"):
        m = re.match(r"^(\d+)翻(?:〜(\d+)翻|〜)? (\S+) (\d+) (\d+)$", line)
        if m:
            low = int(m.group(1))
            high = (
                int(m.group(2)) if m.group(2) else (16 if line.split()[0].endswith("〜") else low)
            )
            yield low, high, m.group(3), int(m.group(4)), int(m.group(5))


@pytest.mark.parametrize("low,high,name,first,second", list(net_limit_rows()))
def test_net_mahjong_limits(low, high, name, first, second):
    # The text heads the columns 点数(子) 点数(親) but lists 12000 before 8000; by
    # 000 (4) 「親は、子の1.5倍の点数になります」 the larger figure is the dealer's.
    dealer_pts, ko_pts = max(first, second), min(first, second)
    assert dealer_pts * 2 == ko_pts * 3
    rules = load_rules("netmahjong")
    for han in range(low, high + 1):
        assert hand_value(rules, han=han, fu=40, dealer=False, tsumo=False).value == ko_pts
        assert hand_value(rules, han=han, fu=40, dealer=True, tsumo=False).value == dealer_pts
        assert hand_value(rules, han=han, fu=40, dealer=False, tsumo=True).pay == {
            "dealer": ko_pts // 2,
            "non_dealer": ko_pts // 4,
        }
        assert hand_value(rules, han=han, fu=40, dealer=True, tsumo=True).pay == {
            "all": dealer_pts // 3
        }


def test_net_mahjong_limit_rows_parsed():
    assert [r[0] for r in net_limit_rows()] == [5, 6, 8, 11, 13]


def test_net_mahjong_yakuman_is_4baiman_and_stacks():
    # 「役満は最高点の役であり、あがり点は 4倍満です」「ダブル役満あり」
    rules = load_rules("netmahjong")
    assert hand_value(rules, han=0, fu=0, yakuman=1, dealer=False, tsumo=False).value == 32000
    assert hand_value(rules, han=0, fu=0, yakuman=2, dealer=True, tsumo=False).value == 96000
    assert hand_value(rules, han=0, fu=0, yakuman=2, dealer=False, tsumo=True).pay == {
        "dealer": 32000,
        "non_dealer": 16000,
    }


# --------------------------------------------------------------------------- 003 simple
def simple_rows():
    for line in excerpt("003_points.txt"):
        m = re.match(r"^\| (\d+)(?:[~～〜](\d+))?飜(以上)?.*\| ([\d,]+) \|$", line)
        if m:
            low = int(m.group(1))
            high = 14 if m.group(3) else int(m.group(2) or low)
            yield low, high, int(m.group(4).replace(",", ""))


@pytest.mark.parametrize("low,high,points", list(simple_rows()))
def test_simple_table_row(low, high, points):
    # 003: one price for everyone; 「ツモアガリの場合・・・他の3人が点数を1/3ずつ支払います」
    rules = load_rules("simple")
    for han in range(low, high + 1):
        for dealer in (False, True):
            assert hand_value(rules, han=han, fu=0, dealer=dealer, tsumo=False).pay == {
                "ron": points
            }
            v = hand_value(rules, han=han, fu=0, dealer=dealer, tsumo=True)
            third = points // 3
            assert v.pay == ({"all": third} if dealer else {"dealer": third, "non_dealer": third})
            assert v.value == points


def test_simple_table_parsed_completely():
    rows = list(simple_rows())
    assert [r[0] for r in rows] == [1, 2, 3, 4, 6, 8, 11, 13]
    assert rows[0][2] == 1500 and rows[-1][2] == 48000
