"""The yaku registry as other parts read it (docs/rules.md, the tablet): ids, names, switches."""

from __future__ import annotations

import re

import pytest

from scoring.hand import score_hand
from scoring.rules import PRESET_IDS, switches
from scoring.yaku import BY_ID, YAKU, reference

CONTRACT_IDS = [  # docs/contracts/scoring-batch.md names these ids
    "riichi",
    "menzen_tsumo",
    "pinfu",
    "tanyao",
    "iipeikou",
    "yakuhai_haku",
    "yakuhai_seat_wind",
    "yakuhai_round_wind",
    "chiitoitsu",
    "kokushi",
    "suuankou",
    "dora",
    "aka",
    "ura",
]


def test_ids_are_unique_lower_case_romaji_with_japanese_names():
    ids = [y.id for y in YAKU]
    assert len(ids) == len(set(ids))
    for y in YAKU:
        assert re.fullmatch(r"[a-z][a-z0-9_]*", y.id), y.id
        assert y.ja and not y.ja.isascii(), y.id
    for yid in CONTRACT_IDS:
        assert yid in BY_ID


def test_every_switch_a_yaku_names_exists():
    known = {f"{sec}.{name}" for sec, name, *_ in switches()}
    for y in YAKU:
        for sw in filter(None, (s.strip() for s in y.switch.split(","))):
            assert sw in known, (y.id, sw)


def test_reference_rows_for_the_rules_doc():
    rows = reference()
    assert len(rows) == len(YAKU)
    assert {"id", "ja", "han_closed", "han_open", "yakuman", "switch"} <= set(rows[0])
    chin = next(r for r in rows if r["id"] == "chinitsu")
    assert (chin["han_closed"], chin["han_open"], chin["yakuman"]) == (6, 5, 0)


@pytest.mark.parametrize("preset", [p for p in PRESET_IDS if p != "mcr"])
def test_every_riichi_preset_scores_a_plain_hand(preset):
    """riichi + pinfu + tanyao, ron: every preset scores it (three-player ones without man 2-8)."""
    hand = "234567p234567s88s"
    if preset == "nekohouse-3b":
        hand = hand.replace("5", "0")  # 002 3B: every 5p and 5s is red (「各4枚」)
    line = {"hand": hand, "win": "2s", "riichi": True, "seat_wind": "S"}
    out = score_hand(line, preset)
    assert out["ok"], out
    assert {"riichi", "pinfu", "tanyao"} <= {y["name"] for y in out["yaku"]}
    assert out["value"] > 0
