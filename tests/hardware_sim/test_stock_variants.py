"""The simulated stock table's real-table variants: each differs from the rulebook's
reading the driver's default sequence encodes, so a test can prove it is caught."""

from __future__ import annotations

import pytest

from hardware_sim.stock_table import StockTable, Timings

FAST = Timings(boot_ms=150, enter_ms=200, repeat_delay_ms=500, repeat_ms=200, reset_ms=200)


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def _press(table: StockTable, clock: Clock, name: str, ms: int) -> None:
    table.switch(name, True)
    clock.t += ms / 1000
    table.switch(name, False)
    clock.t += 0.1


def test_short_press_ignored_takes_only_presses_of_200_ms():
    clock = Clock()
    table = StockTable.variant("short_press_ignored", number=1, timings=FAST, clock=clock)
    _press(table, clock, "up", 300)             # the long hold enters the selection
    assert table.selecting and table.display() == "01"
    _press(table, clock, "up", 60)
    _press(table, clock, "up", 199)
    assert table.display() == "01" and table.steps == 0
    _press(table, clock, "up", 250)
    assert table.display() == "02" and table.steps == 1
    plain = StockTable(number=1, timings=FAST, clock=clock)
    _press(plain, clock, "up", 300)
    _press(plain, clock, "up", 60)
    assert plain.display() == "02"              # the rulebook's table takes it


def test_slow_boot_shows_no_number_for_8_s_and_takes_no_press_meanwhile():
    clock = Clock()
    table = StockTable.variant("slow_boot", number=3, timings=FAST, clock=clock)
    table.switch("power", True)                 # the outlet's trigger: off
    table.switch("power", False)                # and on again: it boots
    clock.t += 5.0
    assert table.display() == "--"
    _press(table, clock, "up", 300)             # lost: it is still booting
    assert not table.selecting
    clock.t += 3.0
    assert table.display() == "03"


def test_variant_names_are_checked():
    with pytest.raises(ValueError, match="auto_repeat, slow_boot, short_press_ignored"):
        StockTable.variant("sticky")
    assert StockTable.variant("auto_repeat").enter_repeats is True


def test_the_demo_table_takes_a_variant_by_name(capsys):
    from hardware_sim import stock_bridge

    with pytest.raises(SystemExit) as e:
        stock_bridge.main(["--pty", "--control", "c.json", "--state", "s.json",
                           "--variant", "sticky"])
    assert e.value.code == 2
    assert "slow_boot" in capsys.readouterr().err
