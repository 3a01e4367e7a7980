"""The simulator over a REAL pseudo-terminal (pyserial opens the device path),
over TCP (pyserial ``socket://``), and as ``python -m hardware_sim``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import serial

from hardware_sim import Simulator, tiles
from tablectl import protocol
from tablectl.modes import MODES, Mode
from tablectl.protocol import Result
from tests.support.sim import Host

pytestmark = pytest.mark.usefixtures("no_leaks")

ROOT = Path(__file__).resolve().parents[2]


def full_game_cycle(host: Host, mode: Mode) -> None:
    assert host.request(protocol.SelectMode(mode.number)).ok
    r = host.request(protocol.StartCycle())
    assert r.ok
    fin = host.wait_event(protocol.CycleFinished, 5, lambda e: e.cycle_no == r.cycle_no)
    assert fin.ok, fin
    deal = host.request(protocol.Deal())
    assert deal.ok
    rep = host.request(protocol.DealtReport())
    assert sorted(rep.all_tiles) == tiles.tile_set(mode)
    want = [14 if s == rep.dealer else 13 if s in mode.seats else 0 for s in range(4)]
    assert [len(h) for h in rep.hands] == want


def test_every_mode_over_a_real_pty():
    with Simulator(time_scale=0.001, auto_sticks=True) as sim:
        path = sim.serve_pty()
        assert path.startswith("/dev/pts/")
        with serial.Serial(path, 115200, timeout=0.02) as port:
            host = Host(port)
            hello = host.request(protocol.Hello())
            assert hello.ok and hello.model.startswith("AMOS JP-EX")
            for mode in MODES[1:]:
                full_game_cycle(host, mode)
        # the path survives the host closing and reopening it
        with serial.Serial(path, 115200, timeout=0.02) as port:
            assert Host(port).request(protocol.Status()).state.mode == 8


def test_fifty_round_trips_over_a_pty_each_run_once():
    """Back-to-back commands on a real pty are each answered and run once. How fast is
    benchmarks/bench_link.py's job (measured against its bound in the same run)."""
    with Simulator() as sim:
        path = sim.serve_pty()
        with serial.Serial(path, 115200, timeout=0.05) as port:
            host = Host(port)
            host.request(protocol.Hello())
            for _ in range(50):
                assert host.request(protocol.Status()).ok
        assert sim.executed_names().count("STATUS") == 50


def test_pty_unplug_hangup_and_symlink_follows(tmp_path):
    link = tmp_path / "table1"
    with Simulator(time_scale=0.001) as sim:
        path = sim.serve_pty(str(link))
        assert os.readlink(link) == path
        port = serial.Serial(str(link), 115200, timeout=0.05)
        try:
            assert Host(port).request(protocol.Hello()).ok
            sim.unplug()
            with pytest.raises(serial.SerialException):
                for _ in range(20):         # the adapter vanished: reads fail
                    port.read(1)
                    time.sleep(0.01)
        finally:
            port.close()
        assert not link.is_symlink() and sim.pty_path is None   # gone, like /dev/serial/by-id
        sim.plug()
        new_path = sim.pty_path
        assert os.readlink(link) == new_path
        with serial.Serial(str(link), 115200, timeout=0.02) as port:
            assert Host(port).request(protocol.Hello()).ok
    assert not link.is_symlink()          # removed on stop


def test_tcp_socket_url_and_unplug_drops_the_connection():
    with Simulator(time_scale=0.001) as sim:
        tcp = sim.serve_tcp(0)
        url = f"socket://127.0.0.1:{tcp}"
        port = serial.serial_for_url(url, timeout=0.02)
        try:
            assert Host(port).request(protocol.Hello()).ok
            sim.unplug()
            with pytest.raises(serial.SerialException):
                for _ in range(50):
                    port.read(1)
        finally:
            port.close()
        sim.plug()
        with serial.serial_for_url(url, timeout=0.02) as port:
            assert Host(port).request(protocol.Status()).ok
            # a second host replaces the first (one line, one host)
            with serial.serial_for_url(url, timeout=0.02) as port2:
                assert Host(port2).request(protocol.Status()).ok


# ---------------------------------------------------------------- python -m hardware_sim


def _spawn(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "hardware_sim", *args], cwd=ROOT, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, bufsize=1)


def _stop(proc: subprocess.Popen) -> int:
    proc.send_signal(signal.SIGTERM)
    try:
        rc = proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for f in (proc.stdin, proc.stdout, proc.stderr):
            if f:
                f.close()
    return rc


def _control(proc: subprocess.Popen, line: str) -> str:
    proc.stdin.write(line + "\n")
    proc.stdin.flush()
    return proc.stdout.readline().strip()


def test_cli_help_lists_every_option():
    out = subprocess.run([sys.executable, "-m", "hardware_sim", "--help"], cwd=ROOT,
                         capture_output=True, text=True, timeout=30, check=True).stdout
    for opt in ("--pty", "--tcp", "--link", "--mode", "--no-autodeal", "--time-scale",
                "--drop", "--corrupt", "--duplicate", "--delay-ms", "--seed", "--jam",
                "--lid-open", "--missing-tile", "--overrun", "--control", "--points",
                "unplug", "power off", "sanma"):
        assert opt in out, opt


def test_cli_needs_a_transport():
    r = subprocess.run([sys.executable, "-m", "hardware_sim"], cwd=ROOT, capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 2 and "--pty" in r.stderr


def test_cli_pty_full_cycle_faults_and_clean_exit():
    proc = _spawn("--pty", "--mode", "sanma", "--time-scale", "0.001", "--boot-seconds", "1")
    try:
        path = proc.stdout.readline().strip()
        assert path.startswith("/dev/pts/"), (path, proc.stderr.read() if proc.poll() else "")
        with serial.Serial(path, 115200, timeout=0.02) as port:
            host = Host(port)
            hello = host.request(protocol.Hello())
            assert hello.state.mode == 4 and not hello.state.seats[3].present
            full_game_cycle(host, MODES[4])
            assert _control(proc, "lid open") == "ok"
            assert host.request(protocol.StartCycle()).result == Result.LID_OPEN
            assert _control(proc, "lid close") == "ok"
            assert _control(proc, "points 1 40000") == "ok"     # seat 1 = East
            assert host.request(protocol.ReadPoints()).seats[0] == protocol.SeatPoints(True, 40000)
            assert _control(proc, "remove-tile 1z table") == "ok 1z"
            tc = host.request(protocol.TileCheck())
            assert tc.result == Result.TILE_COUNT_WRONG and tc.missing == (27,)
            assert _control(proc, "restore-tiles") == "ok"
            assert _control(proc, "bogus").startswith("error unknown command")
            assert _control(proc, "power off") == "ok"
            assert _control(proc, "power on") == "ok"
            host.retries, host.timeout = 40, 0.05
            assert host.request(protocol.Hello()).last_cmd == protocol.NO_CMD
            assert host.wait_event(protocol.PowerOn).state.mode == 4
            assert _control(proc, "unplug") == "ok"
            with pytest.raises(serial.SerialException):
                for _ in range(50):
                    port.read(1)
                    time.sleep(0.01)
        announced = _control(proc, "plug")          # the new device path is announced ...
        assert announced.startswith("pty /dev/pts/")
        answer = proc.stdout.readline().strip()    # ... and is the command's answer
        assert answer == "ok " + announced.split()[1]
        new_path = answer.split()[1]
        with serial.Serial(new_path, 115200, timeout=0.02) as port:
            assert Host(port).request(protocol.Status()).state.mode == 4
    finally:
        rc = _stop(proc)
    assert rc == 0


def test_cli_tcp_with_start_faults():
    proc = _spawn("--tcp", "0", "--no-autodeal", "--jam", "--time-scale", "0.001",
                  "--points", "4=none", "--mode", "4", "--no-stdin")
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("socket://127.0.0.1:")
        with serial.serial_for_url(url, timeout=0.02) as port:
            host = Host(port)
            hello = host.request(protocol.Hello())
            assert not hello.auto_deal and hello.state.mode == 4
            r = host.request(protocol.StartCycle())
            assert r.ok
            assert host.wait_event(protocol.CycleFinished).result == Result.MOTOR_JAM
    finally:
        rc = _stop(proc)
    assert rc == 0


def test_cli_control_socket(tmp_path):
    sock = tmp_path / "ctl.sock"
    proc = _spawn("--pty", "--control", str(sock), "--no-stdin", "--time-scale", "0.001")
    try:
        path = proc.stdout.readline().strip()
        deadline = time.monotonic() + 10
        while not sock.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        import socket as _s
        with _s.socket(_s.AF_UNIX, _s.SOCK_STREAM) as c:
            c.connect(str(sock))
            c.sendall(b"jam\nstate\n")                # two commands in one write
            f = c.makefile("r")
            assert f.readline().strip() == "ok"
            assert f.readline().startswith("ok TableState(")
            f.close()
        with serial.Serial(path, 115200, timeout=0.02) as port:
            host = Host(port)
            host.request(protocol.StartCycle())
            assert host.wait_event(protocol.CycleFinished).result == Result.MOTOR_JAM
    finally:
        rc = _stop(proc)
    assert rc == 0
    assert not sock.exists()
