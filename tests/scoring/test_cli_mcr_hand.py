"""`python -m scoring hand --rules mcr` explains an MCR hand, each fan with its names."""

import subprocess
import sys


def _hand(*args):
    return subprocess.run([sys.executable, "-m", "scoring", "hand", "--rules", "mcr", *args],
                          capture_output=True, text=True, timeout=60)


def test_mcr_hand_lists_fans_with_chinese_and_japanese_names_and_flowers():
    r = _hand("--hand", "123456789m11p234s", "--win", "4s", "--tsumo", "--flowers", "2")
    assert r.returncode == 0, r.stderr
    assert "pure_straight" in r.stdout and "清龍" in r.stdout
    assert "fully_concealed_hand" in r.stdout
    # 16 + 4 + 2 = 22 fan, + 2 flowers; self-drawn: each other player pays 8 + 24
    assert "24" in r.stdout.split("total")[1].splitlines()[0]
    assert "32 from each other player" in r.stdout


def test_mcr_hand_win_conditions_reach_the_engine():
    base = ["--hand", "123456789m11p234s", "--win", "4s"]
    plain = _hand(*base).stdout
    last = _hand(*base, "--last-tile").stdout
    assert "last_tile" not in plain and "last_tile" in last


def test_mcr_hand_below_minimum_says_so_and_exits_1():
    r = _hand("--hand", "123m456p789p234s11z", "--win", "1z")  # 4 fan
    assert r.returncode == 1
    assert "below_minimum" in r.stdout
