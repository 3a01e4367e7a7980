"""The whole suite's one hook: the loaded-machine mode.

``JANTAKU_TEST_LOAD=N python -m pytest ...`` runs N CPU burners beside the tests for the
whole session. They run at the tests' own priority, so they compete for the CPU as
another busy program on the box would. A race between a test and a thread or process
it does not wait for then shows up here before it shows up at random. The burners are
stopped when the session ends, on Ctrl-C too, and each one also ends by itself once
its parent is gone, so none outlives pytest, even one killed with kill -9.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

LOAD_ENV = "JANTAKU_TEST_LOAD"
MAX_BURNERS = 64

# busy work that looks up its parent every few milliseconds and stops once it changes
BURNER = """
import os
parent = os.getppid()
while os.getppid() == parent:
    for _ in range(100_000):
        pass
"""

_burners: list[subprocess.Popen] = []


def burner_count(value: str | None) -> int:
    """How many burners ``JANTAKU_TEST_LOAD`` asks for (unset or empty: none)."""
    if value is None or not value.strip():
        return 0
    try:
        n = int(value)
    except ValueError:
        n = -1
    if not 0 <= n <= MAX_BURNERS:
        raise pytest.UsageError(
            f"{LOAD_ENV}={value!r}: give the number of CPU burners to run beside the tests, "
            f"a whole number from 0 to {MAX_BURNERS} (for example {LOAD_ENV}=2)")
    return n


def start_burners(n: int) -> list[subprocess.Popen]:
    """Start ``n`` burner processes (the caller stops them with :func:`stop_burners`)."""
    return [subprocess.Popen([sys.executable, "-c", BURNER], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(n)]


def stop_burners(procs: list[subprocess.Popen]) -> None:
    """Stop the burners and reap them (safe to call twice)."""
    for p in procs:
        if p.poll() is None:
            p.kill()
    for p in procs:
        p.wait(10)
    procs.clear()


def pytest_configure(config: pytest.Config) -> None:
    n = burner_count(os.environ.get(LOAD_ENV))
    if n and not _burners:
        _burners.extend(start_burners(n))


def pytest_unconfigure(config: pytest.Config) -> None:
    stop_burners(_burners)


def pytest_report_header(config: pytest.Config) -> str | None:
    if not _burners:
        return None
    return (f"loaded-machine mode ({LOAD_ENV}): {len(_burners)} CPU burner(s), pids "
            f"{', '.join(str(p.pid) for p in _burners)}")
