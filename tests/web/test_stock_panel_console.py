"""The console's guided change and calibration on a stock table wired through an LCUS
board (no stick reader): the real daemon, a simulated stock table behind a simulated
LCUS-8 on a real pty, the web app on the same club file. Without a reader staff
confirm the sticks ("the sticks are in", sent as ``--sticks in``); the driver's number
is unknown until staff press what the display shows; bad input is refused in words."""

from __future__ import annotations

import json

import pytest

from club import club_tables
from club.accounts import create_staff
from club.db import connect
from hardware_sim.relay_board import RelayBoard
from hardware_sim.stock_table import SWITCHES, StockTable, Timings
from tablectl import store
from tablectl.modes import MODES
from tests.support.tablectl import DaemonProcess, wait_until, write_config
from tests.web.staff_support import staff_client
from web import create_app

pytestmark = [pytest.mark.slow]

WIRING = {name: i + 1 for i, name in enumerate(SWITCHES)}
PANEL = ('driver = "jpex-panel"\nboard = "lcus"\nboard_channels = 8\n'
         + "".join(f"{name} = {ch}\n" for name, ch in WIRING.items())
         + "press_ms = 60\nrepeat_ms = 80\nhold_ms = 400\nreset_ms = 400\nboot_ms = 300\n")
SIM = Timings(boot_ms=150, enter_ms=200, repeat_delay_ms=500, repeat_ms=200, reset_ms=200)


@pytest.fixture
def rig(tmp_path):
    table = StockTable(number=1, timings=SIM)
    board = RelayBoard(channels=8, table=table, wiring=WIRING)
    board.serve_pty()
    config = write_config(tmp_path, {"t1": board.path}, table_extra={"t1": PANEL})
    db_path = str(tmp_path / "jantaku.db")
    app = create_app({"DATABASE": db_path, "SECRET_KEY": "x", "TESTING": True,
                      "TABLE_COMMAND_WAIT": 10.0})
    db = connect(db_path)
    try:
        create_staff(db, "mika", "mahjong-club")
        club_tables.save_table(db, "t1", "卓1 三人B", "nekohouse-3b", actor="test")
    finally:
        db.conn.close()
    daemon = DaemonProcess(config).start(wait_tables=("t1",))
    try:
        yield app, daemon, table
    finally:
        daemon.stop()
        board.stop()


def guide(client, mode="05") -> dict:
    r = client.get(f"/staff/tables/t1/mode.json?mode={mode}",
                   headers={"Accept": "application/json"})
    assert r.status_code == 200, r.get_data(as_text=True)
    return r.get_json()


def post(client, path, **fields):
    token = client.get("/auth/csrf").get_json()["csrf_token"]
    return client.post(path, data=fields, headers={"Accept": "application/json",
                                                   "X-CSRF-Token": token})


def test_stock_table_through_lcus_staff_confirm_the_number_and_the_sticks(rig):
    app, daemon, table = rig
    client = staff_client(app, "mika", "mahjong-club")
    g = guide(client)
    assert g["guide"]["step"] == "unknown" and g["guide"]["panel"]
    assert "表示番号がわかりません" in g["html"] and "表示が見えず" in g["html"]
    assert 'data-testid="panel-from-01"' in g["html"]

    # a number the display cannot show: words, nothing sent
    r = post(client, "/staff/tables/t1/command", command="mode", mode="05", **{"from": "12"})
    assert r.status_code == 400 and "12" in r.get_json()["error"]["message"]
    assert store.list_commands(daemon.db, "t1") == []

    r = post(client, "/staff/tables/t1/command", command="mode", mode="05", **{"from": "01"})
    assert r.status_code == 200, r.get_json()
    assert "卓1 三人B" in r.get_json()["message"]          # the table by its name
    assert table.display() == ""                          # switched off for the sticks
    g = guide(client)["guide"]
    assert g["step"] == "sticks" and not g["reads_sticks"]
    assert [x["amount"] for x in g["seats"]] == [35000, 35000, 35000, None]
    html = guide(client)["html"]
    assert 'data-testid="panel-sticks-in"' in html and "点棒は読み取れません" in html

    table.set_sticks(MODES[5].sticks())                   # staff put them in by hand
    r = post(client, "/staff/tables/t1/command", command="mode", mode="05", sticks="in")
    assert r.status_code in (200, 202), r.get_json()
    wait_until(lambda: guide(client)["guide"]["step"] == "on", 30, "the change done")
    assert table.display() == "05" and table.missed == 0
    assert "05 か確認してください" in guide(client)["html"]

    # calibration: a press the table misses is a mismatch, in words
    page = client.get("/staff/tables/t1/calibrate").get_data(as_text=True)
    assert 'data-testid="cal-seen-05"' in page
    r = post(client, "/staff/tables/t1/calibrate", seen="xx")
    assert r.status_code == 400 and "xx" in r.get_json()["error"]["message"]
    table.miss_presses(1)
    r = post(client, "/staff/tables/t1/calibrate", seen="05")
    assert r.status_code == 200 and "06" in r.get_json()["message"], r.get_json()
    assert table.display() == "05"
    r = post(client, "/staff/tables/t1/calibrate", seen=table.display())
    assert r.status_code == 200, r.get_json()
    assert "表示は 05 で、06 のはずでした" in r.get_json()["message"]
    live = client.get("/staff/tables/t1/calibrate.json").get_json()
    assert live["calibration"]["mismatches"] == [{"seen": "05", "expected": "06"}]
    assert "押下を読み落としました" in live["html"]


def test_stock_table_demo_sticks_control_fills_the_drawers_file(rig, tmp_path):
    """The demo's stock table: with the table off for the sticks, the guided page's
    「シミュレーター: 点棒を入れる」 writes the new game's sticks to the file the simulated
    table follows; a real table (no demo folder) refuses it in words."""
    app, daemon, table = rig
    client = staff_client(app, "mika", "mahjong-club")
    r = post(client, "/staff/tables/t1/demo-sticks", mode="05")
    assert r.status_code == 409 and "本物の卓" in r.get_json()["error"]["message"]
    app.config["DEMO_STICKS_DIR"] = str(tmp_path)
    r = post(client, "/staff/tables/t1/command", command="mode", mode="05", **{"from": "01"})
    assert r.status_code == 200, r.get_json()
    assert 'data-testid="demo-sticks"' in guide(client)["html"]
    r = post(client, "/staff/tables/t1/demo-sticks", mode="05")
    assert r.status_code == 200, r.get_json()
    written = json.loads((tmp_path / "sticks-t1.json").read_text(encoding="utf-8"))
    assert written == {"sticks": [35000, 35000, 35000, None]}
    r = post(client, "/staff/tables/t1/demo-sticks", mode="12")
    assert r.status_code == 400
