"""The ``jpex-panel`` driver against a simulated stock table wired to a simulated LCUS-8
board on a real pty, through the real daemon: the rulebook's game change reaching the
number on the display, the staff step for the sticks, a kill -9 at every step of the
sequence, a missed press found by calibration, and club.toml checked in words."""

import time

import pytest

import lexicon
from hardware_sim.relay_board import RelayBoard
from hardware_sim.stock_table import SWITCHES, StockTable, Timings
from tablectl import commands, store
from tablectl.config import ConfigError, load_config
from tablectl.modes import MODES
from tests.support.tablectl import DaemonProcess, ask, wait_until, write_config

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_leaks")]

WIRING = {name: i + 1 for i, name in enumerate(SWITCHES)}
# the driver's timings (club.toml) and the simulated table's own thresholds: a press is
# far shorter than the auto-repeat delay, a hold far longer than the enter threshold
PANEL = ('driver = "jpex-panel"\nboard = "lcus"\nboard_channels = 8\n'
         + "".join(f"{name} = {ch}\n" for name, ch in WIRING.items())
         + "press_ms = 60\nrepeat_ms = 80\nhold_ms = 400\nreset_ms = 400\nboot_ms = 300\n")
# on the bridge the table's power is the bridge's own output, not a relay channel
BRIDGE_PANEL = PANEL.replace('board = "lcus"', 'board = "bridge"').replace("power = 1\n", "")
SIM = Timings(boot_ms=150, enter_ms=200, repeat_delay_ms=500, repeat_ms=200, reset_ms=200)


@pytest.fixture
def rig(tmp_path):
    table = StockTable(number=1, timings=SIM)
    board = RelayBoard(channels=8, table=table, wiring=WIRING)
    board.serve_pty()
    daemon = DaemonProcess(write_config(tmp_path, {"t1": board.path},
                                        table_extra={"t1": PANEL}))
    try:
        yield daemon, table, board
    finally:
        if daemon.proc and daemon.proc.poll() is None:
            daemon.stop()
        board.stop()


def change(db, table, target, **first):
    """The game change as staff do it: ask, put the sticks in, confirm."""
    row = ask(db, "t1", "mode", {"mode": target, **first})
    assert row["status"] == "done" and row["result"]["stage"] == "sticks", row
    assert table.display() == ""                    # switched off for the sticks
    assert "点棒" in commands.describe(row, "ja")
    table.set_sticks(MODES[target].sticks())
    row = ask(db, "t1", "mode", {"mode": target, "sticks": True}, timeout=30)
    assert row["status"] == "done" and row["result"]["applied_now"], row
    assert f"check that the display shows {target:02d}" in commands.describe(row, "en")
    assert "リセット操作" in commands.describe(row, "ja")
    return row


def test_panel_changes_the_game_01_05_08_01_through_an_lcus_board(rig):
    daemon, table, board = rig
    daemon.start(wait_tables=("t1",))
    t1 = store.get_table(daemon.db, "t1")
    assert t1["commands"] == ["calibrate", "cycle", "mode"]
    assert t1["capabilities"]["display_readable"] is False
    # a fresh table: the driver does not know the number, and says so
    row = ask(daemon.db, "t1", "mode", {"mode": 5})
    assert row["status"] == "failed" and row["error_code"] == "panel_number_unknown", row
    assert "--from" in commands.describe(row, "en") and "表示" in commands.describe(row, "ja")
    assert board.presses == []
    change(daemon.db, table, 5, **{"from": 1})
    assert table.display() == "05" and table.ready and not table.selecting
    for target in (8, 1):
        change(daemon.db, table, target)            # the driver knows the number now
        assert table.display() == f"{target:02d}"
    assert table.missed == 0 and table.resets == 3
    assert store.get_table(daemon.db, "t1")["mode"] == 1
    row = ask(daemon.db, "t1", "cycle")
    assert row["status"] == "done", row
    wait_until(lambda: table.cycles == 1, 5, "the dice press started a cycle")
    assert board.closed() == []
    assert daemon.stop() == 0


STEPS = ("power_off", "power_on", "enter", "step_up", "reset")


@pytest.mark.parametrize("step", STEPS)
def test_panel_kill9_at_each_step_releases_and_refuses_in_words(rig, step):
    """A daemon killed during a step: the LCUS relay stays closed until the new daemon
    connects and releases every relay (measured, not bounded by any timer on the board);
    the half-done change is never repeated, and the next one needs the number staff see."""
    daemon, table, board = rig
    daemon.start(wait_tables=("t1",))
    target = 4
    if step == "power_off":
        cid = store.request_command(daemon.db, "t1", "mode", {"mode": target, "from": 1})
    else:
        change_first = ask(daemon.db, "t1", "mode", {"mode": target, "from": 1})
        assert change_first["result"]["stage"] == "sticks"
        table.set_sticks(MODES[target].sticks())
        cid = store.request_command(daemon.db, "t1", "mode", {"mode": target, "sticks": True})

    def at_step():
        panel = (store.get_table(daemon.db, "t1")["state"] or {}).get("panel") or {}
        # power_on lets the power relay go: no relay is closed while it waits for the boot
        return panel.get("busy") == step and (board.closed() or step == "power_on")

    wait_until(at_step, 20, f"a relay closed during {step}", interval=0.005)
    daemon.kill9()
    killed = time.monotonic()
    held = board.closed()
    daemon.start(wait_tables=("t1",))
    wait_until(lambda: not board.closed(), 10, "every relay released by the new daemon")
    released = time.monotonic() - killed
    # with LCUS: closed for as long as the host was away (the power relay too: the table
    # stays off until the new daemon lets it on)
    assert (held or step == "power_on") and released > 0
    wait_until(lambda: table.powered, 10, "the table back on")
    row = store.wait_command(daemon.db, cid, 20)
    assert row["status"] == "failed" and row["error_code"] == "panel_in_doubt", row
    assert row["result"]["step"] == step
    words = lexicon.t(f"table.panel.step.{step}", "en")
    assert f'step "{words}"' in commands.describe(row, "en")
    assert "繰り返していません" in commands.describe(row, "ja")
    assert "_" not in commands.describe(row, "ja")
    presses = len(board.presses)
    row = ask(daemon.db, "t1", "mode", {"mode": 8})
    assert row["status"] == "failed" and row["error_code"] == "panel_number_unknown", row
    time.sleep(0.3)
    assert len(board.presses) == presses           # nothing pressed again on its own


def test_panel_a_daemon_restart_between_changes_keeps_the_number(rig):
    daemon, table, board = rig
    daemon.start(wait_tables=("t1",))
    change(daemon.db, table, 3, **{"from": 1})
    assert daemon.stop() == 0
    daemon.start(wait_tables=("t1",))
    change(daemon.db, table, 2)
    assert table.display() == "02"
    assert daemon.stop() == 0


def test_panel_kill9_while_off_for_the_sticks_resumes(rig):
    """Killed while the table waits, switched off, for the sticks: the next start
    resumes the change from there (the table's number did not change while off)."""
    daemon, table, board = rig
    daemon.start(wait_tables=("t1",))
    row = ask(daemon.db, "t1", "mode", {"mode": 6, "from": 1})
    assert row["result"]["stage"] == "sticks" and table.display() == ""
    daemon.kill9()
    daemon.start(wait_tables=("t1",))
    row = ask(daemon.db, "t1", "cycle")
    assert row["status"] == "failed" and row["error_code"] == "panel_powered_off", row
    assert "06" in commands.describe(row, "en") and "--sticks in" in commands.describe(row, "ja")
    table.set_sticks(MODES[6].sticks())
    row = ask(daemon.db, "t1", "mode", {"mode": 6, "sticks": True}, timeout=30)
    assert row["status"] == "done" and row["result"]["from"] == 1, row
    assert table.display() == "06" and table.cycles == 0
    assert daemon.stop() == 0


def test_panel_a_missed_press_is_found_by_calibration(rig):
    daemon, table, board = rig
    daemon.start(wait_tables=("t1",))
    row = ask(daemon.db, "t1", "calibrate")
    assert row["status"] == "failed" and row["error_code"] == "panel_calibrate_seen", row
    row = ask(daemon.db, "t1", "calibrate", {"seen": int(table.display())})
    assert row["status"] == "done" and row["result"]["next"] == 2, row
    assert table.display() == "02"
    table.miss_presses(1)
    row = ask(daemon.db, "t1", "calibrate", {"seen": int(table.display())})
    assert row["result"]["match"] is True and row["result"]["next"] == 3
    assert table.display() == "02"                       # the table missed that press
    row = ask(daemon.db, "t1", "calibrate", {"seen": int(table.display())})
    assert row["result"]["match"] is False, row
    assert row["result"]["mismatches"] == [{"expected": 3, "seen": 2}]
    assert "missed a press" in commands.describe(row, "en")
    assert "読み落とし" in commands.describe(row, "ja")
    assert row["result"]["timings"]["press_ms"] == 60
    assert table.display() == "03"
    # the driver now believes what staff saw: a change from here reaches its target
    change(daemon.db, table, 6)
    assert table.display() == "06"
    assert daemon.stop() == 0


def _config(tmp_path, extra: str, models: str = "") -> str:
    p = write_config(tmp_path, {"t7": "/dev/null"}, extra="", table_extra={"t7": extra})
    if models:
        p.write_text(p.read_text() + models, encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        load_config(p)
    return e.value.text("en")


def test_panel_bad_club_toml_values_get_clear_errors(tmp_path):
    base = 'driver = "jpex-panel"\nboard_channels = 8\n'
    full = base + "".join(f"{n} = {c}\n" for n, c in WIRING.items())
    text = _config(tmp_path, base + "power = 1\nup = 2\ndown = 3\ndice_left = 4\n")
    assert "(t7)" in text and "dice_right" in text
    text = _config(tmp_path, full.replace("down = 3", "down = 2"))
    assert "(t7)" in text and "down = 2" in text and "up is on relay 2" in text
    text = _config(tmp_path, full.replace("board_channels = 8", "board_channels = 4"))
    assert "(t7)" in text and "dice_right = 5" in text and "1..4" in text
    text = _config(tmp_path, full.replace("board_channels = 8", "board_channels = 3"))
    assert "board_channels = 3" in text and "1, 2, 4, 8" in text
    text = _config(tmp_path, full + 'board = "arduino"\n')
    assert "board = 'arduino'" in text and "lcus, bridge" in text
    text = _config(tmp_path, full + 'model = "nope"\n')
    assert "model = 'nope'" in text and "there is none" in text
    text = _config(tmp_path, full + "press_ms = 0\n")
    assert "press_ms = 0" in text and "20..5000 ms" in text
    bad_step = '\n[models.old-jpex]\nenter = [{hold = "left", ms = 3000}]\n'
    text = _config(tmp_path, full + 'model = "old-jpex"\n', bad_step)
    assert "models.old-jpex.enter" in text and "up, down, dice_left" in text
    bad_time = '\n[models.old-jpex]\nstep_up = [{press = "up", ms = "fast"}]\n'
    text = _config(tmp_path, full + 'model = "old-jpex"\n', bad_time)
    assert "'fast'" in text and "press_ms" in text


def test_panel_holds_the_bridge_would_refuse_are_refused_when_club_toml_loads(tmp_path):
    """A hold over the bridge's limit was taken at load and failed after power-on as "link
    lost", leaving the number unknown; it is now an error naming the table and setting."""
    full = ('driver = "jpex-panel"\nboard = "bridge"\nboard_channels = 8\n'
            + "".join(f"{n} = {c}\n" for n, c in WIRING.items() if n != "power"))
    text = _config(tmp_path, full + "hold_ms = 12000\n")
    assert "(t7)" in text and "hold_ms = 12000" in text and "at most 10000 ms" in text
    long_reset = '\n[models.slow]\nreset = [{hold = ["dice_left", "dice_right"], ms = 15000}]\n'
    text = _config(tmp_path, full + 'model = "slow"\n', long_reset)
    assert "models.slow.reset = 15000" in text and "at most 10000 ms" in text
    # the same timings on a relay board that holds as long as it is told are fine
    lcus = full.replace('"bridge"', '"lcus"') + "power = 1\nhold_ms = 12000\n"
    p = write_config(tmp_path, {"t7": "/dev/null"}, table_extra={"t7": lcus})
    assert load_config(p).table("t7").options["hold_ms"] == 12000


def test_panel_sequence_is_data_per_model(tmp_path):
    """A model whose selection is entered by holding down, and resets by holding longer."""
    extra = ("".join(f"{n} = {c}\n" for n, c in WIRING.items())
             + 'driver = "jpex-panel"\nmodel = "jpex-2019"\n')
    models = ('\n[models.jpex-2019]\nenter = [{hold = "down", ms = 2500}, {wait = 300}]\n'
              'reset = [{hold = ["dice_left", "dice_right"], ms = 5000}]\n')
    p = write_config(tmp_path, {"t7": "/dev/null"}, table_extra={"t7": extra})
    p.write_text(p.read_text() + models, encoding="utf-8")
    seq = load_config(p).table("t7").options["sequence"]
    assert seq["enter"] == [{"hold": ["down"], "ms": 2500}, {"wait": 300}]
    assert seq["reset"] == [{"hold": ["dice_left", "dice_right"], "ms": 5000}]
    assert seq["step_up"] == [{"press": ["up"], "ms": "press_ms"}, {"wait": "repeat_ms"}]


# ---------------------------------------------------------------------------- the bridge
def wired_bridge(table: StockTable):
    """The bridge model on a pty, its relays across ``table``'s switches, its power output
    on the table's outlet and its sense input on the table's power."""
    from hardware_sim.bridge_model import BridgeModel

    switch_of = {ch: name for name, ch in WIRING.items()}

    def wired(channel, closed):
        if channel in switch_of:
            table.switch(switch_of[channel], closed)

    model = BridgeModel(channels=8, on_change=wired,
                        on_power=lambda on: table.switch("power", not on))
    model.sensed_on = lambda: table.powered
    model.serve_pty()
    return model


@pytest.fixture
def bridge_rig(tmp_path):
    table = StockTable(number=1, timings=SIM)
    model = wired_bridge(table)
    config = write_config(tmp_path, {"t1": model.path}, table_extra={"t1": BRIDGE_PANEL})
    daemon = DaemonProcess(config)
    try:
        yield daemon, table, model
    finally:
        if daemon.proc and daemon.proc.poll() is None:
            daemon.stop()
        model.stop()


def put_sticks(model, table, points):
    for seat, p in enumerate(points):
        model.set_sticks(seat, p or 0)
    table.set_sticks(points)


def test_panel_changes_the_game_01_05_08_01_through_the_bridge(bridge_rig):
    """With the bridge's stick reader the change waits, switched off, until every drawer
    holds the new game's sticks: 17,000 in a 25,000 game is not enough."""
    daemon, table, model = bridge_rig
    daemon.start(wait_tables=("t1",))
    t1 = store.get_table(daemon.db, "t1")
    assert t1["capabilities"]["board"] == "bridge" and t1["capabilities"]["ic_point_sticks"]
    start = {"from": 1}
    for target in (5, 8, 1):
        cid = store.request_command(daemon.db, "t1", "mode", {"mode": target, **start})
        start = {}
        wait_until(lambda: table.display() == "", 20, "switched off for the sticks")
        wrong = [17000 if p else None for p in MODES[target].sticks()]
        put_sticks(model, table, wrong)
        wait_until(lambda wrong=wrong: store.get_table(daemon.db, "t1")["points"] == wrong, 20,
                   "the driver read the drawers")
        assert store.get_command(daemon.db, cid)["status"] == "sending"
        assert table.display() == ""
        put_sticks(model, table, MODES[target].sticks())
        row = store.wait_command(daemon.db, cid, 30)
        assert row["status"] == "done" and row["result"]["applied_now"], row
        assert table.display() == f"{target:02d}"
    assert table.missed == 0 and table.resets == 3 and model.closed() == []


def test_panel_check_mode_through_the_bridge_does_not_wait_for_empty_drawers(bridge_rig):
    """00 (check mode) deals no game: the drawers keep last game's sticks and the change
    goes on without anyone emptying them."""
    daemon, table, model = bridge_rig
    put_sticks(model, table, [25000, 25000, 25000, 25000])
    daemon.start(wait_tables=("t1",))
    row = ask(daemon.db, "t1", "mode", {"mode": 0, "from": 1}, timeout=30)
    assert row["status"] == "done" and row["result"]["applied_now"], row["result"]
    assert table.display() == "00" and model.closed() == []
    assert daemon.stop() == 0


@pytest.mark.parametrize("step", ("power_off", "enter", "step_up", "reset"))
def test_panel_kill9_with_the_bridge_ends_the_press_without_the_host(bridge_rig, step):
    """The bridge ends a press by its own timer (and a hold by its watchdog): every relay
    is open again while no daemon runs; the next start refuses in words."""
    daemon, table, model = bridge_rig
    daemon.start(wait_tables=("t1",))
    put_sticks(model, table, MODES[4].sticks())
    cid = store.request_command(daemon.db, "t1", "mode", {"mode": 4, "from": 1})

    def at_step():
        panel = (store.get_table(daemon.db, "t1")["state"] or {}).get("panel") or {}
        # power_off holds the bridge's power output, not a relay
        return panel.get("busy") == step and (model.power_off if step == "power_off"
                                              else model.closed())

    wait_until(at_step, 20, f"a relay closed during {step}", interval=0.005)
    daemon.kill9()
    wait_until(lambda: not model.closed(), 10, "the bridge opened every relay by itself")
    daemon.start(wait_tables=("t1",))
    wait_until(lambda: not model.power_off and table.powered, 10,
               "the new daemon let the table back on")
    row = store.wait_command(daemon.db, cid, 20)
    assert row["status"] == "failed" and row["error_code"] == "panel_in_doubt", row
    row = ask(daemon.db, "t1", "mode", {"mode": 8})
    assert row["status"] == "failed" and row["error_code"] == "panel_number_unknown", row
    assert daemon.stop() == 0
