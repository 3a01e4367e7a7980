"""Fuzz: random strings and random JSON never crash the batch (docs/contracts/scoring-batch.md:
「never a crash, never a stack trace, the rest of the batch goes on」).

Every input line gives exactly one output line, a JSON object that is either a
result (``ok: true`` with the contract's fields) or ``ok: false`` with one of
the contract's error codes and a message. The last-resort guard's message
("please report it") must never appear: that would be a bug caught, not bad
input handled.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.batch import score_lines
from scoring.rules import PRESET_IDS

ROOT = Path(__file__).resolve().parents[2]
CODES = {"no_yaku", "not_agari", "invalid_tiles", "invalid_input", "below_minimum"}
RESULT_FIELDS = {
    "id",
    "ok",
    "han",
    "fu",
    "yakuman",
    "yaku",
    "limit",
    "value",
    "pay",
    "honba_bonus",
    "kyoutaku_bonus",
    "chips",
}
RIICHI_PRESETS = [p for p in PRESET_IDS if p != "mcr"]

# text without the characters that end a line (a line is what the batch reads)
line_text = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=80
)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False)
    | line_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(line_text, inner, max_size=4),
    max_leaves=12,
)
tile_text = st.text(alphabet="0123456789mpszf ", max_size=20)
plausible = st.fixed_dictionaries(
    {},
    optional={
        "id": json_values,
        "hand": tile_text | json_values,
        "win": tile_text | json_values,
        "melds": st.lists(
            st.fixed_dictionaries(
                {
                    "type": st.sampled_from(["chi", "pon", "minkan", "ankan", "kakan", "kong"]),
                    "tiles": tile_text,
                },
                optional={"from": st.sampled_from(["left", "across", "right", "up", None])},
            ),
            max_size=4,
        )
        | json_values,
        "tsumo": st.booleans() | json_values,
        "riichi": st.booleans(),
        "ippatsu": st.booleans(),
        "double_riichi": st.booleans(),
        "open_riichi": st.booleans(),
        "rinshan": st.booleans(),
        "chankan": st.booleans(),
        "haitei": st.booleans(),
        "houtei": st.booleans(),
        "tenhou": st.booleans(),
        "chiihou": st.booleans(),
        "renhou": st.booleans(),
        "pocchi": st.booleans(),
        "ankan_chankan": st.booleans(),
        "seat_wind": st.sampled_from("ESWNX") | json_values,
        "round_wind": st.sampled_from("ESWN"),
        "dora": tile_text,
        "ura": tile_text,
        "nukidora": st.integers(-2, 9) | json_values,
        "honba": st.integers(-2, 9),
        "kyoutaku": st.integers(-2, 9),
        "rules": st.sampled_from(RIICHI_PRESETS + ["nope", "mcr"]) | json_values,
    },
)
# complete, well-formed hands mostly get past validation and exercise the scoring itself
winning = st.sampled_from(
    [
        {"hand": "234m456p678s23455s", "win": "5s"},
        {"hand": "19m19p19s12234567z", "win": "1m"},
        {"hand": "33556688m99p6699s", "win": "6m"},
        {
            "hand": "88p666s",
            "win": "6s",
            "melds": [
                {"type": "minkan", "tiles": "9999p"},
                {"type": "minkan", "tiles": "4444m"},
                {"type": "ankan", "tiles": "6666z"},
            ],
        },
        {"hand": "123m45566p789s44z5z", "win": "5z"},
        {"hand": "11223344556688m", "win": "8m"},
    ]
)
fuzzed_hand = st.builds(
    lambda base, extra: {**base, **extra},
    winning,
    plausible.map(lambda d: {k: v for k, v in d.items() if k not in ("hand", "win", "melds")}),
)
any_line = st.one_of(
    line_text,
    json_values.map(json.dumps),
    plausible.map(json.dumps),
    fuzzed_hand.map(json.dumps),
)


def check_output(lines_in: list[str], lines_out: list[str]) -> None:
    assert len(lines_out) == len(lines_in)
    for text in lines_out:
        out = json.loads(text)
        assert isinstance(out, dict) and isinstance(out["ok"], bool)
        if out["ok"]:
            missing = RESULT_FIELDS - set(out) if "fan" not in out else set()
            assert not missing, missing
        else:
            assert out["error"]["code"] in CODES, out
            msg = out["error"]["message"]
            assert isinstance(msg, str) and msg and "please report it" not in msg, out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(any_line, max_size=8), st.sampled_from(RIICHI_PRESETS))
def test_score_batch_never_crashes(lines, preset):
    check_output(lines, list(score_lines(lines, preset)))


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(any_line, min_size=1, max_size=150), st.sampled_from(RIICHI_PRESETS))
def test_the_real_command_never_crashes(lines, preset):
    """The real ``python -m scoring batch`` process: exit 0, nothing on stderr, a line per line."""
    data = "".join(line + "\n" for line in lines).encode("utf-8")
    env = {
        **os.environ,
        "PYTHONIOENCODING": "ascii",
        "LANG": "C",
    }  # output must not depend on the locale
    proc = subprocess.run(
        [sys.executable, "-m", "scoring", "batch", "--rules", preset],
        input=data,
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0 and proc.stderr == b""
    check_output(lines, proc.stdout.decode("utf-8").splitlines())


def test_bad_bytes_and_blank_lines_each_get_a_line():
    data = b'\xff\xfe\n\n{"id": 7}\n[1, 2]\n'
    proc = subprocess.run(
        [sys.executable, "-m", "scoring", "batch"],
        input=data,
        capture_output=True,
        cwd=ROOT,
        timeout=60,
    )
    out = [json.loads(x) for x in proc.stdout.decode().splitlines()]
    assert [o["ok"] for o in out] == [False] * 4
    assert out[2]["id"] == 7 and out[2]["error"]["code"] == "invalid_input"
