"""The batch's fast paths give exactly what the plain paths give.

The riichi batch takes short cuts for speed: result lines
joined from memoized JSON parts, hand text cut into suit pieces, concealed
tiles read by sorted kinds with suits memoized, reading yaku gated by what a
reading can hold (``scoring.yaku.NEEDS``), situation and hand yaku memoized.
Each short cut is checked here against the plain computation it replaces, on
seeded random hands (the oracle test's generator) varied with ids, honba,
deposits, pocchi and broken fields.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import decompose as dec
from scoring.batch import line_text, score_lines
from scoring.errors import InvalidTiles
from scoring.hand import (
    _KIND_OF,
    BOOL_FIELDS,
    HandFacts,
    _fast_tiles,
    contexts,
    parse_input,
    score_hand,
)
from scoring.rules import PRESET_IDS, load_rules
from scoring.tiles import parse_tiles
from scoring.yaku import NEEDS, gated_rows, han_table
from tests.scoring.test_oracle_riichi import lines as random_lines

RIICHI_PRESETS = [p for p in PRESET_IDS if p != "mcr"]
ODD_IDS = [7, "a\u2028b", {"x": [1, "é"]}, 2.5, "日本", True, "\x85", [None]]


def _vary(rng: random.Random, line: dict) -> dict:
    line = dict(line)
    if rng.random() < 0.2:
        line["id"] = rng.choice(ODD_IDS)
    if rng.random() < 0.15:
        line["honba"] = rng.randint(1, 4)
    if rng.random() < 0.15:
        line["kyoutaku"] = rng.randint(1, 3)
    if rng.random() < 0.08 and all(m["type"] == "ankan" for m in line["melds"]):
        line.update(riichi=True, tsumo=True, pocchi=True)
        for flag in ("chankan", "houtei", "double_riichi", "tenhou", "chiihou"):
            line.pop(flag, None)
    broken = rng.random()
    if broken < 0.02:
        line["tsumo"] = "yes"
    elif broken < 0.04:
        line["hand"] = line["hand"][1:]
    elif broken < 0.05:
        line["dora"] = "9x"
    return line


@pytest.fixture(scope="module")
def varied_lines() -> list[str]:
    rng = random.Random(5)
    out = [json.dumps(_vary(rng, x), ensure_ascii=False) for x in random_lines(1500, 31)]
    out += [json.dumps(_vary(rng, x)) for x in random_lines(300, 32, sanma=True)]
    return out


@pytest.mark.parametrize("preset", RIICHI_PRESETS)
def test_batch_text_is_the_json_of_score_hand(preset, varied_lines):
    """docs/contracts/scoring-batch.md: the batch line is the result object; the joined text must be
    byte for byte what json.dumps of score_hand's dict gives (NEL/LS/PS escaped)."""
    got = list(score_lines(varied_lines, preset))
    assert len(got) == len(varied_lines)
    for raw, text in zip(varied_lines, got, strict=True):
        want = line_text(score_hand(json.loads(raw), preset))
        assert text == want, raw
        assert "\u2028" not in text and "\x85" not in text


def test_odd_ids_survive_the_joined_text():
    line = {"hand": "123m456p789s11122z", "win": "2z", "tsumo": True}
    for line_id in ODD_IDS:
        (text,) = score_lines([json.dumps({**line, "id": line_id})], "netmahjong")
        out = json.loads(text)
        assert out["ok"] and out["id"] == line_id


def _every_ctx(preset: str, n: int):
    rules = load_rules(preset)
    for line in random_lines(n, 41):
        try:
            inp = parse_input(line, rules)
        except Exception:  # noqa: BLE001 - a line this preset refuses has no readings
            continue
        conc = tuple(sorted(map(_KIND_OF, inp.hand)))
        every = {_KIND_OF(t) for t in inp.hand + [x for m in inp.melds for x in m.tiles]}
        yield rules, contexts(inp, rules, conc, HandFacts(inp, rules, conc, every))


@pytest.mark.parametrize("preset", ["netmahjong", "nekohouse-4b"])
def test_gated_rows_drop_only_yaku_a_reading_cannot_have(preset):
    """yaku.NEEDS is a claim about each condition; a yaku found on a reading whose shape the
    gate says cannot hold it would be a yaku the batch silently drops."""
    checked = 0
    for rules, ctxs in _every_ctx(preset, 1500):
        per_reading = [r for g in han_table(rules.hand)[1][:2] for r in g]
        for ctx in ctxs:
            if ctx.form != "std":
                continue
            gated = gated_rows(rules.hand)[(len(ctx.seqs), ctx.n_honours)]
            for row in per_reading:
                if row[0].cond(ctx):
                    checked += 1
                    assert row in gated, (row[0].id, ctx.sets, ctx.pair)
    assert checked > 500


def test_needs_name_real_reading_yaku():
    ids = {r[0].id for g in han_table(load_rules("netmahjong").hand)[1] for r in g}
    assert set(NEEDS) <= ids | {"yakuhai_north"}


def _random_counts(rng: random.Random) -> tuple:
    kinds = list(range(34))
    if rng.random() < 0.2:  # seven pairs / kokushi shapes, which the generic draw seldom makes
        if rng.random() < 0.5:
            picks = rng.sample(kinds, 7)
            tiles = [k for k in picks for _ in (0, 1)]
            if rng.random() < 0.3:
                tiles[2:4] = [tiles[0], tiles[0]]
        else:
            tiles = list(dec.KOKUSHI_KINDS) + [rng.choice(dec.KOKUSHI_KINDS)]
    else:
        tiles = []
        for _ in range(rng.choice((1, 2, 3, 4))):
            base = rng.choice((0, 9, 18, 27))
            if base < 27 and rng.random() < 0.6:
                k = base + rng.randrange(7)
                tiles += [k, k + 1, k + 2]
            else:
                tiles += [base + rng.randrange(7 if base == 27 else 9)] * 3
        tiles += [rng.randrange(34)] * 2
        tiles += rng.sample(kinds, rng.choice((0, 0, 1)))
    c = [0] * 34
    for k in tiles:
        c[k] += 1
    if max(c) > 4:
        return _random_counts(rng)
    return tuple(c)


def test_shape_by_sorted_kinds_agrees_with_counts():
    rng = random.Random(9)
    for _ in range(4000):
        counts = _random_counts(rng)
        kinds = tuple(k for k, n in enumerate(counts) for _ in range(n))
        found, chiitoi, chiitoi_four, kokushi = dec.shape(kinds)
        assert found == dec.readings(counts)
        assert chiitoi == dec.is_chiitoitsu(counts, False)
        assert chiitoi_four == dec.is_chiitoitsu(counts, True)
        assert kokushi == dec.is_kokushi(counts)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789mpsz,f ", max_size=24))
def test_fast_tile_parser_accepts_only_what_the_strict_one_reads_the_same(text):
    fast = _fast_tiles(text)
    if fast is None:
        return  # the strict parser decides and explains
    try:
        strict = parse_tiles(text, allow_flowers=False)
    except InvalidTiles as e:
        pytest.fail(f"fast parser read {text!r} the strict one refuses: {e.message}")
    assert list(fast) == strict


def test_a_bad_flag_is_named_in_field_order():
    line = {"hand": "123m456p789s11122z", "win": "2z", "riichi": "no", "tsumo": 1}
    out = score_hand(line, "netmahjong")
    first_bad = next(f for f in BOOL_FIELDS if f in ("riichi", "tsumo"))
    assert not out["ok"] and f"'{first_bad}'" in out["error"]["message"]
