"""The simulator's controls as people type them: seats 1-4 (1 = East) as in the tablectl
CLI, and ``sticks MODE`` putting in the mode's own starting total (ねこはうす: 25000点持ち
for four players, 35000点持ち for three, shared/seeds/002)."""

import pytest

from hardware_sim import Simulator
from hardware_sim.__main__ import build_parser, control
from tablectl.modes import mode_by_name

pytestmark = pytest.mark.usefixtures("no_leaks")


def drawers(sim):
    return [s.total if s.present else None for s in sim.state().seats]


def test_sticks_control_puts_in_each_modes_starting_total():
    with Simulator(time_scale=0.001, boot_seconds=0.01) as sim:
        assert drawers(sim) == [25000] * 4
        assert control(sim, "sticks sanma") == "ok"
        assert drawers(sim) == [35000, 35000, 35000, None]
        assert drawers(sim) == mode_by_name("sanma").sticks()
        assert control(sim, "points 1 17000") == "ok"
        assert control(sim, "sticks 三人花") == "ok"          # a drawer left short is refilled
        assert drawers(sim) == [35000, 35000, 35000, None]
        assert control(sim, "sticks yonma") == "ok"
        assert drawers(sim) == [25000] * 4
        assert control(sim, "sticks 64") == "ok"
        assert drawers(sim) == [25000, None, 25000, None]


def test_seats_are_1_to_4_or_winds_like_the_cli():
    with Simulator(time_scale=0.001, boot_seconds=0.01) as sim:
        assert control(sim, "points 1 40000") == "ok"
        assert control(sim, "points 4 none") == "ok"
        assert drawers(sim) == [40000, 25000, 25000, None]
        assert control(sim, "points south 1000") == "ok"
        assert control(sim, "points 西 2000") == "ok"
        assert drawers(sim) == [40000, 1000, 2000, None]
        for bad in ("0", "5"):
            answer = control(sim, f"points {bad} 3000")
            assert answer.startswith("error ") and f"unknown seat '{bad}': give 1-4" in answer
        assert drawers(sim) == [40000, 1000, 2000, None]        # nothing changed


def test_points_option_at_start_takes_seats_1_to_4(capsys):
    args = build_parser().parse_args(["--pty", "--points", "4=none", "--points", "e=30000"])
    assert args.points == [(3, None), (0, 30000)]
    for bad in ("0=25000", "3", "2=many"):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["--pty", "--points", bad])
        err = capsys.readouterr().err
        assert "--points" in err and ("give 1-4" in err or "SEAT=TOTAL" in err), err
