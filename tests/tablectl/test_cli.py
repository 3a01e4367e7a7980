"""The staff CLI (`tablectl ...`) against a running daemon and without one."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tablectl import cli, store
from tablectl.store import Journal
from tests.support.tablectl import DaemonProcess, sim_on_pty, write_config

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


def test_status_in_plain_words(running, capsys):
    cfg, _ = running
    rc, out, _ = run(capsys, "--config", cfg, "status")
    assert rc == 0
    assert re.search(r"daemon: running \(pid \d+\)", out)
    assert "t1 (卓 t1): AMOS JP-EX COLOR fw SIM-1.0; mode 01 yonma" in out


def test_mode_by_name_and_number_then_cycle_dice_check_points(running, capsys):
    cfg, sim = running
    sim.sticks_for(4)
    rc, out, _ = run(capsys, "mode", "t1", "sanma", "--config", cfg)
    assert rc == 0 and "mode 04 sanma" in out and "from the next cycle" in out
    rc, out, _ = run(capsys, "--config", cfg, "status")
    assert "next cycle: 04 sanma" in out
    rc, out, _ = run(capsys, "cycle", "t1", "--config", cfg)
    assert rc == 0 and "cycle finished in mode 04 sanma" in out
    rc, out, _ = run(capsys, "dice", "t1", "--config", cfg)
    assert rc == 0 and re.search(r"dice \d \+ \d = \d+", out)
    rc, out, _ = run(capsys, "check", "t1", "--config", cfg)
    assert rc == 0 and "tile count OK" in out
    rc, out, _ = run(capsys, "points", "t1", "--config", cfg)
    assert rc == 0 and "seat 3: " in out and "seat 4" not in out   # sanma: three drawers
    sim.sticks_for(1)
    rc, out, _ = run(capsys, "mode", "t1", "01", "--config", cfg)
    assert rc == 0 and "mode 01 yonma" in out


def test_refused_mode_change_prints_the_reason_not_a_timeout(running, capsys):
    cfg, sim = running
    sim.sticks_for(1)
    rc, out, _ = run(capsys, "mode", "t1", "sanma", "--config", cfg)
    assert rc == 1
    assert "point sticks are not what this mode needs" in out and "点棒" in out
    assert "seat 4" in out


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


@pytest.mark.parametrize("argv,words", [
    (["mode", "t1", "godma"], "unknown mode 'godma': valid modes are 00 check"),
    (["cycle", "t9"], "there is no table 't9'"),
    (["show", "999999"], "no table command #999999"),
])
def test_usage_problems_exit_2_with_words(running, capsys, argv, words):
    cfg, _ = running
    rc, out, err = run(capsys, *argv, "--config", cfg)
    assert rc == 2 and words in err and "Traceback" not in err


def test_without_daemon_request_is_withdrawn_with_a_clear_message(tmp_path, capsys):
    db = tmp_path / "j.db"
    j = Journal(db)
    j.register_tables([{"id": "t1", "url": "sim://"}])
    j.close()
    rc, out, err = run(capsys, "dice", "t1", "--db", db, "--wait", "0.3")
    assert rc == 1
    assert "does not seem to be running" in err
    assert "not sent" in out and "tablectl serve" in out
    row = store.list_commands(db)[0]
    assert row["status"] == "timed_out" and row["error_code"] == "not_sent"


def test_missing_config_is_explained(tmp_path, capsys):
    rc, _, err = run(capsys, "status", "--config", tmp_path / "nope.toml")
    assert rc == 2 and "does not exist" in err and "--db" in err


def test_console_script_and_module_entry_agree():
    r = subprocess.run([sys.executable, "-m", "tablectl", "--help"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0 and "mode" in r.stdout and "cycle" in r.stdout


def test_every_cli_command_is_documented():
    doc = (Path(__file__).parents[2] / "docs" / "tablectl.md").read_text(encoding="utf-8")
    sub = next(a for a in cli.build_parser()._actions if a.dest == "command")
    for name in sub.choices:
        assert f"tablectl {name}" in doc, f"`tablectl {name}` is not in docs/tablectl.md"


def test_missing_store_is_explained_and_not_created(tmp_path, capsys):
    rc, _, err = run(capsys, "status", "--db", tmp_path / "typo.db")
    assert rc == 2 and "there is no tablectl store" in err
    assert not (tmp_path / "typo.db").exists()
