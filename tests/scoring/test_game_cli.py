"""``python -m scoring game``: the contract's format, run as a real process on
the shipped sample games (examples/)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.game import replay
from scoring.rules import PRESET_IDS

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def run(args, stdin: str):
    return subprocess.run(
        [sys.executable, "-m", "scoring", "game", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


@pytest.mark.parametrize("preset", PRESET_IDS)
def test_every_preset_has_a_sample_game_that_replays_to_the_end(preset):
    path = EXAMPLES / f"{preset}.jsonl"
    assert path.is_file(), f"examples/{preset}.jsonl is missing"
    proc = run(["--rules", preset], path.read_text("utf-8"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    assert out["rules"] == preset and out["finished"] is True
    for h in out["hands"]:
        assert {"round", "honba", "dealer", "kyoutaku", "deltas", "scores", "event"} <= set(h)
    final = out["final"]
    assert {"scores", "ranks", "uma", "oka", "chips", "result"} <= set(final)
    assert abs(sum(final["result"])) < 1e-6
    assert ("victory_points" in final) == (preset == "nekohouse-boo")
    # the process and the library agree
    events = [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]
    assert replay(events, preset) == out


def test_sample_games_are_listed_in_the_readme():
    text = (EXAMPLES / "README.md").read_text("utf-8")
    for preset in PRESET_IDS:
        assert f"`{preset}`" in text


def test_refused_event_names_the_line_and_rule_and_exits_1():
    events = (
        '{"event": "start", "players": ["A", "B", "C", "D"]}\n'
        '{"event": "abort", "kind": "kyuushu"}\n'
    )
    proc = run(["--rules", "mahjongbu"], events)
    assert proc.returncode == 1
    out = json.loads(proc.stdout)
    assert out["ok"] is False and out["line"] == 2 and out["error"]["code"] == "invalid_event"
    assert "abortive_draws" in out["error"]["message"] and "Traceback" not in proc.stderr
    assert "line 2" in proc.stderr


def test_bad_json_and_bad_rules_are_messages_not_tracebacks():
    proc = run(
        ["--rules", "netmahjong"], '{"event": "start", "players": ["A","B","C","D"]}\n{oops\n'
    )
    assert proc.returncode == 1 and "line 2" in proc.stdout and "Traceback" not in proc.stderr
    proc = run(["--rules", "no-such-preset"], "")
    assert proc.returncode == 2 and "unknown rule preset" in proc.stderr


def test_a_club_toml_extending_a_preset(tmp_path):
    club = tmp_path / "club.toml"
    club.write_text(
        'extends = "netmahjong"\nname = "club"\n[game]\nlength = "hanchan"\n'
        "[settlement]\numa = [30000, 10000, -10000, -30000]\n",
        "utf-8",
    )
    events = [{"event": "start", "players": ["A", "B", "C", "D"]}]
    events += [
        {"event": "win", "winners": [{"seat": (d + 1) % 4, "han": 1, "fu": 30}], "from": d % 4}
        for d in range(8)
    ]
    proc = run(["--rules", str(club)], "".join(json.dumps(e) + "\n" for e in events))
    out = json.loads(proc.stdout)
    assert out["finished"] and out["hands"][-1]["round"] == "S4"
    assert out["final"]["uma"] == [30000, 10000, -10000, -30000]


def test_blank_lines():
    start = '{"event": "start", "players": ["A", "B", "C", "D"]}\n'
    assert run(["--rules", "netmahjong"], start + "\n\n").returncode == 0
    proc = run(["--rules", "netmahjong"], start + "\n" + '{"event": "end"}\n')
    assert proc.returncode == 1 and json.loads(proc.stdout)["line"] == 2


@pytest.mark.parametrize(
    "name,row",
    [
        ("netmahjong-shichigosan", [15000, -3000, -5000, -7000]),
        ("netmahjong-shizumi", [30000, -10000, -10000, -10000]),
    ],
)
def test_shipped_local_rule_files(name, row):
    # 000 (3) ウマ 【ローカルルール】 floating / sinking uma as club TOML files in examples/
    settled = replay(
        [
            {"event": "start", "players": ["A", "B", "C", "D"]},
            {"event": "win", "winners": [{"seat": 1, "han": 8, "fu": 0}], "from": 0},
            {"event": "end"},
        ],
        str(EXAMPLES / f"{name}.toml"),
    )
    # only B floats (41000): the one-floater row, by rank B, C, D, A
    assert settled["final"]["uma"] == [row[3], row[0], row[1], row[2]]
    proc = run(
        ["--rules", str(EXAMPLES / f"{name}.toml")],
        (EXAMPLES / "netmahjong.jsonl").read_text("utf-8"),
    )
    assert proc.returncode == 0
    out = json.loads(proc.stdout)
    # the sample is an East-only game: it is over in tonpuu, still running in hanchan (shizumi)
    assert out["finished"] is (name == "netmahjong-shichigosan")
    assert out["finished"] is False or abs(sum(out["final"]["result"])) < 1e-6


@pytest.mark.parametrize("preset", PRESET_IDS)
def test_readme_table_matches_the_replay(preset):
    events = [json.loads(x) for x in (EXAMPLES / f"{preset}.jsonl").read_text("utf-8").splitlines()]
    final = replay(events, preset)["final"]
    row = next(
        x
        for x in (EXAMPLES / "README.md").read_text("utf-8").splitlines()
        if x.startswith(f"| `{preset}` |")
    )
    assert f"| {final['scores']} | {final['result']}" in row
