"""The loaded-machine mode (tests/conftest.py): JANTAKU_TEST_LOAD=N runs N CPU burners
for the session, and none of them outlives pytest, however pytest ends."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import LOAD_ENV, burner_count

ROOT = Path(__file__).resolve().parent.parent

PROBE = '''
import os, time
from pathlib import Path


def burners():
    me, out = os.getpid(), []
    for d in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()
            cmd = Path(f"/proc/{d}/cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if int(stat[1]) == me and b"getppid" in cmd:
            out.append(d)
    return out


def test_probe():
    Path(os.environ["PROBE_OUT"]).write_text(" ".join(burners()))
    time.sleep(float(os.environ.get("PROBE_SLEEP", "0")))
'''


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _pytest(tmp_path, load: str, sleep: float = 0.0) -> subprocess.Popen:
    (tmp_path / "test_probe.py").write_text(PROBE, encoding="utf-8")
    env = {**os.environ, LOAD_ENV: load, "PROBE_OUT": str(tmp_path / "pids"),
           "PROBE_SLEEP": str(sleep)}
    # Ctrl-C as at a terminal: a suite started in the background inherits SIGINT ignored,
    # and Python then never turns it into KeyboardInterrupt
    return subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                             "-p", "tests.conftest", "--rootdir", str(tmp_path),
                             str(tmp_path / "test_probe.py")],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _pids(tmp_path, proc) -> list[int]:
    deadline = time.monotonic() + 60
    while not (tmp_path / "pids").exists():
        assert proc.poll() is None, proc.stdout.read()
        assert time.monotonic() < deadline, "the probe test never ran"
        time.sleep(0.05)
    time.sleep(0.05)
    return [int(p) for p in (tmp_path / "pids").read_text().split()]


def _all_gone(pids: list[int], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while any(_alive(p) for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_the_burners_run_for_the_session_and_stop_with_it(tmp_path):
    proc = _pytest(tmp_path, "2")
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0, out
    assert "loaded-machine mode (JANTAKU_TEST_LOAD): 2 CPU burner(s)" in out
    pids = _pids(tmp_path, proc)
    assert len(pids) == 2
    assert _all_gone(pids, 0)                 # pytest reaped them before it ended


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill-9"])
def test_no_burner_outlives_pytest(tmp_path, sig):
    proc = _pytest(tmp_path, "1", sleep=60)
    try:
        pids = _pids(tmp_path, proc)
        assert len(pids) == 1 and _alive(pids[0])
        proc.send_signal(sig)
        proc.communicate(timeout=60)
        assert _all_gone(pids, 10), f"burner {pids} still running after pytest ended"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


@pytest.mark.parametrize("value", ["two", "-1", "1.5", "65"])
def test_a_bad_load_is_refused_in_words(value):
    with pytest.raises(pytest.UsageError, match="a whole number from 0 to 64"):
        burner_count(value)


def test_no_load_without_the_variable():
    assert burner_count(None) == 0 and burner_count("") == 0 and burner_count("0") == 0
