"""The staff CLI (`tablectl ...`) against a running daemon and without one: every line
in words from the catalogue, Japanese and English (--lang for one of them)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tablectl import cli, store
from tablectl.store import Journal
from tests.support.tablectl import DaemonProcess, ask, sim_on_pty, wait_until, write_config

pytestmark = pytest.mark.usefixtures("no_leaks")


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cli")
    sim, path = sim_on_pty(tmp, "t1")
    cfg = write_config(tmp, {"t1": path})
    d = DaemonProcess(cfg)
    try:
        d.start(wait_tables=("t1",))
        yield cfg, sim
        assert d.stop() == 0
    finally:
        if d.proc and d.proc.poll() is None:
            d.proc.kill()
        sim.stop()


def run(capsys, *argv):
    rc = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_status_in_plain_words_in_both_languages(running, capsys):
    cfg, _ = running
    rc, out, _ = run(capsys, "--config", cfg, "status")
    assert rc == 0
    assert re.search(r"デーモン: 稼働中 \(pid \d+\) / daemon: running \(pid \d+\)", out)
    assert "t1 (卓 t1): AMOS JP-EX COLOR fw SIM-1.0; mode 01 four-player 136" in out
    assert "モード 01 四人標準" in out
    rc, out, _ = run(capsys, "--config", cfg, "--lang", "en", "status")
    assert "モード" not in out and "cycle" not in out.split("136", 1)[0]


def test_mode_by_name_and_number_then_cycle_dice_deal_check_points(running, capsys):
    cfg, sim = running
    sim.sticks_for(4)
    rc, out, _ = run(capsys, "mode", "t1", "sanma", "--config", cfg, "--lang", "en")
    assert rc == 0 and "mode 04 three-player 108 selected; it applies from the next cycle" in out
    # `status` shows the stored state, which the daemon reads from the table right after
    # storing the outcome, never before (tablectl/daemon.py, TableManager._finish)
    wait_until(lambda: store.get_table(cfg.parent / "jantaku.db", "t1")["pending_mode"] == 4,
               30, "the daemon's read after the mode change")
    rc, out, _ = run(capsys, "--config", cfg, "--lang", "ja", "status")
    assert "次のサイクル: 04 三人標準" in out
    rc, out, _ = run(capsys, "cycle", "t1", "--config", cfg, "--lang", "en")
    assert rc == 0 and "cycle finished in mode 04 three-player 108" in out
    rc, out, _ = run(capsys, "dice", "t1", "--seat", "south", "--config", cfg, "--lang", "en")
    assert rc == 0 and re.search(r"dice (\d) \+ (\d) = \d+ \(dealer South\)", out)
    rc, out, _ = run(capsys, "deal", "t1", "--config", cfg, "--lang", "en")
    assert rc == 0 and "hands raised (dealer South" in out
    assert "South 14 tiles" in out and "North" not in out
    rc, out, _ = run(capsys, "check", "t1", "--config", cfg, "--lang", "en")
    assert rc == 0 and "tile count OK: 108 of 108 tiles" in out
    rc, out, _ = run(capsys, "points", "t1", "--config", cfg, "--lang", "ja")
    assert rc == 0 and re.search(r"西 \d+", out) and "北" not in out   # sanma: three drawers
    sim.sticks_for(1)
    rc, out, _ = run(capsys, "mode", "t1", "01", "--config", cfg, "--lang", "en")
    assert rc == 0 and "mode 01 four-player 136" in out
    assert ask(running[0].parent / "jantaku.db", "t1", "cycle", timeout=30)["status"] == "done"


def test_dice_seat_in_three_player_after_north_was_dealer(running, capsys):
    """The last dealer was North; in sanma North does not play: --seat chooses another."""
    cfg, sim = running
    db = cfg.parent / "jantaku.db"
    sim.sticks_for(1)
    assert ask(db, "t1", "mode", {"mode": 1})["status"] == "done"
    assert ask(db, "t1", "cycle", timeout=30)["status"] == "done"
    assert ask(db, "t1", "dice", {"seat": 3})["status"] == "done"        # North deals
    sim.sticks_for(4)
    assert ask(db, "t1", "mode", {"mode": 4})["status"] == "done"
    assert ask(db, "t1", "cycle", timeout=30)["status"] == "done"
    rc, out, _ = run(capsys, "dice", "t1", "--config", cfg, "--lang", "en")
    assert rc == 1 and "That seat does not play in this mode" in out
    rc, out, _ = run(capsys, "deal", "t1", "--config", cfg, "--lang", "en")
    assert rc == 1 and "That seat does not play in this mode" in out   # not dealt from East
    rc, out, _ = run(capsys, "dice", "t1", "--seat", "1", "--config", cfg, "--lang", "en")
    assert rc == 0 and "(dealer East)" in out
    rc, _, err = run(capsys, "dice", "t1", "--seat", "5", "--config", cfg, "--lang", "en")
    assert rc == 2 and "unknown seat '5'" in err
    sim.sticks_for(1)
    assert ask(db, "t1", "mode", {"mode": 1})["status"] == "done"
    assert ask(db, "t1", "cycle", timeout=30)["status"] == "done"


def test_refused_mode_change_prints_the_reason_not_a_timeout(running, capsys):
    cfg, sim = running
    sim.sticks_for(1)
    rc, out, _ = run(capsys, "mode", "t1", "sanma", "--config", cfg)
    assert rc == 1
    assert "point sticks are not what this mode needs" in out and "点棒" in out
    assert "(wrong: North)" in out and "北" in out


def test_a_second_command_while_a_cycle_runs_is_refused_with_what_who_and_since(tmp_path,
                                                                                capsys):
    sim, path = sim_on_pty(tmp_path, "t1", time_scale=0.03)              # 2.1 s cycles
    d = DaemonProcess(write_config(tmp_path, {"t1": path}))
    try:
        d.start(wait_tables=("t1",))
        sim.sticks_for(1)
        cid = store.request_command(d.db, "t1", "cycle", source="cli", actor="ops")
        sim.wait_for(lambda st: st.cycle.name == "CYCLING", timeout=10)
        rc, out, _ = run(capsys, "cycle", "t1", "--db", d.db, "--lang", "ja")
        assert rc == 1 and re.fullmatch(r"t1: サイクル実行中 \(ops, \d\d:\d\d\)\n", out)
        rc, out, _ = run(capsys, "--db", d.db, "--lang", "en", "status")
        assert re.search(r"in progress: cycle running \(ops, \d\d:\d\d\)", out)
        # a mode change waits through the cycle as pending and is then done
        rc, out, _ = run(capsys, "mode", "t1", "1", "--wait", "1", "--db", d.db, "--lang", "en")
        assert rc == 0 and "mode 01 four-player 136 selected" in out, out
        assert store.get_command(d.db, cid)["status"] == "done"
        assert sim.executed_names().count("START_CYCLE") == 1
    finally:
        d.stop()
        sim.stop()


def test_json_output_for_scripts(running, capsys):
    cfg, _ = running
    rc, out, _ = run(capsys, "--json", "points", "t1", "--config", cfg)
    row = json.loads(out)
    assert rc == 0 and row["status"] == "done" and len(row["result"]["points"]) == 4
    rc, out, _ = run(capsys, "status", "--json", "--config", cfg)
    data = json.loads(out)
    assert data["daemon"]["running"] and data["tables"][0]["table_id"] == "t1"
    rc, out, _ = run(capsys, "show", row["id"], "--json", "--config", cfg)
    assert json.loads(out)["id"] == row["id"]
    rc, out, _ = run(capsys, "show", row["id"], "--config", cfg, "--lang", "en")
    assert out.startswith(f"#{row['id']} read points  on t1: done — point sticks: East ")


@pytest.mark.parametrize("argv,words", [
    (["mode", "t1", "godma"], "unknown mode 'godma': valid modes are 00 check"),
    (["cycle", "t9"], "there is no table 't9'"),
    (["show", "999999"], "there is no table command #999999"),
])
def test_usage_problems_exit_2_with_words(running, capsys, argv, words):
    cfg, _ = running
    rc, out, err = run(capsys, *argv, "--config", cfg)
    assert rc == 2 and words in err and "Traceback" not in err
    assert " / " in err            # Japanese, then English


def test_without_daemon_request_is_withdrawn_with_a_clear_message(tmp_path, capsys):
    db = tmp_path / "j.db"
    Journal(db).register_tables([{"id": "t1", "url": "sim://"}])
    rc, out, err = run(capsys, "dice", "t1", "--db", db, "--wait", "0.3", "--lang", "en")
    assert rc == 1
    assert "does not seem to be running" in err and "never started" in err
    assert "Not sent: the tablectl daemon is not running (never started)" in out
    assert "tablectl serve" in out
    row = store.list_commands(db)[0]
    assert row["status"] == "timed_out" and row["error_code"] == "not_sent_daemon_down"


def test_a_stale_heartbeat_shows_tables_as_unknown_not_connected(tmp_path, capsys):
    db = tmp_path / "j.db"
    j = Journal(db)
    j.register_tables([{"id": "t1", "url": "sim://"}])
    j.update_table("t1", connected=1, model="AMOS", mode=1)
    j.heartbeat(4242, started=True)
    j.db.conn.execute("UPDATE tablectl_daemon SET heartbeat_at = heartbeat_at - 25")
    rc, out, _ = run(capsys, "status", "--db", db, "--lang", "en")
    assert "daemon: NOT answering (last heartbeat 25 s ago, pid 4242)" in out
    assert "t1 (t1): unknown (the daemon is not answering)" in out


def test_missing_config_is_explained(tmp_path, capsys):
    rc, _, err = run(capsys, "status", "--config", tmp_path / "nope.toml")
    assert rc == 2 and "does not exist" in err and "--db" in err


def test_console_script_and_module_entry_agree():
    r = subprocess.run([sys.executable, "-m", "tablectl", "--help"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0 and "mode" in r.stdout and "deal" in r.stdout
    r = subprocess.run([sys.executable, "-m", "tablectl", "cycle", "--help"],
                       capture_output=True, text=True, timeout=30)
    assert "shuffle and raise the walls (the hands are raised by deal)" in " ".join(
        r.stdout.split())


def test_every_cli_command_is_documented():
    doc = (Path(__file__).parents[2] / "docs" / "tablectl.md").read_text(encoding="utf-8")
    sub = next(a for a in cli.build_parser()._actions if a.dest == "command")
    for name in sub.choices:
        assert f"tablectl {name}" in doc, f"`tablectl {name}` is not in docs/tablectl.md"


def test_missing_store_is_explained_and_not_created(tmp_path, capsys):
    rc, _, err = run(capsys, "status", "--db", tmp_path / "typo.db")
    assert rc == 2 and "there is no tablectl store" in err
    assert not (tmp_path / "typo.db").exists()


def test_the_staff_cli_loads_neither_flask_nor_the_simulator_nor_a_driver():
    code = ("import sys, tablectl.cli; bad = [m for m in sys.modules if m.split('.')[0] in "
            "('flask', 'web', 'hardware_sim', 'serial') or m.startswith('tablectl.drivers.')]; "
            "print(bad)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert r.stdout.strip() == "[]", r.stdout + r.stderr


def test_status_of_one_table_asks_it_now(running, capsys):
    cfg, sim = running
    before = sim.executed_names().count("STATUS")
    rc, out, _ = run(capsys, "status", "t1", "--config", cfg, "--lang", "en")
    assert rc == 0 and re.match(r"t1: mode 0\d .+, (idle|walls up|dice rolled|dealt), "
                                r"lid closed, errors: none\n", out), out
    assert sim.executed_names().count("STATUS") > before


def test_a_disconnected_table_is_named_as_the_reason_not_the_daemon(tmp_path, capsys):
    """The daemon runs; the table's adapter is pulled: the request is withdrawn saying
    the table is not connected and why, never "is the daemon running?"."""
    sim, path = sim_on_pty(tmp_path, "t1")
    d = DaemonProcess(write_config(tmp_path, {"t1": path}))
    try:
        d.start(wait_tables=("t1",))
        sim.unplug()
        wait_until(lambda: store.get_table(d.db, "t1")["connected"] == 0, 10, "unplugged")
        rc, out, err = run(capsys, "points", "t1", "--db", d.db, "--wait", "0.5", "--lang", "en")
        assert rc == 1 and err == ""
        assert re.match(r"t1: Not sent: table t1 is not connected \((the link was lost|the "
                        r"serial port .* does not exist)", out), out
        assert "daemon" not in out
        row = store.list_commands(d.db, "t1")[0]
        assert row["error_code"] == "not_sent_disconnected" and row["status"] == "timed_out"
    finally:
        d.stop()
        sim.stop()
