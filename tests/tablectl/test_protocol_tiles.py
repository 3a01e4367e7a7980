"""Tile codes on the wire and their names: the link's own copy of the numbering, equal
to the scoring engine's, used by the daemon's words and the simulator's controls without
either importing the engine (docs/architecture.md)."""

import subprocess
import sys

import pytest

from hardware_sim.__main__ import build_parser, control
from hardware_sim.simulator import Simulator
from scoring import tiles as engine_tiles
from tablectl import commands
from tablectl.protocol.tiles import LAST, tile_code, tile_name


def test_every_wire_code_is_named_as_the_engine_names_it():
    for code in range(LAST + 1):
        assert tile_name(code) == engine_tiles.tile_to_str(code)
        assert tile_code(tile_name(code)) == code
    assert [tile_name(c) for c in (0, 4, 27, 33, 34, 36, 37, 44)] == [
        "1m", "5m", "1z", "7z", "0m", "0s", "1f", "8f"]


@pytest.mark.parametrize("bad", ["", "5", "m", "8z", "9f", "55m", "5x", "1m2m"])
def test_a_bad_tile_name_is_refused_in_words(bad):
    with pytest.raises(ValueError, match="is not one tile: write a digit and m, p, s, z or f"):
        tile_code(bad)


def test_a_code_outside_the_set_is_refused():
    with pytest.raises(ValueError, match="45 is not a tile code"):
        tile_name(45)


def test_a_check_result_names_its_tiles():
    row = {"command": "check", "status": "done",
           "result": {"ok": False, "counted": 134, "expected": 136, "missing": [27, 34],
                      "extra": [], "mode": 1}}
    text = commands.describe(row, "en")
    assert "1z 0m" in text


def test_the_simulator_control_refuses_a_bad_tile_and_keeps_running():
    with Simulator(time_scale=0.001, boot_seconds=20) as sim:
        assert control(sim, "remove-tile 9z table").startswith("error '9z' is not one tile")
        assert control(sim, "remove-tile 7z table") == "ok 7z"
        assert control(sim, "restore-tiles") == "ok"


def test_the_simulator_option_takes_one_tile():
    assert build_parser().parse_args(["--pty", "--missing-tile", "1m"]).missing_tile == 0
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--pty", "--missing-tile", "xx"])


def test_neither_the_words_nor_the_simulator_load_the_engine():
    code = ("import sys, tablectl.commands as c, hardware_sim.__main__ as h;"
            "c.describe({'command': 'check', 'status': 'done', 'result': {'ok': False,"
            " 'counted': 135, 'expected': 136, 'missing': [4], 'extra': [], 'mode': 1}}, 'en');"
            "h.build_parser().parse_args(['--pty', '--missing-tile', '5m']);"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'scoring'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert out.strip() == "[]"
