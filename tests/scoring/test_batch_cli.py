"""``python -m scoring batch`` and ``hand`` as docs/contracts/scoring-batch.md fixes them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.hand import score_hand

ROOT = Path(__file__).resolve().parents[2]

RIICHI_TANYAO = {"hand": "234m456p678s23455s", "win": "5s", "riichi": True, "seat_wind": "S"}


def run(args, stdin=""):
    return subprocess.run(
        [sys.executable, "-m", "scoring", *args],
        input=stdin.encode(),
        capture_output=True,
        cwd=ROOT,
        timeout=120,
    )


def batch(lines, *args):
    proc = run(["batch", *args], "".join(json.dumps(x) + "\n" for x in lines))
    assert proc.returncode == 0, proc.stderr
    return [json.loads(x) for x in proc.stdout.decode().splitlines()]


def test_output_line_has_the_contract_fields_in_order_of_input():
    lines = [dict(RIICHI_TANYAO, id=i, honba=i % 3, kyoutaku=1) for i in range(5)]
    lines.insert(2, {"id": "bad", "hand": "123m", "win": "1m"})
    out = batch(lines, "--rules", "netmahjong")
    assert [o["id"] for o in out] == [0, 1, "bad", 2, 3, 4]
    good = out[0]
    assert good["ok"] and good["han"] == 2 and good["fu"] == 40 and good["yakuman"] == 0
    assert good["yaku"] == [{"name": "riichi", "han": 1}, {"name": "tanyao", "han": 1}]
    assert good["limit"] is None and good["value"] == 2600 and good["pay"] == {"ron": 2600}
    assert good["kyoutaku_bonus"] == 1000 and good["chips"]["total"] == 0
    assert out[1]["honba_bonus"] == 300  # 000 (4): 300 x 積み棒 on a ron
    assert out[2] == {
        "id": "bad",
        "ok": False,
        "error": {"code": "invalid_tiles", "message": out[2]["error"]["message"],
                  "reason": "hand_size", "values": {"count": 3, "melds": 0, "need": 14}},
    }


def test_value_is_the_sum_of_payments():
    """contract: value = the sum of all payments, honba and deposits excluded."""
    non_dealer = score_hand(dict(RIICHI_TANYAO, tsumo=True), "netmahjong")
    pay = non_dealer["pay"]
    # riichi, menzen tsumo, tanyao: 3 han 30 fu (000 (4) ツモあがり 子 1000 / 親 2000)
    assert pay == {"dealer": 2000, "non_dealer": 1000} and non_dealer["value"] == 2000 + 2 * 1000
    dealer = score_hand(dict(RIICHI_TANYAO, tsumo=True, seat_wind="E"), "netmahjong")
    assert dealer["pay"] == {"all": 2000} and dealer["value"] == 6000


def test_a_line_rules_field_wins_over_the_flag():
    lines = [
        dict(RIICHI_TANYAO, id=1, houtei=True),
        dict(RIICHI_TANYAO, id=2, houtei=True, rules="nekohouse-4a"),
    ]
    out = batch(lines, "--rules", "netmahjong")
    assert "haitei" in [y["name"] for y in out[0]["yaku"]]
    assert "houtei" in [y["name"] for y in out[1]["yaku"]]


def test_rules_file_that_extends_a_preset(tmp_path):
    toml = tmp_path / "club.toml"
    toml.write_text('extends = "netmahjong"\nname = "club"\n[hand]\nkuitan = false\n', "utf-8")
    line = {"hand": "345m66m567p567s", "win": "5s", "melds": [{"type": "chi", "tiles": "567s"}]}
    assert batch([line], "--rules", "netmahjong")[0]["ok"]
    assert batch([line], "--rules", str(toml))[0]["error"]["code"] == "no_yaku"


def test_bad_rules_flag_is_an_error_message_not_a_traceback():
    proc = run(["batch", "--rules", "no-such-preset"], json.dumps(RIICHI_TANYAO) + "\n")
    assert proc.returncode == 2 and proc.stdout == b""
    assert (
        b"unknown rule preset 'no-such-preset'" in proc.stderr and b"Traceback" not in proc.stderr
    )


def test_bad_line_rules_is_a_line_error():
    out = batch([dict(RIICHI_TANYAO, rules="nope"), dict(RIICHI_TANYAO, rules=5)])
    assert [o["error"]["code"] for o in out] == ["invalid_input", "invalid_input"]


def test_worker_processes_give_the_same_lines_in_the_same_order():
    """Large inputs are scored by worker processes; the output is the same as one process's."""
    from tests.scoring.test_oracle_riichi import lines as random_lines

    text = "".join(json.dumps(dict(x, id=i)) + "\n" for i, x in enumerate(random_lines(2500, 7)))
    one = run(["batch", "--workers", "1"], text)
    two = run(["batch", "--workers", "2"], text)
    assert one.returncode == two.returncode == 0
    assert one.stdout == two.stdout and one.stdout.count(b"\n") == 2500


@pytest.mark.parametrize(
    "flag_line, want",
    [
        (
            ["--tsumo", "--riichi", "--seat", "S", "--dora", "1p"],
            [
                "riichi",
                "menzen_tsumo",
                "tanyao",
                "base (副底)",
                "tanki wait",
                "value: 4000",
                "2000 from the dealer, 1000 from each other player",
            ],
        ),
        (["--meld", "pon:555z:across", "--seat", "S"], None),
    ],
)
def test_hand_explains_yaku_fu_and_payments(flag_line, want):
    proc = run(
        [
            "hand",
            "--rules",
            "nekohouse-4a",
            "--hand",
            "234m456p678s23455s",
            "--win",
            "5s",
            *flag_line,
        ]
    )
    text = proc.stdout.decode()
    if want is None:  # 11 tiles + a pon: a 14-tile hand with a meld is refused in words
        assert proc.returncode == 1 and "needs 11" in text
        return
    assert proc.returncode == 0, proc.stderr
    for piece in want:
        assert piece in text, (piece, text)
    assert "立直" in text and "断么九" in text  # Japanese names beside the ids


def test_hand_json_is_the_batch_line():
    proc = run(
        ["hand", "--hand", "234m456p678s23455s", "--win", "5s", "--riichi", "--seat", "S", "--json"]
    )
    out = json.loads(proc.stdout)
    assert out == score_hand(
        dict(
            RIICHI_TANYAO,
            melds=[],
            round_wind="E",
            dora="",
            ura="",
            nukidora=0,
            honba=0,
            kyoutaku=0,
        ),
        "netmahjong",
    )


def test_unknown_subcommand_and_help():
    assert run(["frobnicate"]).returncode == 2
    helptext = run(["--help"]).stdout.decode()
    assert "batch" in helptext and "hand" in helptext


def test_input_is_cut_into_pieces_only_at_line_ends():
    """Pieces of the input end at newlines, whatever the read size: a line longer than a
    piece, blank lines and a last line without a newline all come through whole."""
    import io

    from scoring import batch

    long_line = b'{"id": "' + b"x" * 300 + b'"}'
    data = b'{"id": 1}\n\n' + long_line + b"\n" + b'{"id": 2}'
    pieces = list(batch.chunks(io.BytesIO(data), 16))
    assert b"".join(pieces) == data
    assert all(p.endswith(b"\n") for p in pieces[:-1])
    assert [line for p in pieces for line in p.split(b"\n") if line] == [
        b'{"id": 1}', long_line, b'{"id": 2}'
    ]
    out = [json.loads(x) for x in batch.score_chunk(data, "netmahjong").decode().splitlines()]
    assert [o["id"] for o in out] == [1, None, "x" * 300, 2]  # the blank line is answered too
    shares = batch.cut_shares(data, 3)
    assert b"".join(shares) == data and all(p.endswith(b"\n") for p in shares[:-1])


def test_a_worker_that_dies_loses_no_line():
    """A forked worker killed mid-share (here: it exits at once) has its share scored by
    the parent instead; every line is answered once, in order."""
    import io
    import os

    from scoring import batch

    parent = os.getpid()

    def score(share, rules):
        if os.getpid() != parent and b'"id": 3' in share:
            os._exit(9)  # as if killed
        return batch.score_chunk(share, rules)

    lines = [json.dumps(dict(RIICHI_TANYAO, id=i)) + "\n" for i in range(6)]
    shares = [("".join(lines[i:i + 2])).encode() for i in range(0, 6, 2)]
    out = io.BytesIO()
    batch.score_shares([batch.in_memory(x) for x in shares], "netmahjong", out, score)
    got = [json.loads(x) for x in out.getvalue().decode().splitlines()]
    assert [o["id"] for o in got] == list(range(6)) and all(o["ok"] for o in got)


def test_scoring_leaves_no_reference_cycles():
    """The batch switches the cyclic garbage collector off (scoring.batch.main); that is
    only safe while scoring frees everything by reference counting. Score winning hands,
    hands without yaku, pocchi wins, bad lines and MCR lines, then ask the collector."""
    import gc

    from scoring.batch import score_lines
    from tests.scoring.test_oracle_riichi import lines as random_lines
    from tests.support.mcr import random_hands

    riichi = [json.dumps(x) for x in random_lines(1500, 3)]
    odd = ["", "{", "[1, 2]", json.dumps({"hand": "123m", "win": "1m"}), json.dumps(
        {"hand": "234m456p678s23455z", "win": "5z", "riichi": True, "tsumo": True, "pocchi": True,
         "rules": "nekohouse-4b"})]
    mcr = [json.dumps(dict(x, rules="mcr")) for x in random_hands(5, 200)]
    gc.collect()
    gc.disable()
    try:
        out = list(score_lines(riichi + odd + mcr, "netmahjong"))
        found = gc.collect()
    finally:
        gc.enable()
    assert len(out) == len(riichi) + len(odd) + len(mcr)
    assert any('"ok": true' in o for o in out[-len(mcr):])  # the MCR lines were scored
    assert found == 0, f"{found} objects were only reachable through reference cycles"


def test_a_file_on_stdin_is_shared_out_by_offset_with_the_same_result(tmp_path):
    """A file on stdin is cut into one share per worker, each read by its own process;
    the lines come out as one process gives them, whatever the number of workers."""
    from tests.scoring.test_oracle_riichi import lines as random_lines

    path = tmp_path / "hands.jsonl"
    hands = random_lines(2500, 9)
    path.write_text("".join(json.dumps(dict(x, id=i)) + "\n" for i, x in enumerate(hands)))
    outs = []
    for workers in ("1", "2", "3"):
        with open(path, "rb") as stdin:
            proc = subprocess.run([sys.executable, "-m", "scoring", "batch", "--workers", workers],
                                  stdin=stdin, capture_output=True, cwd=ROOT, timeout=120)
        assert proc.returncode == 0, proc.stderr
        outs.append(proc.stdout)
    assert outs[0] == outs[1] == outs[2] and outs[0].count(b"\n") == 2500
    assert [json.loads(x)["id"] for x in outs[0].splitlines()] == list(range(2500))


def test_file_shares_are_cut_after_line_ends(tmp_path):
    import os

    from scoring import batch

    data = b"".join(b"x" * (i % 7) + b"\n" for i in range(50)) + b"y" * 5000 + b"\n" + b"z"
    path = tmp_path / "in.jsonl"
    path.write_bytes(data)
    with open(path, "rb") as f:
        for n in range(1, 6):
            cuts = batch.file_cuts(f.fileno(), 0, len(data), n)
            assert cuts[0] == 0 and cuts[-1] == len(data) and len(cuts) <= n + 1
            assert all(a < b for a, b in zip(cuts, cuts[1:], strict=False))
            assert all(data[c - 1:c] == b"\n" for c in cuts[1:-1])
            bounds = zip(cuts, cuts[1:], strict=False)
            parts = [b"".join(batch.file_share(f.fileno(), a, b)()) for a, b in bounds]
            assert b"".join(parts) == data
        assert os.lseek(f.fileno(), 0, os.SEEK_CUR) == 0  # read by offset: the position stays
