"""Every fan of the club's 国際ルール shown by a hand, and the exclusions the rulebook names.

Rulebook: /work/shared/seeds/004_31b80ee9b4db5b91.txt, cited as 004:<line>.
Each row: fan id, the hand, fans that must be there, fans that must not be
there (the exclusions of that fan), and the rulebook line. The hands are
scored with the ``mcr`` preset; rows whose fan list PyMahjongGB should
share are also checked against it (see test_mcr_oracle.py for the
switches where the club's rulebook and PyMahjongGB differ).
"""

from __future__ import annotations

import pytest

from scoring.mcr import FANS, RULEBOOK_FANS, reference, score_hand
from scoring.rules import load_rules

MCR = load_rules("mcr")


def L(hand, win, melds=(), **flags):
    """A batch line; melds as 'chi:123m' / 'pon:555z' / 'minkan:...' / 'ankan:...'."""
    ms = [{"type": m.split(":")[0], "tiles": m.split(":")[1]} for m in melds]
    return {"hand": hand, "win": win, "melds": ms, **flags}


def fans_of(line, rules=MCR) -> dict[str, int]:
    out = score_hand(line, rules)
    assert "fans" in out, out
    return {f["name"]: f["points"] for f in out["fans"]}


CHI123 = "chi:123m"
ROWS = [
    # 88 -----------------------------------------------------------------
    (
        "big_four_winds",
        L("111222333444z55m", "5m"),
        (),
        (
            "all_pungs",
            "big_three_winds",
            "little_four_winds",
            "seat_wind",
            "prevalent_wind",
            "pung_of_terminals_or_honors",
        ),
        "004:19",
    ),
    (
        "big_three_dragons",
        L("123m99p555666777z", "9p"),
        (),
        ("dragon_pung", "two_dragons_pungs"),
        "004:23",
    ),
    ("all_green", L("234s234s666s88s666z", "8s"), (), ("half_flush", "one_voided_suit"), "004:27"),
    (
        "nine_gates",
        L("11123455678999m", "5m"),
        (),
        (
            "full_flush",
            "concealed_hand",
            "pung_of_terminals_or_honors",
            "single_wait",
            "edge_wait",
            "closed_wait",
        ),
        "004:31",
    ),
    (
        "four_kongs",
        L("55p", "5p", ("minkan:1111m", "ankan:2222s", "minkan:7777z", "kakan:3333p")),
        (),
        ("three_kongs", "all_pungs", "single_wait"),
        "004:33",
    ),
    (
        "seven_shifted_pairs",
        L("22334455667788p", "8p"),
        (),
        ("seven_pairs", "full_flush", "concealed_hand", "single_wait"),
        "004:36",
    ),
    (
        "thirteen_orphans",
        L("19m19p19s12345677z", "7z"),
        (),
        ("all_types", "concealed_hand", "single_wait"),
        "004:40",
    ),
    # 門前自模と複合可能 (004:31, 36, 40): self-drawn they also score 不求人, not 自摸
    (
        "nine_gates",
        L("11123455678999m", "5m", tsumo=True),
        ("fully_concealed_hand",),
        ("self_drawn", "full_flush", "no_honors", "one_voided_suit"),
        "004:31",
    ),
    (
        "seven_shifted_pairs",
        L("11223344556677s", "1s", tsumo=True),
        ("fully_concealed_hand",),
        ("self_drawn",),
        "004:36",
    ),
    (
        "thirteen_orphans",
        L("119m19p19s1234567z", "1m", tsumo=True),
        ("fully_concealed_hand",),
        ("self_drawn",),
        "004:40",
    ),
    # 64 -----------------------------------------------------------------
    (
        "all_terminals",
        L("111999m111999p11s", "1s"),
        ("double_pung",),
        (
            "all_pungs",
            "outside_hand",
            "no_honors",
            "all_terminals_and_honors",
            "pung_of_terminals_or_honors",
        ),
        "004:49",
    ),
    (
        "little_four_winds",
        L("567m11122233344z", "5m"),
        ("seat_wind", "prevalent_wind"),
        ("big_three_winds", "pung_of_terminals_or_honors"),
        "004:53",
    ),
    (
        "little_three_dragons",
        L("123m456p55566677z", "3m"),
        (),
        ("dragon_pung", "two_dragons_pungs"),
        "004:57",
    ),
    (
        "all_honors",
        L("11122244455577z", "7z"),
        ("dragon_pung",),
        ("all_pungs", "outside_hand", "pung_of_terminals_or_honors", "all_terminals_and_honors"),
        "004:61",
    ),
    (
        "four_concealed_pungs",
        L("11199m222p333s555z", "9m", tsumo=True),
        ("fully_concealed_hand",),
        ("all_pungs", "concealed_hand", "self_drawn"),
        "004:65",
    ),
    (
        "pure_terminal_chows",
        L("11223355778899m", "5m"),
        ("concealed_hand",),
        (
            "full_flush",
            "all_chows",
            "seven_pairs",
            "pure_double_chow",
            "two_terminal_chows",
            "mixed_double_chow",
        ),
        "004:69",
    ),
    # 48 -----------------------------------------------------------------
    (
        "quadruple_chow",
        L("111122223333m55p", "5p"),
        (),
        ("pure_double_chow", "pure_triple_chow", "tile_hog", "pure_shifted_pungs"),
        "004:78",
    ),
    (
        "four_pure_shifted_pungs",
        L("111222333444m55p", "5p"),
        (),
        ("pure_shifted_pungs", "pure_triple_chow", "all_pungs"),
        "004:82",
    ),
    # 32 -----------------------------------------------------------------
    (
        "four_pure_shifted_chows",
        L("122333444556m99p", "9p"),
        (),
        ("short_straight", "pure_shifted_chows"),
        "004:91",
    ),
    (
        "three_kongs",
        L("11s555z", "1s", ("minkan:2222p", "ankan:3333s", "ankan:7777m")),
        ("three_concealed_pungs",),
        (),
        "004:95",
    ),
    (
        "all_terminals_and_honors",
        L("111m999p999s11122z", "2z"),
        (),
        ("pung_of_terminals_or_honors", "outside_hand", "all_pungs"),
        "004:99",
    ),
    # 24 -----------------------------------------------------------------
    ("seven_pairs", L("1133m557799p2244s", "4s"), (), ("single_wait", "concealed_hand"), "004:108"),
    (
        "greater_honors_and_knitted_tiles",
        L("147m25p36s1234567z", "1z"),
        (),
        ("concealed_hand", "all_types", "lesser_honors_and_knitted_tiles"),
        "004:112",
    ),
    (
        "all_even_pungs",
        L("222m444p666s66p", "6p", ("pon:888m",)),
        (),
        ("all_pungs", "all_simples"),
        "004:116",
    ),
    ("full_flush", L("11123456788899m", "9m"), (), ("no_honors", "one_voided_suit"), "004:120"),
    (
        "pure_triple_chow",
        L("112233m456p77s", "7s", (CHI123,)),
        (),
        ("pure_shifted_pungs", "pure_double_chow"),
        "004:124",
    ),
    ("pure_shifted_pungs", L("111222333p456m77s", "7s"), (), ("pure_triple_chow",), "004:128"),
    ("upper_tiles", L("789999m789p78988s", "8s"), (), ("no_honors", "upper_four"), "004:130"),
    ("middle_tiles", L("444456m45556p456s", "6s"), (), ("no_honors", "all_simples"), "004:131"),
    ("lower_tiles", L("111123m12223p123s", "3s"), (), ("no_honors", "lower_four"), "004:132"),
    # 16 -----------------------------------------------------------------
    ("pure_straight", L("123456789m234p55s", "5s"), ("all_chows",), (), "004:137"),
    (
        "three_suited_terminal_chows",
        L("123789m123789p55s", "5s"),
        (),
        ("all_chows", "two_terminal_chows", "mixed_double_chow", "no_honors"),
        "004:140",
    ),
    ("pure_shifted_chows", L("122333445m789p55s", "5s"), (), (), "004:142"),
    ("all_five", L("345m456m567p456s55p", "5p"), (), ("all_chows", "all_simples"), "004:143"),
    ("triple_pung", L("222456m22299p222s", "9p"), (), ("double_pung",), "004:144"),
    (
        "three_concealed_pungs",
        L("111m333p555s77z", "7z", ("chi:234m",)),
        (),
        ("two_concealed_pungs",),
        "004:145",
    ),
    # 12 -----------------------------------------------------------------
    (
        "lesser_honors_and_knitted_tiles",
        L("147m258p36s123456z", "1z"),
        (),
        ("concealed_hand", "all_types"),
        "004:152",
    ),
    (
        "knitted_straight",
        L("147m258p369s12345z", "5z"),
        ("lesser_honors_and_knitted_tiles",),
        (),
        "004:152",
    ),
    ("knitted_straight", L("147m25558p345669s", "4s"), ("all_chows",), (), "004:156"),
    (
        "knitted_straight",
        L("147m258p369s789p11z", "8p"),
        (),
        ("closed_wait", "edge_wait"),
        "004:156",
    ),
    ("upper_four", L("677889m789p66699s", "9s"), (), ("no_honors",), "004:158"),
    ("lower_four", L("11123m234p123444s", "4s"), (), ("no_honors",), "004:159"),
    (
        "big_three_winds",
        L("456m99p111222333z", "9p", seat_wind="N", round_wind="N"),
        (),
        ("pung_of_terminals_or_honors",),
        "004:160",
    ),
    # 8 ------------------------------------------------------------------
    ("mixed_straight", L("123m456p55789s222z", "5s"), (), (), "004:165"),
    ("reversible_tiles", L("123888p456999s55z", "5z"), (), ("one_voided_suit",), "004:168"),
    ("mixed_triple_chow", L("12399m123p123s555z", "9m"), (), ("mixed_double_chow",), "004:170"),
    ("mixed_shifted_pungs", L("222567m333p44499s", "9s"), (), (), "004:171"),
    ("chicken_hand", L("345m22z", "5m", ("chi:123m", "pon:555p", "chi:678s")), (), (), "004:172"),
    (
        "last_tile_draw",
        L("123m456p78999s", "9s", ("pon:111z",), tsumo=True, wall_last=True),
        (),
        ("self_drawn",),
        "004:173",
    ),
    (
        "last_tile_claim",
        L("123m456p78999s", "9s", ("pon:111z",), wall_last=True),
        (),
        (),
        "004:174",
    ),
    (
        "out_with_replacement_tile",
        L("123m456p78999s", "9s", ("minkan:1111z",), tsumo=True, kong_replacement=True),
        (),
        ("self_drawn",),
        "004:179",
    ),
    (
        "robbing_the_kong",
        L("123m456p78999s", "8s", ("pon:111z",), robbing_kong=True, last_tile=True),
        (),
        ("last_tile",),
        "004:185",
    ),
    (
        "two_concealed_kongs",
        L("123m456p99s", "9s", ("ankan:2222p", "ankan:5555z")),
        (),
        ("concealed_kong", "two_concealed_pungs"),
        "004:187",
    ),
    # 6 ------------------------------------------------------------------
    (
        "all_pungs",
        L("22299m555p777s", "9m", ("pon:333z",)),
        ("three_concealed_pungs",),
        (),
        "004:194",
    ),
    ("half_flush", L("12345678955m111z", "5m"), (), ("one_voided_suit",), "004:195"),
    ("mixed_shifted_chows", L("123678m234p34599s", "9s"), (), (), "004:196"),
    ("all_types", L("123m456p789s111z55z", "5z"), (), (), "004:200"),
    (
        "melded_hand",
        L("55m", "5m", ("chi:123p", "pon:999s", "chi:678m", "pon:222z")),
        (),
        ("single_wait",),
        "004:203",
    ),
    ("two_dragons_pungs", L("123m456p99s555666z", "9s"), (), ("dragon_pung",), "004:205"),
    # 4 ------------------------------------------------------------------
    ("outside_hand", L("12399m789p111789s", "9m"), (), (), "004:210"),
    (
        "fully_concealed_hand",
        L("123m456p789s23455s", "2s", tsumo=True),
        (),
        ("self_drawn", "concealed_hand"),
        "004:213",
    ),
    (
        "two_melded_kongs",
        L("123m456p99s", "9s", ("minkan:2222s", "kakan:7777z")),
        (),
        ("melded_kong",),
        "004:215",
    ),
    (
        "two_melded_kongs",
        L("123m456p99s", "9s", ("minkan:2222s", "ankan:7777z")),
        ("concealed_kong",),
        ("melded_kong", "concealed_kong_and_melded_kong"),
        "004:215",
    ),
    ("last_tile", L("123m456p789s23455s", "2s", last_tile=True), (), (), "004:216"),
    # 2 ------------------------------------------------------------------
    ("dragon_pung", L("123m456p789s77z555z", "7z"), (), (), "004:221"),
    (
        "prevalent_wind",
        L("123m456p789s77z222z", "7z", round_wind="S"),
        ("pung_of_terminals_or_honors",),  # 004:246 門風刻、圏風刻と複合する
        (),
        "004:222",
    ),
    (
        "seat_wind",
        L("123m456p789s77z333z", "7z", seat_wind="W"),
        ("pung_of_terminals_or_honors",),  # 004:246 門風刻、圏風刻と複合する
        (),
        "004:223",
    ),
    ("concealed_hand", L("123m456p789s23455s", "2s"), (), (), "004:224"),
    ("all_chows", L("123m456p789s23455s", "2s"), (), ("no_honors",), "004:227"),
    ("tile_hog", L("123345m33m456p789s", "4p"), (), (), "004:229"),
    ("double_pung", L("222789m222p456s55z", "5z"), (), (), "004:230"),
    ("two_concealed_pungs", L("222m444p456s55z", "5z", ("chi:789m",)), (), (), "004:231"),
    ("concealed_kong", L("123m456p99s", "9s", ("ankan:2222s", "chi:789m")), (), (), "004:232"),
    ("all_simples", L("234m456p678s34555s", "3s"), (), ("no_honors",), "004:233"),
    # 1 ------------------------------------------------------------------
    ("pure_double_chow", L("123123m456p789s11z", "1z"), (), (), "004:240"),
    ("mixed_double_chow", L("123m123p456s789s11z", "1z"), (), (), "004:241"),
    ("short_straight", L("123456m345p789p11z", "1z"), (), (), "004:242"),
    ("two_terminal_chows", L("123789m234p567s11z", "1z"), (), (), "004:243"),
    ("pung_of_terminals_or_honors", L("111m456p789s234s22z", "2z"), (), (), "004:244"),
    ("melded_kong", L("123m456p789s22z", "2z", ("minkan:1111z",)), (), (), "004:248"),
    ("one_voided_suit", L("123m456m789p456p11z", "1z"), (), (), "004:249"),
    ("no_honors", L("123m456m111p55s", "5s", ("chi:678s",)), (), (), "004:250"),
    ("edge_wait", L("12355m456p789s555z", "3m"), (), (), "004:253"),
    ("closed_wait", L("12355m456p789s555z", "2m"), (), (), "004:257"),
    ("single_wait", L("123m456p789s555z11s", "1s"), (), (), "004:261"),
    ("self_drawn", L("123m456p789s22z", "2z", ("pon:555z",), tsumo=True), (), (), "004:263"),
]


@pytest.mark.parametrize(
    "fid, line, also, absent, cite", ROWS, ids=[f"{r[0]}-{i}" for i, r in enumerate(ROWS)]
)
def test_fan_shown_and_exclusions(fid, line, also, absent, cite):
    fans = fans_of(line)
    assert fid in fans, f"{cite}: expected {fid} in {fans}"
    for f in also:
        assert f in fans, f"{cite}: expected {f} with {fid}, got {fans}"
    for f in absent:
        assert f not in fans, f"{cite}: {fid} excludes {f}, got {fans}"


def test_every_rulebook_fan_has_a_row():
    shown = {r[0] for r in ROWS} | {"flower_tiles"}
    assert set(RULEBOOK_FANS) - shown == set()
    assert len(RULEBOOK_FANS) == 81  # 004: 88 down to 1, flowers (花牌) included


def test_flowers_add_points_but_not_to_the_minimum():
    base = L("123m456p678s23455s", "2s", flowers=3)
    out = score_hand(base, MCR)
    assert out["ok"] is False and out["error"]["code"] == "below_minimum"  # 004:266
    out = score_hand(L("123456789m234p55s", "5s", flowers=3), MCR)
    assert out["ok"] and out["flowers"] == 3 and out["total"] == out["fan"] + 3
    assert "flower_tiles" not in {f["name"] for f in out["fans"]}


def test_names_come_from_the_rulebook():
    assert (
        FANS["big_four_winds"].name_zh == "四風会"
        and FANS["big_four_winds"].name_ja == "スーフォンフィ"
    )
    assert (
        FANS["knitted_straight"].name_zh == "組合龍"
        and FANS["knitted_straight"].name_ja == "ツーハーロン"
    )
    out = score_hand(L("123456789m234p55s", "5s"), MCR)
    row = out["fans"][0]
    assert row == {
        "name": "pure_straight",
        "points": 16,
        "count": 1,
        "name_zh": "清龍",
        "name_ja": "チンロン",
        "name_en": "Pure Straight",
    }
    assert FANS["pung_of_terminals_or_honors"].name_en == "Pung of Terminals or Honors"


def test_account_once_and_non_identical():
    # 234567s234567p: two mixed double chows and one short straight, not two of each.
    fans = fans_of(L("234567p234567s11z", "1z"))
    assert fans["mixed_double_chow"] == 2 and fans["short_straight"] == 1
    # 234s 223344p 567p: one of each; 234s cannot make 喜相逢 with both 234p.
    fans = fans_of(L("223344567p234s11z", "1z"))
    assert (
        fans["pure_double_chow"] == 1
        and fans["mixed_double_chow"] == 1
        and fans["short_straight"] == 1
    )


def test_wait_counts_only_when_unique():
    # 23m waits on 1m and 4m: no edge wait although 1m-2m-3m is at the edge (004:253)
    assert "edge_wait" not in fans_of(L("23455m456p789s555z", "4m"))
    # 1-2 waiting 3: edge
    assert "edge_wait" in fans_of(L("12355m456p789s555z", "3m"))


def test_reference_rows_for_docs():
    rows = reference()
    assert [r["id"] for r in rows] == list(RULEBOOK_FANS)
    assert sum(1 for r in rows if r["points"] == 88) == 7  # 004 88点: seven fans
    assert all(r["source"].startswith("004:") and r["name_ja"] for r in rows)
